//! What every thread of a search shares: the compiled regex (the `glob` file filter is
//! [`crate::pattern::FileFilter`]).

use grep_regex::{RegexMatcher, RegexMatcherBuilder};

use crate::error::{CoreError, PatternIssue, shorten};

use super::GrepOptions;

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
        // The matcher parses the pattern inside a group of its own (`(?:foo\)` for `foo\`),
        // so a syntax error is told from the pattern as given when it has one there: its
        // message quotes the user's pattern and names the real cause (a trailing backslash,
        // not an unclosed group). The parser's message quotes the pattern: cut each of its
        // lines, so a huge pattern does not flood the message.
        let error = match regex_syntax::Parser::new().parse(&options.pattern) {
            Err(own) if !options.literal => own.to_string(),
            _ => error.to_string(),
        };
        let message = error
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
