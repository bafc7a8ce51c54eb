//! Opening what a walk or a list of files meets, without following a link: a walked file
//! relative to the descriptor of the directory it was listed in ([`WalkedFile`]), a path
//! beneath the root ([`open_relative`]), listed files one after another ([`Opener`]); and how a
//! refusal is counted in the skip counts ([`count_refusal`]), the same for all of them.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rustix::fs::OFlags;

use crate::boundary::{self, FileIdentity, Kind, OpenFileError};
use crate::workspace::{SkipCounts, Workspace};

/// One file the walk let through.
pub(crate) struct WalkedFile<'a> {
    /// The path relative to the root, `/`-separated, as raw bytes.
    pub(crate) relative_bytes: &'a [u8],
    /// The same path for display and matching (lossy only when the name is not UTF-8).
    pub(crate) relative: &'a str,
    /// The file name.
    pub(crate) name: &'a str,
    /// The file name as raw bytes.
    pub(crate) name_bytes: &'a [u8],
    /// The descriptor of the directory it was listed in.
    pub(super) parent: BorrowedFd<'a>,
}

impl WalkedFile<'_> {
    /// Opens the file relative to its parent's descriptor: no link followed, no blocking, and
    /// refused unread unless `fstat` says it is a regular file (it may have been swapped since
    /// it was listed).
    pub(crate) fn open(&self) -> Result<(File, FileIdentity), OpenFileError> {
        boundary::open_child_file(self.parent, self.name_bytes)
    }

    /// [`WalkedFile::open`], counting a refusal in `skipped`: a symlink swapped in as `symlink`,
    /// a FIFO, socket or device as `special`, anything else (a directory swapped in, an I/O
    /// error) as `unreadable`.
    pub(crate) fn open_counted(&self, skipped: &mut SkipCounts) -> Option<(File, FileIdentity)> {
        count_refusal(self.open(), skipped)
    }

    /// `fstatat` of the entry (not following a link).
    pub(crate) fn identity(&self) -> io::Result<FileIdentity> {
        boundary::stat_child(self.parent, self.name_bytes)
    }
}

/// An opened file, or its refusal counted in `skipped` as [`WalkedFile::open_counted`] says.
fn count_refusal(
    opened: Result<(File, FileIdentity), OpenFileError>,
    skipped: &mut SkipCounts,
) -> Option<(File, FileIdentity)> {
    match opened {
        Ok(opened) => Some(opened),
        Err(OpenFileError::NotRegular(Kind::Symlink)) => {
            skipped.symlink += 1;
            None
        }
        Err(OpenFileError::NotRegular(Kind::Special(_))) => {
            skipped.special += 1;
            None
        }
        Err(_) => {
            skipped.unreadable += 1;
            None
        }
    }
}

/// Opens one file beneath the root by its path relative to the root, refusing every symlink,
/// and `fstat`s it.
pub(crate) fn open_relative(
    workspace: &Workspace,
    relative: &str,
) -> Result<(File, FileIdentity), OpenFileError> {
    let fd = boundary::open_beneath(
        workspace.root_dir().fd(),
        relative.as_bytes(),
        OFlags::empty(),
    )?;
    boundary::regular_file(fd)
}

/// Opens one directory beneath the root by its path relative to the root, refusing every
/// symlink.
pub(crate) fn open_dir_relative(workspace: &Workspace, relative: &str) -> Option<OwnedFd> {
    boundary::open_beneath(
        workspace.root_dir().fd(),
        relative.as_bytes(),
        OFlags::DIRECTORY,
    )
    .ok()
}

/// Opens listed files one after another (a candidate source's, in path order), keeping the
/// descriptor of the last directory: files in path order mostly share it, and opening a name
/// in an open directory (as the walk does) costs less than resolving the whole path from the
/// root each time.
#[derive(Default)]
pub(crate) struct Opener {
    dir: String,
    fd: Option<OwnedFd>,
}

impl Opener {
    /// Opens `relative` and counts a refusal in `skipped` exactly as a walk's search does.
    pub(crate) fn open_counted(
        &mut self,
        workspace: &Workspace,
        relative: &str,
        skipped: &mut SkipCounts,
    ) -> Option<(File, FileIdentity)> {
        let (dir, name) = match relative.rfind('/') {
            Some(i) => (&relative[..i], &relative[i + 1..]),
            None => ("", relative),
        };
        if self.fd.is_none() || self.dir != dir {
            self.dir = dir.to_string();
            self.fd = open_dir_relative(workspace, dir);
        }
        let opened = match &self.fd {
            Some(fd) => boundary::open_child_file(fd.as_fd(), name.as_bytes()),
            // The directory is gone or was swapped: the whole path says why.
            None => open_relative(workspace, relative),
        };
        count_refusal(opened, skipped)
    }
}
