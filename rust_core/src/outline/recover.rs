//! Starting a parse again after a construct the grammar cannot read, for [`super::parse`]: a
//! C macro where the grammar wants a keyword makes tree-sitter give up on the rest of the file
//! (one ERROR node to its end), so the definitions after it are lost. Where a stretch holds
//! far fewer definitions than code does, the rest is parsed again from the next line where a
//! definition can start, and the broken definition is named from its head parsed alone.

use std::ops::Range;

use tree_sitter::{
    Node, ParseOptions, Parser, Point, QueryCursor, QueryCursorOptions, StreamingIterator, Tree,
};

use super::cap::{Budget, MATCH_LIMIT};
use super::tags::Tags;

/// Lines per definition past which the rest of an ERROR node counts as lost: a restart is
/// tried only where the parse before found fewer top-level definitions there than one in this
/// many lines (code has one in tens of lines; a lost stretch has none, or a few the grammar
/// picked out of it).
const SPARSE_LINES: usize = 200;
/// Restarts in a row that find no more definitions than the parse before, after which no more
/// are tried (a file the grammar reads well enough keeps its cost).
const MAX_FRUITLESS: usize = 2;
/// Lines of a broken definition parsed alone to name it at most (its head: a C function's
/// signature and opening brace, a Python `def` line).
const HEAD_LINES: usize = 4;

/// One parse of a part of the file.
pub(super) struct Part {
    pub(super) tree: Tree,
    /// The bytes whose definitions (and references) this parse gives.
    pub(super) window: Range<usize>,
    /// Where a definition of this part that runs past its window ends (the next part's start:
    /// its own end, in this parse, is where the grammar gave up).
    pub(super) cut: Option<(usize, Point)>,
    /// A broken definition's head parsed alone: only its definitions count, and only those
    /// no other part has.
    pub(super) head: bool,
}

/// The bytes of `source` from `from` (at `row`, column 0) on parsed, or all of them; `None`
/// when the budget ran out.
pub(super) fn parse_range(
    parser: &mut Parser,
    source: &[u8],
    range: Option<(usize, usize, usize)>,
    budget: &Budget,
) -> Option<Tree> {
    let ranges = match range {
        Some((from, row, to)) => vec![tree_sitter::Range {
            start_byte: from,
            end_byte: to,
            start_point: Point { row, column: 0 },
            end_point: point_at(source, to),
        }],
        None => Vec::new(),
    };
    parser.set_included_ranges(&ranges).ok()?;
    let mut in_time = |_: &tree_sitter::ParseState| budget.go_on();
    let length = source.len();
    parser.parse_with_options(
        &mut |offset, _| source.get(offset..length).unwrap_or_default(),
        None,
        Some(ParseOptions::new().progress_callback(&mut in_time)),
    )
}

/// The row and column of byte `at` of `source`.
fn point_at(source: &[u8], at: usize) -> Point {
    let before = source.get(..at).unwrap_or(source);
    let row = before.iter().filter(|b| **b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    Point {
        row,
        column: before.len() - line_start,
    }
}

/// The parts of the file's outline: `tree`, and where it gave up after a broken construct, the
/// rest of the ERROR node parsed again from a [`restart`] (and the broken definition's head
/// alone), at most `restarts` times. It is tried where the parse before found few definitions
/// in that rest ([`SPARSE_LINES`]), and kept when it finds more top-level definitions there
/// than the parse before did (else the next restart is tried, up to
/// [`MAX_FRUITLESS`] in a row): a construct the grammar took apart well (two `#ifdef` branches
/// that each open a function) is not made worse. Together they are given a quarter of the time
/// left (one stopped by its time is dropped), so the queries keep theirs; each parses the rest
/// of the top-level construct that holds its ERROR node, no further.
pub(super) fn recover(
    parser: &mut Parser,
    tags: &Tags,
    source: &[u8],
    tree: Tree,
    budget: &Budget,
    restarts: usize,
) -> Vec<Part> {
    let mut parts = vec![Part {
        tree,
        window: 0..source.len(),
        cut: None,
        head: false,
    }];
    // Parts still to search for a broken construct, each with the byte to search from: the
    // last first, so the file is searched in order.
    let mut pending: Vec<(usize, usize)> = vec![(0, 0)];
    let mut tries = 0;
    let mut fruitless = 0;
    // All restarts share a quarter of the time left: the worker's wall-clock deadline is
    // counted from the same start, and a busy machine stretches CPU time into more of it.
    let share = Budget::start(budget.left() / 4);
    while let Some((index, from)) = pending.pop() {
        if tries == restarts || share.spent() {
            break;
        }
        let Some(part) = parts.get(index) else {
            break;
        };
        let Some(found) = restart(&part.tree, source, part.window.clone(), from) else {
            continue;
        };
        tries += 1;
        let rest = found.at..found.until;
        // Where the grammar found its way on its own, the ERROR node holds definitions as dense
        // as code does: nothing was lost there.
        let before = top_level(tags, &part.tree, source, &rest, &share);
        let lines = source
            .get(rest.clone())
            .map_or(0, |bytes| bytes.iter().filter(|b| **b == b'\n').count());
        if before.saturating_mul(SPARSE_LINES) >= lines {
            pending.push((index, found.until));
            continue;
        }
        let Some(tree) = parse_range(
            parser,
            source,
            Some((found.at, found.row, found.until)),
            &share,
        ) else {
            break;
        };
        if top_level(tags, &tree, source, &rest, &share) <= before {
            fruitless += 1;
            if fruitless == MAX_FRUITLESS {
                break;
            }
            pending.push((index, found.at + 1));
            continue;
        }
        fruitless = 0;
        let cut = (
            found.at,
            Point {
                row: found.row,
                column: 0,
            },
        );
        // The part before the restart, the part parsed again (up to the end of the ERROR node
        // that held the restart: past it the grammar had found its way), and the rest of the
        // part as it was.
        let tail = Part {
            tree: part.tree.clone(),
            window: found.until..part.window.end,
            cut: part.cut,
            head: false,
        };
        if let Some(part) = parts.get_mut(index) {
            part.window.end = found.at;
            part.cut = Some(cut);
        }
        if !tail.window.is_empty() {
            pending.push((parts.len(), tail.window.start));
            parts.push(tail);
        }
        pending.push((parts.len(), found.at));
        parts.push(Part {
            tree,
            window: rest,
            cut: None,
            head: false,
        });
        if let Some((head, row)) = found.head {
            let line_end = line_starts(source, head)
                .next()
                .unwrap_or(found.at)
                .min(found.at);
            let end = head_end(source, head).min(found.at);
            if let Some(tree) = parse_range(parser, source, Some((head, row, end)), &share) {
                parts.push(Part {
                    tree,
                    window: head..line_end,
                    cut: Some(cut),
                    head: true,
                });
            }
        }
    }
    parts
}

/// How many definitions `tree` has in `window` that no other of them holds (0 once the budget
/// is spent).
fn top_level(
    tags: &Tags,
    tree: &Tree,
    source: &[u8],
    window: &Range<usize>,
    budget: &Budget,
) -> usize {
    let mut in_time = |_: &tree_sitter::QueryCursorState| budget.go_on();
    let mut cursor = QueryCursor::new();
    cursor.set_match_limit(MATCH_LIMIT);
    cursor.set_byte_range(window.clone());
    let mut matches = cursor.matches_with_options(
        &tags.query,
        tree.root_node(),
        source,
        QueryCursorOptions::new().progress_callback(&mut in_time),
    );
    let mut ranges = Vec::new();
    while let Some(found_match) = matches.next() {
        for capture in found_match.captures {
            if let Some(Some(_)) = tags.kinds.get(capture.index as usize)
                && window.contains(&capture.node.start_byte())
            {
                ranges.push((
                    capture.node.start_byte(),
                    std::cmp::Reverse(capture.node.end_byte()),
                ));
            }
        }
    }
    if budget.spent() {
        return 0;
    }
    ranges.sort_unstable();
    let mut count = 0;
    let mut open = 0;
    for (start, std::cmp::Reverse(end)) in ranges {
        if start >= open {
            count += 1;
            open = end;
        }
    }
    count
}

/// Where the head of a definition that begins at `at` ends: after its first line that opens a
/// block (holds a `{` or ends in `:`), or after [`HEAD_LINES`] lines. Its body, which may be
/// what the grammar could not parse, is left out.
fn head_end(source: &[u8], at: usize) -> usize {
    let mut start = at;
    for end in line_starts(source, at).take(HEAD_LINES) {
        let line = source.get(start..end).unwrap_or_default().trim_ascii_end();
        if line.contains(&b'{') || line.ends_with(b":") {
            return end;
        }
        start = end;
    }
    start.max(at)
}

/// The starts of the lines after the one holding byte `at`.
fn line_starts(source: &[u8], at: usize) -> impl Iterator<Item = usize> + '_ {
    let rest = source.get(at..).unwrap_or_default();
    rest.iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(move |(i, _)| at + i + 1)
}

/// Where a parse starts again after a broken construct.
struct Restart {
    /// The first byte of the line it starts at.
    at: usize,
    /// That line's row.
    row: usize,
    /// Where the part parsed again ends: the first line after the ERROR node that held it
    /// where a definition can begin (or the end of the part of the file searched).
    until: usize,
    /// Where the ERROR node that held it begins, with its row, when it begins a line (the head
    /// of a definition the grammar could not finish, maybe).
    head: Option<(usize, usize)>,
}

/// The first line, at or after `from` and inside an ERROR node of `tree` within `window`, that
/// begins with a letter or `_` at column 0 (where a definition can start, in any of the
/// languages) and that no complete construct inside the ERROR node holds: there the grammar
/// was lost. Small errors within a line hold no line start; an ERROR node made of complete
/// constructs (a whole file the grammar could not close) is passed until its first broken one.
/// The broken definition's head is looked for from the window's start. Linear in the tree and
/// the ERROR nodes' bytes.
fn restart(tree: &Tree, source: &[u8], window: Range<usize>, from: usize) -> Option<Restart> {
    let begin = window.start;
    let mut stack = vec![tree.root_node()];
    let mut cursor = tree.walk();
    while let Some(node) = stack.pop() {
        if node.end_byte() <= from || node.start_byte() >= window.end {
            continue;
        }
        if !node.is_error() {
            let children: Vec<Node<'_>> = node
                .children(&mut cursor)
                .filter(|child| child.has_error())
                .collect();
            stack.extend(children.into_iter().rev());
            continue;
        }
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        // A child that is a construct of its own (not an ERROR, not a single token).
        let complete = |child: &Node<'_>| !child.is_error() && child.named_child_count() > 0;
        let mut held = children.iter().filter(|child| complete(child)).peekable();
        let mut row = node.start_position().row;
        let start = node.start_byte();
        // The parse again ends where a definition can begin after the ERROR node and the
        // top-level construct that holds it (whose end, where the ERROR node swallowed part of
        // the file, is where the grammar found its way again).
        let root = tree.root_node();
        let top = match root.first_child_for_byte(node.start_byte()) {
            Some(child) if node != root && child.start_byte() <= node.start_byte() => child,
            _ => node,
        };
        let until = line_starts(source, top.end_byte().saturating_sub(1))
            .find(|at| *at >= window.end || opens(source, *at))
            .unwrap_or(window.end)
            .min(window.end);
        let end = node.end_byte().min(window.end);
        for (at, byte) in source.iter().enumerate().take(end).skip(start) {
            if *byte != b'\n' {
                continue;
            }
            row += 1;
            let line = at + 1;
            if line < from || !opens(source, line) {
                continue;
            }
            while held.peek().is_some_and(|child| child.end_byte() <= line) {
                held.next();
            }
            if held.peek().is_some_and(|child| child.start_byte() <= line) {
                continue;
            }
            // The broken definition begins with the ERROR node, or else after the last
            // construct in it that began a line where a definition can.
            let ended = children.partition_point(|child| child.end_byte() <= line);
            let before = children.get(..ended).unwrap_or_default();
            let last = before
                .iter()
                .rposition(|child| complete(child) && opens(source, child.start_byte()));
            let head = children
                .first()
                .filter(|child| opens(source, child.start_byte()))
                .or_else(|| {
                    before
                        .iter()
                        .skip(last.map_or(0, |last| last + 1))
                        .find(|child| opens(source, child.start_byte()))
                })
                .filter(|child| child.start_byte() >= begin && child.start_byte() < line)
                .map(|child| (child.start_byte(), child.start_position().row));
            return Some(Restart {
                at: line,
                row,
                until,
                head,
            });
        }
    }
    None
}

/// Whether byte `at` of `source` begins a line with a letter or `_`: where a definition can
/// start, in any of the languages.
fn opens(source: &[u8], at: usize) -> bool {
    (at == 0 || source.get(at - 1) == Some(&b'\n'))
        && source
            .get(at)
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::lang::Language;
    use super::super::parse::{MAX_RESTARTS, ParseFailure, Parsed, parse, parse_restarting};
    use super::super::tags::tags;
    use super::*;

    /// A C function whose `do { } while` ends in a macro (`while_each_thread(p, t);`, as in
    /// Linux's `kernel/exit.c`): the grammar gives up on it and on all that follows.
    const BROKEN_LOOP: &str = "static int before(void)\n{\n\treturn 0;\n}\n\n\
        static long waits(struct opts *wo)\n{\n\tint retval;\n\n\
        \tdo {\n\t\tretval = step(wo);\n\t\tif (retval)\n\t\t\tgoto end;\n\
        \t} while_each_thread(current, tsk);\nend:\n\treturn retval;\n}\n\n\
        int after_one(int x)\n{\n\treturn x;\n}\n\n\
        static void after_two(void)\n{\n}\n";

    /// Each definition as `name first-last`.
    fn spans(parsed: &Parsed) -> Vec<String> {
        parsed
            .entries
            .iter()
            .map(|e| format!("{} {}-{}", e.name, e.line, e.end_line))
            .collect()
    }

    #[test]
    fn definitions_after_a_construct_the_grammar_cannot_parse_are_found() {
        let time = Duration::from_secs(10);
        let once = parse_restarting(Language::C, BROKEN_LOOP.as_bytes(), time, false, 0);
        // Without a restart the loss is there: the broken function and all after it.
        assert_eq!(spans(&once.expect("parses")), ["before 1-4"]);
        let parsed = parse(Language::C, BROKEN_LOOP.as_bytes(), time).expect("parses");
        // The broken function is named from its head and ends where the parse started again
        // (the label `end:`, the first line after the loop that a definition could begin).
        assert_eq!(
            spans(&parsed),
            [
                "before 1-4",
                "waits 6-14",
                "after_one 19-22",
                "after_two 24-26"
            ]
        );
        assert!(parsed.has_errors);
        assert!(parsed.entries.iter().all(|e| e.depth == 0));
    }

    #[test]
    fn a_restart_is_not_kept_where_the_first_parse_did_better() {
        // Each `#ifdef` branch opens the function: the grammar takes the first branch apart and
        // reads the second well, while a parse from the first branch's line would read the
        // rest of the file as one function.
        let source = "static int before(void)\n{\n\treturn 0;\n}\n\n\
            #ifdef CONFIG_A\nvoid opened(int x) {\n\tx++;\n#else\n\
            void opened(int x, int y) {\n\tx += y;\n#endif\n\tif (x)\n\t\tx--;\n}\n\n\
            int after_one(int x)\n{\n\treturn x;\n}\n";
        let time = Duration::from_secs(10);
        let once = parse_restarting(Language::C, source.as_bytes(), time, false, 0);
        let parsed = parse(Language::C, source.as_bytes(), time).expect("parses");
        assert_eq!(parsed, once.expect("parses"));
        assert_eq!(
            spans(&parsed),
            ["before 1-4", "opened 10-15", "after_one 17-20"]
        );
    }

    /// A file of broken constructs is parsed again at most [`MAX_RESTARTS`] times (each with
    /// its head), and within the time cap.
    #[test]
    fn restarts_are_bounded() {
        let source = BROKEN_LOOP.repeat(200);
        let mut parser = Parser::new();
        parser.set_language(&Language::C.grammar()).expect("loads");
        let budget = Budget::start(Duration::from_secs(30));
        let tree = parse_range(&mut parser, source.as_bytes(), None, &budget).expect("parses");
        let tags = tags(Language::C).expect("compiles");
        let parts = recover(
            &mut parser,
            tags,
            source.as_bytes(),
            tree,
            &budget,
            MAX_RESTARTS,
        );
        assert!(parts.iter().filter(|part| !part.head).count() > 1);
        assert!(parts.len() <= 1 + 2 * MAX_RESTARTS, "{} parts", parts.len());
        // Parts that parse the file follow each other, each ending where the next begins.
        let mut windows: Vec<&Range<usize>> = parts
            .iter()
            .filter(|part| !part.head)
            .map(|part| &part.window)
            .collect();
        windows.sort_by_key(|window| window.start);
        assert_eq!(windows.first().map(|w| w.start), Some(0));
        assert_eq!(windows.last().map(|w| w.end), Some(source.len()));
        assert!(windows.windows(2).all(|pair| pair[0].end == pair[1].start));

        let cap = Duration::from_millis(300);
        let spent = Budget::start(cap * 10);
        let result = parse(Language::C, source.as_bytes(), cap);
        assert!(
            matches!(result, Ok(_) | Err(ParseFailure::Timeout)),
            "{result:?}"
        );
        assert!(!spent.spent(), "over ten times its cap");
    }
}
