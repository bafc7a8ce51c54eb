//! Whole-file reads of raw bytes, bounded: what a parser outside the engine (the PDF reader's
//! child process) is fed, so that nothing but the engine ever opens a file.
//!
//! The file is opened through the capability boundary exactly as [`crate::read::read_file`]
//! opens it ([`Workspace::open_file`]: beneath the root, deny rules on the requested and the
//! real name, special files refused unread), its size taken from `fstat` of the opened
//! descriptor. A file over the cap is not read at all: the result says so (`too_large`) with the
//! size, a fact the caller turns into its answer. A file that grows past the cap while it is read
//! is reported the same way, so at most `max_bytes + 1` bytes are ever held.

use std::ffi::{OsStr, OsString};
use std::io::{self, Read};
use std::os::unix::ffi::OsStringExt;

use crate::budget::CancelToken;
use crate::error::CoreError;
use crate::open::display_relative;
use crate::read::open_to_read;
use crate::record::Bytes;
use crate::workspace::Workspace;

/// Bytes read per step between two looks at the cancellation token.
const STEP_BYTES: usize = 1 << 20;

crate::record! {
    "FileBytes",
    /// A whole file's bytes, read through the boundary, with the identity of what was opened.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct FileBytes {
        /// The file's real path relative to the root (raw bytes).
        pub path: OsString,
        /// File size in bytes (from `fstat` of the opened file; the bytes read when it changed
        /// while it was read).
        pub size_bytes: u64,
        /// Device number of the file that was read.
        pub dev: u64,
        /// Inode number of the file that was read.
        pub inode: u64,
        /// Modification time of the file that was read, in nanoseconds since the Unix epoch.
        pub mtime_ns: i64,
        /// The cap the read was made with, in bytes.
        pub max_bytes: u64,
        /// True when the file is larger than max_bytes: data is then empty.
        pub too_large: bool,
        /// The media type its first bytes show ("application/pdf", "image/png"...), or null.
        pub media_type: Option<String>,
        /// The file's bytes (empty when too_large).
        pub data: Bytes,
    }
}

/// Reads the whole of `path` when it holds at most `max_bytes` bytes.
///
/// Errors are those of [`Workspace::open_file`] (not found, with close names as for
/// `read_file`; outside the root, denied, a directory, a special file), an I/O failure, or
/// `Cancelled` (checked every 1 MiB).
pub fn read_bytes(
    workspace: &Workspace,
    path: &OsStr,
    max_bytes: u64,
    cancel: &CancelToken,
) -> Result<FileBytes, CoreError> {
    let opened = open_to_read(workspace, path)?;
    let shown = display_relative(&opened.relative);
    let mut out = FileBytes {
        path: OsString::from_vec(opened.real),
        size_bytes: opened.identity.size,
        dev: opened.identity.dev,
        inode: opened.identity.ino,
        mtime_ns: opened.identity.mtime_ns,
        max_bytes,
        ..FileBytes::default()
    };
    if out.size_bytes > max_bytes {
        out.too_large = true;
        return Ok(out);
    }
    // One byte past the cap tells a file that grew while it was read.
    let limit = max_bytes.saturating_add(1);
    let capacity = usize::try_from(out.size_bytes.min(limit)).unwrap_or(0);
    let mut data = Vec::with_capacity(capacity);
    let mut reader = opened.file.take(limit);
    let mut step = vec![0u8; STEP_BYTES];
    loop {
        if cancel.is_cancelled() {
            return Err(CoreError::Cancelled);
        }
        match reader.read(&mut step) {
            Ok(0) => break,
            Ok(n) => data.extend_from_slice(&step[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(CoreError::from_io(&shown, e)),
        }
    }
    out.size_bytes = data.len() as u64;
    if out.size_bytes > max_bytes {
        out.too_large = true;
        return Ok(out);
    }
    out.media_type = infer::get(&data).map(|kind| kind.mime_type().to_string());
    out.data = Bytes(data);
    Ok(out)
}
