//! The epidermis state and its memory layout, shared by the GPU buffers, the CPU reference and
//! the checkpoint.
//!
//! Elements live in fixed slots: cell `c` owns slots `c * MAX_ELEMENTS .. c * MAX_ELEMENTS +
//! counts[c]`, so growth writes one slot and division moves twenty, with no re-layout of other
//! cells. Slots past a cell's count are unused and zero.

/// Slots per cell: a cell divides when growth brings it to this many elements.
pub const MAX_ELEMENTS: usize = 40;
/// Elements of each daughter after a division.
pub const DAUGHTER_ELEMENTS: usize = MAX_ELEMENTS / 2;
/// Gene-network values per cell (two vec4 on the GPU).
pub const SPECIES: usize = 8;

/// The per-cell gene-network values, by index into `EpidermisState::genes[cell]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Species {
    Notch = 0,
    Delta = 1,
    /// Notch bound to a neighbour's Delta.
    Bound = 2,
    Ovol1 = 3,
    Ovol2 = 4,
    Myc = 5,
    /// Basement-membrane adhesion A: the sum of |z| over the cell's adhesive elements,
    /// recomputed from the positions every step (not integrated).
    Adhesion = 6,
}

/// The names of the gene-network values, in `Species` order (the eighth is unused).
pub const GENE_NAMES: [&str; SPECIES] = [
    "notch", "delta", "bound", "ovol1", "ovol2", "myc", "adhesion", "unused",
];

/// Element type in `pos[slot][3]`: adhesive to the basement membrane (the seed's type C1).
pub const ADHESIVE: f32 = 1.0;
/// Element type in `pos[slot][3]`: no basement-membrane adhesion.
pub const PLAIN: f32 = 0.0;

/// Counters kept on the GPU (`counters` buffer, u32 words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    /// Cells in use: ids `0..cells`.
    Cells = 0,
    /// Elements in use (the length of the active-slot list).
    Elements = 1,
    /// Divisions so far.
    Divisions = 2,
    /// Elements added by growth so far.
    Added = 3,
    /// Divisions refused because `max_cells` would have been exceeded (the run stops).
    Overflow = 4,
}

/// Words of the counters buffer (room for scratch words after the named ones).
pub const COUNTERS: usize = 8;

/// The whole state of an epidermis simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct EpidermisState {
    /// Steps done.
    pub step: u64,
    /// Capacity: cells that fit (`max_cells` of the config).
    pub max_cells: u32,
    /// Cells in use: ids `0..cells`.
    pub cells: u32,
    /// Elements per cell, `max_cells` entries (0 past `cells`).
    pub counts: Vec<u32>,
    /// Element slots, `max_cells * MAX_ELEMENTS` entries: x, y, z and the type (`ADHESIVE` or
    /// `PLAIN`); unused slots are zero.
    pub pos: Vec<[f32; 4]>,
    /// Gene-network values per cell (`Species` order), `max_cells` entries.
    pub genes: Vec<[f32; SPECIES]>,
    /// Divisions so far.
    pub divisions: u32,
    /// Elements added by growth so far.
    pub added: u32,
}

impl EpidermisState {
    /// An empty state with room for `max_cells` cells.
    pub fn empty(max_cells: u32) -> Self {
        let m = max_cells as usize;
        Self {
            step: 0,
            max_cells,
            cells: 0,
            counts: vec![0; m],
            pos: vec![[0.0; 4]; m * MAX_ELEMENTS],
            genes: vec![[0.0; SPECIES]; m],
            divisions: 0,
            added: 0,
        }
    }

    /// Elements in use.
    pub fn elements(&self) -> u64 {
        self.counts.iter().map(|&c| c as u64).sum()
    }

    /// The slots of cell `c` in use.
    pub fn slots(&self, c: usize) -> std::ops::Range<usize> {
        c * MAX_ELEMENTS..c * MAX_ELEMENTS + self.counts[c] as usize
    }

    /// Whether cell `c` still has an adhesive element (a basal cell).
    pub fn is_basal(&self, c: usize) -> bool {
        self.slots(c).any(|s| self.pos[s][3] == ADHESIVE)
    }
}
