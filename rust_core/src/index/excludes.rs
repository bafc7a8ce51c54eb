//! A repository's own excludes (`.git/info/exclude`) for the live table: the walker reads them
//! from inside `.git`, a skip-set directory the table neither holds nor watches, so the table
//! watches `.git` and `.git/info` of every repository it holds and re-walks the repository's
//! directory when its excludes change (a worktree's are its main repository's, which lie in
//! the root's `.git` and re-walk the root).

use crate::ignore_rules::GIT_EXCLUDE;
use crate::walker::WalkSkip;

/// The git directory (`.git`) and its directory holding the excludes (`info`), from the path
/// the walker reads them at.
fn git_and_info() -> (&'static str, &'static str) {
    let (dir, _) = GIT_EXCLUDE.rsplit_once('/').unwrap_or((GIT_EXCLUDE, ""));
    dir.split_once('/').unwrap_or((dir, ""))
}

/// The name of the excludes file in `.git/info`.
pub(super) const EXCLUDE: &str = "exclude";

/// `d` when it is a repository's `.git/info` directory (one of [`git_dirs`]).
pub(super) fn info_of(d: &str) -> Option<String> {
    let (_, info) = git_and_info();
    let (parent, last) = d.rsplit_once('/')?;
    (last == info && repository_of(parent, Some(info)).is_some()).then(|| d.to_string())
}

/// The directories to watch for the repositories a scan met: `X/.git` and `X/.git/info` for
/// every git directory `X/.git` it passed over.
pub(super) fn git_dirs(skips: &[(String, WalkSkip)]) -> Vec<String> {
    let (git, info) = git_and_info();
    let mut dirs = Vec::new();
    for (path, reason) in skips {
        let name = path.rsplit('/').next().unwrap_or(path);
        if name == git && reason == &WalkSkip::Ignored {
            dirs.push(path.clone());
            dirs.push(format!("{path}/{info}"));
        }
    }
    dirs
}

/// The repository directory whose subtree a change re-walks when the change (in the watched
/// directory `dir`, to its entry `name`, `None` for `dir` itself) touches its excludes: `info`
/// made or removed in `X/.git`, anything in or of `X/.git/info`.
pub(super) fn repository_of(dir: &str, name: Option<&str>) -> Option<String> {
    let (git, info) = git_and_info();
    // `X/.git` (or `.git`) -> `X` (or ""), `None` for another directory.
    let repository = |path: &str| {
        let (parent, last) = path.rsplit_once('/').unwrap_or(("", path));
        (last == git).then(|| parent.to_string())
    };
    if let Some((parent, last)) = dir.rsplit_once('/')
        && last == info
        && let Some(found) = repository(parent)
    {
        return Some(found);
    }
    (name == Some(info)).then(|| repository(dir)).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_to_excludes_name_their_repository() {
        assert_eq!(
            repository_of(".git/info", Some("exclude")).as_deref(),
            Some("")
        );
        assert_eq!(repository_of("sub/.git/info", None).as_deref(), Some("sub"));
        assert_eq!(
            repository_of("a/b/.git", Some("info")).as_deref(),
            Some("a/b")
        );
        assert_eq!(repository_of("a/b/.git", Some("index")), None);
        assert_eq!(repository_of("src/info", Some("x")), None);
        assert_eq!(repository_of("src", Some("info")), None);
        let skips = vec![
            ("sub/.git".to_string(), WalkSkip::Ignored),
            ("x.git".to_string(), WalkSkip::Ignored),
            (".git".to_string(), WalkSkip::Symlink),
        ];
        assert_eq!(git_dirs(&skips), ["sub/.git", "sub/.git/info"]);
    }
}
