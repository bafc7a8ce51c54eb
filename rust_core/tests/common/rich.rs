//! The rich tree: every kind of rule and file at once (ignore files of each kind with negations,
//! skip-set directories, hidden files, secrets, binary and odd encodings, links of each kind), so
//! one walk checks that the rules compose.

use std::path::{Path, PathBuf};

use super::{symlink, write};

/// The secret in `.env` and `certs/server.pem`: no result may ever hold it.
pub const SECRET: &str = "sk-ripsight-0123456789";

/// The expected listings, one data file for this suite and pytest's (`tests/conftest.py`).
const LISTING: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/data/rich_tree_listing.txt"
));

/// The paths of the listing's list `[name]`, in the file's (sorted) order.
fn listing(name: &str) -> Vec<&'static str> {
    let header = format!("[{name}]");
    LISTING
        .lines()
        .map(str::trim)
        .skip_while(|line| *line != header)
        .skip(1)
        .take_while(|line| !line.starts_with('['))
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect()
}

/// What `glob("**/*")` lists inside git with the default options (links are counted, not listed).
pub fn listed_in_git() -> Vec<&'static str> {
    listing("listed_in_git")
}

/// What the `.gitignore` files hide: listed as well outside git.
pub fn gitignored() -> Vec<&'static str> {
    listing("gitignored")
}

/// A 100,000-character line whose only match (`LATE_NEEDLE`) starts at character 90,000, after
/// 45,000 two-byte characters.
pub fn long_line() -> String {
    let mut line = "é".repeat(45_000) + &"x".repeat(44_999) + " LATE_NEEDLE ";
    line.push_str(&"y".repeat(100_000 - 90_012));
    line + "\n"
}

/// Builds `parent/repo` (returned), `parent/outside/secret.txt` and `parent/repo-old/x.txt` (a
/// sibling whose name starts with the root's). Inside git (`git`): `.git/` exists.
///
/// Ignore files: inside git `*.log` and `generated/*` are hidden, `generated/keep.py`
/// re-included by the `.gitignore`'s own negation and `generated/api.py` by `.ripsightignore`;
/// `scratch/` is hidden by `.ignore` everywhere; `*.tmp` below `src/sub` except `keep.tmp`.
/// Links: `links/src_link -> ../src` (in the root), `links/outside -> ../../outside` and
/// `links/outside_file.txt` (leaving it), `links/loop -> ..`.
pub fn rich_tree(parent: &Path, git: bool) -> PathBuf {
    let root = parent.join("repo");
    std::fs::create_dir_all(&root).expect("mkdir");
    if git {
        write(&root, ".git/HEAD", "ref: refs/heads/main\n");
    }
    let mut late_binary = b"needle in a late binary\n".repeat(20_000);
    late_binary.extend_from_slice(b"\x00tail\n");
    let mut utf16 = Vec::new();
    for unit in "\u{FEFF}hello\nutf16 needle here\n".encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    let text: &[(&str, &str)] = &[
        (".gitignore", "*.log\n/generated/*\n!/generated/keep.py\n"),
        (".ignore", "scratch/\n"),
        (".ripsightignore", "!/generated/api.py\n"),
        ("src/sub/.gitignore", "*.tmp\n!keep.tmp\n"),
        ("README.md", "# Demo\nA needle in the readme.\n"),
        (
            "src/app.py",
            "import util\n\n\ndef main():\n    # TODO: needle\n    return util.helper()\n",
        ),
        ("src/util.py", "def helper():\n    return 42  # needle\n"),
        ("src/lib/core.rs", "pub fn core() -> u32 {\n    42\n}\n"),
        ("src/lib/mod.rs", "pub mod core;\n// needle\n"),
        ("src/web/index.ts", "export const needle = 1;\n"),
        ("src/sub/keep.tmp", "kept tmp needle\n"),
        ("src/sub/scratch.tmp", "ignored tmp needle\n"),
        ("app.log", "log needle\n"),
        ("generated/keep.py", "KEEP = 'needle'\n"),
        ("generated/api.py", "API = 'needle'\n"),
        ("generated/junk.py", "JUNK = 'needle'\n"),
        ("scratch/notes.txt", "scratch needle\n"),
        ("node_modules/pkg/index.js", "module.exports = 'needle';\n"),
        (".github/workflows/ci.yml", "name: ci\non: push\njobs: {}\n"),
        ("data/early.bin", "\x00\x01\x02needle\n"),
        ("text/crlf.txt", "first line\r\nneedle here;\r\nlast\r\n"),
    ];
    for (path, content) in text {
        write(&root, path, content);
    }
    write(&root, ".env", format!("API_KEY={SECRET}\n"));
    write(
        &root,
        "certs/server.pem",
        format!("-----BEGIN PRIVATE KEY-----\n{SECRET}\n"),
    );
    write(&root, "data/late.bin", late_binary);
    write(&root, "text/utf16.txt", utf16);
    write(&root, "text/latin1.txt", b"caf\xe9 needle \xff\n");
    write(&root, "text/long.txt", long_line());
    write(parent, "outside/secret.txt", "needle outside the root\n");
    write(parent, "repo-old/x.txt", "needle in a sibling\n");
    symlink(&root, "links/src_link", "../src");
    symlink(&root, "links/outside", "../../outside");
    symlink(&root, "links/outside_file.txt", "../../outside/secret.txt");
    symlink(&root, "links/loop", "..");
    root
}
