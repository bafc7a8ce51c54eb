//! One file's definitions out of its bytes: the pure part of an outline, run inside the outline
//! worker's child process (tree-sitter and its grammars are C, see [`super::worker`]).
//!
//! The grammar parses the bytes into a tree, the language's tag query ([`super::lang`]) picks
//! the definition nodes and their names, and the definitions are put in source order with
//! their nesting worked out from how their byte ranges contain each other. Both the parse and
//! the query ask a progress callback, which stops them once the parsing thread has used `time`
//! of CPU ([`super::cap`], [`ParseFailure::Timeout`]): a file built to make the parser work for
//! long costs that much and no more.

use std::ops::Range;
use std::sync::OnceLock;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tree_sitter::{
    Node, ParseOptions, Parser, Point, Query, QueryCursor, QueryCursorOptions, StreamingIterator,
    Tree,
};

use super::SymbolKind;
use super::cap::{Budget, MATCH_LIMIT};
pub use super::cap::{MAX_NAME_CHARS, ParseFailure};
use super::lang::Language;
use super::refs::{self, References, Spans};

/// Node kinds whose text is a definition's name when a query gives none (the innermost name
/// of a C or C++ declarator: `*(*name)(void)` names `name`).
const NAME_NODES: &[&str] = &[
    "identifier",
    "field_identifier",
    "type_identifier",
    "destructor_name",
    "operator_name",
];

/// One definition as the parse found it (the engine's [`super::Symbol`] is made from it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// What it is.
    #[serde(with = "kind_code")]
    pub kind: SymbolKind,
    /// Its name, whitespace runs made one space, cut to [`MAX_NAME_CHARS`].
    pub name: String,
    /// 1-based line of its name (of its first line when it has no name node).
    pub line: u64,
    /// 1-based line of its last line.
    pub end_line: u64,
    /// How many definitions enclose it (0: at the top of the file).
    pub depth: u32,
    /// The index (in the outline) of the definition that directly encloses it.
    pub parent: Option<u32>,
}

/// A file's definitions, in source order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parsed {
    /// The definitions, by position (an enclosing one before what it encloses).
    pub entries: Vec<Entry>,
    /// The grammar met text it could not parse (the outline covers what it could).
    pub has_errors: bool,
    /// The file's references, when they were asked for and its language has a reference
    /// query.
    #[serde(default)]
    pub references: Option<References>,
    /// Whether references were asked for (an outline parse leaves them out).
    #[serde(default)]
    pub with_references: bool,
}

/// The serde form of a kind: its name.
mod kind_code {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    use super::SymbolKind;

    pub fn serialize<S: Serializer>(kind: &SymbolKind, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(kind.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<SymbolKind, D::Error> {
        let name = <&str>::deserialize(deserializer)?;
        SymbolKind::from_name(name).ok_or_else(|| D::Error::custom(format!("no kind {name:?}")))
    }
}

/// One language's compiled query and what each of its captures means.
struct Tags {
    query: Query,
    /// For each capture index: the definition kind it marks, or `None` for `@name` (and any
    /// helper capture).
    kinds: Vec<Option<SymbolKind>>,
    /// The index of the `@name` capture.
    name: Option<u32>,
}

/// The compiled query of `language`, made once per process, when the language is first met
/// (compiling a query takes milliseconds; a worker pays only for the languages it parses).
fn tags(language: Language) -> Result<&'static Tags, ParseFailure> {
    const LANGUAGES: usize = Language::NAMES.len();
    static TAGS: [OnceLock<Result<Tags, String>>; LANGUAGES] =
        [const { OnceLock::new() }; LANGUAGES];
    let Some(slot) = TAGS.get(usize::from(language.code())) else {
        return Err(ParseFailure::Grammar(format!(
            "no query for {}",
            language.name()
        )));
    };
    match slot.get_or_init(|| compile(language)) {
        Ok(tags) => Ok(tags),
        Err(error) => Err(ParseFailure::Grammar(error.clone())),
    }
}

fn compile(language: Language) -> Result<Tags, String> {
    let query = Query::new(&language.grammar(), language.query_source())
        .map_err(|e| format!("the {} query does not compile: {e}", language.name()))?;
    let mut kinds = Vec::new();
    let mut name = None;
    for (index, capture) in query.capture_names().iter().enumerate() {
        let kind = match capture.strip_prefix("definition.") {
            Some(kind) => Some(SymbolKind::from_name(kind).ok_or_else(|| {
                format!(
                    "the {} query captures an unknown kind @{capture}",
                    language.name()
                )
            })?),
            None => None,
        };
        if *capture == "name" {
            name = u32::try_from(index).ok();
        }
        kinds.push(kind);
    }
    Ok(Tags { query, kinds, name })
}

/// Checks that every language's grammar loads and its query compiles with known kinds.
pub fn check_queries() -> Result<(), String> {
    for name in Language::NAMES {
        if let Some(language) = Language::from_name(name) {
            tags(language).map_err(|e| format!("{e:?}"))?;
        }
    }
    Ok(())
}

/// The definitions in `source` (UTF-8, as far as it is valid) read as `language`, parse and
/// query stopped once `time` has passed.
pub fn parse(language: Language, source: &[u8], time: Duration) -> Result<Parsed, ParseFailure> {
    parse_with(language, source, time, false)
}

/// The definitions in `source` and, when `references` is set, its references
/// ([`refs`](super::refs)); the parse and both queries stopped once `time` has passed.
///
/// A construct the grammar cannot parse (a macro where C wants `while`, a brace an `#ifdef`
/// leaves unbalanced) can make it give up on the rest of the file: everything after it is one
/// ERROR node with no definition in it. The parse then starts again at the first line after
/// the broken construct where a definition can start ([`restart`]), and names the broken
/// definition from its head alone where it can: at most [`MAX_RESTARTS`] times, in a quarter
/// of the time left after the first parse.
pub fn parse_with(
    language: Language,
    source: &[u8],
    time: Duration,
    references: bool,
) -> Result<Parsed, ParseFailure> {
    parse_restarting(language, source, time, references, MAX_RESTARTS)
}

/// [`parse_with`], starting again after broken constructs at most `restarts` times.
fn parse_restarting(
    language: Language,
    source: &[u8],
    time: Duration,
    references: bool,
    restarts: usize,
) -> Result<Parsed, ParseFailure> {
    let tags = tags(language)?;
    let budget = Budget::start(time);
    let mut parser = Parser::new();
    parser
        .set_language(&language.grammar())
        .map_err(|e| ParseFailure::Grammar(e.to_string()))?;
    let tree = parse_range(&mut parser, source, None, &budget).ok_or(ParseFailure::Timeout)?;
    let has_errors = tree.root_node().has_error();
    let parts = recover(&mut parser, tags, source, tree, &budget, restarts);

    let mut query_in_time = |_: &tree_sitter::QueryCursorState| budget.go_on();
    let mut found: Vec<Found<'_>> = Vec::new();
    // The parts that parse the file (and give its references) first: a head's definition is
    // kept only where they have none starting at the same byte.
    for heads in [false, true] {
        let whole = found.len();
        for part in parts.iter().filter(|part| part.head == heads) {
            let mut cursor = QueryCursor::new();
            cursor.set_match_limit(MATCH_LIMIT);
            cursor.set_byte_range(part.window.clone());
            let mut matches = cursor.matches_with_options(
                &tags.query,
                part.tree.root_node(),
                source,
                QueryCursorOptions::new().progress_callback(&mut query_in_time),
            );
            while let Some(found_match) = matches.next() {
                let mut definition = None;
                let mut name = None;
                for capture in found_match.captures {
                    if Some(capture.index) == tags.name {
                        name = Some(capture.node);
                    } else if let Some(Some(kind)) = tags.kinds.get(capture.index as usize) {
                        definition = Some((capture.node, *kind));
                    }
                }
                let Some((node, kind)) = definition else {
                    continue;
                };
                if !part.window.contains(&node.start_byte())
                    || (heads && found[..whole].iter().any(|f| f.start == node.start_byte()))
                {
                    continue;
                }
                let end = match part.cut {
                    Some(cut) if heads || node.end_byte() > cut.0 => cut,
                    _ => (node.end_byte(), node.end_position()),
                };
                found.push(Found {
                    node,
                    start: node.start_byte(),
                    end,
                    kind,
                    name,
                    pattern: found_match.pattern_index,
                });
            }
        }
    }
    if budget.spent() {
        return Err(ParseFailure::Timeout);
    }
    let (entries, spans) = arrange(found, source, language);
    let extracted = if references {
        let trees: Vec<(Node<'_>, Range<usize>)> = parts
            .iter()
            .filter(|part| !part.head)
            .map(|part| (part.tree.root_node(), part.window.clone()))
            .collect();
        refs::extract(language, &trees, source, &spans, &budget)?
    } else {
        None
    };
    Ok(Parsed {
        entries,
        has_errors,
        references: extracted,
        with_references: references,
    })
}

/// Restarts after a broken construct one parse makes at most: each parses the rest of the file
/// again, so a file of broken constructs costs at most this many more parses (and no more
/// than the time the budget has left).
pub const MAX_RESTARTS: usize = 8;
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
struct Part {
    tree: Tree,
    /// The bytes whose definitions (and references) this parse gives.
    window: Range<usize>,
    /// Where a definition of this part that runs past its window ends (the next part's start:
    /// its own end, in this parse, is where the grammar gave up).
    cut: Option<(usize, Point)>,
    /// A broken definition's head parsed alone: only its definitions count, and only those
    /// no other part has.
    head: bool,
}

/// The bytes of `source` from `from` (at `row`, column 0) on parsed, or all of them; `None`
/// when the budget ran out.
fn parse_range(
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
fn recover(
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

/// A definition node a query pattern matched.
struct Found<'tree> {
    node: Node<'tree>,
    /// Its first byte.
    start: usize,
    /// Its end byte and position: the node's, or where the next part of the file's parse
    /// begins when the node runs past it ([`Part::cut`]).
    end: (usize, Point),
    kind: SymbolKind,
    /// Its `@name` capture.
    name: Option<Node<'tree>>,
    /// The pattern's place in the query: where two match one node, the first written wins
    /// (queries put the more telling kind first, as Go's struct before its plain type).
    pattern: usize,
}

/// Puts the matches in source order, drops repeats of one node, names them and nests them;
/// with the entries, their byte ranges and where their names start (for the references).
fn arrange(mut found: Vec<Found<'_>>, source: &[u8], language: Language) -> (Vec<Entry>, Spans) {
    // Enclosing before enclosed: by start, then the longer first.
    found.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end.0), f.node.id(), f.pattern));
    found.dedup_by_key(|f| f.node.id());
    let mut out: Vec<Entry> = Vec::with_capacity(found.len());
    let mut spans = Spans {
        ranges: Vec::with_capacity(found.len()),
        names: Vec::with_capacity(found.len()),
    };
    // Indices (in `out`) of the definitions enclosing the current one, innermost last, with
    // their end bytes.
    let mut open: Vec<(u32, usize)> = Vec::new();
    for Found {
        node,
        start,
        end: (end_byte, end),
        kind,
        name: name_node,
        ..
    } in found
    {
        let name_node = name_node.or_else(|| declared_name(node));
        let Some(name) = name_node.map(|n| clean_name(&source[n.byte_range()], language)) else {
            continue;
        };
        if name.is_empty() {
            continue;
        }
        while open.last().is_some_and(|(_, end)| *end <= start) {
            open.pop();
        }
        let parent = open.last().map(|(index, _)| *index);
        let kind = match (kind, parent.and_then(|p| out.get(p as usize))) {
            (SymbolKind::Function, Some(container)) if container.kind.holds_methods() => {
                SymbolKind::Method
            }
            _ => kind,
        };
        let line =
            name_node.map_or(node.start_position().row, |n| n.start_position().row) as u64 + 1;
        // A node that ends at the start of a line (a section ending before the next heading)
        // ends on the line before.
        let end_row = if end.column == 0 && end.row > node.start_position().row {
            end.row - 1
        } else {
            end.row
        };
        let Ok(index) = u32::try_from(out.len()) else {
            break;
        };
        out.push(Entry {
            kind,
            name,
            line,
            end_line: (end_row as u64 + 1).max(line),
            depth: u32::try_from(open.len()).unwrap_or(u32::MAX),
            parent,
        });
        open.push((index, end_byte));
        spans.ranges.push((start, end_byte));
        if let Some(name_node) = name_node {
            spans.names.push(name_node.start_byte());
        }
    }
    spans.names.sort_unstable();
    (out, spans)
}

/// The name a C or C++ declaration declares: the innermost name down its `declarator` fields
/// (through pointers, parentheses, arrays and the function declarator itself), and of a
/// qualified or template name its last part (`ns::Type::method` names `method`).
fn declared_name(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node.child_by_field_name("declarator")?;
    // Declarators nest one level per pointer, parenthesis or array: a bounded walk.
    for _ in 0..64 {
        if NAME_NODES.contains(&current.kind()) {
            return Some(current);
        }
        current = current
            .child_by_field_name("declarator")
            .or_else(|| current.child_by_field_name("name"))
            .or_else(|| current.named_child(0))?;
    }
    None
}

/// `bytes` as a one-line name: lossy UTF-8, whitespace runs as one space, trimmed, at most
/// [`MAX_NAME_CHARS`] characters. A JavaScript private name is given without its `#`, and a
/// quoted method name without its quotes (the name a search for it uses; ctags does the same).
fn clean_name(bytes: &[u8], language: Language) -> String {
    let script = matches!(
        language,
        Language::JavaScript | Language::TypeScript | Language::Tsx
    );
    let mut bytes = bytes;
    if script {
        bytes = bytes.strip_prefix(b"#").unwrap_or(bytes);
        if let [quote @ (b'"' | b'\''), inner @ .., last] = bytes
            && quote == last
        {
            bytes = inner;
        }
    }
    let text = String::from_utf8_lossy(bytes);
    let mut name = String::with_capacity(text.len().min(MAX_NAME_CHARS));
    for (count, word) in text.split_whitespace().enumerate() {
        if count > 0 {
            name.push(' ');
        }
        name.push_str(word);
        if name.len() > MAX_NAME_CHARS * 4 {
            break;
        }
    }
    match name.char_indices().nth(MAX_NAME_CHARS) {
        Some((end, _)) => name[..end].to_string(),
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline(language: Language, source: &str) -> Vec<String> {
        let parsed = parse(language, source.as_bytes(), Duration::from_secs(10)).expect("parses");
        parsed
            .entries
            .iter()
            .map(|e| {
                format!(
                    "{}{} {}",
                    "  ".repeat(e.depth as usize),
                    e.kind.name(),
                    e.name
                )
            })
            .collect()
    }

    #[test]
    fn every_query_compiles_with_known_kinds() {
        assert_eq!(check_queries(), Ok(()));
    }

    #[test]
    fn javascript_definitions_by_assignment_have_ctags_names_and_kinds() {
        // ctags (universal-ctags 5.9) tags each of these at its line with this name: a method
        // when given to a prototype or to `this`, a function when given to another object. In
        // a chain `a = b = function` ctags tags the first; the outline lists both (the second
        // inside the first, as its node is). An existing function given to a prototype is a
        // method there (ctags lists it); given to another object it is no definition.
        let source = "function C() { this.t = function () {}; }\n\
                      C.prototype.m = function () {};\n\
                      C.prototype.a = C.prototype.b = function () {};\n\
                      C.prototype.alias = other;\n\
                      C.prototype.x = C.prototype.y = other.y;\n\
                      obj.plain = other;\n\
                      module.exports.f = function () {};\n\
                      exports.g = () => 1;\n\
                      obj.h = async function () {};\n\
                      const o = { 'quoted': function () {}, plain: () => 2 };\n\
                      class K { field = () => {}; value = 3; }\n";
        let expected = [
            "function C",
            "  method t",
            "method m",
            "method a",
            "  method b",
            "method alias",
            "method x",
            "  method y",
            "function f",
            "function g",
            "function h",
            "method quoted",
            "method plain",
            "class K",
            "  method field",
        ];
        assert_eq!(outline(Language::JavaScript, source), expected);
        assert_eq!(outline(Language::TypeScript, source), expected);
    }

    #[test]
    fn each_language_names_its_definitions() {
        let cases: &[(Language, &str, &[&str])] = &[
            (
                Language::JavaScript,
                "class W { #p() {} m() {} }\nfunction f() {}\nconst g = () => 1;\nx.y = function () {};\nconst o = { k() {}, 'q'() {} };\n",
                &[
                    "class W",
                    "  method p",
                    "  method m",
                    "function f",
                    "function g",
                    "function y",
                    "method k",
                    "method q",
                ],
            ),
            (
                Language::TypeScript,
                "interface I { a(): void }\ntype T = string;\nenum E { A }\nnamespace N { export function f() {} }\nabstract class B { abstract r(): void }\n",
                &[
                    "interface I",
                    "  method a",
                    "type T",
                    "enum E",
                    "module N",
                    "  function f",
                    "class B",
                    "  method r",
                ],
            ),
            (
                Language::Tsx,
                "const App = () => <div/>;\n",
                &["function App"],
            ),
            (
                Language::Rust,
                "mod m { fn f() {} }\nstruct S;\nenum E {}\ntrait T { fn t(&self); }\nimpl<X> S<X> { fn new() {} }\nmacro_rules! mac { () => {} }\ntype A = u8;\nunion U { a: u8 }\n",
                &[
                    "module m",
                    "  function f",
                    "struct S",
                    "enum E",
                    "trait T",
                    "  method t",
                    "impl S",
                    "  method new",
                    "macro mac",
                    "type A",
                    "union U",
                ],
            ),
            (
                Language::Go,
                "package p\nfunc F() {}\nfunc (r *R) M() {}\ntype S struct{}\ntype I interface{}\ntype N int\n",
                &[
                    "function F",
                    "method M",
                    "struct S",
                    "interface I",
                    "type N",
                ],
            ),
            (
                Language::C,
                "#define MAX(a, b) a\nstruct s { int x; };\nstatic int *\nf(void) { return 0; }\ntypedef int t;\nSYSCALL_DEFINE1(open, int, x)\n{\n}\n",
                &[
                    "macro MAX",
                    "struct s",
                    "function f",
                    "type t",
                    "function SYSCALL_DEFINE1",
                ],
            ),
            (
                Language::Cpp,
                "namespace n { class C { void m() {} }; }\nint n::C::k() { return 0; }\n",
                &["module n", "  class C", "    method m", "function k"],
            ),
            (
                Language::Java,
                "class A { A() {} void m() {} @interface N { String value(); } enum E { X } }\n",
                &[
                    "class A",
                    "  method A",
                    "  method m",
                    "  interface N",
                    "    method value",
                    "  enum E",
                ],
            ),
            (
                Language::CSharp,
                "namespace N { class C { void M() { int L() => 1; } } struct S {} }\n",
                &[
                    "module N",
                    "  class C",
                    "    method M",
                    "      function L",
                    "  struct S",
                ],
            ),
            (
                Language::Ruby,
                "module M\n  class C\n    def m; end\n    def self.s; end\n  end\nend\n",
                &["module M", "  class C", "    method m", "    method s"],
            ),
            (
                Language::Php,
                "<?php\nnamespace A;\nclass C { function m() {} }\ntrait T {}\nfunction f() {}\n",
                &["module A", "class C", "  method m", "trait T", "function f"],
            ),
            (
                Language::Bash,
                "f() { :; }\nfunction g { :; }\n",
                &["function f", "function g"],
            ),
            (
                Language::Markdown,
                "# A\n\ntext\n\n## B\n\nSetext\n------\n",
                &["heading A", "  heading B", "    heading Setext"],
            ),
            (
                Language::Kotlin,
                "interface I {\n    fun a()\n}\n\nobject O {\n    fun b() {}\n}\n\nfun c() = 1\n",
                &[
                    "interface I",
                    "  method a",
                    "class O",
                    "  method b",
                    "function c",
                ],
            ),
            (
                Language::Swift,
                "protocol P { func p() }\nstruct S { func m() {} }\nextension S { func e() {} }\nfunc f() {}\n",
                &[
                    "trait P",
                    "  method p",
                    "struct S",
                    "  method m",
                    "impl S",
                    "  method e",
                    "function f",
                ],
            ),
        ];
        for (language, source, expected) in cases {
            assert_eq!(&outline(*language, source), expected, "{}", language.name());
        }
    }

    #[test]
    fn a_definition_spans_from_its_name_to_its_last_line() {
        let parsed = parse(
            Language::Python,
            b"@decorator\ndef f(\n    a,\n):\n    return a\n",
            Duration::from_secs(10),
        )
        .expect("parses");
        let f = &parsed.entries[0];
        assert_eq!((f.line, f.end_line), (2, 5));
    }

    /// Inputs built to make a parser work: each comes back within its time cap (an outline or
    /// `Timeout`), whatever the grammar.
    #[test]
    fn hostile_inputs_are_bounded_by_the_time_cap() {
        let parens = "(".repeat(50_000);
        let nested = format!("x = {}1{}\n", "[".repeat(20_000), "]".repeat(20_000));
        let braces = format!(
            "function f() {}{}\n",
            "{".repeat(30_000),
            "}".repeat(30_000)
        );
        let mut invalid = b"def f():\n    return '".to_vec();
        invalid.extend((0..20_000u32).map(|i| (i % 64 + 0x80) as u8));
        invalid.extend_from_slice(b"'\nclass After:\n    pass\n");
        let inputs: Vec<Vec<u8>> = vec![
            parens.into_bytes(),
            nested.into_bytes(),
            braces.into_bytes(),
            invalid,
        ];
        let cap = Duration::from_millis(300);
        for name in Language::NAMES {
            let Some(language) = Language::from_name(name) else {
                continue;
            };
            for input in &inputs {
                // The cap is CPU time: a loaded machine stretches the wall time, not this.
                let spent = Budget::start(cap * 10);
                let result = parse(language, input, cap);
                assert!(
                    matches!(result, Ok(_) | Err(ParseFailure::Timeout)),
                    "{name}: {result:?}"
                );
                // The cap plus one progress check's worth of work (debug builds are slow).
                assert!(!spent.spent(), "{name}: over ten times its cap");
            }
        }
        let parsed = parse(Language::Python, &inputs[3], Duration::from_secs(10)).expect("parses");
        assert!(parsed.entries.iter().any(|e| e.name == "After"));
    }

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

    #[test]
    fn a_time_cap_of_zero_stops_the_parse() {
        let source = "def f():\n    pass\n".repeat(5_000);
        assert_eq!(
            parse(Language::Python, source.as_bytes(), Duration::ZERO),
            Err(ParseFailure::Timeout)
        );
    }
}
