//! The ranks of one run started several times over (an MPI launch: `mpirun -np N`, `srun`), as
//! a model sees them: a rank number, the host of every rank, and messages of `u64` words
//! between rank 0 and each other rank. The program supplies the transport (petri-cli over
//! MPI); a model that runs over ranks (`Model::open_ranks`) splits its work with [`share`].

use serde::Serialize;
use std::ops::Range;

/// What a run's manifest says of each rank.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RankRecord {
    pub rank: usize,
    pub host: String,
    /// Where it ran: "cpu (N threads)", or the adapter (name, backend, driver).
    pub device: String,
    /// The items of the work it took ([`share`]): the first and one past the last.
    pub share: [u64; 2],
}

/// The ranks of a launch. Messages between two ranks arrive in the order they were sent.
pub trait Team: Send + Sync {
    /// This process's rank, 0..size.
    fn rank(&self) -> usize;
    fn size(&self) -> usize;
    /// The host of `rank` (its processor name), for messages and the manifest.
    fn host(&self, rank: usize) -> String;
    /// Sends `words` to rank `to`.
    fn send(&self, to: usize, words: &[u64]);
    /// The next message from rank `from`.
    fn receive(&self, from: usize) -> Vec<u64>;
}

/// The items `0..n` that `rank` of `size` takes: contiguous, in rank order, the first
/// `n % size` ranks one more than the others. Item i is the same item on every rank count.
pub fn share(n: u64, rank: usize, size: usize) -> Range<u64> {
    let (size, rank) = (size as u64, rank as u64);
    let (base, extra) = (n / size, n % size);
    let start = rank * base + rank.min(extra);
    start..start + base + (rank < extra) as u64
}

/// Text as words (its UTF-8 bytes, 8 to a word, after the byte count), for messages.
pub fn text_words(text: &str) -> Vec<u64> {
    let bytes = text.as_bytes();
    let mut words = vec![bytes.len() as u64];
    words.extend(bytes.chunks(8).map(|c| {
        let mut w = [0u8; 8];
        w[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(w)
    }));
    words
}

/// The text of [`text_words`] (invalid UTF-8 replaced).
pub fn words_text(words: &[u64]) -> String {
    let Some((&len, rest)) = words.split_first() else {
        return String::new();
    };
    let bytes: Vec<u8> = rest.iter().flat_map(|w| w.to_le_bytes()).collect();
    String::from_utf8_lossy(&bytes[..(len as usize).min(bytes.len())]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_cover_every_item_once_in_rank_order() {
        for n in [0u64, 1, 7, 10, 1000] {
            for size in 1..=5 {
                let ranges: Vec<_> = (0..size).map(|r| share(n, r, size)).collect();
                assert_eq!(ranges[0].start, 0);
                assert_eq!(ranges[size - 1].end, n);
                for w in ranges.windows(2) {
                    assert_eq!(w[0].end, w[1].start);
                    assert!(w[0].end - w[0].start >= w[1].end - w[1].start);
                }
            }
        }
        assert_eq!(share(10, 2, 3), 7..10);
        for text in ["", "rank 1 on node-7", "trajectory 17: ü"] {
            assert_eq!(words_text(&text_words(text)), text);
        }
    }
}
