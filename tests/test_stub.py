"""`python/ripsight/_core.pyi` names exactly what `ripsight._core` exports (parsed with ast)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import ripsight
from ripsight import _core

STUB = Path(ripsight.__file__).with_name("_core.pyi")


def _stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text(encoding="utf-8"), filename=str(STUB))


def _stub_top_level() -> dict[str, ast.AST]:
    names: dict[str, ast.AST] = {}
    for node in _stub_tree().body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = node
    return names


def _public(names: list[str]) -> set[str]:
    return {n for n in names if not n.startswith("_")}


def _runtime_top_level() -> set[str]:
    return _public(dir(_core)) | {"__version__"}


def _stub_classes() -> dict[str, ast.ClassDef]:
    return {n: node for n, node in _stub_top_level().items() if isinstance(node, ast.ClassDef)}


def test_stub_parses_and_is_not_empty() -> None:
    assert _stub_classes()


def test_top_level_names_match() -> None:
    stub = {n for n in _stub_top_level() if not n.startswith("_") or n == "__version__"}
    assert stub == _runtime_top_level()


def test_classes_and_functions_have_the_right_kind() -> None:
    for name, node in _stub_top_level().items():
        if name.startswith("_"):
            continue
        runtime = getattr(_core, name)
        if isinstance(node, ast.ClassDef):
            assert inspect.isclass(runtime), name
        elif isinstance(node, ast.FunctionDef):
            assert callable(runtime) and not inspect.isclass(runtime), name


@pytest.mark.parametrize("name", sorted(_stub_classes()))
def test_class_members_match(name: str) -> None:
    node = _stub_classes()[name]
    stub_members = _public([
        item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]) | _public([
        item.target.id for item in node.body
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
    ])
    runtime_members = _public(dir(getattr(_core, name)))
    assert stub_members == runtime_members, (
        f"{name}: only in the stub {sorted(stub_members - runtime_members)}, "
        f"only at runtime {sorted(runtime_members - stub_members)}"
    )


@pytest.mark.parametrize("name", sorted(_stub_classes()))
def test_properties_are_properties(name: str) -> None:
    """A member declared with @property in the stub is a data descriptor at runtime, and back."""
    node = _stub_classes()[name]
    cls = getattr(_core, name)
    for item in node.body:
        if not isinstance(item, ast.FunctionDef) or item.name.startswith("_"):
            continue
        is_property = any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list)
        attribute = inspect.getattr_static(cls, item.name)
        assert is_property == inspect.isdatadescriptor(attribute), f"{name}.{item.name}"


def test_result_fields_used_by_to_dict_exist() -> None:
    from ripsight.workspace import _FIELDS

    classes = _stub_classes()
    for cls_name, fields in _FIELDS.items():
        assert cls_name in classes, cls_name
        members = _public(dir(getattr(_core, cls_name)))
        assert set(fields) <= members, (cls_name, set(fields) - members)
