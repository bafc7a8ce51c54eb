//! What every thread of a search shares: the compiled regex (the `glob` file filter is
//! [`crate::pattern::FileFilter`]).

use grep_matcher::Matcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};

use crate::error::{CoreError, PatternIssue, shorten};

use super::GrepOptions;

/// Bytes searched once by [`claim_caches`]: enough for nearly every pattern's shortest match
/// (a pattern longer than this only keeps the pools unclaimed, as before).
const CLAIM_HAYSTACK_BYTES: usize = 1024;

/// Builds the regex matcher, its caches claimed by the calling thread (see [`claim_caches`]).
pub(super) fn build_matcher(options: &GrepOptions) -> Result<RegexMatcher, CoreError> {
    let matcher = compile(options)?;
    claim_caches(&matcher);
    Ok(matcher)
}

/// Makes the calling thread the owner of the matcher's search caches. Each regex of the
/// matcher keeps one cache for the first thread that searches with it, reached without a lock,
/// and hands every other thread one from a locked stack (`regex_automata`'s pool). The
/// process keeps the matcher for later calls (`Workspace::cached_regex`), which mostly run on
/// the thread that compiled it (the engine thread of the calling Python thread, itself one of a
/// parallel walk's workers): without this, another walker thread of the first call would own
/// the caches and the caller's searches would take the locked way for every file. One search of a short run of line
/// ends claims them (a search the regex can rule out by length claims nothing).
fn claim_caches(matcher: &RegexMatcher) {
    let haystack = [b'\n'; CLAIM_HAYSTACK_BYTES];
    let _ = matcher.find_at(&haystack, 0);
    let _ = matcher.find_candidate_line(&haystack);
}

/// Compiles the regex matcher.
fn compile(options: &GrepOptions) -> Result<RegexMatcher, CoreError> {
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
