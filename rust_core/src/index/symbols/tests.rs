//! The symbol file's tests: what is written reads back, and no damage is trusted.

use super::varint::push_varint;
use super::*;
use crate::index::format::reseal;
use crate::outline::parse::{Entry, Parsed};
use crate::outline::refs::{Reference, References};

fn parsed(
    names: &[&str],
    defs: &[(&str, u64)],
    refs: &[(u32, u32, u32, Role, Option<u32>)],
) -> Outcome {
    let entries = defs
        .iter()
        .enumerate()
        .map(|(i, (name, line))| Entry {
            kind: SymbolKind::Function,
            name: (*name).to_string(),
            line: *line,
            end_line: line + 3,
            depth: u32::from(i > 0),
            parent: (i > 0).then_some(0),
        })
        .collect();
    let list = refs
        .iter()
        .map(|&(name, line, column, role, enclosing)| Reference {
            name,
            line,
            column,
            role,
            enclosing,
        })
        .collect();
    Outcome::Parsed(
        Language::C,
        Arc::new(Parsed {
            entries,
            has_errors: false,
            references: Some(References {
                names: names.iter().map(|n| (*n).to_string()).collect(),
                list,
                cut: false,
                imports: Vec::new(),
            }),
            with_references: true,
        }),
    )
}

fn sample() -> Vec<u8> {
    let mut b = Builder::default();
    let meta = FileIdentity {
        size: 10,
        ..FileIdentity::default()
    };
    let inputs = [
        Input {
            path: "a.c".into(),
            meta,
            trusted: true,
            outcome: parsed(
                &["kmalloc", "x"],
                &[("main", 1), ("inner", 2)],
                &[
                    (0, 3, 5, Role::Call, Some(1)),
                    (1, 2, 1, Role::Write, Some(0)),
                    (0, 1, 9, Role::Read, None),
                ],
            ),
        },
        Input {
            path: "b/big.c".into(),
            meta,
            trusted: false,
            outcome: Outcome::Unparsed,
        },
        Input {
            path: "c.c".into(),
            meta,
            trusted: true,
            outcome: parsed(
                &["kmalloc"],
                &[("kmalloc", 7)],
                &[(0, 40, 2, Role::Call, Some(0))],
            ),
        },
    ];
    for input in inputs {
        b.add(input);
    }
    b.write(std::io::Cursor::new(Vec::new()), b"key")
        .expect("written")
        .into_inner()
}

fn open(bytes: &[u8]) -> Result<Symbols, Invalid> {
    Symbols::open(Arc::new(Backing::Heap(bytes.to_vec())), b"key")
}

#[test]
fn a_written_symbol_file_reads_back_as_it_was_written() {
    let s = open(&sample()).expect("valid");
    assert_eq!(s.files_len(), 3);
    let names: Vec<&str> = (0..s.names_len()).filter_map(|k| s.name(k)).collect();
    assert_eq!(names, ["inner", "kmalloc", "main", "x"]);
    let kmalloc = s.name_id("kmalloc").expect("held");
    assert_eq!(s.name_id("kfree"), None);
    assert_eq!(s.prefixed("km"), kmalloc..kmalloc + 1);
    let refs = s.references_of(kmalloc);
    let got: Vec<(u32, u32, u32, Role, Option<u32>)> = refs
        .iter()
        .map(|r| (r.file, r.line, r.column, r.role, r.enclosing))
        .collect();
    assert_eq!(
        got,
        [
            (0, 3, 5, Role::Call, Some(1)),
            (0, 1, 9, Role::Read, None),
            (2, 40, 2, Role::Call, Some(0)),
        ]
    );
    let defs: Vec<u32> = s.definitions_of(kmalloc).collect();
    assert_eq!(defs, [2]);
    assert_eq!(s.file_of_definition(2), Some(2));
    assert_eq!(s.file_of_definition(1), Some(0));
    let d = s.definition(1).expect("a definition");
    assert_eq!(
        (s.name(d.name), d.line, d.parent, d.depth),
        (Some("inner"), 2, Some(0), 1)
    );
    let big = s.file(1).expect("a file");
    assert_eq!(
        (big.path, big.status, big.trusted),
        ("b/big.c", Status::Unparsed, false)
    );
    assert_eq!(s.file_index("c.c"), Some(2));
    assert_eq!(s.file_index("b"), None);
    // Every name the file references, with the uses that link files (`Role::links_files`):
    // kmalloc's call, not its read, and x's write counts 0.
    let x = s.name_id("x").expect("x");
    assert_eq!(s.file_names(0), [(kmalloc, 1), (x, 0)]);
    assert_eq!(s.file(0).and_then(|f| f.language), Some(Language::C));
}

#[test]
fn damaged_truncated_foreign_and_other_version_files_are_never_trusted() {
    let file = sample();
    assert!(open(&file).is_ok());
    assert!(Symbols::open(Arc::new(Backing::Heap(file.clone())), b"other").is_err());
    for cut in [0, 16, file.len() / 2, file.len() - 1] {
        assert!(open(&file[..cut]).is_err(), "cut at {cut}");
    }
    // Every byte but the alignment padding between sections, which no reader reads.
    let sections = Sections::check(&file, &SYMBOLS).expect("valid");
    let spans: Vec<Range<usize>> = [
        Kind::Key,
        Kind::Files,
        Kind::Paths,
        Kind::SymFiles,
        Kind::SymNames,
        Kind::SymNameBytes,
        Kind::SymDefinitions,
        Kind::SymReferences,
        Kind::SymFileNames,
        Kind::SymCallStarts,
        Kind::SymCalls,
    ]
    .iter()
    .map(|k| sections.span(*k))
    .collect();
    let first = spans.iter().map(|s| s.start).min().unwrap_or(0);
    let read =
        |at: usize| at < first || at >= file.len() - 16 || spans.iter().any(|s| s.contains(&at));
    for at in (0..file.len()).filter(|&at| read(at)) {
        let mut bad = file.clone();
        bad[at] ^= 0x20;
        assert!(open(&bad).is_err(), "a flipped bit at {at} was trusted");
    }
    let mut other_version = file.clone();
    other_version[7] ^= 1; // the version's last digit: another version
    assert_eq!(
        open(&other_version).err(),
        Some(Invalid("another format or version"))
    );
}

#[test]
fn resealed_damage_never_panics_and_shapes_are_checked() {
    let file = sample();
    for at in 0..file.len() {
        let mut bad = file.clone();
        bad[at] = bad[at].wrapping_add(0x41);
        reseal(&mut bad, &SYMBOLS);
        if let Ok(s) = open(&bad) {
            for id in 0..s.names_len() + 1 {
                let _ = s.references_of(id);
                let _ = s.definitions_of(id).count();
            }
            for f in 0..s.files_len() + 1 {
                let _ = s.file_names(f);
                let _ = s.file(f);
                let _ = body_calls(&s, f, "main", &[]);
                let _ = body_calls(&s, f, "kmalloc", &[]);
            }
        }
    }
}

#[test]
fn varints_round_trip() {
    let mut out = Vec::new();
    let values = [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX];
    for v in values {
        push_varint(&mut out, v);
    }
    let mut at = 0;
    for v in values {
        assert_eq!(read_varint(&out, &mut at), Some(v));
    }
    assert_eq!(read_varint(&out, &mut at), None);
    for v in [0i64, -1, 1, -300, 300] {
        assert_eq!(unzigzag(zigzag(v)), v);
    }
}

#[test]
fn another_contents_file_is_never_read_as_a_symbol_file() {
    // A file of the n-gram layout, with this tree's key: the section table tells it apart.
    let mut w = crate::index::format::Writer::new(
        std::io::Cursor::new(Vec::new()),
        &crate::index::format::TRIGRAMS,
    )
    .expect("writer");
    w.section(Kind::Key, b"key").expect("key");
    let err = w
        .finish()
        .expect_err("an n-gram file needs its every section");
    assert!(err.to_string().contains("every section"));
    let mut symbols = sample();
    // The n-gram layout has 17 sections: a header that says so is refused before any read.
    symbols[8..12].copy_from_slice(&17u32.to_le_bytes());
    reseal(&mut symbols, &SYMBOLS);
    assert_eq!(
        open(&symbols).err(),
        Some(Invalid("wrong number of sections"))
    );
    assert!(Sections::check(&sample(), &crate::index::format::TRIGRAMS).is_err());
}

/// Everything a symbol file says, by name and path (ids and file numbers differ between files
/// that say the same); names neither defined nor referenced are left out.
fn described(s: &Symbols) -> Vec<String> {
    let mut out = Vec::new();
    let path = |f: u32| s.file(f).map(|f| f.path.to_string()).unwrap_or_default();
    let name = |k: u32| s.name(k).unwrap_or_default().to_string();
    for f in 0..s.files_len() {
        let file = s.file(f).expect("a file");
        let definitions: Vec<_> = file
            .definitions
            .clone()
            .filter_map(|d| s.definition(d))
            .map(|d| (name(d.name), d.line, d.end_line, d.parent, d.kind, d.depth))
            .collect();
        let names: Vec<_> = s
            .file_names(f)
            .into_iter()
            .map(|(k, c)| (name(k), c))
            .collect();
        let calls: Vec<_> = s
            .definition_calls(f, &file, &|_| true)
            .expect("call lists")
            .into_iter()
            .map(|(k, calls)| {
                let calls: Vec<_> = calls
                    .iter()
                    .map(|c| (name(c.name), c.line, c.column))
                    .collect();
                (k, calls)
            })
            .collect();
        out.push(format!(
            "{} {:?} {} {:?} {:?} {} {definitions:?} {names:?} {calls:?}",
            file.path, file.meta, file.trusted, file.language, file.status, file.cut
        ));
    }
    for k in 0..s.names_len() {
        let refs: Vec<_> = s
            .references_of(k)
            .into_iter()
            .map(|r| (path(r.file), r.line, r.column, r.role, r.enclosing))
            .collect();
        let defs: Vec<_> = s.definitions_of(k).collect();
        if !refs.is_empty() || !defs.is_empty() {
            out.push(format!("{} {defs:?} {refs:?}", name(k)));
        }
    }
    out
}

#[test]
fn a_merge_says_what_a_build_of_the_same_files_says() {
    let base = Arc::new(open(&sample()).expect("valid"));
    let meta = FileIdentity {
        size: 10,
        ..FileIdentity::default()
    };
    let new_file = || Input {
        path: "a2.c".into(),
        meta,
        trusted: true,
        outcome: parsed(
            &["kfree", "kmalloc"],
            &[("release", 3)],
            &[
                (0, 4, 1, Role::Call, Some(0)),
                (1, 5, 1, Role::Call, Some(0)),
            ],
        ),
    };
    let changed = || Input {
        path: "c.c".into(),
        meta: FileIdentity { size: 11, ..meta },
        trusted: true,
        outcome: parsed(
            &["kmalloc", "kfree"],
            &[("kmalloc", 9)],
            &[
                (1, 12, 2, Role::Call, Some(0)),
                (0, 11, 3, Role::Read, None),
            ],
        ),
    };
    // a.c kept, a2.c new, b/big.c gone, c.c changed.
    let mut merged = Builder::merging(Arc::clone(&base));
    assert!(merged.add_stored(0));
    merged.add(new_file());
    merged.add(changed());
    let merged = merged
        .write(std::io::Cursor::new(Vec::new()), b"key")
        .expect("written")
        .into_inner();
    let mut built = Builder::default();
    let first = sample_input_a();
    built.add(first);
    built.add(new_file());
    built.add(changed());
    let built = built
        .write(std::io::Cursor::new(Vec::new()), b"key")
        .expect("written")
        .into_inner();
    let (merged, built) = (open(&merged).expect("valid"), open(&built).expect("valid"));
    assert_eq!(described(&merged), described(&built));
    // Not vacuous: the kept file's references moved with it, the changed file's are new.
    let kmalloc = merged.name_id("kmalloc").expect("held");
    let files: Vec<u32> = merged
        .references_of(kmalloc)
        .iter()
        .map(|r| r.file)
        .collect();
    assert_eq!(files, [0, 0, 1, 2]);
    assert!(merged.name_id("x").is_some() && merged.files_len() == 3);
    // The kept file's call lists were copied, the new and changed files' written.
    let calls = |f: u32, name: &str| {
        let found = body_calls(&merged, f, name, &[]).expect("call lists");
        let list: Vec<_> = found
            .list
            .iter()
            .map(|r| (found.names[r.name as usize].clone(), r.line, r.column))
            .collect();
        list
    };
    assert_eq!(calls(0, "main"), [("kmalloc".to_string(), 3, 5)]);
    assert_eq!(
        calls(1, "release"),
        [("kfree".to_string(), 4, 1), ("kmalloc".to_string(), 5, 1)]
    );
    assert_eq!(calls(2, "kmalloc"), [("kfree".to_string(), 12, 2)]);
}

#[test]
fn a_definitions_calls_are_its_own_and_its_nested_definitions() {
    let s = open(&sample()).expect("valid");
    let calls = |f: u32, name: &str, kinds: &[SymbolKind]| {
        let found = body_calls(&s, f, name, kinds).expect("call lists");
        let list: Vec<_> = found
            .list
            .iter()
            .map(|r| {
                let name = found.names[r.name as usize].clone();
                (name, r.line, r.column, r.role, r.enclosing)
            })
            .collect();
        list
    };
    // `main` holds `inner`, which calls kmalloc: main's body holds the call; x's write and
    // kmalloc's read outside every definition are no calls.
    let inner_call = ("kmalloc".to_string(), 3, 5, Role::Call, Some(1));
    assert_eq!(calls(0, "main", &[]), calls(0, "inner", &[]));
    assert_eq!(calls(0, "inner", &[]), [inner_call]);
    assert_eq!(calls(0, "main", &[SymbolKind::Class]), []);
    assert_eq!(calls(0, "absent", &[]), []);
    // c.c's kmalloc calls itself; the unparsed file has no definition and no call.
    assert_eq!(
        calls(2, "kmalloc", &[]),
        [("kmalloc".to_string(), 40, 2, Role::Call, Some(0))]
    );
    assert_eq!(calls(1, "main", &[]), []);
    assert!(body_calls(&s, 3, "main", &[]).is_none());
}

/// The sample's first file, again.
fn sample_input_a() -> Input {
    Input {
        path: "a.c".into(),
        meta: FileIdentity {
            size: 10,
            ..FileIdentity::default()
        },
        trusted: true,
        outcome: parsed(
            &["kmalloc", "x"],
            &[("main", 1), ("inner", 2)],
            &[
                (0, 3, 5, Role::Call, Some(1)),
                (1, 2, 1, Role::Write, Some(0)),
                (0, 1, 9, Role::Read, None),
            ],
        ),
    }
}

#[test]
fn freshness_is_remembered_for_one_overlay_only() {
    let s = open(&sample()).expect("valid");
    let (first, second) = (Arc::new(Vec::new()), Arc::new(vec!["a.c".to_string()]));
    assert!(s.fresh_memo(&first).fresh(0, || true));
    assert!(
        s.fresh_memo(&first).fresh(0, || false),
        "kept for the same overlay"
    );
    // Another overlay (the table changed): asked again.
    assert!(!s.fresh_memo(&second).fresh(0, || false));
    assert!(!s.fresh_memo(&second).fresh(0, || true));
}
