"""The error classes: one hierarchy, the fitting built-ins, and messages that say what to do."""

from __future__ import annotations

import concurrent.futures
import os
from pathlib import Path
from typing import Any

import pytest
import ripsight
from _trees import make_tree
from ripsight import (
    CancelledError,
    DeniedError,
    EngineError,
    InvalidArgumentError,
    IsADirectoryPathError,
    NotADirectoryPathError,
    OutsideRootError,
    PathNotFoundError,
    PatternError,
    RipsightError,
    SpecialFileError,
    ToolCall,
    UnreadableError,
    Workspace,
    default_registry,
    errors,
)
from ripsight.errors import model_text
from ripsight.limits import MAX_CONTEXT

BUILTIN = {
    PathNotFoundError: FileNotFoundError,
    OutsideRootError: PermissionError,
    DeniedError: PermissionError,
    IsADirectoryPathError: IsADirectoryError,
    NotADirectoryPathError: NotADirectoryError,
    SpecialFileError: OSError,
    PatternError: ValueError,
    InvalidArgumentError: ValueError,
    UnreadableError: PermissionError,
    CancelledError: concurrent.futures.CancelledError,
    EngineError: RuntimeError,
}


def test_every_public_error_is_covered_here() -> None:
    classes = [name for name in errors.__all__ if name != "model_text"]
    public = {getattr(errors, name) for name in classes} - {RipsightError}
    assert public == set(BUILTIN)
    assert set(classes) <= set(ripsight.__all__)


@pytest.mark.parametrize(("cls", "builtin"), list(BUILTIN.items()), ids=lambda c: c.__name__)
def test_each_error_is_a_ripsight_error_and_its_builtin(cls: type, builtin: type) -> None:
    assert issubclass(cls, RipsightError)
    assert issubclass(cls, builtin)
    error = cls("message")
    assert isinstance(error, Exception)
    assert str(error) == "message"


def test_kinds_are_distinct_short_names() -> None:
    kinds = [cls.kind for cls in BUILTIN]
    assert len(set(kinds)) == len(kinds)
    assert all(kind and kind.replace("_", "").isalpha() for kind in kinds)


# ---- raised by the engine, with messages that say what to do ---------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_tree(
        tmp_path / "repo",
        {
            "src/main.py": "print('hi')\n",
            ".env": "API_KEY=hunter2\n",
            "deploy/prod.key": "k\n",
        },
    )


def test_not_found_suggests_or_points_to_glob(repo: Path) -> None:
    ws = Workspace(repo)
    with pytest.raises(FileNotFoundError) as info:
        ws.read_file("src/mian.py")
    assert isinstance(info.value, PathNotFoundError)
    assert "Did you mean: src/main.py" in model_text(info.value)
    with pytest.raises(PathNotFoundError) as info:
        ws.read_file("nothing/like/it.zz")
    assert "glob" in model_text(info.value)


def test_outside_root_says_to_use_a_relative_path(repo: Path) -> None:
    with pytest.raises(PermissionError) as info:
        Workspace(repo).read_file("../elsewhere.txt")
    assert isinstance(info.value, OutsideRootError)
    assert "relative to the root" in model_text(info.value)


@pytest.mark.parametrize(("path", "rule"), [(".env", ".env"), ("deploy/prod.key", "*.key")])
def test_denied_names_the_policy_and_the_rule(repo: Path, path: str, rule: str) -> None:
    with pytest.raises(DeniedError) as info:
        Workspace(repo).read_file(path)
    message = model_text(info.value)
    assert "policy" in message
    assert f"'{rule}'" in message
    assert "hunter2" not in message
    assert "Do not try other ways" in message
    assert isinstance(info.value, PermissionError)


def test_custom_deny_rule_is_named(repo: Path) -> None:
    with pytest.raises(DeniedError) as info:
        Workspace(repo, deny=["src/**"]).read_file("src/main.py")
    assert "'src/**'" in str(info.value)


def test_directory_says_to_glob_it(repo: Path) -> None:
    with pytest.raises(IsADirectoryError) as info:
        Workspace(repo).read_file("src")
    assert 'path="src"' in model_text(info.value)
    assert "glob" in model_text(info.value)


def test_not_a_directory_root(repo: Path) -> None:
    with pytest.raises(NotADirectoryError) as info:
        Workspace(repo / "src" / "main.py")
    assert isinstance(info.value, NotADirectoryPathError)
    assert "directory" in str(info.value)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_special_file_says_why_it_is_not_opened(repo: Path) -> None:
    os.mkfifo(repo / "events")
    with pytest.raises(OSError) as info:
        Workspace(repo).read_file("events")
    assert isinstance(info.value, SpecialFileError)
    assert "FIFO" in str(info.value)
    assert "never opened" in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "phrase"),
    [
        ({"offset": 0}, "offset must be at least 1"),
        ({"offset": -3}, "offset must be at least 1"),
        ({"limit": 0}, "limit must be at least 1"),
        ({"offset": "5"}, "offset must be an integer"),
        ({"limit": 2.5}, "limit must be an integer"),
    ],
)
def test_invalid_arguments_are_value_errors(repo: Path, kwargs: dict, phrase: str) -> None:
    with pytest.raises(ValueError) as info:
        Workspace(repo).read_file("src/main.py", **kwargs)
    assert isinstance(info.value, InvalidArgumentError)
    assert phrase in str(info.value)


@pytest.mark.parametrize("index", [False, True])
@pytest.mark.parametrize("side", ["context", "before_context", "after_context"])
def test_context_beyond_its_maximum_is_refused_by_the_engine(
    repo: Path, side: str, index: bool
) -> None:
    ws = Workspace(repo, index=index)
    if index:
        assert ws.wait_index(timeout=30)
    assert ws.grep("print", **{side: MAX_CONTEXT}).total_matches == 1
    with pytest.raises(InvalidArgumentError) as info:
        ws.grep("print", **{side: MAX_CONTEXT + 1})
    assert f"at most {MAX_CONTEXT} are shown" in str(info.value)


def test_bad_deny_glob_is_a_pattern_error(repo: Path) -> None:
    with pytest.raises(ValueError) as info:
        Workspace(repo, deny=["secrets/[unclosed"])
    assert isinstance(info.value, PatternError)
    assert "glob syntax" in model_text(info.value)


def test_bad_regex_is_a_pattern_error(repo: Path) -> None:
    with pytest.raises(PatternError) as info:
        Workspace(repo).grep("fn (main")
    assert isinstance(info.value, ValueError)


def test_bad_truncation_ratio_is_an_invalid_argument() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        ripsight.truncate_middle("x" * 100, 10, 1.5)
    assert "head_ratio" in str(info.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(repo: Path) -> None:
    locked = repo / "locked.txt"
    locked.write_text("x\n")
    locked.chmod(0)
    try:
        with pytest.raises(PermissionError) as info:
            Workspace(repo).read_file("locked.txt")
        assert isinstance(info.value, UnreadableError)
        assert "permission" in str(info.value)
    finally:
        locked.chmod(0o644)


def test_missing_root(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as info:
        Workspace(tmp_path / "no_such_repo")
    assert isinstance(info.value, RipsightError)


def test_a_cancelled_token_raises_cancelled_error_in_every_method(repo: Path) -> None:
    ws = Workspace(repo)
    token = ripsight.CancelToken()
    assert token.cancelled is False
    token.cancel()
    assert token.cancelled is True
    for call in (
        lambda: ws.glob("**/*", cancel=token),
        lambda: ws.grep("print", cancel=token),
        lambda: ws.read_file("src/main.py", cancel=token),
    ):
        with pytest.raises(CancelledError):
            call()
    # A fresh token, or none, leaves calls alone.
    assert ws.grep("print", cancel=ripsight.CancelToken()).total_matches == 1
    assert ws.grep("print").total_matches == 1


def test_a_token_cancelled_from_another_thread_stops_its_calls(tmp_path: Path) -> None:
    import threading
    import time

    # Many files: the walk checks the token per entry. Without the token the search runs long.
    for i in range(300):
        (tmp_path / f"f{i:03}.txt").write_text("abc\n" * 2000)
    ws = Workspace(tmp_path, threads=1, time_budget=600)
    token = ripsight.CancelToken()
    timer = threading.Timer(0.05, token.cancel)
    timer.start()
    started = time.monotonic()
    try:
        with pytest.raises(CancelledError):
            while True:  # repeat until the cancel lands during a call
                ws.grep(r"\b\w+\b\d", cancel=token)
    finally:
        timer.cancel()
    assert time.monotonic() - started < 5


def test_a_token_counts_the_files_its_searches_searched(tmp_path: Path) -> None:
    # What a progress report reads while the search runs: the engine's count, on the token.
    for i in range(30):
        (tmp_path / f"f{i:02}.txt").write_text("abc\n" if i % 3 else "needle\n")
    ws = Workspace(tmp_path)
    token = ripsight.CancelToken()
    assert token.files_searched == 0
    found = ws.grep("needle", cancel=token)
    assert found.files_searched == 30 and token.files_searched == 30
    ws.grep("abc", output_mode="files_without_match", cancel=token)
    assert token.files_searched == 60  # the calls made with one token add up


def test_engine_messages_state_facts_and_model_text_adds_the_advice(repo: Path) -> None:
    ws = Workspace(repo)
    with pytest.raises(PathNotFoundError) as info:
        ws.read_file("src/mian.py")
    assert str(info.value) == "src/mian.py does not exist. Similar paths: src/main.py."
    assert (info.value.path, info.value.suggestions) == ("src/mian.py", ["src/main.py"])
    assert model_text(info.value) == "src/mian.py does not exist. Did you mean: src/main.py?"
    with pytest.raises(PatternError) as info:
        ws.grep("fn (main")
    assert (info.value.pattern, info.value.issue) == ("fn (main", "regex")
    assert "literal=true" not in str(info.value)
    assert model_text(info.value).startswith(str(info.value) + "\nThe pattern is a Rust regex")
    # An error made by hand (no engine facts attached) is shown as its message.
    assert model_text(PathNotFoundError("x is gone.")) == "x is gone."


def test_a_huge_pattern_is_not_echoed_whole(repo: Path) -> None:
    with pytest.raises(PatternError) as info:
        Workspace(repo).grep("(" * 5000)
    message = str(info.value)
    assert max(line.count("(") for line in message.splitlines()) <= 201, message
    assert len(message) < 2000


@pytest.mark.parametrize(
    ("issue", "call", "advice"),
    [
        ("regex", lambda ws: ws.grep("a(b"), "literal=true"),
        ("line_break", lambda ws: ws.grep("a\\nb"), "multiline=true"),
        ("glob", lambda ws: ws.glob("src/[ab"), "Glob syntax"),
        ("empty_pattern", lambda ws: ws.glob(""), "`**/*`"),
        ("empty_glob", lambda ws: ws.grep("x", glob="!"), "leave glob out"),
        ("absolute_glob", lambda ws: ws.glob("/etc/*"), "relative to `path`"),
        ("parent_glob", lambda ws: ws.glob("../*"), "pass it as `path`"),
        ("deny_rule", lambda ws: Workspace(ws.root, deny=["[x"]), "glob syntax"),
    ],
)
def test_every_pattern_issue_gets_its_advice(
    repo: Path, issue: str, call: Any, advice: str
) -> None:
    with pytest.raises(PatternError) as info:
        call(Workspace(repo))
    assert info.value.issue == issue
    assert advice not in str(info.value)
    assert advice in model_text(info.value)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_os_errors_state_the_fact_and_model_text_says_what_to_do(tmp_path: Path) -> None:
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    ws = Workspace(tmp_path)
    with pytest.raises(InvalidArgumentError) as too_long:
        ws.read_file("x" * 300)
    with pytest.raises(UnreadableError) as loop:
        ws.read_file("a")
    for info, reason, advice in (
        (too_long, "path_too_long", "Use a shorter path"),
        (loop, "link_loop", "real path"),
    ):
        assert info.value.reason == reason
        assert advice not in str(info.value)
        assert model_text(info.value).startswith(str(info.value))
        assert advice in model_text(info.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda ws: ws.grep("x", limit=2**70),
        lambda ws: ws.grep("x", offset=2**64),
        lambda ws: ws.grep("x", context=2**100),
        lambda ws: ws.glob("*", offset=2**80),
        lambda ws: ws.read_file("src/main.py", offset=2**64),
        lambda ws: ws.read_file("src/main.py", limit=10**400),
    ],
)
def test_an_integer_beyond_64_bits_is_an_invalid_argument(repo: Path, call: Any) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        call(Workspace(repo))
    assert "must be at most 18446744073709551615 (64 bits)" in str(info.value)
    assert len(str(info.value)) < 200


def test_a_pattern_with_a_lone_surrogate_is_invalid_arguments(repo: Path) -> None:
    ws = Workspace(repo)
    with pytest.raises(InvalidArgumentError) as info:
        ws.grep("a\ud800b")
    assert str(info.value) == (
        "pattern holds a lone surrogate (U+D800) at character 2; it must be valid Unicode text"
    )
    with pytest.raises(InvalidArgumentError):
        ws.glob("\udfff*.py")
    with pytest.raises(InvalidArgumentError):
        ws.grep("x", glob="*.\udc80")
    reg = default_registry(repo)
    for name, arguments in [
        ("grep", {"pattern": "a\ud800"}),
        ("grep", {"pattern": "x", "glob": "\udc80*"}),
        ("glob", {"pattern": "\ud83d*.py"}),
    ]:
        result = reg.execute(ToolCall("c", name, arguments))
        assert result.is_error
        assert result.meta["code"] == "invalid_arguments", result.content
        assert "lone surrogate" in result.content and "internal" not in result.content


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [("ab" * 2_000_000, True), (r"\w{1000}{1000}", False)],
)
def test_a_pattern_too_large_to_compile_says_so(repo: Path, pattern: str, literal: bool) -> None:
    with pytest.raises(PatternError) as info:
        Workspace(repo).grep(pattern, literal=literal)
    assert info.value.issue == "too_large"
    text = model_text(info.value)
    assert "too large to compile" in text
    assert "literal=true" not in text
    assert len(text) < 1000
    result = default_registry(repo).execute(
        ToolCall("c", "grep", {"pattern": pattern, "literal": literal})
    )
    assert result.meta["code"] == "invalid_pattern"
    assert result.content == text, result.content[:500]
