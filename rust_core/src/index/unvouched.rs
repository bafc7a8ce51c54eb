//! The files an index file records without vouching for them, that a merge must read again
//! (see `upkeep`): a record's identity too recent when the file was written (a change in the
//! same tick would show in no identity) makes every process that takes the file search or
//! parse that file directly, although it may well not have changed since.

use crate::boundary::FileIdentity;

use super::table::{Table, now_ns, vouches};

/// The files an index file in use records without vouching for them (its record's identity
/// was too recent when written), that the table found with the recorded identity when the file
/// was taken, and that the process does not answer for from the file (searched or parsed
/// directly): each with the identity recorded.
#[derive(Default)]
pub(super) struct Unvouched(Vec<(String, FileIdentity)>);

impl Unvouched {
    /// Of `records` (path, identity, vouched for), those not vouched for whose file in `table`
    /// has the recorded identity and which `direct` says the process searches or parses
    /// directly.
    pub(super) fn of<'r>(
        records: impl Iterator<Item = (&'r str, FileIdentity, bool)>,
        table: &Table,
        direct: impl Fn(&str) -> bool,
    ) -> Unvouched {
        let files = records
            .filter(|(path, meta, trusted)| {
                !trusted && table.files.get(*path).is_some_and(|e| e.meta == *meta) && direct(path)
            })
            .map(|(path, meta, _)| (path.to_string(), meta))
            .collect();
        Unvouched(files)
    }

    /// Whether a merge is due for them: one is still as recorded (those changed since are
    /// dropped: they count as changes like any other). The merge waits for them to be old
    /// enough (see [`Unvouched::take_ready`]).
    pub(super) fn pending(&mut self, table: &Table) -> bool {
        self.0
            .retain(|(path, meta)| table.files.get(path).is_some_and(|e| e.meta == *meta));
        !self.0.is_empty()
    }

    /// For a merge about to read: whether one is still as recorded and now old enough to be
    /// vouched for. Forgets them all either way (those that are not stay searched directly, as
    /// any file the index does not vouch for, until the next file is written), so a file that
    /// keeps changing cannot start merge after merge.
    pub(super) fn take_ready(&mut self, table: &Table) -> bool {
        let now = now_ns();
        std::mem::take(&mut self.0).into_iter().any(|(path, meta)| {
            vouches(&meta, now) && table.files.get(&path).is_some_and(|e| e.meta == meta)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(ctime_ns: i64, size: u64) -> FileIdentity {
        FileIdentity {
            ctime_ns,
            size,
            nlink: 1,
            ..FileIdentity::default()
        }
    }

    #[test]
    fn only_files_still_as_recorded_and_old_enough_make_a_merge_worth_it() {
        let now = now_ns();
        let (old, recent) = (now - 5_000_000_000, now);
        let mut table = Table::default();
        for (path, meta) in [
            ("a", identity(old, 1)),
            ("b", identity(recent, 2)),
            ("c", identity(old, 3)),
            ("d", identity(old, 4)),
        ] {
            table.put_file(path.into(), meta, None);
        }
        let records = [
            ("a", identity(old, 1), false), // unvouched, unchanged: due
            ("b", identity(recent, 2), false),
            ("c", identity(old, 3), true),   // vouched for
            ("d", identity(old, 99), false), // changed since: a change like any other
            ("e", identity(old, 5), false),  // gone
        ];
        let all = |_: &str| true;
        let mut found = Unvouched::of(records.iter().copied(), &table, all);
        assert_eq!(
            found.0.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert!(found.pending(&table));
        assert!(found.take_ready(&table), "a is old enough");
        assert!(!found.pending(&table), "taken: no merge after merge");

        // Only b, too recent: due at a call, but not worth a merge once it waited, and gone.
        let mut recent_only = Unvouched::of(records[1..2].iter().copied(), &table, all);
        assert!(recent_only.pending(&table));
        assert!(!recent_only.take_ready(&table));
        assert!(!recent_only.pending(&table));

        // A file changed since it was noted is dropped; one the process answers for is never
        // noted.
        let mut changed = Unvouched::of(records[..1].iter().copied(), &table, all);
        table.put_file("a".into(), identity(old, 7), None);
        assert!(!changed.pending(&table));
        let none = Unvouched::of(records.iter().copied(), &table, |p| p != "b");
        assert!(none.0.is_empty());
    }
}
