//! The repository map's ranking: which files of a [`SymbolGraph`] matter most, and which of
//! their definitions the rest of the tree uses most.
//!
//! A file matters when other files use what it defines. The ranking is a PageRank over the
//! files, where a file passes its rank on to the files defining the names it references: a
//! reader who follows uses from file to file, and now and then starts afresh at a file of the
//! focus (every file alike when there is none), spends the most time in the files it keeps
//! being sent to. PageRank rather than a plain count of incoming uses, because a use from a file
//! that matters itself counts for more: `kmalloc` is used by thousands of drivers, each used by
//! nothing, while a header used by the core of the tree is worth more per use.
//!
//! The weight of file `f`'s uses of name `n` (referenced `c` times) is `sqrt(c)`: the tenth
//! call of a name says less than the first. A file passes its rank on in proportion to these
//! weights, split evenly between the files defining each name (references are matched by
//! name), except for what these factors keep back (that part starts afresh, as a reader who
//! doubts where a name leads would):
//! - `min(1, 4 / definers)`: a name that many files define (`init`, `probe`, `__init__`) says
//!   little about which of them is meant;
//! - a quarter for a name the tree defines only as methods: its uses are calls on an object
//!   whose type a match by name cannot know, and most are of a library's method of the same
//!   name (`items.append(x)` would otherwise count as a use of every `append` the tree
//!   defines);
//! - a quarter for a name of one or two characters or one starting with `_` (private by
//!   convention, or a compiler's): such a name is rarely what a reader looks for;
//! - ten times for a name of the focus (its uses then take a larger share from the others).
//!
//! A file's uses of names it defines itself are not counted: they make no file matter more to
//! the others. The rank a file has no uses to pass on goes where a fresh start would.
//!
//! The graph is kept as two sparse tables (file -> name with its share of the file's rank,
//! name -> the files defining it), so a name defined in `d` files and used in `u` costs `d + u`
//! entries, never `d * u`; an iteration is two passes over them into buffers allocated once.
//! Iterations stop when the ranks move less than [`TOLERANCE`] in all (their sum is 1), or at
//! [`MAX_ITERATIONS`]. Everything runs in a fixed order on one thread, so the answer is the
//! same run to run; equal ranks are ordered by path.

mod tables;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use self::tables::{Tables, focus_name_ids, tables};
use super::graph::SymbolGraph;

/// The share of a file's rank passed on along its uses (the rest starts afresh).
pub const DAMPING: f64 = 0.85;
/// The iterations stop when the ranks moved less than this, summed over all files.
pub const TOLERANCE: f64 = 1e-6;
/// The most iterations a ranking runs.
pub const MAX_ITERATIONS: u32 = 100;
/// The share of a fresh start that goes to the focus when there is one (the rest to every file
/// alike, so a file far from the focus still has a rank).
pub const FOCUS_SHARE: f64 = 0.8;
/// What the ranking is personalised toward: files (or directories) and names.
#[derive(Clone, Debug, Default)]
pub struct Focus {
    /// Files the conversation is about, or directories holding them, relative to the root.
    pub paths: Vec<OsString>,
    /// Identifiers the conversation is about.
    pub names: Vec<String>,
}

/// One ranked file.
#[derive(Clone, Debug, PartialEq)]
pub struct RankedFile {
    /// Its index in the graph's `files`.
    pub file: usize,
    /// Its rank (all files' ranks sum to 1).
    pub rank: f64,
}

/// The files of a graph, most important first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ranking {
    /// Every file of the graph (under `within`), by rank, then by path.
    pub files: Vec<RankedFile>,
    /// Iterations run.
    pub iterations: u32,
    /// Focus paths that match no file of the graph (under `within`).
    pub focus_unmatched: Vec<OsString>,
    /// Focus names no file of the graph (under `within`) defines.
    pub names_undefined: Vec<String>,
    /// The files ranked, ascending (indices into the graph's files).
    positions: Vec<usize>,
    /// Each slot's name (see `tables`).
    slot_name: Vec<u32>,
    /// The rank that reaches each slot through the uses.
    slot_flow: Vec<f64>,
    /// References other files make to each slot.
    slot_references: Vec<u64>,
    /// Each (file position, slot) the file is a definer of, sorted.
    by_definer: Vec<(u32, u32)>,
}

impl Ranking {
    /// The definitions of `graph.files[file]` that other files use, most used first (by the
    /// rank that reaches them through their name, then by references, then by position): each
    /// an index into the file's `definitions`, with the references other files make to its
    /// name.
    pub fn used(&self, graph: &SymbolGraph, file: usize) -> Vec<(usize, u64)> {
        let Some(graph_file) = graph.files.get(file) else {
            return Vec::new();
        };
        let Ok(position) = self.positions.binary_search(&file) else {
            return Vec::new();
        };
        let position = position as u32;
        let start = self.by_definer.partition_point(|e| e.0 < position);
        let end = self.by_definer.partition_point(|e| e.0 <= position);
        // The rank and references reaching each name here, over the slots leading here.
        let mut reaching: Vec<(u32, f64, u64)> = self.by_definer[start..end]
            .iter()
            .filter_map(|&(_, slot)| {
                let slot = slot as usize;
                Some((
                    *self.slot_name.get(slot)?,
                    *self.slot_flow.get(slot)?,
                    *self.slot_references.get(slot)?,
                ))
            })
            .collect();
        reaching.sort_by_key(|r| r.0);
        reaching.dedup_by(|later, first| {
            let same = later.0 == first.0;
            if same {
                first.1 += later.1;
                first.2 += later.2;
            }
            same
        });
        let mut used: Vec<(usize, f64, u64)> = graph_file
            .definitions
            .iter()
            .enumerate()
            .filter_map(|(d, definition)| {
                let at = reaching
                    .binary_search_by_key(&definition.name, |r| r.0)
                    .ok()?;
                Some((d, reaching[at].1, reaching[at].2))
            })
            .collect();
        used.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
        used.into_iter().map(|(d, _, refs)| (d, refs)).collect()
    }
}

/// Whether `path` is `prefix` or below it (`prefix` empty or `.`: everything).
pub fn is_within(path: &OsStr, prefix: &OsStr) -> bool {
    let prefix = prefix.as_bytes();
    let prefix = prefix.strip_suffix(b"/").unwrap_or(prefix);
    if prefix.is_empty() || prefix == b"." {
        return true;
    }
    let path = path.as_bytes();
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(b"/"))
}

/// The part of a ranking that its focus paths do not change: the sparse tables of the files of
/// a graph under a prefix, with the factors of some focus names. Built once, it ranks toward
/// any focus paths with these names (the repository map keeps the one without names between
/// calls on an unchanged graph).
pub struct Prepared {
    tables: Tables,
    /// The focus names the factors were computed for.
    names: Vec<String>,
    /// Their ids in the graph.
    focus_names: Vec<Option<u32>>,
}

impl Prepared {
    /// Whether these tables rank toward `names` (their factors depend on the focus names).
    pub fn has_names(&self, names: &[String]) -> bool {
        self.names == names
    }
}

/// The tables of the files of `graph` under `within` (all when `None`), with the factors of
/// the focus names `names`.
pub fn prepare(graph: &SymbolGraph, within: Option<&OsStr>, names: &[String]) -> Prepared {
    let files: Vec<usize> = (0..graph.files.len())
        .filter(|&i| within.is_none_or(|w| is_within(&graph.files[i].path, w)))
        .collect();
    let focus_names = focus_name_ids(graph, names);
    Prepared {
        tables: tables(graph, files, &focus_names),
        names: names.to_vec(),
        focus_names,
    }
}

/// Ranks the files of `graph` that are under `within` (all when `None`), personalised toward
/// `focus`.
pub fn rank(graph: &SymbolGraph, within: Option<&OsStr>, focus: &Focus) -> Ranking {
    rank_prepared(graph, &prepare(graph, within, &focus.names), focus)
}

/// Ranks the files `prepared` holds toward `focus`, whose names must be those the tables were
/// prepared for ([`Prepared::has_names`]); the same answer as [`rank`].
pub fn rank_prepared(graph: &SymbolGraph, prepared: &Prepared, focus: &Focus) -> Ranking {
    let Prepared {
        tables,
        focus_names,
        ..
    } = prepared;
    let mut out = Ranking::default();
    if tables.files.is_empty() {
        out.focus_unmatched = focus.paths.clone();
        out.names_undefined = focus.names.clone();
        return out;
    }
    let count = tables.files.len();

    // The fresh start: the focus files (and those defining a focus name) share FOCUS_SHARE.
    let mut focused = vec![false; count];
    for path in &focus.paths {
        let mut matched = false;
        for (i, &file) in tables.files.iter().enumerate() {
            if is_within(&graph.files[file].path, path) {
                focused[i] = true;
                matched = true;
            }
        }
        if !matched {
            out.focus_unmatched.push(path.clone());
        }
    }
    let mut defined = vec![false; focus_names.len()];
    for (i, &file) in tables.files.iter().enumerate() {
        for definition in &graph.files[file].definitions {
            if let Some(k) = focus_names.iter().position(|&n| n == Some(definition.name)) {
                focused[i] = true;
                defined[k] = true;
            }
        }
    }
    for (name, defined) in focus.names.iter().zip(&defined) {
        if !defined {
            out.names_undefined.push(name.clone());
        }
    }
    let focus_count = focused.iter().filter(|&&f| f).count();
    let uniform = 1.0 / count as f64;
    let start: Vec<f64> = match focus_count {
        0 => vec![uniform; count],
        n => focused
            .iter()
            .map(|&f| (1.0 - FOCUS_SHARE) * uniform + if f { FOCUS_SHARE / n as f64 } else { 0.0 })
            .collect(),
    };

    let (ranks, iterations) = iterate(tables, &start);
    out.iterations = iterations;

    // The rank that reaches each name slot, shared by its definers.
    let slot_flow: Vec<f64> = (0..tables.slots())
        .map(|s| tables.flow(s, &ranks))
        .collect();
    let mut ranked: Vec<RankedFile> = tables
        .files
        .iter()
        .zip(&ranks)
        .map(|(&file, &rank)| RankedFile { file, rank })
        .collect();
    ranked.sort_by(|a, b| {
        b.rank
            .total_cmp(&a.rank)
            .then_with(|| graph.files[a.file].path.cmp(&graph.files[b.file].path))
    });
    out.files = ranked;
    out.positions = tables.files.clone();
    out.slot_name = tables.slot_name.clone();
    out.slot_flow = slot_flow;
    out.slot_references = tables.slot_references.clone();
    out.by_definer = tables.by_definer.clone();
    out
}

/// The power iteration: the ranks, and how many iterations it took.
fn iterate(tables: &Tables, start: &[f64]) -> (Vec<f64>, u32) {
    let mut ranks = start.to_vec();
    let mut next = vec![0.0; ranks.len()];
    let mut iterations = 0;
    while iterations < MAX_ITERATIONS {
        iterations += 1;
        // A fresh start for the rank not passed on: the damping's, and what the uses keep back
        // (all of it for a file without uses).
        let idle: f64 = ranks
            .iter()
            .zip(&tables.passed)
            .map(|(r, p)| r * (1.0 - p))
            .sum();
        let fresh = 1.0 - DAMPING + DAMPING * idle;
        for (n, s) in next.iter_mut().zip(start) {
            *n = fresh * s;
        }
        for slot in 0..tables.slots() {
            let flow = tables.flow(slot, &ranks);
            let definers =
                &tables.definers[tables.definer_start[slot]..tables.definer_start[slot + 1]];
            let share = DAMPING * flow / definers.len() as f64;
            for &d in definers {
                next[d as usize] += share;
            }
        }
        let moved: f64 = ranks.iter().zip(&next).map(|(a, b)| (a - b).abs()).sum();
        std::mem::swap(&mut ranks, &mut next);
        if moved < TOLERANCE {
            break;
        }
    }
    (ranks, iterations)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::outline::graph::{GraphDefinition, GraphFile};
    use crate::outline::{Language, SymbolKind};

    /// A file given as its path, the names it defines and the (name, times) it references.
    type TestFile<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, u32)]);

    /// A graph of these files.
    pub(crate) fn graph(files: &[TestFile<'_>]) -> SymbolGraph {
        let mut names: Vec<String> = Vec::new();
        let mut id = |name: &str| -> u32 {
            match names.iter().position(|n| n == name) {
                Some(i) => i as u32,
                None => {
                    names.push(name.to_string());
                    (names.len() - 1) as u32
                }
            }
        };
        let mut out = Vec::new();
        for (path, defined, referenced) in files {
            let definitions = defined
                .iter()
                .enumerate()
                .map(|(i, name)| GraphDefinition {
                    name: id(name),
                    kind: SymbolKind::Function,
                    line: 10 * (i as u32 + 1),
                    end_line: 10 * (i as u32 + 1) + 5,
                    depth: 0,
                })
                .collect();
            let mut references: Vec<(u32, u32)> =
                referenced.iter().map(|(name, n)| (id(name), *n)).collect();
            references.sort_unstable();
            out.push(GraphFile {
                path: OsString::from(path),
                language: Language::C,
                definitions,
                references,
                bound_start: Vec::new(),
                bound: Vec::new(),
            });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        SymbolGraph {
            names,
            files: out,
            bound: false,
        }
    }

    /// A hub header used by three files, one of which is used by another.
    pub(crate) fn tree() -> SymbolGraph {
        graph(&[
            ("include/alloc.h", &["kmalloc", "kfree"], &[]),
            ("mm/slab.c", &["slab_new"], &[("kmalloc", 4), ("kfree", 2)]),
            (
                "net/sock.c",
                &["sock_new"],
                &[("kmalloc", 1), ("slab_new", 1)],
            ),
            (
                "drivers/tty.c",
                &["tty_open"],
                &[("kfree", 1), ("sock_new", 2)],
            ),
            ("README.c", &[], &[]),
        ])
    }

    fn order(graph: &SymbolGraph, ranking: &Ranking) -> Vec<String> {
        ranking
            .files
            .iter()
            .map(|r| graph.files[r.file].path.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn the_hub_ranks_first_and_the_ranks_sum_to_one() {
        let graph = tree();
        let ranking = rank(&graph, None, &Focus::default());
        let order = order(&graph, &ranking);
        assert_eq!(order[0], "include/alloc.h", "{order:?}");
        let sum: f64 = ranking.files.iter().map(|r| r.rank).sum();
        assert!((sum - 1.0).abs() < 1e-9, "{sum}");
        assert!(ranking.iterations > 1 && ranking.iterations < MAX_ITERATIONS);
        // kmalloc is referenced 5 times from two files, kfree 3 times from two: kmalloc first.
        let hub = ranking.files[0].file;
        let used = ranking.used(&graph, hub);
        let names: Vec<&str> = used
            .iter()
            .map(|&(d, _)| graph.names[graph.files[hub].definitions[d].name as usize].as_str())
            .collect();
        assert_eq!(names, ["kmalloc", "kfree"]);
        assert_eq!(used.iter().map(|u| u.1).collect::<Vec<_>>(), [5, 3]);
    }

    #[test]
    fn a_file_used_by_a_used_file_outranks_one_used_by_nothing() {
        let graph = tree();
        let ranking = rank(&graph, None, &Focus::default());
        let order = order(&graph, &ranking);
        let at = |path: &str| order.iter().position(|p| p == path).expect("ranked");
        // slab.c is used by sock.c, which tty.c uses; tty.c is used by nothing.
        assert!(at("mm/slab.c") < at("drivers/tty.c"), "{order:?}");
        assert!(at("net/sock.c") < at("drivers/tty.c"), "{order:?}");
    }

    #[test]
    fn the_focus_moves_the_ranking() {
        let graph = tree();
        let plain = order(&graph, &rank(&graph, None, &Focus::default()));
        let focus = Focus {
            paths: vec!["drivers".into()],
            names: Vec::new(),
        };
        let focused = rank(&graph, None, &focus);
        let moved = order(&graph, &focused);
        let at = |order: &[String], path: &str| order.iter().position(|p| p == path);
        assert!(
            at(&moved, "drivers/tty.c") < at(&plain, "drivers/tty.c"),
            "{plain:?} -> {moved:?}"
        );
        // What the focus uses rises with it: sock.c now outranks slab.c.
        assert!(
            at(&moved, "net/sock.c") < at(&moved, "mm/slab.c"),
            "{moved:?}"
        );
        assert!(focused.focus_unmatched.is_empty());

        let by_name = Focus {
            paths: vec!["nowhere/x.c".into()],
            names: vec!["tty_open".into(), "missing".into()],
        };
        let named = rank(&graph, None, &by_name);
        assert_eq!(order(&graph, &named)[0], "drivers/tty.c");
        assert_eq!(named.focus_unmatched, [OsString::from("nowhere/x.c")]);
        assert_eq!(named.names_undefined, ["missing"]);
    }

    #[test]
    fn equal_ranks_are_ordered_by_path_and_runs_agree() {
        let graph = graph(&[
            ("b.c", &["b"], &[("shared", 1)]),
            ("a.c", &["a"], &[("shared", 1)]),
            ("lib.c", &["shared"], &[]),
            ("c.c", &[], &[]),
        ]);
        let first = rank(&graph, None, &Focus::default());
        assert_eq!(order(&graph, &first), ["lib.c", "a.c", "b.c", "c.c"]);
        assert_eq!(first.files[1].rank, first.files[2].rank);
        assert_eq!(rank(&graph, None, &Focus::default()), first);
    }

    #[test]
    fn own_uses_count_for_nothing_and_within_restricts() {
        let graph = graph(&[
            ("a/self.c", &["loop_fn"], &[("loop_fn", 50)]),
            ("a/user.c", &[], &[("used_fn", 1)]),
            ("b/lib.c", &["used_fn"], &[]),
        ]);
        let ranking = rank(&graph, None, &Focus::default());
        assert_eq!(order(&graph, &ranking)[0], "b/lib.c");
        let self_file = ranking.files.iter().find(|r| r.file == 1).expect("ranked");
        assert!(ranking.used(&graph, self_file.file).is_empty());

        let within = rank(&graph, Some(OsStr::new("a/")), &Focus::default());
        assert_eq!(order(&graph, &within), ["a/self.c", "a/user.c"]);
        assert!(is_within(OsStr::new("a/b.c"), OsStr::new("a")));
        assert!(!is_within(OsStr::new("ab/c.c"), OsStr::new("a")));
        assert!(is_within(OsStr::new("x.c"), OsStr::new(".")));
    }

    #[test]
    fn a_name_defined_only_as_methods_passes_less() {
        let mut graph = graph(&[
            ("app.py", &["main"], &[("run", 1), ("load_config", 1)]),
            ("jobs.py", &["run"], &[]),
            ("config.py", &["load_config"], &[]),
        ]);
        let plain = rank(&graph, None, &Focus::default());
        let jobs = graph
            .files
            .iter()
            .position(|f| f.path == "jobs.py")
            .expect("a file");
        let config = graph
            .files
            .iter()
            .position(|f| f.path == "config.py")
            .expect("a file");
        let rank_of = |ranking: &Ranking, file: usize| {
            ranking
                .files
                .iter()
                .find(|r| r.file == file)
                .map(|r| r.rank)
        };
        assert_eq!(rank_of(&plain, jobs), rank_of(&plain, config));
        graph.files[jobs].definitions[0].kind = SymbolKind::Method;
        let methods = rank(&graph, None, &Focus::default());
        assert!(rank_of(&methods, jobs) < rank_of(&methods, config));
        let sum: f64 = methods.files.iter().map(|r| r.rank).sum();
        assert!((sum - 1.0).abs() < 1e-9, "{sum}");
    }
}
