//! The drivers with a candidate source of the tests' own: what it lists is what is searched
//! (and what it proves match-free is counted so), and when it cannot answer the walk does.

use std::cell::RefCell;
use std::ffi::OsString;

use super::*;
use crate::glob::{self, GlobOptions, GlobOutput};
use crate::grep::{self, GrepOptions, GrepOutput, OutputMode};
use crate::workspace::{Workspace, WorkspaceOptions};

/// A source that lists the given files (or cannot answer, with `None`) and records the
/// directories it was asked about.
#[derive(Default)]
struct Fixed {
    grep: Option<(Vec<&'static str>, u64, Vec<&'static str>)>,
    glob: Option<Vec<&'static str>>,
    asked: RefCell<Vec<Option<Vec<u8>>>>,
}

impl CandidateSource for Fixed {
    fn grep_candidates(&self, ask: &GrepAsk<'_>) -> Option<Listed> {
        self.asked.borrow_mut().push(ask.dir.map(<[u8]>::to_vec));
        let (paths, unread, unread_paths) = self.grep.clone()?;
        ask.dir?;
        Some(Listed {
            paths: paths.into_iter().map(String::from).collect(),
            unread,
            unread_paths: unread_paths.into_iter().map(String::from).collect(),
            ..Listed::default()
        })
    }

    fn glob_candidates(&self, ask: &GlobAsk<'_>, take: &mut dyn FnMut(ListedFiles<'_>)) -> bool {
        self.asked.borrow_mut().push(Some(ask.walked.to_vec()));
        let Some(paths) = &self.glob else {
            return false;
        };
        let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
        let identity = FileIdentity::default();
        let counted = || 7;
        take(ListedFiles {
            files: paths
                .iter()
                .map(|path| ListedFile {
                    path,
                    identity: &identity,
                })
                .collect(),
            in_scope: Some(&counted),
            skipped: SkipCounts::default(),
            hidden_by: Vec::new(),
        });
        true
    }
}

/// A tree of three files, two holding the needle.
fn tree() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("src")).expect("mkdir");
    for (name, text) in [
        ("src/a.txt", "needle\n"),
        ("src/b.txt", "a needle\n"),
        ("src/c.txt", "hay\n"),
    ] {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    let ws = Workspace::new(dir.path(), WorkspaceOptions::default()).expect("workspace");
    (dir, ws)
}

fn grep_options(output_mode: OutputMode) -> GrepOptions {
    GrepOptions {
        pattern: "needle".into(),
        output_mode,
        limit: None,
        ..GrepOptions::default()
    }
}

fn timeless(mut out: GrepOutput) -> GrepOutput {
    out.elapsed_ms = 0.0;
    out
}

fn names(out: &GrepOutput) -> Vec<OsString> {
    out.files.iter().map(|f| f.path.clone()).collect()
}

#[test]
fn a_source_that_cannot_answer_leaves_the_walk_to_answer() {
    let (_dir, ws) = tree();
    let source = Fixed::default();
    for mode in [OutputMode::Content, OutputMode::FilesWithoutMatch] {
        let options = grep_options(mode);
        let walked = timeless(grep::grep(&ws, &options).expect("walk"));
        let driven = timeless(grep::search(&ws, &options, Some(&source)).expect("driver"));
        assert_eq!(driven, walked);
    }
    let options = GlobOptions {
        pattern: "**/*.txt".into(),
        ..GlobOptions::default()
    };
    let timeless_glob = |mut out: GlobOutput| {
        out.elapsed_ms = 0.0;
        out
    };
    let walked = timeless_glob(glob::glob(&ws, &options).expect("walk"));
    let driven = timeless_glob(glob::list(&ws, &options, Some(&source)).expect("driver"));
    assert_eq!(driven, walked);
    assert_eq!(walked.total, 3);
}

#[test]
fn the_files_a_source_lists_are_searched_and_those_it_proves_match_free_counted() {
    let (_dir, ws) = tree();
    // The source leaves out src/a.txt, which matches: the driver reads what it is given.
    let source = Fixed {
        grep: Some((vec!["src/b.txt"], 2, vec![])),
        ..Fixed::default()
    };
    let out = grep::search(&ws, &grep_options(OutputMode::Count), Some(&source)).expect("grep");
    assert_eq!(names(&out), vec![OsString::from("src/b.txt")]);
    assert_eq!((out.total_files, out.files_searched), (1, 3));
    // In files_without_match mode the files proved match-free are the entries.
    let source = Fixed {
        grep: Some((vec!["src/a.txt"], 0, vec!["src/c.txt"])),
        ..Fixed::default()
    };
    let mode = OutputMode::FilesWithoutMatch;
    let out = grep::search(&ws, &grep_options(mode), Some(&source)).expect("grep");
    assert_eq!(names(&out), vec![OsString::from("src/c.txt")]);
    assert_eq!(out.files_searched, 2);
}

#[test]
fn the_source_is_asked_once_and_a_single_file_is_searched_by_its_path() {
    let (_dir, ws) = tree();
    let source = Fixed {
        grep: Some((vec![], 0, vec![])),
        ..Fixed::default()
    };
    let options = GrepOptions {
        path: Some("src".into()),
        ..grep_options(OutputMode::Count)
    };
    grep::search(&ws, &options, Some(&source)).expect("directory");
    let options = GrepOptions {
        path: Some("src/a.txt".into()),
        ..grep_options(OutputMode::Count)
    };
    let out = grep::search(&ws, &options, Some(&source)).expect("file");
    assert_eq!(out.total_files, 1, "the named file is searched, not listed");
    assert_eq!(*source.asked.borrow(), vec![Some(b"src".to_vec()), None]);
}

#[test]
fn a_glob_matches_pages_and_counts_the_files_a_source_lists() {
    let (_dir, ws) = tree();
    let source = Fixed {
        glob: Some(vec!["src/a.txt", "src/b.rs", "src/c.txt"]),
        ..Fixed::default()
    };
    let options = GlobOptions {
        pattern: "**/*.txt".into(),
        limit: Some(1),
        offset: 1,
        ..GlobOptions::default()
    };
    let out = glob::list(&ws, &options, Some(&source)).expect("glob");
    assert_eq!(out.paths, vec![OsString::from("src/c.txt")]);
    assert_eq!((out.total, out.withheld), (2, 0));
    // Nothing listed: the files in scope are the source's count.
    let options = GlobOptions {
        pattern: "**/*.zzz".into(),
        ..GlobOptions::default()
    };
    let out = glob::list(&ws, &options, Some(&source)).expect("glob");
    assert_eq!((out.total, out.files_in_scope), (0, Some(7)));
}
