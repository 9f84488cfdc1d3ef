//! PTX sets: the samples' PTX as another compiler or architecture makes it, so that the same
//! drivers and CPU references validate it (`warpsim run --ptx-set NAME`).
//!
//! A set is a directory laid out as the samples directory is (`rodinia/nn/nn.ptx`), holding one
//! NVRTC's output for one architecture, written whole by `tools/regen_ptx.py --ptx-set NAME
//! --nvrtc MAJOR --arch compute_NN` with a manifest, `ptx-set.toml`: where the PTX came from and
//! which of the samples' files the set lacks, with the reason (a source that needs NVRTC 11's
//! texture references, or a later architecture). Named sets live in `samples/ptx-sets/NAME`
//! (samples/ptx-sets/README.md); any other directory of that layout is a set too, manifest or
//! not. Without a set the samples read the committed PTX beside their sources.
//!
//! The set in force is a property of the thread that runs a sample ([`with`]): the drivers load
//! their modules through [`module_path`] (`Session::load`), so none of them names a set, and
//! two samples on two threads may run from two sets at once.

use serde::Deserialize;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where the named sets live, below the samples directory.
pub const SETS_DIR: &str = "ptx-sets";
/// The manifest that `tools/regen_ptx.py` writes into every set.
pub const MANIFEST: &str = "ptx-set.toml";
/// The name that selects the committed PTX beside the sources.
pub const COMMITTED: &str = "committed";

/// What a set's manifest records (`tools/regen_ptx.py`'s `manifest_text`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// NVRTC's version, `13.5`.
    pub nvrtc: String,
    /// The wheel and its version (`nvidia-cuda-nvrtc 13.5.37`), or the library's path.
    pub nvrtc_library: String,
    /// The virtual architecture every file was compiled for, `compute_90`.
    pub arch: String,
    /// The command that regenerates the set.
    pub command: String,
    /// The samples' PTX files (paths below the samples directory) the set does not hold, each
    /// with the reason.
    #[serde(default)]
    pub not_applicable: BTreeMap<String, String>,
}

/// One set of the samples' PTX: the committed one, a named set or a directory.
#[derive(Clone, Debug)]
pub struct PtxSet {
    /// `committed`, the set's name, or the directory as given.
    name: String,
    root: PathBuf,
    /// `None` for the committed PTX and for a directory without a manifest.
    manifest: Option<Manifest>,
}

impl PtxSet {
    /// The committed PTX beside the samples' sources.
    pub fn committed() -> PtxSet {
        PtxSet {
            name: COMMITTED.into(),
            root: crate::samples_dir(),
            manifest: None,
        }
    }

    /// The set `spec` names: `committed`, the name of a set in `samples/ptx-sets`, or a
    /// directory (any spec with a `/`, `./mine` for one in the working directory).
    pub fn open(spec: &str) -> Result<PtxSet, String> {
        if spec == COMMITTED {
            return Ok(PtxSet::committed());
        }
        if spec.contains(std::path::MAIN_SEPARATOR) || spec.contains('/') {
            return PtxSet::open_dir(spec, Path::new(spec), false);
        }
        let root = sets_dir().join(spec);
        if !root.is_dir() {
            return Err(format!(
                "no PTX set named `{spec}` in {}: the named sets are `{COMMITTED}` (the PTX \
                 beside the sources) and {} (a directory of your own is given as a path with a \
                 `/`, such as ./{spec})",
                sets_dir().display(),
                available_list()
            ));
        }
        PtxSet::open_dir(spec, &root, true)
    }

    /// A set in `root`, named `name`; its manifest read if it has one (a named set must).
    fn open_dir(name: &str, root: &Path, needs_manifest: bool) -> Result<PtxSet, String> {
        if !root.is_dir() {
            return Err(format!(
                "the PTX set directory {} does not exist (or is not a directory)",
                root.display()
            ));
        }
        let manifest_path = root.join(MANIFEST);
        let manifest = if manifest_path.is_file() {
            Some(read_manifest(&manifest_path)?)
        } else if needs_manifest {
            return Err(format!(
                "the PTX set `{name}` has no {} (tools/regen_ptx.py --ptx-set {name} writes \
                 it with the set)",
                manifest_path.display()
            ));
        } else {
            None
        };
        Ok(PtxSet {
            name: name.into(),
            root: root.to_path_buf(),
            manifest,
        })
    }

    /// `committed`, the set's name, or the directory as given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The directory its files are in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// What its manifest records, if it has one.
    pub fn manifest(&self) -> Option<&Manifest> {
        self.manifest.as_ref()
    }

    /// Whether this is the committed PTX.
    pub fn is_committed(&self) -> bool {
        self.name == COMMITTED
    }

    /// One line for reports: `cuda13-sm_90 (NVRTC 13.5, compute_90)`.
    pub fn describe(&self) -> String {
        match &self.manifest {
            _ if self.is_committed() => "the committed PTX".into(),
            Some(m) => format!("PTX set `{}` (NVRTC {}, {})", self.name, m.nvrtc, m.arch),
            None => format!("PTX set {}", self.root.display()),
        }
    }

    /// The file of the sample module `relative` (`rodinia/nn/nn.ptx`) in this set, or why
    /// there is none: not applicable (the manifest's reason), or missing.
    pub fn path(&self, relative: &str) -> Result<PathBuf, String> {
        let path = self.root.join(relative);
        if self.is_committed() || path.is_file() {
            return Ok(path);
        }
        let name = &self.name;
        match &self.manifest {
            Some(m) => match m.not_applicable.get(relative) {
                Some(reason) => Err(format!(
                    "the PTX set `{name}` has no {relative}: not applicable: {reason}"
                )),
                None => Err(format!(
                    "the PTX set `{name}` has no {relative} ({} is missing); regenerate the set: \
                     {}",
                    path.display(),
                    m.command
                )),
            },
            None => Err(format!(
                "the PTX set {} has no {relative} ({} is missing)",
                self.root.display(),
                path.display()
            )),
        }
    }
}

/// `samples/ptx-sets`.
pub fn sets_dir() -> PathBuf {
    crate::samples_dir().join(SETS_DIR)
}

/// The names of the sets in `samples/ptx-sets` (directories with a manifest), sorted.
pub fn available() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(sets_dir()) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| e.path().join(MANIFEST).is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    names.sort();
    names
}

/// The sets of samples/ptx-sets for a message: `cuda13-sm_120, cuda13-sm_90`.
fn available_list() -> String {
    let names = available();
    if names.is_empty() {
        "none there".into()
    } else {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Reads and checks a manifest; errors name the file.
fn read_manifest(path: &Path) -> Result<Manifest, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

thread_local! {
    /// The set this thread's samples read their modules from; `None`: the committed PTX.
    static CURRENT: RefCell<Option<PtxSet>> = const { RefCell::new(None) };
}

/// Runs `f` with the samples' modules read from `set` on this thread, and puts back the set
/// that was in force before (also when `f` panics).
pub fn with<R>(set: &PtxSet, f: impl FnOnce() -> R) -> R {
    /// Restores the previous set when dropped.
    struct Restore(Option<PtxSet>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = previous);
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.borrow_mut().replace(set.clone())));
    f()
}

/// The file of a sample's module, `relative` to the samples directory (`rodinia/nn/nn.ptx`), in
/// the set in force on this thread ([`with`]; the committed PTX outside it).
pub fn module_path(relative: &str) -> runtime::Result<PathBuf> {
    CURRENT
        .with(|c| match &*c.borrow() {
            Some(set) => set.path(relative),
            None => Ok(crate::samples_dir().join(relative)),
        })
        .map_err(runtime::Error::InvalidValue)
}
