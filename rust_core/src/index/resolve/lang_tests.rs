//! The resolvers of Python, JavaScript/TypeScript, Java and Go on small trees.

use std::collections::HashMap;

use crate::outline::imports::{Form, Import};
use crate::outline::lang::Language;

use super::{Tree, targets};

/// An import of `module` in `form` taking `names` (each bound to itself) and bound to `alias`.
fn import(form: Form, module: &str, names: &[&str], alias: Option<&str>) -> Import {
    Import {
        line: 1,
        form,
        module: module.to_string(),
        names: names
            .iter()
            .map(|n| (n.to_string(), n.to_string()))
            .collect(),
        alias: alias.map(str::to_string),
    }
}

/// The paths `import`, written in `from` (a file of `language`), names in `tree`.
fn named(language: Language, tree: &Tree<'_>, from: &str, import: &Import) -> Vec<String> {
    targets(language, from, import, tree)
        .into_iter()
        .map(|id| tree.path(id).to_string())
        .collect()
}

#[test]
fn python_absolute_relative_and_submodules() {
    let tree = Tree::new(vec![
        "json/__init__.py",
        "json/decoder.py",
        "json/tool.py",
        "os.py",
        "typing.pyi",
        "email/__init__.py",
        "email/mime/__init__.py",
        "email/mime/text.py",
        "src/app/__init__.py",
        "src/app/core.py",
        "src/app/sub/__init__.py",
        "src/app/sub/leaf.py",
        "src/app/sub/leaf.pyi",
        "other/app/__init__.py",
        "other/app/core.py",
        "scripts/run.py",
        "scripts/helper.py",
    ]);
    let py = |level: u8| Form::Python { level };
    let go = |from: &str, i: &Import| named(Language::Python, &tree, from, i);
    assert_eq!(
        go("x.py", &import(py(0), "json", &[], Some("json"))),
        ["json/__init__.py"]
    );
    assert_eq!(go("x.py", &import(py(0), "os", &[], Some("os"))), ["os.py"]);
    assert_eq!(
        go("x.py", &import(py(0), "typing", &[], None)),
        ["typing.pyi"]
    );
    assert_eq!(
        go(
            "x.py",
            &import(py(0), "email.mime.text", &[], Some("email"))
        ),
        ["email/mime/text.py"]
    );
    // `from json import decoder, loads` names the package; its names, read as the modules
    // `json.decoder` and `json.loads`, name the submodule and nothing.
    assert_eq!(
        go("x.py", &import(py(0), "json", &["decoder", "loads"], None)),
        ["json/__init__.py"]
    );
    assert_eq!(
        go("x.py", &import(py(0), "json.decoder", &[], Some("decoder"))),
        ["json/decoder.py"]
    );
    assert!(go("x.py", &import(py(0), "json.loads", &[], Some("loads"))).is_empty());
    // Relative: `from . import tool` (the package, and `.tool`), `from .decoder import X`,
    // `from .. import x` above the root.
    assert_eq!(
        go("json/decoder.py", &import(py(1), "", &["tool"], None)),
        ["json/__init__.py"]
    );
    assert_eq!(
        go("json/decoder.py", &import(py(1), "tool", &[], Some("tool"))),
        ["json/tool.py"]
    );
    assert_eq!(
        go(
            "json/tool.py",
            &import(py(1), "decoder", &["JSONDecoder"], None)
        ),
        ["json/decoder.py"]
    );
    assert_eq!(
        go("src/app/sub/leaf.py", &import(py(2), "core", &["f"], None)),
        ["src/app/core.py"]
    );
    assert!(go("os.py", &import(py(2), "x", &[], None)).is_empty());
    // Two roots have `app`: the importer's own root wins; from elsewhere both are kept.
    assert_eq!(
        go(
            "src/app/sub/leaf.py",
            &import(py(0), "app.core", &["f"], None)
        ),
        ["src/app/core.py"]
    );
    assert_eq!(
        go("other/app/core.py", &import(py(0), "app.core", &[], None)),
        ["other/app/core.py"]
    );
    assert_eq!(
        go("x.py", &import(py(0), "app.core", &[], None)),
        ["other/app/core.py", "src/app/core.py"]
    );
    // A source before its stub; a script's sibling; a library outside the tree.
    assert_eq!(
        go("x.py", &import(py(0), "app.sub.leaf", &[], None)),
        ["src/app/sub/leaf.py"]
    );
    assert_eq!(
        go("scripts/run.py", &import(py(0), "helper", &[], None)),
        ["scripts/helper.py"]
    );
    assert!(go("x.py", &import(py(0), "helper", &[], None)).is_empty());
    // A package's module does not import its siblings absolutely: `import decoder` in
    // json/tool.py is no json/decoder.py.
    assert!(go("json/tool.py", &import(py(0), "decoder", &[], None)).is_empty());
    assert!(go("x.py", &import(py(0), "numpy", &[], Some("np"))).is_empty());
}

#[test]
fn script_relative_extensions_indexes_and_packages() {
    let files: HashMap<&str, &str> = HashMap::from([
        (
            "node_modules/left/package.json",
            r#"{"main": "lib/left.js"}"#,
        ),
        (
            "app/node_modules/left/package.json",
            r#"{"main": "./main"}"#,
        ),
        ("express/package.json", r#"{"name": "express"}"#),
        (
            "marked/package.json",
            r#"{"main": "./lib/marked.cjs", "exports": {".": {"import": "./lib/marked.esm.js", "require": "./lib/marked.cjs"}}}"#,
        ),
        (
            "typed/package.json",
            r#"{"main": "index.js", "types": "types/index.d.ts"}"#,
        ),
    ]);
    let paths: Vec<&str> = vec![
        "node_modules/left/package.json",
        "node_modules/left/lib/left.js",
        "app/node_modules/left/package.json",
        "app/node_modules/left/main.js",
        "app/src/a.ts",
        "app/src/b.ts",
        "app/src/c.js",
        "app/src/util/index.ts",
        "app/src/types.d.ts",
        "app/x.js",
        "express/package.json",
        "express/index.js",
        "express/lib/router/index.js",
        "express/lib/express.js",
        "marked/package.json",
        "marked/lib/marked.cjs",
        "marked/lib/marked.esm.js",
        "typed/package.json",
        "typed/index.js",
        "typed/types/index.d.ts",
    ];
    let manifests: Vec<&str> = files.keys().copied().collect();
    let tree = Tree::new(paths).reading(manifests, move |path| {
        files.get(path).map(|t| t.to_string())
    });
    let js = Form::Script { reexport: false };
    let go = |from: &str, module: &str| {
        named(
            Language::TypeScript,
            &tree,
            from,
            &import(js, module, &[], None),
        )
    };
    assert_eq!(go("app/src/a.ts", "./b"), ["app/src/b.ts"]);
    assert_eq!(go("app/src/a.ts", "./b.js"), ["app/src/b.ts"]);
    assert_eq!(go("app/src/a.ts", "./c"), ["app/src/c.js"]);
    assert_eq!(go("app/src/a.ts", "./util"), ["app/src/util/index.ts"]);
    assert_eq!(go("app/src/a.ts", "./types"), ["app/src/types.d.ts"]);
    assert_eq!(go("app/src/a.ts", "../x.js"), ["app/x.js"]);
    assert!(go("app/src/a.ts", "./missing").is_empty());
    assert!(go("app/src/a.ts", "../../../up").is_empty());
    // Bare: the nearest node_modules first, a root-level package (a global folder), types.
    assert_eq!(
        go("app/src/a.ts", "left"),
        ["app/node_modules/left/main.js"]
    );
    assert_eq!(go("x.js", "left"), ["node_modules/left/lib/left.js"]);
    assert_eq!(go("app/x.js", "express"), ["express/index.js"]);
    assert_eq!(
        go("app/x.js", "express/lib/router"),
        ["express/lib/router/index.js"]
    );
    assert_eq!(go("app/src/a.ts", "typed"), ["typed/types/index.d.ts"]);
    assert!(go("app/x.js", "fs").is_empty());
    let from_js = |from: &str, module: &str| {
        named(
            Language::JavaScript,
            &tree,
            from,
            &import(js, module, &[], None),
        )
    };
    assert_eq!(from_js("app/x.js", "marked"), ["marked/lib/marked.cjs"]);
    assert_eq!(from_js("app/x.js", "typed"), ["typed/index.js"]);
    // Without a reader for package.json, a package is its index.
    let bare = Tree::new(vec![
        "express/package.json",
        "express/index.js",
        "marked/package.json",
        "marked/lib/marked.cjs",
    ]);
    let without = |module: &str| {
        named(
            Language::JavaScript,
            &bare,
            "x.js",
            &import(js, module, &[], None),
        )
    };
    assert_eq!(without("express"), ["express/index.js"]);
    assert!(without("marked").is_empty());
}

#[test]
fn java_classes_packages_and_source_roots() {
    let tree = Tree::new(vec![
        "core/src/main/java/org/acme/util/Strings.java",
        "core/src/main/java/org/acme/util/Lists.java",
        "core/src/main/java/org/acme/util/package-info.java",
        "core/src/test/java/org/acme/util/StringsTest.java",
        "web/src/main/java/org/acme/util/Strings.java",
        "web/src/main/java/org/acme/web/App.java",
        "web/src/main/java/org/acme/web/Outer.java",
    ]);
    let go = |from: &str, i: &Import| named(Language::Java, &tree, from, i);
    let app = "web/src/main/java/org/acme/web/App.java";
    let test = "core/src/test/java/org/acme/util/StringsTest.java";
    // A class under the importer's own source root first; else under every root that has it.
    assert_eq!(
        go(
            app,
            &import(Form::Java, "org.acme.util.Strings", &["Strings"], None)
        ),
        ["web/src/main/java/org/acme/util/Strings.java"]
    );
    assert_eq!(
        go(
            test,
            &import(Form::Java, "org.acme.util.Lists", &["Lists"], None)
        ),
        ["core/src/main/java/org/acme/util/Lists.java"]
    );
    assert_eq!(
        go(
            test,
            &import(Form::Java, "org.acme.util.Strings", &["Strings"], None)
        )
        .len(),
        2
    );
    // A nested class, a static import: the outer class's file.
    assert_eq!(
        go(
            app,
            &import(Form::Java, "org.acme.web.Outer.Inner", &["Inner"], None)
        ),
        ["web/src/main/java/org/acme/web/Outer.java"]
    );
    assert_eq!(
        go(app, &import(Form::Java, "org.acme.web.Outer", &["*"], None)),
        ["web/src/main/java/org/acme/web/Outer.java"]
    );
    // `a.b.*` and the package: every root's directory of it.
    let every = go(app, &import(Form::Java, "org.acme.util", &["*"], None));
    assert_eq!(every.len(), 5, "{every:?}");
    let own = go(test, &import(Form::Package, "org.acme.util", &[], None));
    assert!(own.contains(&test.to_string()) && own.len() == 5, "{own:?}");
    assert!(go(app, &import(Form::Java, "java.util.List", &["List"], None)).is_empty());
}

#[test]
fn go_modules_vendor_and_path_suffixes() {
    let files: HashMap<&str, &str> = HashMap::from([
        ("go.mod", "module example.com/shop\n\ngo 1.21\n"),
        ("tools/go.mod", "module \"example.com/shop/tools\"\n"),
    ]);
    // The manifests are no source files: the tree's paths do not list them.
    let manifests: Vec<&str> = files.keys().copied().collect();
    let tree = Tree::new(vec![
        "main.go",
        "cart/cart.go",
        "cart/cart_test.go",
        "cart/item.go",
        "tools/gen.go",
        "tools/cart/x.go",
        "vendor/github.com/pkg/errors/errors.go",
        "src/net/http/server.go",
        "src/fmt/print.go",
        "src/internal/fmtsort/sort.go",
        "src/cmd/testdata/fmt/bad.go",
    ])
    .reading(manifests, move |path| {
        files.get(path).map(|t| t.to_string())
    });
    let go = |from: &str, module: &str| {
        named(
            Language::Go,
            &tree,
            from,
            &import(Form::Go, module, &[], None),
        )
    };
    assert_eq!(
        go("main.go", "example.com/shop/cart"),
        ["cart/cart.go", "cart/item.go"]
    );
    assert_eq!(
        go("cart/cart_test.go", "example.com/shop/cart"),
        ["cart/cart.go", "cart/cart_test.go", "cart/item.go"]
    );
    // A nested module owns its paths.
    assert_eq!(
        go("main.go", "example.com/shop/tools/cart"),
        ["tools/cart/x.go"]
    );
    assert_eq!(go("main.go", "example.com/shop/tools"), ["tools/gen.go"]);
    assert_eq!(
        go("main.go", "github.com/pkg/errors"),
        ["vendor/github.com/pkg/errors/errors.go"]
    );
    // Go's own sources: the whole path ends a directory (testdata left out).
    assert_eq!(go("src/net/http/server.go", "fmt"), ["src/fmt/print.go"]);
    assert_eq!(
        go("src/fmt/print.go", "internal/fmtsort"),
        ["src/internal/fmtsort/sort.go"]
    );
    assert!(go("main.go", "golang.org/x/text").is_empty());
    // The package clause: the files of the importer's directory.
    assert_eq!(
        named(
            Language::Go,
            &tree,
            "cart/item.go",
            &import(Form::Package, "cart", &[], None)
        ),
        ["cart/cart.go", "cart/item.go"]
    );
}

#[test]
fn a_go_package_is_the_files_of_its_directory_with_its_package_clause() {
    use std::collections::HashMap;
    let package = |name: &str| import(Form::Package, name, &[], None);
    let go = Some(Language::Go);
    // 0 cart/cart.go and 1 cart/item.go (package cart), 2 cart/cart_x_test.go (cart_test).
    let mut imports: HashMap<u32, Vec<(Import, Vec<u32>)>> = HashMap::from([
        (0, vec![(package("cart"), vec![0, 1, 2])]),
        (1, vec![(package("cart"), vec![0, 1, 2])]),
        (2, vec![(package("cart_test"), vec![0, 1, 2])]),
    ]);
    super::same_package(&mut imports, &[go, go, go]);
    assert_eq!(imports[&0][0].1, [0, 1]);
    assert_eq!(imports[&2][0].1, [2]);
}
