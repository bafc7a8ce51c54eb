//! What every thread of a search shares: the compiled regex and the `glob` file filter.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};

use crate::error::{CoreError, PatternIssue, shorten};
use crate::walk::{CompiledGlob, cached_glob};
use crate::workspace::Workspace;

use super::GrepOptions;

/// The `glob` option compiled: which files a search looks at.
pub(crate) struct FileFilter {
    matcher: CompiledGlob,
    /// Slash-free: match the file name; otherwise the path relative to the root.
    by_name: bool,
    /// A leading `!`: keep what does NOT match.
    negated: bool,
}

impl FileFilter {
    pub(super) fn new(workspace: &Workspace, glob: &str) -> Result<FileFilter, CoreError> {
        let trimmed = glob.trim();
        let (negated, body) = match trimmed.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, trimmed),
        };
        let body = body.strip_prefix("./").unwrap_or(body);
        let body = body.strip_prefix('/').unwrap_or(body);
        if body.is_empty() {
            return Err(CoreError::InvalidPattern {
                pattern: glob.to_string(),
                issue: PatternIssue::EmptyGlob,
                message: "the glob filter is empty".into(),
            });
        }
        // `dir/` means the files below the directory.
        let body = if body.ends_with('/') {
            format!("{body}**")
        } else {
            body.to_string()
        };
        Ok(FileFilter {
            by_name: !body.contains('/'),
            matcher: cached_glob(workspace, &body, glob)?,
            negated,
        })
    }

    pub(crate) fn admits(&self, relative: &[u8], name: &[u8]) -> bool {
        let subject = if self.by_name { name } else { relative };
        self.matcher.is_match(Path::new(OsStr::from_bytes(subject))) != self.negated
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
