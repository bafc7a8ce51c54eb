use super::*;

const NAMES: &[&str] = &["u32", "kzalloc", "helper", "loads", "dumps", "List", "*"];

fn id(name: &str) -> Option<u32> {
    NAMES.iter().position(|n| *n == name).map(|i| i as u32)
}

/// The files each binding leads to, `[]` for by name (and a `Within` as its files).
fn files(bound: Vec<Bound>) -> Vec<Vec<u32>> {
    bound
        .into_iter()
        .map(|b| match b {
            Bound::ByName => Vec::new(),
            Bound::Resolved(f) | Bound::Within(f) => f,
        })
        .collect()
}

fn import(form: Form, module: &str, names: &[(&str, &str)]) -> Import {
    Import {
        line: 1,
        form,
        module: module.into(),
        names: names
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        alias: None,
    }
}

/// Each file's imports, with the files each names.
type FileImports = Vec<(u32, Vec<(Import, Vec<u32>)>)>;

/// A graph of files given as (language, edges, defined names), plus imports.
fn graph<'a>(
    files: &[(Language, &[u32], &[&str])],
    imports: FileImports,
    name_id: &'a dyn Fn(&str) -> Option<u32>,
) -> Graph<'a> {
    let mut g = Graph {
        languages: files.iter().map(|f| Some(f.0)).collect(),
        edges: files.iter().map(|f| f.1.to_vec()).collect(),
        imports: imports.into_iter().collect(),
        own: files
            .iter()
            .map(|f| {
                let mut own: Vec<u32> = f.2.iter().filter_map(|n| id(n)).collect();
                own.sort_unstable();
                own
            })
            .collect(),
        definer_start: Vec::new(),
        definers: Vec::new(),
        name_id,
        projects: vec![None; files.len()],
        enclosing: Vec::new(),
        private: Vec::new(),
    };
    g.index_definers(NAMES.len());
    g
}

#[test]
fn a_c_reference_binds_to_the_definitions_its_include_closure_holds() {
    // 0 include/linux/types.h, 1 include/linux/slab.h (includes 0), 2 kernel/fork.c (includes
    // 1), 3 tools/include/linux/types.h, 4 tools/perf/x.c (includes 3), 5 lone.c.
    let c = Language::C;
    let g = graph(
        &[
            (c, &[], &["u32"]),
            (c, &[0], &["kzalloc"]),
            (c, &[1], &["helper"]),
            (c, &[], &["u32", "kzalloc"]),
            (c, &[3], &[]),
            (c, &[], &[]),
        ],
        Vec::new(),
        &id,
    );
    let mut binder = Binder::new(&g);
    let names = [0, 1, 2];
    assert_eq!(
        files(binder.bind(2, &names)),
        [vec![0], vec![1], vec![2]],
        "through the closure, and the file itself"
    );
    assert_eq!(
        files(binder.bind(4, &names)),
        [vec![3], vec![3], Vec::<u32>::new()]
    );
    // Nothing included: found by name.
    assert_eq!(
        files(binder.bind(5, &names)),
        [Vec::<u32>::new(), Vec::<u32>::new(), Vec::<u32>::new()]
    );
    assert_eq!(binder.bind(2, &[0])[0], Bound::Resolved(vec![0]));
    assert_eq!(binder.bind(5, &[2])[0], Bound::ByName);
    // Cycles end.
    let cyclic = graph(&[(c, &[1], &["u32"]), (c, &[0], &[])], Vec::new(), &id);
    assert_eq!(files(Binder::new(&cyclic).bind(1, &[0])), [vec![0]]);
}

#[test]
fn an_import_binds_its_local_name_through_reexports_and_stars() {
    let py = Language::Python;
    // 0 app.py: from pkg import loads as ld... (local "loads"), import json; 1 pkg/__init__.py:
    // from .impl import *; 2 pkg/impl.py defines loads; 3 json.py defines loads and dumps;
    // 4 other.py defines loads (never imported).
    let g = graph(
        &[
            (py, &[1, 3], &[]),
            (py, &[2], &[]),
            (py, &[], &["loads"]),
            (py, &[], &["loads", "dumps"]),
            (py, &[], &["loads"]),
        ],
        vec![
            (
                0,
                vec![
                    (
                        import(Form::Python { level: 0 }, "pkg", &[("loads", "loads")]),
                        vec![1],
                    ),
                    (import(Form::Python { level: 0 }, "json", &[]), vec![3]),
                ],
            ),
            (
                1,
                vec![(
                    import(Form::Python { level: 1 }, "impl", &[("*", "*")]),
                    vec![2],
                )],
            ),
        ],
        &id,
    );
    let mut binder = Binder::new(&g);
    // `loads` through the package's star re-export; `dumps` from the whole-module import;
    // `helper` nowhere: by name.
    assert_eq!(
        files(binder.bind(0, &[3, 4, 2])),
        [vec![2], vec![3], Vec::<u32>::new()]
    );
    // A file's own definition wins.
    assert_eq!(files(binder.bind(4, &[3])), [vec![4]]);
}

#[test]
fn the_package_binds_and_other_languages_do_not() {
    let java = Language::Java;
    let g = graph(
        &[
            (java, &[1], &[]),
            (java, &[], &["List"]),
            (Language::Ruby, &[], &[]),
        ],
        vec![(0, vec![(import(Form::Package, "a.b", &[]), vec![1])])],
        &id,
    );
    let mut binder = Binder::new(&g);
    assert_eq!(files(binder.bind(0, &[5])), [vec![1]]);
    assert_eq!(files(binder.bind(2, &[5])), [Vec::<u32>::new()]);
}

#[test]
fn a_c_reference_nothing_binds_is_found_by_name_within_its_project_and_those_enclosing_it() {
    // Projects: 0 the root, 1 tools (inside the root). 0 kernel/a.c uses kzalloc, defined
    // only in 1 tools/include/linux/slab.h and 2 tools/lib/alloc.c; 3 tools/perf/x.c uses
    // helper, defined in 4 lib/helper.c (the root's) and 1; 5 kernel/b.c uses u32, defined in
    // 2 and 6 lib/types.c.
    let c = Language::C;
    let mut g = graph(
        &[
            (c, &[], &[]),
            (c, &[], &["kzalloc", "helper"]),
            (c, &[], &["kzalloc", "u32"]),
            (c, &[], &[]),
            (c, &[], &["helper"]),
            (c, &[], &[]),
            (c, &[], &["u32"]),
        ],
        Vec::new(),
        &id,
    );
    g.projects = vec![
        Some(0),
        Some(1),
        Some(1),
        Some(1),
        Some(0),
        Some(0),
        Some(0),
    ];
    g.enclosing = vec![vec![0], vec![0, 1]];
    let mut binder = Binder::new(&g);
    assert_eq!(binder.bind(0, &[1]), [Bound::Within(Vec::new())]);
    // A nested project sees its own and the enclosing one's: every definer, so by name.
    assert_eq!(binder.bind(3, &[2]), [Bound::ByName]);
    assert_eq!(binder.bind(5, &[0]), [Bound::Within(vec![6])]);
    // lib/types.c is private (no file includes it) and u32 is no function of it: no
    // definition a file of the root's project can mean; its helper is one.
    g.private = vec![None; 7];
    g.private[6] = Some(Vec::new());
    g.private[4] = Some(vec![2]);
    let mut binder = Binder::new(&g);
    assert_eq!(binder.bind(5, &[0]), [Bound::Within(Vec::new())]);
    assert_eq!(binder.bind(0, &[2]), [Bound::Within(vec![4])]);
}

#[test]
fn a_module_bound_to_the_name_and_an_import_spelling_the_name_bind_there() {
    // 0 json/__init__.py (defines loads, dumps), 1 app.py, 2 send/index.js (defines helper),
    // 3 lib/response.js (defines helper too: `res.helper = function helper() {}`),
    // 4 index.js, re-exporting 2 as `helper` (`{ helper: require("./send") }`), 5 bin.js.
    let (py, js) = (Language::Python, Language::JavaScript);
    let aliased = |module: &str, alias: &str| Import {
        alias: Some(alias.to_string()),
        ..import(Form::Script { reexport: false }, module, &[])
    };
    let g = graph(
        &[
            (py, &[], &["loads", "dumps"]),
            (py, &[0], &[]),
            (js, &[], &["helper"]),
            (js, &[2], &["helper"]),
            (js, &[2], &[]),
            (js, &[4], &[]),
        ],
        vec![
            (
                1,
                vec![(
                    import(Form::Python { level: 0 }, "json", &[("loads", "u32")]),
                    vec![0],
                )],
            ),
            (3, vec![(aliased("send", "helper"), vec![2])]),
            (4, vec![(aliased("./send", "helper"), vec![2])]),
            (5, vec![(aliased("..", "kzalloc"), vec![4])]),
        ],
        &id,
    );
    let mut binder = Binder::new(&g);
    // `from json import loads as u32`: `loads` as the statement spells it binds to json's.
    assert_eq!(files(binder.bind(1, &[3, 4])), [vec![0], Vec::<u32>::new()]);
    // JavaScript: the imported constant before the file's own property of that name.
    assert_eq!(files(binder.bind(3, &[2])), [vec![2]]);
    // `const s = require("..")`, `s.helper()`: through the package's re-export of a module
    // bound to `helper`.
    assert_eq!(files(binder.bind(5, &[2])), [vec![2]]);
}

#[test]
fn java_and_go_imports_do_not_reexport_and_each_file_is_followed_once() {
    // 0 a/A.java imports b.* (1), 1 b/B.java imports c.* (2), 2 c/C.java defines helper;
    // 3..6 four Python modules each `from x import *` of all four, 6 defines helper.
    let (java, py) = (Language::Java, Language::Python);
    let star = |form: Form| import(form, "m", &[("*", "*")]);
    let all: Vec<u32> = (3..7).collect();
    let g = graph(
        &[
            (java, &[1], &[]),
            (java, &[2], &[]),
            (java, &[], &["helper"]),
            (py, &[], &[]),
            (py, &[], &[]),
            (py, &[], &[]),
            (py, &[], &["helper"]),
        ],
        vec![
            (0, vec![(star(Form::Java), vec![1])]),
            (1, vec![(star(Form::Java), vec![2])]),
            (3, vec![(star(Form::Python { level: 0 }), all.clone())]),
            (4, vec![(star(Form::Python { level: 0 }), all.clone())]),
            (5, vec![(star(Form::Python { level: 0 }), all.clone())]),
        ],
        &id,
    );
    let mut binder = Binder::new(&g);
    // `helper` in A.java: B.java does not define it, and B's own imports are not A's.
    assert_eq!(files(binder.bind(0, &[2])), [Vec::<u32>::new()]);
    assert_eq!(files(binder.bind(1, &[2])), [vec![2]]);
    // Star imports re-export in Python, through a cycle of them, each module followed once.
    assert_eq!(files(binder.bind(3, &[2])), [vec![6]]);
}

#[test]
fn a_java_class_of_the_own_package_hides_one_a_star_import_brings() {
    // 0 org/web/App.java (package org.web: 0, 1; import org.acme.*: 2), 1 org/web/Strings.java,
    // 2 org/acme/Strings.java; 3 org/acme/Use.java (package: 2, 3; import java.lang.*: 4),
    // 4 java/lang/Strings.java.
    let java = Language::Java;
    let star = import(Form::Java, "m", &[("*", "*")]);
    let package = import(Form::Package, "p", &[]);
    let g = graph(
        &[
            (java, &[], &[]),
            (java, &[], &["List"]),
            (java, &[], &["List"]),
            (java, &[], &[]),
            (java, &[], &["List"]),
        ],
        vec![
            (
                0,
                vec![(package.clone(), vec![0, 1]), (star.clone(), vec![2])],
            ),
            (3, vec![(package, vec![2, 3]), (star, vec![4])]),
        ],
        &id,
    );
    let mut binder = Binder::new(&g);
    assert_eq!(files(binder.bind(0, &[5])), [vec![1]]);
    assert_eq!(files(binder.bind(3, &[5])), [vec![2]]);
}
