//! Private-key blocks inside ordinary files are withheld from grep and read_file (SPEC §2.5):
//! adversarial placements (text, code, README, CRLF, UTF-16, a block cut at the end of the file,
//! past the head of a large file, across pages), every output mode, context and paging.

mod common;

use common::{read, search, write, ws};
use ripsight_core::grep::{GrepOutput, OutputMode, TEXT_IN_PASS_MAX_ENTRIES};

/// A key whose body lines all hold `MII` and `KEYBODY`, so a search for either shows whether
/// any of its lines leaked.
fn key(label: &str, eol: &str) -> String {
    [
        format!("-----BEGIN {label}-----"),
        "MIIEowIBAAKCAQEAKEYBODY1".into(),
        "MIIKEYBODY2+/abc==".into(),
        format!("-----END {label}-----"),
    ]
    .join(eol)
        + eol
}

fn shown(out: &GrepOutput) -> Vec<String> {
    out.lines
        .iter()
        .map(|l| format!("{}:{}:{}", l.path.to_string_lossy(), l.line, l.text))
        .collect()
}

fn tree_with_keys() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "notes.txt",
        format!("before\n{}after\n", key("RSA PRIVATE KEY", "\n")),
    );
    write(
        root,
        "app/settings.py",
        format!(
            "SECRET = \"\"\"\n{}\"\"\"\nDEBUG = True\n",
            key("PRIVATE KEY", "\n")
        ),
    );
    write(
        root,
        "README.md",
        format!(
            "# Setup\n\n    {}Done.\n",
            key("OPENSSH PRIVATE KEY", "\n    ")
        ),
    );
    write(
        root,
        "win.txt",
        format!("crlf\r\n{}tail\r\n", key("EC PRIVATE KEY", "\r\n")),
    );
    // No END line: withheld to the end of the file.
    write(
        root,
        "cut.txt",
        "head\n-----BEGIN DSA PRIVATE KEY-----\nMIIKEYBODY3\nmore\n",
    );
    // One JSON line with the whole key.
    write(
        root,
        "sa.json",
        "{\n\"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIKEYBODY4\\n-----END PRIVATE KEY-----\\n\",\n\"id\": 1\n}\n",
    );
    let mut utf16 = vec![0xFF, 0xFE];
    for unit in format!("utf16\n{}", key("ENCRYPTED PRIVATE KEY", "\n")).encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    write(root, "wide.txt", utf16);
    dir
}

#[test]
fn no_line_of_a_key_is_matched_counted_or_shown() {
    let dir = tree_with_keys();
    let ws = ws(dir.path());
    for pattern in ["MII", "KEYBODY", "PRIVATE KEY", "BEGIN", "-----"] {
        for mode in [
            OutputMode::Content,
            OutputMode::FilesWithMatches,
            OutputMode::Count,
        ] {
            for multiline in [false, true] {
                let out = search(&ws, pattern, |o| {
                    o.output_mode = mode;
                    o.multiline = multiline;
                });
                assert_eq!(
                    (
                        out.total_matches,
                        out.total_files,
                        out.lines.len(),
                        out.files.len()
                    ),
                    (0, 0, 0, 0),
                    "{pattern} {mode:?} multiline={multiline}: {:?}",
                    shown(&out)
                );
                // Nothing matched, and the result still says what was not searched: every
                // block of the seven files, the same counts for every pattern.
                assert_eq!(
                    (
                        out.withheld_key_blocks,
                        out.withheld_key_lines,
                        out.withheld_key_files
                    ),
                    (7, 24, 7),
                    "{pattern} {mode:?} multiline={multiline}"
                );
            }
        }
    }
    let out = search(&ws, "(?s)BEGIN.*?END", |o| o.multiline = true);
    assert_eq!(out.total_matches, 0, "{:?}", shown(&out));
}

#[test]
fn lines_around_a_key_are_found_and_the_key_is_counted() {
    let dir = tree_with_keys();
    let ws = ws(dir.path());
    let out = search(&ws, ".", |o| o.glob = vec!["notes.txt".into()]);
    assert_eq!(shown(&out), ["notes.txt:1:before", "notes.txt:6:after"]);
    assert_eq!((out.withheld_key_blocks, out.withheld_key_lines), (1, 4));
    let out = search(&ws, ".", |o| o.glob = vec!["win.txt".into()]);
    assert_eq!(shown(&out), ["win.txt:1:crlf", "win.txt:6:tail"]);
    let out = search(&ws, ".", |o| o.glob = vec!["cut.txt".into()]);
    assert_eq!(shown(&out), ["cut.txt:1:head"]);
    assert_eq!((out.withheld_key_blocks, out.withheld_key_lines), (1, 3));
    let out = search(&ws, ".", |o| o.glob = vec!["sa.json".into()]);
    assert_eq!(
        shown(&out),
        ["sa.json:1:{", "sa.json:3:\"id\": 1", "sa.json:4:}"]
    );
    let out = search(&ws, ".", |o| o.glob = vec!["wide.txt".into()]);
    assert_eq!(shown(&out), ["wide.txt:1:utf16"]);
    let out = search(&ws, ".", |o| o.glob = vec!["README.md".into()]);
    assert_eq!(
        shown(&out),
        ["README.md:1:# Setup", "README.md:7:    Done."]
    );
}

#[test]
fn context_lines_inside_a_key_are_not_shown() {
    let dir = tree_with_keys();
    let ws = ws(dir.path());
    let out = search(&ws, "^(before|after)$", |o| o.set_context(3));
    assert_eq!(shown(&out), ["notes.txt:1:before", "notes.txt:6:after"]);
    let out = search(&ws, "DEBUG|SECRET", |o| o.set_context(2));
    assert_eq!(
        shown(&out),
        [
            "app/settings.py:1:SECRET = \"\"\"",
            "app/settings.py:6:\"\"\"",
            "app/settings.py:7:DEBUG = True",
        ]
    );
}

#[test]
fn a_key_past_the_head_of_a_large_file_is_withheld() {
    let dir = tempfile::tempdir().expect("tempdir");
    let filler = "filler line of text to push the key past the first read\n".repeat(3000);
    let text = format!("{filler}{}{filler}", key("RSA PRIVATE KEY", "\n"));
    assert!(text.len() > 256 * 1024);
    write(dir.path(), "big.txt", &text);
    let ws = ws(dir.path());
    let out = search(&ws, "MII|KEYBODY|BEGIN", |_| {});
    assert_eq!(out.total_matches, 0, "{:?}", shown(&out));
    let out = search(&ws, "filler", |o| o.output_mode = OutputMode::Count);
    assert_eq!(out.total_matches, 6000);
    assert_eq!((out.withheld_key_blocks, out.withheld_key_lines), (1, 4));
    let out = search(&ws, "^", |o| {
        o.offset = 2998;
        o.limit = Some(4);
        o.set_context(1);
    });
    assert_eq!(
        out.lines.iter().map(|l| l.line).collect::<Vec<_>>(),
        [2999, 3000, 3005, 3006]
    );
}

#[test]
fn pages_fetched_after_the_search_withhold_keys_too() {
    // Past TEXT_IN_PASS_MAX_ENTRIES the page's lines are fetched by a second search.
    let dir = tempfile::tempdir().expect("tempdir");
    let many = TEXT_IN_PASS_MAX_ENTRIES as usize + 10;
    let text = format!(
        "{}ctx\n{}ctx2\nx\n",
        "x\n".repeat(many),
        key("PRIVATE KEY", "\n")
    );
    write(dir.path(), "k.txt", &text);
    let ws = ws(dir.path());
    let out = search(&ws, "^x$|MII", |o| {
        o.offset = many - 1;
        o.limit = Some(3);
        o.set_context(2);
    });
    assert_eq!(out.total_matches, many as u64 + 1);
    let lines: Vec<_> = out
        .lines
        .iter()
        .map(|l| (l.line, l.text.as_str()))
        .collect();
    let last = many as u64;
    assert_eq!(
        lines,
        [
            (last, "x"),
            (last + 1, "ctx"),
            (last + 6, "ctx2"),
            (last + 7, "x")
        ]
    );
}

#[test]
fn read_withholds_the_key_lines_and_counts_them() {
    let dir = tree_with_keys();
    let ws = ws(dir.path());
    for (path, first, last) in [
        ("notes.txt", 2, 5),
        ("win.txt", 2, 5),
        ("cut.txt", 2, 4),
        ("sa.json", 2, 2),
        ("wide.txt", 2, 5),
        ("app/settings.py", 2, 5),
    ] {
        let out = read(&ws, path, 1, 100);
        for line in &out.lines {
            if line.number >= first && line.number <= last {
                assert_eq!(line.text, "", "{path}:{}", line.number);
            }
            assert!(!line.text.contains("KEYBODY") && !line.text.contains("BEGIN"));
        }
        assert_eq!(
            out.withheld_key_lines,
            (first..=last).collect::<Vec<_>>(),
            "{path}"
        );
    }
    let plain = read(&ws, "app/settings.py", 7, 1);
    assert!(plain.withheld_key_lines.is_empty());
    assert_eq!(plain.lines[0].text, "DEBUG = True");
}

#[test]
fn read_pages_that_split_a_key_withhold_both_halves() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Line 1 is wide, lines 2-99 short, the key lines 100-103: its BEGIN marker straddles the
    // end of the reader's first 64 KiB chunk.
    let wide = "w".repeat(65_536 - 20 - 1 - 196);
    let text = format!(
        "{wide}\n{}{}tail\n",
        "t\n".repeat(98),
        key("RSA PRIVATE KEY", "\n")
    );
    let at = text.find("PRIVATE KEY").expect("marker");
    assert!(at < 65_536 && at + 11 > 65_536);
    write(dir.path(), "split.txt", &text);
    let ws = ws(dir.path());
    let first = read(&ws, "split.txt", 95, 7);
    assert_eq!(first.withheld_key_lines, [100, 101]);
    assert_eq!(first.next_offset, Some(102));
    let second = read(&ws, "split.txt", 102, 5);
    assert_eq!(second.withheld_key_lines, [102, 103]);
    assert_eq!(second.lines.last().map(|l| l.text.as_str()), Some("tail"));
    assert!(second.lines.iter().all(|l| !l.text.contains("MII")));
}

#[test]
fn key_mode_gives_the_searchers_own_answer_when_no_block_is_found() {
    // "PRIVATE KEY" in prose puts a file in key mode (every line passed to the sink, context
    // picked by the sink); with no block the answer must equal the searcher's own.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = String::new();
    for i in 0..400u32 {
        let word = ["alpha", "beta", "gamma", "delta"][(i * 7 % 11 % 4) as usize];
        text.push_str(&format!("{word} {i}\n"));
        if i == 3 {
            text.push_str("MENTION\n");
        }
    }
    write(
        dir.path(),
        "keyed.txt",
        text.replace("MENTION", "the PRIVATE KEY lives elsewhere"),
    );
    write(
        dir.path(),
        "plain.txt",
        text.replace("MENTION", "the PRIVATE KEX lives elsewhere"),
    );
    let ws = ws(dir.path());
    for (before, after) in [(0, 0), (1, 1), (3, 3), (2, 0), (0, 3), (3, 1)] {
        for (offset, limit) in [(0, None), (0, Some(5)), (7, Some(9)), (90, Some(3))] {
            for pattern in ["alpha|gamma", "beta", "^d"] {
                let run = |glob: &str| {
                    let out = search(&ws, pattern, |o| {
                        o.glob = vec![glob.into()];
                        o.before_context = before;
                        o.after_context = after;
                        o.offset = offset;
                        o.limit = limit;
                    });
                    let lines: Vec<_> = out
                        .lines
                        .iter()
                        .map(|l| (l.line, l.is_match, l.text.replace("KEY", "KEX")))
                        .collect();
                    (
                        lines,
                        out.total_matches,
                        out.next_offset,
                        out.withheld_key_blocks,
                    )
                };
                assert_eq!(
                    run("keyed.txt"),
                    run("plain.txt"),
                    "{pattern} context={before},{after} offset={offset} limit={limit:?}"
                );
            }
        }
    }
}
