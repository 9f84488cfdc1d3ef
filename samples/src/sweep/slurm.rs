//! `warpsim sweep SPEC --slurm`: the points without results as a SLURM job array. The sbatch
//! script asks for what the spec's `[slurm]` table says; each array task runs `warpsim sweep
//! SPEC --point N` (or `--batch K`), the local run's own code on its share of the points, so a
//! point's result is the same file either way.

use super::local::has_result;
use super::spec::Spec;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Writes the sbatch script into `OUTPUT/slurm/` and, unless `dry_run`, submits it with
/// `sbatch`.
pub(crate) fn submit(spec: &Spec, dry_run: bool) -> Result<ExitCode, String> {
    let per = spec.slurm.points_per_task;
    // The batches (array indices) that hold a point without a result: a sweep resumed on a
    // cluster submits only what is left.
    let mut tasks: Vec<usize> = Vec::new();
    for p in spec.points.iter().filter(|p| !has_result(spec, p)) {
        let k = p.index / per;
        if tasks.last() != Some(&k) {
            tasks.push(k);
        }
    }
    if tasks.is_empty() {
        eprintln!(
            "warpsim sweep {}: nothing to submit: all {} point(s) have results in {}",
            spec.name,
            spec.points.len(),
            spec.points_dir().display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let slurm_dir = spec.output.join("slurm");
    let logs = slurm_dir.join("logs");
    // sbatch does not make the directory of its --output files.
    std::fs::create_dir_all(&logs)
        .map_err(|e| format!("error: cannot create {}: {e}", logs.display()))?;
    let absolute =
        |p: &Path| std::fs::canonicalize(p).map_err(|e| format!("error: {}: {e}", p.display()));
    let warpsim = match &spec.slurm.warpsim {
        Some(w) => w.clone(),
        None => std::env::current_exe()
            .map_err(|e| format!("error: cannot find this warpsim's path: {e}"))?,
    };
    let paths = Paths {
        warpsim,
        spec: absolute(&spec.path)?,
        output: absolute(&spec.output)?,
    };
    let text = script(spec, &tasks, &paths)?;
    let file = slurm_dir.join(format!("{}.sbatch", spec.name));
    crate::output::write_text(&file, &text).map_err(|e| format!("error: {e}"))?;
    let todo = spec.points.iter().filter(|p| !has_result(spec, p)).count();
    if dry_run {
        print!("{text}");
        eprintln!(
            "warpsim sweep {}: wrote {} ({} array task(s) for {todo} point(s) without results); not submitted (--dry-run)",
            spec.name,
            file.display(),
            tasks.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let out = Command::new("sbatch")
        .arg("--parsable")
        .arg(&file)
        .output()
        .map_err(|e| {
            format!(
                "error: cannot run sbatch: {e} (is SLURM installed here? --dry-run writes the script without submitting it)"
            )
        })?;
    if !out.status.success() {
        return Err(format!(
            "error: sbatch {} failed ({}): {}",
            file.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    // `--parsable`: the job id, then `;cluster` on a multi-cluster installation.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let job = stdout.trim().split(';').next().unwrap_or("").to_string();
    println!(
        "warpsim sweep {}: submitted job array {job}: {} task(s) for {todo} point(s); logs in {}",
        spec.name,
        tasks.len(),
        logs.display()
    );
    println!(
        "when it has run: warpsim sweep collect {} --output {}",
        quote(&spec.path.to_string_lossy()),
        quote(&spec.output.to_string_lossy())
    );
    Ok(ExitCode::SUCCESS)
}

/// Absolute paths the tasks use: they may start in any directory, on any node sharing the
/// file system.
struct Paths {
    warpsim: PathBuf,
    spec: PathBuf,
    output: PathBuf,
}

/// The sbatch script of an array over batch indices `tasks`.
fn script(spec: &Spec, tasks: &[usize], paths: &Paths) -> Result<String, String> {
    let s = &spec.slurm;
    let text = |p: &Path| {
        p.to_str()
            .map(str::to_string)
            .ok_or_else(|| format!("error: {} is not UTF-8", p.display()))
    };
    let (warpsim, spec_path, output) = (
        text(&paths.warpsim)?,
        text(&paths.spec)?,
        text(&paths.output)?,
    );
    // An `#SBATCH` line is split at white space: a log path cannot hold any.
    if output.contains(char::is_whitespace) {
        return Err(format!(
            "error: the output directory {output} has white space in its path, which an #SBATCH --output line cannot hold: choose another with --output"
        ));
    }
    let mut lines = vec![
        "#!/bin/bash".to_string(),
        format!(
            "# warpsim sweep {}: {} of {} point(s), {} per array task; written by `warpsim sweep --slurm`.",
            spec.name,
            spec.points.iter().filter(|p| !has_result(spec, p)).count(),
            spec.points.len(),
            s.points_per_task
        ),
        format!("#SBATCH --job-name=warpsim-sweep-{}", spec.name),
        format!(
            "#SBATCH --array={}{}",
            ranges(tasks),
            s.max_running.map_or_else(String::new, |n| format!("%{n}"))
        ),
        format!("#SBATCH --output={output}/slurm/logs/%A_%a.out"),
        format!("#SBATCH --cpus-per-task={}", s.cpus_per_task),
    ];
    for (option, value) in [
        ("partition", &s.partition),
        ("account", &s.account),
        ("time", &s.time),
        ("mem", &s.mem),
    ] {
        if let Some(v) = value {
            lines.push(format!("#SBATCH --{option}={v}"));
        }
    }
    lines.extend(s.extra.iter().map(|e| format!("#SBATCH {e}")));
    lines.push("set -euo pipefail".into());
    lines.extend(s.setup.iter().cloned());
    let selection = if s.points_per_task == 1 {
        "--point"
    } else {
        "--batch"
    };
    lines.push(format!(
        "exec {} sweep {} --output {} {selection} \"$SLURM_ARRAY_TASK_ID\" --threads \"${{SLURM_CPUS_PER_TASK:-1}}\" --grid-digest {} --quiet",
        quote(&warpsim),
        quote(&spec_path),
        quote(&output),
        spec.digest()
    ));
    let mut script = lines.join("\n");
    script.push('\n');
    Ok(script)
}

/// `0-3,7,9-12`: sorted indices as sbatch's `--array` ranges.
fn ranges(indices: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let start = indices[i];
        let mut end = start;
        while i + 1 < indices.len() && indices[i + 1] == end + 1 {
            i += 1;
            end += 1;
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

/// `text` as one shell word: as it is when that is safe, else in single quotes.
fn quote(text: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_ranges() {
        assert_eq!(ranges(&[0, 1, 2, 3, 7, 9, 10, 11, 12]), "0-3,7,9-12");
        assert_eq!(ranges(&[5]), "5");
        assert_eq!(ranges(&[0, 2, 4]), "0,2,4");
    }

    #[test]
    fn shell_words() {
        assert_eq!(
            quote("/work/target/release/warpsim"),
            "/work/target/release/warpsim"
        );
        assert_eq!(quote("/my sweeps/it's.toml"), r"'/my sweeps/it'\''s.toml'");
        assert_eq!(quote(""), "''");
    }
}
