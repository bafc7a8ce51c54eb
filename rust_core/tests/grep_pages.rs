//! Paging of `grep` results: a page of matches with its context equals the same slice of the
//! complete result, for every output mode, thread count and offset, near the start and far past
//! the matches whose text is kept during the search.

mod common;

use common::{rendered, search, tree, write, ws, ws_with};
use ripsight_core::grep::{GrepOutput, OutputMode};

#[test]
fn paging_in_content_mode_counts_matching_lines() {
    let dir = tree(&[
        ("a.txt", "m1\nx\nm2\n"),
        ("b.txt", "m3\nm4\n"),
        ("c.txt", "x\nm5\n"),
    ]);
    let ws = ws(dir.path());
    let out = search(&ws, "m", |o| {
        o.offset = 1;
        o.limit = Some(2);
        o.set_context(1);
    });
    let matches: Vec<_> = out
        .lines
        .iter()
        .filter(|l| l.is_match)
        .map(|l| l.text.clone())
        .collect();
    assert_eq!(matches, ["m2", "m3"]);
    // a.txt line 2 is context of m2; b.txt line 2 (m4) is a withheld match, not shown as context.
    assert_eq!(rendered(&out), ["a.txt-2-x", "a.txt:3:m2", "b.txt:1:m3"]);
    assert_eq!(
        (out.total_matches, out.total_files, out.withheld, out.offset),
        (5, 3, 2, 1)
    );
}

#[test]
fn text_bound_gives_the_same_page_as_an_unbounded_search() {
    // Many files with many matches, searched by several threads: the page of a bounded search
    // must equal the same slice of the complete result.
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..120 {
        let body: String = (0..(i % 7 + 1))
            .map(|j| format!("hit {i} {j}\nmiss\n"))
            .collect();
        write(
            dir.path(),
            &format!("d{}/f{i:03}.txt", i % 5),
            body.as_bytes(),
        );
    }
    for threads in [1, 2, 4] {
        let ws = ws_with(dir.path(), |o| o.threads = threads);
        let all = rendered(&search(&ws, "hit", |_| {}));
        for (offset, limit) in [(0, 5), (3, 10), (100, 40), (300, 50)] {
            let out = search(&ws, "hit", |o| {
                o.offset = offset;
                o.limit = Some(limit);
            });
            let end = (offset + limit).min(all.len());
            let expected = if offset < all.len() {
                &all[offset..end]
            } else {
                &[][..]
            };
            assert_eq!(
                rendered(&out),
                expected,
                "threads {threads} offset {offset}"
            );
            assert_eq!(out.total_matches as usize, all.len());
        }
        // The file modes page over files with the same bound.
        let counts = |offset, limit| {
            let out = search(&ws, "hit", |o| {
                o.output_mode = OutputMode::Count;
                o.offset = offset;
                o.limit = limit;
            });
            (out.files, out.total_files, out.withheld)
        };
        let (every, total_files, _) = counts(0, None);
        assert_eq!(total_files, 120);
        for (offset, limit) in [(0, 7), (50, 25), (115, 10), (200, 5)] {
            let (page, total, withheld) = counts(offset, Some(limit));
            let end = (offset + limit).min(every.len());
            let expected = if offset < every.len() {
                &every[offset..end]
            } else {
                &[][..]
            };
            assert_eq!(page, expected, "threads {threads} offset {offset}");
            assert_eq!(total, 120);
            assert_eq!(
                withheld as usize,
                every.len().saturating_sub(offset + limit)
            );
        }
    }
}

/// The page `offset .. offset + limit` of matches, with their context lines, as the complete
/// result (`all`, searched with the same context) shows them: context lines within `context`
/// lines of a selected match of the same file, never a withheld match.
fn page_of(all: &GrepOutput, offset: usize, limit: usize, context: u64) -> Vec<String> {
    let mut index = 0usize;
    let mut selected: Vec<(&std::ffi::OsStr, u64)> = Vec::new();
    for line in &all.lines {
        if line.is_match {
            if index >= offset && index < offset + limit {
                selected.push((&line.path, line.line));
            }
            index += 1;
        }
    }
    let near = |path: &std::ffi::OsStr, n: u64| {
        selected
            .iter()
            .any(|(p, m)| *p == path && m.saturating_sub(context) <= n && n <= m + context)
    };
    let mut index = 0usize;
    let mut out = Vec::new();
    for line in &all.lines {
        let show = if line.is_match {
            index += 1;
            index > offset && index <= offset + limit
        } else {
            near(&line.path, line.line)
        };
        if show {
            let sep = if line.is_match { ':' } else { '-' };
            out.push(format!(
                "{}{sep}{}{sep}{}",
                line.path.to_string_lossy(),
                line.line,
                line.text
            ));
        }
    }
    out
}

#[test]
fn pages_far_past_the_start_fetch_their_lines_after_the_search() {
    // More matches than a page keeps text for during the search: pages beyond
    // TEXT_IN_PASS_MAX_ENTRIES keep counts only and search their files again.
    let far = ripsight_core::grep::TEXT_IN_PASS_MAX_ENTRIES as usize;
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..40 {
        // Matches next to each other and apart: a withheld match inside the context of the
        // page's last match, with context lines after it, must be handled as in the search.
        let body: String = (0..(far / 10 + i))
            .map(|j| match j % 3 {
                0 => format!("hit {i} {j}\nmiss {j}\n"),
                1 => format!("hit {i} {j}\nhit {i} {j} again\nmiss {j}\nmiss\n"),
                _ => format!("hit {i} {j}\nmiss\nmiss\nmiss\nmiss {j}\n"),
            })
            .collect();
        write(
            dir.path(),
            &format!("d{}/f{i:02}.txt", i % 3),
            body.as_bytes(),
        );
    }
    for threads in [1, 2] {
        let ws = ws_with(dir.path(), |o| o.threads = threads);
        for context in [0u64, 1, 2] {
            let all = search(&ws, "hit", |o| o.set_context(context as usize));
            let total = all.total_matches as usize;
            assert!(total > 3 * far);
            let mut pages = vec![
                (far - 50, 50),
                (far - 20, 50),
                (far + 7, 13),
                (2 * far + 333, 500),
                (total - 5, 50),
                (total + 10, 5),
            ];
            // Every page end position within a few files' worth of lines.
            pages.extend((0..40).map(|k| (far + 100 + 7 * k, 1 + k % 4)));
            for (offset, limit) in pages {
                let out = search(&ws, "hit", |o| {
                    o.set_context(context as usize);
                    o.offset = offset;
                    o.limit = Some(limit);
                });
                assert_eq!(
                    rendered(&out),
                    page_of(&all, offset, limit, context),
                    "threads {threads} context {context} offset {offset}"
                );
                assert_eq!(out.total_matches as usize, total);
                assert_eq!(
                    out.withheld as usize,
                    total.saturating_sub(offset + limit),
                    "offset {offset}"
                );
                assert!(!out.incomplete);
            }
        }
    }
}
