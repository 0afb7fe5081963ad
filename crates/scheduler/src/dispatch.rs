//! Dispatch sizes that live on the GPU: where a pass finds its workgroup counts, the buffers
//! that hold them, and the CPU twin of the WGSL function that turns an item count into them
//! (`shaders/common/dispatch.wgsl`).

use petri_engine::{EngineError, GpuContext, Result};

/// Bytes of one set of indirect dispatch arguments: three u32 workgroup counts (x, y, z).
pub const DISPATCH_ARGS_BYTES: u64 = 12;

/// A place in one of the plan's named buffers: the buffer's name and a byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferAt {
    pub name: String,
    pub offset: u64,
}

impl BufferAt {
    pub fn new(name: &str, offset: u64) -> Self {
        Self {
            name: name.to_string(),
            offset,
        }
    }

    /// Fails unless `bytes` bytes from the offset lie inside `buffer` at a 4-byte boundary.
    pub(crate) fn check(&self, what: &str, buffer: &wgpu::Buffer, bytes: u64) -> Result<()> {
        let end = self.offset.checked_add(bytes);
        if !self.offset.is_multiple_of(4) || end.is_none_or(|e| e > buffer.size()) {
            return Err(EngineError::Plan(format!(
                "{what}: offset {} in buffer {:?} of {} bytes must be a multiple of 4 with {bytes} bytes after it",
                self.offset,
                self.name,
                buffer.size()
            )));
        }
        Ok(())
    }
}

/// A zeroed buffer for `sets` sets of dispatch arguments, usable as storage (a pass writes the
/// counts) and as the source of indirect dispatches; register it with `StepPlan::add_buffer`.
pub fn args_buffer(ctx: &GpuContext, label: &str, sets: u32) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: DISPATCH_ARGS_BYTES * sets.max(1) as u64,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::INDIRECT
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The workgroup counts that cover `count` items at `group_size` items per workgroup:
/// ceil(count / group_size) groups along x, rows of `max_groups` spread over y (then z) when x
/// is full, each axis clamped to `max_groups`. No items give no groups. The last row may hold
/// groups past the count, so a kernel checks its index (`dispatch_index` in the WGSL) against
/// the count. CPU twin of `dispatch_args` in `shaders/common/dispatch.wgsl`.
pub fn dispatch_args(count: u32, group_size: u32, max_groups: u32) -> [u32; 3] {
    let (group_size, max_groups) = (group_size.max(1), max_groups.max(1));
    let groups = count.div_ceil(group_size);
    if groups == 0 {
        return [0, 0, 0];
    }
    let x = groups.min(max_groups);
    let rows = groups.div_ceil(x);
    let y = rows.min(max_groups);
    let z = rows.div_ceil(y).min(max_groups);
    [x, y, z]
}

#[cfg(test)]
mod tests {
    use super::dispatch_args;

    #[test]
    fn args_cover_the_count_with_less_than_a_row_to_spare() {
        for &(count, size, max) in &[
            (1u32, 64u32, 65535u32),
            (64, 64, 65535),
            (65, 64, 65535),
            (4 * 65535 + 9, 4, 65535),
            (u32::MAX, 1, 65535),
            (u32::MAX, 256, 65535),
            (1000, 1, 7),
            (1000, 3, 5),
        ] {
            let [x, y, z] = dispatch_args(count, size, max);
            let groups = count.div_ceil(size) as u64;
            let covered = x as u64 * y as u64 * z as u64;
            assert!(x <= max && y <= max && z <= max, "{count} {size} {max}");
            let capacity = (max as u64).pow(3);
            if groups <= capacity {
                assert!(covered >= groups, "{count} {size} {max}: {x} {y} {z}");
                assert!(
                    covered - groups < x as u64 * y as u64,
                    "{count} {size} {max}"
                );
            } else {
                assert_eq!([x, y, z], [max; 3]);
            }
        }
    }

    #[test]
    fn args_fill_x_before_y_and_y_before_z() {
        assert_eq!(dispatch_args(0, 64, 65535), [0, 0, 0]);
        assert_eq!(dispatch_args(1, 64, 65535), [1, 1, 1]);
        assert_eq!(dispatch_args(100, 64, 65535), [2, 1, 1]);
        assert_eq!(dispatch_args(4 * 65535 + 9, 4, 65535), [65535, 2, 1]);
        assert_eq!(dispatch_args(26, 1, 5), [5, 5, 2]);
        assert_eq!(dispatch_args(1000, 1, 5), [5, 5, 5]);
        // Degenerate sizes are read as 1 rather than dividing by zero.
        assert_eq!(dispatch_args(3, 0, 0), [1, 1, 1]);
    }
}
