//! Integration tests of `grep` on temporary trees: order, totals, options, modes, encodings,
//! binary and long lines, ignore and deny rules, bounds and determinism. Paging:
//! tests/grep_pages.rs; links, FIFOs and paths that leave the root: tests/boundary.rs.

mod common;

use std::time::Duration;

use common::rich::{SECRET, long_line, rich_tree};
use common::{rendered, search, tree, try_search, write, ws, ws_with};
use ripsight_core::error::{CoreError, PatternIssue};
use ripsight_core::grep::{GrepOptions, GrepOutput, MAX_CONTEXT, OutputMode, grep};
use ripsight_core::workspace::Workspace;

/// True when `err` is an invalid pattern for the reason `want`.
fn is_issue(err: &CoreError, want: PatternIssue) -> bool {
    matches!(err, CoreError::InvalidPattern { issue, .. } if *issue == want)
}

/// The paths of content-mode lines, in order.
fn paths(out: &GrepOutput) -> Vec<String> {
    out.lines
        .iter()
        .map(|l| l.path.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn content_is_ordered_by_path_then_line_with_exact_totals() {
    let dir = tree(&[
        ("b.rs", "fn b() {}\nlet x = 1;\nfn c() {}\n"),
        ("a/z.rs", "// fn in a comment\n"),
        ("a.txt", "nothing here\n"),
    ]);
    let out = search(&ws(dir.path()), "fn ", |_| {});
    assert_eq!(
        rendered(&out),
        [
            "a/z.rs:1:// fn in a comment",
            "b.rs:1:fn b() {}",
            "b.rs:3:fn c() {}"
        ]
    );
    assert_eq!(
        (out.total_matches, out.total_files, out.withheld),
        (3, 2, 0)
    );
    assert_eq!(out.files_searched, 3);
}

#[test]
fn literal_case_insensitive_anchors_and_invalid_patterns() {
    let dir = tree(&[("a.txt", "call foo(1)\nFOO(2)\nfoo\nA.B.C\nAxBxC\n")]);
    let ws = ws(dir.path());
    assert_eq!(search(&ws, "foo(", |o| o.literal = true).total_matches, 1);
    assert_eq!(search(&ws, "A.B.C", |o| o.literal = true).total_matches, 1);
    assert_eq!(search(&ws, "A.B.C", |_| {}).total_matches, 2);
    assert_eq!(
        search(&ws, "foo", |o| o.case_insensitive = true).total_matches,
        3
    );
    assert_eq!(search(&ws, "foo", |_| {}).total_matches, 2);
    assert_eq!(search(&ws, r"fo+\(\d\)", |_| {}).total_matches, 1);
    // `^` and `$` anchor at each line.
    assert_eq!(rendered(&search(&ws, "^foo", |_| {})), ["a.txt:3:foo"]);
    assert_eq!(search(&ws, r"\)$", |_| {}).total_matches, 2);
    // The empty pattern matches every line.
    assert_eq!(search(&ws, "", |_| {}).total_matches, 5);
    let err = try_search(&ws, "foo(", |_| {}).expect_err("invalid regex");
    assert_eq!(err.kind(), "invalid_pattern");
    assert!(is_issue(&err, PatternIssue::Regex), "{err:?}");
    let err = try_search(&ws, r"foo\nbar", |_| {}).expect_err("newline without multiline");
    assert!(is_issue(&err, PatternIssue::LineBreak), "{err:?}");
    // The engine states facts; advice (literal=true, multiline=true) is the Python layer's.
    assert!(!err.to_string().contains("multiline=true"), "{err}");
    let err = try_search(&ws, "x", |o| o.glob = vec!["[oops".into()]).expect_err("bad filter");
    assert!(is_issue(&err, PatternIssue::Glob), "{err:?}");
}

#[test]
fn glob_filter_follows_rg_g_and_only_narrows() {
    let dir = tree(&[
        ("src/a.py", "hit\n"),
        ("src/deep/b.py", "hit\n"),
        ("src/c.rs", "hit\n"),
        ("src/d.md", "hit\n"),
        ("gen/d.py", "hit\n"),
        ("app.log", "hit\n"),
        ("node_modules/m/e.py", "hit\n"),
        (".env", "hit\n"),
        ("certs/k.pem", "hit\n"),
    ]);
    std::fs::create_dir(dir.path().join(".git")).expect("git dir");
    write(dir.path(), ".gitignore", b"gen/\n*.log\n");
    let ws = ws(dir.path());
    let files = |glob: &str| paths(&search(&ws, "hit", |o| o.glob = vec![glob.into()]));
    assert_eq!(files("*.py"), ["src/a.py", "src/deep/b.py"]);
    assert_eq!(files("src/*.py"), ["src/a.py"]);
    assert_eq!(files("src/**/*.py"), ["src/a.py", "src/deep/b.py"]);
    assert_eq!(files("*.{rs,md}"), ["src/c.rs", "src/d.md"]);
    assert_eq!(files("!*.py"), ["src/c.rs", "src/d.md"]);
    // Neither ignored, skip-set nor denied files come back through the filter.
    for glob in [
        "gen/*.py",
        "*.log",
        "node_modules/**",
        ".env",
        "*.pem",
        "certs/*",
    ] {
        assert!(files(glob).is_empty(), "{glob}");
    }
}

#[test]
fn several_globs_follow_rg_g_order_negation_and_anchoring() {
    // Each expectation is what `rg -l hit -g ...` lists on this tree (checked with rg 14).
    let dir = tree(&[
        ("src/a/f.rs", "hit\n"),
        ("src/b.rs", "hit\n"),
        ("d.bar/f", "hit\n"),
        ("x/asdf/g", "hit\n"),
        ("asdf/h", "hit\n"),
        ("foo/i", "hit\n"),
        ("top.bar", "hit\n"),
        ("foo.txt", "hit\n"),
        ("x/foo", "hit\n"),
    ]);
    let ws = ws(dir.path());
    let files = |globs: &[&str]| {
        let out = search(&ws, "hit", |o| {
            o.glob = globs.iter().map(|g| g.to_string()).collect();
            o.output_mode = OutputMode::FilesWithMatches;
        });
        let mut paths: Vec<_> = out
            .files
            .into_iter()
            .map(|f| f.path.to_string_lossy().into_owned())
            .collect();
        paths.sort();
        paths.join(" ")
    };
    let everything = "asdf/h d.bar/f foo.txt foo/i src/a/f.rs src/b.rs top.bar x/asdf/g x/foo";
    assert_eq!(files(&[]), everything);
    assert_eq!(
        files(&["!asdf/"]),
        "d.bar/f foo.txt foo/i src/a/f.rs src/b.rs top.bar x/foo"
    );
    assert_eq!(
        files(&["!*.bar"]),
        "asdf/h foo.txt foo/i src/a/f.rs src/b.rs x/asdf/g x/foo"
    );
    assert_eq!(files(&["/foo"]), "");
    assert_eq!(
        files(&["!/foo"]),
        "asdf/h d.bar/f foo.txt src/a/f.rs src/b.rs top.bar x/asdf/g x/foo"
    );
    assert_eq!(files(&["foo"]), "x/foo");
    assert_eq!(files(&["*.rs", "!src/a/**"]), "src/b.rs");
    assert_eq!(files(&["!src/a/**", "*.rs"]), "src/a/f.rs src/b.rs");
    assert_eq!(files(&["!*.rs", "f.rs"]), "src/a/f.rs");
}

#[test]
fn context_lines_merge_and_appear_once() {
    let body = (1..=20).map(|i| format!("line {i}\n")).collect::<String>();
    let dir = tree(&[("f.txt", body.as_str())]);
    let out = search(&ws(dir.path()), "line (5|7|15)$", |o| o.set_context(2));
    assert_eq!(
        rendered(&out),
        [
            "f.txt-3-line 3",
            "f.txt-4-line 4",
            "f.txt:5:line 5",
            "f.txt-6-line 6",
            "f.txt:7:line 7",
            "f.txt-8-line 8",
            "f.txt-9-line 9",
            "f.txt-13-line 13",
            "f.txt-14-line 14",
            "f.txt:15:line 15",
            "f.txt-16-line 16",
            "f.txt-17-line 17",
        ]
    );
    assert_eq!(out.total_matches, 3);
}

#[test]
fn output_modes_files_and_counts() {
    let dir = tree(&[("a.txt", "x\nx\n"), ("b.txt", "y\n"), ("c.txt", "x\n")]);
    write(dir.path(), "d.txt", "x\n");
    let ws = ws(dir.path());
    let files = search(&ws, "x", |o| o.output_mode = OutputMode::FilesWithMatches);
    assert!(files.lines.is_empty());
    let listed: Vec<_> = files
        .files
        .iter()
        .map(|f| (f.path.to_str().expect("UTF-8"), f.count))
        .collect();
    assert_eq!(listed, [("a.txt", 2), ("c.txt", 1), ("d.txt", 1)]);
    let counts = search(&ws, "x", |o| {
        o.output_mode = OutputMode::Count;
        o.limit = Some(1);
    });
    assert_eq!(counts.files.len(), 1);
    assert_eq!(
        (counts.total_files, counts.total_matches, counts.withheld),
        (3, 4, 2)
    );
    let paged = search(&ws, "x", |o| {
        o.output_mode = OutputMode::FilesWithMatches;
        o.offset = 1;
        o.limit = Some(1);
    });
    assert_eq!(paged.files.len(), 1);
    assert_eq!(paged.files[0].path, "c.txt");
    assert_eq!((paged.withheld, paged.offset), (1, 1));
}

#[test]
fn multiline_matches_span_lines() {
    let dir = tree(&[("a.rs", "fn main() {\n    body();\n}\nfn other() {}\n")]);
    let ws = ws(dir.path());
    let out = search(&ws, r"fn main\(\) \{\n\s+body", |o| o.multiline = true);
    assert_eq!(rendered(&out), ["a.rs:1:fn main() {", "a.rs:2:    body();"]);
    assert_eq!(out.total_matches, 2);
    // Every line a match touches counts; `(?s)` lets `.` cross line breaks.
    let spanning = search(&ws, r"(?s)fn main.*?\}", |o| o.multiline = true);
    assert_eq!(spanning.total_matches, 3);
    assert_eq!(search(&ws, "fn", |o| o.multiline = true).total_matches, 2);
}

#[test]
fn binary_files_are_skipped_entirely_and_counted() {
    let mut late = b"needle early\n".repeat(20_000);
    late.extend_from_slice(b"\0tail\n");
    let dir = tree(&[("early.bin", "\0needle\n"), ("text.txt", "needle\n")]);
    write(dir.path(), "late.bin", late);
    for multiline in [false, true] {
        let out = search(&ws(dir.path()), "needle", |o| o.multiline = multiline);
        assert_eq!(
            rendered(&out),
            ["text.txt:1:needle"],
            "multiline {multiline}"
        );
        assert_eq!(out.skipped.binary, 2);
        assert_eq!(out.total_matches, 1);
    }
}

#[test]
fn utf16_invalid_utf8_and_crlf_are_searched_as_text() {
    let mut utf16 = vec![0xFF, 0xFE];
    for unit in "first\nsecond needle\n".encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    let dir = tree(&[("crlf.txt", "one\r\nneedle;\r\n")]);
    write(dir.path(), "u16.txt", utf16);
    write(dir.path(), "bad.txt", b"caf\xe9 needle \xff\xfe\n");
    let out = search(&ws(dir.path()), "needle", |_| {});
    assert_eq!(
        rendered(&out),
        [
            "bad.txt:1:caf\u{FFFD} needle \u{FFFD}\u{FFFD}",
            "crlf.txt:2:needle;",
            "u16.txt:2:second needle",
        ]
    );
    // `$` matches before a CRLF line ending.
    assert_eq!(search(&ws(dir.path()), "needle;$", |_| {}).total_matches, 1);
}

#[test]
fn long_lines_show_a_window_around_a_late_match_and_the_head_around_an_early_one() {
    // The match starts at character 90,000, after 45,000 two-byte characters.
    let dir = tree(&[
        ("long.txt", long_line().as_str()),
        ("wide.txt", &format!("needle {}\n", "é".repeat(500))),
    ]);
    let ws = ws(dir.path());
    let out = search(&ws, "LATE_NEEDLE", |_| {});
    let [late] = &out.lines[..] else {
        panic!("one line: {:?}", rendered(&out))
    };
    assert_eq!((late.path.to_str(), late.line), (Some("long.txt"), 1));
    assert!(late.cut);
    assert!(late.text.contains("LATE_NEEDLE"));
    assert!(late.text.starts_with('…') && late.text.ends_with('…'));
    assert!(late.text.chars().count() <= 120);
    let out = search(&ws, "needle", |o| o.glob = vec!["wide.txt".into()]);
    let early = &out.lines[0];
    assert!(early.cut);
    assert!(early.text.starts_with("needle é") && early.text.ends_with('…'));
    assert_eq!(early.text.chars().count(), 120);
}

#[test]
fn secrets_never_reach_grep() {
    let dir = tree(&[
        (".env", "API_KEY=hunter2\n"),
        ("keys/server.pem", "hunter2\n"),
        ("app.py", "print('hello')\n"),
    ]);
    common::symlink(dir.path(), "notes.txt", ".env");
    let ws = ws(dir.path());
    let searches: [fn(&mut GrepOptions); 5] = [
        |_| {},
        |o| o.literal = true,
        |o| o.output_mode = OutputMode::Count,
        |o| o.glob = vec!["*".into()],
        |o| o.path = Some("keys".into()),
    ];
    for tweak in searches {
        let out = search(&ws, "hunter2", tweak);
        assert_eq!((out.total_matches, out.files.len()), (0, 0));
    }
    // Both files denied; the link is counted, not followed.
    let out = search(&ws, "API_KEY", |_| {});
    assert_eq!(out.total_matches, 0);
    assert_eq!((out.skipped.denied, out.skipped.symlink), (2, 1));
    // Named explicitly, a denied file is refused, and so is a link to one.
    for path in [".env", "keys/server.pem", "notes.txt"] {
        let err = try_search(&ws, "hunter2", |o| o.path = Some(path.into())).expect_err(path);
        assert_eq!(err.kind(), "denied", "{path}");
        assert!(!err.to_string().contains("hunter2"), "{err}");
    }
}

#[test]
fn the_rules_compose_on_the_rich_tree() {
    let parent = tempfile::tempdir().expect("tempdir");
    let root = rich_tree(parent.path(), true);
    let files = |ws: &Workspace| {
        let mut found = paths(&search(ws, "needle", |_| {}));
        found.dedup();
        found
    };
    let in_git = [
        "README.md",
        "generated/api.py",
        "generated/keep.py",
        "src/app.py",
        "src/lib/mod.rs",
        "src/sub/keep.tmp",
        "src/util.py",
        "src/web/index.ts",
        "text/crlf.txt",
        "text/latin1.txt",
        "text/utf16.txt",
    ];
    let out = search(&ws(&root), "needle", |_| {});
    assert_eq!(files(&ws(&root)), in_git);
    // early.bin and late.bin (whose first 20,000 lines match before its NUL).
    assert_eq!(out.skipped.binary, 2);
    assert_eq!((out.skipped.symlink, out.skipped.outside_root), (4, 0));
    assert_eq!(out.skipped.denied, 2);
    assert!(!out.lines.iter().any(|l| l.text.contains(SECRET)));
    // With ignore files off: everything but the skip set and the denied files.
    let all = files(&ws_with(&root, |o| o.respect_ignore_files = false));
    for path in ["app.log", "generated/junk.py", "scratch/notes.txt"] {
        assert!(all.iter().any(|p| p == path), "{path}");
    }
    assert!(!all.iter().any(|p| p.starts_with("node_modules/")));
    // Outside git the .gitignore files hide nothing; .ignore still hides scratch/.
    let parent = tempfile::tempdir().expect("tempdir");
    let root = rich_tree(parent.path(), false);
    let mut expected: Vec<&str> = in_git.to_vec();
    expected.extend(["app.log", "generated/junk.py", "src/sub/scratch.tmp"]);
    expected.sort_unstable();
    assert_eq!(files(&ws(&root)), expected);
}

#[test]
fn a_path_may_be_a_directory_or_a_file_and_path_errors_are_typed() {
    let dir = tree(&[
        ("src/a.rs", "needle\n"),
        ("src/b.rs", "needle\n"),
        ("src/deep/c.rs", "needle\n"),
        ("top.rs", "needle\n"),
    ]);
    let ws = ws(dir.path());
    let out = search(&ws, "needle", |o| o.path = Some("src/a.rs".into()));
    assert_eq!(rendered(&out), ["src/a.rs:1:needle"]);
    let out = search(&ws, "needle", |o| o.path = Some("src".into()));
    assert_eq!(paths(&out), ["src/a.rs", "src/b.rs", "src/deep/c.rs"]);
    for (path, kind) in [("missing.rs", "not_found"), ("../x", "outside_root")] {
        let err = try_search(&ws, "needle", |o| o.path = Some(path.into())).expect_err(path);
        assert_eq!(err.kind(), kind);
    }
}

#[test]
fn output_is_identical_across_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..200 {
        write(
            dir.path(),
            &format!("p{}/q{}/f{i}.txt", i % 7, i % 3),
            format!("a\nneedle {i}\nb\nneedle again\n"),
        );
    }
    let ws = ws(dir.path());
    let first = rendered(&search(&ws, "needle", |o| o.set_context(1)));
    assert_eq!(first.len(), 200 * 4);
    let page = |o: &mut GrepOptions| {
        o.offset = 234;
        o.limit = Some(20);
    };
    let paged = rendered(&search(&ws, "needle", page));
    assert_eq!(paged.len(), 20);
    for _ in 0..10 {
        assert_eq!(
            rendered(&search(&ws, "needle", |o| o.set_context(1))),
            first
        );
        assert_eq!(rendered(&search(&ws, "needle", page)), paged);
    }
}

#[test]
fn an_expired_time_budget_is_marked_incomplete() {
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..300 {
        write(dir.path(), &format!("d{}/f{i}.txt", i % 10), "needle\n");
    }
    let expired = ws_with(dir.path(), |o| o.time_budget = Duration::from_nanos(1));
    let out = search(&expired, "needle", |_| {});
    assert!(out.incomplete);
    assert!(out.total_matches < 300);
    let complete = search(&ws(dir.path()), "needle", |o| o.limit = Some(10));
    assert!(!complete.incomplete);
    assert_eq!(complete.total_matches, 300);
}

#[test]
fn context_beyond_its_maximum_is_an_invalid_argument() {
    let dir = tree(&[("a.txt", "x\nneedle\ny\n")]);
    let ws = ws(dir.path());
    let most = search(&ws, "needle", |o| o.set_context(MAX_CONTEXT));
    assert_eq!(
        rendered(&most),
        ["a.txt-1-x", "a.txt:2:needle", "a.txt-3-y"]
    );
    let sides: [fn(&mut GrepOptions); 2] = [
        |o| o.before_context = MAX_CONTEXT + 1,
        |o| o.after_context = MAX_CONTEXT + 1,
    ];
    for side in sides {
        let err = try_search(&ws, "needle", side).expect_err("too much context");
        assert_eq!(err.kind(), "invalid_argument", "{err}");
    }
}

#[test]
fn files_over_the_size_limit_are_counted_too_large() {
    let dir = tree(&[("small.txt", "needle\n")]);
    // A sparse file: large on paper, nothing written.
    let big = std::fs::File::create(dir.path().join("big.log")).expect("create");
    big.set_len(ripsight_core::grep::MAX_FILE_BYTES + 1)
        .expect("set_len");
    let out = search(&ws(dir.path()), "needle", |_| {});
    assert_eq!(out.total_matches, 1);
    assert_eq!(out.skipped.too_large, 1);
}

#[test]
fn one_workspace_reusing_compiled_patterns_answers_as_fresh_workspaces_do() {
    let dir = tree(&[
        ("a.txt", "Foo bar\nfoo.bar\nFOO\nfoo\nbar\n"),
        ("b.py", "x = foo(1)\ny = Foo\n"),
        ("c.md", "start\nfoo\nbar end\n"),
    ]);
    let cases: Vec<(&str, bool, bool, bool, Option<&str>)> = vec![
        ("foo", false, false, false, None),
        ("foo", false, true, false, None),
        ("foo.bar", false, false, false, None),
        ("foo.bar", true, false, false, None),
        ("foo\nbar", false, false, true, None),
        ("(?s)foo.bar", false, false, true, None),
        ("foo", false, false, false, Some("*.py")),
        ("foo", false, false, false, Some("*.txt")),
        ("FOO", true, true, false, Some("!*.md")),
    ];
    let shared = ws(dir.path());
    // Twice through, so the second pass answers from the caches.
    for _ in 0..2 {
        for (pattern, literal, case_insensitive, multiline, glob) in &cases {
            let tweak = |o: &mut GrepOptions| {
                o.literal = *literal;
                o.case_insensitive = *case_insensitive;
                o.multiline = *multiline;
                o.glob = glob.iter().map(|g| g.to_string()).collect();
            };
            let reused = search(&shared, pattern, tweak);
            let fresh = search(&ws(dir.path()), pattern, tweak);
            assert_eq!(rendered(&reused), rendered(&fresh), "{pattern:?}");
            assert_eq!(
                (reused.total_matches, reused.total_files),
                (fresh.total_matches, fresh.total_files),
                "{pattern:?}"
            );
        }
    }
    // The cached flags really differ: literal vs regex, case, multiline.
    let count = |p: &str, t: fn(&mut GrepOptions)| search(&shared, p, t).total_matches;
    assert_eq!(count("foo.bar", |_| {}), 1);
    assert_eq!(count("foo", |_| {}), 4);
    assert_eq!(count("foo", |o| o.case_insensitive = true), 7);
    assert_eq!(count("foo.bar", |o| o.literal = true), 1);
    assert_eq!(count("o.b", |o| o.literal = true), 1);
    assert_eq!(count("o.b", |_| {}), 2);
    assert_eq!(count("foo\nbar", |o| o.multiline = true), 4);
}

/// Files around the 64 KiB whole-file read: one byte under, at, and over the boundary, each
/// ending in a match and then a NUL byte (binary, skipped) or without it (searched to the end).
#[test]
fn files_around_the_whole_read_boundary_are_searched_to_the_end() {
    const BOUNDARY: usize = 64 * 1024;
    let make = |size: usize, nul: bool| {
        let tail: &[u8] = if nul { b"needle\n\0" } else { b"needle\n" };
        let mut body = b"filler line\n".repeat(size / 12 + 1);
        body.truncate(size - tail.len() - 1);
        body.push(b'\n');
        body.extend_from_slice(tail);
        assert_eq!(body.len(), size);
        body
    };
    let mut files = Vec::new();
    for size in [
        BOUNDARY - 1,
        BOUNDARY,
        BOUNDARY + 1,
        BOUNDARY + 2,
        3 * BOUNDARY,
    ] {
        files.push((format!("text{size}.txt"), make(size, false)));
        files.push((format!("nul{size}.txt"), make(size, true)));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, content) in &files {
        write(dir.path(), name, content);
    }
    let out = search(&ws(dir.path()), "needle", |_| {});
    let mut shown: Vec<&str> = out
        .lines
        .iter()
        .map(|l| l.path.to_str().expect("UTF-8"))
        .collect();
    shown.sort_unstable();
    assert_eq!(
        shown,
        [
            "text196608.txt",
            "text65535.txt",
            "text65536.txt",
            "text65537.txt",
            "text65538.txt"
        ]
    );
    assert_eq!(out.skipped.binary, 5);
    for line in &out.lines {
        let lines = std::fs::read(dir.path().join(&line.path))
            .expect("read")
            .iter()
            .filter(|b| **b == b'\n')
            .count() as u64;
        assert_eq!(line.line, lines, "{:?}", line.path);
    }
}

#[test]
fn a_line_longer_than_the_searcher_holds_is_counted_not_buffered() {
    let dir = tree(&[("small.txt", "needle\n")]);
    let long = vec![b'x'; ripsight_core::grep::MAX_LINE_BYTES + 1024];
    write(dir.path(), "one-line.min.js", &long);
    let out = search(&ws(dir.path()), "needle", |_| {});
    assert_eq!(out.total_matches, 1);
    assert_eq!(out.skipped.line_too_long, 1);
    assert_eq!(out.files_searched, 1);
    // Multiline holds whole files: one over the limit is too large.
    let out = search(&ws(dir.path()), "needle", |o| o.multiline = true);
    assert_eq!((out.total_matches, out.skipped.too_large), (1, 1));
}

#[test]
fn a_cancelled_token_stops_the_call() {
    use ripsight_core::glob::{GlobOptions, glob};
    use ripsight_core::read::{ReadOptions, read_file};
    let dir = tree(&[("a.txt", "needle\n")]);
    let ws = ws(dir.path());
    let cancel = ripsight_core::budget::CancelToken::new();
    cancel.cancel();
    let kinds = [
        grep(
            &ws,
            &GrepOptions {
                pattern: "needle".into(),
                cancel: cancel.clone(),
                ..GrepOptions::default()
            },
        )
        .map(|_| ()),
        glob(
            &ws,
            &GlobOptions {
                pattern: "*".into(),
                cancel: cancel.clone(),
                ..GlobOptions::default()
            },
        )
        .map(|_| ()),
        read_file(
            &ws,
            &ReadOptions {
                path: "a.txt".into(),
                cancel,
                ..ReadOptions::default()
            },
        )
        .map(|_| ()),
    ]
    .map(|result| result.err().map(|e| e.kind()));
    assert_eq!(kinds, [Some("cancelled"); 3]);
}

#[test]
fn the_budget_is_checked_inside_one_large_file() {
    // One file of 64 MiB in many lines, searched as the call's only file (no walk, whose own
    // check could end the call first): the budget runs out while the searcher is inside it,
    // and the call returns marked incomplete with what it found so far.
    let dir = tempfile::tempdir().expect("tempdir");
    let line = format!("{}\n", "abcdefghij".repeat(10));
    let mut body = String::from("needle\n");
    body.push_str(&line.repeat(64 * 1024 * 1024 / line.len()));
    write(dir.path(), "big.txt", body.as_bytes());
    let ws = ws_with(dir.path(), |o| o.time_budget = Duration::from_millis(5));
    // No literal to skip ahead with: every byte goes through the regex engine.
    let out = search(&ws, r"needle|[a-j]{5}[k-z]", |o| {
        o.path = Some("big.txt".into())
    });
    assert!(out.incomplete, "{} ms", out.elapsed_ms);
    assert_eq!(out.total_matches, 1);
    assert!(out.elapsed_ms < 5.0 + 500.0, "{} ms", out.elapsed_ms);
}
