//! Middle truncation on character boundaries.
//!
//! A tool result longer than its budget keeps its beginning and its end, where models look, and
//! loses the middle, replaced by one note line that says how much was cut and how to see it.

/// Default budget of one tool result in characters.
pub const DEFAULT_MAX_CHARS: usize = 8000;
/// Default share of the budget kept from the head.
pub const DEFAULT_HEAD_RATIO: f64 = 0.6;
/// How far (in characters) a cut point may move back to land on a line boundary.
pub const LINE_SNAP_CHARS: usize = 240;

/// What [`truncate_middle`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Truncated {
    /// The text, with the middle replaced by a note when it was too long.
    pub text: String,
    /// Characters cut from the middle (0 when the text fit).
    pub cut_chars: usize,
    /// Characters in the original text.
    pub total_chars: usize,
}

fn full_note(cut: usize, total: usize) -> String {
    format!(
        "[... {cut} of {total} characters cut from the middle of this result; to see them, \
         read again with an offset inside the cut part or narrow the search ...]"
    )
}

fn short_note(cut: usize) -> String {
    format!("[... {cut} chars cut ...]")
}

/// Keeps the first `head_ratio` and the rest of `max_chars` from the tail, cutting the middle.
///
/// Text of at most `max_chars` characters comes back unchanged. Otherwise the result is the head,
/// a note line naming the number of characters cut, the total, and how to see the middle, then the
/// tail. The whole result, note included, never exceeds `max_chars` characters:
/// - when the full note fits, head and tail share what is left (`head_ratio`, default 0.6, goes to
///   the head); each cut point moves back by up to [`LINE_SNAP_CHARS`] characters to fall on a line
///   boundary, which only ever shrinks what is kept;
/// - when only a short note (`[... N chars cut ...]`) fits, that is used without line snapping;
/// - below that, head and tail are joined by a single `…`, and `max_chars = 0` gives "".
///
/// Counts characters (Unicode scalar values), never splits one, O(n) in the text's length.
/// A `head_ratio` outside 0..=1 is clamped; NaN means the default.
pub fn truncate_middle(text: &str, max_chars: usize, head_ratio: f64) -> Truncated {
    let total = text.chars().count();
    if total <= max_chars {
        return Truncated {
            text: text.to_string(),
            cut_chars: 0,
            total_chars: total,
        };
    }
    let ratio = if head_ratio.is_nan() {
        DEFAULT_HEAD_RATIO
    } else {
        head_ratio.clamp(0.0, 1.0)
    };
    // The note's length depends on the digits of the cut; reserving the length it has when the
    // whole text is cut is an upper bound, since the cut never exceeds the total.
    let full_reserved = full_note(total, total).chars().count() + 2;
    let short_reserved = short_note(total).chars().count() + 2;
    let (budget, snap, full) = if max_chars >= full_reserved {
        (max_chars - full_reserved, true, true)
    } else if max_chars >= short_reserved {
        (max_chars - short_reserved, false, false)
    } else if max_chars == 0 {
        return Truncated {
            text: String::new(),
            cut_chars: total,
            total_chars: total,
        };
    } else {
        let keep = max_chars - 1;
        let head_chars = split_share(keep, ratio);
        let head_end = byte_at_char(text, head_chars);
        let tail_start = byte_at_char_from_end(text, keep - head_chars);
        let out = format!("{}…{}", &text[..head_end], &text[tail_start..]);
        return Truncated {
            text: out,
            cut_chars: total - keep,
            total_chars: total,
        };
    };

    let head_chars = split_share(budget, ratio);
    let tail_chars = budget - head_chars;
    let mut head_end = byte_at_char(text, head_chars);
    let mut tail_start = byte_at_char_from_end(text, tail_chars);
    let mut head_kept = head_chars;
    let mut tail_kept = tail_chars;
    if snap {
        (head_end, head_kept) = snap_head(text, head_end, head_kept);
        (tail_start, tail_kept) = snap_tail(text, tail_start, tail_kept);
    }
    let cut = total - head_kept - tail_kept;
    let note = if full {
        full_note(cut, total)
    } else {
        short_note(cut)
    };
    let head = &text[..head_end];
    let tail = &text[tail_start..];
    let mut out = String::with_capacity(head.len() + note.len() + tail.len() + 2);
    // The note sits on its own line between two newlines, always, so head and tail can be told
    // apart from the note even when a cut fell on a line boundary.
    out.push_str(head);
    if !head.is_empty() {
        out.push('\n');
    }
    out.push_str(&note);
    if !tail.is_empty() {
        out.push('\n');
    }
    out.push_str(tail);
    Truncated {
        text: out,
        cut_chars: cut,
        total_chars: total,
    }
}

fn split_share(budget: usize, ratio: f64) -> usize {
    ((budget as f64 * ratio).round() as usize).min(budget)
}

/// Byte offset of the character with index `n` (or the end).
fn byte_at_char(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

/// Byte offset where the last `n` characters begin.
fn byte_at_char_from_end(text: &str, n: usize) -> usize {
    if n == 0 {
        return text.len();
    }
    text.char_indices().rev().nth(n - 1).map_or(0, |(i, _)| i)
}

/// Moves the head's end back to just after a newline when one lies within the snap window.
fn snap_head(text: &str, end: usize, kept: usize) -> (usize, usize) {
    let head = &text[..end];
    if head.is_empty() || head.ends_with('\n') {
        return (end, kept);
    }
    let window = LINE_SNAP_CHARS.min(kept / 4);
    for (dropped, (i, c)) in head.char_indices().rev().take(window).enumerate() {
        if c == '\n' {
            return (i + 1, kept - dropped);
        }
    }
    (end, kept)
}

/// Moves the tail's start forward to just after a newline when one lies within the snap window.
fn snap_tail(text: &str, start: usize, kept: usize) -> (usize, usize) {
    if start == 0 || start >= text.len() || text[..start].ends_with('\n') {
        return (start, kept);
    }
    let tail = &text[start..];
    let window = LINE_SNAP_CHARS.min(kept / 4);
    for (skipped, (i, c)) in tail.char_indices().take(window).enumerate() {
        if c == '\n' {
            return (start + i + 1, kept - skipped - 1);
        }
    }
    (start, kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> usize {
        s.chars().count()
    }

    #[test]
    fn short_text_is_unchanged() {
        let out = truncate_middle("hello", 5, 0.6);
        assert_eq!(out.text, "hello");
        assert_eq!(out.cut_chars, 0);
        assert_eq!(out.total_chars, 5);
    }

    #[test]
    fn long_text_keeps_head_and_tail_within_budget() {
        let text: String = (0..20_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let out = truncate_middle(&text, 8000, 0.6);
        assert!(chars(&out.text) <= 8000, "{}", chars(&out.text));
        assert!(chars(&out.text) > 7800);
        assert_eq!(out.total_chars, 20_000);
        let (head, rest) = out.text.split_once("\n[... ").expect("note present");
        let tail = rest.split_once("]\n").expect("note ends").1;
        assert!(text.starts_with(head));
        assert!(text.ends_with(tail));
        assert_eq!(chars(head) + chars(tail) + out.cut_chars, 20_000);
        // 60/40 split of what is kept.
        let ratio = chars(head) as f64 / (chars(head) + chars(tail)) as f64;
        assert!((ratio - 0.6).abs() < 0.01, "{ratio}");
        assert!(
            out.text
                .contains(&format!("{} of 20000 characters", out.cut_chars))
        );
        assert!(out.text.contains("offset"));
        assert!(out.text.contains("narrow the search"));
    }

    #[test]
    fn multibyte_text_is_never_split() {
        let text = "é中🎉x".repeat(5000);
        for max in [0, 1, 2, 3, 10, 30, 60, 200, 1000, 19_999, 20_000] {
            let out = truncate_middle(&text, max, 0.6);
            assert!(chars(&out.text) <= max, "max {max}: {}", chars(&out.text));
            // A String is always valid UTF-8; check the kept parts are real prefixes/suffixes.
            if max >= 200 {
                let head = out.text.split("\n[...").next().expect("head");
                assert!(text.starts_with(head), "max {max}");
            }
        }
        assert_eq!(truncate_middle(&text, 20_000, 0.6).text, text);
    }

    #[test]
    fn cuts_prefer_line_boundaries() {
        let text: String = (0..2000)
            .map(|i| format!("line {i:04} of the file\n"))
            .collect();
        let out = truncate_middle(&text, 8000, 0.6);
        assert!(chars(&out.text) <= 8000);
        let (head, rest) = out.text.split_once("\n[... ").expect("note");
        let tail = rest.split_once("]\n").expect("note end").1;
        assert!(head.ends_with('\n'));
        assert!(tail.starts_with("line "));
        assert_eq!(chars(head) + chars(tail) + out.cut_chars, chars(&text));
    }

    #[test]
    fn small_budgets_still_fit() {
        let text = "abcdefghij".repeat(10);
        let out = truncate_middle(&text, 40, 0.6);
        assert!(chars(&out.text) <= 40, "{:?}", out.text);
        assert!(out.text.contains("chars cut"), "{:?}", out.text);
        let out = truncate_middle(&text, 5, 0.6);
        assert_eq!(out.text, "ab…ij");
        assert_eq!(out.cut_chars, 96);
        let out = truncate_middle(&text, 1, 0.6);
        assert_eq!(out.text, "…");
        let out = truncate_middle(&text, 0, 0.6);
        assert_eq!(out.text, "");
        assert_eq!(out.cut_chars, 100);
    }

    #[test]
    fn extreme_ratios() {
        let text = "x".repeat(10_000);
        let all_tail = truncate_middle(&text, 1000, 0.0);
        assert!(all_tail.text.starts_with("[... "));
        assert!(chars(&all_tail.text) <= 1000);
        let all_head = truncate_middle(&text, 1000, 1.0);
        assert!(all_head.text.ends_with("...]"));
        assert!(chars(&all_head.text) <= 1000);
        let nan = truncate_middle(&text, 1000, f64::NAN);
        assert!(chars(&nan.text) <= 1000);
    }
}
