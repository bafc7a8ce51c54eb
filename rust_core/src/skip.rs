//! What a walk or search passed over, by reason.

crate::record! {
    "SkipCounts",
    /// What a walk or search passed over, by reason, so "nothing found" can be told apart from
    /// "nothing looked at".
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct SkipCounts {
        /// Skip-set directories (such as .git and node_modules) pruned by a walk, each counted
        /// once; entries hidden by ignore files are not counted.
        pub ignored: u64,
        /// Binary files (a NUL byte), not searched.
        pub binary: u64,
        /// Files or directories covered by a deny rule (secrets policy).
        pub denied: u64,
        /// Entries that could not be read (permissions, vanished, I/O errors).
        pub unreadable: u64,
        /// FIFOs, sockets and devices, never opened.
        pub special: u64,
        /// Files over the size limit of a search.
        pub too_large: u64,
        /// Files with a line longer than a search holds in memory (`grep::MAX_LINE_BYTES`),
        /// not searched.
        pub line_too_long: u64,
        /// Requested paths (or links in them) leading outside the root, not followed.
        pub outside_root: u64,
        /// Symlinks met in a walk (never followed by walks; pass one as path to look inside).
        pub symlink: u64,
    }
}

impl SkipCounts {
    /// Adds another count into this one.
    pub fn add(&mut self, other: &SkipCounts) {
        self.ignored += other.ignored;
        self.binary += other.binary;
        self.denied += other.denied;
        self.unreadable += other.unreadable;
        self.special += other.special;
        self.too_large += other.too_large;
        self.line_too_long += other.line_too_long;
        self.outside_root += other.outside_root;
        self.symlink += other.symlink;
    }
}
