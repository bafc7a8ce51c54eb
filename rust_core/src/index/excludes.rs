//! A repository's own excludes (`.git/info/exclude`) for the live table: the walker reads them
//! from inside `.git`, a skip-set directory the table neither holds nor watches, so the table
//! watches `.git` and `.git/info` of every repository it holds and re-walks the repository's
//! directory when its excludes change (a worktree's are its main repository's, which lie in
//! the root's `.git` and re-walk the root).

use crate::walker::WalkSkip;

/// The name of a git directory.
const GIT: &str = ".git";

/// The directories to watch for the repositories a scan met: `X/.git` and `X/.git/info` for
/// every git directory `X/.git` it passed over.
pub(super) fn git_dirs(skips: &[(String, WalkSkip)]) -> Vec<String> {
    let mut dirs = Vec::new();
    for (path, reason) in skips {
        let name = path.rsplit('/').next().unwrap_or(path);
        if name == GIT && reason == &WalkSkip::Ignored {
            dirs.push(path.clone());
            dirs.push(format!("{path}/info"));
        }
    }
    dirs
}

/// The repository directory whose subtree a change re-walks when the change (in the watched
/// directory `dir`, to its entry `name`, `None` for `dir` itself) touches its excludes: `info`
/// made or removed in `X/.git`, anything in or of `X/.git/info`.
pub(super) fn repository_of(dir: &str, name: Option<&str>) -> Option<String> {
    let parent = |git: &str| {
        git.strip_suffix(GIT)
            .map(|x| x.trim_end_matches('/').to_string())
    };
    if let Some(git) = dir
        .strip_suffix("/info")
        .or((dir == ".git/info").then_some(GIT))
        && (git == GIT || git.ends_with("/.git"))
    {
        return parent(git);
    }
    if (dir == GIT || dir.ends_with("/.git")) && name == Some("info") {
        return parent(dir);
    }
    None
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
