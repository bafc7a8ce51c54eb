"""`python/ripsight/_core.pyi` describes exactly what `ripsight._core` exports: mypy's stubtest
compares the stub with the built module (names, kinds, signatures, defaults, properties), and its
result classes are what scripts/gen_stub.py writes from the engine's `record!` declarations."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

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
