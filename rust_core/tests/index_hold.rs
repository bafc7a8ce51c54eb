//! A call made while the index builds holds the build (`WarmIndex::hold`): its threads stop
//! between two files until the call ends, so the call, which the cold engine answers, has the
//! machine a cold call would have had (issue 37, item 8). Once built, nothing is held.

mod common;

use std::time::Duration;

use ripsight_core::index::{IndexOptions, IndexState, WarmIndex};

#[test]
fn a_held_build_waits_for_the_call_then_finishes() {
    let tree = common::generated_tree(2000, |i| {
        (format!("d{}/f{i}.txt", i % 13), format!("line {i}\n"))
    });
    let ws = common::ws(tree.path());
    let index = WarmIndex::start(
        &ws,
        IndexOptions {
            persist: false,
            ..IndexOptions::default()
        },
    );
    let hold = index
        .hold()
        .expect("the index is building: a call holds it");
    // Held, the build reads no file: it cannot finish, however long the call runs.
    assert!(
        !index.wait(Some(Duration::from_millis(1500))),
        "the build went on while held"
    );
    assert_eq!(index.status().state, IndexState::Building);
    drop(hold);
    assert!(
        index.wait(Some(Duration::from_secs(120))),
        "the build goes on once the call ends"
    );
    assert_eq!(index.status().state, IndexState::Ready);
    assert!(index.hold().is_none(), "a built index holds nothing");
}
