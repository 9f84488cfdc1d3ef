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

#[test]
fn suites_select_their_samples() {
    let names = |sel: &[&str]| -> Vec<&'static str> {
        let sel: Vec<String> = sel.iter().map(|s| s.to_string()).collect();
        registry::select(&sel)
            .unwrap()
            .iter()
            .map(|s| s.name())
            .collect()
    };
    // Every sample but SAXPY is in exactly one suite, and `all` is every sample.
    let mut in_suites = 0;
    for suite in registry::SUITES {
        let members = names(&[suite]);
        assert!(!members.is_empty(), "{suite}");
        assert!(members.iter().all(|n| n.starts_with(&format!("{suite}/"))));
        in_suites += members.len();
    }
    assert_eq!(in_suites + 1, registry::all().len());
    assert_eq!(names(&["all"]).len(), registry::all().len());
    // Registry order, each once, whatever the order and repetition of the names.
    assert_eq!(
        names(&["sdk/vectorAdd", "nn", "rodinia/nn"]),
        ["rodinia/nn", "sdk/vectorAdd"]
    );
    // A bare name two suites share finds the Rodinia sample; the full name the other.
    assert_eq!(registry::find("bfs").unwrap().name(), "rodinia/bfs");
    assert_eq!(registry::find("parboil/bfs").unwrap().name(), "parboil/bfs");
    assert_eq!(registry::find("sgemm").unwrap().name(), "parboil/sgemm");
    let err = registry::select(&["no-such".to_string()]).err().unwrap();
    assert!(err.contains("unknown sample `no-such`"), "{err}");
}
