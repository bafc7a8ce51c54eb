//! read_bytes: whole files through the boundary, the cap, the identity, and what is refused.

mod common;

use std::ffi::OsStr;
use std::os::unix::fs::MetadataExt;

use common::{mkfifo, symlink, tree, write, ws};
use ripsight_core::budget::CancelToken;
use ripsight_core::error::CoreError;
use ripsight_core::raw::read_bytes;

fn bytes_of(
    root: &std::path::Path,
    path: &str,
    max: u64,
) -> Result<ripsight_core::raw::FileBytes, CoreError> {
    read_bytes(&ws(root), OsStr::new(path), max, &CancelToken::new())
}

#[test]
fn reads_the_whole_file_with_its_identity_and_type() {
    let dir = tree(&[]);
    let pdf = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< >>\nendobj\n".to_vec();
    write(dir.path(), "docs/a.pdf", &pdf);
    let out = bytes_of(dir.path(), "docs/a.pdf", 1 << 20).expect("read");
    let meta = std::fs::metadata(dir.path().join("docs/a.pdf")).expect("stat");
    assert_eq!(out.data.0, pdf);
    assert_eq!(out.size_bytes, pdf.len() as u64);
    assert_eq!((out.dev, out.inode), (meta.dev(), meta.ino()));
    assert_eq!(out.path, "docs/a.pdf");
    assert_eq!(out.media_type.as_deref(), Some("application/pdf"));
    assert!(!out.too_large);
}

#[test]
fn a_file_over_the_cap_is_a_fact_and_is_not_read() {
    let dir = tree(&[("big.bin", "0123456789")]);
    let out = bytes_of(dir.path(), "big.bin", 9).expect("answer");
    assert!(out.too_large);
    assert!(out.data.0.is_empty());
    assert_eq!((out.size_bytes, out.max_bytes), (10, 9));
    let exact = bytes_of(dir.path(), "big.bin", 10).expect("answer");
    assert!(!exact.too_large);
    assert_eq!(exact.data.0, b"0123456789");
}

#[test]
fn the_boundary_and_the_deny_rules_apply() {
    let dir = tree(&[(".env", "SECRET=1"), ("ok.txt", "fine")]);
    mkfifo(dir.path(), "pipe");
    symlink(dir.path(), "out", "/etc/hostname");
    symlink(dir.path(), "alias.txt", ".env");
    assert!(matches!(
        bytes_of(dir.path(), ".env", 100),
        Err(CoreError::Denied { .. })
    ));
    assert!(matches!(
        bytes_of(dir.path(), "alias.txt", 100),
        Err(CoreError::Denied { .. })
    ));
    assert!(matches!(
        bytes_of(dir.path(), "pipe", 100),
        Err(CoreError::SpecialFile { .. })
    ));
    assert!(matches!(
        bytes_of(dir.path(), "out", 100),
        Err(CoreError::OutsideRoot { .. })
    ));
    assert!(matches!(
        bytes_of(dir.path(), "../etc/passwd", 100),
        Err(CoreError::OutsideRoot { .. })
    ));
    assert!(matches!(
        bytes_of(dir.path(), ".", 100),
        Err(CoreError::IsADirectory { .. })
    ));
    match bytes_of(dir.path(), "ok.tx", 100) {
        Err(CoreError::NotFound { suggestions, .. }) => assert_eq!(suggestions, ["ok.txt"]),
        other => panic!("not found expected, got {other:?}"),
    }
}

#[test]
fn a_cancelled_read_stops() {
    let dir = tree(&[("a.txt", "text")]);
    let cancel = CancelToken::new();
    cancel.cancel();
    let out = read_bytes(&ws(dir.path()), OsStr::new("a.txt"), 100, &cancel);
    assert!(matches!(out, Err(CoreError::Cancelled)));
}
