//! The sweep specification (docs/sweeps.md): a TOML file naming a grid of timing simulations
//! — samples × sizes × presets × override sets × techniques — with what every run shares,
//! where the results go and what a SLURM array asks for. Loading checks everything before
//! anything runs, each problem named by its key; the grid expands into [`Point`]s in a fixed
//! order, each with an identity derived from its parameters alone.

use crate::RegsArg;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use timing::GpuConfig;
use warpsim::registry;
use warpsim::sample::{Sample, Size};

/// The file as written (before checking).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    name: Option<String>,
    output: Option<String>,
    grid: GridFile,
    #[serde(default)]
    run: RunFile,
    #[serde(default)]
    slurm: SlurmFile,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GridFile {
    samples: Vec<String>,
    sizes: Option<Vec<String>>,
    presets: Option<Vec<String>>,
    techniques: Option<Vec<String>>,
    #[serde(default)]
    set: Vec<String>,
    #[serde(default)]
    vary: toml::Table,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RunFile {
    regs: Option<toml::Value>,
    kernel_minsts: Option<u64>,
    launch_waves: Option<u32>,
    timing_threads: Option<usize>,
    time_limit: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SlurmFile {
    partition: Option<String>,
    account: Option<String>,
    time: Option<String>,
    mem: Option<String>,
    cpus_per_task: Option<u32>,
    points_per_task: Option<usize>,
    max_running: Option<u32>,
    #[serde(default)]
    extra: Vec<String>,
    #[serde(default)]
    setup: Vec<String>,
    warpsim: Option<String>,
}

/// What a SLURM job array of the sweep asks for (`[slurm]`); `None`: the cluster's default.
#[derive(Debug, Default)]
pub(crate) struct Slurm {
    pub partition: Option<String>,
    pub account: Option<String>,
    /// Wall-time limit per array task, in one of sbatch's forms (`30`, `2:00:00`, `1-0`).
    pub time: Option<String>,
    /// Memory per array task, as sbatch takes it (`4G`, `500M`).
    pub mem: Option<String>,
    /// CPUs per array task, and the simulations each task runs at once (default 1).
    pub cpus_per_task: u32,
    /// Points per array task (default 1: a task per point).
    pub points_per_task: usize,
    /// At most this many array tasks at once (sbatch's `--array=...%N`).
    pub max_running: Option<u32>,
    /// More sbatch options, one `#SBATCH` line each (`--qos=normal`).
    pub extra: Vec<String>,
    /// Shell lines each task runs first (`module load ...`).
    pub setup: Vec<String>,
    /// The `warpsim` the tasks run (default: the one submitting).
    pub warpsim: Option<PathBuf>,
}

/// One simulation of the grid: indices into the spec's dimensions, and its identity.
pub(crate) struct Point {
    /// Its number in grid order (`--point N`, the array task of a one-point batch).
    pub index: usize,
    /// A hash of its parameters ([`Spec::load`]): the same point has the same id whatever the
    /// rest of the grid is, so changing a spec adds or drops points and keeps the others'
    /// results.
    pub id: String,
    pub sample: &'static dyn Sample,
    pub size: Size,
    /// Index into [`Spec::presets`].
    pub preset: usize,
    /// Index into [`Spec::variants`].
    pub variant: usize,
    /// Index into [`Spec::techniques`].
    pub technique: usize,
}

impl Point {
    /// Its result file's name in the sweep's `points/` directory: readable parameters, then
    /// the id that tells apart points differing in what the name leaves out.
    pub fn file_name(&self, spec: &Spec) -> String {
        format!(
            "{}--{}--{}--{}--{}.json",
            self.sample.name().replace('/', "__"),
            self.size.name(),
            spec.presets[self.preset].slug,
            spec.techniques[self.technique],
            self.id
        )
    }
}

/// A point's parameters as its result file, the tables and the listings name them.
#[derive(Serialize)]
pub(crate) struct Params<'a> {
    pub id: &'a str,
    pub sample: &'static str,
    pub size: &'static str,
    pub preset: &'a str,
    /// `key=value`, sorted by key.
    pub overrides: &'a [String],
    pub technique: &'a str,
}

impl Params<'_> {
    /// `saxpy small gtx480 bow-wr sm.rf.banks=8`: the point in a line of a log.
    pub fn label(&self) -> String {
        let mut words = vec![self.sample, self.size, self.preset, self.technique];
        words.extend(self.overrides.iter().map(String::as_str));
        words.join(" ")
    }
}

/// A GPU configuration of the grid.
#[derive(Debug)]
pub(crate) struct Preset {
    /// As the spec names it: a preset name, or a TOML file relative to the spec.
    pub name: String,
    /// What `GpuConfig::load` takes: the name, or the file's path from here.
    source: String,
    /// Its part of a point's identity: the name, or for a file its path as written and a
    /// hash of its contents (an edited file makes new points).
    identity: String,
    /// The name in file names: the preset, or the file's stem.
    pub slug: String,
}

/// A checked sweep specification and its points.
pub(crate) struct Spec {
    pub name: String,
    /// Where the results go: `points/` (a JSON file per point), `slurm/`, the merged tables.
    pub output: PathBuf,
    /// The spec file, as given.
    pub path: PathBuf,
    /// `[run] regs`, as [`RegsArg`] and as written in results.
    pub regs: RegsArg,
    pub regs_name: String,
    pub sampling: crate::TimingSamplingArgs,
    /// `[run] timing_threads`: host threads running each simulation's SMs (1 by default;
    /// the results are the same for any number).
    pub timing_threads: usize,
    /// `[run] time_limit`: the wall-clock time a point may take before it is stopped and
    /// recorded as an error (none by default).
    pub time_limit: Option<std::time::Duration>,
    pub slurm: Slurm,
    pub samples: Vec<&'static dyn Sample>,
    pub sizes: Vec<Size>,
    pub presets: Vec<Preset>,
    /// The override sets: `grid.set`, then one combination of `grid.vary`'s values, as
    /// `key=value` sorted by key.
    pub variants: Vec<Vec<String>>,
    pub techniques: Vec<String>,
    /// The configuration of each (preset, variant, technique), [`Spec::config`].
    configs: Vec<GpuConfig>,
    pub points: Vec<Point>,
}

/// The most points a sweep may have: a grid is checked before it is built.
pub(crate) const MAX_POINTS: usize = 100_000;

/// `error: SPEC: KEY: PROBLEM`.
fn key_error(spec: &Path, key: &str, problem: impl std::fmt::Display) -> String {
    format!("error: {}: {key}: {problem}", spec.display())
}

impl Spec {
    /// Reads and checks the spec at `path`; `output` replaces its `output` (a path from here,
    /// not from the spec).
    pub fn load(path: &Path, output: Option<&Path>) -> Result<Spec, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("error: cannot read {}: {e}", path.display()))?;
        Spec::parse(path, &text, output)
    }

    /// [`Spec::load`] of `text`, as if read from `path`.
    pub fn parse(path: &Path, text: &str, output: Option<&Path>) -> Result<Spec, String> {
        let file: SpecFile = toml::from_str(text)
            .map_err(|e| format!("error: {}: {}", path.display(), e.to_string().trim_end()))?;
        let err = |key: &str, problem: &dyn std::fmt::Display| key_error(path, key, problem);
        let dir = path.parent().unwrap_or(Path::new(""));
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();

        let name = file.name.unwrap_or_else(|| stem.clone());
        if name.is_empty() || !name.bytes().all(slug_byte) {
            return Err(err(
                "name",
                &format!(
                    "`{name}`: use letters, digits, `.`, `_` and `-` (it names the SLURM job)"
                ),
            ));
        }
        let output = match (output, &file.output) {
            (Some(o), _) => o.to_path_buf(),
            (None, Some(o)) if o.is_empty() => return Err(err("output", &"empty")),
            (None, Some(o)) => dir.join(o),
            (None, None) => dir.join(&stem),
        };

        let g = &file.grid;
        let samples = samples(&g.samples).map_err(|e| err("grid.samples", &e))?;
        let sizes = sizes(g.sizes.as_deref().unwrap_or(&["small".into()]))
            .map_err(|e| err("grid.sizes", &e))?;
        let techniques = techniques(g.techniques.as_deref().unwrap_or(&["baseline".into()]))
            .map_err(|e| err("grid.techniques", &e))?;
        let presets = presets(dir, g.presets.as_deref().unwrap_or(&["gtx480".into()]))
            .map_err(|e| err("grid.presets", &e))?;
        // The grid's size before any of it is built: the other dimensions, then with the
        // override sets (their product is checked before they are combined).
        let others = [samples.len(), sizes.len(), presets.len(), techniques.len()]
            .into_iter()
            .try_fold(1usize, usize::checked_mul)
            .unwrap_or(usize::MAX);
        let variants = variants(path, g, &presets, &techniques, others)?;

        // Every configuration the points run, checked before anything runs: a combination
        // may break a rule no single override does (sub-cores dividing the units, say).
        let mut configs = Vec::new();
        for p in &presets {
            for v in &variants {
                for t in &techniques {
                    let mut overrides = v.clone();
                    overrides.push(crate::rf::technique_override(t));
                    let cfg = GpuConfig::load(&p.source, &overrides).map_err(|e| {
                        err(
                            "grid",
                            &format!(
                                "preset `{}` with {}technique `{t}`: {e}",
                                p.name,
                                if v.is_empty() {
                                    String::new()
                                } else {
                                    format!("{}, ", v.join(" "))
                                }
                            ),
                        )
                    })?;
                    configs.push(cfg);
                }
            }
        }

        let (regs, regs_name) = regs(file.run.regs.as_ref()).map_err(|e| err("run.regs", &e))?;
        let sampling = crate::TimingSamplingArgs {
            kernel_minsts: file.run.kernel_minsts.unwrap_or(0),
            launch_waves: file.run.launch_waves.unwrap_or(0),
        };
        let timing_threads = match file.run.timing_threads {
            Some(0) => return Err(err("run.timing_threads", &"must be at least 1")),
            t => t.unwrap_or(1),
        };
        let time_limit = match file.run.time_limit {
            None => None,
            Some(s) if s.is_finite() && s > 0.0 && s <= 1e9 => {
                Some(std::time::Duration::from_secs_f64(s))
            }
            Some(s) => {
                return Err(err(
                    "run.time_limit",
                    &format!("{s}: must be a number of seconds above 0"),
                ));
            }
        };
        let slurm = slurm(path, dir, file.slurm)?;

        let mut spec = Spec {
            name,
            output,
            path: path.to_path_buf(),
            regs,
            regs_name,
            sampling,
            timing_threads,
            time_limit,
            slurm,
            samples,
            sizes,
            presets,
            variants,
            techniques,
            configs,
            points: Vec::new(),
        };
        spec.points = spec.expand();
        Ok(spec)
    }

    /// The points in grid order: samples (in `warpsim list` order), then sizes, presets,
    /// override sets and techniques as the spec lists them.
    fn expand(&self) -> Vec<Point> {
        let mut points = Vec::new();
        for &sample in &self.samples {
            for &size in &self.sizes {
                for preset in 0..self.presets.len() {
                    for variant in 0..self.variants.len() {
                        for technique in 0..self.techniques.len() {
                            let id = self.identity(sample, size, preset, variant, technique);
                            points.push(Point {
                                index: points.len(),
                                id,
                                sample,
                                size,
                                preset,
                                variant,
                                technique,
                            });
                        }
                    }
                }
            }
        }
        points
    }

    /// A point's id: the FNV-1a hash of its parameters, one per line in a fixed order
    /// (docs/sweeps.md). Never change this text: results already computed are found by it.
    fn identity(
        &self,
        sample: &dyn Sample,
        size: Size,
        preset: usize,
        variant: usize,
        technique: usize,
    ) -> String {
        let mut text = format!(
            "warpsim sweep point 1\nsample={}\nsize={}\npreset={}\n",
            sample.name(),
            size.name(),
            self.presets[preset].identity
        );
        for o in &self.variants[variant] {
            text.push_str(&format!("set {o}\n"));
        }
        text.push_str(&format!(
            "technique={}\nregs={}\nkernel_minsts={}\nlaunch_waves={}\n",
            self.techniques[technique],
            self.regs_name,
            self.sampling.kernel_minsts,
            self.sampling.launch_waves
        ));
        format!("{:016x}", fnv1a(text.as_bytes()))
    }

    /// A point's parameters, by name.
    pub fn params<'a>(&'a self, p: &'a Point) -> Params<'a> {
        Params {
            id: &p.id,
            sample: p.sample.name(),
            size: p.size.name(),
            preset: &self.presets[p.preset].name,
            overrides: &self.variants[p.variant],
            technique: &self.techniques[p.technique],
        }
    }

    /// The GPU configuration of a point.
    pub fn config(&self, p: &Point) -> &GpuConfig {
        let (nv, nt) = (self.variants.len(), self.techniques.len());
        &self.configs[(p.preset * nv + p.variant) * nt + p.technique]
    }

    /// Where a point's result is.
    pub fn result_path(&self, p: &Point) -> PathBuf {
        self.points_dir().join(p.file_name(self))
    }

    /// The directory of the points' results.
    pub fn points_dir(&self) -> PathBuf {
        self.output.join("points")
    }

    /// The points of array batch `k` (`--batch K`): `points_per_task` consecutive points.
    pub fn batch(&self, k: usize) -> Result<std::ops::Range<usize>, String> {
        let per = self.slurm.points_per_task;
        let batches = self.points.len().div_ceil(per);
        if k >= batches {
            return Err(format!(
                "error: --batch {k}: the sweep has {batches} batch(es) of up to {per} point(s) (0 to {})",
                batches.saturating_sub(1)
            ));
        }
        Ok(k * per..((k + 1) * per).min(self.points.len()))
    }

    /// What numbers the points: their ids in order and the batch size. An array task checks
    /// it (`--grid-digest`) so that it never runs what a changed spec now numbers N.
    pub fn digest(&self) -> String {
        let mut text = format!("points_per_task={}\n", self.slurm.points_per_task);
        for p in &self.points {
            text.push_str(&p.id);
            text.push('\n');
        }
        format!("{:016x}", fnv1a(text.as_bytes()))
    }

    /// The dimensions, for listings: `3 samples × 1 size × ...`.
    pub fn shape(&self) -> String {
        let dims = [
            (self.samples.len(), "sample"),
            (self.sizes.len(), "size"),
            (self.presets.len(), "preset"),
            (self.variants.len(), "override set"),
            (self.techniques.len(), "technique"),
        ];
        dims.iter()
            .map(|(n, what)| format!("{n} {what}{}", if *n == 1 { "" } else { "s" }))
            .collect::<Vec<_>>()
            .join(" × ")
    }
}

/// FNV-1a, 64 bits: a hash that is the same on every machine and in every version.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Bytes allowed in names that become file and job names.
fn slug_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')
}

fn nonempty<T>(list: &[T], what: &str) -> Result<(), String> {
    if list.is_empty() {
        Err(format!("empty: name at least one {what}"))
    } else {
        Ok(())
    }
}

/// Sample, suite and `all` names, each checked on its own so that an error names it; the
/// samples in registry order, each once.
fn samples(names: &[String]) -> Result<Vec<&'static dyn Sample>, String> {
    nonempty(names, "sample, suite or `all`")?;
    for n in names {
        registry::select(std::slice::from_ref(n))
            .map_err(|e| e.trim_start_matches("error: ").to_string())?;
    }
    registry::select(names)
}

fn sizes(names: &[String]) -> Result<Vec<Size>, String> {
    nonempty(names, "size")?;
    let mut out = Vec::new();
    for n in names {
        let size = Size::ALL
            .into_iter()
            .find(|s| s.name() == n)
            .ok_or_else(|| format!("unknown size `{n}` (small, default, large)"))?;
        if !out.contains(&size) {
            out.push(size);
        }
    }
    Ok(out)
}

fn techniques(names: &[String]) -> Result<Vec<String>, String> {
    nonempty(names, "technique")?;
    let known = crate::rf::technique_names();
    let mut out: Vec<String> = Vec::new();
    for n in names {
        if !known.contains(&n.as_str()) {
            return Err(format!(
                "unknown technique `{n}` (known: {})",
                known.join(", ")
            ));
        }
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    Ok(out)
}

/// Presets by name, or TOML files relative to the spec's directory, each loaded once.
fn presets(dir: &Path, names: &[String]) -> Result<Vec<Preset>, String> {
    nonempty(names, "preset or configuration file")?;
    let mut out: Vec<Preset> = Vec::new();
    for n in names {
        if out.iter().any(|p| &p.name == n) {
            continue;
        }
        let preset = if n.contains('/') || n.ends_with(".toml") {
            let path = dir.join(n);
            let text = std::fs::read(&path)
                .map_err(|e| format!("cannot read configuration file {}: {e}", path.display()))?;
            let stem = Path::new(n)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            Preset {
                name: n.clone(),
                source: path.to_string_lossy().into_owned(),
                identity: format!("file:{n}:{:016x}", fnv1a(&text)),
                slug: stem
                    .bytes()
                    .map(|b| if slug_byte(b) { b as char } else { '_' })
                    .collect(),
            }
        } else {
            Preset {
                name: n.clone(),
                source: n.clone(),
                identity: n.clone(),
                slug: n.clone(),
            }
        };
        GpuConfig::load(&preset.source, &[]).map_err(|e| e.to_string())?;
        out.push(preset);
    }
    // Files of one name in different folders (`a/gpu.toml`, `b/gpu.toml`) are told apart by
    // their whole path, so their charts and result files do not collide.
    let slug_of = |text: &str| -> String {
        text.trim_end_matches(".toml")
            .bytes()
            .map(|b| if slug_byte(b) { b as char } else { '_' })
            .collect()
    };
    for i in 0..out.len() {
        if out.iter().filter(|p| p.slug == out[i].slug).count() > 1 {
            out[i].slug = slug_of(&out[i].name);
        }
    }
    for i in 0..out.len() {
        if out[..i].iter().any(|p| p.slug == out[i].slug) {
            out[i].slug = format!("{}-{i}", out[i].slug);
        }
    }
    Ok(out)
}

/// A `key=value` override, trimmed; `None` if it has no `=` or no key.
fn split_override(text: &str) -> Option<(String, String)> {
    let (k, v) = text.split_once('=')?;
    let k = k.trim();
    (!k.is_empty()).then(|| (k.to_string(), v.trim().to_string()))
}

/// `grid.vary`'s dimensions, `key → values`, whether written `"sm.rf.banks" = [4, 8]` or as
/// nested tables (`sm.rf.banks = [4, 8]` under `[grid.vary]` is `sm = { rf = { ... } }`).
fn vary_dimensions(
    table: &toml::Table,
    prefix: &str,
    out: &mut Vec<(String, Vec<String>)>,
) -> Result<(), (String, String)> {
    for (k, v) in table {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            toml::Value::Table(t) => vary_dimensions(t, &key, out)?,
            toml::Value::Array(values) => {
                if values.is_empty() {
                    return Err((key, "empty: give at least one value".into()));
                }
                let mut texts = Vec::new();
                for v in values {
                    let text = match v {
                        toml::Value::String(s) => s.clone(),
                        toml::Value::Integer(i) => i.to_string(),
                        toml::Value::Float(f) => f.to_string(),
                        toml::Value::Boolean(b) => b.to_string(),
                        other => {
                            return Err((
                                key,
                                format!(
                                    "values are strings, numbers or booleans, not {}",
                                    other.type_str()
                                ),
                            ));
                        }
                    };
                    if texts.contains(&text) {
                        return Err((key, format!("`{text}` listed twice")));
                    }
                    texts.push(text);
                }
                out.push((key, texts));
            }
            other => {
                return Err((
                    key,
                    format!(
                        "expected an array of the values to sweep, got {}",
                        other.type_str()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The override sets: `grid.set` with every combination of `grid.vary`'s values, each
/// override checked against every preset.
fn variants(
    path: &Path,
    g: &GridFile,
    presets: &[Preset],
    techniques: &[String],
    others: usize,
) -> Result<Vec<Vec<String>>, String> {
    // The keys the techniques dimension sets: never also set by hand.
    let chosen: Vec<(String, &String)> = techniques
        .iter()
        .filter_map(|t| split_override(&crate::rf::technique_override(t)).map(|(k, _)| (k, t)))
        .collect();
    let check = |key: &str, k: &str, o: &str| -> Result<(), String> {
        if let Some((_, t)) = chosen.iter().find(|(c, _)| c == k) {
            return Err(key_error(
                path,
                key,
                format!(
                    "`{k}` is what grid.techniques chooses (technique `{t}`); list the value there"
                ),
            ));
        }
        for p in presets {
            GpuConfig::load(&p.source, &[o.to_string()]).map_err(|e| {
                let on = if presets.len() > 1 {
                    format!(" (preset `{}`)", p.name)
                } else {
                    String::new()
                };
                key_error(path, key, format!("`{o}`{on}: {e}"))
            })?;
        }
        Ok(())
    };
    let mut fixed = BTreeMap::new();
    for o in &g.set {
        let (k, v) = split_override(o).ok_or_else(|| {
            key_error(
                path,
                "grid.set",
                format!("`{o}` is not of the form key=value"),
            )
        })?;
        if fixed.contains_key(&k) {
            return Err(key_error(path, "grid.set", format!("`{k}` is set twice")));
        }
        check("grid.set", &k, o)?;
        fixed.insert(k, v);
    }
    let mut dims = Vec::new();
    vary_dimensions(&g.vary, "", &mut dims)
        .map_err(|(k, e)| key_error(path, &format!("grid.vary.{k}"), e))?;
    let points = dims
        .iter()
        .map(|(_, values)| values.len())
        .try_fold(others, usize::checked_mul);
    if points.is_none_or(|n| n > MAX_POINTS) {
        let shape: Vec<String> = [others]
            .into_iter()
            .chain(dims.iter().map(|(_, v)| v.len()))
            .map(|n| n.to_string())
            .collect();
        return Err(key_error(
            path,
            "grid",
            format!(
                "{} points ({}: samples × sizes × presets × techniques, then each grid.vary key); at most {MAX_POINTS}",
                points.map_or("more than 2^64".to_string(), |n| n.to_string()),
                shape.join(" × ")
            ),
        ));
    }
    for (k, values) in &dims {
        let key = format!("grid.vary.{k}");
        if fixed.contains_key(k) {
            return Err(key_error(
                path,
                &key,
                format!("`{k}` is in grid.set too; keep one"),
            ));
        }
        for v in values {
            check(&key, k, &format!("{k}={v}"))?;
        }
    }
    // Every combination, the first dimension varying slowest.
    let mut sets: Vec<BTreeMap<String, String>> = vec![fixed];
    for (k, values) in &dims {
        sets = sets
            .into_iter()
            .flat_map(|s| {
                values.iter().map(move |v| {
                    let mut s = s.clone();
                    s.insert(k.clone(), v.clone());
                    s
                })
            })
            .collect();
    }
    Ok(sets
        .into_iter()
        .map(|s| s.into_iter().map(|(k, v)| format!("{k}={v}")).collect())
        .collect())
}

/// `[run] regs`: `"warpsim"`, `"ptxas"` or a count (a number or its text).
fn regs(value: Option<&toml::Value>) -> Result<(RegsArg, String), String> {
    let text = match value {
        None => "warpsim".to_string(),
        Some(toml::Value::String(s)) => s.clone(),
        Some(toml::Value::Integer(i)) => i.to_string(),
        Some(other) => {
            return Err(format!(
                "expected \"warpsim\", \"ptxas\" or a count, got {}",
                other.type_str()
            ));
        }
    };
    let regs = RegsArg::parse(&text).map_err(|e| format!("`{text}`: {e}"))?;
    Ok((regs, text))
}

/// Whether `t` is a time limit sbatch takes: `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`, `D-H:M:S`,
/// or `UNLIMITED`.
fn slurm_time(t: &str) -> bool {
    if t.eq_ignore_ascii_case("unlimited") || t.eq_ignore_ascii_case("infinite") {
        return true;
    }
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let clock = match t.split_once('-') {
        Some((days, clock)) if number(days) => clock,
        Some(_) => return false,
        None => t,
    };
    let parts: Vec<&str> = clock.split(':').collect();
    parts.len() <= 3 && parts.iter().all(|p| number(p))
}

/// Whether `m` is a memory size sbatch takes: a number of MB, or with a K, M, G or T suffix.
fn slurm_mem(m: &str) -> bool {
    let digits = m
        .strip_suffix(['K', 'M', 'G', 'T', 'k', 'm', 'g', 't'])
        .unwrap_or(m);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn slurm(path: &Path, dir: &Path, s: SlurmFile) -> Result<Slurm, String> {
    let err = |key: &str, problem: String| key_error(path, key, problem);
    let word = |key: &str, v: Option<String>| -> Result<Option<String>, String> {
        match v {
            Some(v) if v.is_empty() || v.chars().any(char::is_whitespace) => {
                Err(err(key, format!("`{v}`: expected a name without spaces")))
            }
            v => Ok(v),
        }
    };
    let partition = word("slurm.partition", s.partition)?;
    let account = word("slurm.account", s.account)?;
    if let Some(t) = s.time.as_deref().filter(|t| !slurm_time(t)) {
        return Err(err(
            "slurm.time",
            format!("`{t}`: expected sbatch's forms: minutes, H:M:S, D-H:M:S (e.g. \"2:00:00\")"),
        ));
    }
    if let Some(m) = s.mem.as_deref().filter(|m| !slurm_mem(m)) {
        return Err(err(
            "slurm.mem",
            format!("`{m}`: expected megabytes or a size with K, M, G or T (e.g. \"4G\")"),
        ));
    }
    let positive = |key: &str, v: Option<u64>| -> Result<(), String> {
        match v {
            Some(0) => Err(err(key, "must be at least 1".into())),
            _ => Ok(()),
        }
    };
    positive("slurm.cpus_per_task", s.cpus_per_task.map(u64::from))?;
    positive("slurm.points_per_task", s.points_per_task.map(|n| n as u64))?;
    positive("slurm.max_running", s.max_running.map(u64::from))?;
    for e in &s.extra {
        if !e.starts_with('-') || e.contains('\n') {
            return Err(err(
                "slurm.extra",
                format!("`{e}`: expected one sbatch option per entry, such as \"--qos=normal\""),
            ));
        }
    }
    if let Some(line) = s.setup.iter().find(|l| l.contains('\n')) {
        return Err(err(
            "slurm.setup",
            format!("`{line}`: one shell line per entry"),
        ));
    }
    Ok(Slurm {
        partition,
        account,
        time: s.time,
        mem: s.mem,
        cpus_per_task: s.cpus_per_task.unwrap_or(1),
        points_per_task: s.points_per_task.unwrap_or(1),
        max_running: s.max_running,
        extra: s.extra,
        setup: s.setup,
        warpsim: s.warpsim.map(|w| dir.join(w)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Spec, String> {
        Spec::parse(Path::new("sweeps/t.toml"), text, None)
    }

    fn error(text: &str) -> String {
        match parse(text) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e,
        }
    }

    #[test]
    fn defaults_and_the_grid_order() {
        let spec = parse(
            r#"
            [grid]
            samples = ["rodinia/nn", "saxpy"]
            techniques = ["baseline", "bow-wr"]
            [grid.vary]
            "sm.rf.banks" = [4, 8]
            "#,
        )
        .unwrap();
        assert_eq!(spec.name, "t");
        assert_eq!(spec.output, Path::new("sweeps/t"));
        assert_eq!(spec.regs_name, "warpsim");
        assert_eq!(spec.slurm.points_per_task, 1);
        assert_eq!(spec.slurm.cpus_per_task, 1);
        assert_eq!(
            spec.shape(),
            "2 samples × 1 size × 1 preset × 2 override sets × 2 techniques"
        );
        // Registry order (saxpy first), then sizes, presets, override sets, techniques.
        let order: Vec<String> = spec
            .points
            .iter()
            .map(|p| {
                format!(
                    "{} {} {} {}",
                    p.sample.name(),
                    spec.presets[p.preset].name,
                    spec.variants[p.variant].join(","),
                    spec.techniques[p.technique]
                )
            })
            .collect();
        assert_eq!(
            order,
            [
                "saxpy gtx480 sm.rf.banks=4 baseline",
                "saxpy gtx480 sm.rf.banks=4 bow-wr",
                "saxpy gtx480 sm.rf.banks=8 baseline",
                "saxpy gtx480 sm.rf.banks=8 bow-wr",
                "rodinia/nn gtx480 sm.rf.banks=4 baseline",
                "rodinia/nn gtx480 sm.rf.banks=4 bow-wr",
                "rodinia/nn gtx480 sm.rf.banks=8 baseline",
                "rodinia/nn gtx480 sm.rf.banks=8 bow-wr",
            ]
        );
        assert!(spec.points.iter().enumerate().all(|(i, p)| p.index == i));
        let p = &spec.points[3];
        assert_eq!(spec.config(p).sm.rf.banks, 8);
        assert_eq!(
            p.file_name(&spec),
            format!("saxpy--small--gtx480--bow-wr--{}.json", p.id)
        );
    }

    /// A point's id depends on its own parameters only: the same in a bigger grid, with the
    /// overrides written in another order or form; different when any parameter differs.
    #[test]
    fn identities_are_stable_and_local() {
        let id = |text: &str| -> Vec<String> {
            parse(text)
                .unwrap()
                .points
                .iter()
                .map(|p| p.id.clone())
                .collect()
        };
        let one = id(r#"
            [grid]
            samples = ["saxpy"]
            set = ["sm.scheduler=lrr", "sm.rf.banks = 8"]
            "#);
        // The id is frozen: results computed by earlier versions are found by it.
        assert_eq!(one, ["d7095823eff89e9c"]);
        let bigger = id(r#"
            [grid]
            samples = ["rodinia/nn", "saxpy"]
            sizes = ["default", "small"]
            techniques = ["corf", "baseline"]
            set = ["sm.rf.banks=8"]
            [grid.vary]
            sm.scheduler = ["gto", "lrr"]
            "#);
        assert_eq!(bigger.len(), 16);
        assert_eq!(bigger.iter().filter(|i| **i == one[0]).count(), 1);
        let mut unique = bigger.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 16, "every point its own id");
        for other in [
            r#"grid = { samples = ["saxpy"], set = ["sm.scheduler=lrr"] }"#,
            r#"grid = { samples = ["saxpy"], set = ["sm.scheduler=lrr", "sm.rf.banks=8"], sizes = ["default"] }"#,
            r#"grid = { samples = ["saxpy"], set = ["sm.scheduler=lrr", "sm.rf.banks=8"], presets = ["titanx"] }"#,
            "grid = { samples = [\"saxpy\"], set = [\"sm.scheduler=lrr\", \"sm.rf.banks=8\"] }\nrun = { regs = \"ptxas\" }",
            "grid = { samples = [\"saxpy\"], set = [\"sm.scheduler=lrr\", \"sm.rf.banks=8\"] }\nrun = { launch_waves = 2 }",
        ] {
            assert_ne!(id(other), one, "{other}");
        }
        // The SLURM table and the name do not enter a point's identity.
        assert_eq!(
            id(
                "name = \"x\"\ngrid = { samples = [\"saxpy\"], set = [\"sm.rf.banks=8\", \"sm.scheduler=lrr\"] }\nslurm = { time = \"5\" }"
            ),
            one
        );
    }

    #[test]
    fn errors_name_the_key_and_the_problem() {
        let cases = [
            (
                "[grid]\nsamples = []",
                "grid.samples: empty: name at least one sample",
            ),
            (
                "[grid]\nsamples = [\"nope\"]",
                "grid.samples: unknown sample `nope`",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\nsizes = [\"huge\"]",
                "grid.sizes: unknown size `huge` (small, default, large)",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\npresets = [\"gtx9000\"]",
                "grid.presets: unknown GPU configuration `gtx9000`",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\npresets = [\"gpus/none.toml\"]",
                "grid.presets: cannot read configuration file sweeps/gpus/none.toml",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\ntechniques = [\"magic\"]",
                "grid.techniques: unknown technique `magic` (known: baseline,",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\nset = [\"sm.rf.bankz=8\"]",
                "grid.set: `sm.rf.bankz=8`: unknown configuration key `sm.rf.bankz`",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\nset = [\"sm.rf.banks\"]",
                "grid.set: `sm.rf.banks` is not of the form key=value",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\nset = [\"sm.rf.technique=corf\"]",
                "grid.set: `sm.rf.technique` is what grid.techniques chooses (technique `baseline`)",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\nset = [\"sm.rf.banks=8\"]\nvary = { \"sm.rf.banks\" = [4] }",
                "grid.vary.sm.rf.banks: `sm.rf.banks` is in grid.set too",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\n[grid.vary]\nsm.scheduler = [\"gto\", \"fifo\"]",
                "grid.vary.sm.scheduler: `sm.scheduler=fifo`: configuration key `sm.scheduler`",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\n[grid.vary]\nsm.rf.banks = 8",
                "grid.vary.sm.rf.banks: expected an array of the values to sweep, got integer",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\n[grid.vary]\nsm.rf.banks = []",
                "grid.vary.sm.rf.banks: empty",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\n[run]\nregs = \"nvcc\"",
                "run.regs: `nvcc`: expected `warpsim`, `ptxas` or a count",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\n[run]\ntiming_threads = 0",
                "run.timing_threads: must be at least 1",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\n[slurm]\ntime = \"2 hours\"",
                "slurm.time: `2 hours`: expected sbatch's forms",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\n[slurm]\nmem = \"4GB\"",
                "slurm.mem: `4GB`: expected megabytes",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\n[slurm]\npoints_per_task = 0",
                "slurm.points_per_task: must be at least 1",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\n[slurm]\nextra = [\"qos=high\"]",
                "slurm.extra: `qos=high`: expected one sbatch option per entry",
            ),
            (
                "[grid]\nsamples = [\"saxpy\"]\n[slurm]\npartition = \"a b\"",
                "slurm.partition: `a b`: expected a name without spaces",
            ),
            (
                "name = \"my sweep\"\n[grid]\nsamples = [\"saxpy\"]",
                "name: `my sweep`: use letters",
            ),
        ];
        for (text, expected) in cases {
            let e = error(text);
            assert!(
                e.starts_with(&format!("error: sweeps/t.toml: {expected}")),
                "{text}\ngave: {e}\nexpected: {expected}"
            );
        }
        // Keys the spec does not know, and values of the wrong type: the TOML reader's error,
        // with the line and the key.
        let e = error("[grid]\nsamples = [\"saxpy\"]\nsample = [\"nn\"]");
        assert!(
            e.contains("line 3") && e.contains("unknown field `sample`"),
            "{e}"
        );
        let e = error("[grid]\nsamples = \"saxpy\"");
        assert!(e.contains("line 2") && e.contains("samples"), "{e}");
        let e = error("[grid]\nsamples = [\"saxpy\"]\n[slurm]\ncpus = 4");
        assert!(e.contains("unknown field `cpus`"), "{e}");
        let e = error("[slurm]\ntime = \"1:00:00\"");
        assert!(e.contains("missing field `grid`"), "{e}");
    }

    /// The specs in the repository: the example of docs/sweeps.md and CI's.
    #[test]
    fn the_committed_specs_are_valid() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let example = Spec::load(&root.join("sweeps/example.toml"), None).unwrap();
        assert_eq!(example.points.len(), 48);
        assert_eq!(example.slurm.points_per_task, 4);
        let ci = Spec::load(&root.join(".ci/sweep.toml"), None).unwrap();
        assert_eq!(ci.points.len(), 6);
        assert_eq!(ci.slurm.points_per_task, 2);
    }

    /// Two configuration files of one name in different folders get different slugs, so
    /// their charts and result files do not collide (issue 49: both wrote `small--gpu.svg`).
    #[test]
    fn presets_of_one_file_name_get_different_slugs() {
        let dir = std::env::temp_dir().join(format!("warpsim-slugs-{}", std::process::id()));
        for sub in ["a", "b"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
            std::fs::write(
                dir.join(sub).join("gpu.toml"),
                timing::GpuConfig::preset("gtx480").to_toml(),
            )
            .unwrap();
        }
        let names = ["a/gpu.toml".to_string(), "b/gpu.toml".to_string()];
        let slugs: Vec<String> = presets(&dir, &names)
            .unwrap()
            .into_iter()
            .map(|p| p.slug)
            .collect();
        let _ = std::fs::remove_dir_all(&dir);
        assert_ne!(slugs[0], slugs[1], "{slugs:?}");
    }

    #[test]
    fn sbatch_times_and_sizes() {
        for t in [
            "30",
            "30:00",
            "2:00:00",
            "1-0",
            "1-12:30",
            "1-12:30:00",
            "UNLIMITED",
        ] {
            assert!(slurm_time(t), "{t}");
        }
        for t in ["", "1h", "1:2:3:4", "-5", "1-", "a-1", "1:", "2 hours"] {
            assert!(!slurm_time(t), "{t}");
        }
        for m in ["500", "4G", "512M", "1T", "100k"] {
            assert!(slurm_mem(m), "{m}");
        }
        for m in ["", "G", "4GB", "4.5G", "-1"] {
            assert!(!slurm_mem(m), "{m}");
        }
    }
}
