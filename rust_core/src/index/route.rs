//! Where a call's answer comes from: the one place that chooses between the warm index and the
//! cold engine, for every search and navigation call the engine answers with a workspace.
//!
//! - grep and glob ([`grep()`], [`glob()`]): their drivers ask the warm index, as their
//!   [`CandidateSource`], which files to read or match, and walk when it cannot tell
//!   ([`crate::candidates`]);
//! - `find_definitions`, `find_references`, `find_calls` ([`definitions()`], [`references()`],
//!   [`calls()`]): the symbol index answers when it can (see `navigate`); otherwise the cold
//!   engine parses the files its grep finds, the warm index's candidates when there is one;
//! - the repository map ([`repo_map()`]): drawn on the symbol index's graph when it can answer
//!   (see `map_graph`); otherwise on the files its glob lists, parsed cold.
//!
//! A caller (the bindings) hands each its options and takes its result as it is.

use crate::candidates::CandidateSource;
use crate::error::CoreError;
use crate::glob::{self, GlobOptions, GlobOutput};
use crate::grep::{self, GrepOptions, GrepOutput};
use crate::outline::calls::{self, CallsOptions, CallsResult};
use crate::outline::definitions::{self, DefinitionsOptions, DefinitionsOutput};
use crate::outline::map::{self, RepoMapOptions, RepoMapOutput};
use crate::outline::outliner::Outliner;
use crate::outline::references::{self, ReferencesOptions, ReferencesOutput};
use crate::workspace::Workspace;

use super::warm::WarmIndex;

/// The candidate source of a search: the warm index when there is one.
pub fn candidates(index: Option<&WarmIndex>) -> Option<&dyn CandidateSource> {
    index.map(|index| index as &dyn CandidateSource)
}

/// `grep`, over the files the warm index lists when it can tell, else over a walk.
pub fn grep(
    workspace: &Workspace,
    index: Option<&WarmIndex>,
    options: &GrepOptions,
) -> Result<GrepOutput, CoreError> {
    grep::search(workspace, options, candidates(index))
}

/// `glob`, over the files the warm index lists when it can tell, else over a walk.
pub fn glob(
    workspace: &Workspace,
    index: Option<&WarmIndex>,
    options: &GlobOptions,
) -> Result<GlobOutput, CoreError> {
    glob::list(workspace, options, candidates(index))
}

/// The engine's own grep, as a cold navigation search takes it: over the files the warm index
/// lists when it can tell, else over a walk.
fn cold_grep(
    workspace: &Workspace,
    index: Option<&WarmIndex>,
) -> impl Fn(&GrepOptions) -> Result<GrepOutput, CoreError> + Sync {
    move |options: &GrepOptions| grep::search(workspace, options, candidates(index))
}

/// `find_definitions`: the definitions whose name matches, from the symbol index when it
/// answers, else in the grep's candidates.
pub fn definitions(
    workspace: &Workspace,
    index: Option<&WarmIndex>,
    outliner: &Outliner,
    options: &DefinitionsOptions,
) -> Result<DefinitionsOutput, CoreError> {
    match index.and_then(|index| index.definitions(options)) {
        Some(answer) => answer,
        None => {
            let grep = cold_grep(workspace, index);
            definitions::definitions(workspace, outliner, options, &grep)
        }
    }
}

/// `find_references`: the references to a name, from the symbol index when it answers, else
/// in the grep's candidates.
pub fn references(
    workspace: &Workspace,
    index: Option<&WarmIndex>,
    outliner: &Outliner,
    options: &ReferencesOptions,
) -> Result<ReferencesOutput, CoreError> {
    match index.and_then(|index| index.references(options)) {
        Some(answer) => answer,
        None => {
            let grep = cold_grep(workspace, index);
            references::references(workspace, outliner, options, &grep)
        }
    }
}

/// `find_calls`: what the definitions of a name call, from the symbol index when it answers,
/// else in the grep's candidates.
pub fn calls(
    workspace: &Workspace,
    index: Option<&WarmIndex>,
    outliner: &Outliner,
    options: &CallsOptions,
) -> Result<CallsResult, CoreError> {
    match index.and_then(|index| index.calls(options)) {
        Some(answer) => answer,
        None => calls::calls(workspace, outliner, options, &cold_grep(workspace, index)),
    }
}

/// The repository map of a subtree: drawn on the symbol index's graph when it answers, else
/// on the files the engine's own glob lists (the warm index's when there is one), parsed cold.
pub fn repo_map(
    workspace: &Workspace,
    index: Option<&WarmIndex>,
    outliner: &Outliner,
    options: &RepoMapOptions,
) -> Result<RepoMapOutput, CoreError> {
    let started = std::time::Instant::now();
    let graph = index.and_then(|index| index.symbol_graph(options.path.as_deref()));
    if let Some(graph) = graph {
        return map::repo_map_of_graph(&*graph?, options, started);
    }
    let list = |glob_options: &GlobOptions| glob::list(workspace, glob_options, candidates(index));
    map::repo_map(workspace, outliner, options, &list)
}
