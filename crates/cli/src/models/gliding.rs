//! The gliding motility assay: `petri bench gliding` (in `bench`).

pub(crate) mod bench;
