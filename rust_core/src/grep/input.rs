//! How a file reaches the searcher: its head in one read, the rest through [`Input`], which
//! checks the size limit and the call's deadline at every buffer the searcher refills.

use std::fs::File;
use std::io::Read;

use rustix::fs::OFlags;

use crate::boundary;
use crate::budget::Deadline;
use crate::keyblock;
use crate::workspace::Workspace;

use super::MAX_FILE_BYTES;

/// Bytes of a file read before its size is looked at: smaller files (nearly all) cost no `fstat`.
const SIZE_CHECK_AFTER: u64 = 1 << 20;

/// Files up to this size are read with one call and searched as a slice (64 KiB: the window in
/// which the searcher's slice mode looks for NUL bytes).
pub(super) const WHOLE_FILE_BYTES: usize = 64 * 1024;

/// Reads a file for the streaming searcher. Stops the search, with an error the caller tells
/// apart by the flags, when the deadline passes (`stopped`), when the file proves larger than
/// [`MAX_FILE_BYTES`] (`too_large`) or when reading fails (`failed`). The size is asked for only
/// once [`SIZE_CHECK_AFTER`] bytes were read, so a file is skipped as `too_large` exactly when an
/// up-front size check would skip it. Any other error of a search is the searcher's own: its
/// heap limit.
pub(super) struct Input<'f> {
    file: &'f File,
    deadline: &'f Deadline,
    read: u64,
    size_checked: bool,
    pub(super) too_large: bool,
    pub(super) stopped: bool,
    pub(super) failed: bool,
    /// Look for a private-key marker in the bytes read (`saw_key` is then set).
    pub(super) watch_keys: bool,
    pub(super) saw_key: bool,
    /// The last bytes read, for a marker split between two reads.
    carry: Vec<u8>,
}

impl<'f> Input<'f> {
    /// `already_read`: bytes of the file consumed before (the head).
    pub(super) fn new(file: &'f File, deadline: &'f Deadline, already_read: u64) -> Input<'f> {
        Input {
            file,
            deadline,
            read: already_read,
            size_checked: false,
            too_large: false,
            stopped: false,
            failed: false,
            watch_keys: false,
            saw_key: false,
            carry: Vec::new(),
        }
    }

    /// Checks the size now unless already done: true when the file is too large.
    pub(super) fn proves_too_large(&mut self) -> bool {
        if !self.size_checked {
            self.size_checked = true;
            self.too_large = self.file.metadata().is_ok_and(|m| m.len() > MAX_FILE_BYTES);
        }
        self.too_large
    }

    /// Notes a private-key marker in `bytes`, or split between the last read and `bytes`.
    fn watch(&mut self, bytes: &[u8]) {
        let room = keyblock::KEY_MARKER.len() - 1;
        self.carry
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
        self.saw_key = keyblock::may_hold_key(&self.carry) || keyblock::may_hold_key(bytes);
        // The last `room` bytes read so far.
        if bytes.len() >= room {
            self.carry.clear();
            self.carry.extend_from_slice(&bytes[bytes.len() - room..]);
        } else {
            let drop = self.carry.len().saturating_sub(room);
            self.carry.drain(..drop);
        }
    }

    /// True when the search ended on one of this reader's errors.
    pub(super) fn ended_search(&self) -> bool {
        self.too_large || self.stopped || self.failed
    }
}

impl Read for Input<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.deadline.expired() {
            self.stopped = true;
            return Err(std::io::Error::other("time budget spent or call cancelled"));
        }
        if !self.size_checked && self.read >= SIZE_CHECK_AFTER && self.proves_too_large() {
            return Err(std::io::Error::other("file too large to search"));
        }
        if self.too_large {
            return Err(std::io::Error::other("file too large to search"));
        }
        match self.file.read(buf) {
            Ok(n) => {
                self.read += n as u64;
                if self.watch_keys && !self.saw_key {
                    self.watch(&buf[..n]);
                }
                Ok(n)
            }
            Err(error) => {
                if error.kind() != std::io::ErrorKind::Interrupted {
                    self.failed = true;
                }
                Err(error)
            }
        }
    }
}

/// Reads the start of `file` into `head` (whose length is [`WHOLE_FILE_BYTES`] + 1) and returns
/// how many bytes it holds, and whether that is the whole file. `size` is the file's size when
/// it was opened (its `fstat`): once that many bytes are read, the read that would see the end
/// is saved, so a file of at most [`WHOLE_FILE_BYTES`] bytes costs one read. Bytes appended
/// after the `fstat` are then not searched, as if the search had ended just before they were.
pub(super) fn read_head(
    file: &mut File,
    head: &mut [u8],
    size: u64,
) -> std::io::Result<(usize, bool)> {
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) => return Ok((filled, true)),
            Ok(n) => {
                filled += n;
                if filled as u64 == size && filled < head.len() {
                    return Ok((filled, true));
                }
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok((filled, false))
}

/// Opens a file of the page again (by its real path relative to the root, as the walk found it)
/// to fetch its lines after the search: beneath the root's descriptor, following no link, never
/// blocking, and only if it is still a regular file. `None` when that fails: the page then
/// lacks that file's lines.
pub(super) fn open_again(workspace: &Workspace, relative: &[u8]) -> Option<(File, u64)> {
    let fd = boundary::open_beneath(workspace.root_dir().fd(), relative, OFlags::empty()).ok()?;
    boundary::regular_file(fd)
        .ok()
        .map(|(file, id)| (file, id.size))
}

#[cfg(test)]
mod tests {
    use std::io::{Seek, SeekFrom, Write};

    use super::*;

    /// A file holding `bytes`, read from its start.
    fn file_of(bytes: &[u8]) -> File {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        file.seek(SeekFrom::Start(0)).unwrap();
        file
    }

    #[test]
    fn a_head_ends_at_the_size_the_file_had_or_at_its_end() {
        let mut head = vec![0u8; WHOLE_FILE_BYTES + 1];
        let bytes = b"one\ntwo\n";
        // The size it was opened with: whole after one read.
        assert_eq!(
            read_head(&mut file_of(bytes), &mut head, 8).unwrap(),
            (8, true)
        );
        // It grew since (a size too small): read to its end, not cut at the old size.
        assert_eq!(
            read_head(&mut file_of(bytes), &mut head, 3).unwrap(),
            (8, true)
        );
        // It shrank since (a size too large): its end is seen.
        assert_eq!(
            read_head(&mut file_of(bytes), &mut head, 100).unwrap(),
            (8, true)
        );
        assert_eq!(&head[..8], bytes);
        // Larger than a head: not whole, whatever the size says.
        let large = vec![b'a'; WHOLE_FILE_BYTES + 10];
        let size = large.len() as u64;
        assert_eq!(
            read_head(&mut file_of(&large), &mut head, size).unwrap(),
            (WHOLE_FILE_BYTES + 1, false)
        );
    }
}
