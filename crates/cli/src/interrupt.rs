//! Ctrl-C and SIGTERM during `petri run`: the run finishes the observation period under way,
//! writes a checkpoint at the step it stopped at (with --checkpoint-every), says "stopped" in
//! its manifest and keeps its files; petri then exits with status 130. A second Ctrl-C ends
//! the process at once (the series keep the rows of the periods already done).

use petri_model::runtime::StopCheck;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// The exit status of a run stopped by a signal (128 + SIGINT, as shells report Ctrl-C).
pub(crate) const EXIT_STATUS: i32 = 130;

/// The stop check of a run: true once SIGINT, SIGTERM or SIGHUP arrived. Installs the handler
/// on first use.
pub(crate) fn stop_check() -> StopCheck {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    let flag = FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let seen = flag.clone();
        // ctrlc runs the handler on its own thread, so it may print and exit.
        let installed = ctrlc::set_handler(move || {
            if seen.swap(true, Ordering::SeqCst) {
                std::process::exit(EXIT_STATUS);
            }
            eprintln!("\ninterrupted: stopping once the period under way ends (again to quit now)");
        });
        if let Err(e) = installed {
            log::warn!("Ctrl-C will end the run without a stopped manifest: {e}");
        }
        flag
    });
    StopCheck::flag(flag.clone())
}
