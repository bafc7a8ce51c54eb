//! Files an agent reads as more than lines: images ([`image`]), Jupyter notebooks
//! ([`notebook`]) and PDFs ([`pdf`], parsed in a worker process).
//!
//! Both open through the workspace's capability boundary ([`Workspace::open_file`]: the root,
//! the deny rules and the special-file refusal apply as for `read_file`), read at most a stated
//! number of bytes, and report what they refuse as data ([`Refusal`] with a detail clause)
//! rather than as errors: a bomb or a truncated file is an expected input, and the Python layer
//! decides what the model is told.

use std::ffi::{OsStr, OsString};
use std::io::Read;

use crate::error::CoreError;
use crate::open::OpenedFile;
use crate::workspace::Workspace;

pub mod image;
mod intact;
pub mod notebook;
pub mod pdf;

/// Close names offered when the file does not exist (as `read_file` does).
const MAX_SUGGESTIONS: usize = crate::read::MAX_SUGGESTIONS;

crate::choice! {
    /// Why a media read shows nothing.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Refusal {
        /// The file is larger than the source cap; nothing was read.
        TooLarge = "too_large",
        /// The header declares more pixels than the decode limit; nothing was decoded.
        TooManyPixels = "too_many_pixels",
        /// Not a format this reader decodes (PNG, JPEG, GIF, WebP for images).
        Unsupported = "unsupported",
        /// The decoder or parser failed (a truncated or corrupt file; a decoder panic too).
        Undecodable = "undecodable",
        /// No encoding within the byte budget was found.
        CannotFit = "cannot_fit",
        /// The notebook cell asked for does not exist, or shows no image.
        NoSuchCell = "no_such_cell",
    }
}

/// A file opened for a media read, with a missing path answered as `read_file` answers it
/// (close names suggested).
pub(crate) fn open(workspace: &Workspace, path: &OsStr) -> Result<OpenedFile, CoreError> {
    match workspace.open_file(path) {
        Err(CoreError::NotFound { path: shown, .. }) => Err(CoreError::NotFound {
            suggestions: workspace.suggest(&path.to_string_lossy(), MAX_SUGGESTIONS),
            path: shown,
        }),
        other => other,
    }
}

/// The real path of an opened file as the results carry it.
pub(crate) fn real_path(opened: &OpenedFile) -> OsString {
    use std::os::unix::ffi::OsStringExt;
    OsString::from_vec(opened.real.clone())
}

/// Reads the whole of `opened` when it is at most `max_bytes` long (`None` when it is longer:
/// at most `max_bytes + 1` bytes are read to find out, so a file that grew since its `fstat`
/// cannot slip past the cap).
pub(crate) fn read_capped(
    opened: &mut OpenedFile,
    max_bytes: u64,
) -> Result<Option<Vec<u8>>, CoreError> {
    if opened.identity.size > max_bytes {
        return Ok(None);
    }
    let mut bytes = Vec::with_capacity(opened.identity.size as usize);
    (&mut opened.file)
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| CoreError::from_io(&opened.relative, e))?;
    if bytes.len() as u64 > max_bytes {
        return Ok(None);
    }
    Ok(Some(bytes))
}

/// The message of a caught panic.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}
