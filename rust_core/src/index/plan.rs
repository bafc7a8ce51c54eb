//! From a regex to a trigram query: a boolean formula over trigrams that every file with a
//! match satisfies (it may admit files without one; never the reverse).
//!
//! The analysis follows the idea of Russ Cox's codesearch (`index/regexp.go`, read, not copied):
//! for each node of the regex's HIR it computes whether the node can match the empty string, the
//! exact set of strings it matches (when small), or else sets of prefixes and suffixes every
//! match starts / ends with, plus a query the node's matches satisfy. Concatenation crosses the
//! sets; alternation unites them; sets that grow too large are turned into trigram queries and
//! trimmed. All strings are ASCII-lowercased, as the index is.

use std::collections::BTreeSet;

use regex_syntax::ParserBuilder;
use regex_syntax::hir::{Class, Hir, HirKind};

use super::postings::{follow_bits, lower, trigram};

/// A trigram query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Query {
    /// Every file.
    All,
    /// No file.
    Nothing,
    /// Files holding this trigram with these follow-mask bits (the bytes after it: see
    /// [`follow_bits`]).
    Trigram(u32, u8),
    /// Files satisfying every part.
    And(Vec<Query>),
    /// Files satisfying some part.
    Or(Vec<Query>),
}

impl Query {
    fn and(self, other: Query) -> Query {
        match (self, other) {
            (Query::All, q) | (q, Query::All) => q,
            (Query::Nothing, _) | (_, Query::Nothing) => Query::Nothing,
            (Query::And(mut a), Query::And(b)) => {
                a.extend(b);
                Query::And(a)
            }
            (Query::And(mut a), q) | (q, Query::And(mut a)) => {
                a.push(q);
                Query::And(a)
            }
            (a, b) => Query::And(vec![a, b]),
        }
    }

    fn or(self, other: Query) -> Query {
        match (self, other) {
            (Query::All, _) | (_, Query::All) => Query::All,
            (Query::Nothing, q) | (q, Query::Nothing) => q,
            (Query::Or(mut a), Query::Or(b)) => {
                a.extend(b);
                Query::Or(a)
            }
            (Query::Or(mut a), q) | (q, Query::Or(mut a)) => {
                a.push(q);
                Query::Or(a)
            }
            (a, b) => Query::Or(vec![a, b]),
        }
    }
}

type Set = BTreeSet<Vec<u8>>;

/// Exact sets above this size become trigram queries.
const MAX_EXACT: usize = 16;
/// Prefix and suffix sets above this size are trimmed.
const MAX_SET: usize = 32;
/// A character class with more characters than this matches "any character" for the planner.
const MAX_CLASS: usize = 12;

#[derive(Clone, Debug)]
struct Info {
    can_be_empty: bool,
    exact: Option<Set>,
    prefix: Set,
    suffix: Set,
    query: Query,
}

fn single(s: Vec<u8>) -> Set {
    let mut set = Set::new();
    set.insert(s);
    set
}

fn any_char() -> Info {
    Info {
        can_be_empty: false,
        exact: None,
        prefix: single(Vec::new()),
        suffix: single(Vec::new()),
        query: Query::All,
    }
}

fn any_string() -> Info {
    Info {
        can_be_empty: true,
        ..any_char()
    }
}

fn empty_string() -> Info {
    Info {
        can_be_empty: true,
        exact: Some(single(Vec::new())),
        prefix: Set::new(),
        suffix: Set::new(),
        query: Query::All,
    }
}

fn literal(bytes: &[u8]) -> Info {
    Info {
        can_be_empty: bytes.is_empty(),
        exact: Some(single(bytes.iter().map(|&b| lower(b)).collect())),
        prefix: Set::new(),
        suffix: Set::new(),
        query: Query::All,
    }
}

/// Files holding every trigram of `s` (all files when `s` is shorter than three bytes).
fn string_query(s: &[u8]) -> Query {
    if s.len() < 3 {
        return Query::All;
    }
    let mut seen = BTreeSet::new();
    let parts: Vec<Query> = (0..s.len() - 2)
        .map(|i| {
            let want = follow_bits(s.get(i + 3).copied(), s.get(i + 4).copied());
            (trigram(s[i], s[i + 1], s[i + 2]), want)
        })
        .filter(|g| seen.insert(*g))
        .map(|(t, next)| Query::Trigram(t, next))
        .collect();
    if parts.len() == 1 {
        parts.into_iter().next().unwrap_or(Query::All)
    } else {
        Query::And(parts)
    }
}

/// Files holding one of the strings of `set` (all files when one is shorter than three bytes).
fn set_query(set: &Set) -> Query {
    if set.is_empty() {
        // No string can match here: the node matches nothing.
        return Query::Nothing;
    }
    let mut out = Query::Nothing;
    for s in set {
        let q = string_query(s);
        if q == Query::All {
            return Query::All;
        }
        out = out.or(q);
    }
    out
}

fn cross(a: &Set, b: &Set) -> Set {
    let mut out = Set::new();
    for x in a {
        for y in b {
            let mut s = x.clone();
            s.extend_from_slice(y);
            out.insert(s);
        }
    }
    out
}

impl Info {
    /// What every match starts with.
    fn starts(&self) -> &Set {
        self.exact.as_ref().unwrap_or(&self.prefix)
    }

    /// What every match ends with.
    fn ends(&self) -> &Set {
        self.exact.as_ref().unwrap_or(&self.suffix)
    }

    /// Moves an exact set into the query and the prefix/suffix sets.
    fn drop_exact(&mut self) {
        if let Some(exact) = self.exact.take() {
            let q = std::mem::replace(&mut self.query, Query::All);
            self.query = q.and(set_query(&exact));
            self.prefix = exact.clone();
            self.suffix = exact;
        }
    }

    /// Keeps the sets small: a large exact set becomes a query; large prefix and suffix sets are
    /// added to the query, then cut to their first / last two bytes.
    fn simplify(&mut self) {
        if self.exact.as_ref().is_some_and(|e| e.len() > MAX_EXACT) {
            self.drop_exact();
        }
        if self.exact.is_none() {
            if self.prefix.len() > MAX_SET {
                let q = std::mem::replace(&mut self.query, Query::All);
                self.query = q.and(set_query(&self.prefix));
                self.prefix = trim(&self.prefix, true);
            }
            if self.suffix.len() > MAX_SET {
                let q = std::mem::replace(&mut self.query, Query::All);
                self.query = q.and(set_query(&self.suffix));
                self.suffix = trim(&self.suffix, false);
            }
        }
    }
}

/// Cuts every string to its first (or last) two bytes, then one, then none, until the set is
/// small: a shorter prefix is still a prefix.
fn trim(set: &Set, keep_start: bool) -> Set {
    let mut keep = 2usize;
    loop {
        let out: Set = set
            .iter()
            .map(|s| {
                if s.len() <= keep {
                    s.clone()
                } else if keep_start {
                    s[..keep].to_vec()
                } else {
                    s[s.len() - keep..].to_vec()
                }
            })
            .collect();
        if out.len() <= MAX_SET || keep == 0 {
            return out;
        }
        keep -= 1;
    }
}

fn concat(x: Info, y: Info) -> Info {
    let mut query = x.query.clone().and(y.query.clone());
    let mut out = Info {
        can_be_empty: x.can_be_empty && y.can_be_empty,
        exact: None,
        prefix: Set::new(),
        suffix: Set::new(),
        query: Query::All,
    };
    match (&x.exact, &y.exact) {
        (Some(xe), Some(ye)) => out.exact = Some(cross(xe, ye)),
        _ => {
            out.prefix = match &x.exact {
                Some(xe) => cross(xe, y.starts()),
                None if x.can_be_empty => x.prefix.union(y.starts()).cloned().collect(),
                None => x.prefix.clone(),
            };
            out.suffix = match &y.exact {
                Some(ye) => cross(x.ends(), ye),
                None if y.can_be_empty => y.suffix.union(x.ends()).cloned().collect(),
                None => y.suffix.clone(),
            };
            if x.exact.is_none()
                && y.exact.is_none()
                && x.suffix.len() <= MAX_SET
                && y.prefix.len() <= MAX_SET
            {
                // Strings spanning the boundary: some suffix of x followed by some prefix of y.
                query = query.and(set_query(&cross(&x.suffix, &y.prefix)));
            }
        }
    }
    out.query = query;
    out.simplify();
    out
}

fn alternate(x: Info, y: Info) -> Info {
    let can_be_empty = x.can_be_empty || y.can_be_empty;
    if let (Some(xe), Some(ye)) = (&x.exact, &y.exact) {
        let mut out = Info {
            can_be_empty,
            exact: Some(xe.union(ye).cloned().collect()),
            prefix: Set::new(),
            suffix: Set::new(),
            query: x.query.and(y.query),
        };
        out.simplify();
        return out;
    }
    let (mut x, mut y) = (x, y);
    x.drop_exact();
    y.drop_exact();
    let mut out = Info {
        can_be_empty,
        exact: None,
        prefix: x.prefix.union(&y.prefix).cloned().collect(),
        suffix: x.suffix.union(&y.suffix).cloned().collect(),
        query: x.query.or(y.query),
    };
    out.simplify();
    out
}

fn class(class: &Class) -> Info {
    let mut set = Set::new();
    match class {
        Class::Unicode(c) => {
            let mut n = 0usize;
            for range in c.ranges() {
                n += (range.end() as usize).saturating_sub(range.start() as usize) + 1;
                if n > MAX_CLASS * 2 {
                    return any_char();
                }
                for ch in range.start()..=range.end() {
                    let mut buf = [0u8; 4];
                    set.insert(ch.encode_utf8(&mut buf).bytes().map(lower).collect());
                }
            }
        }
        Class::Bytes(c) => {
            let mut n = 0usize;
            for range in c.ranges() {
                n += usize::from(range.end() - range.start()) + 1;
                if n > MAX_CLASS * 2 {
                    return any_char();
                }
                for b in range.start()..=range.end() {
                    set.insert(vec![lower(b)]);
                }
            }
        }
    }
    if set.is_empty() {
        // An empty class matches nothing.
        return Info {
            can_be_empty: false,
            exact: Some(Set::new()),
            prefix: Set::new(),
            suffix: Set::new(),
            query: Query::All,
        };
    }
    if set.len() > MAX_CLASS {
        return any_char();
    }
    Info {
        can_be_empty: false,
        exact: Some(set),
        prefix: Set::new(),
        suffix: Set::new(),
        query: Query::All,
    }
}

fn analyze(hir: &Hir) -> Info {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => empty_string(),
        HirKind::Literal(lit) => literal(&lit.0),
        HirKind::Class(c) => class(c),
        HirKind::Capture(c) => analyze(&c.sub),
        HirKind::Repetition(rep) => {
            let sub = analyze(&rep.sub);
            if rep.min == 0 {
                if rep.max == Some(1) {
                    return alternate(sub, empty_string());
                }
                return any_string();
            }
            // One or more: every match starts with a match of `sub` and ends with one.
            let mut sub = sub;
            sub.drop_exact();
            sub
        }
        HirKind::Concat(parts) => {
            let mut out = empty_string();
            for part in parts {
                out = concat(out, analyze(part));
            }
            out
        }
        HirKind::Alternation(parts) => {
            let mut iter = parts.iter();
            let Some(first) = iter.next() else {
                return empty_string();
            };
            let mut out = analyze(first);
            for part in iter {
                out = alternate(out, analyze(part));
            }
            out
        }
    }
}

/// The query for a grep pattern with the options that change what it matches. A pattern the
/// planner cannot parse gets [`Query::All`] (the search then reports the pattern's error).
pub(crate) fn plan(pattern: &str, literal: bool, case_insensitive: bool) -> Query {
    let escaped;
    let pattern = if literal {
        escaped = regex_syntax::escape(pattern);
        escaped.as_str()
    } else {
        pattern
    };
    let parsed = ParserBuilder::new()
        .case_insensitive(case_insensitive)
        .multi_line(true)
        .crlf(true)
        .utf8(false)
        .build()
        .parse(pattern);
    let Ok(hir) = parsed else {
        return Query::All;
    };
    let info = analyze(&hir);
    if info.can_be_empty {
        return Query::All;
    }
    match &info.exact {
        Some(exact) => info.query.and(set_query(exact)),
        None => info
            .query
            .and(set_query(&info.prefix))
            .and(set_query(&info.suffix)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri(s: &str) -> Query {
        let b = s.as_bytes();
        Query::Trigram(
            trigram(b[0], b[1], b[2]),
            follow_bits(b.get(3).copied(), b.get(4).copied()),
        )
    }

    #[test]
    fn literals_need_all_their_trigrams() {
        assert_eq!(
            plan("Hello", false, false),
            Query::And(vec![tri("hello"), tri("ello"), tri("llo")])
        );
        assert_eq!(plan("ab", false, false), Query::All);
        assert_eq!(plan("a.b", true, false), tri("a.b"));
    }

    #[test]
    fn case_insensitive_patterns_narrow_too() {
        let q = plan("hello", false, true);
        assert!(matches!(q, Query::And(_)), "{q:?}");
    }

    #[test]
    fn alternations_and_wide_patterns() {
        assert!(matches!(plan("foo|barbaz", false, false), Query::Or(_)));
        assert_eq!(plan(".", false, false), Query::All);
        assert_eq!(plan(r"\w+", false, false), Query::All);
        assert_eq!(plan("a*", false, false), Query::All);
        assert_eq!(plan("(", false, false), Query::All);
        assert_eq!(plan("foo|", false, false), Query::All);
        assert_ne!(plan(r"foo\w+bar", false, false), Query::All);
        assert_ne!(plan("[ab]cdef", false, false), Query::All);
    }
}
