"""The typed API's options cross into the engine once, checked strictly there: a boolean option
takes a ``bool`` and nothing else (``"false"`` is not false), an integer option an ``int`` (not a
``bool``, not a float). Every boolean and every integer option of every `Workspace` method is
tried, found from the signatures, so a new option is tested without being listed here. The
defaults the signatures show are the engine's own (``KEYWORDS``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import ripsight._core as core
from ripsight import Workspace
from ripsight.errors import InvalidArgumentError

#: The methods with options, and the positional arguments each needs besides them.
METHODS: dict[str, tuple[Any, ...]] = {
    "__init__": (),
    "glob": ("*",),
    "grep": ("needle",),
    "read_file": ("a.py",),
    "outline": ("a.py",),
    "definitions": ("f",),
    "read_image": ("a.py",),
    "read_notebook": ("a.py",),
    "read_notebook_images": ("a.py",),
    "read_bytes": ("a.py",),
    "read_pdf": ("a.pdf",),
}

#: Arguments that are the call's subject, not an option.
SUBJECTS = {"pattern", "name", "path", "root"}

#: Integer arguments a method needs, tried as options too.
NEEDED: dict[str, dict[str, int]] = {"read_notebook_images": {"cell": 1}}


def options(annotation: str) -> list[tuple[str, str]]:
    """(method, option) of every option annotated `annotation` (with or without `| None`)."""
    found = []
    for method in METHODS:
        signature = inspect.signature(getattr(Workspace, method))
        for name, parameter in signature.parameters.items():
            if name in SUBJECTS:
                continue
            if parameter.annotation in (annotation, f"{annotation} | None"):
                found.append((method, name))
    return found


BOOLEANS = options("bool")
INTEGERS = options("int")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("typed")
    (root / "a.py").write_text("def f():\n    return 'needle'\n")
    return root


def calling(root: Path, method: str, option: str, value: object) -> Callable[[], object]:
    """A call of `method` with `option=value` and whatever else it needs."""
    if method == "__init__":
        return lambda: Workspace(root, **{option: value})
    bound = getattr(Workspace(root), method)
    return lambda: bound(*METHODS[method], **{**NEEDED.get(method, {}), option: value})


def test_the_signatures_have_options_of_both_kinds() -> None:
    assert ("grep", "include_ignored") in BOOLEANS
    assert ("__init__", "respect_ignore_files") in BOOLEANS
    assert ("__init__", "index_build") in BOOLEANS
    assert ("read_notebook_images", "max_image_bytes") in INTEGERS
    assert ("read_pdf", "budget") in INTEGERS
    assert ("read_notebook_images", "cell") in INTEGERS
    assert (len(BOOLEANS), len(INTEGERS)) == (10, 38)


@pytest.mark.parametrize("value", ["false", 1, 0, None, 1.0])
@pytest.mark.parametrize(("method", "option"), BOOLEANS)
def test_a_boolean_option_takes_only_a_bool(
    root: Path, method: str, option: str, value: object
) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        calling(root, method, option, value)()
    assert str(info.value) == (
        f"{option} must be a boolean (True or False), got {type(value).__name__} {value!r}"
    )


@pytest.mark.parametrize("value", ["5", 2.5, True, b"5"])
@pytest.mark.parametrize(("method", "option"), INTEGERS)
def test_an_integer_option_takes_only_an_int(
    root: Path, method: str, option: str, value: object
) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        calling(root, method, option, value)()
    assert str(info.value) == (f"{option} must be an integer, got {type(value).__name__} {value!r}")


@pytest.mark.parametrize(
    ("method", "option"),
    # read_pdf's budget stays in Python, where a budget below one page's means one page.
    [one for one in INTEGERS if one != ("read_pdf", "budget")],
)
def test_an_integer_option_refuses_a_negative_number(root: Path, method: str, option: str) -> None:
    with pytest.raises(InvalidArgumentError, match=rf"^{option} must be at least \d+, got -1$"):
        calling(root, method, option, -1)()


def test_include_ignored_false_is_not_a_string(root: Path) -> None:
    (root / ".ignore").write_text("hidden.py\n")
    (root / "hidden.py").write_text("needle\n")
    ws = Workspace(root)
    assert ws.grep("needle", include_ignored=False).total_files == 1
    assert ws.grep("needle", include_ignored=True).total_files == 2
    with pytest.raises(InvalidArgumentError, match="include_ignored must be a boolean"):
        ws.grep("needle", include_ignored="false")  # type: ignore[arg-type]


def test_the_signature_defaults_are_the_engines() -> None:
    grep = core.KEYWORDS["grep"]
    signature = inspect.signature(Workspace.grep).parameters
    assert grep["include_ignored"] == ("bool", False)
    for name in ["literal", "case_insensitive", "context", "multiline", "output_mode", "offset"]:
        assert signature[name].default == grep[name][1], name
    engine = core.KEYWORDS["Engine"]
    signature = inspect.signature(Workspace.__init__).parameters
    for name in ["threads", "respect_ignore_files", "index", "persist"]:
        assert signature[name].default == engine[name][1], name


def test_an_unknown_keyword_reaches_no_engine_call(root: Path) -> None:
    engine = core.Engine(str(root))
    with pytest.raises(TypeError, match="grep\\(\\) got an unexpected keyword argument 'nope'"):
        engine.grep("needle", nope=1)
