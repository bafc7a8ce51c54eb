//! What every thread of a search shares: the compiled regex and the `glob` file filter.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};

use crate::error::{CoreError, PatternIssue, shorten};
use crate::walk::{CompiledGlob, cached_glob};
use crate::workspace::Workspace;

use super::GrepOptions;

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
    fn new(workspace: &Workspace, glob: &str) -> Result<Rule, CoreError> {
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
            matcher: cached_glob(workspace, &body, glob)?,
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
    pub(super) fn new(workspace: &Workspace, globs: &[String]) -> Result<FileFilter, CoreError> {
        let rules = globs
            .iter()
            .map(|g| Rule::new(workspace, g))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(FileFilter {
            any_whitelist: rules.iter().any(|r| !r.negated),
            any_negated: rules.iter().any(|r| r.negated),
            rules,
        })
    }

    /// The last rule matching this entry, if any.
    fn last_match(&self, relative: &[u8], name: &[u8], is_dir: bool) -> Option<&Rule> {
        self.rules
            .iter()
            .rev()
            .find(|r| r.matches(relative, name, is_dir))
    }

    pub(crate) fn admits(&self, relative: &[u8], name: &[u8]) -> bool {
        if self.any_negated {
            // Each directory on the way, as rg's walk would meet it.
            let mut end = 0;
            while let Some(i) = relative[end..].iter().position(|b| *b == b'/') {
                let dir = &relative[..end + i];
                let dir_name = &relative[end..end + i];
                if self
                    .last_match(dir, dir_name, true)
                    .is_some_and(|r| r.negated)
                {
                    return false;
                }
                end += i + 1;
            }
        }
        match self.last_match(relative, name, false) {
            Some(rule) => !rule.negated,
            None => !self.any_whitelist,
        }
    }
}

/// Builds the regex matcher.
pub(super) fn build_matcher(options: &GrepOptions) -> Result<RegexMatcher, CoreError> {
    let mut builder = RegexMatcherBuilder::new();
    // As ripgrep: `^` and `$` match at line boundaries, also before a `\r\n` (CRLF mode).
    builder
        .case_insensitive(options.case_insensitive)
        .fixed_strings(options.literal)
        .multi_line(true)
        .crlf(true);
    if options.multiline {
        builder.line_terminator(None);
    }
    // Otherwise the CRLF line terminator stays: the matcher never matches across lines, which
    // lets the searcher look for matches in whole buffers rather than line by line.
    builder.build(&options.pattern).map_err(|error| {
        // The parser's message quotes the pattern: cut each of its lines, so a huge pattern
        // does not flood the message.
        let message = error
            .to_string()
            .lines()
            .map(|line| shorten(line, 200))
            .collect::<Vec<_>>()
            .join("\n");
        let issue = if message.contains("exceeds size limit") {
            PatternIssue::TooLarge
        } else if message.contains("line terminator") || message.contains(r"\n") {
            PatternIssue::LineBreak
        } else {
            PatternIssue::Regex
        };
        let message = if issue == PatternIssue::TooLarge {
            format!(
                "the pattern ({} characters) is too large to compile: {message}",
                options.pattern.chars().count()
            )
        } else {
            message
        };
        CoreError::InvalidPattern {
            pattern: options.pattern.clone(),
            issue,
            message,
        }
    })
}
