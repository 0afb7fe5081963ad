//! Helpers for tests that need a GPU. They fail (never skip) when no adapter is found: CI installs
//! the software adapter, so a missing adapter is a broken setup, not a reason to pass.

use crate::{DeviceRequest, GpuContext};

/// The context for a test, honouring `PETRI_BACKEND` / `PETRI_ADAPTER`.
pub fn test_context() -> GpuContext {
    match GpuContext::new(&DeviceRequest::from_env()) {
        Ok(ctx) => ctx,
        Err(e) => panic!("GPU tests need an adapter: {e}"),
    }
}
