//! The sparse tables a ranking iterates over ([`super`]): for each name some file defines and
//! another uses, the files using it with the share of their rank each passes on through it, and
//! the files defining it; with the factors that weigh a name's uses (how many files define it,
//! whether it is only a method, short or private, or a name of the focus).

use std::collections::HashMap;

use crate::outline::SymbolKind;
use crate::outline::graph::{GraphDefinition, NOWHERE, SymbolGraph};

/// How much more a use of a focus name weighs.
const FOCUS_NAME_WEIGHT: f64 = 10.0;
/// How much a use of a short or `_`-prefixed name, or of a name defined only as methods,
/// weighs.
const MINOR_NAME_WEIGHT: f64 = 0.25;
/// Names defined in more files than this weigh less, in proportion.
const COMMON_DEFINERS: f64 = 4.0;

/// The sparse tables of one ranking, by slot (a name some file defines and another uses, with
/// the files its uses lead to: every file defining it for the uses found by name, or the files
/// a use binds to), so an iteration reads them in order and only gathers from and scatters into
/// the files' ranks.
pub(super) struct Tables {
    /// The files ranked (indexes into the graph's files, ascending).
    pub(super) files: Vec<usize>,
    /// `users[user_start[s]..user_start[s + 1]]`: the files using slot s's name, each with
    /// the share of its rank it passes on through that name.
    user_start: Vec<usize>,
    users: Vec<(u32, f32)>,
    /// The share of each file's rank its uses pass on (the rest starts afresh).
    pub(super) passed: Vec<f64>,
    /// `definers[definer_start[s]..definer_start[s + 1]]`: the files slot s's uses lead to.
    pub(super) definer_start: Vec<usize>,
    pub(super) definers: Vec<u32>,
    /// Each slot's name.
    pub(super) slot_name: Vec<u32>,
    /// References other files make to each slot's name.
    pub(super) slot_references: Vec<u64>,
    /// Each (file, slot) the file is a definer of, sorted (files as positions in `files`).
    pub(super) by_definer: Vec<(u32, u32)>,
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

/// What the tables' construction keeps of one slot.
#[derive(Clone, Copy, Default)]
struct Tally {
    /// Its factor.
    factor: f32,
    /// Files using it; then where its next user goes in the users table.
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
    let mut name_start = vec![0usize; names + 1];
    for &(name, _) in &defining {
        if let Some(c) = name_start.get_mut(name as usize + 1) {
            *c += 1;
        }
    }
    for n in 0..names {
        name_start[n + 1] += name_start[n];
    }
    let definers_of = |name: u32| -> &[(u32, u32)] {
        match (
            name_start.get(name as usize),
            name_start.get(name as usize + 1),
        ) {
            (Some(&a), Some(&b)) => &defining[a..b],
            _ => &[],
        }
    };
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
    // A slot's factor (see the ranking's comment, [`super`]) for `definers` files.
    let factor = |name: u32, definers: usize| -> f32 {
        let focused = focus_names.contains(&Some(name));
        ((COMMON_DEFINERS / definers as f64).min(1.0)
            * name_weight(
                &graph.names[name as usize],
                only_methods[name as usize],
                focused,
            )) as f32
    };
    let mut position = vec![u32::MAX; graph.files.len()];
    for (i, &file) in files.iter().enumerate() {
        position[file] = i as u32;
    }
    // The slots: one per name for the uses found by name, one per (name, files) bound.
    let mut by_name = vec![u32::MAX; names];
    let mut bound_slots: HashMap<(u32, Vec<u32>), u32> = HashMap::new();
    let mut slot_name: Vec<u32> = Vec::new();
    let mut slot_bound: Vec<Option<Vec<u32>>> = Vec::new();
    let mut tallies: Vec<Tally> = Vec::new();
    // Each file's uses that count (of a name some file defines, not the file itself), by slot.
    let mut use_start = vec![0usize];
    let mut uses: Vec<(u32, u32)> = Vec::new();
    let mut totals = Vec::with_capacity(files.len());
    let mut set: Vec<u32> = Vec::new();
    for (i, &file) in files.iter().enumerate() {
        let mut total = 0.0;
        let graph_file = &graph.files[file];
        for (k, &(name, times)) in graph_file.references.iter().enumerate() {
            let all = definers_of(name);
            if all.is_empty() || own[i].binary_search(&name).is_ok() {
                continue;
            }
            set.clear();
            let bound = graph_file.bound(k);
            set.extend(
                bound
                    .iter()
                    .filter_map(|&t| position.get(t as usize).copied())
                    .filter(|&p| all.binary_search(&(name, p)).is_ok()),
            );
            set.sort_unstable();
            set.dedup();
            // Found by name among files none of which is ranked: the use leads nowhere.
            if set.is_empty() && bound.first() == Some(&NOWHERE) {
                continue;
            }
            let slot = if set.is_empty() {
                if by_name[name as usize] == u32::MAX {
                    by_name[name as usize] = slot_name.len() as u32;
                    slot_name.push(name);
                    slot_bound.push(None);
                    tallies.push(Tally {
                        factor: factor(name, all.len()),
                        ..Tally::default()
                    });
                }
                by_name[name as usize]
            } else {
                let next = slot_name.len() as u32;
                let slot = *bound_slots.entry((name, set.clone())).or_insert(next);
                if slot == next {
                    slot_name.push(name);
                    slot_bound.push(Some(set.clone()));
                    tallies.push(Tally {
                        factor: factor(name, set.len()),
                        ..Tally::default()
                    });
                }
                slot
            };
            let tally = &mut tallies[slot as usize];
            total += f64::from(times).sqrt() * f64::from(tally.factor).max(1.0);
            tally.users += 1;
            tally.references = tally.references.saturating_add(times);
            uses.push((slot, times));
        }
        use_start.push(uses.len());
        totals.push(total);
    }
    let mut user_start = vec![0usize];
    let mut next_user = 0usize;
    for tally in &mut tallies {
        let count = tally.users as usize;
        tally.users = next_user as u32;
        next_user += count;
        user_start.push(next_user);
    }
    let mut users = vec![(0u32, 0f32); next_user];
    let mut passed = Vec::with_capacity(files.len());
    for i in 0..files.len() {
        let mut sum = 0.0;
        if totals[i] > 0.0 {
            for &(slot, times) in &uses[use_start[i]..use_start[i + 1]] {
                let tally = &mut tallies[slot as usize];
                let share = (f64::from(times).sqrt() * f64::from(tally.factor) / totals[i]) as f32;
                users[tally.users as usize] = (i as u32, share);
                tally.users += 1;
                sum += f64::from(share);
            }
        }
        passed.push(sum);
    }
    let mut definer_start = vec![0usize];
    let mut definers = Vec::new();
    let mut by_definer = Vec::new();
    for (s, (&name, bound)) in slot_name.iter().zip(&slot_bound).enumerate() {
        let before = definers.len();
        match bound {
            Some(set) => definers.extend_from_slice(set),
            None => definers.extend(definers_of(name).iter().map(|&(_, p)| p)),
        }
        by_definer.extend(definers[before..].iter().map(|&p| (p, s as u32)));
        definer_start.push(definers.len());
    }
    by_definer.sort_unstable();
    Tables {
        files,
        user_start,
        users,
        passed,
        definer_start,
        definers,
        slot_name,
        slot_references: tallies.iter().map(|t| u64::from(t.references)).collect(),
        by_definer,
    }
}

/// The names a file defines, sorted, each once.
fn own_names(definitions: &[GraphDefinition]) -> Vec<u32> {
    let mut own: Vec<u32> = definitions.iter().map(|d| d.name).collect();
    own.sort_unstable();
    own.dedup();
    own
}
