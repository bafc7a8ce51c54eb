//! The one error type of the engine.
//!
//! Every message states facts: what was wrong, never what to do next (the Python layer, which
//! knows the tools and their arguments, adds that). The fields carry the same facts as data.
//! Expected outcomes (no match, binary file, offset past the end) are data in the result types,
//! never errors.

use std::fmt;
use std::io;

crate::choice! {
    /// What is wrong with a pattern.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum PatternIssue {
        /// A regex that does not compile.
        Regex = "regex",
        /// A regex that can match a line break, in a line-by-line search.
        LineBreak = "line_break",
        /// A regex (or literal text) whose compiled form exceeds the size limit.
        TooLarge = "too_large",
        /// A glob that does not compile.
        Glob = "glob",
        /// An empty glob pattern.
        EmptyPattern = "empty_pattern",
        /// An empty glob filter (grep's `glob`).
        EmptyGlob = "empty_glob",
        /// An absolute glob outside the searched directory.
        AbsoluteGlob = "absolute_glob",
        /// A glob with a `..` component.
        ParentGlob = "parent_glob",
        /// A deny rule that does not compile.
        DenyRule = "deny_rule",
        /// An ask rule (calls that need a person's approval) that does not compile.
        AskRule = "ask_rule",
    }
}

/// Why a tool call could not run.
#[derive(Debug)]
pub enum CoreError {
    /// The path does not exist. `suggestions` holds close names (relative to the root).
    NotFound {
        /// The path as the caller wrote it.
        path: String,
        /// Existing paths with similar names, best first.
        suggestions: Vec<String>,
    },
    /// The resolved path lies outside the workspace root (through `..`, an absolute path or a symlink).
    OutsideRoot {
        /// The path as the caller wrote it.
        path: String,
    },
    /// A deny rule (secrets policy) covers the path.
    Denied {
        /// The path relative to the root.
        path: String,
        /// The deny glob that matched.
        rule: String,
    },
    /// A file was expected but the path is a directory.
    IsADirectory {
        /// The path relative to the root.
        path: String,
    },
    /// A directory was expected but the path is a file.
    NotADirectory {
        /// The path relative to the root.
        path: String,
    },
    /// A FIFO, socket or device: never opened, because reading it could block forever.
    SpecialFile {
        /// The path relative to the root.
        path: String,
        /// "FIFO", "socket", "character device" or "block device".
        kind: &'static str,
    },
    /// A regex or glob that does not compile or cannot be used.
    InvalidPattern {
        /// The pattern as given.
        pattern: String,
        /// What is wrong with it.
        issue: PatternIssue,
        /// The compiler's explanation, or what is wrong, as a clause.
        message: String,
    },
    /// An argument outside its range or otherwise unusable.
    InvalidArgument {
        /// A full sentence.
        message: String,
    },
    /// The path, or a name in it, is longer than the operating system allows (`ENAMETOOLONG`).
    PathTooLong {
        /// The path as the caller wrote it.
        path: String,
    },
    /// Symlinks on the way form a loop, or more than 40 are chained (`ELOOP`).
    LinkLoop {
        /// The path as the caller wrote it.
        path: String,
    },
    /// The operating system refused access.
    PermissionDenied {
        /// The path relative to the root.
        path: String,
    },
    /// The call's cancellation token was cancelled before it finished.
    Cancelled,
    /// Any other I/O failure.
    Io {
        /// The path relative to the root, or empty.
        path: String,
        /// The underlying error.
        source: io::Error,
    },
}

impl CoreError {
    /// A short stable name for the kind of error ("not_found", "outside_root", ...).
    pub fn kind(&self) -> &'static str {
        match self {
            CoreError::NotFound { .. } => "not_found",
            CoreError::OutsideRoot { .. } => "outside_root",
            CoreError::Denied { .. } => "denied",
            CoreError::IsADirectory { .. } => "is_a_directory",
            CoreError::NotADirectory { .. } => "not_a_directory",
            CoreError::SpecialFile { .. } => "special_file",
            CoreError::InvalidPattern { .. } => "invalid_pattern",
            CoreError::InvalidArgument { .. } => "invalid_argument",
            CoreError::PermissionDenied { .. } => "permission_denied",
            CoreError::Cancelled => "cancelled",
            CoreError::PathTooLong { .. } => "path_too_long",
            CoreError::LinkLoop { .. } => "link_loop",
            CoreError::Io { .. } => "io",
        }
    }

    /// Maps an I/O error on `path` to the fitting variant.
    pub fn from_io(path: &str, error: io::Error) -> CoreError {
        match error.kind() {
            io::ErrorKind::NotFound => CoreError::NotFound {
                path: path.to_string(),
                suggestions: Vec::new(),
            },
            io::ErrorKind::PermissionDenied => CoreError::PermissionDenied {
                path: path.to_string(),
            },
            _ if error.raw_os_error() == Some(rustix::io::Errno::NAMETOOLONG.raw_os_error()) => {
                CoreError::PathTooLong {
                    path: path.to_string(),
                }
            }
            _ if error.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
                CoreError::LinkLoop {
                    path: path.to_string(),
                }
            }
            _ => CoreError::Io {
                path: path.to_string(),
                source: error,
            },
        }
    }
}

impl fmt::Display for CoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CoreError::NotFound { path, suggestions } => {
                write!(f, "{path} does not exist.")?;
                if !suggestions.is_empty() {
                    write!(f, " Similar paths: {}.", suggestions.join(", "))?;
                }
                Ok(())
            }
            CoreError::OutsideRoot { path } => write!(
                f,
                "{path} is outside the workspace root; only files inside it can be read."
            ),
            CoreError::Denied { path, rule } => write!(
                f,
                "{path} is denied by the workspace policy (rule '{rule}'): it may hold secrets, \
                 so it cannot be listed, searched or read."
            ),
            CoreError::IsADirectory { path } => write!(f, "{path} is a directory, not a file."),
            CoreError::NotADirectory { path } => write!(f, "{path} is a file, not a directory."),
            CoreError::SpecialFile { path, kind } => write!(
                f,
                "{path} is a {kind}, not a regular file; it is never opened because reading it \
                 could block forever."
            ),
            CoreError::InvalidPattern {
                pattern, message, ..
            } => {
                write!(f, "invalid pattern {:?}: {message}", shorten(pattern, 200))
            }
            CoreError::InvalidArgument { message } => f.write_str(message),
            CoreError::PathTooLong { path } => write!(
                f,
                "{path} is longer than the operating system allows for a path or a file name."
            ),
            CoreError::LinkLoop { path } => write!(
                f,
                "{path} cannot be opened: its symlinks form a loop or chain more than 40 links."
            ),
            CoreError::PermissionDenied { path } => write!(
                f,
                "{path} cannot be read: the operating system denied permission."
            ),
            CoreError::Cancelled => f.write_str("the call was cancelled."),
            CoreError::Io { path, source } => {
                if path.is_empty() {
                    write!(f, "I/O error: {source}")
                } else {
                    write!(f, "I/O error on {path}: {source}")
                }
            }
        }
    }
}

impl std::error::Error for CoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CoreError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Shortens `text` to at most `max` characters for a message, marking the cut (a pattern in a
/// message is cut to 200 characters so a huge one does not flood it).
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}
