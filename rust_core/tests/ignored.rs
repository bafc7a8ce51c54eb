//! What ignore rules hid, accounted for: walks count the files and directories ignore files hid
//! (a directory once, not entered) and name the rules that hid the most; a path given inside
//! an ignored directory is searched, and the rule hiding it is named. Also the divergences from
//! ripgrep fixed with it: a linked worktree's `info/exclude`, the warm index re-reading every
//! kind of ignore file, and `a.txt/` naming a directory.

mod common;

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use common::{search, tree, write, ws};
use ripsight_core::glob::{GlobOptions, GlobOutput, glob};
use ripsight_core::grep::{GrepOptions, GrepOutput, OutputMode};
use ripsight_core::read::{ReadOptions, read_file};
use ripsight_core::skip::IgnoreRule;
use ripsight_core::workspace::Workspace;

fn rule(file: &str, line: u64, text: &str, hidden: u64) -> IgnoreRule {
    IgnoreRule {
        file: file.into(),
        line,
        rule: text.into(),
        hidden,
    }
}

fn glob_all(ws: &Workspace, path: Option<&str>) -> GlobOutput {
    glob(
        ws,
        &GlobOptions {
            pattern: "**/*".into(),
            path: path.map(OsString::from),
            limit: None,
            ..GlobOptions::default()
        },
    )
    .expect("glob")
}

fn names(paths: &[OsString]) -> Vec<String> {
    paths
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect()
}

/// A repository whose matches all lie in ignored files: a build directory (many files, one
/// entry), logs, and a nested `.gitignore` whose own rule hides a file below it.
fn hidden_tree() -> tempfile::TempDir {
    let dir = tree(&[
        (".gitignore", "# build output\nbuild/\n\n*.log\n"),
        ("src/.gitignore", "generated_*.rs\n"),
        ("src/main.rs", "fn main() {}\n"),
        ("src/generated_api.rs", "needle\n"),
        ("build/a.txt", "needle\n"),
        ("build/b.txt", "needle\n"),
        ("build/deep/c.txt", "needle\n"),
        ("app.log", "needle\n"),
        ("err.log", "needle\n"),
    ]);
    std::fs::create_dir(dir.path().join(".git")).expect("git");
    dir
}

#[test]
fn a_search_whose_matches_lie_only_in_ignored_files_counts_them_and_names_the_rules() {
    let dir = hidden_tree();
    let ws = ws(dir.path());
    let out = search(&ws, "needle", |_| {});
    assert_eq!(out.total_matches, 0);
    // build/ once (not walked into), two logs, the generated file below src/.
    assert_eq!(out.skipped.ignored_by_rules, 4);
    assert_eq!(
        out.hidden_by,
        [
            rule(".gitignore", 4, "*.log", 2),
            rule(".gitignore", 2, "build/", 1),
            rule("src/.gitignore", 1, "generated_*.rs", 1),
        ]
    );
    assert_eq!(out.path_ignored_by, None);
    let listed = glob_all(&ws, None);
    assert_eq!(listed.skipped.ignored_by_rules, 4);
    assert_eq!(listed.hidden_by, out.hidden_by);
    // Without the ignore files every match is found and nothing is hidden.
    let all = search(&ws, "needle", |o| o.respect_ignore_files = false);
    assert_eq!((all.total_matches, all.skipped.ignored_by_rules), (6, 0));
    assert!(all.hidden_by.is_empty());
}

#[test]
fn at_most_three_rules_are_named_most_first_and_ties_by_file_then_line() {
    let dir = tree(&[
        (".ignore", "*.a\n*.b\n*.c\n*.d\n"),
        ("x.a", ""),
        ("y.a", ""),
        ("x.b", ""),
        ("x.c", ""),
        ("x.d", ""),
        ("kept.txt", ""),
    ]);
    let ws = ws(dir.path());
    let out = glob_all(&ws, None);
    assert_eq!(out.skipped.ignored_by_rules, 5);
    assert_eq!(
        out.hidden_by,
        [
            rule(".ignore", 1, "*.a", 2),
            rule(".ignore", 2, "*.b", 1),
            rule(".ignore", 3, "*.c", 1),
        ]
    );
}

#[test]
fn nested_rules_are_named_by_the_file_that_decided() {
    let dir = tree(&[
        (".gitignore", "*.tmp\n"),
        ("a/.gitignore", "!keep.tmp\nlocal/\n"),
        ("a/.ignore", "*.bak\n"),
        ("a/x.tmp", ""),
        ("a/keep.tmp", ""),
        ("a/local/y.txt", ""),
        ("a/z.bak", ""),
        ("w.tmp", ""),
    ]);
    std::fs::create_dir(dir.path().join(".git")).expect("git");
    let ws = ws(dir.path());
    let out = glob_all(&ws, None);
    assert_eq!(
        names(&out.paths),
        [".gitignore", "a/.gitignore", "a/.ignore", "a/keep.tmp"]
    );
    assert_eq!(out.skipped.ignored_by_rules, 4);
    let mut named: Vec<String> = out
        .hidden_by
        .iter()
        .map(|r| format!("{}:{}: {} ({})", r.file, r.line, r.rule, r.hidden))
        .collect();
    named.sort();
    assert_eq!(
        named,
        [
            ".gitignore:1: *.tmp (2)",
            "a/.gitignore:2: local/ (1)",
            "a/.ignore:1: *.bak (1)"
        ]
    );
    // Below `a` only what lies there is counted.
    let below = glob_all(&ws, Some("a"));
    assert_eq!(below.skipped.ignored_by_rules, 3);
}

#[test]
fn a_path_inside_an_ignored_directory_is_searched_and_the_rule_is_named() {
    let dir = hidden_tree();
    let ws = ws(dir.path());
    let out = search(&ws, "needle", |o| o.path = Some("build/deep".into()));
    assert_eq!(out.total_matches, 1);
    assert_eq!(
        out.path_ignored_by,
        Some(rule(".gitignore", 2, "build/", 1))
    );
    let out = search(&ws, "needle", |o| o.path = Some("app.log".into()));
    assert_eq!(out.total_matches, 1);
    assert_eq!(out.path_ignored_by, Some(rule(".gitignore", 4, "*.log", 1)));
    let listed = glob_all(&ws, Some("build"));
    assert_eq!(
        names(&listed.paths),
        ["build/a.txt", "build/b.txt", "build/deep/c.txt"]
    );
    assert_eq!(
        listed.path_ignored_by,
        Some(rule(".gitignore", 2, "build/", 1))
    );
    // Nothing hides a path outside them; without the ignore files nothing is said to.
    assert_eq!(
        search(&ws, "fn", |o| o.path = Some("src".into())).path_ignored_by,
        None
    );
    let included = search(&ws, "needle", |o| {
        o.path = Some("build".into());
        o.respect_ignore_files = false;
    });
    assert_eq!(included.path_ignored_by, None);
}

#[test]
fn max_depth_counts_only_what_the_walk_meets() {
    let dir = hidden_tree();
    let ws = ws(dir.path());
    let out = search(&ws, "needle", |o| o.max_depth = Some(1));
    // build/ and the logs at the first level; src/generated_api.rs lies deeper.
    assert_eq!(out.skipped.ignored_by_rules, 3);
}

// ==== Divergences from ripgrep, each fixed here ====

#[test]
fn a_linked_worktree_reads_its_repositorys_info_exclude() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, ".git/info/exclude", "*.secretlog\n");
    let linked = root.join(".git/worktrees/wt");
    write(root, ".git/worktrees/wt/commondir", "../..\n");
    write(root, "wt/.git", format!("gitdir: {}\n", linked.display()));
    write(root, "wt/a.secretlog", "needle\n");
    write(root, "wt/b.txt", "needle\n");
    let ws = ws(root);
    let out = search(&ws, "needle", |o| {
        o.output_mode = OutputMode::FilesWithMatches
    });
    let found: Vec<String> = out
        .files
        .iter()
        .map(|f| f.path.to_string_lossy().into_owned())
        .collect();
    assert_eq!(found, ["wt/b.txt"]);
    assert_eq!(
        out.hidden_by,
        [rule(".git/info/exclude", 1, "*.secretlog", 1)]
    );
    // A gitdir given relative to the worktree, as `git worktree add --relative-paths` writes.
    write(root, "wt/.git", "gitdir: ../.git/worktrees/wt\n");
    assert_eq!(glob_all(&ws, Some("wt")).skipped.ignored_by_rules, 1);
    // A worktree of a repository outside the root: its excludes are not read.
    let outside = tempfile::tempdir().expect("outside");
    write(outside.path(), "repo/.git/info/exclude", "*.txt\n");
    write(
        outside.path(),
        "repo/.git/worktrees/wt/commondir",
        "../..\n",
    );
    let far = outside.path().join("repo/.git/worktrees/wt");
    write(root, "wt/.git", format!("gitdir: {}\n", far.display()));
    assert_eq!(glob_all(&ws, Some("wt")).skipped.ignored_by_rules, 0);
    assert_eq!(
        names(&glob_all(&ws, Some("wt")).paths),
        ["wt/.git", "wt/a.secretlog", "wt/b.txt"]
    );
}

#[test]
fn a_file_named_with_a_trailing_slash_is_not_a_directory() {
    let dir = tree(&[("a.txt", "x\n")]);
    let ws = ws(dir.path());
    for path in ["a.txt/", "a.txt/.", "./a.txt//"] {
        let options = ReadOptions {
            path: path.into(),
            ..ReadOptions::default()
        };
        let error = read_file(&ws, &options).expect_err(path);
        assert_eq!(error.kind(), "not_a_directory", "{path}");
        assert_eq!(
            error.to_string(),
            format!("{path} is a file, not a directory.")
        );
        let grep_error = ripsight_core::grep::grep(
            &ws,
            &GrepOptions {
                pattern: "x".into(),
                path: Some(path.into()),
                ..GrepOptions::default()
            },
        )
        .expect_err(path);
        assert_eq!(grep_error.kind(), "not_a_directory", "{path}");
    }
    let options = ReadOptions {
        path: "a.txt".into(),
        ..ReadOptions::default()
    };
    assert_eq!(read_file(&ws, &options).expect("a file").lines.len(), 1);
}

/// The warm index's answers after every kind of ignore file changes below a table directory:
/// each must be the cold engine's (a stale answer would still apply the old rules).
#[cfg(target_os = "linux")]
mod warm {
    use super::*;
    use ripsight_core::glob::list as glob_list;
    use ripsight_core::grep::search as grep_search;
    use ripsight_core::index::{IndexOptions, WarmIndex};

    fn cold_and_warm(index: &WarmIndex, ws: &Workspace, step: &str) {
        let glob_options = GlobOptions {
            pattern: "**/*".into(),
            limit: None,
            ..GlobOptions::default()
        };
        let mut cold = glob(ws, &glob_options).expect("cold glob");
        let mut warm = glob_list(ws, &glob_options, Some(index)).expect("warm glob");
        cold.elapsed_ms = 0.0;
        warm.elapsed_ms = 0.0;
        assert_eq!(warm, cold, "glob after {step}");
        let grep_options = GrepOptions {
            pattern: "needle".into(),
            limit: None,
            output_mode: OutputMode::Count,
            ..GrepOptions::default()
        };
        let strip = |mut out: GrepOutput| {
            out.elapsed_ms = 0.0;
            out
        };
        let cold = strip(ripsight_core::grep::grep(ws, &grep_options).expect("cold grep"));
        let warm = strip(grep_search(ws, &grep_options, Some(index)).expect("warm grep"));
        assert_eq!(warm, cold, "grep after {step}");
    }

    fn watched(root: &Path) -> (Workspace, WarmIndex) {
        let ws = ws(root);
        // In memory: a test writes nothing into the user's cache directory.
        let options = IndexOptions {
            persist: false,
            ..IndexOptions::default()
        };
        let index = WarmIndex::start(&ws, options);
        assert!(
            index.wait(Some(Duration::from_secs(30))),
            "the index builds"
        );
        (ws, index)
    }

    /// Every rule file the walker reads, created, edited and removed in `sub/`.
    #[test]
    fn every_ignore_file_the_walker_reads_is_re_read_by_the_warm_index() {
        for name in [
            ".ripsightignore",
            ".ignore",
            ".gitignore",
            ".git/info/exclude",
        ] {
            let dir = tree(&[
                ("sub/a.md", "needle\n"),
                ("sub/b.py", "needle\n"),
                ("sub/deep/c.md", "needle\n"),
                ("top.md", "needle\n"),
            ]);
            let root = dir.path();
            std::fs::create_dir_all(root.join("sub/.git/info")).expect("repository");
            let (ws, index) = watched(root);
            cold_and_warm(&index, &ws, "the build");
            write(root, &format!("sub/{name}"), "*.md\n");
            cold_and_warm(&index, &ws, &format!("{name} created"));
            assert!(
                glob(
                    &ws,
                    &GlobOptions {
                        pattern: "**/*.md".into(),
                        ..GlobOptions::default()
                    }
                )
                .expect("glob")
                .paths
                .iter()
                .all(|p| p.to_string_lossy() == "top.md"),
                "{name} hides sub's .md files"
            );
            write(root, &format!("sub/{name}"), "*.py\n");
            cold_and_warm(&index, &ws, &format!("{name} edited"));
            std::fs::remove_file(root.join(format!("sub/{name}"))).expect("remove");
            cold_and_warm(&index, &ws, &format!("{name} removed"));
            assert!(index.status().warm_calls >= 8, "{name}: the index answered");
        }
    }

    /// `.gitignore` counts only inside a repository: a `.git` or `.jj` made or removed below
    /// the root changes what its subtree lists.
    #[test]
    fn a_repository_marker_made_or_removed_is_seen_by_the_warm_index() {
        for marker in [".git", ".jj"] {
            let dir = tree(&[
                ("sub/.gitignore", "*.md\n"),
                ("sub/a.md", "needle\n"),
                ("sub/deep/c.md", "needle\n"),
                ("sub/b.py", "needle\n"),
            ]);
            let root = dir.path();
            let (ws, index) = watched(root);
            cold_and_warm(&index, &ws, "the build");
            std::fs::create_dir(root.join("sub").join(marker)).expect("marker");
            cold_and_warm(&index, &ws, &format!("{marker} made"));
            assert_eq!(glob_all(&ws, None).skipped.ignored_by_rules, 2, "{marker}");
            std::fs::remove_dir(root.join("sub").join(marker)).expect("marker");
            cold_and_warm(&index, &ws, &format!("{marker} removed"));
        }
    }

    /// What ignore rules hid, counted from the table, with `max_depth` and a `path`.
    #[test]
    fn the_warm_index_counts_and_names_what_was_hidden_as_the_cold_walk_does() {
        let dir = hidden_tree();
        let (ws, index) = watched(dir.path());
        for (path, depth) in [(None, None), (Some("src"), None), (None, Some(1))] {
            let options = GrepOptions {
                pattern: "needle".into(),
                path: path.map(OsString::from),
                max_depth: depth,
                ..GrepOptions::default()
            };
            let mut cold = ripsight_core::grep::grep(&ws, &options).expect("cold");
            let mut warm = grep_search(&ws, &options, Some(&index)).expect("warm");
            cold.elapsed_ms = 0.0;
            warm.elapsed_ms = 0.0;
            assert_eq!(warm, cold, "{path:?} {depth:?}");
            assert!(cold.skipped.ignored_by_rules > 0);
        }
        assert!(index.status().warm_calls >= 3);
    }
}
