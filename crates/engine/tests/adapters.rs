//! Choosing an adapter by its index in `petri adapters` (for machines whose GPUs share a name).

use petri_engine::{list_adapters, DeviceRequest, EngineError, GpuContext};

fn request_for(adapter: &str) -> DeviceRequest {
    DeviceRequest {
        adapter: Some(adapter.to_string()),
        ..DeviceRequest::from_env()
    }
}

#[test]
fn an_index_picks_that_adapter_of_the_list() {
    let request = DeviceRequest::from_env();
    let list = list_adapters(request.backend.as_deref()).expect("adapters");
    assert!(!list.is_empty(), "GPU tests need an adapter");
    let ctx = GpuContext::new(&request_for("0")).expect("adapter 0");
    assert_eq!(ctx.adapter.name, list[0].name);
    assert_eq!(ctx.adapter.backend, list[0].backend);
}

#[test]
fn an_index_past_the_list_is_an_error_that_says_so() {
    let request = DeviceRequest::from_env();
    let n = list_adapters(request.backend.as_deref())
        .expect("adapters")
        .len();
    match GpuContext::new(&request_for(&n.to_string())) {
        Err(e @ EngineError::NoMatchingAdapter { .. }) => {
            let text = e.to_string();
            assert!(text.contains(&format!("index {n}")), "{text}");
        }
        Err(e) => panic!("expected NoMatchingAdapter, got {e}"),
        Ok(ctx) => panic!("index {n} of {n} adapters opened {}", ctx.adapter.name),
    }
}

/// A name no adapter has gets the adapters there are, not advice to install a driver.
#[test]
fn a_name_no_adapter_has_lists_the_adapters_present() {
    let all = list_adapters(None).expect("adapters");
    assert!(!all.is_empty(), "GPU tests need an adapter");
    match GpuContext::new(&request_for("no such GPU 4711")) {
        Err(e @ EngineError::NoMatchingAdapter { .. }) => {
            let text = e.to_string();
            assert!(text.contains("\"no such GPU 4711\""), "{text}");
            for (i, a) in all.iter().enumerate() {
                assert!(text.contains(&format!("[{i}] {}", a.name)), "{text}");
            }
            assert!(!text.contains("Install"), "{text}");
        }
        Err(e) => panic!("expected NoMatchingAdapter, got {e}"),
        Ok(ctx) => panic!("a made-up name opened {}", ctx.adapter.name),
    }
}
