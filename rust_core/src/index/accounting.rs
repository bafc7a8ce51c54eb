//! What a warm answer counts from the table: the entries a walk of one directory would pass
//! over (the skip counts), the ignore rules that hid the most of them, and which entries lie
//! within a walk's `max_depth`, exactly as the cold walk counts them.

use crate::ignore_rules::RuleTally;
use crate::skip::{IgnoreRule, MAX_HIDING_RULES};
use crate::walker::WalkSkip;
use crate::workspace::SkipCounts;

use super::table::{Table, below};

/// Levels of `path` below the directory `scope` (1 for its own entries).
pub(super) fn depth_below(path: &str, scope: &str) -> usize {
    let rest = if scope.is_empty() {
        path
    } else {
        path.get(scope.len() + 1..).unwrap_or_default()
    };
    rest.bytes().filter(|b| *b == b'/').count() + 1
}

/// Whether `path` (below `scope`) lies within `max_depth` levels of it.
pub(super) fn within(path: &str, scope: &str, max_depth: Option<usize>) -> bool {
    max_depth.is_none_or(|max| depth_below(path, scope) <= max)
}

/// The skip counts and the rules that hid the most for a walk of `scope` that meets entries at
/// most `max_depth` levels below it; `None` when the table cannot tell: an unreadable entry at
/// the last level may be a directory a walk failed to enter, which a walk stopping at that
/// level never tries, or a file it met.
pub(super) fn walk_accounting(
    table: &Table,
    scope: &str,
    max_depth: Option<usize>,
) -> Option<(SkipCounts, Vec<IgnoreRule>)> {
    let mut tally = RuleTally::default();
    let Some(max) = max_depth else {
        for (_, reason) in below(&table.skips, scope) {
            if let WalkSkip::Hidden(rule) = reason {
                tally.add(rule);
            }
        }
        return Some((table.skips_below(scope), tally.top(MAX_HIDING_RULES)));
    };
    let mut counts = SkipCounts::default();
    for (path, reason) in below(&table.skips, scope) {
        let depth = depth_below(path, scope);
        if depth > max {
            continue;
        }
        if depth == max && reason == &WalkSkip::Unreadable {
            return None;
        }
        reason.count(&mut counts);
        if let WalkSkip::Hidden(rule) = reason {
            tally.add(rule);
        }
    }
    if scope.is_empty() {
        counts.add(&table.unattributed);
    }
    Some((counts, tally.top(MAX_HIDING_RULES)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_levels_below_the_scope() {
        assert_eq!(depth_below("a.rs", ""), 1);
        assert_eq!(depth_below("src/a.rs", ""), 2);
        assert_eq!(depth_below("src/a.rs", "src"), 1);
        assert_eq!(depth_below("src/x/y/a.rs", "src"), 3);
        assert!(within("src/x/a.rs", "src", Some(2)));
        assert!(!within("src/x/a.rs", "src", Some(1)));
        assert!(within("src/x/a.rs", "src", None));
    }
}
