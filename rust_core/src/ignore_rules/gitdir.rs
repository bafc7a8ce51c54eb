//! The git directory behind a `.git` *file*: a linked worktree (`git worktree add`) or a
//! submodule keeps a file `.git` whose first line, `gitdir: PATH`, names its git directory; a
//! worktree's git directory holds a `commondir` file naming the main repository's git
//! directory, whose `info/exclude` applies to the worktree too (ripgrep's
//! `resolve_git_commondir`; git's `gitrepository-layout(5)`).
//!
//! Every file is read beneath the root's descriptor, so only a git directory inside the root is
//! followed: a worktree of a repository outside the root gets no `info/exclude` (reading it
//! would read outside the root). Relative paths are taken as git takes them (`gitdir` relative
//! to the directory holding `.git`, `commondir` relative to the git directory), where ripgrep
//! resolves some of them against its working directory.

use std::ffi::OsStr;
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::OFlags;

use crate::boundary::{self, RootDir};

/// Bytes read at most from a `.git` or `commondir` file (one line of a path).
const MAX_POINTER_BYTES: u64 = 8 << 10;

/// The `info/exclude` of the repository that the `.git` file in the directory `dir_fd`
/// (`dir` relative to the root) belongs to, when that is a linked worktree inside the root:
/// its path relative to the root and its bytes (at most `limit`).
pub(super) fn worktree_exclude(
    root: &RootDir,
    dir_fd: BorrowedFd<'_>,
    dir: &[u8],
    limit: u64,
) -> Option<(Vec<u8>, Vec<u8>)> {
    let dot_git = boundary::read_child(dir_fd, b".git", MAX_POINTER_BYTES)?;
    let gitdir = first_line(&dot_git)?.strip_prefix(b"gitdir: ")?;
    let gitdir = locate(root, dir, gitdir)?;
    let commondir = read_beneath(root, &join(&gitdir, b"commondir"), MAX_POINTER_BYTES)?;
    let common = locate(root, &gitdir, first_line(&commondir)?)?;
    let exclude = join(&common, b"info/exclude");
    let bytes = read_beneath(root, &exclude, limit)?;
    Some((exclude, bytes))
}

/// The first line of `bytes`, without its terminator; `None` when it is empty.
fn first_line(bytes: &[u8]) -> Option<&[u8]> {
    let line = bytes.split(|b| *b == b'\n').next()?;
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    (!line.is_empty()).then_some(line)
}

/// `target` (absolute, or relative to the directory `base`, itself relative to the root) as a
/// path relative to the root with `.` and `..` folded; `None` outside the root.
fn locate(root: &RootDir, base: &[u8], target: &[u8]) -> Option<Vec<u8>> {
    let path = Path::new(OsStr::from_bytes(target));
    if path.is_absolute() {
        return root.strip_root(path);
    }
    let mut parts: Vec<&[u8]> = base
        .split(|b| *b == b'/')
        .filter(|p| !p.is_empty())
        .collect();
    for part in target.split(|b| *b == b'/') {
        match part {
            b"" | b"." => {}
            b".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    Some(parts.join(&b'/'))
}

fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    if dir.is_empty() {
        return name.to_vec();
    }
    [dir, name].join(&b'/')
}

/// The bytes (at most `limit`) of the regular file `relative` beneath the root, no link
/// followed.
fn read_beneath(root: &RootDir, relative: &[u8], limit: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    let fd = boundary::open_beneath(root.fd(), relative, OFlags::empty()).ok()?;
    let (file, _) = boundary::regular_file(fd).ok()?;
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_lines_and_joins() {
        assert_eq!(first_line(b"gitdir: x\r\nmore"), Some(&b"gitdir: x"[..]));
        assert_eq!(first_line(b"\nx"), None);
        assert_eq!(join(b"", b"a"), b"a");
        assert_eq!(join(b"d/e", b"a"), b"d/e/a");
    }

    #[test]
    fn relative_targets_fold_and_stay_below_the_root() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = RootDir::open(dir.path()).expect("root");
        assert_eq!(
            locate(&root, b".git/worktrees/w", b"../..").as_deref(),
            Some(&b".git"[..])
        );
        assert_eq!(
            locate(&root, b"wt", b"./../.git/worktrees/wt").as_deref(),
            Some(&b".git/worktrees/wt"[..])
        );
        assert_eq!(locate(&root, b"wt", b"../../elsewhere"), None);
        let inside = dir.path().canonicalize().expect("canonical").join(".git/x");
        assert_eq!(
            locate(&root, b"wt", inside.as_os_str().as_bytes()).as_deref(),
            Some(&b".git/x"[..])
        );
        assert_eq!(locate(&root, b"wt", b"/etc/git"), None);
    }
}
