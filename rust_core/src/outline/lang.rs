//! Which grammar reads which file, and the tag query written for each.
//!
//! A language is picked from the file's name (its extension, or a few well-known names such as
//! `Rakefile`), else from a `#!` line naming an interpreter. The grammars are the tree-sitter
//! project's crates (MIT); the queries beside this file (`queries/*.scm`) are written for
//! ripsight: each captures a definition node as `@definition.KIND` (the kinds of
//! [`SymbolKind`](super::SymbolKind)) and, where the grammar gives one, its name node as
//! `@name`.

use std::path::Path;

use tree_sitter::Language as Grammar;

crate::choice! {
    /// A language with a parser.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Language {
        /// Python (`.py`, `.pyi`).
        Python = "python",
        /// JavaScript (`.js`, `.mjs`, `.cjs`, `.jsx`).
        JavaScript = "javascript",
        /// TypeScript (`.ts`, `.mts`, `.cts`).
        TypeScript = "typescript",
        /// TypeScript with JSX (`.tsx`).
        Tsx = "tsx",
        /// Rust (`.rs`).
        Rust = "rust",
        /// Go (`.go`).
        Go = "go",
        /// C (`.c`, `.h`).
        C = "c",
        /// C++ (`.cc`, `.cpp`, `.cxx`, `.hpp`, `.hh`...).
        Cpp = "cpp",
        /// Java (`.java`).
        Java = "java",
        /// C# (`.cs`).
        CSharp = "csharp",
        /// Ruby (`.rb`, `Rakefile`, `Gemfile`...).
        Ruby = "ruby",
        /// PHP (`.php`).
        Php = "php",
        /// Bash and POSIX shell (`.sh`, `.bash`).
        Bash = "bash",
        /// Markdown headings (`.md`, `.markdown`).
        Markdown = "markdown",
        /// Kotlin (`.kt`, `.kts`).
        Kotlin = "kotlin",
        /// Swift (`.swift`).
        Swift = "swift",
    }
}

/// Extensions (lower case, without the dot) and the language each names.
const EXTENSIONS: &[(&str, Language)] = &[
    ("py", Language::Python),
    ("pyi", Language::Python),
    ("pyw", Language::Python),
    ("js", Language::JavaScript),
    ("mjs", Language::JavaScript),
    ("cjs", Language::JavaScript),
    ("jsx", Language::JavaScript),
    ("ts", Language::TypeScript),
    ("mts", Language::TypeScript),
    ("cts", Language::TypeScript),
    ("tsx", Language::Tsx),
    ("rs", Language::Rust),
    ("go", Language::Go),
    // Headers are read as C: C++ reads many C names (`new`, `class`) as keywords, and a C++
    // header still outlines well with the C grammar's error recovery.
    ("c", Language::C),
    ("h", Language::C),
    ("cc", Language::Cpp),
    ("cpp", Language::Cpp),
    ("cxx", Language::Cpp),
    ("c++", Language::Cpp),
    ("hh", Language::Cpp),
    ("hpp", Language::Cpp),
    ("hxx", Language::Cpp),
    ("h++", Language::Cpp),
    ("ipp", Language::Cpp),
    ("inl", Language::Cpp),
    ("tcc", Language::Cpp),
    ("java", Language::Java),
    ("cs", Language::CSharp),
    ("rb", Language::Ruby),
    ("rake", Language::Ruby),
    ("gemspec", Language::Ruby),
    ("php", Language::Php),
    ("phtml", Language::Php),
    ("sh", Language::Bash),
    ("bash", Language::Bash),
    ("md", Language::Markdown),
    ("markdown", Language::Markdown),
    ("kt", Language::Kotlin),
    ("kts", Language::Kotlin),
    ("swift", Language::Swift),
];

/// Whole file names with a language and no telling extension.
const FILE_NAMES: &[(&str, Language)] = &[
    ("Rakefile", Language::Ruby),
    ("Gemfile", Language::Ruby),
    ("Guardfile", Language::Ruby),
    ("Vagrantfile", Language::Ruby),
    (".bashrc", Language::Bash),
    (".bash_profile", Language::Bash),
    (".profile", Language::Bash),
];

/// Interpreters a `#!` line may name, and their language.
const INTERPRETERS: &[(&str, Language)] = &[
    ("python", Language::Python),
    ("python3", Language::Python),
    ("python2", Language::Python),
    ("node", Language::JavaScript),
    ("ruby", Language::Ruby),
    ("php", Language::Php),
    ("sh", Language::Bash),
    ("bash", Language::Bash),
    ("dash", Language::Bash),
];

impl Language {
    /// The language a file name says, by its extension (any case) or its whole name.
    pub fn from_path(path: &Path) -> Option<Language> {
        let name = path.file_name()?.to_str()?;
        if let Some((_, language)) = FILE_NAMES.iter().find(|(n, _)| *n == name) {
            return Some(*language);
        }
        let (_, extension) = name.rsplit_once('.')?;
        let extension = extension.to_ascii_lowercase();
        EXTENSIONS
            .iter()
            .find(|(e, _)| *e == extension)
            .map(|(_, language)| *language)
    }

    /// The language a file's first bytes name in a `#!` line (`#!/usr/bin/env python3`,
    /// `#!/bin/sh`), if any.
    pub fn from_shebang(head: &[u8]) -> Option<Language> {
        let line = head.strip_prefix(b"#!")?;
        let line = &line[..memchr::memchr(b'\n', line).unwrap_or(line.len())];
        let line = std::str::from_utf8(line).ok()?;
        let mut words = line.split_ascii_whitespace();
        let mut program = words.next()?.rsplit('/').next()?;
        if program == "env" {
            program = words.find(|w| !w.starts_with('-'))?;
        }
        // python3.12 and the like.
        let program = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        INTERPRETERS
            .iter()
            .find(|(name, _)| {
                program == *name || program == name.trim_end_matches(char::is_numeric)
            })
            .map(|(_, language)| *language)
    }

    /// The language of the file at `path` whose first bytes are `head`: by name, else by `#!`.
    pub fn detect(path: &Path, head: &[u8]) -> Option<Language> {
        Language::from_path(path).or_else(|| {
            // Only files without an extension are read as scripts: `notes.txt` starting with
            // "#!/bin/sh" is still text.
            let name = path.file_name()?.to_str()?;
            if name.contains('.') {
                return None;
            }
            Language::from_shebang(head)
        })
    }

    /// Every file-name pattern that selects a language (`*.py`, `Rakefile`...), for walks that
    /// look only at files with a parser.
    pub fn name_globs() -> Vec<String> {
        EXTENSIONS
            .iter()
            .map(|(extension, _)| format!("*.{extension}"))
            .chain(FILE_NAMES.iter().map(|(name, _)| (*name).to_string()))
            .collect()
    }

    /// The tree-sitter grammar.
    pub(crate) fn grammar(self) -> Grammar {
        match self {
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
            Language::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            Language::Php => tree_sitter_php::LANGUAGE_PHP.into(),
            Language::Bash => tree_sitter_bash::LANGUAGE.into(),
            Language::Markdown => tree_sitter_md::LANGUAGE.into(),
            Language::Kotlin => tree_sitter_kotlin_ng::LANGUAGE.into(),
            Language::Swift => tree_sitter_swift::LANGUAGE.into(),
        }
    }

    /// The tag query (written here, in `queries/`).
    pub(crate) fn query_source(self) -> &'static str {
        match self {
            Language::Python => include_str!("queries/python.scm"),
            Language::JavaScript => concat!(
                include_str!("queries/ecmascript.scm"),
                include_str!("queries/javascript.scm")
            ),
            Language::TypeScript | Language::Tsx => concat!(
                include_str!("queries/ecmascript.scm"),
                include_str!("queries/typescript.scm")
            ),
            Language::Rust => include_str!("queries/rust.scm"),
            Language::Go => include_str!("queries/go.scm"),
            Language::C => include_str!("queries/c.scm"),
            Language::Cpp => concat!(
                include_str!("queries/c.scm"),
                include_str!("queries/cpp.scm")
            ),
            Language::Java => include_str!("queries/java.scm"),
            Language::CSharp => include_str!("queries/csharp.scm"),
            Language::Ruby => include_str!("queries/ruby.scm"),
            Language::Php => include_str!("queries/php.scm"),
            Language::Bash => include_str!("queries/bash.scm"),
            Language::Markdown => include_str!("queries/markdown.scm"),
            Language::Kotlin => include_str!("queries/kotlin.scm"),
            Language::Swift => include_str!("queries/swift.scm"),
        }
    }

    /// Whether the language is code another file can use (Markdown's headings are not): the
    /// repository map's files, cold or from the index.
    pub fn has_code(self) -> bool {
        self != Language::Markdown
    }

    /// The reference query (written here, in `queries/references/`), `None` for a language
    /// without code (Markdown). Where two files are joined, the more telling patterns come
    /// first: the first pattern that matches a node gives its role.
    pub(crate) fn reference_query_source(self) -> Option<&'static str> {
        Some(match self {
            Language::Python => include_str!("queries/references/python.scm"),
            Language::JavaScript => concat!(
                include_str!("queries/references/javascript.scm"),
                include_str!("queries/references/ecmascript.scm")
            ),
            Language::TypeScript | Language::Tsx => concat!(
                include_str!("queries/references/typescript.scm"),
                include_str!("queries/references/ecmascript.scm")
            ),
            Language::Rust => include_str!("queries/references/rust.scm"),
            Language::Go => include_str!("queries/references/go.scm"),
            Language::C => include_str!("queries/references/c.scm"),
            Language::Cpp => concat!(
                include_str!("queries/references/cpp.scm"),
                include_str!("queries/references/c.scm")
            ),
            Language::Java => include_str!("queries/references/java.scm"),
            Language::CSharp => include_str!("queries/references/csharp.scm"),
            Language::Ruby => include_str!("queries/references/ruby.scm"),
            Language::Php => include_str!("queries/references/php.scm"),
            Language::Bash => include_str!("queries/references/bash.scm"),
            Language::Kotlin => include_str!("queries/references/kotlin.scm"),
            Language::Swift => include_str!("queries/references/swift.scm"),
            Language::Markdown => return None,
        })
    }

    /// The language's number on the worker's wire (its place in [`Language::NAMES`]).
    pub(crate) fn code(self) -> u8 {
        Language::NAMES
            .iter()
            .position(|name| *name == self.name())
            .and_then(|i| u8::try_from(i).ok())
            .unwrap_or(u8::MAX)
    }

    /// The language with wire number `code`.
    pub(crate) fn from_code(code: u8) -> Option<Language> {
        Language::NAMES
            .get(usize::from(code))
            .and_then(|name| Language::from_name(name))
    }
}
