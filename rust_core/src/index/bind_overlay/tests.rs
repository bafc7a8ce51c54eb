use std::sync::Arc;

use super::*;
use crate::boundary::FileIdentity;
use crate::index::bind::Bound;
use crate::index::postings::Backing;
use crate::index::symbols::{Builder, Input, Outcome};
use crate::outline::SymbolKind;
use crate::outline::parse::{Entry, Parsed};
use crate::outline::refs::{Reference, References};
use crate::outline::role::Role;

fn from(module: &str, name: &str) -> Import {
    Import {
        line: 1,
        form: Form::Python { level: 0 },
        module: module.into(),
        names: vec![(name.into(), name.into())],
        alias: None,
    }
}

/// A Python file defining `defs` and calling `uses`, with `imports`.
fn python(path: &str, defs: &[&str], uses: &[&str], imports: Vec<Import>) -> Input {
    let entries = defs
        .iter()
        .enumerate()
        .map(|(i, name)| Entry {
            kind: SymbolKind::Function,
            name: (*name).to_string(),
            line: 1 + i as u64 * 3,
            end_line: 3 + i as u64 * 3,
            depth: 0,
            parent: None,
        })
        .collect();
    let list = (0..uses.len() as u32)
        .map(|name| Reference {
            name,
            line: 20 + name,
            column: 1,
            role: Role::Call,
            enclosing: None,
        })
        .collect();
    Input {
        path: path.into(),
        meta: FileIdentity {
            size: 10,
            ..FileIdentity::default()
        },
        trusted: true,
        outcome: Outcome::Parsed(
            Language::Python,
            Arc::new(Parsed {
                entries,
                has_errors: false,
                references: Some(References {
                    names: uses.iter().map(|n| (*n).to_string()).collect(),
                    list,
                    cut: false,
                    imports,
                }),
                with_references: true,
            }),
        ),
    }
}

#[test]
fn a_changed_file_binds_by_the_rule_of_the_build_with_its_imports_now() {
    let mut builder = Builder::default();
    // In path order, as the table holds them.
    let inputs = [
        python("app/a.py", &[], &["loads"], vec![from("codec", "loads")]),
        python(
            "app/b.py",
            &[],
            &["loads"],
            vec![from("codec.text", "loads")],
        ),
        python("app/own.py", &["loads"], &["loads"], Vec::new()),
        // `codec` re-exports `binary`'s `loads`.
        python(
            "codec/__init__.py",
            &[],
            &[],
            vec![from("codec.binary", "loads")],
        ),
        python("codec/binary.py", &["loads"], &[], Vec::new()),
        python("codec/text.py", &["loads"], &[], Vec::new()),
    ];
    for input in inputs {
        builder.add(input);
    }
    let bytes = builder
        .write(std::io::Cursor::new(Vec::new()), b"key")
        .expect("written")
        .into_inner();
    let symbols = Symbols::open(Arc::new(Backing::Heap(bytes)), b"key").expect("opened");
    let file = |path: &str| symbols.file_index(path).expect("stored");
    let loads = symbols.name_id("loads").expect("a name");
    let (binary, text, own) = (
        file("codec/binary.py"),
        file("codec/text.py"),
        file("app/own.py"),
    );
    let overlay = OverlayBinder::new(&symbols, &[], |_| None)
        .expect("a checked symbol file reads every path");
    let now = |path: &str, imports: &[Import], defined: &[&str]| {
        let mut binder = overlay
            .file(path, Language::Python, imports, defined.iter().copied())
            .expect("Python binds");
        binder.bound(loads)
    };
    // Unchanged, each file binds as the build bound it (stored), through the re-export too.
    for (path, imports, defined, expected) in [
        ("app/a.py", vec![from("codec", "loads")], &[][..], binary),
        ("app/b.py", vec![from("codec.text", "loads")], &[], text),
        ("app/own.py", Vec::new(), &["loads"], own),
    ] {
        assert_eq!(
            symbols.bound(file(path), loads),
            Bound::Resolved(vec![expected]),
            "{path}"
        );
        assert_eq!(now(path, &imports, defined), vec![expected], "{path}");
    }
    // Changed: its imports now, not the stored ones.
    assert_eq!(
        now("app/a.py", &[from("codec.text", "loads")], &[]),
        vec![text]
    );
    assert_eq!(
        now("app/b.py", &[from("codec", "loads")], &[]),
        vec![binary]
    );
    // A definition it gained comes first; one it lost is gone (nothing binds: by name).
    assert_eq!(
        now("app/b.py", &[from("codec", "loads")], &["loads"]),
        vec![file("app/b.py")]
    );
    assert_eq!(now("app/own.py", &[], &[]), Vec::<u32>::new());
    // A new file: its imports bind the same way.
    assert_eq!(
        now("app/new.py", &[from("codec", "loads")], &[]),
        vec![binary]
    );
}
