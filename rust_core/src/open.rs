//! Opening requested paths: the workspace's side of the capability boundary, and the targets
//! the tools walk or search.
//!
//! A path a caller names (`read_file`, grep's or glob's `path`) is resolved by hand beneath the
//! root descriptor ([`crate::boundary::RootDir::resolve`]), checked against the deny rules under
//! both the requested name and the real path, and opened with every symlink refused
//! ([`crate::boundary::RootDir::open_real`]); a link swapped in between fails the open, and the
//! whole is tried again. `open_target` turns what was opened into a tool's `Target`: a
//! directory to walk or a file to search.

use std::ffi::OsStr;
use std::fs::File;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;

use crate::boundary::{self, FileIdentity, OPEN_ATTEMPTS, Opened, ResolveError, SpecialKind};
use crate::error::CoreError;
use crate::walker::StartDir;
use crate::workspace::Workspace;

/// A requested path, opened beneath the root.
#[derive(Debug)]
pub struct OpenedPath {
    /// The real path relative to the root (symlinks resolved), `/`-separated, as raw bytes;
    /// empty for the root itself.
    pub real: Vec<u8>,
    /// `real` for display (lossy only when it is not UTF-8).
    pub relative: String,
    /// What was opened.
    pub opened: Opened,
}

/// A regular file opened by [`Workspace::open_file`].
#[derive(Debug)]
pub struct OpenedFile {
    /// The open file (read it; never reopen by path).
    pub file: File,
    /// Device, inode, size, mtime and mode of the opened file.
    pub identity: FileIdentity,
    /// The real path relative to the root, raw bytes.
    pub real: Vec<u8>,
    /// `real` for display.
    pub relative: String,
}

impl Workspace {
    /// Resolves `requested` (relative to the root, or absolute below it) beneath the root and
    /// checks the deny rules on the requested name and on the real path, without opening it.
    /// Used where nothing is read (suggestions); everything that reads uses
    /// [`Workspace::open_path`].
    pub fn check_path(&self, requested: &OsStr) -> Result<Vec<u8>, CoreError> {
        let shown = shown_path(requested);
        let resolved = self.resolve_requested(requested, &shown)?;
        Ok(resolved.real)
    }

    fn resolve_requested(
        &self,
        requested: &OsStr,
        shown: &str,
    ) -> Result<boundary::Resolved, CoreError> {
        if requested.as_bytes().contains(&0) {
            return Err(CoreError::InvalidArgument {
                message: "the path contains a NUL character.".into(),
            });
        }
        let resolved = match self.root_dir().resolve(requested) {
            Ok(resolved) => resolved,
            Err(ResolveError::OutsideRoot) => {
                return Err(CoreError::OutsideRoot {
                    path: shown.to_string(),
                });
            }
            Err(ResolveError::Missing { probable, .. }) => {
                // A missing path inside a denied directory is denied, not missing.
                if let Some(rule) = self.denied_by(&probable) {
                    return Err(CoreError::Denied {
                        path: shown.to_string(),
                        rule: rule.to_string(),
                    });
                }
                return Err(CoreError::NotFound {
                    path: shown.to_string(),
                    suggestions: Vec::new(),
                });
            }
            Err(ResolveError::LinkLoop) => {
                return Err(CoreError::LinkLoop {
                    path: shown.to_string(),
                });
            }
            Err(ResolveError::TooLong) => {
                return Err(CoreError::PathTooLong {
                    path: shown.to_string(),
                });
            }
            Err(ResolveError::Io(error)) => return Err(CoreError::from_io(shown, error)),
        };
        // Both the name the caller used and the file it resolves to must pass the deny rules,
        // so a link named `notes.txt` pointing at `.env` is refused too. The refusal names the
        // requested path, never the link's target.
        for candidate in [resolved.lexical.as_deref(), Some(resolved.real.as_slice())]
            .into_iter()
            .flatten()
        {
            if let Some(rule) = self.denied_by(candidate) {
                return Err(CoreError::Denied {
                    path: shown.to_string(),
                    rule: rule.to_string(),
                });
            }
        }
        Ok(resolved)
    }

    /// Opens `requested` (relative to the root, or absolute below it) beneath the root: in-root
    /// symlinks are followed, links leaving the root refused (`OutsideRoot`), deny rules apply to
    /// the requested name and to the file actually opened (`Denied`), FIFOs, sockets and devices
    /// are refused unread (`SpecialFile`). The real path is resolved by hand and then opened with
    /// every symlink refused, so a link swapped in between makes the open fail; the whole is
    /// retried [`OPEN_ATTEMPTS`] times. Leading and trailing whitespace is dropped only when the
    /// path as given does not exist.
    pub fn open_path(&self, requested: &OsStr) -> Result<OpenedPath, CoreError> {
        match self.open_exact(requested) {
            Err(CoreError::NotFound { .. }) if trimmed(requested) != requested.as_bytes() => {
                self.open_exact(OsStr::from_bytes(trimmed(requested)))
            }
            other => other,
        }
    }

    fn open_exact(&self, requested: &OsStr) -> Result<OpenedPath, CoreError> {
        let shown = shown_path(requested);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let resolved = self.resolve_requested(requested, &shown)?;
            match self.root_dir().open_real(&resolved.real) {
                // `a.txt/` names a directory: a file there is "not a directory", as open(2)
                // says, not the file.
                Ok(Opened::File(..)) if names_a_directory(requested) => {
                    return Err(CoreError::NotADirectory { path: shown });
                }
                Ok(opened) => {
                    return Ok(OpenedPath {
                        relative: String::from_utf8_lossy(&resolved.real).into_owned(),
                        real: resolved.real,
                        opened,
                    });
                }
                Err(error) => {
                    if let Some(special) = error
                        .get_ref()
                        .and_then(|e| e.downcast_ref::<SpecialKind>())
                    {
                        return Err(CoreError::SpecialFile {
                            path: shown,
                            kind: special.0,
                        });
                    }
                    if boundary::changed_under_us(&error) && attempt < OPEN_ATTEMPTS {
                        continue;
                    }
                    if error.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
                        || error.raw_os_error() == Some(rustix::io::Errno::XDEV.raw_os_error())
                    {
                        return Err(CoreError::Io {
                            path: shown,
                            source: std::io::Error::other(
                                "the path kept changing (a symlink swapped in) while it was opened",
                            ),
                        });
                    }
                    return Err(CoreError::from_io(&shown, error));
                }
            }
        }
    }

    /// [`Workspace::open_path`] for a regular file: a directory gives `IsADirectory`.
    pub fn open_file(&self, requested: &OsStr) -> Result<OpenedFile, CoreError> {
        let opened = self.open_path(requested)?;
        match opened.opened {
            Opened::File(file, identity) => Ok(OpenedFile {
                file,
                identity,
                real: opened.real,
                relative: opened.relative,
            }),
            Opened::Dir(_) => Err(CoreError::IsADirectory {
                path: display_relative(&opened.relative),
            }),
        }
    }

    /// [`Workspace::open_path`] for a directory: a file gives `NotADirectory`. Returns the
    /// descriptor and the real path relative to the root (raw bytes).
    pub fn open_dir(&self, requested: &OsStr) -> Result<(OwnedFd, Vec<u8>), CoreError> {
        let opened = self.open_path(requested)?;
        match opened.opened {
            Opened::Dir(fd) => Ok((fd, opened.real)),
            Opened::File(..) => Err(CoreError::NotADirectory {
                path: display_relative(&opened.relative),
            }),
        }
    }
}

/// A path a caller asked to walk or search, opened beneath the root.
pub(crate) enum Target {
    /// A directory, ready to walk.
    Dir(StartDir),
    /// A regular file.
    File(OpenedFile),
}

/// Opens `requested` with [`Workspace::open_path`] (boundary, deny rules, special files) for a
/// walk or a search. Returns it with its real path relative to the root, for display.
pub(crate) fn open_target(
    workspace: &Workspace,
    requested: &OsStr,
) -> Result<(Target, String), CoreError> {
    let opened = workspace.open_path(requested)?;
    let relative = opened.relative;
    let target = match opened.opened {
        Opened::Dir(fd) => Target::Dir(StartDir {
            fd,
            relative: opened.real,
        }),
        Opened::File(file, identity) => Target::File(OpenedFile {
            file,
            identity,
            real: opened.real,
            relative: relative.clone(),
        }),
    };
    Ok((target, relative))
}

/// A relative path for messages: `.` for the root.
pub(crate) fn display_relative(relative: &str) -> String {
    if relative.is_empty() {
        ".".to_string()
    } else {
        relative.to_string()
    }
}

/// Whether `requested` can only name a directory: it ends with `/` or `/.`.
fn names_a_directory(requested: &OsStr) -> bool {
    let bytes = requested.as_bytes();
    bytes.ends_with(b"/") || bytes.ends_with(b"/.")
}

/// `requested` without leading and trailing ASCII whitespace.
fn trimmed(requested: &OsStr) -> &[u8] {
    requested.as_bytes().trim_ascii()
}

/// The requested path as the caller wrote it, for messages (`.` for an empty path).
fn shown_path(requested: &OsStr) -> String {
    let bytes = trimmed(requested);
    if bytes.is_empty() {
        ".".to_string()
    } else {
        String::from_utf8_lossy(requested.as_bytes()).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::WorkspaceOptions;
    use std::path::Path;

    fn workspace(dir: &Path) -> Workspace {
        Workspace::new(dir, WorkspaceOptions::default()).expect("workspace opens")
    }

    impl Workspace {
        fn check(&self, requested: &str) -> Result<String, CoreError> {
            self.check_path(OsStr::new(requested))
                .map(|real| String::from_utf8_lossy(&real).into_owned())
        }
    }

    #[test]
    fn sibling_sharing_prefix_is_outside() {
        let parent = tempfile::tempdir().expect("tempdir");
        let root = parent.path().join("repo");
        let sibling = parent.path().join("repo-old");
        std::fs::create_dir_all(&root).expect("mkdir");
        std::fs::create_dir_all(&sibling).expect("mkdir");
        std::fs::write(sibling.join("a.txt"), "x").expect("write");
        let ws = workspace(&root);
        let err = ws.check("../repo-old/a.txt").expect_err("outside");
        assert_eq!(err.kind(), "outside_root");
        let err = ws
            .check(&sibling.join("a.txt").display().to_string())
            .expect_err("outside");
        assert_eq!(err.kind(), "outside_root");
    }

    #[test]
    fn missing_paths_inside_and_outside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = workspace(dir.path());
        assert_eq!(
            ws.check("nope/x.rs").expect_err("missing").kind(),
            "not_found"
        );
        assert_eq!(
            ws.check("../../nope").expect_err("outside").kind(),
            "outside_root"
        );
        assert_eq!(
            ws.check("a/../../nope").expect_err("outside").kind(),
            "outside_root"
        );
    }

    #[test]
    fn deny_rules_cover_names_and_links() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(".env"), "SECRET=1").expect("write");
        std::fs::create_dir(dir.path().join("cfg")).expect("mkdir");
        std::fs::write(dir.path().join("cfg/server.pem"), "x").expect("write");
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join(".env"), dir.path().join("notes.txt"))
            .expect("link");
        let ws = workspace(dir.path());
        assert_eq!(ws.check(".env").expect_err("denied").kind(), "denied");
        assert_eq!(
            ws.check("cfg/server.pem").expect_err("denied").kind(),
            "denied"
        );
        #[cfg(unix)]
        assert_eq!(ws.check("notes.txt").expect_err("denied").kind(), "denied");
        assert_eq!(ws.denied_by("a/.env.local"), Some(".env.*"));
        assert_eq!(ws.denied_by("src/main.rs"), None);
    }

    #[test]
    fn absolute_path_inside_root_is_accepted() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("src")).expect("mkdir");
        std::fs::write(dir.path().join("src/lib.rs"), "x").expect("write");
        let ws = workspace(dir.path());
        let abs = dir.path().join("src/lib.rs").display().to_string();
        assert_eq!(ws.check(&abs).expect("inside"), "src/lib.rs");
        assert_eq!(ws.check("").expect("root"), "");
    }
}
