//! The imports each language's statements give (Python, JavaScript/TypeScript, Java, Go).

use std::time::Duration;

use super::super::lang::Language;
use super::super::parse::parse_with;
use super::{Form, Import};

/// The imports of `source` read as `language`, each as
/// `line form module [orig>local ...] as alias`.
fn imports(language: Language, source: &str) -> Vec<String> {
    let parsed =
        parse_with(language, source.as_bytes(), Duration::from_secs(10), true).expect("parses");
    let references = parsed.references.expect("a reference query");
    references.imports.iter().map(shown).collect()
}

fn shown(import: &Import) -> String {
    let form = match import.form {
        Form::Python { level } => format!("py{level}"),
        Form::Script { reexport: true } => "export".to_string(),
        Form::Script { reexport: false } => "js".to_string(),
        Form::Java => "java".to_string(),
        Form::Go => "go".to_string(),
        Form::Package => "package".to_string(),
        Form::System | Form::Local => "c".to_string(),
    };
    let names: Vec<String> = import
        .names
        .iter()
        .map(|(orig, local)| format!("{orig}>{local}"))
        .collect();
    let alias = import.alias.as_deref().unwrap_or("-");
    format!(
        "{} {form} {} [{}] as {alias}",
        import.line,
        import.module,
        names.join(" ")
    )
}

#[test]
fn python_statements() {
    let source = "import os.path\n\
        import numpy as np, json\n\
        from . import x\n\
        from ..m import (a, b as c)\n\
        from pkg.sub import *\n\
        from __future__ import annotations\n\
        def f():\n\
        \x20   try:\n\
        \x20       from .local import y\n\
        \x20   except ImportError:\n\
        \x20       y = None\n\
        \x20   return [__import__('z') for _ in ()]\n\
        class A:\n\
        \x20   import pickle as p\n";
    assert_eq!(
        imports(Language::Python, source),
        [
            "1 py0 os.path [] as os",
            "2 py0 numpy [] as np",
            "2 py0 json [] as json",
            "3 py1  [x>x] as -",
            "3 py1 x [] as x",
            "4 py2 m [a>a b>c] as -",
            "4 py2 m.a [] as a",
            "4 py2 m.b [] as c",
            "5 py0 pkg.sub [*>*] as -",
            "9 py1 local [y>y] as -",
            "9 py1 local.y [] as y",
            "14 py0 pickle [] as p",
        ]
    );
}

#[test]
fn script_statements() {
    let source = "import x from \"./x\";\n\
        import { a as b, c } from '../c.js';\n\
        import * as ns from \"ns\";\n\
        import \"side\";\n\
        import d, { e } from \"de\";\n\
        export { f, g as h } from \"./fg\";\n\
        export * from \"./all\";\n\
        export * as all from \"./all2\";\n\
        export const k = 1;\n\
        const m = require(\"m\");\n\
        const { p, q: r } = require('./pq');\n\
        var s = require(\"./s\").t;\n\
        module.exports = require(\"./lib\");\n\
        async function later() { const lazy = await import(\"./lazy\"); require(\"./bare\"); }\n\
        require(dynamic);\n\
        module.exports = { clean: require('./clean'), SemVer: require('./semver').SemVer };\n\
        exports.inc = require('./inc');\n";
    let expected = [
        "1 js ./x [default>x] as -",
        "2 js ../c.js [a>b c>c] as -",
        "3 js ns [] as ns",
        "4 js side [] as -",
        "5 js de [default>d e>e] as -",
        "6 export ./fg [f>f g>h] as -",
        "7 export ./all [*>*] as -",
        "8 export ./all2 [] as all",
        "10 js m [] as m",
        "11 js ./pq [p>p q>r] as -",
        "12 js ./s [t>s] as -",
        "13 export ./lib [*>*] as -",
        "14 js ./lazy [] as lazy",
        "14 js ./bare [] as -",
        "16 js ./clean [] as clean",
        "16 js ./semver [SemVer>SemVer] as -",
        "17 js ./inc [] as inc",
    ];
    assert_eq!(imports(Language::JavaScript, source), expected);
    assert_eq!(imports(Language::TypeScript, source), expected);
    let typed = "import type { T } from \"./types\";\n\
        import fs = require(\"fs\");\n\
        export type { U } from \"./u\";\n\
        function f(): void { const x: T = fs.readFileSync(\"\"); }\n";
    assert_eq!(
        imports(Language::TypeScript, typed),
        [
            "1 js ./types [T>T] as -",
            "2 js fs [] as fs",
            "3 export ./u [U>U] as -",
        ]
    );
    assert_eq!(
        imports(
            Language::Tsx,
            "import React from 'react';\nconst e = <div/>;\n"
        ),
        ["1 js react [default>React] as -"]
    );
}

#[test]
fn java_statements() {
    let source = "package org.example.app;\n\
        import java.util.List;\n\
        import java.util.*;\n\
        import static org.junit.Assert.assertEquals;\n\
        import static java.lang.Math.*;\n\
        import a.b.Outer.Inner;\n\
        class A { java.util.Map m; }\n";
    assert_eq!(
        imports(Language::Java, source),
        [
            "1 package org.example.app [] as -",
            "2 java java.util.List [List>List] as -",
            "3 java java.util [*>*] as -",
            "4 java org.junit.Assert [assertEquals>assertEquals] as -",
            "5 java java.lang.Math [*>*] as -",
            "6 java a.b.Outer.Inner [Inner>Inner] as -",
            "1 java java.lang [*>*] as -",
        ]
    );
}

#[test]
fn go_statements() {
    let source = "package server\n\n\
        import \"fmt\"\n\
        import (\n\
        \t\"net/http\"\n\
        \tf \"example.com/m/format\"\n\
        \t_ \"embed\"\n\
        \t. \"example.com/m/dsl\"\n\
        \traw `example.com/raw`\n\
        )\n\n\
        func main() { fmt.Println(http.StatusOK) }\n";
    assert_eq!(
        imports(Language::Go, source),
        [
            "1 package server [] as -",
            "3 go fmt [] as -",
            "5 go net/http [] as -",
            "6 go example.com/m/format [] as f",
            "7 go embed [] as _",
            "8 go example.com/m/dsl [*>*] as -",
            "9 go example.com/raw [] as raw",
        ]
    );
}

#[test]
fn a_language_without_resolved_imports_has_none() {
    assert!(imports(Language::Ruby, "require 'json'\n").is_empty());
    assert!(imports(Language::Rust, "use std::fmt;\n").is_empty());
}
