//! The scanner against the parse: on headers written for it here and, when
//! `RIPSIGHT_DEFINES_TREE` names a directory, on every C file of it the scanner takes.

use std::io::Write;
use std::time::Duration;

use super::super::parse::{MAX_RESTARTS, parse_restarting};
use super::super::refs::tests::listed;
use super::*;
use crate::outline::macro_body::body_names;

/// The parse's answer for `source`, the scanner aside.
fn parsed(source: &[u8], references: bool) -> Parsed {
    parse_restarting(
        Language::C,
        source,
        Duration::from_secs(60),
        references,
        MAX_RESTARTS,
    )
    .expect("parses")
}

const HEADER: &str = "/* SPDX-License-Identifier: GPL-2.0 */\n\
    // A register list.\n\
    #ifndef _REGS_H\n\
    #define _REGS_H\n\
    \n\
    #include <linux/bits.h>\n\
    #include \"local.h\" /* why */\n\
    \n\
    #define mmREG_A  0x1234 /* the first */\n\
    #define mmREG_B_MASK\t(BIT(3) | mmREG_A) // both\n\
    #  define SHIFTED(x, y)\t(((x) << REG_SHIFT) | (y) | 0x1fUL) /* a comment */\n\
    #define LONG(a, ...) \\\n\
    \tdo { helper(a, __VA_ARGS__, \"not_a_name\", 'c'); } while (0)\n\
    #define EMPTY\n\
    #define NOARGS() value_of_it\n\
    #undef EMPTY\n\
    #pragma once\n\
    #endif /* _REGS_H */\n";

#[test]
fn a_define_only_header_gives_what_the_parse_gives() {
    for references in [false, true] {
        let scanned = scan(Language::C, HEADER.as_bytes(), references).expect("scanned");
        assert_eq!(scanned, parsed(HEADER.as_bytes(), references));
    }
    let scanned = scan(Language::C, HEADER.as_bytes(), true).expect("scanned");
    let names: Vec<String> = scanned.entries.iter().map(|e| e.name.clone()).collect();
    assert_eq!(names, ["SHIFTED", "LONG", "NOARGS"]);
    assert_eq!(
        (scanned.entries[1].line, scanned.entries[1].end_line),
        (12, 13)
    );
    assert_eq!(
        listed(&scanned),
        [
            "3:9 read _REGS_H in -",
            "4:9 other _REGS_H in -",
            "9:9 other mmREG_A in -",
            "10:9 other mmREG_B_MASK in -",
            "10:23 other BIT in -",
            "10:32 other mmREG_A in -",
            "11:19 other x in SHIFTED",
            "11:22 other y in SHIFTED",
            "11:28 other x in SHIFTED",
            "11:34 other REG_SHIFT in SHIFTED",
            "11:48 other y in SHIFTED",
            "12:14 other a in LONG",
            "13:7 other helper in LONG",
            "13:14 other a in LONG",
            "14:9 other EMPTY in -",
            "15:18 other value_of_it in NOARGS",
        ]
    );
}

#[test]
fn names_in_macro_bodies_are_references_of_parsed_files_too() {
    let source = "#define GET(p) read_reg((p)->base + OFFSET)\n\
                  static int f(void) { return GET(dev); }\n";
    assert_eq!(scan(Language::C, source.as_bytes(), true), None);
    let found = listed(&parsed(source.as_bytes(), true));
    for expected in [
        "1:13 other p in GET",
        "1:16 other read_reg in GET",
        "1:26 other p in GET",
        "1:30 other base in GET",
        "1:37 other OFFSET in GET",
        "2:29 call GET in f",
    ] {
        assert!(found.iter().any(|r| r == expected), "{expected}: {found:?}");
    }
}

#[test]
fn what_the_scanner_does_not_read_is_parsed() {
    for source in [
        "int x;\n",
        "#define A 1\nint x;\n",
        "#if defined(A)\n#define B 1\n#endif\n",
        "#ifndef A\n#define A 1\n",
        "#endif\n",
        "#define A 1",
        "#define A 1\r\n",
        "#define int long\n",
        "#define F(a,) a\n",
        "#define A 1 /* a\n comment */\n",
        "#define A /* c */ 1 /* d */ 2\n",
        "#define A (1) /* c */ | 2\n",
        "#include FOO\n",
        "#define A 1 // \\\n",
        "#else\n",
    ] {
        assert_eq!(
            scan(Language::C, source.as_bytes(), true),
            None,
            "{source:?}"
        );
    }
    assert_eq!(scan(Language::Cpp, b"#define A 1\n", true), None);
}

#[test]
fn body_names_skip_comments_strings_numbers_and_keywords() {
    let text = b"(x + 0x1fUL + 1e+5 + .5f) /* hidden */ \"no\" L'c' sizeof(int) y##z // gone";
    let mut names = Vec::new();
    body_names(text, &mut |start, end| {
        names.push(String::from_utf8_lossy(&text[start..end]).into_owned())
    });
    assert_eq!(names, ["x", "y", "z"]);
}

/// Hands `each` every `.c` and `.h` file (path, bytes) under `RIPSIGHT_DEFINES_TREE` that an
/// outline would parse (at most `MAX_SOURCE_BYTES`); `false` when the variable is not set.
pub(in crate::outline) fn each_c_file_of_tree(
    each: &mut dyn FnMut(std::path::PathBuf, Vec<u8>),
) -> bool {
    let Some(root) = std::env::var_os("RIPSIGHT_DEFINES_TREE") else {
        return false;
    };
    let mut pending = vec![std::path::PathBuf::from(root)];
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).expect("reads").flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file()
                && path.extension().is_some_and(|e| e == "c" || e == "h")
                && let Ok(source) = std::fs::read(&path)
                && source.len() as u64 <= super::super::MAX_SOURCE_BYTES
            {
                each(path, source);
            }
        }
    }
    true
}

/// Every C file of the tree the scanner takes gives what the parse gives (run it with
/// `RIPSIGHT_DEFINES_TREE=DIR cargo test --release --lib defines -- --ignored --nocapture`).
#[test]
#[ignore = "reads a whole tree; set RIPSIGHT_DEFINES_TREE"]
fn the_scanner_agrees_with_the_parse_on_a_tree() {
    let (mut files, mut taken, mut bytes, mut taken_bytes) = (0u64, 0u64, 0u64, 0u64);
    let (mut scanning, mut parsing) = (Duration::ZERO, Duration::ZERO);
    let mut differ = Vec::new();
    let walked = each_c_file_of_tree(&mut |path, source| {
        files += 1;
        bytes += source.len() as u64;
        let started = std::time::Instant::now();
        let Some(scanned) = scan(Language::C, &source, true) else {
            return;
        };
        scanning += started.elapsed();
        taken += 1;
        taken_bytes += source.len() as u64;
        let started = std::time::Instant::now();
        let by_parse = parsed(&source, true);
        parsing += started.elapsed();
        if scanned != by_parse {
            differ.push(path);
        }
    });
    if !walked {
        return;
    }
    // Printed for `--nocapture` (the figures in docs/macro-bodies.md).
    let _ = writeln!(
        std::io::stdout(),
        "scanned {taken} of {files} files, {taken_bytes} of {bytes} bytes, in {scanning:?} \
         (their parse: {parsing:?}); {} differ",
        differ.len()
    );
    assert!(differ.is_empty(), "{:?}", &differ[..differ.len().min(20)]);
}

/// Where a C file's parse goes, on the C files of the tree (`RIPSIGHT_DEFINES_TREE`) the scanner
/// does not take: tree-sitter's parse alone, then the outline (parse, tag query), then the
/// outline with references (the reference walk too, which finds C's definitions: `cwalk`),
/// and that with the tag query finding them, each the thread's CPU time summed over the files.
#[test]
#[ignore = "reads a whole tree; set RIPSIGHT_DEFINES_TREE"]
fn phase_times_on_a_tree() {
    let mut sources = Vec::new();
    let walked = each_c_file_of_tree(&mut |_, source| {
        if scan(Language::C, &source, false).is_none() {
            sources.push(source);
        }
    });
    if !walked {
        return;
    }
    // The thread's CPU time: other work on the machine stretches the wall time, not this.
    let time = |each: &dyn Fn(&[u8])| {
        let started = super::super::cap::thread_time();
        sources.iter().for_each(|s| each(s));
        super::super::cap::thread_time() - started
    };
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&Language::C.grammar())
        .expect("grammar");
    let parser = std::cell::RefCell::new(parser);
    let parse = time(&|s| {
        parser.borrow_mut().parse(s, None);
    });
    let outline = time(&|s| {
        parsed(s, false);
    });
    let references = time(&|s| {
        parsed(s, true);
    });
    super::super::parse::BY_QUERY.with(|q| q.set(true));
    let by_query = time(&|s| {
        parsed(s, true);
    });
    super::super::parse::BY_QUERY.with(|q| q.set(false));
    let bytes: usize = sources.iter().map(Vec::len).sum();
    let _ = writeln!(
        std::io::stdout(),
        "{} files, {bytes} bytes: parse {parse:?}, outline {outline:?}, with references \
         {references:?} (with the tag query for the definitions: {by_query:?})",
        sources.len()
    );
}
