//! Which of the symbol file's records still describe their files, remembered per overlay.
//!
//! Whether a record is fresh (`navigate::fresh`: its identity is the table's and vouched for
//! the contents) is a lookup of its path in the live table. A call that counts the files
//! holding a common name (`find_calls`' candidates: thousands on the Linux tree) would look up
//! each of them at every call; the answer only changes when the table does, which is when the
//! overlay is computed again (a new `Arc`, kept with the table's revision and trust). So each
//! record's answer is kept until the overlay in use is another one: the first call after a
//! change pays for the records it asks about, the next ones read a byte.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::Symbols;

/// Each record's freshness as checked while `overlay` was the one in use.
#[derive(Default)]
pub(in crate::index) struct FreshMemo {
    overlay: Option<Arc<Vec<String>>>,
    /// Per record: 0 not checked yet, 1 fresh, 2 not.
    states: Vec<u8>,
}

impl FreshMemo {
    /// Whether record `f` is fresh: remembered, or `check` asked once.
    pub(in crate::index) fn fresh(&mut self, f: u32, check: impl FnOnce() -> bool) -> bool {
        let Some(state) = self.states.get_mut(f as usize) else {
            return check();
        };
        if *state == 0 {
            *state = if check() { 1 } else { 2 };
        }
        *state == 1
    }
}

/// The memo of a symbol file (kept beside its tables).
#[derive(Default)]
pub(super) struct Memo(Mutex<FreshMemo>);

impl Symbols {
    /// The memo of this file's records' freshness for `overlay` (the overlay now in use): the
    /// one kept when `overlay` is the one it was kept for, else an empty one.
    pub(in crate::index) fn fresh_memo(
        &self,
        overlay: &Arc<Vec<String>>,
    ) -> MutexGuard<'_, FreshMemo> {
        let mut memo = self.memo.0.lock().unwrap_or_else(PoisonError::into_inner);
        if !memo
            .overlay
            .as_ref()
            .is_some_and(|o| Arc::ptr_eq(o, overlay))
        {
            memo.overlay = Some(Arc::clone(overlay));
            memo.states.clear();
            memo.states.resize(self.files_len() as usize, 0);
        }
        memo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_kept_until_the_overlay_changes() {
        let mut memo = FreshMemo {
            overlay: None,
            states: vec![0; 2],
        };
        assert!(memo.fresh(0, || true));
        assert!(memo.fresh(0, || panic!("asked again")));
        assert!(!memo.fresh(1, || false));
        assert!(!memo.fresh(1, || panic!("asked again")));
        // A record past the table is asked every time.
        assert!(memo.fresh(5, || true) && !memo.fresh(5, || false));
    }
}
