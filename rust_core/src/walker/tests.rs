//! The walker on a tree holding every rule it applies, in both modes.

use super::*;
use crate::workspace::WorkspaceOptions;
use std::ffi::OsStr;
use std::path::PathBuf;

struct Collect(Vec<String>);

impl FileVisitor for Collect {
    fn visit_file(&mut self, file: &WalkedFile<'_>, _skipped: &mut SkipCounts) -> bool {
        self.0.push(file.relative.to_string());
        true
    }
}

/// Collects directories with their inode, through `visit_dir`.
struct Dirs(Vec<(String, u64)>, Vec<(String, WalkSkip)>);

impl FileVisitor for Dirs {
    fn visit_file(&mut self, _file: &WalkedFile<'_>, _skipped: &mut SkipCounts) -> bool {
        true
    }

    fn visit_dir(&mut self, relative: &[u8], dir: BorrowedFd<'_>) -> bool {
        let ino = rustix::fs::fstat(dir).map_or(0, |st| st.st_ino);
        self.0
            .push((String::from_utf8_lossy(relative).into_owned(), ino));
        true
    }

    fn skipped_entry(&mut self, relative: &[u8], reason: WalkSkip) {
        self.1
            .push((String::from_utf8_lossy(relative).into_owned(), reason));
    }
}

struct PanicOn(&'static str);

impl FileVisitor for PanicOn {
    fn visit_file(&mut self, file: &WalkedFile<'_>, _skipped: &mut SkipCounts) -> bool {
        assert!(file.relative != self.0, "visitor panics on {}", self.0);
        true
    }
}

#[test]
fn a_panicking_visitor_stops_the_parallel_walk_instead_of_hanging_it() {
    let (_keep, root) = edge_tree();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let options = WorkspaceOptions {
            threads: 4,
            ..WorkspaceOptions::default()
        };
        let ws = Workspace::new(&root, options).expect("workspace");
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            walk_files_with(
                &ws,
                start(&ws, ""),
                ws.deadline(),
                WalkMode::Parallel,
                || PanicOn("src/main.rs"),
            )
        }));
        let _ = done.send(outcome.is_err());
    });
    let panicked = finished
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the walk returned (no hang)");
    assert!(panicked);
}

#[test]
fn visit_dir_sees_every_listed_directory_with_its_descriptor() {
    use std::os::unix::fs::MetadataExt;
    let (_keep, root) = edge_tree();
    let ws = Workspace::new(&root, WorkspaceOptions::default()).expect("workspace");
    let outcome = walk_files_with(
        &ws,
        start(&ws, ""),
        ws.deadline(),
        WalkMode::Parallel,
        || Dirs(Vec::new(), Vec::new()),
    );
    let skips: Vec<(String, WalkSkip)> =
        outcome.visitors.iter().flat_map(|d| d.1.clone()).collect();
    let counted = outcome.skipped;
    assert_eq!(
        skips.len() as u64,
        counted.ignored
            + counted.ignored_by_rules
            + counted.denied
            + counted.symlink
            + counted.special
            + counted.unreadable
    );
    // Hidden by ignore files, each with its rule: build/ (a directory, once), the logs
    // (.gitignore's `*.log`, other.log; drop.log is re-included), src/gen_x.rs (.ignore).
    let hidden: Vec<(String, String)> = skips
        .iter()
        .filter_map(|(path, reason)| match reason {
            WalkSkip::Hidden(rule) => Some((
                path.clone(),
                format!("{}:{}: {}", rule.file, rule.line, rule.rule),
            )),
            _ => None,
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        hidden,
        [
            ("build".to_string(), ".gitignore:1: build/".to_string()),
            ("other.log".to_string(), ".gitignore:2: *.log".to_string()),
            (
                "src/gen_x.rs".to_string(),
                "src/.ignore:1: gen_*".to_string()
            ),
        ]
    );
    assert_eq!(counted.ignored_by_rules, 3);
    assert_eq!(
        outcome.hidden_by.top(2),
        [
            crate::skip::IgnoreRule {
                file: ".gitignore".into(),
                line: 1,
                rule: "build/".into(),
                hidden: 1
            },
            crate::skip::IgnoreRule {
                file: ".gitignore".into(),
                line: 2,
                rule: "*.log".into(),
                hidden: 1
            },
        ]
    );
    for expected in [
        (".env", WalkSkip::Denied),
        ("node_modules", WalkSkip::Ignored),
        ("src/deep/loop", WalkSkip::Symlink),
        ("pipe", WalkSkip::Special),
    ] {
        assert!(
            skips.contains(&(expected.0.to_string(), expected.1.clone())),
            "{expected:?}"
        );
    }
    let mut dirs: Vec<(String, u64)> = outcome.visitors.into_iter().flat_map(|d| d.0).collect();
    dirs.sort();
    let names: Vec<&str> = dirs.iter().map(|(d, _)| d.as_str()).collect();
    // Not build/ (gitignored), .git and node_modules (skip set), secrets/ is listed (its
    // key.pem is denied by name), no link.
    assert_eq!(
        names,
        [
            "",
            ".github",
            ".github/workflows",
            "secrets",
            "src",
            "src/deep"
        ]
    );
    for (dir, ino) in &dirs {
        let meta = std::fs::metadata(root.join(dir)).expect("stat");
        assert_eq!(*ino, meta.ino() as u64, "{dir}");
    }
}

/// The directory `sub` opened as a walk's start, through the root descriptor (in-root links
/// resolved, as for a requested path).
fn start(ws: &Workspace, sub: &str) -> StartDir {
    let root = ws.root_dir();
    let resolved = root.resolve(OsStr::new(sub)).expect("resolves");
    match root.open_real(&resolved.real).expect("opens") {
        boundary::Opened::Dir(fd) => StartDir {
            fd,
            relative: resolved.real,
        },
        boundary::Opened::File(..) => panic!("{sub} is a file"),
    }
}

fn walk(ws: &Workspace, sub: &str, mode: WalkMode) -> (Vec<String>, SkipCounts, bool) {
    let outcome = walk_files_with(ws, start(ws, sub), ws.deadline(), mode, || {
        Collect(Vec::new())
    });
    let mut paths: Vec<String> = outcome.visitors.into_iter().flat_map(|c| c.0).collect();
    paths.sort();
    (paths, outcome.skipped, outcome.incomplete)
}

fn write(root: &Path, relative: &str, content: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, content).expect("write");
}

/// A tree with every rule the walker applies: ignore files, the skip set, deny rules,
/// symlinks in and out of the root, loops, broken links and a FIFO.
fn edge_tree() -> (tempfile::TempDir, PathBuf) {
    let parent = tempfile::tempdir().expect("tempdir");
    let root = parent.path().join("repo");
    let outside = parent.path().join("outside");
    write(&outside, "secret.txt", "s\n");
    std::fs::create_dir_all(root.join(".git")).expect("git");
    write(&root, ".gitignore", "build/\n*.log\n!keep.log\n");
    write(&root, "a.txt", "a\n");
    write(&root, "keep.log", "k\n");
    write(&root, "drop.log", "d\n");
    write(&root, "build/out.txt", "o\n");
    write(&root, ".ripsightignore", "!drop.log\n");
    write(&root, "other.log", "o\n");
    write(&root, "src/.ignore", "gen_*\n");
    write(&root, "src/gen_x.rs", "g\n");
    write(&root, "src/main.rs", "m\n");
    write(&root, "src/deep/lib.rs", "l\n");
    write(&root, "node_modules/pkg/index.js", "n\n");
    write(&root, ".env", "SECRET=1\n");
    write(&root, "secrets/key.pem", "k\n");
    write(&root, ".github/workflows/ci.yml", "c\n");
    let link = |target: &Path, name: &str| {
        std::os::unix::fs::symlink(target, root.join(name)).expect("symlink");
    };
    link(&root.join("src"), "src_link");
    link(&root.join("a.txt"), "a_link.txt");
    link(&outside, "out_dir");
    link(&outside.join("secret.txt"), "out_file.txt");
    link(&root, "src/deep/loop");
    link(parent.path(), "up");
    link(&root.join(".env"), "notes.txt");
    link(&root.join("missing"), "broken.txt");
    let status = std::process::Command::new("mkfifo")
        .arg(root.join("pipe"))
        .status();
    assert!(status.is_ok_and(|s| s.success()), "mkfifo");
    (parent, root)
}

#[test]
fn sequential_and_parallel_walks_agree() {
    let (_keep, root) = edge_tree();
    for threads in [1, 2, 4] {
        let options = WorkspaceOptions {
            threads,
            ..WorkspaceOptions::default()
        };
        let ws = Workspace::new(&root, options).expect("workspace");
        let sequential = walk(&ws, "", WalkMode::Sequential);
        let parallel = walk(&ws, "", WalkMode::Parallel);
        assert_eq!(sequential, parallel, "threads={threads}");
        assert!(sequential.0.contains(&"src/deep/lib.rs".to_string()));
        assert!(!sequential.0.iter().any(|p| p.starts_with("src_link")));
        assert!(sequential.0.contains(&"drop.log".to_string()));
        assert!(!sequential.0.contains(&"other.log".to_string()));
        // .git and node_modules; .env and secrets/key.pem; eight links, none followed
        // (src_link, a_link.txt, out_dir, out_file.txt, src/deep/loop, up, notes.txt,
        // broken.txt); the pipe.
        let skipped = sequential.1;
        assert_eq!(
            (skipped.ignored, skipped.denied, skipped.symlink),
            (2, 2, 8),
            "{sequential:?}"
        );
        assert_eq!(
            (skipped.special, skipped.unreadable, skipped.outside_root),
            (1, 0, 0),
            "{sequential:?}"
        );
        assert!(!sequential.0.iter().any(|p| p.contains("secret")));
        for sub in ["src", "src_link", "src/deep"] {
            assert_eq!(
                walk(&ws, sub, WalkMode::Sequential),
                walk(&ws, sub, WalkMode::Parallel),
                "{sub}"
            );
        }
    }
}

#[test]
fn auto_mode_remembers_tree_sizes_and_both_modes_agree() {
    let (_keep, root) = edge_tree();
    let ws = Workspace::new(&root, WorkspaceOptions::default()).expect("workspace");
    assert_eq!(ws.walk_size(""), None);
    let auto = WalkMode::Auto {
        crossover: Crossover {
            alone: 1_000,
            busy: 1_000,
        },
    };
    let first = walk(&ws, "", auto);
    let seen = ws.walk_size("").expect("size remembered");
    assert!(seen > 10 && seen <= 1_000, "{seen}");
    let second = walk(&ws, "", auto);
    assert_eq!(first, second);
    assert_eq!(first, walk(&ws, "", WalkMode::Parallel));
    // Sequential and parallel walks count the same entries.
    walk(&ws, "", WalkMode::Parallel);
    let parallel_seen = ws.walk_size("");
    walk(&ws, "", WalkMode::Sequential);
    assert_eq!(ws.walk_size(""), parallel_seen);
}

/// How many workers a walk of the whole tree in `Auto` mode ran on.
fn workers_of(ws: &Workspace, crossover: Crossover) -> usize {
    let mode = WalkMode::Auto { crossover };
    walk_files_with(ws, start(ws, ""), ws.deadline(), mode, || {
        Collect(Vec::new())
    })
    .visitors
    .len()
}

#[test]
fn a_small_walk_stays_on_one_thread_while_another_call_runs() {
    let (_keep, root) = edge_tree();
    let options = WorkspaceOptions {
        threads: 2,
        ..WorkspaceOptions::default()
    };
    let ws = Workspace::new(&root, options).expect("workspace");
    let never = Crossover { alone: 0, busy: 0 };
    // Unknown size: parallel; then the size is known.
    assert_eq!(workers_of(&ws, never), 2);
    let seen = ws.walk_size("").expect("size remembered");
    let when_busy = Crossover {
        alone: 0,
        busy: seen,
    };
    assert_eq!(
        workers_of(
            &ws,
            Crossover {
                alone: seen,
                busy: 0
            }
        ),
        1
    );
    // Two calls marked running (this one and another): the walk takes one thread. (Whether
    // it takes two without them depends on other tests' marks in this process.)
    let _this = crate::background::call_started();
    let _other = crate::background::call_started();
    assert_eq!(workers_of(&ws, when_busy), 1);
    assert_eq!(workers_of(&ws, never), 2, "larger than `busy`: parallel");
}

#[test]
fn an_expired_budget_stops_both_modes_and_is_not_remembered_as_a_size() {
    let (_keep, root) = edge_tree();
    let ws = Workspace::new(&root, WorkspaceOptions::default()).expect("workspace");
    for mode in [WalkMode::Sequential, WalkMode::Parallel] {
        let expired = Deadline::start(std::time::Duration::ZERO);
        let outcome = walk_files_with(&ws, start(&ws, ""), expired, mode, || Collect(Vec::new()));
        assert!(outcome.incomplete, "{mode:?}");
        let found: usize = outcome.visitors.iter().map(|c| c.0.len()).sum();
        assert_eq!(found, 0, "{mode:?}");
        assert_eq!(ws.walk_size(""), None, "{mode:?}");
    }
}
