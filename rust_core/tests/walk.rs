//! Integration tests of the walker and `glob` on temporary trees.

use std::path::Path;
use std::time::{Duration, SystemTime};

use ripsight_core::glob::{GlobOptions, GlobOutput, SortOrder, glob};
use ripsight_core::workspace::{Workspace, WorkspaceOptions};

fn write(root: &Path, relative: &str, content: &[u8]) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, content).expect("write");
}

fn tree(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for f in files {
        write(dir.path(), f, b"x\n");
    }
    dir
}

fn ws(root: &Path) -> Workspace {
    Workspace::new(root, WorkspaceOptions::default()).expect("workspace")
}

fn run(ws: &Workspace, pattern: &str) -> GlobOutput {
    glob(
        ws,
        &GlobOptions {
            pattern: pattern.into(),
            limit: None,
            ..GlobOptions::default()
        },
    )
    .expect("glob")
}

fn paths(ws: &Workspace, pattern: &str) -> Vec<String> {
    run(ws, pattern)
        .paths
        .into_iter()
        .map(|p| p.into_string().expect("UTF-8 name"))
        .collect()
}

#[test]
fn star_stays_in_one_level_and_double_star_crosses() {
    let dir = tree(&["a.py", "src/b.py", "src/deep/c.py", "src/d.rs"]);
    let ws = ws(dir.path());
    assert_eq!(paths(&ws, "*.py"), ["a.py"]);
    assert_eq!(paths(&ws, "**/*.py"), ["a.py", "src/b.py", "src/deep/c.py"]);
    assert_eq!(paths(&ws, "src/*.py"), ["src/b.py"]);
    assert_eq!(
        paths(&ws, "src/**"),
        ["src/b.py", "src/d.rs", "src/deep/c.py"]
    );
    assert_eq!(paths(&ws, "src/**/c.py"), ["src/deep/c.py"]);
}

#[test]
fn question_mark_alternatives_and_classes() {
    let dir = tree(&[
        "a1.txt", "a2.txt", "a10.txt", "x.ts", "x.tsx", "x.js", "b.c", "b.h",
    ]);
    let ws = ws(dir.path());
    assert_eq!(paths(&ws, "a?.txt"), ["a1.txt", "a2.txt"]);
    assert_eq!(paths(&ws, "*.{ts,tsx}"), ["x.ts", "x.tsx"]);
    assert_eq!(paths(&ws, "b.[ch]"), ["b.c", "b.h"]);
    assert_eq!(paths(&ws, "a[!1].txt"), ["a2.txt"]);
}

#[test]
fn invalid_glob_is_a_pattern_error_naming_the_issue() {
    let dir = tree(&["a.txt"]);
    let err = glob(
        &ws(dir.path()),
        &GlobOptions {
            pattern: "src/[abc".into(),
            ..GlobOptions::default()
        },
    )
    .expect_err("invalid");
    assert!(
        matches!(
            &err,
            ripsight_core::error::CoreError::InvalidPattern {
                issue: ripsight_core::error::PatternIssue::Glob,
                ..
            }
        ),
        "{err:?}"
    );
    // Syntax help for a model is the Python layer's (ripsight.errors.model_text).
    assert!(!err.to_string().contains("**/*.py"), "{err}");
}

#[test]
fn hidden_files_are_listed_but_skip_set_dirs_are_not() {
    let dir = tree(&[
        ".github/workflows/ci.yml",
        ".eslintrc",
        "node_modules/pkg/index.js",
        "web/node_modules/x.js",
        "web/app.js",
        "__pycache__/m.pyc",
    ]);
    std::fs::create_dir_all(dir.path().join(".git/objects")).expect("mkdir");
    write(dir.path(), ".git/HEAD", b"ref: refs/heads/main\n");
    let ws = ws(dir.path());
    let out = run(&ws, "**/*");
    assert_eq!(
        out.paths,
        [".eslintrc", ".github/workflows/ci.yml", "web/app.js"]
    );
    // .git, node_modules twice, __pycache__
    assert_eq!(out.skipped.ignored, 4);
    assert_eq!(
        paths(&ws, ".github/workflows/*.yml"),
        [".github/workflows/ci.yml"]
    );
}

#[test]
fn gitignore_applies_only_inside_a_git_repository() {
    let dir = tree(&["keep.rs", "build/out.o", "gen.log"]);
    write(dir.path(), ".gitignore", b"/*\n!keep.rs\n*.log\n");
    // Outside git: the .gitignore (like Debian's kernel tarball's `/*`) hides nothing.
    assert_eq!(
        paths(&ws(dir.path()), "**/*"),
        [".gitignore", "build/out.o", "gen.log", "keep.rs"]
    );
    std::fs::create_dir(dir.path().join(".git")).expect("git dir");
    assert_eq!(paths(&ws(dir.path()), "**/*"), ["keep.rs"]);
}

#[test]
fn nested_gitignore_with_negation() {
    let dir = tree(&["a.log", "sub/b.log", "sub/important.log", "sub/c.txt"]);
    std::fs::create_dir(dir.path().join(".git")).expect("git dir");
    write(dir.path(), ".gitignore", b"*.log\n");
    write(dir.path(), "sub/.gitignore", b"!important.log\n");
    assert_eq!(paths(&ws(dir.path()), "**/*.log"), ["sub/important.log"]);
}

#[test]
fn dot_ignore_applies_everywhere_and_ripsightignore_reincludes() {
    let dir = tree(&["vendor/lib.js", "gen/api.py", "gen/other.py", "src/main.py"]);
    write(dir.path(), ".ignore", b"vendor/\n");
    std::fs::create_dir(dir.path().join(".git")).expect("git dir");
    write(dir.path(), ".gitignore", b"gen/*\n");
    write(dir.path(), ".ripsightignore", b"!gen/api.py\n");
    let ws = ws(dir.path());
    assert_eq!(paths(&ws, "**/*.{py,js}"), ["gen/api.py", "src/main.py"]);
    let all = Workspace::new(
        dir.path(),
        WorkspaceOptions {
            respect_ignore_files: false,
            ..WorkspaceOptions::default()
        },
    )
    .expect("workspace");
    assert_eq!(
        paths(&all, "**/*.{py,js}"),
        ["gen/api.py", "gen/other.py", "src/main.py", "vendor/lib.js"]
    );
}

#[test]
fn denied_files_and_dirs_are_never_listed() {
    let dir = tree(&[".env", "config/.env.prod", "certs/server.pem", "app.py"]);
    let ws = Workspace::new(
        dir.path(),
        WorkspaceOptions {
            deny_globs: vec![
                ".env".into(),
                ".env.*".into(),
                "*.pem".into(),
                "secrets".into(),
            ],
            ..WorkspaceOptions::default()
        },
    )
    .expect("workspace");
    write(dir.path(), "secrets/token.txt", b"t\n");
    let out = run(&ws, "**/*");
    assert_eq!(out.paths, ["app.py"]);
    assert_eq!(out.skipped.denied, 4);
}

#[cfg(unix)]
#[test]
fn walks_never_follow_symlinks() {
    let outside = tree(&["secret.txt"]);
    let dir = tree(&["real/a.rs"]);
    std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("link")).expect("link");
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).expect("link");
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("s.txt"))
        .expect("link");
    std::os::unix::fs::symlink(dir.path(), dir.path().join("real/loop")).expect("link");
    let out = run(&ws(dir.path()), "**/*");
    // Every file once, under its real path; the four links are counted, none followed.
    assert_eq!(out.paths, ["real/a.rs"]);
    assert_eq!((out.skipped.symlink, out.skipped.outside_root), (4, 0));
    // Explicit paths through links: tests/boundary.rs.
}

#[cfg(unix)]
#[test]
fn fifo_is_counted_not_opened() {
    let dir = tree(&["a.txt"]);
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let out = run(&ws(dir.path()), "*");
    assert_eq!(out.paths, ["a.txt"]);
    assert_eq!(out.skipped.special, 1);
}

#[test]
fn sort_by_mtime_newest_first_ties_by_path() {
    let dir = tree(&["old.txt", "new.txt", "mid_b.txt", "mid_a.txt"]);
    let base = SystemTime::now() - Duration::from_secs(3600);
    for (name, age) in [
        ("old.txt", 300),
        ("new.txt", 0),
        ("mid_a.txt", 100),
        ("mid_b.txt", 100),
    ] {
        let file = std::fs::File::options()
            .write(true)
            .open(dir.path().join(name))
            .expect("open");
        file.set_modified(base - Duration::from_secs(age))
            .expect("mtime");
    }
    let out = glob(
        &ws(dir.path()),
        &GlobOptions {
            pattern: "*.txt".into(),
            sort: SortOrder::Modified,
            ..GlobOptions::default()
        },
    )
    .expect("glob");
    assert_eq!(out.paths, ["new.txt", "mid_a.txt", "mid_b.txt", "old.txt"]);
}

#[test]
fn paging_states_exact_total_and_withheld() {
    let names: Vec<String> = (0..25).map(|i| format!("f{i:02}.txt")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let dir = tree(&refs);
    let ws = ws(dir.path());
    let page = |offset, limit| {
        glob(
            &ws,
            &GlobOptions {
                pattern: "*.txt".into(),
                offset,
                limit: Some(limit),
                ..GlobOptions::default()
            },
        )
        .expect("glob")
    };
    let first = page(0, 10);
    assert_eq!(
        first.paths,
        names[..10].iter().map(|n| n.as_str()).collect::<Vec<_>>()
    );
    assert_eq!((first.total, first.withheld), (25, 15));
    let last = page(20, 10);
    assert_eq!(
        last.paths,
        names[20..].iter().map(|n| n.as_str()).collect::<Vec<_>>()
    );
    assert_eq!((last.total, last.withheld, last.offset), (25, 0, 20));
    let past = page(40, 10);
    assert!(past.paths.is_empty());
    assert_eq!((past.total, past.withheld), (25, 0));
}

#[test]
fn empty_result_counts_files_in_scope_and_hints_anywhere() {
    let dir = tree(&["README.md", "pkg/a.py", "pkg/sub/b.py", "pkg/c.txt"]);
    let ws = ws(dir.path());
    let out = run(&ws, "*.py");
    assert!(out.paths.is_empty());
    assert_eq!(out.files_in_scope, Some(4));
    assert_eq!(
        (out.anywhere_pattern.as_deref(), out.anywhere_total),
        (Some("**/*.py"), Some(2))
    );
    let some = run(&ws, "*.md");
    assert_eq!(some.files_in_scope, None);
    assert_eq!((some.anywhere_pattern, some.anywhere_total), (None, None));
    let nothing = run(&ws, "*.go");
    assert_eq!(
        (nothing.anywhere_pattern, nothing.anywhere_total),
        (None, None)
    );
    assert_eq!(nothing.files_in_scope, Some(4));
}

#[test]
fn path_option_scopes_and_patterns_are_relative_to_it() {
    let dir = tree(&["pkg/a.py", "pkg/sub/b.py", "other/c.py"]);
    let ws = ws(dir.path());
    let out = glob(
        &ws,
        &GlobOptions {
            pattern: "*.py".into(),
            path: Some("pkg".into()),
            ..GlobOptions::default()
        },
    )
    .expect("glob");
    assert_eq!(out.paths, ["pkg/a.py"]);
    assert_eq!(out.searched, "pkg");
    for (path, kind) in [
        ("pkg/a.py", "not_a_directory"),
        ("nope", "not_found"),
        ("../", "outside_root"),
    ] {
        let err = glob(
            &ws,
            &GlobOptions {
                pattern: "*".into(),
                path: Some(path.into()),
                ..GlobOptions::default()
            },
        )
        .expect_err("bad path");
        assert_eq!(err.kind(), kind, "{path}");
    }
}

#[test]
fn literal_leading_directory_prunes_the_walk() {
    let dir = tree(&["src/a.rs", "src/x/b.rs", "tests/c.rs", "build/d.rs"]);
    std::fs::create_dir(dir.path().join(".git")).expect("git dir");
    write(dir.path(), ".gitignore", b"build/\n");
    let ws = ws(dir.path());
    let out = run(&ws, "src/**/*.rs");
    assert_eq!(out.paths, ["src/a.rs", "src/x/b.rs"]);
    assert_eq!(out.searched, "src");
    // An ignored directory is not a pruning target: the result equals the full walk's.
    let ignored = run(&ws, "build/**/*.rs");
    assert!(ignored.paths.is_empty());
    assert_eq!(ignored.searched, "");
    // Pruning into a skip-set directory would bypass the skip set: it does not happen.
    write(dir.path(), "node_modules/m/e.rs", b"x\n");
    assert!(run(&ws, "node_modules/**/*.rs").paths.is_empty());
}

#[test]
fn expired_time_budget_returns_partial_marked_incomplete() {
    let names: Vec<String> = (0..300).map(|i| format!("d{}/f{i}.txt", i % 10)).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let dir = tree(&refs);
    let ws = Workspace::new(
        dir.path(),
        WorkspaceOptions {
            time_budget: Duration::from_nanos(1),
            ..WorkspaceOptions::default()
        },
    )
    .expect("workspace");
    let out = run(&ws, "**/*");
    assert!(out.incomplete);
    assert!(out.total < 300);
}
