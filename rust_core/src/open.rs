//! Opening requested paths: the workspace's side of the capability boundary.
//!
//! A path a caller names (`read_file`, grep's or glob's `path`) is resolved by hand beneath the
//! root descriptor ([`crate::boundary::RootDir::resolve`]), checked against the deny rules under
//! both the requested name and the real path, and opened with every symlink refused
//! ([`crate::boundary::RootDir::open_real`]); a link swapped in between fails the open, and the
//! whole is tried again.

use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;

use crate::boundary::{self, OPEN_ATTEMPTS, Opened, ResolveError, SpecialKind};
use crate::error::CoreError;
use crate::workspace::{OpenedFile, OpenedPath, Workspace};

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

/// A relative path for messages: `.` for the root.
pub(crate) fn display_relative(relative: &str) -> String {
    if relative.is_empty() {
        ".".to_string()
    } else {
        relative.to_string()
    }
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
