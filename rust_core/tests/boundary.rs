//! The capability boundary: what an explicit path may open (every way out of the root refused by
//! every tool; links, tildes, encoded names, NUL bytes; FIFOs and sockets never opened), what a
//! walk may enter, and the ignore-rule precedence of the descriptor walker.

mod common;

use std::ffi::OsStr;
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, Instant};

use common::{
    glob_all, listed, mkfifo, names, output_within, rendered, search, symlink, tree, try_glob,
    try_read, try_search, within, write, ws, ws_with,
};
use ripsight_core::boundary::{
    PORTABLE_ENV, force_component_wise_opens, opens_component_wise, portable_mode,
};
use ripsight_core::error::{CoreError, PatternIssue};
use ripsight_core::workspace::Workspace;

/// Parent with `repo/` (the root) and `outside/secret.txt`, plus links of every kind.
fn linked_tree() -> (tempfile::TempDir, std::path::PathBuf) {
    let parent = tempfile::tempdir().expect("tempdir");
    let root = parent.path().join("repo");
    write(&root, "src/lib.rs", "pub fn lib() {}\n");
    write(&root, "src/deep/mod.rs", "mod deep;\n");
    write(&root, "top.txt", "top\n");
    write(&root, ".env", "SECRET=outside-marker\n");
    write(parent.path(), "outside/secret.txt", "outside-marker\n");
    symlink(&root, "src_link", "src");
    symlink(&root, "abs_link.rs", root.join("src/lib.rs"));
    symlink(
        &root,
        "out_file.txt",
        parent.path().join("outside/secret.txt"),
    );
    symlink(&root, "out_dir", "../outside");
    symlink(&root, "notes.txt", ".env");
    symlink(&root, "deep_up", "src/deep");
    symlink(&root, "loop_a", "loop_b");
    symlink(&root, "loop_b", "loop_a");
    (parent, root)
}

fn explicit_paths_follow_in_root_links_only(ws: &Workspace) {
    // In-root links (relative and absolute targets) are followed; the real path is reported.
    let out = try_read(ws, "src_link/lib.rs").expect("through a dir link");
    assert_eq!(out.path, "src/lib.rs");
    assert_eq!(
        try_read(ws, "abs_link.rs").expect("absolute target").path,
        "src/lib.rs"
    );
    // `..` after a link is physical, as the kernel resolves it: deep_up/.. is src.
    assert_eq!(
        try_read(ws, "deep_up/../lib.rs").expect("physical ..").path,
        "src/lib.rs"
    );
    // Links leaving the root, `..` above it, absolute paths outside: refused.
    for path in [
        "out_file.txt",
        "out_dir/secret.txt",
        "../outside/secret.txt",
        "/etc/hostname",
    ] {
        let error = try_read(ws, path).expect_err(path);
        assert_eq!(error.kind(), "outside_root", "{path}");
        assert!(!error.to_string().contains("outside-marker"));
    }
    // Deny rules apply to the file opened; the refusal names the requested path only.
    let error = try_read(ws, "notes.txt").expect_err("link to .env");
    assert_eq!(error.kind(), "denied");
    assert!(error.to_string().starts_with("notes.txt "), "{error}");
    // A loop is a typed error.
    assert_eq!(
        try_read(ws, "loop_a").expect_err("loop").kind(),
        "link_loop"
    );
    // Walks list no link, and count each.
    let all = listed(ws, "**/*");
    assert_eq!(all, ["src/deep/mod.rs", "src/lib.rs", "top.txt"]);
    // An explicit directory path through a link is walked under its real path, by glob and by
    // grep (with a filter); a file through a link is searched under its real path.
    assert_eq!(
        names(&glob_all(ws, "*.rs", |o| o.path = Some("src_link".into()))),
        ["src/lib.rs"]
    );
    let found = search(ws, "lib|deep", |o| {
        o.path = Some("src_link".into());
        o.glob = vec!["*.rs".into()];
    });
    assert_eq!(
        rendered(&found),
        [
            "src/deep/mod.rs:1:mod deep;",
            "src/lib.rs:1:pub fn lib() {}"
        ]
    );
    let found = search(ws, "lib", |o| o.path = Some("abs_link.rs".into()));
    assert_eq!(rendered(&found), ["src/lib.rs:1:pub fn lib() {}"]);
    let error = try_glob(ws, "*", |o| o.path = Some("out_dir".into())).expect_err("outside dir");
    assert_eq!(error.kind(), "outside_root");
}

#[test]
fn explicit_paths_with_openat2_and_with_the_component_wise_fallback() {
    let (_keep, root) = linked_tree();
    let ws = ws(&root);
    explicit_paths_follow_in_root_links_only(&ws);
    force_component_wise_opens(true);
    explicit_paths_follow_in_root_links_only(&ws);
    force_component_wise_opens(false);
}

/// Run by [`the_portable_switch_forces_component_wise_opens`] in a child process of its own,
/// once with the switch and once without; alone, it only checks that both ways agree.
#[test]
#[ignore = "run in a child process by the_portable_switch_forces_component_wise_opens"]
fn portable_child() {
    let (_keep, root) = linked_tree();
    explicit_paths_follow_in_root_links_only(&ws(&root));
    let component_wise = opens_component_wise();
    assert_eq!(
        component_wise,
        portable_mode(),
        "component-wise opens: {component_wise}"
    );
}

#[test]
fn the_portable_switch_forces_component_wise_opens() {
    let run = |portable: &str| {
        let output = output_within(
            std::process::Command::new(std::env::current_exe().expect("test binary"))
                .args(["portable_child", "--exact", "--ignored", "--test-threads=1"])
                .env(PORTABLE_ENV, portable),
            60,
        );
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success() && stdout.contains("1 passed"),
            "{PORTABLE_ENV}={portable}: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    run("1");
    if cfg!(target_os = "linux") {
        run("0");
    }
}

const SECRET: &str = "TOP-SECRET-OUTSIDE-THE-ROOT";

/// `parent/repo` (the root, returned), `parent/repo-old` (a sibling sharing its name as a
/// prefix) and `parent/outside`, each of the last two holding a secret; links leave the root.
fn escape_tree() -> (tempfile::TempDir, std::path::PathBuf) {
    let parent = tempfile::tempdir().expect("tempdir");
    let root = parent.path().join("repo");
    write(&root, "src/app.py", "print('hi')\n");
    write(&root, "notes.txt", "inside\n");
    for dir in ["repo-old", "outside"] {
        write(
            parent.path(),
            &format!("{dir}/secret.txt"),
            format!("{SECRET}\n"),
        );
    }
    let outside = parent.path().join("outside");
    symlink(&root, "link_to_file", outside.join("secret.txt"));
    symlink(&root, "link_to_dir", &outside);
    symlink(&root, "src/deep_link", &outside);
    (parent, root)
}

/// `path` given to read_file, to glob (as the directory to list) and to grep (as the file or
/// directory to search), each with its tool's name.
fn each_tool(ws: &Workspace, path: &str) -> [(&'static str, Result<(), CoreError>); 3] {
    [
        ("read_file", try_read(ws, path).map(drop)),
        (
            "glob",
            try_glob(ws, "**/*", |o| o.path = Some(path.into())).map(drop),
        ),
        (
            "grep",
            try_search(ws, "SECRET", |o| o.path = Some(path.into())).map(drop),
        ),
    ]
}

#[test]
fn every_way_out_of_the_root_is_refused_by_every_tool() {
    let (parent, root) = escape_tree();
    let ws = ws(&root);
    let at = |p: &str| parent.path().join(p).to_str().expect("UTF-8").to_string();
    let ways = [
        "..".to_string(),
        "../outside/secret.txt".into(),
        "../outside".into(),
        "src/../../outside/secret.txt".into(),
        "../../../../../../../../etc/passwd".into(),
        at("outside/secret.txt"),
        at("outside"),
        "../repo-old/secret.txt".into(),
        "src/../../repo-old".into(),
        at("repo-old/secret.txt"),
        at("repo-old"),
        "/etc/passwd".into(),
        "/etc".into(),
        "/".into(),
        "link_to_file".into(),
        "link_to_dir".into(),
        "link_to_dir/secret.txt".into(),
        "link_to_dir/not_there.txt".into(),
        "src/deep_link/secret.txt".into(),
        "link_to_dir/../repo-old/secret.txt".into(),
    ];
    for path in &ways {
        for (tool, result) in each_tool(&ws, path) {
            let error = result.expect_err(&format!("{tool}({path:?}) must be refused"));
            assert_eq!(error.kind(), "outside_root", "{tool}({path:?}): {error}");
            assert!(!error.to_string().contains(SECRET), "{tool}({path:?})");
        }
    }
}

#[test]
fn tildes_encodings_and_backslashes_are_plain_names() {
    let (_parent, root) = escape_tree();
    let ws = ws(&root);
    // No home expansion, no URL decoding, no backslash separators, no look-alike dots: each is
    // a name inside the root that does not exist.
    for path in [
        "~",
        "~/secret.txt",
        "~/.bashrc",
        "~root",
        "%2e%2e/outside/secret.txt",
        "%2e%2e%2foutside%2fsecret.txt",
        "..%2Foutside%2Fsecret.txt",
        "..\\outside\\secret.txt",
        "..\\..\\etc\\passwd",
        "src\\..\\..\\outside\\secret.txt",
        "\u{2025}/outside/secret.txt",
    ] {
        for (tool, result) in each_tool(&ws, path) {
            let error = result.expect_err(&format!("{tool}({path:?})"));
            assert_eq!(error.kind(), "not_found", "{tool}({path:?}): {error}");
            assert!(!error.to_string().contains(SECRET), "{tool}({path:?})");
        }
    }
    // `~` names a directory in the root like any other.
    write(&root, "~/inside.txt", "tilde\n");
    assert_eq!(
        try_read(&ws, "~/inside.txt").expect("read").lines[0].text,
        "tilde"
    );
}

#[test]
fn a_nul_in_a_path_is_an_invalid_argument() {
    let (_parent, root) = escape_tree();
    let ws = ws(&root);
    for path in ["notes.txt\0../../outside/secret.txt", "\0", "src/\0app.py"] {
        for (tool, result) in each_tool(&ws, path) {
            let error = result.expect_err(&format!("{tool}({path:?})"));
            assert_eq!(error.kind(), "invalid_argument", "{tool}({path:?})");
            assert!(error.to_string().contains("NUL"), "{error}");
        }
    }
}

#[test]
fn paths_inside_the_root_work_in_every_spelling() {
    let (_parent, root) = escape_tree();
    let ws = ws(&root);
    let absolute = root.join("notes.txt");
    for path in [
        "notes.txt",
        absolute.to_str().expect("UTF-8"),
        "src/../notes.txt",
    ] {
        let out = try_read(&ws, path).expect(path);
        assert_eq!(
            (out.path.to_str(), out.lines[0].text.as_str()),
            (Some("notes.txt"), "inside")
        );
    }
    assert_eq!(
        try_read(&ws, "./src/app.py").expect("read").path,
        "src/app.py"
    );
    // A glob pattern may be absolute when it lies inside the root.
    let pattern = root.join("src/*.py");
    assert_eq!(
        listed(&ws, pattern.to_str().expect("UTF-8")),
        ["src/app.py"]
    );
}

#[test]
fn glob_patterns_cannot_leave_the_root() {
    let (_parent, root) = escape_tree();
    let ws = ws(&root);
    for (pattern, issue) in [
        ("../*", PatternIssue::ParentGlob),
        ("../**/*", PatternIssue::ParentGlob),
        ("../outside/secret.txt", PatternIssue::ParentGlob),
        ("src/../../outside/*", PatternIssue::ParentGlob),
        ("/etc/*", PatternIssue::AbsoluteGlob),
        ("/x/repo-old/*", PatternIssue::AbsoluteGlob),
    ] {
        let error = try_glob(&ws, pattern, |_| {}).expect_err(pattern);
        assert!(
            matches!(&error, CoreError::InvalidPattern { issue: found, .. } if *found == issue),
            "{pattern}: {error:?}"
        );
    }
}

#[test]
fn a_root_given_through_a_link_is_its_real_directory() {
    let parent = tempfile::tempdir().expect("tempdir");
    write(parent.path(), "real_repo/a.txt", "inside\n");
    write(
        parent.path(),
        "real_repo-old/secret.txt",
        format!("{SECRET}\n"),
    );
    symlink(
        parent.path(),
        "linked_repo",
        parent.path().join("real_repo"),
    );
    let link = parent.path().join("linked_repo");
    let ws = ws(&link);
    assert_eq!(
        ws.root(),
        parent
            .path()
            .join("real_repo")
            .canonicalize()
            .expect("real")
    );
    assert_eq!(
        try_read(&ws, "a.txt").expect("read").lines[0].text,
        "inside"
    );
    let through_link = link.join("a.txt");
    let out = try_read(&ws, through_link.to_str().expect("UTF-8")).expect("absolute via link");
    assert_eq!(out.lines[0].text, "inside");
    let error = try_read(&ws, "../real_repo-old/secret.txt").expect_err("sibling");
    assert_eq!(error.kind(), "outside_root");
}

#[test]
fn an_unreadable_directory_on_the_way_is_an_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tree(&[("locked/inner.txt", "x\n")]);
    let locked = dir.path().join("locked");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    // Root (and CAP_DAC_OVERRIDE) reads any directory: nothing to check then.
    let privileged = std::fs::read_dir(&locked).is_ok();
    let result = try_read(&ws(dir.path()), "locked/inner.txt");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    if !privileged {
        assert_eq!(result.expect_err("locked").kind(), "permission_denied");
    }
}

#[test]
fn walks_count_links_and_never_enter_them() {
    let (_keep, root) = linked_tree();
    let out = glob_all(&ws(&root), "**/*", |_| {});
    // src_link, abs_link.rs, out_file.txt, out_dir, notes.txt, deep_up, loop_a, loop_b.
    assert_eq!(out.skipped.symlink, 8, "{:?}", out.skipped);
    assert_eq!((out.skipped.denied, out.skipped.outside_root), (1, 0));
}

#[test]
fn read_reports_the_identity_of_the_opened_file() {
    let (_keep, root) = linked_tree();
    let out = try_read(&ws(&root), "src_link/lib.rs").expect("read");
    let meta = std::fs::metadata(root.join("src/lib.rs")).expect("stat");
    assert_eq!(
        (out.dev, out.inode, out.size_bytes),
        (meta.dev(), meta.ino(), meta.len())
    );
    assert_eq!(
        out.mtime_ns,
        meta.mtime() * 1_000_000_000 + meta.mtime_nsec()
    );
}

#[test]
fn deny_rules_are_case_insensitive_in_reads_and_walks() {
    let dir = tree(&[
        ("KEY.PEM", "k"),
        ("Id_RSA", "k"),
        (".ENV", "k"),
        ("ok.txt", "x"),
    ]);
    let ws = ws(dir.path());
    for path in ["KEY.PEM", "Id_RSA", ".ENV"] {
        assert_eq!(
            try_read(&ws, path).expect_err(path).kind(),
            "denied",
            "{path}"
        );
    }
    let out = glob_all(&ws, "*", |_| {});
    assert_eq!(out.paths, ["ok.txt"]);
    assert_eq!(out.skipped.denied, 3);
}

#[test]
fn fifos_and_sockets_are_refused_without_blocking() {
    let dir = tree(&[("a.txt", "needle\n")]);
    mkfifo(dir.path(), "pipe");
    let _socket =
        std::os::unix::net::UnixListener::bind(dir.path().join("sock")).expect("bind socket");
    let ws = ws(dir.path());
    // A regression would block forever in open(): the calls run on a thread, with a bound.
    within(10, move || {
        for (path, kind) in [("pipe", "FIFO"), ("sock", "socket")] {
            match try_read(&ws, path) {
                Err(CoreError::SpecialFile { kind: found, .. }) => assert_eq!(found, kind),
                other => panic!("{path}: {other:?}"),
            }
            let error = try_search(&ws, "x", |o| o.path = Some(path.into())).expect_err(path);
            assert_eq!(error.kind(), "special_file");
        }
        // Walks count them and open neither.
        let out = search(&ws, "needle", |_| {});
        assert_eq!((out.total_matches, out.skipped.special), (1, 2));
        let out = glob_all(&ws, "*", |_| {});
        assert_eq!(out.paths, ["a.txt"]);
        assert_eq!(out.skipped.special, 2);
    });
}

#[test]
fn over_long_names_are_a_typed_error() {
    let dir = tree(&[("a.txt", "x")]);
    let ws = ws(dir.path());
    let long = "x".repeat(300);
    assert_eq!(
        try_read(&ws, &long).expect_err("long").kind(),
        "path_too_long"
    );
    let deep = vec!["d"; 3000].join("/");
    let error = try_read(&ws, &deep).expect_err("deep");
    assert!(
        ["path_too_long", "not_found"].contains(&error.kind()),
        "{error:?}"
    );
}

#[test]
fn check_path_resolves_without_opening() {
    let (_keep, root) = linked_tree();
    let ws = ws(&root);
    assert_eq!(
        ws.check_path(OsStr::new("src_link/deep")).expect("ok"),
        b"src/deep"
    );
    assert_eq!(
        ws.check_path(OsStr::new("src/../missing"))
            .expect_err("missing")
            .kind(),
        "not_found"
    );
    assert_eq!(
        ws.check_path(OsStr::new("nope/../../x"))
            .expect_err("above")
            .kind(),
        "outside_root"
    );
}

#[test]
fn ignore_files_above_the_root_apply_as_ripgrep_parents() {
    let parent = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(parent.path().join(".git")).expect("git");
    write(parent.path(), ".gitignore", "*.log\n");
    write(parent.path(), ".ignore", "*.tmp\n");
    let root = parent.path().join("repo");
    write(&root, "a.log", "x");
    write(&root, "b.tmp", "x");
    write(&root, "keep.log", "x");
    write(&root, "c.rs", "x");
    write(&root, ".ripsightignore", "!keep.log\n");
    let ws = ws(&root);
    assert_eq!(listed(&ws, "*"), [".ripsightignore", "c.rs", "keep.log"]);
    let all = ws_with(&root, |o| o.respect_ignore_files = false);
    assert_eq!(listed(&all, "*").len(), 5);
}

#[test]
fn deeper_ignore_files_override_shallower_and_kinds_rank() {
    let dir = tree(&[
        (".gitignore", "*.gen\n"),
        ("sub/.gitignore", "!keep.gen\n"),
        ("sub/keep.gen", "x"),
        ("sub/drop.gen", "x"),
        (".ignore", "sub/other/\n"),
        ("sub/other/x.rs", "x"),
        ("sub/.ignore", "!other/\n"),
        ("top.gen", "x"),
    ]);
    std::fs::create_dir_all(dir.path().join(".git")).expect("git");
    let ws = ws(dir.path());
    assert_eq!(
        listed(&ws, "**/*.{gen,rs}"),
        ["sub/keep.gen", "sub/other/x.rs"]
    );
    // The pruned start of a glob agrees with the full walk.
    assert_eq!(listed(&ws, "sub/other/*.rs"), ["sub/other/x.rs"]);
}

#[test]
fn a_directory_swapped_for_a_link_mid_walk_is_never_entered() {
    let parent = tempfile::tempdir().expect("tempdir");
    let root = parent.path().join("repo");
    for i in 0..50 {
        write(&root, &format!("d/f{i}.txt"), "inside\n");
    }
    write(parent.path(), "outside/marker.txt", "outside-marker\n");
    let ws = ws(&root);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let stop = std::sync::Arc::clone(&stop);
        let root = root.clone();
        let outside = parent.path().join("outside");
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::rename(root.join("d"), root.join("d.real"));
                let _ = std::os::unix::fs::symlink(&outside, root.join("d"));
                let _ = std::fs::remove_file(root.join("d"));
                let _ = std::fs::rename(root.join("d.real"), root.join("d"));
            }
        })
    };
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut calls = 0;
    while Instant::now() < deadline {
        calls += 1;
        let found = search(&ws, "marker|inside", |_| {});
        assert!(
            found.lines.iter().all(|m| !m.text.contains("outside")),
            "outside content"
        );
        for path in listed(&ws, "**/*") {
            assert!(!path.contains("marker"), "{path}");
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().expect("swapper");
    assert!(calls > 5);
}
