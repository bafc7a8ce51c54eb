//! From a regex to a trigram query: a boolean formula over trigrams that every file with a
//! match satisfies (it may admit files without one; never the reverse).
//!
//! The analysis follows the idea of Russ Cox's codesearch (`index/regexp.go`, read, not copied):
//! for each node of the regex's HIR it computes whether the node can match the empty string, the
//! exact set of strings it matches (when small), or else sets of prefixes and suffixes every
//! match starts / ends with, plus a query the node's matches satisfy. Concatenation crosses the
//! sets; alternation unites them; sets that grow too large are turned into trigram queries and
//! trimmed.
//!
//! The index keys are ASCII-lowercased, and each place of a trigram also records whether its
//! letters were all lowercase or all uppercase there. A case-sensitive pattern keeps its bytes as
//! they are, so each trigram of a string asks for its own case; a pattern that folds case (the
//! option, or a class holding both cases of a letter, as `(?i)` gives) is planned over
//! lowercased strings and asks for no case.

use std::collections::BTreeSet;

use regex_syntax::ParserBuilder;
use regex_syntax::hir::{Class, Hir, HirKind};

use super::postings::{Gram, LOWER, UPPER, case_bits, follow_bits, lower, trigram};

/// A trigram query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Query {
    /// Every file.
    All,
    /// No file.
    Nothing,
    /// Files holding this trigram with its follow-mask bits (the bytes after it: see
    /// [`follow_bits`]) and case bits.
    Trigram(Gram),
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

/// A byte as the strings hold it: lowercased when the pattern folds case.
fn fold_byte(b: u8, fold: bool) -> u8 {
    if fold { lower(b) } else { b }
}

fn literal(bytes: &[u8], fold: bool) -> Info {
    Info {
        can_be_empty: bytes.is_empty(),
        exact: Some(single(bytes.iter().map(|&b| fold_byte(b, fold)).collect())),
        prefix: Set::new(),
        suffix: Set::new(),
        query: Query::All,
    }
}

/// Files holding every trigram of `s`, each in its case (all files when `s` is shorter than
/// three bytes).
fn string_query(s: &[u8]) -> Query {
    if s.len() < 3 {
        return Query::All;
    }
    let mut seen = BTreeSet::new();
    let parts: Vec<Query> = (0..s.len() - 2)
        .map(|i| {
            let case = case_bits(s[i], s[i + 1], s[i + 2]);
            Gram {
                key: trigram(s[i], s[i + 1], s[i + 2]),
                follow: follow_bits(s.get(i + 3).copied(), s.get(i + 4).copied()),
                // Letterless trigrams ask for no case.
                case: if case == LOWER | UPPER { 0 } else { case },
            }
        })
        .filter(|g| seen.insert(*g))
        .map(Query::Trigram)
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

/// The bytes a class of at most this many characters can start a match with are kept as a set
/// (a larger one matches "any character" for the planner).
const MAX_CLASS_SPAN: usize = MAX_CLASS * 2;

fn class(class: &Class, fold: bool) -> Info {
    let mut set = Set::new();
    match class {
        Class::Unicode(c) => {
            let mut n = 0usize;
            for range in c.ranges() {
                n += (range.end() as usize).saturating_sub(range.start() as usize) + 1;
                if n > MAX_CLASS_SPAN {
                    return any_char();
                }
                for ch in range.start()..=range.end() {
                    let mut buf = [0u8; 4];
                    let bytes = ch.encode_utf8(&mut buf).bytes();
                    set.insert(bytes.map(|b| fold_byte(b, fold)).collect());
                }
            }
        }
        Class::Bytes(c) => {
            let mut n = 0usize;
            for range in c.ranges() {
                n += usize::from(range.end() - range.start()) + 1;
                if n > MAX_CLASS_SPAN {
                    return any_char();
                }
                for b in range.start()..=range.end() {
                    set.insert(vec![fold_byte(b, fold)]);
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

/// Whether a class the planner keeps as a set holds both cases of an ASCII letter (as every
/// letter of a case-insensitive pattern does).
fn folds(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) | HirKind::Literal(_) => false,
        // The set the planner keeps of the class, if it keeps one: its case pairs.
        HirKind::Class(c) => class(c, false).exact.is_some_and(|set| {
            set.iter().any(|s| match s[..] {
                [b] => b.is_ascii_lowercase() && set.contains(&vec![b.to_ascii_uppercase()]),
                _ => false,
            })
        }),
        HirKind::Capture(c) => folds(&c.sub),
        HirKind::Repetition(rep) => folds(&rep.sub),
        HirKind::Concat(parts) | HirKind::Alternation(parts) => parts.iter().any(folds),
    }
}

fn analyze(hir: &Hir, fold: bool) -> Info {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => empty_string(),
        HirKind::Literal(lit) => literal(&lit.0, fold),
        HirKind::Class(c) => class(c, fold),
        HirKind::Capture(c) => analyze(&c.sub, fold),
        HirKind::Repetition(rep) => {
            let sub = analyze(&rep.sub, fold);
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
                out = concat(out, analyze(part, fold));
            }
            out
        }
        HirKind::Alternation(parts) => {
            let mut iter = parts.iter();
            let Some(first) = iter.next() else {
                return empty_string();
            };
            let mut out = analyze(first, fold);
            for part in iter {
                out = alternate(out, analyze(part, fold));
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
    let fold = case_insensitive || folds(&hir);
    let info = analyze(&hir, fold);
    if info.can_be_empty {
        return Query::All;
    }
    let query = match &info.exact {
        Some(exact) => info.query.and(set_query(exact)),
        None => info
            .query
            .and(set_query(&info.prefix))
            .and(set_query(&info.suffix)),
    };
    if fold { without_case(query) } else { query }
}

/// `query` asking for no case: lowercased strings say nothing about the text's case.
fn without_case(query: Query) -> Query {
    match query {
        Query::Trigram(gram) => Query::Trigram(Gram { case: 0, ..gram }),
        Query::And(parts) => Query::And(parts.into_iter().map(without_case).collect()),
        Query::Or(parts) => Query::Or(parts.into_iter().map(without_case).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The query part for the first trigram of `s`, asking for `case`.
    fn tri_case(s: &str, case: u8) -> Query {
        let b = s.as_bytes();
        Query::Trigram(Gram {
            key: trigram(b[0], b[1], b[2]),
            follow: follow_bits(b.get(3).copied(), b.get(4).copied()),
            case,
        })
    }

    fn tri(s: &str) -> Query {
        tri_case(s, LOWER)
    }

    #[test]
    fn literals_need_all_their_trigrams_in_their_case() {
        assert_eq!(
            plan("Hello", false, false),
            Query::And(vec![tri_case("Hello", 0), tri("ello"), tri("llo")])
        );
        assert_eq!(
            plan("PM_RE", false, false),
            Query::And(vec![
                tri_case("PM_RE", UPPER),
                tri_case("M_RE", UPPER),
                tri_case("_RE", UPPER)
            ])
        );
        assert_eq!(plan("ab", false, false), Query::All);
        assert_eq!(plan("a.b", true, false), tri("a.b"));
        assert_eq!(
            plan("1->2", true, false),
            Query::And(vec![tri_case("1->2", 0), tri_case("->2", 0)])
        );
    }

    #[test]
    fn patterns_that_fold_case_ask_for_none() {
        let plain = plan("hello", false, true);
        assert_eq!(
            plain,
            Query::And(vec![
                tri_case("hello", 0),
                tri_case("ello", 0),
                tri_case("llo", 0)
            ])
        );
        assert_eq!(plan("(?i)HELLO", false, false), plain);
        assert_eq!(plan("[Hh]ello", false, false), plan("hello", false, true));
        // A class too wide to keep says nothing of folding: the rest keeps its case.
        assert_eq!(
            plan("[a-zA-Z]HELLO", false, false),
            plan("HELLO", false, false)
        );
        assert_ne!(plan("HELLO", false, false), plan("HELLO", false, true));
        // A class of one case keeps its case.
        assert_eq!(
            plan("[HJ]ELLO", false, false),
            Query::Or(vec![
                Query::And(vec![
                    tri_case("HELLO", UPPER),
                    tri_case("ELLO", UPPER),
                    tri_case("LLO", UPPER)
                ]),
                Query::And(vec![
                    tri_case("JELLO", UPPER),
                    tri_case("ELLO", UPPER),
                    tri_case("LLO", UPPER)
                ]),
            ])
        );
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
