"""`python/ripsight/_core.pyi` describes exactly what `ripsight._core` exports: mypy's stubtest
compares the stub with the built module (names, kinds, signatures, defaults, properties), and the
whole stub is what scripts/gen_stub.py writes from the built module (its exports, classes,
signatures and docstrings, the engine's `record!` declarations) and the generator's table of the
Python types no reflection shows."""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

GENERATOR = Path(__file__).resolve().parent.parent / "scripts" / "gen_stub.py"


def test_the_stub_is_what_the_generator_writes() -> None:
    pytest.importorskip("ruff", reason="the generator formats with ruff (the [test] extra)")
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow  # stubtest builds and compares the whole extension: about 100 s
def test_stubtest_accepts_the_stub() -> None:
    pytest.importorskip("mypy", reason="stubtest comes with mypy (the [test] extra)")
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "ripsight._core"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_result_class_lists_its_fields_in_its_schema() -> None:
    from ripsight.workspace import RESULT_CLASSES

    # A bytes field (an image's `data`) is an attribute but stays out of to_dict() and the schema.
    bytes_fields = {"ImageResult": ["data"], "FileBytes": ["data"]}
    for cls in RESULT_CLASSES:
        assert cls.FIELDS, cls
        plain = [name for name in cls.FIELDS if name not in bytes_fields.get(cls.__name__, [])]
        assert list(cls.SCHEMA["properties"]) == plain
        assert cls.SCHEMA["required"] == plain
        for name in cls.FIELDS:
            assert inspect.isdatadescriptor(inspect.getattr_static(cls, name)), (cls, name)


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_stub", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _without(table: dict[str, object], key: str) -> dict[str, object]:
    return {name: value for name, value in table.items() if name != key}


@pytest.mark.parametrize(
    ("table", "change", "message"),
    [
        ("TYPES", lambda t: _without(t, "Engine.glob"), "Engine.glob has no type"),
        ("TYPES", lambda t: {**t, "Engine.gone": "int"}, "name nothing of the module: Engine.gone"),
        ("ERROR_ATTRIBUTES", lambda t: _without(t, "DeniedError"), "DeniedError: add its"),
    ],
)
def test_the_generator_stops_on_what_its_tables_do_not_match(
    monkeypatch: pytest.MonkeyPatch,
    table: str,
    change: Callable[[dict[str, object]], dict[str, object]],
    message: str,
) -> None:
    # A method without a type, an entry that names nothing, an error class without its
    # attributes: each stops the generator with the name to fix.
    generator = _generator()
    monkeypatch.setattr(generator, table, change(getattr(generator, table)))
    with pytest.raises(SystemExit, match=message):
        generator.generated()
