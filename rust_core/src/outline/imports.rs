//! What a file says it takes from elsewhere: C's `#include`s, Python's imports, JavaScript's and
//! TypeScript's `import`/`require`/`export … from`, Java's `import`s and `package`, Go's imports
//! and `package`. They travel with a file's references ([`super::refs::References::imports`])
//! and let the index bind a reference to the definitions its file can see (`index::resolve`)
//! instead of to every definition spelled the same.
//!
//! An import here is what the text says, nothing resolved: which file it names is the index's
//! business, with the whole tree's file table at hand.

use serde::{Deserialize, Serialize};

/// One import statement (or one `#include`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// 1-based line of the statement.
    pub line: u32,
    /// How the module is named, which says how it is looked for.
    pub form: Form,
    /// The module as written, quotes and brackets removed: `linux/slab.h`, `json`, `os.path`,
    /// `./util`, `java.util.List`, `fmt`. For [`Form::Package`], the file's own package.
    pub module: String,
    /// The names taken from the module, each with the local name it is bound to
    /// (`from m import a as b`: `("a", "b")`; `import { x } from "m"`: `("x", "x")`;
    /// `export * from "m"` and `from m import *`: `("*", "*")`). Empty when the statement
    /// binds the module itself (`import m`, `#include`, `import x from "m"` binds `default`
    /// and lists it).
    pub names: Vec<(String, String)>,
    /// The local name the module itself is bound to, when it is (`import numpy as np`: `np`;
    /// `import a.b`: `a`; `import * as ns from "m"`: `ns`; `const m = require("m")`: `m`).
    pub alias: Option<String>,
}

/// How an import names what it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Form {
    /// `#include <…>`: looked for in the include directories.
    System,
    /// `#include "…"`: looked for beside the including file, then as `System`.
    Local,
    /// Python, with the number of leading dots (0: absolute).
    Python {
        /// `from ..m import x`: 2.
        level: u8,
    },
    /// JavaScript or TypeScript (`import`, `require`, dynamic `import()`, `export … from`).
    Script {
        /// `export … from`: the names are the importing module's own exports too.
        reexport: bool,
    },
    /// Java `import` (a class, `a.b.*` as names `("*", "*")`, `static`).
    Java,
    /// Go `import "path"`.
    Go,
    /// The file's own package (Java's `package a.b;`, Go's `package x`): files of one
    /// package see each other's top-level definitions.
    Package,
}
