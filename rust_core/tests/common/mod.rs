//! Helpers shared by the integration tests: building trees with links, FIFOs and sockets, and
//! calling the tools with every match or a chosen page.
#![allow(dead_code)]

pub mod rich;

use std::path::Path;

use ripsight_core::error::CoreError;
use ripsight_core::glob::{GlobOptions, GlobOutput, glob};
use ripsight_core::grep::{GrepOptions, GrepOutput, grep};
use ripsight_core::read::{ReadOptions, ReadOutput, read_file};
use ripsight_core::workspace::{Workspace, WorkspaceOptions};

/// Writes `content` to `root/relative`, creating directories.
pub fn write(root: &Path, relative: &str, content: impl AsRef<[u8]>) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, content).expect("write");
}

/// A temporary directory holding `files` (path, content).
pub fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, content) in files {
        write(dir.path(), path, content);
    }
    dir
}

/// A temporary directory holding the files `names`, each one line long.
pub fn files(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for name in names {
        write(dir.path(), name, "x\n");
    }
    dir
}

/// `root/name` becomes a symlink to `target` (taken as written: relative or absolute).
pub fn symlink(root: &Path, name: &str, target: impl AsRef<Path>) {
    let link = root.join(name);
    if let Some(parent) = link.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::os::unix::fs::symlink(target, link).expect("symlink");
}

/// `root/name` becomes a FIFO.
pub fn mkfifo(root: &Path, name: &str) {
    let status = std::process::Command::new("mkfifo")
        .arg(root.join(name))
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo");
}

/// A workspace on `root` with the default options.
pub fn ws(root: &Path) -> Workspace {
    Workspace::new(root, WorkspaceOptions::default()).expect("workspace")
}

/// A workspace on `root` with the default options after `tweak` changes some.
pub fn ws_with(root: &Path, tweak: impl FnOnce(&mut WorkspaceOptions)) -> Workspace {
    let mut options = WorkspaceOptions::default();
    tweak(&mut options);
    Workspace::new(root, options).expect("workspace")
}

/// `grep` for `pattern` with every match (no limit), after `tweak` sets other options.
pub fn search(ws: &Workspace, pattern: &str, tweak: impl FnOnce(&mut GrepOptions)) -> GrepOutput {
    try_search(ws, pattern, tweak).expect("grep")
}

/// [`search`] that hands back the error.
pub fn try_search(
    ws: &Workspace,
    pattern: &str,
    tweak: impl FnOnce(&mut GrepOptions),
) -> Result<GrepOutput, CoreError> {
    let mut options = GrepOptions {
        pattern: pattern.into(),
        limit: None,
        ..GrepOptions::default()
    };
    tweak(&mut options);
    grep(ws, &options)
}

/// grep's lines as `path:line:text` for matches and `path-line-text` for context lines.
pub fn rendered(out: &GrepOutput) -> Vec<String> {
    out.lines
        .iter()
        .map(|l| {
            let sep = if l.is_match { ':' } else { '-' };
            format!("{}{sep}{}{sep}{}", l.path.to_string_lossy(), l.line, l.text)
        })
        .collect()
}

/// `glob` for `pattern` with every path (no limit), after `tweak` sets other options.
pub fn glob_all(ws: &Workspace, pattern: &str, tweak: impl FnOnce(&mut GlobOptions)) -> GlobOutput {
    try_glob(ws, pattern, tweak).expect("glob")
}

/// [`glob_all`] that hands back the error.
pub fn try_glob(
    ws: &Workspace,
    pattern: &str,
    tweak: impl FnOnce(&mut GlobOptions),
) -> Result<GlobOutput, CoreError> {
    let mut options = GlobOptions {
        pattern: pattern.into(),
        limit: None,
        ..GlobOptions::default()
    };
    tweak(&mut options);
    glob(ws, &options)
}

/// The paths of a glob result as UTF-8 strings.
pub fn names(out: &GlobOutput) -> Vec<String> {
    out.paths
        .iter()
        .map(|p| p.to_str().expect("UTF-8 name").to_string())
        .collect()
}

/// Every path `pattern` lists from the root.
pub fn listed(ws: &Workspace, pattern: &str) -> Vec<String> {
    names(&glob_all(ws, pattern, |_| {}))
}

/// Lines `offset ..` (at most `limit`) of `path`.
pub fn read(ws: &Workspace, path: &str, offset: u64, limit: usize) -> ReadOutput {
    let options = ReadOptions {
        path: path.into(),
        offset,
        limit,
        ..ReadOptions::default()
    };
    read_file(ws, &options).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

/// `read_file` of `path` with the default range, handing back the error.
pub fn try_read(ws: &Workspace, path: &str) -> Result<ReadOutput, CoreError> {
    let options = ReadOptions {
        path: path.into(),
        ..ReadOptions::default()
    };
    read_file(ws, &options)
}

/// Runs `command` to its end with its output captured, killing it and failing the test after
/// `seconds`: no test waits for a child without a bound.
pub fn output_within(command: &mut std::process::Command, seconds: u64) -> std::process::Output {
    use std::process::Stdio;
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("child starts");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while child.try_wait().expect("child waits").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("child still running after {seconds} s: {command:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.wait_with_output().expect("child output")
}

/// Runs `f` on a thread of its own and returns its answer, failing the test after `seconds`: a
/// call that could block forever (an open of a FIFO, say) is waited for with a bound.
pub fn within<T: Send + 'static>(seconds: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    use std::sync::mpsc::RecvTimeoutError;
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(seconds)) {
        Ok(value) => value,
        Err(RecvTimeoutError::Timeout) => panic!("still running after {seconds} s"),
        Err(RecvTimeoutError::Disconnected) => {
            std::panic::resume_unwind(worker.join().expect_err("the worker panicked"))
        }
    }
}
