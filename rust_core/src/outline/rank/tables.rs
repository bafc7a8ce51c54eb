//! The sparse tables a ranking iterates over ([`super`]): for each name some file defines and
//! another uses, the files using it with the share of their rank each passes on through it, and
//! the files defining it; with the factors that weigh a name's uses (how many files define it,
//! whether it is only a method, short or private, or a name of the focus).

use crate::outline::SymbolKind;
use crate::outline::graph::{GraphDefinition, SymbolGraph};

/// How much more a use of a focus name weighs.
const FOCUS_NAME_WEIGHT: f64 = 10.0;
/// How much a use of a short or `_`-prefixed name, or of a name defined only as methods,
/// weighs.
const MINOR_NAME_WEIGHT: f64 = 0.25;
/// Names defined in more files than this weigh less, in proportion.
const COMMON_DEFINERS: f64 = 4.0;

/// The sparse tables of one ranking, by name slot (a name some file defines and another
/// uses), so an iteration reads them in order and only gathers from and scatters into the
/// files' ranks.
pub(super) struct Tables {
    /// The files ranked (indexes into the graph's files).
    pub(super) files: Vec<usize>,
    /// `users[user_start[s]..user_start[s + 1]]`: the files using slot s's name, each with
    /// the share of its rank it passes on through that name.
    user_start: Vec<usize>,
    users: Vec<(u32, f32)>,
    /// The share of each file's rank its uses pass on (the rest starts afresh).
    pub(super) passed: Vec<f64>,
    /// `definers[definer_start[s]..definer_start[s + 1]]`: the files defining slot s's name.
    pub(super) definer_start: Vec<usize>,
    pub(super) definers: Vec<u32>,
    /// Each name's slot (`u32::MAX`: none).
    pub(super) slot_of: Vec<u32>,
    /// References other files make to each slot's name.
    pub(super) slot_references: Vec<u64>,
}

impl Tables {
    /// The rank that reaches slot `s`'s name from the files using it.
    pub(super) fn flow(&self, s: usize, ranks: &[f64]) -> f64 {
        self.users[self.user_start[s]..self.user_start[s + 1]]
            .iter()
            .map(|&(file, share)| ranks[file as usize] * f64::from(share))
            .sum()
    }

    pub(super) fn slots(&self) -> usize {
        self.slot_references.len()
    }
}

/// The graph's id of each focus name (`None`: no file mentions it).
pub(super) fn focus_name_ids(graph: &SymbolGraph, names: &[String]) -> Vec<Option<u32>> {
    if names.is_empty() {
        return Vec::new();
    }
    let mut ids = vec![None; names.len()];
    for (id, name) in graph.names.iter().enumerate() {
        for (k, wanted) in names.iter().enumerate() {
            if name == wanted {
                ids[k] = u32::try_from(id).ok();
            }
        }
    }
    ids
}

/// The weight of a use of `name` beyond its count and its definers.
fn name_weight(name: &str, only_methods: bool, focused: bool) -> f64 {
    let mut weight = 1.0;
    if name.chars().count() <= 2 || name.starts_with('_') {
        weight *= MINOR_NAME_WEIGHT;
    }
    if only_methods {
        weight *= MINOR_NAME_WEIGHT;
    }
    if focused {
        weight *= FOCUS_NAME_WEIGHT;
    }
    weight
}

/// What the tables' construction keeps of one name, in 12 bytes: the construction touches it
/// once per use, and the names of a large tree do not fit in a cache.
#[derive(Clone, Copy, Default)]
struct Tally {
    /// Its factor (0: no file defines it).
    factor: f32,
    /// Files using it (other than its definers); then where its next user goes in the users
    /// table (a table of more than 4 billion uses would not fit in memory).
    users: u32,
    /// Their references to it (saturating).
    references: u32,
}

/// The sparse tables of the files `files` of `graph`.
pub(super) fn tables(
    graph: &SymbolGraph,
    files: Vec<usize>,
    focus_names: &[Option<u32>],
) -> Tables {
    let names = graph.names.len();
    // Each file's own names (sorted, each once), and the files defining each name.
    let own: Vec<Vec<u32>> = files
        .iter()
        .map(|&file| own_names(&graph.files[file].definitions))
        .collect();
    let mut defining: Vec<(u32, u32)> = own
        .iter()
        .enumerate()
        .flat_map(|(i, names)| names.iter().map(move |&name| (name, i as u32)))
        .collect();
    defining.sort_unstable();
    let mut definer_count = vec![0u32; names];
    for &(name, _) in &defining {
        if let Some(c) = definer_count.get_mut(name as usize) {
            *c += 1;
        }
    }
    // The names every definition of which is a method.
    let mut only_methods = vec![true; names];
    for &file in &files {
        for definition in &graph.files[file].definitions {
            if definition.kind != SymbolKind::Method
                && let Some(only) = only_methods.get_mut(definition.name as usize)
            {
                *only = false;
            }
        }
    }
    // Each defined name's factor (see the ranking's comment, [`super`]; 0: no file defines it), with its
    // tallies beside it, so a use touches one place.
    let mut tallies: Vec<Tally> = (0..names)
        .map(|n| Tally {
            factor: match definer_count[n] {
                0 => 0.0,
                definers => {
                    let focused = focus_names.contains(&Some(n as u32));
                    ((COMMON_DEFINERS / f64::from(definers)).min(1.0)
                        * name_weight(&graph.names[n], only_methods[n], focused))
                        as f32
                }
            },
            ..Tally::default()
        })
        .collect();
    // A file's uses that count: of a name some file defines, not the file itself.
    let counts = |tallies: &[Tally], own: &[u32], name: u32| {
        tallies.get(name as usize).is_some_and(|t| t.factor > 0.0)
            && own.binary_search(&name).is_err()
    };
    // Each use weighs `sqrt(times)` at most; the factors below 1 keep part of that back (it
    // starts afresh), a focus name's factor takes a larger share from the others.
    let mut totals = Vec::with_capacity(files.len());
    for (i, &file) in files.iter().enumerate() {
        let mut total = 0.0;
        for &(name, times) in &graph.files[file].references {
            if !counts(&tallies, &own[i], name) {
                continue;
            }
            let tally = &mut tallies[name as usize];
            total += f64::from(times).sqrt() * f64::from(tally.factor).max(1.0);
            tally.users += 1;
            tally.references = tally.references.saturating_add(times);
        }
        totals.push(total);
    }
    let mut slot_of = vec![u32::MAX; names];
    let mut slot_references = Vec::new();
    let mut user_start = vec![0usize];
    let mut next_user = 0usize;
    for (n, tally) in tallies.iter_mut().enumerate() {
        if tally.users > 0 {
            slot_of[n] = slot_references.len() as u32;
            slot_references.push(u64::from(tally.references));
            let users = tally.users as usize;
            tally.users = next_user as u32;
            next_user += users;
            user_start.push(next_user);
        }
    }
    let mut users = vec![(0u32, 0f32); next_user];
    let mut passed = Vec::with_capacity(files.len());
    for (i, &file) in files.iter().enumerate() {
        let mut sum = 0.0;
        if totals[i] > 0.0 {
            for &(name, times) in &graph.files[file].references {
                if !counts(&tallies, &own[i], name) {
                    continue;
                }
                let tally = &mut tallies[name as usize];
                let share = (f64::from(times).sqrt() * f64::from(tally.factor) / totals[i]) as f32;
                users[tally.users as usize] = (i as u32, share);
                tally.users += 1;
                sum += f64::from(share);
            }
        }
        passed.push(sum);
    }
    let mut definer_start = vec![0usize; slot_references.len() + 1];
    let mut definers = Vec::new();
    for &(name, position) in &defining {
        let slot = slot_of[name as usize];
        if slot != u32::MAX {
            definer_start[slot as usize + 1] += 1;
            definers.push(position);
        }
    }
    for s in 0..slot_references.len() {
        definer_start[s + 1] += definer_start[s];
    }
    Tables {
        files,
        user_start,
        users,
        passed,
        definer_start,
        definers,
        slot_of,
        slot_references,
    }
}

/// The names a file defines, sorted, each once.
fn own_names(definitions: &[GraphDefinition]) -> Vec<u32> {
    let mut own: Vec<u32> = definitions.iter().map(|d| d.name).collect();
    own.sort_unstable();
    own.dedup();
    own
}
