//! How a reference uses its name: its role (a call, an import, a type, a write, a read, a
//! declaration without a value), as the reference queries capture it
//! (`@reference.ROLE`, [`super::roles`]), the worker's wire carries it ([`super::refs`]) and the
//! navigation calls filter and count by it.

crate::choice! {
    /// How a reference uses its name.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Role {
        /// Called (`f(x)`, `obj.f(x)`, `new F()`, a Rust macro `f!()`).
        Call = "call",
        /// Brought in by an import (`import f`, `from m import f`, `use m::f`).
        Import = "import",
        /// Used as a type (a declaration's type, a cast, a base class, a generic argument).
        Type = "type",
        /// Assigned or declared with a value (`f = ...`, `int f = 1`, `f += 1`, `f++`).
        Write = "write",
        /// Read (any other use as code: an argument, an operand, a field read).
        Read = "read",
        /// Declared without a value (a parameter, a field, a prototype, an enumerator).
        Other = "other",
    }
}

impl Role {
    /// The role's number on the worker's wire (its place in [`Role::NAMES`]).
    pub fn code(self) -> u8 {
        Role::NAMES
            .iter()
            .position(|name| *name == self.name())
            .and_then(|i| u8::try_from(i).ok())
            .unwrap_or(u8::MAX)
    }

    /// Whether a use in this role ties the file making it to the files defining the name, in
    /// the repository map's graph: a call, a type or an import names a definition elsewhere; a
    /// read or a write is as often a local variable or a field spelled the same (in the kernel,
    /// `addr` and `flags` are read 50,000 times each and called twice, through static functions
    /// of one test file), and a declaration without a value is no use at all.
    pub fn links_files(self) -> bool {
        matches!(self, Role::Call | Role::Type | Role::Import)
    }

    /// The role with wire number `code`.
    pub fn from_code(code: u8) -> Option<Role> {
        Role::NAMES
            .get(usize::from(code))
            .and_then(|name| Role::from_name(name))
    }
}
