//! Every registered sample passes at the small size under both engines, through the same code
//! `warpsim run --all --size small` uses, and the two engines execute exactly the same
//! instructions. New ports are covered as soon as they are registered.

use runtime::{Device, DeviceConfig};
use warpsim::registry;
use warpsim::sample::Size;

#[test]
fn every_sample_passes_at_the_small_size() {
    let dev = Device::new(DeviceConfig::default()).unwrap();
    let mut failures = Vec::new();
    for s in registry::all() {
        match s.run(&dev, Size::Small) {
            Ok(o) if o.validation.passed() => {
                assert!(o.launches > 0, "{} launched nothing", s.name())
            }
            Ok(o) => failures.push(format!("{}: {}", s.name(), o.validation)),
            Err(e) => failures.push(format!("{}: {e}", s.name())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn sample_names_resolve() {
    for s in registry::all() {
        assert_eq!(registry::find(s.name()).map(|f| f.name()), Some(s.name()));
        assert!(!s.kernels().is_empty());
    }
    assert!(registry::find("no-such-sample").is_none());
}
