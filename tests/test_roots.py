"""Several roots under one registry (`ripsight.roots`): names, paging, boundaries, read-back."""

from __future__ import annotations

import os
from pathlib import Path

import jsonschema
import pytest
from ripsight import ToolCall, Workspace, _core, default_registry, to_dict
from ripsight.errors import OutsideRootError, PathNotFoundError
from ripsight.merged import merge_glob, root_names
from ripsight.roots import Roots


@pytest.fixture
def three(tmp_path: Path, make_tree) -> list[Path]:
    """Two roots named web (the same file name in both) and one named api."""
    web = make_tree(
        {"src/app.py": "def main():\n    pass  # TODO one\n", "README.md": "TODO web\nfine\n"},
        root=tmp_path / "a" / "web",
    )
    web2 = make_tree(
        {"src/app.py": "def main():\n    return 2  # TODO two\n", "b.txt": "nothing\n"},
        root=tmp_path / "b" / "web",
    )
    api = make_tree(
        {
            "lib/api.py": "class Api:\n    '''TODO three'''\n\n\ndef main():\n    pass\n",
            "lib/more.py": "TODO four\nTODO five\n",
            ".gitignore": "build/\n",
            "build/out.txt": "TODO hidden\n",
        },
        root=tmp_path / "api",
        git=True,
    )
    return [web, web2, api]


def call(registry, tool: str, **arguments):
    return registry.execute(ToolCall("c1", tool, arguments))


def test_root_names_are_the_directory_names_disambiguated():
    assert root_names(["/x/web", "/y/web", "/z/api", "/w/web", "/"]) == [
        "web",
        "web-2",
        "api",
        "web-3",
        "root",
    ]
    assert root_names(["/x/web-2", "/y/web", "/z/web"]) == ["web-2", "web", "web-3"]


def test_the_same_file_name_in_two_roots_is_named_apart_and_reads_back(three):
    reg = default_registry(three)
    found = call(reg, "grep", pattern="TODO (one|two)")
    assert found.content.splitlines()[1:] == [
        "web/src/app.py:2:    pass  # TODO one",
        "web-2/src/app.py:2:    return 2  # TODO two",
    ]
    first = call(reg, "read_file", path="web/src/app.py")
    second = call(reg, "read_file", path="web-2/src/app.py")
    assert "TODO one" in first.content and "TODO one" not in second.content
    assert "TODO two" in second.content
    assert first.content.startswith("web/src/app.py: lines 1-2 of 2.")
    defs = call(reg, "find_definitions", name="main")
    assert "web/src/app.py:1 function main" in defs.content
    assert "web-2/src/app.py:1 function main" in defs.content
    assert "api/lib/api.py:5 function main" in defs.content
    outline = call(reg, "outline", path="api/lib/api.py")
    assert outline.content.startswith("api/lib/api.py (Python)")


def test_every_path_a_search_shows_reads_back(three):
    reg = default_registry(three)
    listed = reg.workspace.glob("**/*", limit=None)
    assert listed.total == 7
    for path in listed.paths:
        assert reg.workspace.read_file(path).path == path
        assert call(reg, "read_file", path=path).meta["code"] in ("ok", "empty_file")


def _concatenation(roots: Roots, what: str, **options) -> list:
    """Every entry of `what` over the roots, each root searched alone, in root order."""
    entries = []
    for name, ws in roots.workspaces.items():
        if what == "glob":
            entries += [f"{name}/{p}" for p in ws.glob("**/*", limit=None).paths]
        elif what == "definitions":
            found = ws.definitions("main", match="prefix", limit=None).definitions
            entries += [(f"{name}/{d.path}", d.line) for d in found]
        else:
            result = ws.grep("TODO|fine|nothing", limit=None, **options)
            if result.output_mode == "content":
                entries += [(f"{name}/{ln.path}", ln.line) for ln in result.lines if ln.is_match]
            else:
                entries += [(f"{name}/{f.path}", f.count) for f in result.files]
    return entries


def _page(roots: Roots, what: str, offset: int, limit: int | None, **options) -> tuple:
    if what == "glob":
        result = roots.glob("**/*", limit=limit, offset=offset)
        entries: list = list(result.paths)
        total = result.total
    elif what == "definitions":
        result = roots.definitions("main", match="prefix", limit=limit, offset=offset)
        entries = [(d.path, d.line) for d in result.definitions]
        total = result.total
    else:
        result = roots.grep("TODO|fine|nothing", limit=limit, offset=offset, **options)
        if result.output_mode == "content":
            entries = [(ln.path, ln.line) for ln in result.lines if ln.is_match]
            total = result.total_matches
        elif result.output_mode == "files_without_match":
            entries = [(f.path, f.count) for f in result.files]
            total = result.files_searched - result.total_files
        else:
            entries = [(f.path, f.count) for f in result.files]
            total = result.total_files
    return entries, total, result.withheld, result.next_offset


@pytest.mark.parametrize(
    ("what", "options"),
    [
        ("glob", {}),
        ("definitions", {}),
        ("grep", {}),
        ("grep", {"output_mode": "files_with_matches"}),
        ("grep", {"output_mode": "count"}),
        ("grep", {"output_mode": "files_without_match", "pattern": None}),
    ],
)
def test_paging_is_exact_over_the_roots_in_order(three, what, options):
    roots = Roots([Workspace(root) for root in three])
    options = {k: v for k, v in options.items() if v is not None}
    if options.get("output_mode") == "files_without_match":
        # The files searched without a match, over the roots in order.
        everything = []
        for name, ws in roots.workspaces.items():
            found = ws.grep("TODO", output_mode="files_without_match", limit=None)
            everything += [(f"{name}/{f.path}", f.count) for f in found.files]

        def page(offset, limit):
            result = roots.grep(
                "TODO", output_mode="files_without_match", limit=limit, offset=offset
            )
            entries = [(f.path, f.count) for f in result.files]
            return (
                entries,
                result.files_searched - result.total_files,
                result.withheld,
                result.next_offset,
            )

    else:
        everything = _concatenation(roots, what, **options)

        def page(offset, limit):
            return _page(roots, what, offset, limit, **options)

    assert len(everything) >= 2
    total = len(everything)
    for limit in (None, 1, 2, 3, total + 1):
        for offset in range(total + 2):
            entries, seen_total, withheld, next_offset = page(offset, limit)
            expected = everything[offset : None if limit is None else offset + limit]
            assert entries == expected, (offset, limit)
            assert seen_total == total
            assert withheld == max(0, total - offset - len(expected))
            assert next_offset == (offset + len(expected) if withheld else None)


def test_one_root_merged_is_the_engine_result_with_the_root_named(three):
    ws = Workspace(three[2])
    alone = ws.grep("TODO", context=1).to_dict()
    merged = Roots([ws]).grep("TODO", context=1).to_dict()
    for line in alone["lines"]:
        line["path"] = "api/" + line["path"]
    for rule in alone["hidden_by"]:
        rule["file"] = "api/" + rule["file"]
    assert {**merged, "elapsed_ms": 0} == {**alone, "elapsed_ms": 0}
    listed = ws.glob("**/*").to_dict()
    listed["paths"] = ["api/" + p for p in listed["paths"]]
    listed["hidden_by"] = [{**r, "file": "api/" + r["file"]} for r in listed["hidden_by"]]
    listed["elapsed_ms"] = 0
    assert {**Roots([ws]).glob("**/*").to_dict(), "elapsed_ms": 0} == listed


def test_a_path_that_names_a_root_searches_that_root_only(three):
    reg = default_registry(three)
    found = call(reg, "grep", pattern="TODO", path="api", output_mode="files_with_matches")
    assert found.content.splitlines()[1:] == ["api/lib/api.py", "api/lib/more.py"]
    listed = call(reg, "glob", pattern="*", path="web-2/src")
    assert listed.content.splitlines() == [
        '1 file matches "*" under web-2/src:',
        "web-2/src/app.py",
    ]
    every = call(reg, "glob", pattern="*", path=".")
    assert "web/README.md" in every.content and "web-2/b.txt" in every.content
    directory = call(reg, "read_file", path="web")
    assert directory.meta["code"] == "is_a_directory"
    assert directory.content.startswith("web is a directory")
    outside = call(reg, "read_file", path="/etc/hostname")
    assert outside.meta["code"] == "outside_root"
    assert outside.content.startswith("/etc/hostname is outside every root")
    unknown = call(reg, "read_file", path="src/app.py")
    assert unknown.meta["code"] == "not_found"
    assert "every path begins with a root's name: web/, web-2/, api/" in unknown.content


def test_ignore_accounting_holds_per_root(three):
    roots = Roots([Workspace(root) for root in three])
    found = roots.grep("TODO hidden")
    assert found.total_matches == 0
    assert found.skipped.ignored_by_rules == 1
    assert [(r.file, r.rule) for r in found.hidden_by] == [("api/.gitignore", "build/")]
    reg = default_registry(three)
    text = call(reg, "grep", pattern="TODO hidden").content
    assert "api/.gitignore:1: build/" in text
    shown = call(reg, "grep", pattern="TODO hidden", include_ignored=True).content
    assert "api/build/out.txt:1:TODO hidden" in shown


def test_a_root_inside_another_is_served_under_both_names(tmp_path, make_tree):
    outer = make_tree({"top.py": "x = 1\n", "inner/deep.py": "y = 2\n"}, root=tmp_path / "outer")
    reg = default_registry([outer, outer / "inner"])
    listed = call(reg, "glob", pattern="**/*.py").content.splitlines()
    assert listed[1:] == ["outer/inner/deep.py", "outer/top.py", "inner/deep.py"]
    for path in listed[1:]:
        assert call(reg, "read_file", path=path).meta["code"] == "ok"
    # The inner root cannot reach the outer root's files.
    up = call(reg, "read_file", path="inner/../top.py")
    assert up.meta["code"] == "outside_root"
    assert up.content.startswith("inner/../top.py is outside")
    # An absolute path belongs to the deepest root that holds it.
    assert reg.workspace.read_file(str(outer / "inner" / "deep.py")).path == "inner/deep.py"


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_a_link_from_one_root_into_another_is_refused(three):
    web, _, api = three
    (web / "src" / "link.py").symlink_to(api / "lib" / "api.py")
    (web / "apidir").symlink_to(api / "lib", target_is_directory=True)
    reg = default_registry(three)
    read = call(reg, "read_file", path="web/src/link.py")
    assert read.meta["code"] == "outside_root"
    assert read.content.startswith("web/src/link.py is outside")
    assert call(reg, "glob", pattern="*", path="web/apidir").meta["code"] == "outside_root"
    found = reg.workspace.grep("TODO three")
    assert [ln.path for ln in found.lines] == ["api/lib/api.py"]  # once, through api only
    assert found.skipped.symlink == 2
    with pytest.raises(OutsideRootError):
        reg.workspace.read_file("web/../api/lib/api.py")


def test_a_list_of_one_root_is_that_root_as_today(three):
    alone, listed = default_registry(three[2]), default_registry([three[2]])
    assert isinstance(listed.workspace, Workspace)
    for tool, arguments in [
        ("grep", {"pattern": "TODO"}),
        ("glob", {"pattern": "**/*"}),
        ("read_file", {"path": "lib/api.py"}),
    ]:
        assert call(alone, tool, **arguments).content == call(listed, tool, **arguments).content


def test_a_root_that_cannot_be_opened_is_told_to_the_model(three, tmp_path):
    missing = tmp_path / "missing"
    a_file = three[0] / "README.md"
    with pytest.raises(PathNotFoundError):
        Roots.open([three[0], missing])
    roots = Roots.open([three[0], missing, a_file, three[2]], strict=False)
    assert roots.names == ("web", "api")
    assert len(roots.problems) == 2
    reg = default_registry(roots)
    text = call(reg, "grep", pattern="TODO").content
    assert text.splitlines()[-1].startswith("Not served: the root ")
    assert str(missing) in text and str(a_file) in text
    assert "not found" in call(reg, "read_file", path="missing/x").content


def test_structured_form_of_a_merged_result(three):
    roots = Roots([Workspace(root) for root in three])
    data = to_dict(roots.grep("TODO", limit=2))
    assert [line["path"] for line in data["lines"]] == ["web/README.md", "web/src/app.py"]
    assert data["next_offset"] == 2 and data["total_matches"] == 6
    jsonschema.validate(data, _core.GrepResult.SCHEMA)
    assert to_dict(roots.read_file("api/lib/more.py"))["path"] == "api/lib/more.py"


def test_roots_of_which_none_opened_answer_every_call_with_why(tmp_path):
    roots = Roots.open([tmp_path / "gone"], strict=False)
    assert roots.names == ()
    reg = default_registry(roots)
    for tool, arguments in [("grep", {"pattern": "x"}), ("read_file", {"path": "gone/a"})]:
        result = call(reg, tool, **arguments)
        assert result.meta["code"] == "not_found", result.content
        assert "No root is served." in result.content
        assert "gone" in result.content


@pytest.fixture
def callers(tmp_path: Path, make_tree) -> list[Path]:
    """Two roots named web and one named api, each calling `helper`; two of them define it."""
    web = make_tree(
        {"src/a.py": "def helper():\n    pass\n\n\nhelper()\nhelper()\n"},
        root=tmp_path / "a" / "web",
    )
    web2 = make_tree(
        {"src/a.py": "def run():\n    helper()\n\n\ndef walk():\n    helper()\n"},
        root=tmp_path / "b" / "web",
    )
    api = make_tree(
        {"lib/b.py": "from x import helper\n\n\ndef helper():\n    helper()\n"},
        root=tmp_path / "api",
    )
    return [web, web2, api]


@pytest.mark.parametrize("group_by", ["reference", "caller"])
def test_references_page_exactly_over_the_roots_in_order(callers, group_by):
    roots = Roots([Workspace(root) for root in callers])
    everything = []
    for name, ws in roots.workspaces.items():
        found = ws.references("helper", group_by=group_by, limit=None)
        entries = found.references if group_by == "reference" else found.callers
        everything += [(f"{name}/{e.path}", e.line) for e in entries]
    assert len({path.split("/")[0] for path, _ in everything}) == 3
    total = len(everything)
    for limit in (None, 1, 2, 3, total + 1):
        for offset in range(total + 2):
            result = roots.references("helper", group_by=group_by, limit=limit, offset=offset)
            entries = result.references if group_by == "reference" else result.callers
            expected = everything[offset : None if limit is None else offset + limit]
            assert [(e.path, e.line) for e in entries] == expected, (offset, limit)
            assert result.total == total
            assert result.withheld == max(0, total - offset - len(expected))
            assert result.next_offset == (offset + len(expected) if result.withheld else None)
            # The definitions are listed apart, from every root, whatever the page.
            assert [d.path for d in result.definitions] == ["web/src/a.py", "api/lib/b.py"]
            assert result.definitions_total == 2


def test_find_references_searches_every_root_unless_path_names_one(callers):
    reg = default_registry(callers)
    found = call(reg, "find_references", name="helper")
    assert found.is_error is False, found.content
    lines = found.content.splitlines()
    assert lines[0].startswith('6 references of "helper"'), lines[0]
    assert "all roles: 5 calls, 1 import" in lines[0]
    assert lines[1:7] == [
        "web/src/a.py:5:1 call — at top level: helper()",
        "web/src/a.py:6:1 call — at top level: helper()",
        "web-2/src/a.py:2:5 call — in function run: helper()",
        "web-2/src/a.py:6:5 call — in function walk: helper()",
        "api/lib/b.py:1:15 import — at top level: from x import helper",
        "api/lib/b.py:5:5 call — in function helper: helper()",
    ]
    assert lines[7:] == [
        '"helper" is defined in 2 places (references to all of them are listed together):',
        "  web/src/a.py:1 function helper",
        "  api/lib/b.py:4 function helper",
    ]
    data = to_dict(found.meta["engine_result"])
    assert data["totals"]["calls"] == 5 and data["totals"]["imports"] == 1
    jsonschema.validate(data, _core.ReferencesResult.SCHEMA)
    for path in {ref["path"] for ref in data["references"]}:
        assert call(reg, "read_file", path=path).meta["code"] == "ok"  # each path reads back
    only = call(reg, "find_references", name="helper", path="web-2")
    assert only.content.splitlines()[1:3] == [
        "web-2/src/a.py:2:5 call — in function run: helper()",
        "web-2/src/a.py:6:5 call — in function walk: helper()",
    ]
    assert 'No definition of "helper" in these files' in only.content


def test_the_roots_after_a_full_page_are_searched_at_the_same_time(three):
    import threading

    roots = Roots([Workspace(root) for root in three])
    first = roots.workspaces["web"]
    # The two roots after the page (limit=1, filled by the first root) meet at a barrier: run
    # one after the other, the first of them would wait there until the timeout breaks it.
    meet = threading.Barrier(2)
    asked = []

    def search(ws, inside, skip, room):
        asked.append((ws.root, skip, room))
        if ws is not first:
            meet.wait(timeout=30)
        return ws.glob("**/*", inside, room, skip)

    merged = roots._paged(
        None,
        0,
        1,
        search,
        lambda data: len(data["paths"]),
        lambda data: int(data["total"]),
        merge_glob,
        ("paths",),
    )
    assert merged.paths == ["web/README.md"] and merged.total == 7
    assert asked[0] == (first.root, 0, 1)
    assert sorted(room for _, _, room in asked[1:]) == [1, 1]  # for their totals only
    plain = roots.glob("**/*", limit=1)
    assert (plain.paths, plain.total, plain.next_offset) == (merged.paths, 7, 1)


def test_a_clocked_token_counts_the_budget_from_its_start(tmp_path, make_tree):
    import time

    from ripsight import CancelToken

    tree = make_tree({"a.txt": "needle\n"}, root=tmp_path / "t")
    ws = Workspace(tree, time_budget=0.2, index=False)
    token = CancelToken()
    clocked = token.start_clock()
    time.sleep(0.3)  # past the budget, counted from start_clock
    assert ws.grep("needle", cancel=clocked).incomplete is True
    assert ws.grep("needle", cancel=token).incomplete is False  # its own budget, from its start
    assert clocked.files_searched == token.files_searched  # one count, one flag
    token.cancel()
    assert clocked.cancelled is True


def test_the_roots_of_one_search_share_one_time_budget(tmp_path, make_tree):
    import time

    class SpendsTheBudget(Workspace):
        def grep(self, *args, **kwargs):
            found = super().grep(*args, **kwargs)
            time.sleep(0.4)  # after its own search: the budget is gone when it answers
            return found

    a = make_tree({"a.txt": "needle\n"}, root=tmp_path / "a")
    b = make_tree({"b.txt": "needle\n"}, root=tmp_path / "b")
    first = SpendsTheBudget(a, time_budget=0.3)
    second = Workspace(b, time_budget=0.3)
    assert first.grep("needle").incomplete is False
    assert second.grep("needle").incomplete is False
    merged = Roots([first, second]).grep("needle")
    # The second root, searched after the shared budget ran out, answers at once, marked
    # incomplete (alone, with its own budget, it finds its match).
    assert merged.incomplete is True
    assert merged.total_matches == 1


def test_find_calls_pages_exactly_over_the_roots_and_names_each_root(tmp_path: Path, make_tree):
    bodies = {
        "a/web": "def main():\n    load()\n    save()\n    load()\n",
        "b/web": "def main():\n    parse()\n",
        "api": "def main():\n    serve()\n    stop()\n",
    }
    roots = Roots(
        [
            Workspace(make_tree({"m.py": text}, root=tmp_path / where))
            for where, text in bodies.items()
        ]
    )
    everything = []
    for name, ws in roots.workspaces.items():
        everything += [(f"{name}/{c.path}", c.name, c.count) for c in ws.calls("main").calls]
    assert everything == [
        ("web/m.py", "load", 2),
        ("web/m.py", "save", 1),
        ("web-2/m.py", "parse", 1),
        ("api/m.py", "serve", 1),
        ("api/m.py", "stop", 1),
    ]
    for limit in (None, 1, 2, 4):
        for offset in range(len(everything) + 1):
            result = roots.calls("main", limit=limit, offset=offset)
            expected = everything[offset : None if limit is None else offset + limit]
            assert [(c.path, c.name, c.count) for c in result.calls] == expected, (offset, limit)
            assert result.total == 5 and result.calls_total == 6
            assert result.definitions_total == 3
    assert [d.definition.path for d in roots.calls("main").definitions] == [
        "web/m.py",
        "web-2/m.py",
        "api/m.py",
    ]
    registry = default_registry(roots)
    found = call(registry, "find_calls", name="main")
    assert found.is_error is False, found.content
    assert "web-2/m.py" in found.content and "api/m.py" in found.content
    only = call(registry, "find_calls", name="main", path="api")
    assert "serve" in only.content and "parse" not in only.content


def test_repo_map_maps_the_root_path_names_with_paths_from_that_root(tmp_path: Path, make_tree):
    core = "def load():\n    pass\n\n\ndef save():\n    pass\n"
    user = "from core import load, save\n\n\ndef run():\n    load()\n    save()\n"
    web = make_tree({"core.py": core, "app.py": user}, root=tmp_path / "web")
    api = make_tree({"api.py": "def serve():\n    pass\n"}, root=tmp_path / "api")
    roots = Roots([Workspace(web), Workspace(api)])
    alone = Workspace(web).repo_map()
    mapped = roots.repo_map("web", paths=["web/app.py"])
    assert [f.path for f in mapped.files] == [
        f"web/{f.path}" for f in Workspace(web).repo_map(paths=["app.py"]).files
    ]
    assert [f.path for f in roots.repo_map("web").files] == [f"web/{f.path}" for f in alone.files]
    assert roots.repo_map("web").files[0].path == "web/core.py"  # what the other file uses
    assert mapped.files[0].path == "web/app.py"  # the focus
    registry = default_registry(roots)
    found = call(registry, "repo_map", path="api")
    assert found.is_error is False, found.content
    assert "api/api.py" in found.content and "core.py" not in found.content
    refused = call(registry, "repo_map")
    assert refused.meta["code"] == "invalid_arguments", refused.content
    assert "pass path naming one, e.g. path='web'" in refused.content
