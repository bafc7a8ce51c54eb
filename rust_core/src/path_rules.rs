//! Path rules: globs that cover paths relative to a root, read the way the deny policy reads
//! them (SPEC §2.5), declared once for every list of such globs (the workspace's deny rules,
//! the MCP server's `--ask` rules).
//!
//! A slash-free glob matches any path component (a file or a directory name at any depth); a
//! glob with a slash matches the relative path or any of its prefixes, so `secrets/**` and
//! `config/prod` cover what lies below them. Matching is case-insensitive: a `KEY.PEM` is key
//! material too.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::error::{CoreError, PatternIssue};

/// Compiled path rules, with the text of each to name the one that matched.
#[derive(Debug)]
#[cfg_attr(
    feature = "python",
    pyo3::pyclass(frozen, skip_from_py_object, module = "ripsight._core")
)]
pub struct PathRules {
    names: GlobSet,
    paths: GlobSet,
    name_rules: Vec<String>,
    path_rules: Vec<String>,
}

fn as_path(bytes: &[u8]) -> &Path {
    Path::new(OsStr::from_bytes(bytes))
}

impl PathRules {
    /// Compiles `globs`; a glob that does not compile is an [`CoreError::InvalidPattern`] with
    /// `issue` (which list it came from).
    pub fn new(globs: &[String], issue: PatternIssue) -> Result<PathRules, CoreError> {
        let mut names = GlobSetBuilder::new();
        let mut paths = GlobSetBuilder::new();
        let mut name_rules = Vec::new();
        let mut path_rules = Vec::new();
        for rule in globs {
            let trimmed = rule.trim_matches('/');
            let glob = GlobBuilder::new(trimmed)
                .literal_separator(true)
                .case_insensitive(true)
                .build()
                .map_err(|e| CoreError::InvalidPattern {
                    pattern: rule.clone(),
                    issue,
                    message: e.kind().to_string(),
                })?;
            if trimmed.contains('/') {
                paths.add(glob);
                path_rules.push(rule.clone());
            } else {
                names.add(glob);
                name_rules.push(rule.clone());
            }
        }
        let build = |b: GlobSetBuilder| {
            b.build().map_err(|e| CoreError::InvalidPattern {
                pattern: globs.join(", "),
                issue,
                message: e.to_string(),
            })
        };
        Ok(PathRules {
            names: build(names)?,
            paths: build(paths)?,
            name_rules,
            path_rules,
        })
    }

    /// The rule covering `relative` (a `/`-separated path relative to the root), if any: a
    /// name rule matching one of its components, or a path rule matching it or a prefix.
    pub fn covering(&self, relative: &[u8]) -> Option<&str> {
        if relative.is_empty() {
            return None;
        }
        for component in relative.split(|b| *b == b'/') {
            if let Some(i) = self.names.matches(as_path(component)).first() {
                return Some(&self.name_rules[*i]);
            }
        }
        if !self.paths.is_empty() {
            let mut end = 0;
            loop {
                let next = relative[end..]
                    .iter()
                    .position(|b| *b == b'/')
                    .map(|i| end + i)
                    .unwrap_or(relative.len());
                if let Some(i) = self.paths.matches(as_path(&relative[..next])).first() {
                    return Some(&self.path_rules[*i]);
                }
                if next == relative.len() {
                    break;
                }
                end = next + 1;
            }
        }
        None
    }

    /// How many rules there are.
    pub fn len(&self) -> usize {
        self.name_rules.len() + self.path_rules.len()
    }

    /// True when there are no rules.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The check for a walk: is the entry named `name` at `relative` covered? Faster than
    /// [`PathRules::covering`] because a walk has checked the ancestors already.
    pub fn covers_entry(&self, relative: &[u8], name: &[u8]) -> bool {
        self.names.is_match(as_path(name))
            || (!self.paths.is_empty() && self.paths.is_match(as_path(relative)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(globs: &[&str]) -> PathRules {
        let globs: Vec<String> = globs.iter().map(|g| g.to_string()).collect();
        PathRules::new(&globs, PatternIssue::DenyRule).unwrap()
    }

    #[test]
    fn a_name_rule_covers_any_component_and_a_path_rule_any_prefix() {
        let r = rules(&["*.pem", "secrets/**", "config/prod"]);
        assert_eq!(r.covering(b"a/b/KEY.PEM"), Some("*.pem"));
        assert_eq!(r.covering(b"certs.pem/readme"), Some("*.pem"));
        assert_eq!(r.covering(b"secrets/x/y.txt"), Some("secrets/**"));
        assert_eq!(r.covering(b"config/prod/db.yml"), Some("config/prod"));
        assert_eq!(r.covering(b"src/secrets/x"), None);
        assert_eq!(r.covering(b"config/production"), None);
        assert_eq!(r.covering(b""), None);
    }

    #[test]
    fn a_bad_glob_names_its_list() {
        let bad = vec!["a[".to_string()];
        match PathRules::new(&bad, PatternIssue::AskRule) {
            Err(CoreError::InvalidPattern { issue, pattern, .. }) => {
                assert_eq!(issue, PatternIssue::AskRule);
                assert_eq!(pattern, "a[");
            }
            other => panic!("expected an invalid pattern, got {other:?}"),
        }
    }
}
