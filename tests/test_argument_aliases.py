"""Other agents' booleans (Gemini CLI's ``respect_git_ignore``, rg's ``-i``...) are read as the
argument of ours that means the same, in their sense: a negation gets the opposite value, and no
alias is ever a hint towards the argument of the opposite sense."""

from __future__ import annotations

from pathlib import Path

import pytest
from ripsight import default_registry
from ripsight.registry import Registry
from ripsight.tools import GLOB_SCHEMA, GREP_SCHEMA, READ_FILE_SCHEMA
from ripsight.types import ToolCall
from ripsight.validation import EXCLUDE_ALIASES, FLAG_ALIASES, check_arguments

#: What each alias set to true means, written out here (not read from `FLAG_ALIASES`): the
#: argument of ours and its value.
TRUE_MEANS: dict[str, tuple[str, bool]] = {
    # true: the ignore files apply, so ignored files are NOT searched
    "respect_gitignore": ("include_ignored", False),
    "respect_git_ignore": ("include_ignored", False),
    "respect_ignore": ("include_ignored", False),
    "respect_ignore_files": ("include_ignored", False),
    "use_gitignore": ("include_ignored", False),
    # true: ignored files are searched too
    "no_ignore": ("include_ignored", True),
    "include_gitignored": ("include_ignored", True),
    "unrestricted": ("include_ignored", True),
    "-u": ("include_ignored", True),
    # true: upper and lower case differ
    "case_sensitive": ("case_insensitive", False),
    "match_case": ("case_insensitive", False),
    "-s": ("case_insensitive", False),
    # true: case is ignored
    "ignore_case": ("case_insensitive", True),
    "insensitive": ("case_insensitive", True),
    "nocase": ("case_insensitive", True),
    "i": ("case_insensitive", True),
    "-i": ("case_insensitive", True),
    # true: the pattern is a regex
    "is_regex": ("literal", False),
    "use_regex": ("literal", False),
    # true: the pattern is plain text
    "fixed_strings": ("literal", True),
    "fixed_string": ("literal", True),
    "plain": ("literal", True),
    "F": ("literal", True),
    "-F": ("literal", True),
    # true: the lines that do not match
    "invert": ("invert_match", True),
    "inverted": ("invert_match", True),
    "negate": ("invert_match", True),
    "not_matching": ("invert_match", True),
    "v": ("invert_match", True),
    "-v": ("invert_match", True),
    # true: a match may span lines
    "multi_line": ("multiline", True),
    "dotall": ("multiline", True),
    "U": ("multiline", True),
    "-U": ("multiline", True),
}

#: A pattern whose files differ with each value of the argument, on `tree`.
PATTERNS = {
    "include_ignored": "needle",
    "case_insensitive": "needle",
    "literal": "n.edle",
    "invert_match": "needle",
    "multiline": "nee\\ndle",
}


def test_every_alias_has_its_sense_written_out() -> None:
    assert sorted(FLAG_ALIASES) == sorted(TRUE_MEANS)


@pytest.mark.parametrize("name", sorted(TRUE_MEANS))
@pytest.mark.parametrize("given", [True, False])
def test_each_alias_gives_the_value_it_means(name: str, given: bool) -> None:
    target, when_true = TRUE_MEANS[name]
    checked = check_arguments(GREP_SCHEMA, {"pattern": "x", name: given})
    assert checked.ok and not checked.ignored, checked
    assert checked.values[target] is (when_true if given else not when_true)
    [mapped] = checked.mapped
    assert (mapped.name, mapped.target) == (name, target)


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Registry:
    tree: Path = tmp_path_factory.mktemp("aliases")
    (tree / ".ignore").write_text("hidden.txt\n")
    (tree / "hidden.txt").write_text("needle\n")
    (tree / "upper.txt").write_text("NEEDLE\n")
    (tree / "plain.txt").write_text("needle\n")
    (tree / "other.txt").write_text("other\n")
    (tree / "split.txt").write_text("nee\ndle\n")
    return default_registry(tree)


def _files(registry: Registry, arguments: dict[str, object]) -> str:
    call = {"output_mode": "files_with_matches", **arguments}
    result = registry.execute(ToolCall("c", "grep", call))  # an error too (\n, multiline off)
    lines = result.content.splitlines()
    return "\n".join(line for line in lines if not line.startswith("Note: "))


@pytest.mark.parametrize("name", sorted(TRUE_MEANS))
def test_each_alias_searches_what_it_means(registry: Registry, name: str) -> None:
    # The files grep finds with the alias are those it finds with the value of ours the alias
    # means, and the two values of ours find different files on this tree.
    target, when_true = TRUE_MEANS[name]
    pattern = PATTERNS[target]
    ours = {value: _files(registry, {"pattern": pattern, target: value}) for value in (True, False)}
    assert ours[True] != ours[False]
    for given in (True, False):
        meant = when_true if given else not when_true
        assert _files(registry, {"pattern": pattern, name: given}) == ours[meant], (name, given)


def test_the_note_says_how_the_alias_was_read(registry: Registry) -> None:
    result = registry.execute(
        ToolCall("c", "grep", {"pattern": "needle", "respect_gitignore": True})
    )
    assert result.content.startswith(
        'Note: read "respect_gitignore": true as "include_ignored": false, which means the same.\n'
    )
    assert "did you mean" not in result.content
    assert result.meta["mapped_arguments"] == {"respect_gitignore": "include_ignored"}
    assert "hidden.txt" not in result.content


def test_names_match_in_any_spelling_but_rg_flags_exactly() -> None:
    for name in ("Respect-Git-Ignore", "respectGitIgnore", "CASE_SENSITIVE"):
        checked = check_arguments(GREP_SCHEMA, {"pattern": "x", name: True})
        assert checked.ok and len(checked.mapped) == 1, name
    # rg's -S is smart case, not -s: it is dropped, and named nothing it does not mean.
    checked = check_arguments(GREP_SCHEMA, {"pattern": "x", "-S": True})
    assert checked.values["case_insensitive"] is False and not checked.mapped


def test_a_value_that_is_not_a_boolean_is_refused_saying_what_means_the_same() -> None:
    checked = check_arguments(GREP_SCHEMA, {"pattern": "x", "respect_gitignore": "true"})
    assert checked.errors == [
        (
            '"respect_gitignore" is not an argument of this tool: "include_ignored": false '
            'means respect_gitignore=true, and "include_ignored": true means '
            "respect_gitignore=false."
        )
    ]


def test_an_alias_that_contradicts_our_argument_is_refused() -> None:
    for arguments in (
        {"pattern": "x", "case_sensitive": False, "case_insensitive": False},
        {"pattern": "x", "case_insensitive": False, "case_sensitive": False},
        {"pattern": "x", "ignore_case": True, "case_sensitive": True},
    ):
        checked = check_arguments(GREP_SCHEMA, arguments)
        assert len(checked.errors) == 1 and "send only" in checked.errors[0], arguments
    agreeing = check_arguments(
        GREP_SCHEMA, {"pattern": "x", "case_sensitive": True, "case_insensitive": False}
    )
    assert agreeing.ok and agreeing.values["case_insensitive"] is False


def test_an_alias_is_never_a_hint_of_another_argument() -> None:
    # read_file has no include_ignored: the alias is dropped without a "did you mean".
    checked = check_arguments(READ_FILE_SCHEMA, {"path": "a", "respect_gitignore": True})
    assert [(i.name, i.suggestion) for i in checked.ignored] == [("respect_gitignore", None)]
    # null counts as absent: dropped, not read as false.
    checked = check_arguments(GREP_SCHEMA, {"pattern": "x", "no_ignore": None})
    assert [(i.name, i.suggestion) for i in checked.ignored] == [("no_ignore", None)]
    assert checked.values["include_ignored"] is False


@pytest.mark.parametrize("name", EXCLUDE_ALIASES)
def test_exclude_leaves_out_what_it_names(registry: Registry, name: str) -> None:
    # A hint to "glob" would search only the files exclude names: the opposite.
    found = _files(registry, {"pattern": "needle|NEEDLE", name: "upper.txt"})
    assert found == _files(registry, {"pattern": "needle|NEEDLE", "glob": "!upper.txt"})
    assert found.splitlines()[1:] == ["plain.txt"]
    checked = check_arguments(GREP_SCHEMA, {"pattern": "x", "glob": "*.py", name: ["t_*", "b"]})
    assert checked.values["glob"] == ["*.py", "!t_*", "!b"]
    assert checked.mapped[0].sentence() == (
        f'read "{name}": ["t_*","b"] as "glob": ["!t_*","!b"], which means the same'
    )
    refused = check_arguments(GREP_SCHEMA, {"pattern": "x", name: 3})
    assert refused.errors and '"glob": "!*.md" leaves out' in refused.errors[0]
    # glob has no glob argument: dropped, with no hint.
    checked = check_arguments(GLOB_SCHEMA, {"pattern": "*", name: "a"})
    assert [(i.name, i.suggestion) for i in checked.ignored] == [(name, None)]


@pytest.mark.parametrize(
    "arguments",
    [
        {"pattern": "x", "glob": 5, "exclude": "a"},
        {"pattern": "x", "glob": {"a": 1}, "excludes": ["a"]},
        {"pattern": "x", "case_insensitive": "yes", "case_sensitive": True},
        {"pattern": "x", "include_ignored": [], "no_ignore": True, "respect_gitignore": 1},
    ],
)
def test_an_alias_beside_a_bad_argument_of_ours_is_one_clear_error(
    registry: Registry, arguments: dict[str, object]
) -> None:
    checked = check_arguments(GREP_SCHEMA, arguments)
    assert checked.errors and not checked.ok
    result = registry.execute(ToolCall("c", "grep", arguments))
    assert result.meta["code"] == "invalid_arguments", result.content
    assert registry.execute_many([ToolCall("c", "grep", arguments)])[0].is_error
