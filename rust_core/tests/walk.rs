//! Integration tests of the walker and `glob` on temporary trees: pattern syntax, order, paging,
//! hints, ignore and deny rules, the skip set, bounds and determinism. Links, FIFOs and paths
//! that leave the root: tests/boundary.rs.

mod common;

use std::time::{Duration, SystemTime};

use common::rich::{SECRET, gitignored, listed_in_git, rich_tree};
use common::{files, glob_all, listed, names, try_glob, write, ws, ws_with};
use ripsight_core::error::{CoreError, PatternIssue};
use ripsight_core::glob::{ANYWHERE_HINT_BELOW, SortOrder};

const SYNTAX_TREE: &[&str] = &[
    "a.py",
    "b.py",
    "a1.txt",
    "a2.txt",
    "a10.txt",
    "x.ts",
    "x.tsx",
    "x.js",
    "src/m.c",
    "src/m.h",
    "src/m.o",
    "src/deep/er/z.py",
    "src/deep/y.py",
    "tests/test_a.py",
];

#[test]
fn glob_syntax() {
    let dir = files(SYNTAX_TREE);
    let ws = ws(dir.path());
    let all_py = [
        "a.py",
        "b.py",
        "src/deep/er/z.py",
        "src/deep/y.py",
        "tests/test_a.py",
    ];
    let all_src = [
        "src/deep/er/z.py",
        "src/deep/y.py",
        "src/m.c",
        "src/m.h",
        "src/m.o",
    ];
    let cases: &[(&str, &[&str])] = &[
        ("*.py", &["a.py", "b.py"]),
        ("**/*.py", &all_py),
        ("src/**/*.py", &["src/deep/er/z.py", "src/deep/y.py"]),
        ("src/*/*.py", &["src/deep/y.py"]),
        ("src/**/y.py", &["src/deep/y.py"]),
        ("src/**", &all_src),
        // `*` never crosses a slash.
        ("src/*.py", &[]),
        (
            "*",
            &[
                "a.py", "a1.txt", "a10.txt", "a2.txt", "b.py", "x.js", "x.ts", "x.tsx",
            ],
        ),
        ("a?.txt", &["a1.txt", "a2.txt"]),
        ("a??.txt", &["a10.txt"]),
        ("*.{ts,tsx}", &["x.ts", "x.tsx"]),
        ("src/m.[ch]", &["src/m.c", "src/m.h"]),
        ("src/m.[!ch]", &["src/m.o"]),
        ("a[!1].txt", &["a2.txt"]),
        ("**/test_*.py", &["tests/test_a.py"]),
        ("./*.js", &["x.js"]),
        // A trailing slash names the directory: everything below it.
        ("src/", &all_src),
        ("*.rs", &[]),
        // `**.py` is read as the `**/*.py` it is a slip for.
        ("**.py", &all_py),
    ];
    for (pattern, expected) in cases {
        let out = glob_all(&ws, pattern, |_| {});
        assert_eq!(names(&out), *expected, "{pattern}");
        assert_eq!(out.total, expected.len() as u64, "{pattern}");
    }
}

#[test]
fn invalid_and_empty_globs_are_pattern_errors_naming_the_issue() {
    let dir = files(&["a.txt"]);
    let ws = ws(dir.path());
    for (pattern, want) in [
        ("src/[abc", PatternIssue::Glob),
        ("", PatternIssue::EmptyPattern),
    ] {
        let err = try_glob(&ws, pattern, |_| {}).expect_err(pattern);
        assert!(
            matches!(&err, CoreError::InvalidPattern { issue, .. } if *issue == want),
            "{pattern}: {err:?}"
        );
        // Syntax help for a model is the Python layer's (ripsight.errors.model_text).
        assert!(!err.to_string().contains("**/*.py"), "{err}");
    }
}

#[test]
fn hidden_files_are_listed_but_skip_set_dirs_are_not() {
    let dir = files(&[
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
    let out = glob_all(&ws, "**/*", |_| {});
    assert_eq!(
        out.paths,
        [".eslintrc", ".github/workflows/ci.yml", "web/app.js"]
    );
    // .git, node_modules twice, __pycache__
    assert_eq!(out.skipped.ignored, 4);
    assert_eq!(
        listed(&ws, ".github/workflows/*.yml"),
        [".github/workflows/ci.yml"]
    );
    assert_eq!(listed(&ws, "**/*.yml"), [".github/workflows/ci.yml"]);
}

#[test]
fn a_custom_skip_set_replaces_the_default() {
    let dir = files(&["node_modules/a.js", "dist/b.js", "build/c.js", "d.js"]);
    assert_eq!(listed(&ws(dir.path()), "**/*.js"), ["build/c.js", "d.js"]);
    let custom = ws_with(dir.path(), |o| o.exclude_dirs = vec!["build".into()]);
    assert_eq!(
        listed(&custom, "**/*.js"),
        ["d.js", "dist/b.js", "node_modules/a.js"]
    );
}

#[test]
fn gitignore_applies_only_inside_a_git_repository() {
    let dir = files(&["keep.rs", "build/out.o", "gen.log"]);
    write(dir.path(), ".gitignore", b"/*\n!keep.rs\n*.log\n");
    // Outside git: the .gitignore (like Debian's kernel tarball's `/*`) hides nothing.
    assert_eq!(
        listed(&ws(dir.path()), "**/*"),
        [".gitignore", "build/out.o", "gen.log", "keep.rs"]
    );
    std::fs::create_dir(dir.path().join(".git")).expect("git dir");
    assert_eq!(listed(&ws(dir.path()), "**/*"), ["keep.rs"]);
}

#[test]
fn nested_gitignore_with_negation() {
    let dir = files(&["a.log", "sub/b.log", "sub/important.log", "sub/c.txt"]);
    std::fs::create_dir(dir.path().join(".git")).expect("git dir");
    write(dir.path(), ".gitignore", b"*.log\n");
    write(dir.path(), "sub/.gitignore", b"!important.log\n");
    assert_eq!(listed(&ws(dir.path()), "**/*.log"), ["sub/important.log"]);
}

#[test]
fn dot_ignore_applies_everywhere_and_ripsightignore_reincludes() {
    let dir = files(&["vendor/lib.js", "gen/api.py", "gen/other.py", "src/main.py"]);
    write(dir.path(), ".ignore", b"vendor/\n");
    std::fs::create_dir(dir.path().join(".git")).expect("git dir");
    write(dir.path(), ".gitignore", b"gen/*\n");
    write(dir.path(), ".ripsightignore", b"!gen/api.py\n");
    let ws = ws(dir.path());
    assert_eq!(listed(&ws, "**/*.{py,js}"), ["gen/api.py", "src/main.py"]);
    let all = ws_with(dir.path(), |o| o.respect_ignore_files = false);
    assert_eq!(
        listed(&all, "**/*.{py,js}"),
        ["gen/api.py", "gen/other.py", "src/main.py", "vendor/lib.js"]
    );
}

/// Every rule at once: ignore files of each kind with negations, the skip set, hidden files,
/// secrets and links, inside git and outside it.
#[test]
fn the_rules_compose_on_the_rich_tree() {
    let parent = tempfile::tempdir().expect("tempdir");
    let root = rich_tree(parent.path(), true);
    let out = glob_all(&ws(&root), "**/*", |_| {});
    assert_eq!(names(&out), listed_in_git());
    // node_modules and .git are pruned skip-set directories.
    assert_eq!(out.skipped.ignored, 2);
    // links/: src_link, outside, outside_file.txt and loop, none followed.
    assert_eq!((out.skipped.symlink, out.skipped.outside_root), (4, 0));
    assert_eq!((out.skipped.denied, out.skipped.unreadable), (2, 0));
    assert_eq!(
        listed(&ws(&root), "generated/*"),
        ["generated/api.py", "generated/keep.py"]
    );
    // With ignore files off every hidden file is listed, but the skip set still holds.
    let everything = listed(&ws_with(&root, |o| o.respect_ignore_files = false), "**/*");
    for path in ["generated/junk.py", "scratch/notes.txt", "app.log"] {
        assert!(everything.iter().any(|p| p == path), "{path}");
    }
    assert!(!everything.iter().any(|p| p.starts_with("node_modules/")));

    // Outside git, .gitignore files hide nothing; .ignore still does.
    let parent = tempfile::tempdir().expect("tempdir");
    let root = rich_tree(parent.path(), false);
    let mut expected = listed_in_git();
    expected.extend(gitignored());
    expected.sort_unstable();
    assert_eq!(listed(&ws(&root), "**/*"), expected);
}

#[test]
fn denied_files_and_dirs_are_never_listed() {
    let dir = files(&[".env", "config/.env.prod", "certs/server.pem", "app.py"]);
    let ws = ws_with(dir.path(), |o| {
        o.deny_globs = vec![
            ".env".into(),
            ".env.*".into(),
            "*.pem".into(),
            "secrets".into(),
        ]
    });
    write(dir.path(), "secrets/token.txt", b"t\n");
    let out = glob_all(&ws, "**/*", |_| {});
    assert_eq!(out.paths, ["app.py"]);
    assert_eq!(out.skipped.denied, 4);
}

#[test]
fn default_deny_rules_hold_for_any_pattern_and_custom_rules_replace_them() {
    let parent = tempfile::tempdir().expect("tempdir");
    let root = rich_tree(parent.path(), true);
    let ws = ws(&root);
    for pattern in ["**/*", ".env", "**/*.pem", "certs/*", "**/.env*"] {
        let paths = listed(&ws, pattern);
        assert!(!paths.iter().any(|p| p == ".env"), "{pattern}");
        assert!(!paths.iter().any(|p| p.ends_with(".pem")), "{pattern}");
        assert!(!paths.iter().any(|p| p.contains(SECRET)), "{pattern}");
    }
    let custom = listed(
        &ws_with(&root, |o| o.deny_globs = vec!["*.py".into()]),
        "**/*",
    );
    assert!(!custom.iter().any(|p| p.ends_with(".py")));
    assert!(custom.iter().any(|p| p == ".env"));
}

#[test]
fn sort_by_mtime_newest_first_ties_by_path() {
    // Ten files share one time, so the page bound cuts between ties whatever order the walk
    // meets them in.
    let ties: Vec<String> = (0..10).map(|i| format!("tie_{i}.txt")).collect();
    let mut created: Vec<&str> = vec!["old.txt", "new.txt"];
    created.extend(ties.iter().map(String::as_str));
    let dir = files(&created);
    let base = SystemTime::now() - Duration::from_secs(3600);
    for name in &created {
        let age = match *name {
            "old.txt" => 300,
            "new.txt" => 0,
            _ => 100,
        };
        let file = std::fs::File::options()
            .write(true)
            .open(dir.path().join(name))
            .expect("open");
        file.set_modified(base - Duration::from_secs(age))
            .expect("mtime");
    }
    let ws = ws(dir.path());
    let by = |sort, offset, limit| {
        glob_all(&ws, "*.txt", |o| {
            o.sort = sort;
            o.offset = offset;
            o.limit = limit;
        })
    };
    let mut newest_first = vec!["new.txt"];
    newest_first.extend(ties.iter().map(String::as_str));
    newest_first.push("old.txt");
    assert_eq!(names(&by(SortOrder::Modified, 0, None)), newest_first);
    let mut by_path = newest_first.clone();
    by_path.sort_unstable();
    assert_eq!(names(&by(SortOrder::Path, 0, None)), by_path);
    // Pages of the newest-first order.
    for (offset, limit) in [(0, 3), (1, 2), (4, 5), (10, 5)] {
        let page = by(SortOrder::Modified, offset, Some(limit));
        let end = (offset + limit).min(newest_first.len());
        assert_eq!(names(&page), newest_first[offset..end], "offset {offset}");
        assert_eq!((page.total, page.withheld), (12, 12 - end as u64));
    }
}

#[test]
fn paging_states_exact_total_and_withheld() {
    let created: Vec<String> = (0..25).map(|i| format!("f{i:02}.txt")).collect();
    let refs: Vec<&str> = created.iter().map(String::as_str).collect();
    let dir = files(&refs);
    let ws = ws(dir.path());
    let page = |offset, limit| {
        glob_all(&ws, "*.txt", |o| {
            o.offset = offset;
            o.limit = Some(limit);
        })
    };
    let first = page(0, 10);
    assert_eq!(names(&first), refs[..10]);
    assert_eq!((first.total, first.withheld, first.offset), (25, 15, 0));
    let middle = page(10, 7);
    assert_eq!(names(&middle), refs[10..17]);
    assert_eq!((middle.total, middle.withheld), (25, 8));
    let last = page(20, 10);
    assert_eq!(names(&last), refs[20..]);
    assert_eq!((last.total, last.withheld, last.offset), (25, 0, 20));
    let past = page(40, 10);
    assert!(past.paths.is_empty());
    assert_eq!((past.total, past.withheld), (25, 0));
    assert_eq!(listed(&ws, "*.txt"), refs);
}

#[test]
fn empty_result_counts_files_in_scope_and_hints_anywhere() {
    let dir = files(&["README.md", "pkg/a.py", "pkg/sub/b.py", "pkg/c.txt"]);
    let ws = ws(dir.path());
    let out = glob_all(&ws, "*.py", |_| {});
    assert!(out.paths.is_empty());
    assert_eq!(out.files_in_scope, Some(4));
    assert_eq!(
        (out.anywhere_pattern.as_deref(), out.anywhere_total),
        (Some("**/*.py"), Some(2))
    );
    let some = glob_all(&ws, "*.md", |_| {});
    assert_eq!(some.files_in_scope, None);
    assert_eq!((some.anywhere_pattern, some.anywhere_total), (None, None));
    let nothing = glob_all(&ws, "*.go", |_| {});
    assert_eq!(
        (nothing.anywhere_pattern, nothing.anywhere_total),
        (None, None)
    );
    assert_eq!(nothing.files_in_scope, Some(4));
    // The count is of the searched directory only.
    let scoped = glob_all(&ws, "*.go", |o| o.path = Some("pkg".into()));
    assert_eq!(scoped.files_in_scope, Some(3));
}

#[test]
fn the_anywhere_hint_is_given_below_its_threshold_for_slash_free_patterns() {
    let mut created: Vec<String> = (0..30).map(|i| format!("pkg/m{i}.rs")).collect();
    let below = ANYWHERE_HINT_BELOW as usize - 1;
    created.extend((0..below).map(|i| format!("top{i}.rs")));
    let refs: Vec<&str> = created.iter().map(String::as_str).collect();
    let dir = files(&refs);
    let ws = ws(dir.path());
    let out = glob_all(&ws, "*.rs", |_| {});
    assert_eq!(out.total, below as u64);
    assert_eq!(
        (out.anywhere_pattern.as_deref(), out.anywhere_total),
        (Some("**/*.rs"), Some(30 + below as u64))
    );
    // A pattern with a slash, or one that finds nothing more anywhere, gets no hint.
    assert_eq!(glob_all(&ws, "pkg/*.rs", |_| {}).anywhere_pattern, None);
    assert_eq!(glob_all(&ws, "top*", |_| {}).anywhere_pattern, None);
    let here = glob_all(&ws, "*.rs", |o| o.path = Some("pkg".into()));
    assert_eq!((here.total, here.anywhere_pattern), (30, None));
    // At the threshold the pattern found enough: no hint.
    write(dir.path(), "one_more.rs", "x\n");
    let enough = glob_all(&ws, "*.rs", |_| {});
    assert_eq!(enough.total, ANYWHERE_HINT_BELOW);
    assert_eq!(
        (enough.anywhere_pattern, enough.anywhere_total),
        (None, None)
    );
}

#[test]
fn path_option_scopes_and_patterns_are_relative_to_it() {
    let dir = files(&["pkg/a.py", "pkg/sub/b.py", "other/c.py"]);
    let ws = ws(dir.path());
    let out = glob_all(&ws, "*.py", |o| o.path = Some("pkg".into()));
    assert_eq!(out.paths, ["pkg/a.py"]);
    assert_eq!(out.searched, "pkg");
    let deep = glob_all(&ws, "**/*.py", |o| o.path = Some("pkg".into()));
    assert_eq!(deep.paths, ["pkg/a.py", "pkg/sub/b.py"]);
    // An absolute path inside the root is the same directory.
    let absolute = glob_all(&ws, "*.py", |o| o.path = Some(ws.root().join("pkg").into()));
    assert_eq!(
        (absolute.paths, absolute.searched),
        (out.paths, out.searched)
    );
    for (path, kind) in [
        ("pkg/a.py", "not_a_directory"),
        ("nope", "not_found"),
        ("../", "outside_root"),
    ] {
        let err = try_glob(&ws, "*", |o| o.path = Some(path.into())).expect_err(path);
        assert_eq!(err.kind(), kind, "{path}");
    }
}

#[test]
fn literal_leading_directory_prunes_the_walk() {
    let dir = files(&["src/a.rs", "src/x/b.rs", "tests/c.rs", "build/d.rs"]);
    std::fs::create_dir(dir.path().join(".git")).expect("git dir");
    write(dir.path(), ".gitignore", b"build/\n");
    let ws = ws(dir.path());
    let out = glob_all(&ws, "src/**/*.rs", |_| {});
    assert_eq!(out.paths, ["src/a.rs", "src/x/b.rs"]);
    assert_eq!(out.searched, "src");
    // An ignored directory is not a pruning target: the result equals the full walk's.
    let ignored = glob_all(&ws, "build/**/*.rs", |_| {});
    assert!(ignored.paths.is_empty());
    assert_eq!(ignored.searched, "");
    // A missing leading directory: an empty answer counting the whole searched directory
    // (.gitignore, src/a.rs, src/x/b.rs, tests/c.rs; build/d.rs is ignored).
    let missing = glob_all(&ws, "nope/**/*.rs", |_| {});
    assert!(missing.paths.is_empty());
    assert_eq!(missing.files_in_scope, Some(4));
    // Pruning into a skip-set directory would bypass the skip set: it does not happen.
    write(dir.path(), "node_modules/m/e.rs", b"x\n");
    assert!(listed(&ws, "node_modules/**/*.rs").is_empty());
}

#[test]
fn expired_time_budget_returns_partial_marked_incomplete() {
    let created: Vec<String> = (0..300).map(|i| format!("d{}/f{i}.txt", i % 10)).collect();
    let refs: Vec<&str> = created.iter().map(String::as_str).collect();
    let dir = files(&refs);
    let expired = ws_with(dir.path(), |o| o.time_budget = Duration::from_nanos(1));
    let out = glob_all(&expired, "**/*", |_| {});
    assert!(out.incomplete);
    assert!(out.total < 300);
    let complete = glob_all(&ws(dir.path()), "**/*", |o| o.limit = Some(10));
    assert!(!complete.incomplete);
    assert_eq!(complete.total, 300);
}

#[test]
fn results_are_identical_across_runs_and_thread_counts() {
    let created: Vec<String> = (0..1500)
        .map(|i| format!("d{:02}/e{}/f{i:04}.txt", i % 30, i % 10))
        .collect();
    let refs: Vec<&str> = created.iter().map(String::as_str).collect();
    let dir = files(&refs);
    let mut sorted = created.clone();
    sorted.sort_unstable();
    for threads in [0, 1, 4] {
        let ws = ws_with(dir.path(), |o| o.threads = threads);
        for _ in 0..10 {
            assert_eq!(listed(&ws, "**/*.txt"), sorted, "threads {threads}");
        }
    }
}
