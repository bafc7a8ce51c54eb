//! The contents an index file holds (see `postings::contents`): written with the lists, kept
//! for the live documents by a merge, checked like the lists.

use std::collections::BTreeMap;

use super::tests::{merged_sample, open, read, sample, write};
use super::*;
use crate::index::format::reseal;

/// The bytes each file of `table` holds in `data`, by path.
fn held_by_path(data: &Data, table: &BTreeMap<String, FileEntry>) -> BTreeMap<String, Vec<u8>> {
    table
        .iter()
        .filter_map(|(path, entry)| {
            let doc = entry.doc?;
            Some((path.clone(), data.held(doc)?.to_vec()))
        })
        .collect()
}

#[test]
fn a_written_base_holds_the_contents_of_its_small_text_files() {
    let (_dir, table, bytes) = sample();
    let data = open(bytes).expect("valid");
    let held = held_by_path(&data, &table);
    let expected: BTreeMap<String, Vec<u8>> = [
        ("a.txt", "alpha beta"),
        ("b.txt", "beta gamma"),
        ("e.txt", "delta alpha"),
    ]
    .iter()
    .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
    .collect();
    // The binary file has no document, the empty one holds nothing (it is opened).
    assert_eq!(held, expected);
    assert_eq!(data.contents.held(), 3);
    assert_eq!(data.contents.bytes_len(), 10 + 10 + 11);
    assert_eq!(data.contents.len(3), 0, "the empty file");
    assert!(!data.damaged());
}

#[test]
fn files_larger_than_the_limit_are_indexed_but_not_held() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut table = BTreeMap::new();
    let limit = super::super::postings::MAX_HELD_BYTES;
    let at_limit = "x".repeat(limit - 1) + "\n";
    let over = "y".repeat(limit) + "\n";
    let contents = [("at.txt", at_limit.as_str()), ("over.txt", over.as_str())];
    let built = read(dir.path(), &contents, &mut table, 0);
    let data = open(write(&Data::empty(), &table, &built)).expect("valid");
    assert_eq!(data.held(0), Some(at_limit.as_bytes()));
    assert_eq!(data.held(1), None);
    assert_eq!(data.contents.held(), 1);
}

#[test]
fn a_merge_keeps_the_live_documents_contents_and_drops_the_dead_ones() {
    let (_dir, table, merged) = merged_sample();
    let held = held_by_path(&merged, &table);
    assert_eq!(held["a.txt"], b"alpha beta");
    assert_eq!(
        held["b.txt"], b"omega alpha",
        "the new contents, not the old"
    );
    assert_eq!(held["e.txt"], b"delta alpha");
    assert_eq!(held["f.txt"], b"beta");
    // b.txt's old document is dead: its bytes were not copied.
    assert_eq!(merged.held(1), None);
    assert_eq!(merged.contents.held(), 4);
    assert_eq!(merged.contents.bytes_len(), 10 + 11 + 11 + 4);
}

#[test]
fn damaged_contents_are_never_handed_out() {
    let (_dir, table, bytes) = sample();
    let data = open(bytes.clone()).expect("valid");
    let span = {
        let sections = Sections::check(&bytes, &TRIGRAMS).expect("valid");
        sections.span(Kind::Content)
    };
    assert!(!span.is_empty());
    for at in span {
        let mut bad = bytes.clone();
        bad[at] ^= 0x20;
        // The open passes (the contents are checked lazily); the read of the damaged block
        // fails, and the whole file counts as damaged from then on.
        let data = open(bad).expect("checked lazily");
        let doc = table["a.txt"].doc.expect("a document");
        assert_eq!(data.held(doc), None, "flip at {at}");
        assert!(data.damaged());
        assert!(
            table
                .values()
                .all(|e| e.doc.is_none_or(|d| data.held(d).is_none()))
        );
    }
    assert!(data.held(0).is_some());
}

#[test]
fn inconsistent_content_tables_are_refused_at_open() {
    let (_dir, _table, bytes) = sample();
    let sections = Sections::check(&bytes, &TRIGRAMS).expect("valid");
    let starts = sections.span(Kind::ContentStarts);
    // Each start made larger than the next one's, or past the end, with checksums that agree.
    for i in 0..starts.len() / 8 {
        let mut bad = bytes.clone();
        let at = starts.start + i * 8;
        bad[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        reseal(&mut bad, &TRIGRAMS);
        assert!(open(bad).is_err(), "start {i}");
    }
}
