//! Output files written whole or not at all: a run that fails while writing (a full disk, an
//! error half way) must not leave a partial file behind that looks like a result.

use std::path::{Path, PathBuf};

/// Creates `path` all at once: `write` fills a temporary file beside it (same directory, so
/// the rename cannot cross file systems), which replaces `path` only once complete. On any
/// error the temporary file is removed and `path` is untouched.
pub(crate) fn write_whole(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let temp = temporary_beside(path);
    let result = write(&temp).and_then(|()| {
        std::fs::rename(&temp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// Writes `text` to `path` whole ([`write_whole`]).
pub(crate) fn write_text(path: &Path, text: &str) -> Result<(), String> {
    write_whole(path, |temp| {
        std::fs::write(temp, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    })
}

/// `.NAME.warpsim-PID.tmp` in `path`'s directory.
fn temporary_beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.warpsim-{}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(test: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("warpsim-output-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_failed_write_leaves_no_file_and_keeps_the_old_one() {
        let d = dir("failed");
        let path = d.join("out.json");
        write_text(&path, "old").unwrap();
        let err = write_whole(&path, |temp| {
            std::fs::write(temp, "half").unwrap();
            Err("disk full".into())
        })
        .unwrap_err();
        assert_eq!(err, "disk full");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        // Only the file written whole is there: no temporary left behind.
        let names: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out.json"]);
        let missing = d.join("new.json");
        assert!(write_whole(&missing, |_| Err("no".into())).is_err());
        assert!(!missing.exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_directory_that_does_not_exist_is_an_error_naming_the_file() {
        let path = Path::new("/nonexistent-warpsim-dir/out.json");
        let err = write_text(path, "x").unwrap_err();
        assert!(
            err.starts_with("cannot write /nonexistent-warpsim-dir/out.json: "),
            "{err}"
        );
    }
}
