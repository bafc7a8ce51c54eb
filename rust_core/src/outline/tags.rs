//! A language's tag query, compiled once per process, and what each of its captures means: the
//! contract between the query files (`queries/*.scm`, see [`super::lang`]) and the code that
//! reads their matches ([`super::parse`], and [`super::recover`] for a restarted parse).

use std::sync::OnceLock;

use tree_sitter::Query;

use super::SymbolKind;
use super::cap::ParseFailure;
use super::lang::Language;

/// One language's compiled query and what each of its captures means.
pub(super) struct Tags {
    pub(super) query: Query,
    /// For each capture index: the definition kind it marks, or `None` for `@name` (and any
    /// helper capture).
    pub(super) kinds: Vec<Option<SymbolKind>>,
    /// The index of the `@name` capture.
    pub(super) name: Option<u32>,
    /// The index of the `@body` capture: a node after the definition's own that ends it (C's
    /// block after a macro head).
    pub(super) body: Option<u32>,
}

/// The compiled query of `language`, made once per process, when the language is first met
/// (compiling a query takes milliseconds; a worker pays only for the languages it parses).
pub(super) fn tags(language: Language) -> Result<&'static Tags, ParseFailure> {
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
    let mut body = None;
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
        match *capture {
            "name" => name = u32::try_from(index).ok(),
            "body" => body = u32::try_from(index).ok(),
            _ => {}
        }
        kinds.push(kind);
    }
    Ok(Tags {
        query,
        kinds,
        name,
        body,
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_compiles_with_known_kinds() {
        assert_eq!(check_queries(), Ok(()));
    }
}
