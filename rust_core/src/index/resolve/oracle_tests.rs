//! The include resolution against an oracle no one here wrote: GCC's own dependency list
//! (`gcc -M`), given the include directories the rule chooses, on a small tree shaped as
//! Linux's (where the rule's closure must be GCC's exactly) and, when `RIPSIGHT_KERNEL_ROOT`
//! names a Linux checkout, on files of it (where GCC follows one configuration and the rule
//! takes every conditional both ways: every file GCC reads must be in the rule's closure).
//! GCC missing fails the test under `CI=true` (`.ci/run` installs it) and skips it elsewhere.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use crate::outline::includes::includes;
use crate::outline::lang::Language;

use super::{Tree, targets};

/// Whether GCC runs here (under CI its absence fails the test).
fn gcc_present() -> bool {
    let found = Command::new("gcc").arg("--version").output().is_ok();
    assert!(
        found || std::env::var_os("CI").is_none_or(|v| v != "true"),
        "gcc is missing (CI installs it)"
    );
    found
}

/// `path` with `.` and `..` resolved (relative to the root).
fn normal(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// The files GCC reads for `file` (relative to `root`) with these `-I` directories, in the
/// tree (missing headers, `-MG`, left out).
fn gcc_deps(root: &Path, file: &str, dirs: &[&str], defines: &[&str]) -> BTreeSet<String> {
    let mut command = Command::new("gcc");
    command
        .current_dir(root)
        .args(["-M", "-MG", "-nostdinc", "-w"])
        .args(defines);
    for dir in dirs {
        command.arg("-I").arg(dir);
    }
    let out = command.arg(file).output().expect("gcc runs");
    assert!(
        out.status.success(),
        "gcc -M {file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).replace("\\\n", " ");
    let (_, deps) = text.split_once(':').expect("a make rule");
    deps.split_whitespace()
        .map(normal)
        .filter(|d| d != file && root.join(d).is_file())
        .collect()
}

/// The rule's include closure of `file` (without it), following only targets `keep` admits.
fn closure(
    root: &Path,
    tree: &Tree<'_>,
    file: &str,
    keep: &dyn Fn(&str) -> bool,
) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![file.to_string()];
    while let Some(at) = stack.pop() {
        let source = std::fs::read(root.join(&at)).unwrap_or_default();
        for import in includes(Language::C, &source) {
            for t in targets(Language::C, &at, &import, tree) {
                let path = tree.path(t);
                if path != file && keep(path) && seen.insert(path.to_string()) {
                    stack.push(path.to_string());
                }
            }
        }
    }
    seen
}

const SMALL: &[(&str, &str)] = &[
    (
        "include/linux/types.h",
        "#include <uapi/linux/types.h>\n#include <asm/page.h>\n",
    ),
    ("include/uapi/linux/types.h", "#include <asm/types.h>\n"),
    (
        "include/linux/slab.h",
        "#include <linux/types.h>\n#include \"gfp.h\"\n",
    ),
    ("include/linux/gfp.h", "#include <linux/mmzone.h>\n"),
    (
        "include/linux/mmzone.h",
        "#include <asm-generic/int-ll64.h>\n",
    ),
    ("include/asm-generic/int-ll64.h", "typedef int s32;\n"),
    (
        "arch/x86/include/asm/page.h",
        "#include <asm/page_types.h>\n",
    ),
    (
        "arch/x86/include/asm/page_types.h",
        "#include <linux/const.h>\n",
    ),
    ("include/uapi/linux/const.h", "#define X 1\n"),
    (
        "arch/x86/include/uapi/asm/types.h",
        "#include <asm-generic/int-ll64.h>\n",
    ),
    (
        "kernel/fork.c",
        "#include <linux/slab.h>\n#include \"sched/sched.h\"\n",
    ),
    (
        "kernel/sched/sched.h",
        "#include \"../../include/linux/gfp.h\"\n",
    ),
    (
        "tools/include/linux/types.h",
        "#include <asm/bitsperlong.h>\n",
    ),
    (
        "tools/arch/x86/include/asm/bitsperlong.h",
        "#include <linux/const.h>\n",
    ),
    ("tools/include/linux/slab.h", "#include <linux/types.h>\n"),
    (
        "tools/perf/builtin.c",
        "#include <linux/slab.h>\n#include <linux/gfp.h>\n",
    ),
];

#[test]
fn the_closure_of_a_linux_shaped_tree_is_gccs_with_the_directories_the_rule_chooses() {
    if !gcc_present() {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (path, text) in SMALL {
        let at = dir.path().join(path);
        std::fs::create_dir_all(at.parent().expect("a parent")).expect("mkdir");
        std::fs::write(at, text).expect("write");
    }
    let tree = Tree::new(SMALL.iter().map(|(p, _)| *p).collect());
    let all = |_: &str| true;
    // The rule's order: the file's own directory for quotes, then nearest first.
    let kernel = [
        "include",
        "include/uapi",
        "arch/x86/include",
        "arch/x86/include/uapi",
    ];
    let tools = [
        "tools/include",
        "tools/arch/x86/include",
        "include",
        "include/uapi",
        "arch/x86/include",
        "arch/x86/include/uapi",
    ];
    for (file, dirs) in [
        ("kernel/fork.c", &kernel[..]),
        ("tools/perf/builtin.c", &tools),
    ] {
        let gcc = gcc_deps(dir.path(), file, dirs, &[]);
        assert!(gcc.len() >= 6, "{file}: {gcc:?}");
        assert_eq!(closure(dir.path(), &tree, file, &all), gcc, "{file}");
    }
}

/// Files of `dir` below `root`, relative, recursively (`.git` left out).
fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name() == ".git" {
            continue;
        }
        match entry.file_type() {
            Ok(t) if t.is_dir() => walk(root, &path, out),
            Ok(t) if t.is_file() => {
                if let Ok(rel) = path.strip_prefix(root)
                    && let Some(rel) = rel.to_str()
                {
                    out.push(rel.to_string());
                }
            }
            _ => {}
        }
    }
}

/// Files GCC preprocesses without a configured tree (generated headers missing, `-MG`), with
/// the defines of [`KERNEL_DEFINES`].
const KERNEL_FILES: &[&str] = &[
    "lib/sort.c",
    "lib/list_sort.c",
    "lib/hexdump.c",
    "lib/llist.c",
    "lib/rbtree.c",
    "lib/uuid.c",
    "lib/bsearch.c",
    "lib/string.c",
    "lib/crc32.c",
    "lib/kstrtox.c",
    "lib/idr.c",
    "lib/bitmap.c",
    "lib/parser.c",
    "lib/xarray.c",
    "lib/kobject.c",
    "lib/cmdline.c",
    "lib/errseq.c",
    "lib/refcount.c",
    "lib/siphash.c",
    "fs/open.c",
    "drivers/base/core.c",
];

/// Enough of an x86-64 configuration for those files (what `include/generated` would say),
/// and the header every kernel file is built with (`-include`, not an `#include`: left out of
/// GCC's list below).
const KERNEL_DEFINES: &[&str] = &[
    "-D__KERNEL__",
    "-DCONFIG_X86_64",
    "-DCONFIG_64BIT",
    "-D__x86_64__",
    "-DCONFIG_TREE_RCU",
    "-DHZ=250",
    "-DCONFIG_HZ=250",
    "-DCONFIG_NR_CPUS=64",
    "-DCONFIG_NODES_SHIFT=6",
    "-DCONFIG_PGTABLE_LEVELS=4",
    "-include",
    "include/linux/kconfig.h",
];

#[test]
fn on_linux_every_file_gcc_reads_is_in_the_rules_closure() {
    let Some(root) = std::env::var_os("RIPSIGHT_KERNEL_ROOT") else {
        return;
    };
    if !gcc_present() {
        return;
    }
    let root = Path::new(&root);
    let mut paths = Vec::new();
    walk(root, root, &mut paths);
    let tree = Tree::new(paths.iter().map(String::as_str).collect());
    // GCC follows x86: the rule's closure restricted to the files an x86 build can read.
    let x86 = |p: &str| {
        (!p.starts_with("arch/") || p.starts_with("arch/x86/"))
            && (!p.starts_with("tools/arch/") || p.starts_with("tools/arch/x86/"))
    };
    let dirs = [
        "arch/x86/include",
        "include",
        "arch/x86/include/uapi",
        "include/uapi",
    ];
    let (mut gcc_total, mut found, mut ours_total) = (0usize, 0usize, 0usize);
    let mut missed: Vec<String> = Vec::new();
    for file in KERNEL_FILES {
        let mut gcc = gcc_deps(root, file, &dirs, KERNEL_DEFINES);
        gcc.remove("include/linux/kconfig.h");
        let ours = closure(root, &tree, file, &x86);
        gcc_total += gcc.len();
        ours_total += ours.len();
        found += gcc.intersection(&ours).count();
        missed.extend(gcc.difference(&ours).map(|m| format!("{file}: {m}")));
        assert!(gcc.len() > 10, "{file}: gcc read {} files", gcc.len());
    }
    // Linux 6.1: 5,460 files read, all in the rule's closure of 6,818 x86 files.
    assert!(
        missed.is_empty() && found == gcc_total && ours_total >= gcc_total,
        "gcc -M on {} files: {gcc_total} files read, {found} in the rule's closure of \
         {ours_total}; missed: {missed:?}",
        KERNEL_FILES.len()
    );
}
