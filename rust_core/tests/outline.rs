//! Outlines and definitions through a real worker process (this crate's
//! `ripsight-outline-worker` program). The pool's handling of workers that hang, crash or never
//! start is tests/workers.rs.

mod common;

use std::ffi::OsString;

use ripsight_core::grep::grep;
use ripsight_core::outline::definitions::{DefinitionsOptions, NameMatch, definitions};
use ripsight_core::outline::{Language, OutlineOptions, Outliner, Refusal, SymbolKind, outline};
use ripsight_core::workspace::{Workspace, WorkspaceOptions};

fn worker_command() -> Vec<OsString> {
    vec![env!("CARGO_BIN_EXE_ripsight-outline-worker").into()]
}

fn outliner() -> Outliner {
    Outliner::new(worker_command())
}

fn workspace(dir: &std::path::Path) -> Workspace {
    Workspace::new(dir, WorkspaceOptions::default()).expect("workspace")
}

fn outline_of(
    ws: &Workspace,
    outliner: &Outliner,
    path: &str,
) -> ripsight_core::outline::OutlineOutput {
    outline(
        ws,
        outliner,
        &OutlineOptions {
            path: path.into(),
            limit: None,
            ..OutlineOptions::default()
        },
    )
    .expect("outline")
}

const PYTHON: &str = "import os\n\nclass Server:\n    def start(self):\n        pass\n\n    async def stop(self):\n        pass\n\ndef main():\n    def helper():\n        return 1\n    return helper()\n";

#[test]
fn a_python_file_is_outlined_in_source_order_with_nesting() {
    let dir = common::tree(&[("app.py", PYTHON)]);
    let ws = workspace(dir.path());
    let outliner = outliner();
    let out = outline_of(&ws, &outliner, "app.py");
    assert_eq!(out.language, Some(Language::Python));
    assert_eq!(out.refused, None);
    let got: Vec<(SymbolKind, &str, u64, u64, u64)> = out
        .symbols
        .iter()
        .map(|s| (s.kind, s.name.as_str(), s.line, s.end_line, s.depth))
        .collect();
    assert_eq!(
        got,
        vec![
            (SymbolKind::Class, "Server", 3, 8, 0),
            (SymbolKind::Method, "start", 4, 5, 1),
            (SymbolKind::Method, "stop", 7, 8, 1),
            (SymbolKind::Function, "main", 10, 13, 0),
            (SymbolKind::Function, "helper", 11, 12, 1),
        ]
    );
    assert_eq!(out.total, 5);
}

#[test]
fn pages_have_exact_totals_and_depth_filters() {
    let dir = common::tree(&[("app.py", PYTHON)]);
    let ws = workspace(dir.path());
    let outliner = outliner();
    let page = outline(
        &ws,
        &outliner,
        &OutlineOptions {
            path: "app.py".into(),
            offset: 1,
            limit: Some(2),
            ..OutlineOptions::default()
        },
    )
    .expect("outline");
    let names: Vec<&str> = page.symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["start", "stop"]);
    assert_eq!(
        (page.total, page.withheld, page.next_offset),
        (5, 2, Some(3))
    );
    let top = outline(
        &ws,
        &outliner,
        &OutlineOptions {
            path: "app.py".into(),
            max_depth: Some(0),
            ..OutlineOptions::default()
        },
    )
    .expect("outline");
    let names: Vec<&str> = top.symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Server", "main"]);
    assert_eq!(top.total, 2);
}

#[test]
fn files_without_an_outline_say_why() {
    let long_line = format!("var x = \"{}\";\n", "a".repeat(20_000));
    let big = "x = 1\n".repeat(200_000);
    let dir = common::tree(&[
        ("notes.txt", "hello\n"),
        ("min.js", &long_line),
        ("big.py", &big),
    ]);
    common::write(dir.path(), "blob.c", b"int x;\0\x01\x02");
    let ws = workspace(dir.path());
    let outliner = outliner();
    let refused = |path: &str| outline_of(&ws, &outliner, path).refused;
    assert_eq!(refused("notes.txt"), Some(Refusal::NoParser));
    assert_eq!(refused("min.js"), Some(Refusal::Minified));
    assert_eq!(refused("big.py"), Some(Refusal::TooLarge));
    assert_eq!(refused("blob.c"), Some(Refusal::Binary));
    // None of these needed a worker.
    assert_eq!(outliner.workers_started(), 0);
}

#[test]
fn a_script_without_an_extension_is_read_by_its_shebang_line() {
    let dir = common::tree(&[
        ("tool", "#!/usr/bin/env python3\ndef run():\n    pass\n"),
        ("deploy", "#!/bin/sh\nstart() { :; }\n"),
    ]);
    let ws = workspace(dir.path());
    let outliner = outliner();
    let tool = outline_of(&ws, &outliner, "tool");
    assert_eq!(tool.language, Some(Language::Python));
    assert_eq!(tool.symbols[0].name, "run");
    let deploy = outline_of(&ws, &outliner, "deploy");
    assert_eq!(deploy.language, Some(Language::Bash));
    assert_eq!(deploy.symbols[0].name, "start");
}

#[test]
fn an_edit_is_seen_at_once_and_an_unchanged_file_comes_from_the_cache() {
    let dir = common::tree(&[("a.py", "def one():\n    pass\n")]);
    let ws = workspace(dir.path());
    let outliner = outliner();
    let first = outline_of(&ws, &outliner, "a.py");
    assert_eq!(first.symbols[0].name, "one");
    assert!(!first.cached);
    // Read again at once (the file changed a moment ago): from the cache.
    let second = outline_of(&ws, &outliner, "a.py");
    assert!(second.cached);
    assert_eq!(first.symbols, second.symbols);
    // Same size, written at once (perhaps within one tick of the file system's clock): the
    // bytes differ, so it is parsed again.
    common::write(dir.path(), "a.py", "def two():\n    pass\n");
    let again = outline_of(&ws, &outliner, "a.py");
    assert_eq!(again.symbols[0].name, "two");
    assert!(!again.cached);
    // A copy of the first version is the same bytes: cached.
    common::write(dir.path(), "b.py", "def one():\n    pass\n");
    let copy = outline_of(&ws, &outliner, "b.py");
    assert!(copy.cached);
    assert_eq!(copy.symbols, first.symbols);
}

#[test]
fn definitions_come_from_the_files_grep_finds_the_name_in() {
    let dir = common::tree(&[
        (
            "src/server.py",
            "class Server:\n    def start(self):\n        pass\n",
        ),
        (
            "src/client.py",
            "from server import Server\n\ndef start():\n    Server().start()\n",
        ),
        ("lib/start.rs", "pub fn start() {}\nstruct Starter;\n"),
        ("docs/notes.md", "# start\n\nText.\n"),
        ("README.txt", "start here\n"),
    ]);
    let ws = workspace(dir.path());
    let outliner = outliner();
    let search = |o: &ripsight_core::grep::GrepOptions| grep(&ws, o);
    let found = definitions(
        &ws,
        &outliner,
        &DefinitionsOptions {
            name: "start".into(),
            ..DefinitionsOptions::default()
        },
        &search,
    )
    .expect("definitions");
    let got: Vec<String> = found
        .definitions
        .iter()
        .map(|d| {
            format!(
                "{}:{} {} {} {:?}",
                d.path.to_string_lossy(),
                d.line,
                d.kind.name(),
                d.name,
                d.container
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            "docs/notes.md:1 heading start None",
            "lib/start.rs:1 function start None",
            "src/client.py:3 function start None",
            "src/server.py:2 method start Some(\"Server\")",
        ]
    );
    assert_eq!(found.total, 4);
    // README.txt holds the text but has no parser: not a candidate.
    assert_eq!(found.candidate_files, 4);

    let prefix = definitions(
        &ws,
        &outliner,
        &DefinitionsOptions {
            name: "Start".into(),
            matching: NameMatch::Prefix,
            ..DefinitionsOptions::default()
        },
        &search,
    )
    .expect("definitions");
    let names: Vec<&str> = prefix.definitions.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["Starter"]);

    let methods = definitions(
        &ws,
        &outliner,
        &DefinitionsOptions {
            name: "^(start|Server)$".into(),
            matching: NameMatch::Regex,
            kinds: vec![SymbolKind::Method, SymbolKind::Class],
            limit: Some(1),
            ..DefinitionsOptions::default()
        },
        &search,
    )
    .expect("definitions");
    assert_eq!((methods.total, methods.next_offset), (2, Some(1)));
    assert_eq!(methods.definitions[0].name, "Server");
}
