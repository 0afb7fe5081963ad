//! Asking a run to stop early: Ctrl-C or SIGTERM in the command line, a KeyboardInterrupt in
//! Python. The run loop and `Driven::advance_until` ask after every batch of steps
//! (`Simulation::batch_steps`; by default the observation period), so a run stops with the
//! batch under way done and its state whole.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A question the runtime asks between batches: true stops the run there.
#[derive(Clone)]
pub struct StopCheck(Arc<dyn Fn() -> bool + Send + Sync>);

impl StopCheck {
    /// Asks `ask` (which may do work, e.g. run Python's signal handlers).
    pub fn new(ask: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(ask))
    }

    /// Stops once `flag` is set (by a signal handler, another thread).
    pub fn flag(flag: Arc<AtomicBool>) -> Self {
        Self::new(move || flag.load(Ordering::Relaxed))
    }

    /// Whether the run should stop now.
    pub fn requested(&self) -> bool {
        (self.0)()
    }
}

impl std::fmt::Debug for StopCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StopCheck")
    }
}
