//! A definition's name out of its node: the node a query captured as `@name`, or the innermost
//! name of a C or C++ declarator when it captured none, made one line of at most
//! [`MAX_NAME_CHARS`] characters ([`super::parse`] names each definition it finds this way).

use tree_sitter::Node;

use super::cap::MAX_NAME_CHARS;
use super::lang::Language;

/// Node kinds whose text is a definition's name when a query gives none (the innermost name
/// of a C or C++ declarator: `*(*name)(void)` names `name`).
const NAME_NODES: &[&str] = &[
    "identifier",
    "field_identifier",
    "type_identifier",
    "destructor_name",
    "operator_name",
];

/// The name a C or C++ declaration declares: the innermost name down its `declarator` fields
/// (through pointers, parentheses, arrays and the function declarator itself), and of a
/// qualified or template name its last part (`ns::Type::method` names `method`).
pub(super) fn declared_name(node: Node<'_>) -> Option<Node<'_>> {
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
pub(super) fn clean_name(bytes: &[u8], language: Language) -> String {
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
