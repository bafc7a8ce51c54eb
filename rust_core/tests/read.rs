//! read_file against generated files: ranges, totals, encodings, line endings, binary files,
//! missing-file suggestions, ignore and deny rules, the estimate path above the exact-count
//! limit, and a reference model. FIFOs, sockets and paths that leave the root: tests/boundary.rs.

mod common;

use common::{read, tree, try_read, write, ws, ws_with};
use ripsight_core::error::CoreError;
use ripsight_core::read::{ContentKind, ReadOptions, ReadOutput, read_file};
use ripsight_core::workspace::Workspace;

fn texts(out: &ReadOutput) -> Vec<&str> {
    out.lines.iter().map(|l| l.text.as_str()).collect()
}

/// The reference model: lines split at `\n` with one trailing `\r` stripped, or, in a file with
/// a `\r` and no `\n` (classic Mac; valid for files under 64 KiB, where the engine decides), at
/// `\r`; decoded lossily.
fn model_lines(bytes: &[u8]) -> Vec<String> {
    if bytes.is_empty() {
        return Vec::new();
    }
    let end = if !bytes.contains(&b'\n') && bytes.contains(&b'\r') {
        b'\r'
    } else {
        b'\n'
    };
    let mut parts: Vec<&[u8]> = bytes.split(|&b| b == end).collect();
    if bytes.ends_with(&[end]) {
        parts.pop();
    }
    parts
        .into_iter()
        .map(|p| String::from_utf8_lossy(p.strip_suffix(b"\r").unwrap_or(p)).into_owned())
        .collect()
}

/// A small deterministic generator, so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn ranges_totals_and_next_offset() {
    let dir = tempfile::tempdir().expect("tempdir");
    let body: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
    write(dir.path(), "f.txt", &body);
    let ws = ws(dir.path());

    let out = read(&ws, "f.txt", 1, 400);
    assert_eq!(out.kind, ContentKind::Text);
    assert_eq!((out.path.to_str(), out.offset), (Some("f.txt"), 1));
    assert_eq!(out.lines.len(), 400);
    assert_eq!(out.lines[0].number, 1);
    assert_eq!(out.lines[0].text, "line 1");
    assert_eq!(out.lines[399].text, "line 400");
    assert_eq!(out.total_lines, 1000);
    assert!(!out.total_lines_estimated);
    assert_eq!(out.next_offset, Some(401));
    assert_eq!(out.encoding, "utf-8");
    assert_eq!(out.line_ending, "LF");
    assert_eq!(out.size_bytes, body.len() as u64);

    let out = read(&ws, "f.txt", 990, 400);
    assert_eq!(out.lines.len(), 11);
    assert_eq!(out.lines[0].number, 990);
    assert_eq!(out.lines[10].text, "line 1000");
    assert_eq!(out.next_offset, None);

    let out = read(&ws, "f.txt", 1000, 1);
    assert_eq!(texts(&out), ["line 1000"]);
    assert_eq!(out.next_offset, None);

    let out = read(&ws, "f.txt", 1001, 10);
    assert!(out.lines.is_empty());
    assert_eq!(out.total_lines, 1000);
    assert_eq!(out.next_offset, None);
    let out = read(&ws, "f.txt", 5000, 10);
    assert!(out.lines.is_empty());
    assert_eq!(
        (out.offset, out.total_lines, out.next_offset),
        (5000, 1000, None)
    );

    // Following next_offset pages through every line once.
    let mut seen = Vec::new();
    let mut offset = Some(1);
    while let Some(at) = offset {
        let out = read(&ws, "f.txt", at, 333);
        assert_eq!(out.lines[0].number, at);
        seen.extend(out.lines.iter().map(|l| l.text.clone()));
        offset = out.next_offset;
    }
    assert_eq!(
        seen,
        (1..=1000).map(|i| format!("line {i}")).collect::<Vec<_>>()
    );

    let out = read(&ws, "f.txt", u64::MAX, usize::MAX);
    assert!(out.lines.is_empty());
    assert_eq!(out.total_lines, 1000);
}

#[test]
fn line_count_definition() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases: &[(&[u8], u64, &[&str])] = &[
        (b"a\nb", 2, &["a", "b"]),
        (b"a\nb\n", 2, &["a", "b"]),
        (b"\n", 1, &[""]),
        (b"a\n\n", 2, &["a", ""]),
        (b"\n\nx", 3, &["", "", "x"]),
        (b"no newline at all", 1, &["no newline at all"]),
    ];
    for (i, (bytes, _, _)) in cases.iter().enumerate() {
        write(dir.path(), &format!("c{i}"), bytes);
    }
    let ws = ws(dir.path());
    for (i, (bytes, total, lines)) in cases.iter().enumerate() {
        let out = read(&ws, &format!("c{i}"), 1, 100);
        assert_eq!(out.total_lines, *total, "{bytes:?}");
        assert_eq!(texts(&out), *lines, "{bytes:?}");
        assert_eq!(out.next_offset, None);
    }
    let out = read(&ws, "c5", 1, 100);
    assert_eq!(out.line_ending, "none");
}

#[test]
fn long_lines_are_cut_with_their_length() {
    let dir = tempfile::tempdir().expect("tempdir");
    let long = "x".repeat(1234);
    let wide = "中".repeat(700);
    // A line longer than the 64 KiB read buffer, ending in CRLF exactly across the buffer edge.
    let huge = "é".repeat(100_000);
    let body = format!(
        "short\n{long}\n{wide}\n{}\r\n{huge}\r\nend",
        "y".repeat(500)
    );
    write(dir.path(), "long.txt", &body);
    let ws = ws(dir.path());
    let out = read(&ws, "long.txt", 1, 100);
    assert_eq!(out.lines[0].cut_from, None);
    assert_eq!(out.lines[1].text, "x".repeat(500));
    assert_eq!(out.lines[1].cut_from, Some(1234));
    assert_eq!(out.lines[2].text, "中".repeat(500));
    assert_eq!(out.lines[2].cut_from, Some(700));
    assert_eq!(out.lines[3].text, "y".repeat(500));
    assert_eq!(
        out.lines[3].cut_from, None,
        "exactly 500 characters is not cut"
    );
    assert_eq!(out.lines[4].text, "é".repeat(500));
    assert_eq!(
        out.lines[4].cut_from,
        Some(100_000),
        "the \\r is not counted"
    );
    assert_eq!(out.lines[5].text, "end");
    assert_eq!(out.total_lines, 6);
    assert_eq!(out.line_ending, "mixed");
}

#[test]
fn line_endings() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "crlf.txt", "a\r\nb\r\nc\r\n");
    write(dir.path(), "mixed.txt", "a\r\nb\nc\r\n");
    write(dir.path(), "cr.txt", "a\rb\rc");
    write(
        dir.path(),
        "lone_cr.txt",
        "progress 10%\rprogress 20%\ndone\n",
    );
    let ws = ws(dir.path());

    let out = read(&ws, "crlf.txt", 1, 10);
    assert_eq!(texts(&out), ["a", "b", "c"]);
    assert_eq!(out.line_ending, "CRLF");
    assert_eq!(out.total_lines, 3);

    let out = read(&ws, "mixed.txt", 1, 10);
    assert_eq!(texts(&out), ["a", "b", "c"]);
    assert_eq!(out.line_ending, "mixed");

    let out = read(&ws, "cr.txt", 1, 10);
    assert_eq!(texts(&out), ["a", "b", "c"]);
    assert_eq!(out.line_ending, "CR");
    assert_eq!(out.total_lines, 3);

    // Classic-Mac text with a CRLF after the first 64 KiB, split across the read buffer.
    for pad in [0usize, 1] {
        let mut body = "x".repeat(pad);
        body.push_str(&"x\r".repeat(32_767));
        body.push_str("y\r\nz");
        write(dir.path(), "late_crlf.txt", &body);
        let out = read(&ws, "late_crlf.txt", 32_767, 10);
        assert_eq!(texts(&out), ["x", "y", "z"], "pad {pad}");
        assert_eq!(out.total_lines, 32_769);
        assert_eq!(out.line_ending, "mixed");
    }

    // In a file with `\n` breaks, a lone `\r` is text (as in grep's line numbers).
    let out = read(&ws, "lone_cr.txt", 1, 10);
    assert_eq!(texts(&out), ["progress 10%\rprogress 20%", "done"]);
    assert_eq!(out.line_ending, "LF");
}

#[test]
fn crlf_split_across_the_read_buffer() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Put the `\r` of a CRLF at every position around the 64 KiB buffer edge.
    let ws = ws(dir.path());
    for shift in 65_530..65_540usize {
        let mut body = "a".repeat(shift - 1);
        body.push_str("\r\nnext\r\n");
        write(dir.path(), "edge.txt", &body);
        let out = read(&ws, "edge.txt", 1, 10);
        assert_eq!(out.lines.len(), 2, "shift {shift}");
        assert_eq!(
            out.lines[0].cut_from,
            Some(shift as u64 - 1),
            "shift {shift}"
        );
        assert_eq!(out.lines[1].text, "next");
        assert_eq!(out.line_ending, "CRLF", "shift {shift}");
    }
}

#[test]
fn encodings() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "bom.txt", b"\xEF\xBB\xBFfirst\nsecond\n");
    let text = "héllo 🎉\r\nwörld\r\n";
    let mut le = vec![0xFF, 0xFE];
    let mut be = vec![0xFE, 0xFF];
    for unit in text.encode_utf16() {
        le.extend_from_slice(&unit.to_le_bytes());
        be.extend_from_slice(&unit.to_be_bytes());
    }
    write(dir.path(), "le.txt", &le);
    write(dir.path(), "be.txt", &be);
    write(dir.path(), "bad.txt", b"ok\nbad \xff\xfe byte\n");
    write(dir.path(), "bom_only.txt", b"\xEF\xBB\xBF");
    // Invalid bytes far past the first read buffer still mark the file lossy.
    let mut late = "fine\n".repeat(30_000).into_bytes();
    late.extend_from_slice(b"late \xc3\n");
    write(dir.path(), "late.txt", &late);
    let ws = ws(dir.path());

    let out = read(&ws, "bom.txt", 1, 10);
    assert_eq!(texts(&out), ["first", "second"]);
    assert_eq!(out.encoding, "utf-8-bom");

    for (name, encoding) in [("le.txt", "utf-16le"), ("be.txt", "utf-16be")] {
        let out = read(&ws, name, 1, 10);
        assert_eq!(out.kind, ContentKind::Text, "{name}");
        assert_eq!(texts(&out), ["héllo 🎉", "wörld"], "{name}");
        assert_eq!(out.encoding, encoding);
        assert_eq!(out.line_ending, "CRLF");
        assert_eq!(out.total_lines, 2);
    }

    let out = read(&ws, "bad.txt", 1, 10);
    assert_eq!(texts(&out), ["ok", "bad \u{FFFD}\u{FFFD} byte"]);
    assert_eq!(out.encoding, "utf-8-lossy");

    let out = read(&ws, "bom_only.txt", 1, 10);
    assert_eq!(out.kind, ContentKind::Empty);
    assert_eq!(out.encoding, "utf-8-bom");

    let out = read(&ws, "late.txt", 1, 3);
    assert_eq!(texts(&out), ["fine", "fine", "fine"]);
    assert_eq!(out.encoding, "utf-8-lossy");
}

#[test]
fn empty_binary_and_directory_paths() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "empty.txt", "");
    write(
        dir.path(),
        "img.png",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10",
    );
    write(
        dir.path(),
        "doc.pdf",
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nstream\n\0\x01",
    );
    write(
        dir.path(),
        "lib.so",
        [&b"\x7fELF\x02\x01\x01"[..], &[0u8; 57]].concat(),
    );
    write(dir.path(), "a.zip", b"PK\x03\x04\x14\0\0\0\0\0");
    write(dir.path(), "blob.bin", b"abc\0def");
    write(
        dir.path(),
        "late_nul.txt",
        [&b"x\n".repeat(5000)[..], b"\0\n"].concat(),
    );
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    let ws = ws(dir.path());

    let out = read(&ws, "empty.txt", 1, 10);
    assert_eq!(out.kind, ContentKind::Empty);
    assert_eq!((out.total_lines, out.size_bytes), (0, 0));
    assert!(out.lines.is_empty());

    for (name, kind) in [
        ("img.png", "PNG image"),
        ("doc.pdf", "PDF document"),
        ("lib.so", "ELF"),
        ("a.zip", "ZIP archive"),
    ] {
        let out = read(&ws, name, 1, 10);
        assert_eq!(out.kind, ContentKind::Binary, "{name}");
        assert!(out.lines.is_empty());
        let size = std::fs::metadata(dir.path().join(name))
            .expect("stat")
            .len();
        assert_eq!(out.size_bytes, size, "{name}");
        let guess = out.binary_type.unwrap_or_default();
        assert!(guess.starts_with(kind), "{name}: {guess}");
    }
    let out = read(&ws, "blob.bin", 1, 10);
    assert_eq!(out.kind, ContentKind::Binary);
    assert_eq!(out.binary_type, None);
    assert_eq!(out.size_bytes, 7);

    // A NUL past the first 8 KiB does not make a file binary.
    let out = read(&ws, "late_nul.txt", 5001, 10);
    assert_eq!(out.kind, ContentKind::Text);
    assert_eq!(texts(&out), ["\0"]);

    let err = try_read(&ws, "sub").expect_err("directory");
    assert!(matches!(err, CoreError::IsADirectory { .. }), "{err}");
    assert_eq!(err.to_string(), "sub is a directory, not a file.");
}

#[test]
fn missing_files_get_close_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "src/main.rs", "fn main() {}\n");
    write(dir.path(), "src/lib/utils.py", "x = 1\n");
    write(dir.path(), "README.md", "# hi\n");
    write(dir.path(), "config.yaml", "a: 1\n");
    write(dir.path(), ".envv.example", "nothing\n");
    write(dir.path(), ".env", "SECRET=1\n");
    write(dir.path(), "id_rsa", "secret\n");
    let ws = ws(dir.path());
    let suggestions = |path: &str| -> Vec<String> {
        match try_read(&ws, path) {
            Err(CoreError::NotFound { suggestions, .. }) => suggestions,
            other => panic!("{path}: expected NotFound, got {other:?}"),
        }
    };
    assert_eq!(suggestions("src/mian.rs")[0], "src/main.rs");
    assert_eq!(suggestions("scr/main.rs")[0], "src/main.rs");
    assert_eq!(suggestions("readme.md")[0], "README.md");
    assert_eq!(suggestions("config.yml")[0], "config.yaml");
    assert_eq!(suggestions("src/utils.py")[0], "src/lib/utils.py");
    assert_eq!(suggestions("utils.py")[0], "src/lib/utils.py");
    assert!(suggestions("completely/unrelated/zzz.qq").is_empty());
    // A file used as a directory on the way.
    assert_eq!(suggestions("src/main.rs/inner.rs"), Vec::<String>::new());
    // A denied file is never offered, even when it is the closest name.
    for typo in [".envx", "id_rsb"] {
        let near = suggestions(typo);
        assert!(
            !near.iter().any(|s| s == ".env" || s == "id_rsa"),
            "{typo}: {near:?}"
        );
    }
    let err = try_read(&ws, "src/mian.rs").expect_err("missing");
    assert!(
        matches!(&err, CoreError::NotFound { suggestions, .. } if suggestions.first().is_some_and(|s| s == "src/main.rs")),
        "{err:?}"
    );
}

#[test]
fn ignored_files_read_and_denied_files_refused() {
    let dir = tree(&[
        (".gitignore", "build/\n*.log\n"),
        (".ignore", "generated.rs\n"),
        (".ripsightignore", "vendor/\n"),
        ("build/out.txt", "built\n"),
        ("app.log", "logged\n"),
        ("generated.rs", "// gen\n"),
        ("vendor/lib.js", "var x;\n"),
        ("keys/server.pem", "-----BEGIN-----\nhunter2\n"),
        (".env", "API_KEY=hunter2\n"),
        ("secrets/prod.yaml", "password: hunter2\n"),
    ]);
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    let ws = ws(dir.path());
    assert_eq!(texts(&read(&ws, "build/out.txt", 1, 10)), ["built"]);
    assert_eq!(texts(&read(&ws, "app.log", 1, 10)), ["logged"]);
    assert_eq!(texts(&read(&ws, "generated.rs", 1, 10)), ["// gen"]);
    assert_eq!(texts(&read(&ws, "vendor/lib.js", 1, 10)), ["var x;"]);
    assert_eq!(
        texts(&read(&ws, "secrets/prod.yaml", 1, 10)),
        ["password: hunter2"]
    );
    for path in ["keys/server.pem", ".env"] {
        let err = try_read(&ws, path).expect_err(path);
        assert!(matches!(err, CoreError::Denied { .. }), "{path}: {err:?}");
        assert!(err.to_string().contains("policy"), "{err}");
        assert!(!err.to_string().contains("hunter2"), "{err}");
    }
    // Custom rules replace the default ones.
    let custom = ws_with(dir.path(), |o| o.deny_globs = vec!["secrets/**".into()]);
    let err = try_read(&custom, "secrets/prod.yaml").expect_err("custom rule");
    assert!(matches!(err, CoreError::Denied { .. }), "{err:?}");
    assert_eq!(texts(&read(&custom, ".env", 1, 10)), ["API_KEY=hunter2"]);
}

#[test]
fn estimate_above_the_exact_count_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    // ~3.9 MB of 40-byte lines: 100,000 lines.
    let body: String = (0..100_000).map(|i| format!("{i:>38} \n")).collect();
    assert_eq!(body.len(), 4_000_000);
    write(dir.path(), "big.log", &body);
    let ws = ws(dir.path());
    let options = |offset: u64| ReadOptions {
        path: "big.log".into(),
        offset,
        limit: 10,
        exact_count_limit: 1 << 20,
        ..ReadOptions::default()
    };

    let out = read_file(&ws, &options(1)).expect("read");
    assert!(out.total_lines_estimated);
    assert_eq!(out.lines.len(), 10);
    assert_eq!(out.lines[0].text.trim(), "0");
    assert_eq!(out.next_offset, Some(11));
    let error = (out.total_lines as f64 - 100_000.0).abs() / 100_000.0;
    assert!(error < 0.05, "estimate {}", out.total_lines);

    // Deep in the file, still an estimate, still the right line.
    let out = read_file(&ws, &options(50_001)).expect("read");
    assert!(out.total_lines_estimated);
    assert_eq!(out.lines[0].number, 50_001);
    assert_eq!(out.lines[0].text.trim(), "50000");

    // A read that reaches the end knows the exact total.
    let out = read_file(&ws, &options(99_995)).expect("read");
    assert!(!out.total_lines_estimated);
    assert_eq!(out.total_lines, 100_000);
    assert_eq!(out.lines.len(), 6);
    assert_eq!(out.next_offset, None);
    let out = read_file(&ws, &options(200_000)).expect("read");
    assert!(!out.total_lines_estimated);
    assert_eq!(out.total_lines, 100_000);
    assert!(out.lines.is_empty());

    // The default limit counts this file exactly.
    let out = read(&ws, "big.log", 1, 10);
    assert!(!out.total_lines_estimated);
    assert_eq!(out.total_lines, 100_000);
}

/// Reads `bytes` (written to `r.txt`) at `offset`/`limit` and checks the page against the model.
fn check_against_the_model(ws: &Workspace, bytes: &[u8], offset: u64, limit: usize, case: &str) {
    let model = model_lines(bytes);
    let out = read(ws, "r.txt", offset, limit);
    if model.is_empty() {
        assert_eq!(
            (out.kind, out.total_lines),
            (ContentKind::Empty, 0),
            "{case}"
        );
        return;
    }
    let total = model.len() as u64;
    assert_eq!(out.total_lines, total, "{case}");
    let first = (offset - 1) as usize;
    let expected: Vec<&String> = model.iter().skip(first).take(limit).collect();
    assert_eq!(out.lines.len(), expected.len(), "{case} offset {offset}");
    for (at, (line, want)) in out.lines.iter().zip(expected).enumerate() {
        assert_eq!(line.number, offset + at as u64, "{case}");
        let want_chars = want.chars().count();
        let shown: String = want.chars().take(500).collect();
        assert_eq!(line.text, shown, "{case} line {}", line.number);
        let cut = (want_chars > 500).then_some(want_chars as u64);
        assert_eq!(line.cut_from, cut, "{case} line {}", line.number);
    }
    let last = offset + out.lines.len() as u64 - 1;
    let more = !out.lines.is_empty() && last < total;
    assert_eq!(out.next_offset, more.then_some(last + 1), "{case}");
    let lossy = std::str::from_utf8(bytes).is_err();
    let encoding = if lossy { "utf-8-lossy" } else { "utf-8" };
    assert_eq!(out.encoding, encoding, "{case}");
}

#[test]
fn random_files_match_the_reference_model() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ws = ws(dir.path());
    let long_run = [b'x'; 600];
    let pieces: &[&[u8]] = &[
        b"a",
        b"xyz",
        b" ",
        b"\n",
        b"\n",
        b"\r\n",
        b"\r",
        "é".as_bytes(),
        "中".as_bytes(),
        "🎉".as_bytes(),
        b"\xff",
        b"\xe2\x82",
        &long_run,
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    // Small files (many without any `\n`: classic-Mac or one line) read at small pages...
    for round in 0..150 {
        let count = rng.below(81) as usize;
        let mut bytes: Vec<u8> = (0..count)
            .flat_map(|_| {
                pieces[rng.below(pieces.len() as u64) as usize]
                    .iter()
                    .copied()
            })
            .collect();
        if bytes.starts_with(b"\xff") {
            bytes[0] = b'a';
        }
        write(dir.path(), "r.txt", &bytes);
        let offset = 1 + rng.below(40);
        let limit = 1 + rng.below(40) as usize;
        check_against_the_model(&ws, &bytes, offset, limit, &format!("small round {round}"));
    }
    // ...and large ones, past the 64 KiB read buffer, with long runs across it.
    for round in 0..12 {
        let mut bytes = Vec::new();
        let target = 1 + rng.below(300_000) as usize;
        while bytes.len() < target {
            let piece = pieces[rng.below(pieces.len() as u64) as usize];
            let repeat = if rng.below(500) == 0 { 3000 } else { 1 };
            for _ in 0..repeat {
                bytes.extend_from_slice(piece);
            }
        }
        if bytes.starts_with(b"\xff") {
            bytes[0] = b'a';
        }
        write(dir.path(), "r.txt", &bytes);
        let total = model_lines(&bytes).len() as u64;
        for _ in 0..6 {
            let offset = 1 + rng.below(total + 2);
            let limit = 1 + rng.below(700) as usize;
            check_against_the_model(&ws, &bytes, offset, limit, &format!("round {round}"));
        }
    }
}
