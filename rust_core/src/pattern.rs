//! Globs as ripsight reads them: compiled with `*` and `?` confined to one directory level,
//! patterns normalized against the searched directory, their literal leading directories,
//! grep's `glob` file filter, the glob tool's list of patterns, and ripgrep's file types.
//!
//! Nothing here touches the file system or keeps state: the workspace caches what
//! [`compile_glob`] makes.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::types::{Types, TypesBuilder};

use crate::error::{CoreError, PatternIssue};

/// Characters that make a pattern component a glob rather than a literal name.
const GLOB_META: &[char] = &['*', '?', '[', ']', '{', '}', '\\', '!'];

/// Compiles a glob with ripsight's semantics: `*` and `?` never cross `/`, `**` does.
///
/// The glob is held as a one-glob `GlobSet`, not a `GlobMatcher`: the set picks a strategy per
/// pattern (a hash lookup of the extension for `**/*.c`, of the name for `**/Makefile`, a
/// prefix or suffix test) where the matcher always runs the whole regex, the cost of matching
/// every path of the warm index's table (kernel: 78,577).
pub(crate) fn compile_glob(pattern: &str, shown: &str) -> Result<CompiledGlob, CoreError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .and_then(|g| GlobSetBuilder::new().add(g).build())
        .map(Arc::new)
        .map_err(|e| CoreError::InvalidPattern {
            pattern: shown.to_string(),
            issue: PatternIssue::Glob,
            message: e.kind().to_string(),
        })
}

/// One compiled glob (see [`compile_glob`]).
pub(crate) type CompiledGlob = Arc<GlobSet>;

/// The pattern as matched against paths relative to the search directory: an absolute pattern
/// under the search directory loses that prefix, and a leading `./` or `/` is dropped.
pub(crate) fn normalize_pattern(pattern: &str, search_abs: &Path) -> Result<String, CoreError> {
    let trimmed = pattern.trim();
    let mut rest = trimmed;
    let search = search_abs.to_string_lossy();
    if let Some(inner) = rest.strip_prefix(search.as_ref())
        && (inner.is_empty() || inner.starts_with('/'))
    {
        rest = inner;
    } else if rest.starts_with('/') {
        return Err(CoreError::InvalidPattern {
            pattern: pattern.to_string(),
            issue: PatternIssue::AbsoluteGlob,
            message: format!(
                "the pattern is an absolute path outside the searched directory ({search})"
            ),
        });
    }
    if rest.split('/').any(|part| part == "..") {
        return Err(CoreError::InvalidPattern {
            pattern: pattern.to_string(),
            issue: PatternIssue::ParentGlob,
            message: "a pattern cannot contain `..`: it matches paths below `path` and never \
                      leaves the workspace root"
                .into(),
        });
    }
    loop {
        if let Some(inner) = rest.strip_prefix("./") {
            rest = inner;
        } else if let Some(inner) = rest.strip_prefix('/') {
            rest = inner;
        } else {
            break;
        }
    }
    if rest.is_empty() || rest == "." {
        return Err(CoreError::InvalidPattern {
            pattern: pattern.to_string(),
            issue: PatternIssue::EmptyPattern,
            message: "the pattern is empty".into(),
        });
    }
    // `dir/` means what lies below the directory.
    if rest.ends_with('/') {
        return Ok(format!("{rest}**"));
    }
    // `**.rs` (a common slip for `**/*.rs`) would mean `*.rs` to globset: say what was meant.
    let parts: Vec<String> = rest
        .split('/')
        .map(|part| match part.strip_prefix("**") {
            Some(tail) if !tail.is_empty() && !tail.starts_with('*') => format!("**/*{tail}"),
            _ => part.to_string(),
        })
        .collect();
    Ok(parts.join("/"))
}

/// The pattern's leading directory components that hold no glob syntax (never the last one).
pub(crate) fn literal_prefix(pattern: &str) -> Vec<&str> {
    let parts: Vec<&str> = pattern.split('/').collect();
    let mut prefix = Vec::new();
    for part in &parts[..parts.len().saturating_sub(1)] {
        if part.is_empty() || *part == "." || *part == ".." || part.contains(GLOB_META) {
            break;
        }
        prefix.push(*part);
    }
    prefix
}

/// The `glob` option compiled: which files a search looks at, as `rg -g` with one or more
/// globs. The last glob that matches decides (a leading `!` excludes); a file no glob matches
/// is searched only when every glob is a `!` one. A `!` glob that matches a directory on the
/// way excludes everything below it (`!*.bar` drops `d.bar/f`, `!asdf/` every directory named
/// `asdf`). A leading `/` anchors a glob at the root; a slash-free glob matches names at any
/// depth; `dir/` (without `!`) means the files below `dir`.
pub(crate) struct FileFilter {
    rules: Vec<Rule>,
    /// Some rule is not negated: a file no rule matches is left out.
    any_whitelist: bool,
    /// Some rule is negated: directories on the way must be checked.
    any_negated: bool,
}

struct Rule {
    matcher: CompiledGlob,
    /// Slash-free and not anchored: match the name; otherwise the path relative to the root.
    by_name: bool,
    /// A leading `!`: what matches is left out.
    negated: bool,
    /// A trailing `/` on a `!` glob: it matches directories only.
    dirs_only: bool,
}

impl Rule {
    fn new(
        glob: &str,
        compile: &impl Fn(&str, &str) -> Result<CompiledGlob, CoreError>,
    ) -> Result<Rule, CoreError> {
        let trimmed = glob.trim();
        let (negated, body) = match trimmed.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, trimmed),
        };
        let body = body.strip_prefix("./").unwrap_or(body);
        let (anchored, body) = match body.strip_prefix('/') {
            Some(rest) => (true, rest),
            None => (false, body),
        };
        if body.is_empty() || body == "/" {
            return Err(CoreError::InvalidPattern {
                pattern: glob.to_string(),
                issue: PatternIssue::EmptyGlob,
                message: "the glob filter is empty".into(),
            });
        }
        let (dirs_only, body) = match body.strip_suffix('/') {
            // `!dir/`: directories named so (rg); `dir/`: the files below it.
            Some(dir) if negated => (true, dir.to_string()),
            Some(_) => (false, format!("{body}**")),
            None => (false, body.to_string()),
        };
        Ok(Rule {
            by_name: !anchored && !body.contains('/'),
            matcher: compile(&body, glob)?,
            negated,
            dirs_only,
        })
    }

    fn matches(&self, relative: &[u8], name: &[u8], is_dir: bool) -> bool {
        if self.dirs_only && !is_dir {
            return false;
        }
        let subject = if self.by_name { name } else { relative };
        self.matcher.is_match(Path::new(OsStr::from_bytes(subject)))
    }
}

impl FileFilter {
    /// The glob tool's patterns (each already normalized by [`normalize_pattern`], after a
    /// leading `!` that excludes): matched against paths relative to the searched directory,
    /// the last that matches deciding, a `!` one also excluding what lies below a directory it
    /// matches. `compile(pattern, shown)` compiles one (a workspace's cache of
    /// [`compile_glob`]).
    pub(crate) fn paths(
        patterns: &[(bool, String, &str)],
        compile: impl Fn(&str, &str) -> Result<CompiledGlob, CoreError>,
    ) -> Result<FileFilter, CoreError> {
        let rules = patterns
            .iter()
            .map(|(negated, pattern, shown)| {
                Ok(Rule {
                    matcher: compile(pattern, shown)?,
                    by_name: false,
                    negated: *negated,
                    dirs_only: false,
                })
            })
            .collect::<Result<Vec<_>, CoreError>>()?;
        Ok(FileFilter::of(rules))
    }

    fn of(rules: Vec<Rule>) -> FileFilter {
        FileFilter {
            any_whitelist: rules.iter().any(|r| !r.negated),
            any_negated: rules.iter().any(|r| r.negated),
            rules,
        }
    }

    /// Reads the `glob` option; `compile(body, glob)` compiles each glob's body (a
    /// workspace's cache of [`compile_glob`]).
    pub(crate) fn new(
        globs: &[String],
        compile: impl Fn(&str, &str) -> Result<CompiledGlob, CoreError>,
    ) -> Result<FileFilter, CoreError> {
        let rules = globs
            .iter()
            .map(|g| Rule::new(g, &compile))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(FileFilter::of(rules))
    }

    /// The last rule matching this entry, if any.
    fn last_match(&self, relative: &[u8], name: &[u8], is_dir: bool) -> Option<&Rule> {
        self.rules
            .iter()
            .rev()
            .find(|r| r.matches(relative, name, is_dir))
    }

    /// Whether the file at `relative` (relative to the walk's base) named `name` is listed.
    pub(crate) fn admits(&self, relative: &[u8], name: &[u8]) -> bool {
        self.decides(relative, name, 0).unwrap_or(true)
    }

    /// What the globs say of the file at `relative` named `name`, as rg's overrides: searched
    /// (`Some(true)`: the last glob matching it is not negated), left out (`Some(false)`: the
    /// last is negated, a negated glob matches a directory on the way, or globs that are not
    /// negated exist and none matches), or nothing (`None`: only negated globs, none
    /// matching), when the file types decide. The directories on the way are those a walk
    /// meets: below its start, whose path is the first `start` bytes of `relative` (rg never
    /// matches the path it is given against its globs).
    pub(crate) fn decides(&self, relative: &[u8], name: &[u8], start: usize) -> Option<bool> {
        if self.any_negated {
            // Each directory on the way, as rg's walk would meet it.
            let mut end = 0;
            while let Some(i) = relative[end..].iter().position(|b| *b == b'/') {
                let dir = &relative[..end + i];
                let dir_name = &relative[end..end + i];
                if dir.len() > start
                    && self
                        .last_match(dir, dir_name, true)
                        .is_some_and(|r| r.negated)
                {
                    return Some(false);
                }
                end += i + 1;
            }
        }
        match self.last_match(relative, name, false) {
            Some(rule) => Some(!rule.negated),
            None if self.any_whitelist => Some(false),
            None => None,
        }
    }
}

/// Which files a search looks at beside the walk's rules, ripgrep's way: the `glob` filter
/// first (a file a glob names is searched or left out whatever its type, as with rg's `-g`
/// overrides), then the file types (`rg -t` / `-T`; they match file names and never prune a
/// directory).
pub(crate) struct FileSelect {
    pub(crate) globs: Option<FileFilter>,
    pub(crate) types: Option<Types>,
    /// Bytes of the searched directory's path relative to the root (0 for the root): the
    /// directories a negated glob can exclude lie below it.
    pub(crate) start: usize,
}

impl FileSelect {
    /// The selection of a search's `glob`, `types` and `types_not` options, from the root
    /// (`start` 0); `compile(body, glob)` compiles each glob's body (a workspace's cache of
    /// [`compile_glob`]).
    pub(crate) fn new(
        globs: &[String],
        (types, types_not): (&[String], &[String]),
        compile: impl Fn(&str, &str) -> Result<CompiledGlob, CoreError>,
    ) -> Result<FileSelect, CoreError> {
        let globs = (!globs.is_empty())
            .then(|| FileFilter::new(globs, compile))
            .transpose()?;
        Ok(FileSelect {
            globs,
            types: file_types(types, types_not)?,
            start: 0,
        })
    }

    /// Nothing to select: every file the walk lets through.
    pub(crate) fn is_empty(&self) -> bool {
        self.globs.is_none() && self.types.is_none()
    }

    /// Whether the file at `relative` (relative to the root) named `name`, met by a walk of
    /// the searched directory, is searched.
    pub(crate) fn admits(&self, relative: &[u8], name: &[u8]) -> bool {
        let decided = self
            .globs
            .as_ref()
            .and_then(|g| g.decides(relative, name, self.start));
        if let Some(decided) = decided {
            return decided;
        }
        type_admits(self.types.as_ref(), name)
    }
}

/// Whether file types (if any) let a file named `name` through: the last selection matching
/// its name decides, and a file no selection matches is left out when any type was selected.
pub(crate) fn type_admits(types: Option<&Types>, name: &[u8]) -> bool {
    types.is_none_or(|t| !t.matched(OsStr::from_bytes(name), false).is_ignore())
}

/// The group a file name belongs to in the warm index's table of names: its extension (after
/// its last `.`) or, for a name without `.`, the whole name; ASCII-lowercased and hashed
/// (FNV-1a, 64 bits). Two groups may share a hash: a lookup gives a superset, which the glob
/// then matches name by name.
pub(crate) fn name_key(name: &[u8]) -> u64 {
    let (kind, part) = match name.iter().rposition(|&b| b == b'.') {
        Some(dot) => (b'.', &name[dot + 1..]),
        None => (b'/', name),
    };
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in std::iter::once(&kind).chain(part) {
        hash = (hash ^ u64::from(b.to_ascii_lowercase())).wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The [`name_key`] every file a glob (normalized, compiled by [`compile_glob`]) matches has,
/// when the glob decides it: its last component ends with a literal holding a `.` (`*.dts`,
/// `**/*.tar.gz`: the names end with it, so their extension is the literal's), or is a literal
/// without `.` (`**/Makefile`: the names are that one). `None` otherwise (`*.{c,h}`, `src/**`,
/// `*file`).
pub(crate) fn glob_name_key(pattern: &str) -> Option<u64> {
    let last = pattern.rsplit('/').next().unwrap_or(pattern);
    let literal = match last.rfind(GLOB_META) {
        Some(meta) => &last[meta + 1..],
        None => last,
    };
    if literal.contains('.') || (literal == last && !literal.is_empty()) {
        Some(name_key(literal.as_bytes()))
    } else {
        None
    }
}

/// ripgrep's built-in file types (the `ignore` crate's defaults): each name with its globs,
/// by name.
pub fn file_type_definitions() -> Vec<(String, Vec<String>)> {
    let mut builder = TypesBuilder::new();
    builder.add_defaults();
    builder
        .definitions()
        .into_iter()
        .map(|d| (d.name().to_string(), d.globs().to_vec()))
        .collect()
}

/// The file types `select`ed (`rg -t`) and `negate`d (`rg -T`), the negations after the
/// selections (a name in both is left out); `None` when both are empty. `all` names every
/// type. An unknown name is an `InvalidArgument`.
pub(crate) fn file_types(select: &[String], negate: &[String]) -> Result<Option<Types>, CoreError> {
    if select.is_empty() && negate.is_empty() {
        return Ok(None);
    }
    let mut builder = TypesBuilder::new();
    builder.add_defaults();
    let known: Vec<String> = builder
        .definitions()
        .into_iter()
        .map(|d| d.name().to_string())
        .collect();
    for name in select.iter().chain(negate) {
        if name != "all" && !known.contains(name) {
            return Err(CoreError::InvalidArgument {
                message: format!("unknown file type {name:?}."),
            });
        }
    }
    for name in select {
        builder.select(name);
    }
    for name in negate {
        builder.negate(name);
    }
    builder
        .build()
        .map(Some)
        .map_err(|e| CoreError::InvalidArgument {
            message: format!("the file types cannot be used: {e}."),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glob_name_key_is_the_key_of_every_name_it_matches() {
        let patterns = [
            "**/*.dts",
            "*.c",
            "src/**/*.RS",
            "**/Makefile",
            "Makefile",
            "**/.gitignore",
            "*.tar.gz",
            "a/*.",
            "**/x.*",
            "*.{c,h}",
            "src/**",
            "*file",
            "**/*.[ch]",
            "**/*\\.c",
            "**/a\\*b.txt",
            "*",
            "**",
            ".*",
            "**/*.d?s",
        ];
        let paths = [
            "a.dts",
            "x/b.dts",
            "x/y/c.DTS",
            "main.c",
            "sub/main.c",
            "src/lib.rs",
            "src/a/b.RS",
            "Makefile",
            "x/Makefile",
            "x/makefile",
            "x/GNUmakefile",
            "Makefile.in",
            ".gitignore",
            "x/.gitignore",
            "a.tar.gz",
            "x/b.gz",
            "a/b.",
            "a/x.y",
            "x.y/z",
            "file",
            "x/myfile",
            "a.h",
            "src",
            "x/a*b.txt",
            "x/*.c",
            "x/a.dxs",
            "noext",
        ];
        for pattern in patterns {
            let glob = compile_glob(pattern, pattern).expect("glob");
            let key = glob_name_key(pattern);
            for path in paths {
                let name = path.rsplit('/').next().unwrap_or(path);
                if glob.is_match(Path::new(path)) {
                    assert!(
                        key.is_none_or(|k| k == name_key(name.as_bytes())),
                        "{pattern} matches {path}"
                    );
                }
            }
        }
        assert_eq!(glob_name_key("**/*.dts"), Some(name_key(b"x.dts")));
        assert_eq!(glob_name_key("**/Makefile"), Some(name_key(b"Makefile")));
        assert_ne!(name_key(b"Makefile"), name_key(b"x.Makefile"));
        for unknown in ["*.{c,h}", "src/**", "*file", "**/*.[ch]", "*", "**/*.d?s"] {
            assert_eq!(glob_name_key(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn literal_prefix_stops_at_glob_syntax() {
        assert_eq!(literal_prefix("src/**/*.rs"), vec!["src"]);
        assert_eq!(literal_prefix("a/b/c.txt"), vec!["a", "b"]);
        assert_eq!(literal_prefix("*.rs"), Vec::<&str>::new());
        assert_eq!(literal_prefix("a/{b,c}/d"), vec!["a"]);
        assert_eq!(literal_prefix("../x/y"), Vec::<&str>::new());
    }

    #[test]
    fn normalize_pattern_drops_leading_noise() {
        let search = Path::new("/repo");
        assert_eq!(normalize_pattern("./src/*.rs", search).unwrap(), "src/*.rs");
        assert_eq!(
            normalize_pattern("/repo/src/*.rs", search).unwrap(),
            "src/*.rs"
        );
        assert_eq!(normalize_pattern("src/", search).unwrap(), "src/**");
        assert_eq!(normalize_pattern("**.rs", search).unwrap(), "**/*.rs");
        assert_eq!(
            normalize_pattern("src/**.rs", search).unwrap(),
            "src/**/*.rs"
        );
        assert_eq!(normalize_pattern("a/**/b", search).unwrap(), "a/**/b");
        assert!(normalize_pattern("  ", search).is_err());
    }

    #[test]
    fn normalize_pattern_refuses_leaving_the_search_directory() {
        let search = Path::new("/repo");
        for pattern in ["../*", "../**/*.rs", "src/../../x", "/etc/*", "/repo-old/*"] {
            let error = normalize_pattern(pattern, search).expect_err(pattern);
            assert_eq!(error.kind(), "invalid_pattern", "{pattern}");
        }
        assert_eq!(normalize_pattern("/repo/a/*", search).unwrap(), "a/*");
    }
}
