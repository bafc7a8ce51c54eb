//! Integration tests of `grep` on temporary trees.

mod common;

use std::path::Path;
use std::time::Duration;

use common::search;
use ripsight_core::error::PatternIssue;
use ripsight_core::grep::{GrepOptions, GrepOutput, OutputMode, grep};
use ripsight_core::workspace::{Workspace, WorkspaceOptions};

fn write(root: &Path, relative: &str, content: &[u8]) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, content).expect("write");
}

fn tree(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, content) in files {
        write(dir.path(), name, content);
    }
    dir
}

fn ws(root: &Path) -> Workspace {
    Workspace::new(root, WorkspaceOptions::default()).expect("workspace")
}

/// `path:line:text` for matches, `path-line-text` for context lines.
fn rendered(out: &GrepOutput) -> Vec<String> {
    out.lines
        .iter()
        .map(|l| {
            let sep = if l.is_match { ':' } else { '-' };
            format!("{}{sep}{}{sep}{}", l.path.to_string_lossy(), l.line, l.text)
        })
        .collect()
}

#[test]
fn content_is_ordered_by_path_then_line_with_exact_totals() {
    let dir = tree(&[
        ("b.rs", b"fn b() {}\nlet x = 1;\nfn c() {}\n"),
        ("a/z.rs", b"// fn in a comment\n"),
        ("a.txt", b"nothing here\n"),
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
fn literal_case_insensitive_and_invalid_regex() {
    let dir = tree(&[("a.txt", b"call foo(1)\nFOO(2)\nfoo\n")]);
    let ws = ws(dir.path());
    assert_eq!(search(&ws, "foo(", |o| o.literal = true).total_matches, 1);
    assert_eq!(
        search(&ws, "foo", |o| o.case_insensitive = true).total_matches,
        3
    );
    assert_eq!(search(&ws, r"fo+\(\d\)", |_| {}).total_matches, 1);
    let err = grep(
        &ws,
        &GrepOptions {
            pattern: "foo(".into(),
            ..GrepOptions::default()
        },
    )
    .expect_err("invalid regex");
    assert_eq!(err.kind(), "invalid_pattern");
    let is = |err: &ripsight_core::error::CoreError, want| matches!(err, ripsight_core::error::CoreError::InvalidPattern { issue, .. } if *issue == want);
    assert!(is(&err, PatternIssue::Regex), "{err:?}");
    let err = grep(
        &ws,
        &GrepOptions {
            pattern: r"foo\nbar".into(),
            ..GrepOptions::default()
        },
    )
    .expect_err("newline without multiline");
    assert!(is(&err, PatternIssue::LineBreak), "{err:?}");
    // The engine states facts; advice (literal=true, multiline=true) is the Python layer's.
    assert!(!err.to_string().contains("multiline=true"), "{err}");
}

#[test]
fn glob_filter_follows_rg_g_and_only_narrows() {
    let dir = tree(&[
        ("src/a.py", b"hit\n"),
        ("src/deep/b.py", b"hit\n"),
        ("src/c.rs", b"hit\n"),
        ("gen/d.py", b"hit\n"),
        (".env", b"hit\n"),
    ]);
    std::fs::create_dir(dir.path().join(".git")).expect("git dir");
    write(dir.path(), ".gitignore", b"gen/\n");
    let ws = ws(dir.path());
    let files = |glob: &str| {
        let out = search(&ws, "hit", |o| o.glob = vec![glob.into()]);
        out.lines.into_iter().map(|l| l.path).collect::<Vec<_>>()
    };
    assert_eq!(files("*.py"), ["src/a.py", "src/deep/b.py"]);
    assert_eq!(files("src/*.py"), ["src/a.py"]);
    assert_eq!(files("src/**/*.py"), ["src/a.py", "src/deep/b.py"]);
    assert_eq!(files("!*.py"), ["src/c.rs"]);
    // Neither the ignored gen/ nor the denied .env come back through the filter.
    assert!(files("gen/*.py").is_empty());
    assert!(files(".env").is_empty());
}

#[test]
fn several_globs_follow_rg_g_order_negation_and_anchoring() {
    // Each expectation is what `rg -l hit -g ...` lists on this tree (checked with rg 14).
    let dir = tree(&[
        ("src/a/f.rs", b"hit\n"),
        ("src/b.rs", b"hit\n"),
        ("d.bar/f", b"hit\n"),
        ("x/asdf/g", b"hit\n"),
        ("asdf/h", b"hit\n"),
        ("foo/i", b"hit\n"),
        ("top.bar", b"hit\n"),
        ("foo.txt", b"hit\n"),
        ("x/foo", b"hit\n"),
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
    let body = (1..=12).map(|i| format!("line {i}\n")).collect::<String>();
    let dir = tree(&[("f.txt", body.as_bytes())]);
    let out = search(&ws(dir.path()), "line (4|6)$", |o| o.set_context(2));
    assert_eq!(
        rendered(&out),
        [
            "f.txt-2-line 2",
            "f.txt-3-line 3",
            "f.txt:4:line 4",
            "f.txt-5-line 5",
            "f.txt:6:line 6",
            "f.txt-7-line 7",
            "f.txt-8-line 8",
        ]
    );
    assert_eq!(out.total_matches, 2);
}

#[test]
fn paging_in_content_mode_counts_matching_lines() {
    let dir = tree(&[
        ("a.txt", b"m1\nx\nm2\n"),
        ("b.txt", b"m3\nm4\n"),
        ("c.txt", b"x\nm5\n"),
    ]);
    let ws = ws(dir.path());
    let page = |offset, limit| {
        grep(
            &ws,
            &GrepOptions {
                pattern: "m".into(),
                offset,
                limit: Some(limit),
                before_context: 1,
                after_context: 1,
                ..GrepOptions::default()
            },
        )
        .expect("grep")
    };
    let out = page(1, 2);
    let matches: Vec<_> = out
        .lines
        .iter()
        .filter(|l| l.is_match)
        .map(|l| l.text.clone())
        .collect();
    assert_eq!(matches, ["m2", "m3"]);
    // a.txt line 2 is context of m2; b.txt line 2 (m4) is a withheld match, not shown as context.
    assert_eq!(rendered(&out), ["a.txt-2-x", "a.txt:3:m2", "b.txt:1:m3"]);
    assert_eq!(
        (out.total_matches, out.total_files, out.withheld, out.offset),
        (5, 3, 2, 1)
    );
}

#[test]
fn text_bound_gives_the_same_page_as_an_unbounded_search() {
    // Many files with many matches, searched by several threads: the page of a bounded search
    // must equal the same slice of the complete result.
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..120 {
        let body: String = (0..(i % 7 + 1))
            .map(|j| format!("hit {i} {j}\nmiss\n"))
            .collect();
        write(
            dir.path(),
            &format!("d{}/f{i:03}.txt", i % 5),
            body.as_bytes(),
        );
    }
    for threads in [1, 2, 4] {
        let ws = Workspace::new(
            dir.path(),
            WorkspaceOptions {
                threads,
                ..WorkspaceOptions::default()
            },
        )
        .expect("workspace");
        let all = rendered(&search(&ws, "hit", |_| {}));
        for (offset, limit) in [(0, 5), (3, 10), (100, 40), (300, 50)] {
            let out = search(&ws, "hit", |o| {
                o.offset = offset;
                o.limit = Some(limit);
            });
            let end = (offset + limit).min(all.len());
            let expected = if offset < all.len() {
                &all[offset..end]
            } else {
                &[][..]
            };
            assert_eq!(
                rendered(&out),
                expected,
                "threads {threads} offset {offset}"
            );
            assert_eq!(out.total_matches as usize, all.len());
        }
        // The file modes page over files with the same bound.
        let counts = |offset, limit| {
            let out = search(&ws, "hit", |o| {
                o.output_mode = OutputMode::Count;
                o.offset = offset;
                o.limit = limit;
            });
            (out.files, out.total_files, out.withheld)
        };
        let (every, total_files, _) = counts(0, None);
        assert_eq!(total_files, 120);
        for (offset, limit) in [(0, 7), (50, 25), (115, 10), (200, 5)] {
            let (page, total, withheld) = counts(offset, Some(limit));
            let end = (offset + limit).min(every.len());
            let expected = if offset < every.len() {
                &every[offset..end]
            } else {
                &[][..]
            };
            assert_eq!(page, expected, "threads {threads} offset {offset}");
            assert_eq!(total, 120);
            assert_eq!(
                withheld as usize,
                every.len().saturating_sub(offset + limit)
            );
        }
    }
}

#[test]
fn output_modes_files_and_counts() {
    let dir = tree(&[("a.txt", b"x\nx\n"), ("b.txt", b"y\n"), ("c.txt", b"x\n")]);
    let ws = ws(dir.path());
    let files = search(&ws, "x", |o| o.output_mode = OutputMode::FilesWithMatches);
    assert!(files.lines.is_empty());
    let listed: Vec<_> = files
        .files
        .iter()
        .map(|f| (f.path.to_str().expect("UTF-8"), f.count))
        .collect();
    assert_eq!(listed, [("a.txt", 2), ("c.txt", 1)]);
    let counts = search(&ws, "x", |o| {
        o.output_mode = OutputMode::Count;
        o.limit = Some(1);
    });
    assert_eq!(counts.files.len(), 1);
    assert_eq!(
        (counts.total_files, counts.total_matches, counts.withheld),
        (2, 3, 1)
    );
}

#[test]
fn multiline_matches_span_lines() {
    let dir = tree(&[("a.rs", b"fn main() {\n    body();\n}\nfn other() {}\n")]);
    let out = search(&ws(dir.path()), r"fn main\(\) \{\n\s+body", |o| {
        o.multiline = true
    });
    assert_eq!(rendered(&out), ["a.rs:1:fn main() {", "a.rs:2:    body();"]);
    assert_eq!(out.total_matches, 2);
}

#[test]
fn binary_files_are_skipped_entirely_and_counted() {
    let mut late = b"needle early\n".repeat(20_000);
    late.extend_from_slice(b"\0tail\n");
    let dir = tree(&[
        ("early.bin", b"\0needle\n"),
        ("late.bin", &late),
        ("text.txt", b"needle\n"),
    ]);
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
    let dir = tree(&[
        ("u16.txt", &utf16),
        ("bad.txt", b"caf\xe9 needle \xff\xfe\n"),
        ("crlf.txt", b"one\r\nneedle;\r\n"),
    ]);
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
fn long_line_with_late_match_shows_a_window() {
    let mut line = "a".repeat(100_000);
    line.insert_str(90_000, "NEEDLE");
    line.push('\n');
    let dir = tree(&[("long.txt", line.as_bytes())]);
    let out = search(&ws(dir.path()), "NEEDLE", |_| {});
    let shown = &out.lines[0];
    assert!(shown.cut);
    assert!(shown.text.contains("NEEDLE"));
    assert!(shown.text.starts_with('…') && shown.text.ends_with('…'));
    assert!(shown.text.chars().count() <= 120);
}

#[test]
fn secrets_never_reach_grep() {
    let dir = tree(&[
        (".env", b"API_KEY=hunter2\n"),
        ("keys/server.pem", b"hunter2\n"),
        ("app.py", b"print('hello')\n"),
    ]);
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join(".env"), dir.path().join("notes.txt"))
        .expect("link");
    let ws = ws(dir.path());
    let out = search(&ws, "hunter2", |_| {});
    assert_eq!(out.total_matches, 0);
    assert!(out.skipped.denied >= 2);
    let err = grep(
        &ws,
        &GrepOptions {
            pattern: "hunter2".into(),
            path: Some(".env".into()),
            ..GrepOptions::default()
        },
    )
    .expect_err("denied");
    assert_eq!(err.kind(), "denied");
}

#[test]
fn single_file_path_and_path_errors() {
    let dir = tree(&[("src/a.rs", b"needle\n"), ("src/b.rs", b"needle\n")]);
    let ws = ws(dir.path());
    let out = search(&ws, "needle", |o| o.path = Some("src/a.rs".into()));
    assert_eq!(rendered(&out), ["src/a.rs:1:needle"]);
    for (path, kind) in [("missing.rs", "not_found"), ("../x", "outside_root")] {
        let err = grep(
            &ws,
            &GrepOptions {
                pattern: "needle".into(),
                path: Some(path.into()),
                ..GrepOptions::default()
            },
        )
        .expect_err("bad path");
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
            format!("a\nneedle {i}\nb\nneedle again\n").as_bytes(),
        );
    }
    let ws = ws(dir.path());
    let first = rendered(&search(&ws, "needle", |o| o.set_context(1)));
    for _ in 0..10 {
        assert_eq!(
            rendered(&search(&ws, "needle", |o| o.set_context(1))),
            first
        );
    }
    assert_eq!(first.len(), 200 * 4);
}

#[test]
fn expired_time_budget_is_marked_incomplete() {
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..300 {
        write(dir.path(), &format!("d{}/f{i}.txt", i % 10), b"needle\n");
    }
    let ws = Workspace::new(
        dir.path(),
        WorkspaceOptions {
            time_budget: Duration::from_nanos(1),
            ..WorkspaceOptions::default()
        },
    )
    .expect("workspace");
    let out = search(&ws, "needle", |_| {});
    assert!(out.incomplete);
    assert!(out.total_matches < 300);
}

#[test]
fn files_over_the_size_limit_are_counted_too_large() {
    let dir = tree(&[("small.txt", b"needle\n")]);
    // A sparse file: large on paper, nothing written.
    let big = std::fs::File::create(dir.path().join("big.log")).expect("create");
    big.set_len(ripsight_core::grep::MAX_FILE_BYTES + 1)
        .expect("set_len");
    let out = search(&ws(dir.path()), "needle", |_| {});
    assert_eq!(out.total_matches, 1);
    assert_eq!(out.skipped.too_large, 1);
}

#[cfg(unix)]
#[test]
fn fifo_is_never_opened() {
    let dir = tree(&[("a.txt", b"needle\n")]);
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let ws = ws(dir.path());
    let out = search(&ws, "needle", |_| {});
    assert_eq!(out.total_matches, 1);
    assert_eq!(out.skipped.special, 1);
    let err = grep(
        &ws,
        &GrepOptions {
            pattern: "needle".into(),
            path: Some("pipe".into()),
            ..GrepOptions::default()
        },
    )
    .expect_err("special");
    assert_eq!(err.kind(), "special_file");
}

#[test]
fn one_workspace_reusing_compiled_patterns_answers_as_fresh_workspaces_do() {
    let dir = tree(&[
        ("a.txt", b"Foo bar\nfoo.bar\nFOO\nfoo\nbar\n"),
        ("b.py", b"x = foo(1)\ny = Foo\n"),
        ("c.md", b"start\nfoo\nbar end\n"),
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

/// The page `offset .. offset + limit` of matches, with their context lines, as the complete
/// result (`all`, searched with the same context) shows them: context lines within `context`
/// lines of a selected match of the same file, never a withheld match.
fn page_of(all: &GrepOutput, offset: usize, limit: usize, context: u64) -> Vec<String> {
    let mut index = 0usize;
    let mut selected: Vec<(&std::ffi::OsStr, u64)> = Vec::new();
    for line in &all.lines {
        if line.is_match {
            if index >= offset && index < offset + limit {
                selected.push((&line.path, line.line));
            }
            index += 1;
        }
    }
    let near = |path: &std::ffi::OsStr, n: u64| {
        selected
            .iter()
            .any(|(p, m)| *p == path && m.saturating_sub(context) <= n && n <= m + context)
    };
    let mut index = 0usize;
    let mut out = Vec::new();
    for line in &all.lines {
        let show = if line.is_match {
            index += 1;
            index > offset && index <= offset + limit
        } else {
            near(&line.path, line.line)
        };
        if show {
            let sep = if line.is_match { ':' } else { '-' };
            out.push(format!(
                "{}{sep}{}{sep}{}",
                line.path.to_string_lossy(),
                line.line,
                line.text
            ));
        }
    }
    out
}

#[test]
fn pages_far_past_the_start_fetch_their_lines_after_the_search() {
    // More matches than a page keeps text for during the search: pages beyond
    // TEXT_IN_PASS_MAX_ENTRIES keep counts only and search their files again.
    let far = ripsight_core::grep::TEXT_IN_PASS_MAX_ENTRIES as usize;
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..40 {
        // Matches next to each other and apart: a withheld match inside the context of the
        // page's last match, with context lines after it, must be handled as in the search.
        let body: String = (0..(far / 10 + i))
            .map(|j| match j % 3 {
                0 => format!("hit {i} {j}\nmiss {j}\n"),
                1 => format!("hit {i} {j}\nhit {i} {j} again\nmiss {j}\nmiss\n"),
                _ => format!("hit {i} {j}\nmiss\nmiss\nmiss\nmiss {j}\n"),
            })
            .collect();
        write(
            dir.path(),
            &format!("d{}/f{i:02}.txt", i % 3),
            body.as_bytes(),
        );
    }
    for threads in [1, 2] {
        let ws = Workspace::new(
            dir.path(),
            WorkspaceOptions {
                threads,
                ..WorkspaceOptions::default()
            },
        )
        .expect("workspace");
        for context in [0u64, 1, 2] {
            let all = search(&ws, "hit", |o| o.set_context(context as usize));
            let total = all.total_matches as usize;
            assert!(total > 3 * far);
            let mut pages = vec![
                (far - 50, 50),
                (far - 20, 50),
                (far + 7, 13),
                (2 * far + 333, 500),
                (total - 5, 50),
                (total + 10, 5),
            ];
            // Every page end position within a few files' worth of lines.
            pages.extend((0..40).map(|k| (far + 100 + 7 * k, 1 + k % 4)));
            for (offset, limit) in pages {
                let out = search(&ws, "hit", |o| {
                    o.set_context(context as usize);
                    o.offset = offset;
                    o.limit = Some(limit);
                });
                assert_eq!(
                    rendered(&out),
                    page_of(&all, offset, limit, context),
                    "threads {threads} context {context} offset {offset}"
                );
                assert_eq!(out.total_matches as usize, total);
                assert_eq!(
                    out.withheld as usize,
                    total.saturating_sub(offset + limit),
                    "offset {offset}"
                );
                assert!(!out.incomplete);
            }
        }
    }
}

#[test]
fn a_line_longer_than_the_searcher_holds_is_counted_not_buffered() {
    let dir = tree(&[("small.txt", b"needle\n")]);
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
    let dir = tree(&[("a.txt", b"needle\n")]);
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
    let ws = Workspace::new(
        dir.path(),
        WorkspaceOptions {
            time_budget: Duration::from_millis(5),
            ..WorkspaceOptions::default()
        },
    )
    .expect("workspace");
    // No literal to skip ahead with: every byte goes through the regex engine.
    let out = search(&ws, r"needle|[a-j]{5}[k-z]", |o| {
        o.path = Some("big.txt".into())
    });
    assert!(out.incomplete, "{} ms", out.elapsed_ms);
    assert_eq!(out.total_matches, 1);
    assert!(out.elapsed_ms < 5.0 + 500.0, "{} ms", out.elapsed_ms);
}
