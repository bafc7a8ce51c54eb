//! Helpers shared by the integration tests: building trees with links, FIFOs and sockets.
#![allow(dead_code)]

use std::path::Path;

use ripsight_core::grep::{GrepOptions, GrepOutput, grep};
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

/// `grep` for `pattern` with every match (no limit), after `tweak` sets other options.
pub fn search(ws: &Workspace, pattern: &str, tweak: impl FnOnce(&mut GrepOptions)) -> GrepOutput {
    let mut options = GrepOptions {
        pattern: pattern.into(),
        limit: None,
        ..GrepOptions::default()
    };
    tweak(&mut options);
    grep(ws, &options).expect("grep")
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
