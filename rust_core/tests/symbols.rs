//! The symbol index's graph for the repository map (`WarmIndex::symbol_graph`): each file's
//! definitions and referenced names with their counts (uses: declarations without a value are
//! none), as the map's cold producer gives them from a parse in a real worker, before and after
//! an edit (the edited file comes from the overlay).

#![cfg(target_os = "linux")]

mod common;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::sync::Arc;
use std::time::Duration;

use ripsight_core::index::{IndexOptions, SymbolPhase, WarmIndex};
use ripsight_core::outline::Outliner;
use ripsight_core::outline::collect::collect;
use ripsight_core::outline::graph::SymbolGraph;
use ripsight_core::workspace::{Workspace, WorkspaceOptions};

fn worker_command() -> Vec<OsString> {
    vec![env!("CARGO_BIN_EXE_ripsight-outline-worker").into()]
}

/// Per file: its definitions (name, line, end line, depth) and its referenced names with counts.
type Described = BTreeMap<String, (Vec<(String, u32, u32, u32)>, BTreeMap<String, u32>)>;

fn described(graph: &SymbolGraph) -> Described {
    let name = |id: u32| graph.names[id as usize].clone();
    graph
        .files
        .iter()
        .map(|f| {
            let definitions = f
                .definitions
                .iter()
                .map(|d| (name(d.name), d.line, d.end_line, d.depth))
                .collect();
            let references = f.references.iter().map(|&(n, c)| (name(n), c)).collect();
            (
                f.path.to_string_lossy().into_owned(),
                (definitions, references),
            )
        })
        .collect()
}

/// What the cold producer of the map (`outline::collect`: each file parsed in a worker) gives:
/// the index's oracle.
fn parsed(ws: &Workspace, outliner: &Outliner, paths: &[&str]) -> Described {
    let files: Vec<OsString> = paths.iter().map(OsString::from).collect();
    let collected = collect(ws, outliner, &files, &ws.deadline(), usize::MAX);
    assert_eq!(
        collected.files_parsed,
        paths.len() as u64,
        "every file parses"
    );
    described(&collected.graph)
}

#[test]
fn the_graph_holds_what_each_file_parses_to_before_and_after_an_edit() {
    let dir = common::tree(&[
        (
            "a.py",
            "def helper(x):\n    return x\n\ndef main():\n    helper(1)\n    helper(2)\n",
        ),
        (
            "lib/b.c",
            "int helper(int v);\nint run(void)\n{\n\treturn helper(3) + helper(4);\n}\n",
        ),
        (
            "lib/c.go",
            "package c\n\nfunc Run() int { return helper(1) }\n",
        ),
        ("notes.txt", "helper\n"),
    ]);
    // Identities over a second old vouch for the contents the symbol file records.
    std::thread::sleep(Duration::from_millis(1200));
    let ws = Workspace::new(dir.path(), WorkspaceOptions::default()).expect("workspace");
    let outliner = Arc::new(Outliner::new(worker_command()));
    let index = WarmIndex::start(
        &ws,
        IndexOptions {
            persist: false,
            outliner: Some(Arc::clone(&outliner)),
            ..IndexOptions::default()
        },
    );
    assert!(
        index.wait_symbols(Duration::from_secs(60)),
        "the symbols build"
    );
    assert_eq!(index.status().symbols, SymbolPhase::Ready);
    let graph = index.symbol_graph(None).expect("answers").expect("a graph");
    let paths = ["a.py", "lib/b.c", "lib/c.go"];
    assert_eq!(described(&graph.graph), parsed(&ws, &outliner, &paths));
    assert_eq!(described(&graph.graph)["a.py"].1.get("helper"), Some(&2));
    // The prototype `int helper(int v);` declares; the two calls use.
    assert_eq!(described(&graph.graph)["lib/b.c"].1.get("helper"), Some(&2));
    let below = index
        .symbol_graph(Some(std::ffi::OsStr::new("lib")))
        .expect("answers")
        .expect("a graph");
    assert_eq!(
        described(&below.graph),
        parsed(&ws, &outliner, &["lib/b.c", "lib/c.go"])
    );
    // An edit: the file is parsed again (the overlay), the others still read from the index.
    std::fs::write(
        dir.path().join("lib/c.go"),
        "package c\n\nfunc Run() int { return helper(1) + helper(2) + other() }\n",
    )
    .expect("edit");
    let edited = index.symbol_graph(None).expect("answers").expect("a graph");
    assert_eq!(described(&edited.graph), parsed(&ws, &outliner, &paths));
    assert_eq!(
        described(&edited.graph)["lib/c.go"].1.get("helper"),
        Some(&2)
    );
}
