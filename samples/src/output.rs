//! Output files written whole or not at all: a run that fails while writing (a full disk, an
//! error half way) must not leave a partial file behind that looks like a result.
//!
//! Every file the command line writes (`--out`, `--stats-json`, `--trace`, `--plots`, `--json`,
//! `--svg`, sweep results, ...) goes through [`write_whole`], which decides by what the path
//! names, after following symbolic links:
//!
//! - nothing yet, or a regular file: written whole (a temporary file in the target's own
//!   directory, renamed over it once complete; an existing file keeps its permissions);
//! - a FIFO or a character device (`/dev/null`, `/dev/stdout`, a shell's `>(...)`): written in
//!   place, as a stream, since replacing it would destroy it (`--out 0:/dev/null` as root once
//!   turned /dev/null into a regular file) and a stream has no "whole" to wait for;
//! - a directory, a block device or a socket: an error naming the path and what it is, with
//!   nothing written.
//!
//! A symbolic link is never replaced: the file it leads to is written (created if the link
//! dangles), so a link into a results folder stays a link.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Where [`write_whole`] writes, decided from what the output path names.
enum Target {
    /// A regular file, or nothing yet: the resolved path (every symbolic link followed), and
    /// the permissions of the file already there, which the new one keeps.
    Regular(PathBuf, Option<std::fs::Permissions>),
    /// A FIFO or a character device, written in place through the path as given.
    Stream,
}

/// How many symbolic links a dangling chain may have before it counts as a loop (Linux's own
/// limit for path resolution).
const MAX_LINKS: usize = 40;

/// Writes `path` all at once: `write` fills a temporary file in the directory of the file
/// `path` resolves to (so the rename cannot cross file systems), which replaces that file only
/// once complete. On any error the temporary file is removed and the target is untouched.
///
/// Symbolic links are followed, never replaced. A FIFO or character device is handed to
/// `write` as it is (written in place, with no whole-or-nothing guarantee: a stream cannot
/// take one); a directory, block device or socket is an error naming the path and its kind.
/// See the module documentation.
pub(crate) fn write_whole(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let (resolved, permissions) = match target(path)? {
        Target::Stream => return write(path),
        Target::Regular(resolved, permissions) => (resolved, permissions),
    };
    let temp = create_temporary(path, &resolved)?;
    let result = write(&temp)
        .and_then(|()| match &permissions {
            Some(p) => std::fs::set_permissions(&temp, p.clone())
                .map_err(|e| format!("cannot write {}: {e}", path.display())),
            None => Ok(()),
        })
        .and_then(|()| {
            std::fs::rename(&temp, &resolved)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))
        });
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// Checks, before a long run, that [`write_whole`] will be able to write `path`: what it names
/// may be written, and a file can be made beside its target (made and removed at once).
pub(crate) fn check_writable(path: &Path) -> Result<(), String> {
    match target(path)? {
        Target::Stream => Ok(()),
        Target::Regular(resolved, _) => {
            let temp = create_temporary(path, &resolved)?;
            let _ = std::fs::remove_file(&temp);
            Ok(())
        }
    }
}

/// Writes `text` to `path` whole ([`write_whole`]).
pub(crate) fn write_text(path: &Path, text: &str) -> Result<(), String> {
    write_whole(path, |temp| {
        std::fs::write(temp, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    })
}

/// What `path` names, after following its symbolic links.
fn target(path: &Path) -> Result<Target, String> {
    let refuse = |what: &str| {
        Err(format!(
            "cannot write {}: it is {what}; warpsim writes regular files \
             (and streams into FIFOs and character devices)",
            path.display()
        ))
    };
    match std::fs::metadata(path) {
        Ok(meta) => {
            let kind = meta.file_type();
            if kind.is_file() {
                let resolved = std::fs::canonicalize(path)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                return Ok(Target::Regular(resolved, Some(meta.permissions())));
            }
            if kind.is_dir() {
                return refuse("a directory");
            }
            #[cfg(unix)]
            {
                use std::os::unix::fs::FileTypeExt;
                if kind.is_fifo() || kind.is_char_device() {
                    return Ok(Target::Stream);
                }
                if kind.is_block_device() {
                    return refuse("a block device");
                }
                if kind.is_socket() {
                    return refuse("a socket");
                }
            }
            refuse("neither a regular file nor a directory")
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // Nothing there, or a link that leads nowhere: the file it names is created (as a
            // shell's `>` would), not the link replaced.
            dangling_target(path).map(|resolved| Target::Regular(resolved, None))
        }
        Err(e) => Err(format!("cannot write {}: {e}", path.display())),
    }
}

/// The path a chain of symbolic links starting at `path` ends in, where the end does not
/// exist yet; `path` itself when it is no link.
fn dangling_target(path: &Path) -> Result<PathBuf, String> {
    let mut at = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&at)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                // A relative link is relative to the directory holding it.
                at = match at.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(format!(
        "cannot write {}: more than {MAX_LINKS} symbolic links in a chain",
        path.display()
    ))
}

/// Creates an empty temporary file `.NAME.warpsim-PID-N.tmp` beside `resolved`, exclusively
/// (a file or link already there under that name is never opened or followed); errors name
/// `path`, the output as the user gave it.
fn create_temporary(path: &Path, resolved: &Path) -> Result<PathBuf, String> {
    // N tells apart the outputs of one process written at once (a sweep's threads).
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = resolved
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let temp =
            resolved.with_file_name(format!(".{name}.warpsim-{}-{n}.tmp", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
        {
            Ok(_) => return Ok(temp),
            // Left behind by a killed run of the same process id: take the next name.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("cannot write {}: {e}", path.display())),
        }
    }
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

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_followed_and_stays_a_symlink() {
        let d = dir("symlink");
        let real = d.join("real.json");
        std::fs::write(&real, "old").unwrap();
        let link = d.join("link.json");
        std::os::unix::fs::symlink("real.json", &link).unwrap();
        write_text(&link, "new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("real.json"));
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        // A link that leads nowhere yet: the file it names is created, through a second link.
        let far = d.join("far");
        std::fs::create_dir(&far).unwrap();
        std::os::unix::fs::symlink(far.join("made.json"), d.join("hop")).unwrap();
        std::os::unix::fs::symlink("hop", d.join("dangling.json")).unwrap();
        write_text(&d.join("dangling.json"), "made").unwrap();
        assert_eq!(
            std::fs::read_to_string(far.join("made.json")).unwrap(),
            "made"
        );
        for l in ["hop", "dangling.json"] {
            assert!(
                std::fs::symlink_metadata(d.join(l))
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
        }
        // Written whole in the target's directory: nothing left behind in either directory.
        let names = |d: &Path| -> Vec<_> {
            let mut n: Vec<_> = std::fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            n.sort();
            n
        };
        assert_eq!(
            names(&d),
            ["dangling.json", "far", "hop", "link.json", "real.json"]
        );
        assert_eq!(names(&far), ["made.json"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_link_loop_is_an_error_naming_the_output() {
        let d = dir("loop");
        std::os::unix::fs::symlink("b", d.join("a")).unwrap();
        std::os::unix::fs::symlink("a", d.join("b")).unwrap();
        let path = d.join("a");
        let err = write_text(&path, "x").unwrap_err();
        assert!(
            err.starts_with(&format!("cannot write {}: ", path.display())),
            "{err}"
        );
        assert!(
            std::fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_written_in_place_and_stays_a_fifo() {
        use std::io::Read;
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let d = dir("fifo");
        let fifo = d.join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // A reader opened without blocking, so the writer's open finds one and the test cannot
        // hang whatever the writer does; the text fits the pipe's buffer.
        let mut reader = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
            .unwrap();
        write_text(&fifo, "streamed").unwrap();
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
        let mut got = String::new();
        reader.read_to_string(&mut got).unwrap();
        assert_eq!(got, "streamed");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn dev_null_is_written_in_place_and_stays_a_device() {
        use std::os::unix::fs::FileTypeExt;
        write_text(Path::new("/dev/null"), "discarded").unwrap();
        let kind = std::fs::symlink_metadata("/dev/null").unwrap().file_type();
        assert!(kind.is_char_device());
    }

    #[test]
    fn a_directory_is_an_error_naming_it() {
        let d = dir("directory");
        let err = write_text(&d, "x").unwrap_err();
        assert_eq!(
            err,
            format!(
                "cannot write {}: it is a directory; warpsim writes regular files \
                 (and streams into FIFOs and character devices)",
                d.display()
            )
        );
        assert!(d.is_dir());
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0, "nothing written");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("permissions");
        let path = d.join("out.json");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o604)).unwrap();
        write_text(&path, "new").unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o604);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
