//! Quiet adapter probes on machines without a Wayland display.
//!
//! wgpu enables the Wayland surface extension on every Vulkan instance. Mesa's device-select
//! layer (an implicit Vulkan layer installed with Mesa's drivers, lavapipe's included) then asks
//! the Wayland compositor for the default GPU each time adapters are enumerated, and without
//! `XDG_RUNTIME_DIR` libwayland prints `error: XDG_RUNTIME_DIR is invalid or not set in the
//! environment.` on stderr: a line that reads like a failure and is none. Petri ranks adapters
//! itself, so the layer adds nothing to its choice; where there is no display to ask, it is
//! switched off (the layer's own `NODEVICE_SELECT=1`).

/// Switches Mesa's device-select layer off when no Wayland display is reachable (no
/// `WAYLAND_DISPLAY` and no valid `XDG_RUNTIME_DIR`) and the user has not set the layer's own
/// variables (`NODEVICE_SELECT`, `MESA_VK_DEVICE_SELECT`). It sets an environment variable:
/// call it at the start of the process, before other threads run. The engine calls it once
/// before its first wgpu instance, so a process that does not (a test, an embedder) is quiet
/// too.
pub fn quiet_display_probes() {
    if let Some((key, value)) = layer_switch(&|k| std::env::var_os(k)) {
        std::env::set_var(key, value);
    }
}

/// The variable to set, given how the environment reads (`var`).
fn layer_switch(
    var: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Option<(&'static str, &'static str)> {
    let set = |k: &str| var(k).is_some_and(|v| !v.is_empty());
    let absolute = |k: &str| var(k).is_some_and(|v| v.to_string_lossy().starts_with('/'));
    // libwayland looks for its socket quietly where either is an absolute path, and complains
    // otherwise.
    let quiet = absolute("XDG_RUNTIME_DIR") || absolute("WAYLAND_DISPLAY");
    let user_choice = set("NODEVICE_SELECT") || set("MESA_VK_DEVICE_SELECT");
    (!quiet && !user_choice).then_some(("NODEVICE_SELECT", "1"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn switch(env: &[(&str, &str)]) -> Option<(&'static str, &'static str)> {
        let env: Vec<(String, OsString)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        layer_switch(&|k| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()))
    }

    #[test]
    fn the_layer_goes_off_only_where_libwayland_would_complain() {
        // A container, cron or ssh: no login desktop.
        assert_eq!(switch(&[]), Some(("NODEVICE_SELECT", "1")));
        assert_eq!(
            switch(&[("XDG_RUNTIME_DIR", "run/user")]),
            Some(("NODEVICE_SELECT", "1"))
        );
        // A desktop, or a runtime dir where libwayland finds no socket quietly.
        assert_eq!(
            switch(&[
                ("WAYLAND_DISPLAY", "wayland-0"),
                ("XDG_RUNTIME_DIR", "/run/user/1000")
            ]),
            None
        );
        assert_eq!(switch(&[("XDG_RUNTIME_DIR", "/run/user/1000")]), None);
        // The user's own choice of the layer's behaviour stands.
        assert_eq!(switch(&[("NODEVICE_SELECT", "0")]), None);
        assert_eq!(switch(&[("MESA_VK_DEVICE_SELECT", "10de:2330")]), None);
    }
}
