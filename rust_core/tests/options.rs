//! grep's and glob's ripgrep options on small fixed trees: `types`/`types_not` (rg -t/-T, after
//! the `glob` filter), `max_count` (-m), `invert_match` (-v), `max_depth`, `respect_ignore_files`
//! (--no-ignore), `files_without_match`, and glob lists. Real rg judges the same options on
//! generated trees in `tests/test_rg_options.py`; these pin the cases by name.

mod common;

use std::ffi::OsString;

use common::{search, tree, ws};
use ripsight_core::glob::{GlobOptions, glob};
use ripsight_core::grep::{GrepOptions, GrepOutput, OutputMode, file_type_definitions, grep};
use ripsight_core::workspace::Workspace;

/// Every shown line as `path:line` (match) or `path-line` (context).
fn shown(out: &GrepOutput) -> Vec<String> {
    out.lines
        .iter()
        .map(|l| {
            let sep = if l.is_match { ':' } else { '-' };
            format!("{}{sep}{}", l.path.to_string_lossy(), l.line)
        })
        .collect()
}

fn files(out: &GrepOutput) -> Vec<(String, u64)> {
    out.files
        .iter()
        .map(|f| (f.path.to_string_lossy().into_owned(), f.count))
        .collect()
}

fn listed(ws: &Workspace, tweak: impl FnOnce(&mut GlobOptions)) -> Vec<String> {
    let mut options = GlobOptions {
        limit: None,
        ..GlobOptions::default()
    };
    tweak(&mut options);
    glob(ws, &options)
        .expect("glob")
        .paths
        .into_iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn typed_tree() -> tempfile::TempDir {
    tree(&[
        ("a.py", "needle\n"),
        ("b.pyi", "needle\n"),
        ("c.rs", "needle\n"),
        ("d.md", "needle\n"),
        ("src/e.py", "needle\n"),
        ("src/f.toml", "needle\n"),
        ("Cargo.lock", "needle\n"),
    ])
}

#[test]
fn types_select_by_file_name_and_negations_come_last() {
    let dir = typed_tree();
    let ws = ws(dir.path());
    let names = |select: &[&str], negate: &[&str]| {
        let out = search(&ws, "needle", |o| {
            o.types = strings(select);
            o.types_not = strings(negate);
            o.output_mode = OutputMode::FilesWithMatches;
        });
        files(&out).into_iter().map(|f| f.0).collect::<Vec<_>>()
    };
    assert_eq!(names(&["py"], &[]), ["a.py", "b.pyi", "src/e.py"]);
    assert_eq!(
        names(&["py", "rust"], &[]),
        ["a.py", "b.pyi", "c.rs", "src/e.py"]
    );
    assert_eq!(
        names(&[], &["py", "md"]),
        ["Cargo.lock", "c.rs", "src/f.toml"]
    );
    // `toml` names Cargo.lock too; a type both selected and negated is left out (rg -t X -T X).
    assert_eq!(names(&["toml"], &[]), ["Cargo.lock", "src/f.toml"]);
    assert_eq!(names(&["py"], &["py"]), Vec::<String>::new());
    assert_eq!(
        names(&["all"], &["rust", "py", "md", "toml"]),
        Vec::<String>::new()
    );
}

#[test]
fn a_file_a_glob_names_is_searched_whatever_its_type_as_rg_does() {
    let dir = typed_tree();
    let ws = ws(dir.path());
    let out = search(&ws, "needle", |o| {
        o.glob = strings(&["*.md"]);
        o.types = strings(&["py"]);
        o.output_mode = OutputMode::FilesWithMatches;
    });
    // rg -g '*.md' -t py: the glob's whitelist decides for d.md; nothing else matches a glob
    // that is not negated.
    assert_eq!(files(&out), [("d.md".to_string(), 1)]);
    let out = search(&ws, "needle", |o| {
        o.glob = strings(&["!*.md"]);
        o.types = strings(&["py"]);
        o.output_mode = OutputMode::FilesWithMatches;
    });
    // Only negated globs and none matching: the types decide.
    let names: Vec<String> = files(&out).into_iter().map(|f| f.0).collect();
    assert_eq!(names, ["a.py", "b.pyi", "src/e.py"]);
}

#[test]
fn a_path_given_is_searched_whatever_the_glob_and_types_say() {
    let dir = typed_tree();
    let ws = ws(dir.path());
    let out = search(&ws, "needle", |o| {
        o.path = Some("c.rs".into());
        o.glob = strings(&["*.md"]);
        o.types_not = strings(&["rust"]);
    });
    assert_eq!(shown(&out), ["c.rs:1"]);
    // A directory given is not matched against a negated glob either: only what lies below.
    let out = search(&ws, "needle", |o| {
        o.path = Some("src".into());
        o.glob = strings(&["!src/"]);
        o.output_mode = OutputMode::FilesWithMatches;
    });
    assert_eq!(out.total_files, 2);
}

#[test]
fn unknown_types_are_invalid_arguments() {
    let dir = typed_tree();
    let ws = ws(dir.path());
    let options = GrepOptions {
        pattern: "needle".into(),
        types: strings(&["pyhton"]),
        ..GrepOptions::default()
    };
    let error = grep(&ws, &options).expect_err("unknown type");
    assert_eq!(error.kind(), "invalid_argument");
    assert_eq!(error.to_string(), "unknown file type \"pyhton\".");
    let known = file_type_definitions();
    assert!(
        known
            .iter()
            .any(|(name, globs)| name == "py" && globs.contains(&"*.py".into()))
    );
}

fn counted_tree() -> tempfile::TempDir {
    tree(&[("f.txt", "a1\nb\na2\na3\nb\nb\na4\n"), ("g.txt", "b\n")])
}

#[test]
fn max_count_stops_each_file_and_keeps_the_last_matchs_after_context() {
    let dir = counted_tree();
    let ws = ws(dir.path());
    let out = search(&ws, "a", |o| {
        o.path = Some("f.txt".into());
        o.max_count = Some(1);
        o.after_context = 2;
    });
    // rg -m1 -A2: line 3 matches too but is past the limit, shown in the context as a match
    // that is not counted (rg 14 prints it with ':' and counts it nowhere: rg's regression
    // test for issue 1380).
    assert_eq!(shown(&out), ["f.txt:1", "f.txt-2", "f.txt:3"]);
    let counted: Vec<bool> = out.lines.iter().map(|l| l.counted).collect();
    assert_eq!(counted, [true, false, false]);
    assert_eq!((out.total_matches, out.total_files), (1, 1));
    let out = search(&ws, "a", |o| {
        o.max_count = Some(2);
        o.output_mode = OutputMode::Count;
    });
    assert_eq!(files(&out), [("f.txt".to_string(), 2)]);
    let out = search(&ws, "a", |o| {
        o.max_count = Some(2);
        o.before_context = 1;
    });
    assert_eq!(shown(&out), ["f.txt:1", "f.txt-2", "f.txt:3"]);
    // A line after the limit is a match only when it matches without its terminator: `^$`
    // matches at the end of "b\n", and rg prints that line as context.
    let dir = tree(&[("e.txt", "a\n\nb\n\n")]);
    let empty = common::ws(dir.path());
    let out = search(&empty, "^$", |o| {
        o.max_count = Some(1);
        o.after_context = 2;
    });
    assert_eq!(shown(&out), ["e.txt:2", "e.txt-3", "e.txt:4"]);
    // Inverted, the lines that are not empty are the matches: "b" after the limit is one.
    let out = search(&empty, "^$", |o| {
        o.max_count = Some(1);
        o.after_context = 2;
        o.invert_match = true;
    });
    assert_eq!(shown(&out), ["e.txt:1", "e.txt-2", "e.txt:3"]);
    // rg -m 0 searches nothing, in every mode.
    for mode in [
        OutputMode::Content,
        OutputMode::FilesWithMatches,
        OutputMode::Count,
        OutputMode::FilesWithoutMatch,
    ] {
        let out = search(&ws, "a", |o| {
            o.max_count = Some(0);
            o.output_mode = mode;
        });
        assert_eq!(
            (
                out.total_matches,
                out.files_searched,
                out.lines.len(),
                out.files.len()
            ),
            (0, 0, 0, 0),
            "{mode:?}"
        );
    }
}

#[test]
fn invert_match_counts_and_shows_the_lines_that_do_not_match() {
    let dir = counted_tree();
    let ws = ws(dir.path());
    let out = search(&ws, "a", |o| {
        o.path = Some("f.txt".into());
        o.invert_match = true;
        o.set_context(1);
    });
    assert_eq!(
        shown(&out),
        [
            "f.txt-1", "f.txt:2", "f.txt-3", "f.txt-4", "f.txt:5", "f.txt:6", "f.txt-7"
        ]
    );
    assert_eq!(out.total_matches, 3);
    let out = search(&ws, "a", |o| {
        o.invert_match = true;
        o.max_count = Some(1);
        o.output_mode = OutputMode::Count;
    });
    assert_eq!(files(&out), [("f.txt".into(), 1), ("g.txt".into(), 1)]);
    // -v -l: files holding a line that does not match; -v --files-without-match: files whose
    // every line matches.
    let out = search(&ws, "b", |o| {
        o.invert_match = true;
        o.output_mode = OutputMode::FilesWithoutMatch;
    });
    assert_eq!(files(&out), [("g.txt".into(), 0)]);
}

#[test]
fn files_without_match_lists_the_files_searched_without_a_match_with_paging() {
    let dir = tree(&[
        ("a.txt", "x\n"),
        ("b.txt", "needle\n"),
        ("c.txt", "y\n"),
        ("d.txt", ""),
        ("e.bin", "x\0y\n"),
    ]);
    let ws = ws(dir.path());
    let out = search(&ws, "needle", |o| {
        o.output_mode = OutputMode::FilesWithoutMatch
    });
    // The binary file is skipped, not searched: not an entry.
    let names: Vec<String> = files(&out).into_iter().map(|f| f.0).collect();
    assert_eq!(names, ["a.txt", "c.txt", "d.txt"]);
    assert_eq!(
        (out.files_searched, out.total_files, out.skipped.binary),
        (4, 1, 1)
    );
    let page = grep(
        &ws,
        &GrepOptions {
            pattern: "needle".into(),
            output_mode: OutputMode::FilesWithoutMatch,
            limit: Some(1),
            offset: 1,
            ..GrepOptions::default()
        },
    )
    .expect("grep");
    assert_eq!(files(&page), [("c.txt".to_string(), 0)]);
    assert_eq!(
        (page.offset, page.withheld, page.next_offset),
        (1, 1, Some(2))
    );
}

fn deep_tree() -> tempfile::TempDir {
    tree(&[
        ("top.rs", "needle\n"),
        ("a/one.rs", "needle\n"),
        ("a/b/two.rs", "needle\n"),
        ("a/b/c/three.rs", "needle\n"),
    ])
}

#[test]
fn max_depth_counts_levels_below_the_path() {
    let dir = deep_tree();
    let ws = ws(dir.path());
    let found = |path: Option<&str>, depth: usize| {
        let out = search(&ws, "needle", |o| {
            o.path = path.map(OsString::from);
            o.max_depth = Some(depth);
            o.output_mode = OutputMode::FilesWithMatches;
        });
        files(&out).into_iter().map(|f| f.0).collect::<Vec<_>>()
    };
    assert_eq!(found(None, 1), ["top.rs"]);
    assert_eq!(found(None, 2), ["a/one.rs", "top.rs"]);
    assert_eq!(found(Some("a"), 1), ["a/one.rs"]);
    assert_eq!(found(Some("a"), 2), ["a/b/two.rs", "a/one.rs"]);
    // --max-depth 0: the path itself; a directory holds nothing at that level, a file is read.
    assert!(found(None, 0).is_empty());
    assert_eq!(found(Some("a/one.rs"), 0), ["a/one.rs"]);
    // The glob tool counts from `path` too, also when its walk is pruned to a/b.
    assert_eq!(
        listed(&ws, |o| {
            o.pattern = "a/b/**".into();
            o.max_depth = Some(3);
        }),
        ["a/b/two.rs"]
    );
    assert_eq!(
        listed(&ws, |o| {
            o.pattern = "**/*.rs".into();
            o.path = Some("a".into());
            o.max_depth = Some(2);
        }),
        ["a/b/two.rs", "a/one.rs"]
    );
}

#[test]
fn without_ignore_files_the_search_covers_what_they_hide_but_not_the_skip_set_or_secrets() {
    let dir = tree(&[
        (".gitignore", "build/\n*.log\n"),
        (".ripsightignore", "gen.rs\n"),
        ("src/main.rs", "needle\n"),
        ("build/out.rs", "needle\n"),
        ("app.log", "needle\n"),
        ("gen.rs", "needle\n"),
        ("node_modules/dep/index.js", "needle\n"),
        (".env", "needle\n"),
    ]);
    std::fs::create_dir(dir.path().join(".git")).expect("git");
    let ws = ws(dir.path());
    let names = |respect: bool| {
        let out = search(&ws, "needle", |o| {
            o.respect_ignore_files = respect;
            o.output_mode = OutputMode::FilesWithMatches;
        });
        let names: Vec<String> = files(&out).into_iter().map(|f| f.0).collect();
        (names, out.skipped)
    };
    let (without, skipped) = names(true);
    assert_eq!(without, ["src/main.rs"]);
    assert_eq!(
        (skipped.ignored_by_rules, skipped.ignored, skipped.denied),
        (3, 2, 1)
    );
    let (with, skipped) = names(false);
    assert_eq!(with, ["app.log", "build/out.rs", "gen.rs", "src/main.rs"]);
    // .git and node_modules stay pruned, .env denied; nothing is hidden any more.
    assert_eq!(
        (skipped.ignored_by_rules, skipped.ignored, skipped.denied),
        (0, 2, 1)
    );
    let all = listed(&ws, |o| {
        o.pattern = "**/*".into();
        o.respect_ignore_files = false;
    });
    assert!(all.contains(&"build/out.rs".to_string()) && !all.iter().any(|p| p.contains(".env")));
}

#[test]
fn glob_lists_apply_in_order_and_negations_exclude_below_a_directory() {
    let dir = tree(&[
        ("a.py", ""),
        ("test_a.py", ""),
        ("src/b.py", ""),
        ("src/gen/c.py", ""),
        ("src/gen/d.rs", ""),
        ("docs/e.md", ""),
    ]);
    let ws = ws(dir.path());
    let list = |patterns: &[&str]| {
        listed(&ws, |o| {
            o.pattern = patterns[0].into();
            o.more_patterns = strings(&patterns[1..]);
        })
    };
    assert_eq!(
        list(&["**/*.py", "!**/test_*"]),
        ["a.py", "src/b.py", "src/gen/c.py"]
    );
    assert_eq!(
        list(&["**/*.py", "!src/gen"]),
        ["a.py", "src/b.py", "test_a.py"]
    );
    // The last that matches decides: a later pattern can take back an earlier negation.
    assert_eq!(list(&["!**/*.md", "**/*.md"]), ["docs/e.md"]);
    // Only negations: every other file.
    assert_eq!(list(&["!**/*.py", "!docs/"]), ["src/gen/d.rs"]);
    // With file types: what both the patterns and the types let through.
    assert_eq!(
        listed(&ws, |o| {
            o.pattern = "src/**".into();
            o.types = strings(&["py"]);
        }),
        ["src/b.py", "src/gen/c.py"]
    );
}

#[test]
fn an_empty_glob_list_entry_is_an_invalid_pattern_naming_it() {
    let dir = tree(&[("a.py", "")]);
    let ws = ws(dir.path());
    let error = glob(
        &ws,
        &GlobOptions {
            pattern: "**/*.py".into(),
            more_patterns: strings(&["!"]),
            ..GlobOptions::default()
        },
    )
    .expect_err("empty negation");
    assert_eq!(error.kind(), "invalid_pattern");
    assert!(error.to_string().contains("\"!\""), "{error}");
}
