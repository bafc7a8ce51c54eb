//! Which files a C or C++ `#include` names, with the include directories found from the tree
//! itself (no build system is read).
//!
//! **The include directories.** Every directory named `include` that holds a file of the tree
//! is one, and so is its `uapi` subdirectory when it has one (the Linux convention: the half
//! of a tree's headers exported to userspace, which the build puts on the path too). A
//! directory `P/include` belongs to `P`, its owner.
//!
//! **The search, for a file in directory `D`** (the first step that finds the file ends it):
//! 1. `"…"` only: `D/…` (`..` allowed, never above the root).
//! 2. For each ancestor `A` of the file, nearest first (`D`, its parent, …, the root): the
//!    include directories `A` owns (`A/include`, then `A/include/uapi`); then, all together,
//!    the *variant* directories anchored at `A`: an include directory whose owner `P` is two
//!    or more levels below `A`, in a directory without an include directory of its own, and
//!    whose nearest owning ancestor is `A`. That is how a tree keeps one configuration's
//!    alternatives, each adding its own directory to the path of the whole tree: Linux's
//!    `arch/*/include` (anchored at the root) and `tools/arch/*/include` (anchored at `tools`).
//!    Which alternative is built is unknown, so an include found in several is found in each.
//!
//! Why nearest first: a subtree with an include directory of its own is built with it first
//! (Linux's `tools/` is userspace code with its own `tools/include/linux/types.h`; a file of
//! `kernel/` never sees it, a file of `tools/` sees it before the kernel's). Why the variants
//! only below a directory without one: a sibling subtree with its own include directory
//! (`tools/`, `usr/`) is another build's, not an alternative of this one.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::outline::imports::{Form, Import};

use super::Tree;

/// The include directories of a tree, by the directory whose files search them.
#[derive(Default)]
pub(super) struct Dirs {
    /// Each owner's own include directories (`P/include`, `P/include/uapi`).
    owned: HashMap<String, Vec<String>>,
    /// The variant include directories (with their `uapi`) anchored at each directory.
    variants: HashMap<String, Vec<String>>,
    /// The owner of each variant include directory, with its anchor.
    anchors: HashMap<String, String>,
    /// The answers already given: (directory of the including file, form, module).
    memo: Mutex<HashMap<(String, bool, String), Vec<u32>>>,
}

/// The parent of a relative directory (`""`: the root, which has none).
fn parent(dir: &str) -> Option<&str> {
    if dir.is_empty() {
        return None;
    }
    Some(dir.rfind('/').map_or("", |at| &dir[..at]))
}

/// `dir` joined with `rest`, `.` and `..` resolved; `None` above the root.
pub(super) fn join(dir: &str, rest: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

impl Dirs {
    /// The include directories of `tree`.
    pub(super) fn of(tree: &Tree<'_>) -> Dirs {
        let mut includes: Vec<String> = Vec::new();
        for id in 0..tree.len() as u32 {
            let path = tree.path(id);
            let mut at = 0;
            for part in path.split('/') {
                let end = at + part.len();
                if end == path.len() {
                    break;
                }
                if part == "include" {
                    includes.push(path[..end].to_string());
                }
                at = end + 1;
            }
        }
        includes.sort_unstable();
        includes.dedup();
        let has = |dir: &str| includes.binary_search_by(|d| d.as_str().cmp(dir)).is_ok();
        let owner = |dir: &str| -> String { parent(dir).unwrap_or_default().to_string() };
        let owners: Vec<String> = includes.iter().map(|d| owner(d)).collect();
        let owns = |dir: &str| {
            has(&if dir.is_empty() {
                "include".to_string()
            } else {
                format!("{dir}/include")
            })
        };
        let with_uapi = |dir: &str| -> Vec<String> {
            let uapi = format!("{dir}/uapi");
            let below = tree.under(&uapi);
            let mut out = vec![dir.to_string()];
            if !below.is_empty() {
                out.push(uapi);
            }
            out
        };
        let mut dirs = Dirs::default();
        for (dir, owner) in includes.iter().zip(&owners) {
            // `include/uapi/include` and the like are no include directories of their own.
            if owner.split('/').any(|p| p == "include") {
                continue;
            }
            dirs.owned
                .entry(owner.clone())
                .or_default()
                .extend(with_uapi(dir));
            let Some(group) = parent(owner) else {
                continue;
            };
            if owns(group) {
                continue;
            }
            let mut anchor = parent(group);
            while let Some(a) = anchor {
                if owns(a) {
                    break;
                }
                anchor = parent(a);
            }
            if let Some(anchor) = anchor {
                dirs.variants
                    .entry(anchor.to_string())
                    .or_default()
                    .extend(with_uapi(dir));
                dirs.anchors.insert(owner.clone(), anchor.to_string());
            }
        }
        dirs
    }

    /// The files `import`, written in the file `from`, names (see the module doc).
    pub(super) fn targets(&self, from: &str, import: &Import, tree: &Tree<'_>) -> Vec<u32> {
        let local = match import.form {
            Form::Local => true,
            Form::System => false,
            _ => return Vec::new(),
        };
        let dir = parent(from).unwrap_or_default();
        let key = (dir.to_string(), local, import.module.clone());
        if let Some(found) = self.memo.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return found;
        }
        let found = self.search(dir, local, &import.module, tree);
        if let Ok(mut memo) = self.memo.lock() {
            memo.insert(key, found.clone());
        }
        found
    }

    /// The project of the file at `path`: the nearest directory above it that owns an include
    /// directory, a variant's owner standing for its anchor (Linux: the root for
    /// `arch/x86/kernel/setup.c`, `tools` for `tools/virtio/ringtest/ptr_ring.c`); `None` when
    /// no directory above it owns one.
    pub(super) fn project<'p>(&'p self, path: &'p str) -> Option<&'p str> {
        let mut at = parent(path);
        while let Some(a) = at {
            if let Some(anchor) = self.anchors.get(a) {
                return Some(anchor);
            }
            if self.owned.contains_key(a) {
                return Some(a);
            }
            at = parent(a);
        }
        None
    }

    fn search(&self, dir: &str, local: bool, module: &str, tree: &Tree<'_>) -> Vec<u32> {
        let find = |base: &str| join(base, module).and_then(|p| tree.find(&p));
        if local && let Some(id) = find(dir) {
            return vec![id];
        }
        let mut at = Some(dir);
        while let Some(a) = at {
            for base in self.owned.get(a).into_iter().flatten() {
                if let Some(id) = find(base) {
                    return vec![id];
                }
            }
            let mut found: Vec<u32> = self
                .variants
                .get(a)
                .into_iter()
                .flatten()
                .filter_map(|base| find(base))
                .collect();
            if !found.is_empty() {
                found.sort_unstable();
                found.dedup();
                return found;
            }
            at = parent(a);
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small tree shaped as Linux's.
    const TREE: &[&str] = &[
        "include/linux/types.h",
        "include/linux/slab.h",
        "include/uapi/linux/types.h",
        "include/asm-generic/int-ll64.h",
        "arch/x86/include/asm/page.h",
        "arch/x86/include/uapi/asm/types.h",
        "arch/arm/include/asm/page.h",
        "arch/x86/kernel/setup.c",
        "kernel/fork.c",
        "kernel/sched/core.c",
        "kernel/sched/sched.h",
        "tools/include/linux/types.h",
        "tools/include/linux/slab.h",
        "tools/arch/x86/include/asm/page.h",
        "tools/perf/builtin.c",
        "usr/include/Makefile",
        "usr/include/linux/only_usr.h",
    ];

    fn resolve(from: &str, form: Form, module: &str) -> Vec<String> {
        let tree = Tree::new(TREE.to_vec());
        let dirs = Dirs::of(&tree);
        let import = Import {
            line: 1,
            form,
            module: module.into(),
            names: Vec::new(),
            alias: None,
        };
        dirs.targets(from, &import, &tree)
            .into_iter()
            .map(|id| tree.path(id).to_string())
            .collect()
    }

    #[test]
    fn a_kernel_file_sees_the_kernels_headers_and_tools_sees_its_own_first() {
        assert_eq!(
            resolve("kernel/fork.c", Form::System, "linux/types.h"),
            ["include/linux/types.h"]
        );
        assert_eq!(
            resolve("tools/perf/builtin.c", Form::System, "linux/types.h"),
            ["tools/include/linux/types.h"]
        );
        // What tools/ lacks it finds in the tree's own (as its makefiles add include/uapi).
        assert_eq!(
            resolve(
                "tools/perf/builtin.c",
                Form::System,
                "asm-generic/int-ll64.h"
            ),
            ["include/asm-generic/int-ll64.h"]
        );
        assert_eq!(
            resolve("include/linux/types.h", Form::System, "uapi/linux/types.h"),
            ["include/uapi/linux/types.h"]
        );
        assert!(resolve("kernel/fork.c", Form::System, "linux/only_usr.h").is_empty());
    }

    #[test]
    fn the_architectures_are_variants_of_the_root_and_their_own_come_first() {
        assert_eq!(
            resolve("kernel/fork.c", Form::System, "asm/page.h"),
            ["arch/arm/include/asm/page.h", "arch/x86/include/asm/page.h"]
        );
        assert_eq!(
            resolve("arch/x86/kernel/setup.c", Form::System, "asm/page.h"),
            ["arch/x86/include/asm/page.h"]
        );
        assert_eq!(
            resolve("kernel/fork.c", Form::System, "asm/types.h"),
            ["arch/x86/include/uapi/asm/types.h"]
        );
        assert_eq!(
            resolve("tools/perf/builtin.c", Form::System, "asm/page.h"),
            ["tools/arch/x86/include/asm/page.h"]
        );
    }

    #[test]
    fn a_file_belongs_to_the_nearest_owner_of_an_include_directory_above_it() {
        let tree = Tree::new(TREE.to_vec());
        let dirs = Dirs::of(&tree);
        assert_eq!(dirs.project("kernel/sched/core.c"), Some(""));
        assert_eq!(dirs.project("arch/x86/kernel/setup.c"), Some(""));
        assert_eq!(dirs.project("tools/perf/builtin.c"), Some("tools"));
        assert_eq!(
            dirs.project("tools/arch/x86/include/asm/page.h"),
            Some("tools")
        );
        let bare = Tree::new(vec!["a/b.c"]);
        assert_eq!(Dirs::of(&bare).project("a/b.c"), None);
    }

    #[test]
    fn quotes_look_beside_the_file_first_and_never_above_the_root() {
        assert_eq!(
            resolve("kernel/sched/core.c", Form::Local, "sched.h"),
            ["kernel/sched/sched.h"]
        );
        assert_eq!(
            resolve("kernel/fork.c", Form::Local, "sched/sched.h"),
            ["kernel/sched/sched.h"]
        );
        assert_eq!(
            resolve(
                "kernel/sched/core.c",
                Form::Local,
                "../../include/linux/slab.h"
            ),
            ["include/linux/slab.h"]
        );
        assert!(resolve("kernel/fork.c", Form::Local, "../../../x.h").is_empty());
        assert!(resolve("kernel/fork.c", Form::System, "sched/sched.h").is_empty());
        assert!(resolve("kernel/fork.c", Form::Go, "linux/types.h").is_empty());
    }
}
