//! Multi-device z-slab decomposition of a 3-D lattice model.
//!
//! The lattice's z planes are split into slabs, one per device (`split`). Each device's part
//! (`SlabPart`, the model's) steps its slab with halo planes `halo_depth` deep on each side
//! with a neighbour; every `halo_depth` steps the boundary planes go to the neighbours' halos
//! through host memory (`halo`), so one host round trip serves `halo_depth` steps. The driver
//! (`Decomposition`) steps the parts in parallel, exchanges, times each device's share and asks
//! the balancer (`balance`) whether moving slab boundaries toward the faster devices pays off;
//! the model rebuilds its parts for the new split.
//!
//! A model whose random numbers are keyed by global site and step gives the same state on 1 or
//! N devices and for any split.

pub mod balance;
pub mod decomposition;
pub mod halo;
pub mod part;
pub mod split;

pub use balance::{BalanceOptions, Balancer, Decision};
pub use decomposition::{
    Decomposition, DecompositionOptions, MultiDeviceTiming, Rebuild, FIRST_BATCH,
};
pub use halo::{FieldLayout, HaloExchange};
pub use part::SlabPart;
pub use split::{check_split, equal_split, extents, halo_depth, proportional_split, SlabExtent};
