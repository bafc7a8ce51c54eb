//! What a walk or search passed over, by reason.

crate::record! {
    "SkipCounts",
    /// What a walk or search passed over, by reason, so "nothing found" can be told apart from
    /// "nothing looked at".
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct SkipCounts {
        /// Skip-set directories (such as .git and node_modules) pruned by a walk, each counted
        /// once.
        pub ignored: u64,
        /// Files and directories hidden by ignore files (.gitignore, .ignore, .ripsightignore,
        /// .git/info/exclude); a hidden directory is counted once, without walking into it.
        pub ignored_by_rules: u64,
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
        self.ignored_by_rules += other.ignored_by_rules;
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

crate::record! {
    "IgnoreRule",
    /// One rule of an ignore file, and how many files and directories it hid.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct IgnoreRule {
        /// The ignore file, relative to the root, /-separated (`../` steps for a file in a
        /// directory above the root).
        pub file: String,
        /// The rule's 1-based line number in that file.
        pub line: u64,
        /// The rule as written (trailing spaces dropped).
        pub rule: String,
        /// Files and directories it hid (a directory counted once); 1 for the requested path
        /// itself (`path_ignored_by`).
        pub hidden: u64,
    }
}

/// The ignore rules a result names: those that hid the most, most first.
pub const MAX_HIDING_RULES: usize = 3;
