//! `warpsim sweep collect SPEC`: the points' results merged into one table — a row per point
//! in grid order with its parameters, status, figures and each figure's ratio to the baseline
//! point of the same sample, size, preset and overrides — as CSV and JSON, and the
//! register-file comparison of each (size, preset, overrides) as `warpsim rf`'s chart. The
//! output depends only on the spec and the result files, so two sweeps of the same points
//! (here and on a cluster) collect to the same bytes.

use super::spec::{Params, Point, Spec};
use crate::rf::{geomean, ratio};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;
use std::process::ExitCode;

/// What the table reads of a point's result file.
#[derive(Deserialize)]
struct PointRead {
    id: String,
    status: String,
    message: String,
    figures: Option<serde_json::Map<String, Value>>,
}

/// One row: a point and its result.
struct Row<'a> {
    point: &'a Point,
    /// `pass`, `fail`, `error`, or `missing` (no result yet).
    status: String,
    message: String,
    /// Per figure ([`super::figures`] order); `None` when the run did not complete.
    figures: Option<Vec<Option<f64>>>,
    /// Per figure, the ratio to the baseline point's; `None` without a baseline point with
    /// figures.
    relative: Option<Vec<Option<f64>>>,
}

#[derive(Serialize)]
struct TableJson<'a> {
    sweep: &'a str,
    points: usize,
    /// Points with a result (the others are rows of status `missing`).
    with_results: usize,
    /// The keys of each row's `figures` and `relative`, in column order (docs/sweeps.md).
    figures: Vec<&'static str>,
    rows: Vec<RowJson<'a>>,
    /// Per (size, preset, overrides, technique) with a baseline: the geometric mean of each
    /// ratio over the samples.
    geomean: Vec<GeomeanJson<'a>>,
}

#[derive(Serialize)]
struct RowJson<'a> {
    point: usize,
    #[serde(flatten)]
    params: Params<'a>,
    status: &'a str,
    message: &'a str,
    figures: Option<serde_json::Map<String, Value>>,
    relative: Option<serde_json::Map<String, Value>>,
}

#[derive(Serialize)]
struct GeomeanJson<'a> {
    size: &'a str,
    preset: &'a str,
    overrides: &'a [String],
    technique: &'a str,
    /// Per figure: the geometric mean, or null when no sample had a finite positive ratio.
    relative: serde_json::Map<String, Value>,
    /// Per figure: how many samples entered the mean.
    samples: serde_json::Map<String, Value>,
}

/// `warpsim sweep collect`: writes `results.csv`, `results.json` and `plots/*.svg` into the
/// sweep's output directory. The exit status is 1 if a point has no result yet (the tables
/// are written all the same, with those rows `missing`).
pub(crate) fn collect(spec: &Spec) -> Result<ExitCode, String> {
    let mut rows: Vec<Row> = Vec::with_capacity(spec.points.len());
    for p in &spec.points {
        rows.push(read(spec, p)?);
    }
    let baseline = spec.techniques.iter().position(|t| t == "baseline");
    let nt = spec.techniques.len();
    // The baseline of a point: the same block of techniques (the innermost dimension).
    let baseline_of = |i: usize| baseline.map(|b| i - spec.points[i].technique + b);
    for i in 0..rows.len() {
        let Some(b) = baseline_of(i) else { continue };
        if let (Some(v), Some(base)) = (&rows[i].figures, &rows[b].figures) {
            let rel = v
                .iter()
                .zip(base)
                .map(|(v, b)| ratio((*v)?, (*b)?))
                .collect();
            rows[i].relative = Some(rel);
        }
    }
    let keys: Vec<&'static str> = super::figures().map(|f| f.key).collect();
    let map = |values: &[Option<f64>]| -> serde_json::Map<String, Value> {
        keys.iter()
            .zip(values)
            .map(|(k, v)| (k.to_string(), v.map_or(Value::Null, super::figure_json)))
            .collect()
    };

    // Groups of samples compared: one per (size, preset, overrides), each a block of
    // `samples` rows of `nt` techniques, `group_stride` rows apart.
    let per_sample = spec.sizes.len() * spec.presets.len() * spec.variants.len() * nt;
    let groups: Vec<usize> = (0..per_sample / nt).map(|g| g * nt).collect();
    let members =
        |first: usize, t: usize| (0..spec.samples.len()).map(move |s| s * per_sample + first + t);
    let mut geomeans = Vec::new();
    let mut charts = Vec::new();
    if baseline.is_some() {
        for &first in &groups {
            let p = &spec.points[first];
            let mut per_technique = Vec::new();
            for t in 0..nt {
                let means: Vec<(Option<f64>, usize)> = (0..keys.len())
                    .map(|k| {
                        geomean(
                            members(first, t)
                                .filter_map(|i| rows[i].relative.as_ref().and_then(|r| r[k])),
                        )
                    })
                    .collect();
                geomeans.push(GeomeanJson {
                    size: p.size.name(),
                    preset: &spec.presets[p.preset].name,
                    overrides: &spec.variants[p.variant],
                    technique: &spec.techniques[t],
                    relative: map(&means.iter().map(|m| m.0).collect::<Vec<_>>()),
                    samples: keys
                        .iter()
                        .zip(&means)
                        .map(|(k, m)| (k.to_string(), m.1.into()))
                        .collect(),
                });
                per_technique.push(means);
            }
            charts.push((first, per_technique));
        }
    }

    let with_results = rows.iter().filter(|r| r.status != "missing").count();
    let doc = TableJson {
        sweep: &spec.name,
        points: rows.len(),
        with_results,
        figures: keys.clone(),
        rows: rows
            .iter()
            .map(|r| {
                let p = r.point;
                RowJson {
                    point: p.index,
                    params: spec.params(p),
                    status: &r.status,
                    message: &r.message,
                    figures: r.figures.as_deref().map(map),
                    relative: r.relative.as_deref().map(map),
                }
            })
            .collect(),
        geomean: geomeans,
    };
    let mut json = serde_json::to_string_pretty(&doc).expect("the table serializes");
    json.push('\n');
    let out = &spec.output;
    std::fs::create_dir_all(out)
        .map_err(|e| format!("error: cannot create {}: {e}", out.display()))?;
    let (csv_path, json_path) = (out.join("results.csv"), out.join("results.json"));
    crate::output::write_text(&csv_path, &csv(spec, &rows, &keys))
        .map_err(|e| format!("error: {e}"))?;
    crate::output::write_text(&json_path, &json).map_err(|e| format!("error: {e}"))?;

    let mut drawn: Vec<PathBuf> = Vec::new();
    if !charts.is_empty() {
        let dir = out.join("plots");
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("error: cannot create {}: {e}", dir.display()))?;
        let b = baseline.expect("charts need a baseline");
        // The baseline first (grey), then the others in the spec's order.
        let order: Vec<usize> = std::iter::once(b)
            .chain((0..nt).filter(|&t| t != b))
            .collect();
        let techniques: Vec<String> = order.iter().map(|&t| spec.techniques[t].clone()).collect();
        let names: Vec<&str> = spec.samples.iter().map(|s| s.name()).collect();
        let k_cycles = keys.iter().position(|k| *k == "cycles").expect("a figure");
        let k_energy = keys
            .iter()
            .position(|k| *k == "rf_energy_uj")
            .expect("a figure");
        for (first, means) in &charts {
            let p = &spec.points[*first];
            let series = |k: usize| -> Vec<Vec<Option<f64>>> {
                order
                    .iter()
                    .map(|&t| {
                        members(*first, t)
                            .map(|i| rows[i].relative.as_ref().and_then(|r| r[k]))
                            .chain([means[t][k].0])
                            .collect()
                    })
                    .collect()
            };
            let overrides = &spec.variants[p.variant];
            let title = format!(
                "sweep {}: {} ({} size){}, relative to the baseline",
                spec.name,
                spec.presets[p.preset].name,
                p.size.name(),
                if overrides.is_empty() {
                    String::new()
                } else {
                    format!(", {}", overrides.join(" "))
                }
            );
            let path = dir.join(chart_name(spec, p));
            crate::plots::panels::write(
                &path,
                &title,
                &techniques,
                &names,
                &[
                    ("cycles / baseline", series(k_cycles)),
                    ("RF energy (dynamic + leakage) / baseline", series(k_energy)),
                ],
            )?;
            drawn.push(path);
        }
    }

    println!(
        "warpsim sweep collect {}: {} point(s), {with_results} with results: {}, {}",
        spec.name,
        rows.len(),
        csv_path.display(),
        json_path.display()
    );
    if baseline.is_none() {
        println!("no baseline technique in grid.techniques: no ratios and no charts");
    }
    for path in &drawn {
        println!("chart: {}", path.display());
    }
    let strays = stray_results(spec);
    if strays > 0 {
        println!(
            "{strays} result file(s) in {} are not points of this spec (left alone)",
            spec.points_dir().display()
        );
    }
    let failed = rows
        .iter()
        .filter(|r| r.status == "fail" || r.status == "error")
        .count();
    if failed > 0 {
        println!(
            "{failed} point(s) failed validation or did not complete (see `status` and `message`)"
        );
    }
    if with_results < rows.len() {
        eprintln!(
            "error: {} of {} point(s) have no result yet (status `missing`): run `warpsim sweep {}` or wait for its SLURM array",
            rows.len() - with_results,
            rows.len(),
            spec.path.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// A point's row, from its result file if there is one.
fn read<'a>(spec: &Spec, p: &'a Point) -> Result<Row<'a>, String> {
    let path = spec.result_path(p);
    let missing = Row {
        point: p,
        status: "missing".into(),
        message: String::new(),
        figures: None,
        relative: None,
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(missing),
        Err(e) => return Err(format!("error: cannot read {}: {e}", path.display())),
    };
    let r: PointRead = serde_json::from_str(&text)
        .map_err(|e| format!("error: {}: not a point's result: {e}", path.display()))?;
    if r.id != p.id {
        return Err(format!(
            "error: {}: holds point {}, not {} (delete it and run the point again)",
            path.display(),
            r.id,
            p.id
        ));
    }
    let figures = r.figures.map(|f| {
        super::figures()
            .map(|fig| f.get(fig.key).and_then(Value::as_f64))
            .collect()
    });
    Ok(Row {
        status: r.status,
        message: r.message,
        figures,
        ..missing
    })
}

/// The CSV table: a header, then a row per point; ratios in `<figure>_ratio` columns.
fn csv(spec: &Spec, rows: &[Row], keys: &[&str]) -> String {
    let mut header: Vec<String> = [
        "point",
        "id",
        "sample",
        "size",
        "preset",
        "overrides",
        "technique",
        "status",
        "message",
    ]
    .map(String::from)
    .into();
    header.extend(keys.iter().map(|k| k.to_string()));
    header.extend(keys.iter().map(|k| format!("{k}_ratio")));
    let mut out = header.join(",");
    out.push('\n');
    let numbers = |v: &Option<Vec<Option<f64>>>| -> Vec<String> {
        (0..keys.len())
            .map(|k| {
                v.as_ref()
                    .and_then(|v| v[k])
                    .map_or_else(String::new, |x| x.to_string())
            })
            .collect()
    };
    for r in rows {
        let q = spec.params(r.point);
        let mut cells = vec![
            r.point.index.to_string(),
            q.id.to_string(),
            q.sample.to_string(),
            q.size.to_string(),
            q.preset.to_string(),
            q.overrides.join(" "),
            q.technique.to_string(),
            r.status.clone(),
            r.message.clone(),
        ];
        cells.extend(numbers(&r.figures));
        cells.extend(numbers(&r.relative));
        let line: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// A CSV field, quoted (RFC 4180) when it holds a comma, a quote, a line break or edge spaces.
fn csv_cell(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) || text.trim() != text {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The chart of a point's (size, preset, overrides): `small--gtx480--sm.rf.banks=8.svg`.
fn chart_name(spec: &Spec, p: &Point) -> String {
    let mut name = format!("{}--{}", p.size.name(), spec.presets[p.preset].slug);
    let overrides = spec.variants[p.variant].join(",");
    if !overrides.is_empty() {
        let slug: String = overrides
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._-=,".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        // A long set is named by its number instead.
        if slug.len() <= 80 {
            name.push_str(&format!("--{slug}"));
        } else {
            name.push_str(&format!("--set{}", p.variant));
        }
    }
    name.push_str(".svg");
    name
}

/// Result files in `points/` that no point of the spec names (points a changed spec dropped).
fn stray_results(spec: &Spec) -> usize {
    let names: std::collections::HashSet<String> =
        spec.points.iter().map(|p| p.file_name(spec)).collect();
    std::fs::read_dir(spec.points_dir()).map_or(0, |entries| {
        entries
            .flatten()
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.ends_with(".json") && !name.starts_with('.') && !names.contains(&name)
            })
            .count()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_are_quoted_only_when_needed() {
        assert_eq!(csv_cell("saxpy"), "saxpy");
        assert_eq!(csv_cell("a, b"), "\"a, b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell(" lead"), "\" lead\"");
        assert_eq!(csv_cell(""), "");
    }
}
