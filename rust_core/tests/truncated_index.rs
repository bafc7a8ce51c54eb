//! An index file truncated in place under a warm index (by another program: ripsight's writers
//! replace files atomically) is never read again: the next call notices before it reads the
//! map, the cold engine answers, and a rebuild replaces the file (issue 37, item 12). Reading
//! the lost pages would raise SIGBUS and end this test's process.

#![cfg(target_os = "linux")]

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ripsight_core::candidates::CandidateSource;
use ripsight_core::grep::{GrepOptions, OutputMode, search};
use ripsight_core::index::{IndexOptions, SymbolPhase, WarmIndex};
use ripsight_core::outline::Outliner;
use ripsight_core::workspace::Workspace;

fn the_file(dir: &Path, suffix: &str) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the index directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    assert_eq!(found.len(), 1, "one {suffix} file: {found:?}");
    found.into_iter().next().expect("one")
}

fn until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The matching files and their counts (grep's answer without its timing).
fn grep_files(ws: &Workspace, index: Option<&WarmIndex>) -> Vec<(String, u64)> {
    let options = GrepOptions {
        pattern: "helper|compute".into(),
        output_mode: OutputMode::Count,
        limit: None,
        ..GrepOptions::default()
    };
    let source = index.map(|i| i as &dyn CandidateSource);
    let out = search(ws, &options, source).expect("grep");
    out.files
        .iter()
        .map(|f| (f.path.to_string_lossy().into_owned(), f.count))
        .collect()
}

#[test]
fn a_truncated_index_or_symbol_file_is_answered_around_and_rebuilt() {
    let files: Vec<(String, String)> = (0..200)
        .map(|i| {
            (
                format!("d{}/f{i}.py", i % 7),
                format!("def compute{i}(x):\n    return helper(x) + {i}\n"),
            )
        })
        .collect();
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let tree = common::tree(&borrowed);
    // Identities over a second old vouch for the contents the files record.
    std::thread::sleep(Duration::from_millis(1200));
    let store = tempfile::tempdir().expect("tempdir");
    let ws = common::ws(tree.path());
    let worker: Vec<OsString> = vec![env!("CARGO_BIN_EXE_ripsight-outline-worker").into()];
    let index = WarmIndex::start(
        &ws,
        IndexOptions {
            index_dir: Some(store.path().to_path_buf()),
            outliner: Some(Arc::new(Outliner::new(worker))),
            ..IndexOptions::default()
        },
    );
    assert!(
        index.wait(Some(Duration::from_secs(120))),
        "the index builds"
    );
    assert!(
        index.wait_symbols(Duration::from_secs(120)),
        "the symbols build"
    );
    let cold = grep_files(&ws, None);
    assert_eq!(cold.len(), 200);
    assert_eq!(grep_files(&ws, Some(&index)), cold);
    let graph = index.symbol_graph(None).expect("answers").expect("a graph");

    // The n-gram file: the next grep answers cold, a rebuild replaces the file.
    let ngram = the_file(store.path(), ".rsidx");
    let size = std::fs::metadata(&ngram).expect("stat").len();
    std::fs::File::options()
        .write(true)
        .open(&ngram)
        .and_then(|f| f.set_len(size / 2))
        .expect("truncate");
    let before = index.status();
    assert_eq!(grep_files(&ws, Some(&index)), cold);
    assert_eq!(index.status().cold_calls, before.cold_calls + 1);
    until("the n-gram rebuild", || {
        index.status().merges == before.merges + 1
    });
    assert_eq!(grep_files(&ws, Some(&index)), cold);
    assert_eq!(index.status().warm_calls, before.warm_calls + 1);

    // The symbol file: the map's graph is drawn cold (none from the index), then from the
    // rebuilt file, the same.
    let symbols = the_file(store.path(), "-symbols.rssym");
    std::fs::File::options()
        .write(true)
        .open(&symbols)
        .and_then(|f| f.set_len(0))
        .expect("truncate");
    assert!(
        index.symbol_graph(None).is_none(),
        "no graph from a short file"
    );
    until("the symbol rebuild", || {
        index.status().symbols == SymbolPhase::Ready
    });
    let again = index.symbol_graph(None).expect("answers").expect("a graph");
    assert_eq!(again.graph.files.len(), graph.graph.files.len());
    assert!(
        std::fs::metadata(the_file(store.path(), "-symbols.rssym"))
            .expect("stat")
            .len()
            > 0
    );
}
