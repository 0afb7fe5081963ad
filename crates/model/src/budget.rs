//! The memory a run takes, worked out from its config before anything is allocated, and the
//! limits a config is held to. A model lists its run's parts (the config fields that size each,
//! its bytes on the device and the host, each an upper bound) and [`check`] refuses a config
//! past the limits, naming the fields that size its largest part. wgpu does not say how much
//! memory a device has: the limits are those of the largest machines, and a device's own
//! per-buffer limits are checked again when its buffers are made.

use crate::error::{invalid, ModelError, Result};

/// The most device memory a run may take: the most any one GPU holds (192 GB).
pub const MAX_DEVICE_BYTES: f64 = (192u64 << 30) as f64;
/// The most host memory a run may take (a large workstation or a GPU node).
pub const MAX_HOST_BYTES: f64 = (128u64 << 30) as f64;

/// One part of a run: the config fields that size it, its bytes on the device and the host.
#[derive(Clone, Debug)]
pub struct Part {
    pub what: &'static str,
    pub sized_by: String,
    pub device: f64,
    pub host: f64,
}

/// A run's parts (in f64: a size of 2^62 does not overflow) and their totals.
#[derive(Clone, Debug)]
pub struct Footprint {
    pub parts: Vec<Part>,
}

impl Footprint {
    pub fn device(&self) -> f64 {
        self.parts.iter().map(|p| p.device).sum()
    }

    pub fn host(&self) -> f64 {
        self.parts.iter().map(|p| p.host).sum()
    }

    /// The part that takes the most of `bytes`.
    fn largest(&self, bytes: impl Fn(&Part) -> f64) -> Option<&Part> {
        self.parts
            .iter()
            .max_by(|a, b| bytes(a).total_cmp(&bytes(b)))
    }
}

/// Refuses a footprint past `MAX_DEVICE_BYTES` (as out of device memory) or `MAX_HOST_BYTES`
/// (as an invalid value of the fields that size the largest part).
pub fn check(f: &Footprint) -> Result<()> {
    if f.device() > MAX_DEVICE_BYTES {
        let p = f.largest(|p| p.device).expect("a part past the limit");
        return Err(ModelError::OutOfMemory {
            what: format!(
                "a run of this config (its largest part, {}: {})",
                p.what, p.sized_by
            ),
            bytes: f.device() as u64,
            limit: format!("the most a config may ask is {}", gib(MAX_DEVICE_BYTES)),
        });
    }
    if f.host() > MAX_HOST_BYTES {
        let p = f.largest(|p| p.host).expect("a part past the limit");
        return Err(invalid(
            &p.sized_by,
            format!("{} of host memory ({})", gib(f.host()), p.what),
            format!("at most {} of host memory", gib(MAX_HOST_BYTES)),
        ));
    }
    Ok(())
}

/// Bytes in GiB, as messages print them.
pub fn gib(bytes: f64) -> String {
    format!("{:.1} GiB", bytes / (1u64 << 30) as f64)
}
