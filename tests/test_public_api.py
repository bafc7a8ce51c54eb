"""The public API, against the checked-in list `tests/public_api.txt`: a public name never
disappears without notice. A name removed or renamed first lives one release as a deprecated
alias that warns (`typing_extensions.deprecated`, or `warnings.deprecated` from Python 3.13;
CHANGELOG's "Deprecated" section), marked ``(deprecated)`` in the list.

The API is `ripsight.__all__` and `ripsight.tools.__all__`, the public members of every class
`ripsight` exports (those its own classes define), and the fields of every typed result (the
engine's records, ``FIELDS``). After adding a name, or once the release that deprecated one is
out and the alias goes, write the list again:

    python tests/test_public_api.py > tests/public_api.txt
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest
import ripsight
import ripsight.tools
from ripsight import _core

LISTED = Path(__file__).with_name("public_api.txt")
DEPRECATED = " (deprecated)"
UPDATE = "python tests/test_public_api.py > tests/public_api.txt"


def _is_deprecated(member: Any) -> bool:
    """Whether `member` (a function, class or property) carries PEP 702's ``__deprecated__``."""
    parts = [member]
    if isinstance(member, property):
        parts = [member.fget, member.fset]
    return any(getattr(part, "__deprecated__", None) for part in parts if part is not None)


def _members(cls: type) -> dict[str, Any]:
    """The public members `cls` and its ripsight bases define (not object's or Exception's),
    with the attributes their ``__init__`` sets (``self.session = ...``)."""
    found: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if not klass.__module__.startswith("ripsight"):
            continue
        try:
            source = textwrap.dedent(inspect.getsource(vars(klass)["__init__"]))
        except (KeyError, OSError, TypeError):  # none, or generated (a dataclass's)
            source = ""
        if source:
            for node in ast.walk(ast.parse(source)):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.ctx, ast.Store)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "self"
                    and not node.attr.startswith("_")
                ):
                    found[node.attr] = None
        found.update({k: v for k, v in vars(klass).items() if not k.startswith("_")})
    return found


def current_api() -> dict[str, bool]:
    """Every public name, dotted, and whether it is a deprecated alias."""
    api: dict[str, bool] = {}
    for module in (ripsight, ripsight.tools):
        for name in module.__all__:
            value = getattr(module, name)
            api[f"{module.__name__}.{name}"] = _is_deprecated(value)
            if isinstance(value, type) and module is ripsight:
                for member, found in _members(value).items():
                    api[f"ripsight.{name}.{member}"] = _is_deprecated(found)
    for name, value in sorted(vars(_core).items()):
        fields = getattr(value, "FIELDS", None)
        if isinstance(value, type) and fields is not None:
            for field in fields:
                api[f"result {name}.{field}"] = False
    return api


def render(api: dict[str, bool]) -> str:
    return "".join(f"{name}{DEPRECATED if api[name] else ''}\n" for name in sorted(api))


def listed_api() -> dict[str, bool]:
    lines = LISTED.read_text(encoding="utf-8").splitlines()
    return {line.removesuffix(DEPRECATED): line.endswith(DEPRECATED) for line in lines if line}


def test_no_public_name_disappears_without_a_deprecated_alias() -> None:
    current, listed = current_api(), listed_api()
    gone = sorted(set(listed) - set(current))
    assert not gone, (
        f"public names gone without a deprecated alias: {', '.join(gone)}. Keep each one "
        "release as an alias that warns (@deprecated, and CHANGELOG's Deprecated section); "
        f"once that release is out, remove it from the list: {UPDATE}"
    )


def test_every_public_name_is_listed() -> None:
    current, listed = current_api(), listed_api()
    new = sorted(set(current) - set(listed))
    assert not new, (
        f"public names not in tests/public_api.txt: {', '.join(new)}. Add them: {UPDATE}"
    )


def test_deprecated_aliases_are_marked_in_the_list() -> None:
    current, listed = current_api(), listed_api()
    differ = sorted(name for name in set(current) & set(listed) if current[name] != listed[name])
    assert not differ, f"deprecated in the code but not in the list, or back: {differ}. {UPDATE}"


def test_the_read_state_alias_warns_and_reaches_the_sessions_reads() -> None:
    registry = ripsight.Registry()
    with pytest.warns(DeprecationWarning, match=r"Registry\.session\.reads"):
        assert registry.read_state is registry.session.reads
    from ripsight.session import NoReadState

    off = NoReadState()
    with pytest.warns(DeprecationWarning, match="forget_between_calls"):
        registry.read_state = off
    assert registry.session.reads is off


def test_the_list_names_the_api_it_guards() -> None:
    """The list holds what this test reads, so a name dropped from it is a name caught."""
    listed = listed_api()
    assert "ripsight.Registry.execute" in listed and "ripsight.tools.builtin_tools" in listed
    assert listed["ripsight.Registry.read_state"] is True
    assert "result GrepResult.total_matches" in listed


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.stdout.write(render(current_api()))
