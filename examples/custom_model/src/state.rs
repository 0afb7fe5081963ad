//! The whole state of a run at a step: the two fields, row-major with x fastest
//! (`u[x + nx y]`). Nothing else carries over from one step to the next.

#[derive(Clone, Debug, PartialEq)]
pub struct GrayScottState {
    pub step: u64,
    pub u: Vec<f32>,
    pub v: Vec<f32>,
}

impl GrayScottState {
    /// The first field, if any, whose length is not `cells`: (name, length).
    pub fn wrong_length(&self, cells: usize) -> Option<(&'static str, usize)> {
        [("u", self.u.len()), ("v", self.v.len())]
            .into_iter()
            .find(|&(_, n)| n != cells)
    }
}
