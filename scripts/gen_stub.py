#!/usr/bin/env python3
"""Writes ``python/ripsight/_core.pyi``, the type stubs of the Rust extension, whole, from the
built module itself.

The module says what it exports (``__all__``), each class with its bases, methods, properties and
docstrings, each function's and method's text signature (names, kinds and defaults of its
parameters), each error class's ``kind``, and the value of each constant (whose type is read from
it). Each result class exposes what the engine's ``record!`` declaration says of it: ``FIELDS``
(the names, in order), ``SCHEMA`` (each field's JSON type and the description from its doc
comment) and the class docstring, so no field is typed by hand. A nested record is recognised by
its schema; a bytes field (in ``FIELDS``, left out of ``SCHEMA``) is ``bytes``. Each engine call's
keyword arguments become a ``TypedDict`` (``_GrepOptions``...) from ``KEYWORDS``, which the
binding declares with their one check: ``Engine.grep(..., **options: Unpack[_GrepOptions])``.

What no reflection of a built module shows is declared here, in the tables below: the Python
types of parameters, return values and properties (``TYPES``), the attributes an error instance
carries (``ERROR_ATTRIBUTES``) and the comments of the constants (``NOTES``). The generator stops
on a name it meets without a type, and on an entry that names nothing of the module.

    python scripts/gen_stub.py           # rewrites the stub
    python scripts/gen_stub.py --check   # exits 1 when the stub differs from what it makes

tests/test_stub.py runs the check; stubtest (``python -m mypy.stubtest ripsight._core``) proves
the whole stub against the built module. The output goes through ``ruff format``.
"""

from __future__ import annotations

import argparse
import difflib
import inspect
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import ripsight._core as core

STUB = Path(__file__).resolve().parent.parent / "python" / "ripsight" / "_core.pyi"

HEADER = '''"""Type stubs of the Rust extension `ripsight._core`, written whole by scripts/gen_stub.py
from the built module (do not edit: run the script); `python -m mypy.stubtest ripsight._core`
checks them against it (tests/test_stub.py runs both).

The result classes are the engine's own structs (declared once, in Rust). Each has its fields
as read-only properties, ``FIELDS`` (their names in order), ``SCHEMA`` (the JSON Schema of
``to_dict()``, descriptions included), equality and a repr.
"""

import concurrent.futures
import os
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Literal, TypedDict, final

from typing_extensions import Unpack
'''

#: The Python types no reflection of the module shows. ``Owner.member`` (or a function's name)
#: is the type of a property, or what a method or function returns; ``Owner.member.param`` the
#: type of one parameter; a bare parameter name types that parameter wherever it has no entry of
#: its own. ``**options`` is typed from ``KEYWORDS`` (``Unpack[_GrepOptions]``).
TYPES: dict[str, str] = {
    # Parameters.
    "path": "str | os.PathLike[str]",
    "name": "str",
    "cell": "int",
    "cancel": "CancelToken | None",
    "Engine.__new__.root": "str",
    "Engine.__new__.outline_worker": "list[str] | None",
    "Engine.__new__.pdf_worker": "list[str] | None",
    "Engine.glob.pattern": "str | Sequence[str]",
    "Engine.grep.pattern": "str",
    "Engine.wait_index.timeout": "float | None",
    "Engine._outline_fault.fault": "str",
    "PathRules.__new__.globs": "list[str]",
    "PathRules.covering.path": "str",
    "dir": "str | None",
    "max_age_seconds": "float | None",
    "max_bytes": "int | None",
    "truncate_middle.text": "str",
    "truncate_middle.max_chars": "int | None",
    "truncate_middle.head_ratio": "float | None",
    # Properties and what methods and functions return.
    "CancelToken.cancel": "None",
    "CancelToken.cancelled": "bool",
    "CancelToken.files_searched": "int",
    "CancelToken.start_clock": "CancelToken",
    "PathRules.covering": "str | None",
    "Engine.outline_workers_started": "int",
    "Engine.pdf_workers_started": "int",
    "Engine.root": "str",
    "Engine.revision": "int | None",
    "Engine.index_status": "IndexStatus | None",
    "Engine.wait_index": "bool",
    "Engine.close": "None",
    "Engine.glob": "GlobResult",
    "Engine.grep": "GrepResult",
    "Engine.identify": "FileIdentity",
    "Engine.read_file": "ReadResult",
    "Engine.read_image": "ImageResult",
    "Engine.read_notebook": "NotebookResult",
    "Engine.read_notebook_images": "NotebookImages",
    "Engine.read_bytes": "FileBytes",
    "Engine.read_pdf": "PdfRead",
    "Engine.outline": "OutlineResult",
    "Engine.definitions": "DefinitionsResult",
    "Engine.references": "ReferencesResult",
    "Engine.calls": "CallsResult",
    "Engine.repo_map": "RepoMapResult",
    "Engine.clear_outline_cache": "None",
    "Engine._outline_fault": "str",
    "Engine._close_idle_workers": "None",
    "serve_outline_worker": "int",
    "index_dir": "str | None",
    "index_files": "list[IndexFile]",
    "prune_index_files": "list[IndexFile]",
    "truncate_middle": "tuple[str, int, int]",
    # A constant whose type its value would tell too narrowly (each keyword's default is of
    # that keyword's own type).
    "KEYWORDS": "dict[str, dict[str, tuple[str, Any]]]",
}

#: The attributes an engine error sets on the instance it raises (rust_core/src/python/errors.rs
#: `From<CoreError>`), by class; a class has its bases' too.
ERROR_ATTRIBUTES: dict[str, dict[str, str]] = {
    "RipsightError": {"reason": "str"},
    "PathNotFoundError": {"path": "str", "suggestions": "list[str]"},
    "OutsideRootError": {"path": "str"},
    "DeniedError": {"path": "str", "rule": "str"},
    "IsADirectoryPathError": {"path": "str"},
    "NotADirectoryPathError": {"path": "str"},
    "SpecialFileError": {"path": "str", "file_kind": "str"},
    "PatternError": {"pattern": "str", "issue": "str", "detail": "str"},
    "InvalidArgumentError": {},
    "UnreadableError": {"path": "str"},
    "CancelledError": {},
    "EngineError": {"path": "str"},
}

#: The comment above a constant or an error attribute (a value has no docstring).
NOTES: dict[str, str] = {
    "LIMITS": "Every default and bound of the tools' parameters, by name (SPEC section 5).",
    "SYMBOL_KINDS": "The kinds of definitions an outline names (class, function, method, ...).",
    "REFERENCE_ROLES": "The roles of a reference (call, import, type, write, read, other).",
    "REFERENCE_GROUPINGS": "How a references result lists what it found (reference, caller).",
    "OUTLINE_LANGUAGES": "The languages with a parser (python, javascript, ...).",
    "FILE_TYPES": "ripgrep's built-in file types (grep's and glob's ``type``): name -> the globs "
    "of its files.",
    "KEYWORDS": "Every keyword argument of the engine's calls: call name -> keyword -> (the "
    "Python type it takes, its default). Each is declared once, in the binding, with its one "
    "check.",
    "RipsightError.reason": 'The engine\'s name of what went wrong ("not_found", '
    '"path_too_long", "link_loop"...).',
}


class Missing(SystemExit):
    """The module has something the tables above do not type."""


class Tables:
    """The tables above, with a record of the entries used (an unused one is stale)."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def type_of(self, *keys: str) -> str:
        """The type of the first of `keys` that has one."""
        for key in keys:
            if key in TYPES:
                self.used.add(key)
                return TYPES[key]
        raise Missing(f"{keys[0]} has no type: add it to TYPES in {Path(__file__).name}")

    def note(self, key: str) -> list[str]:
        """The comment lines of `key`, if it has a note."""
        if key not in NOTES:
            return []
        self.used.add(key)
        return textwrap.wrap(NOTES[key], width=97, initial_indent="#: ", subsequent_indent="#: ")

    def check_all_used(self) -> None:
        stale = sorted((set(TYPES) | set(NOTES)) - self.used)
        if stale:
            raise Missing(f"entries that name nothing of the module: {', '.join(stale)}")


def export_order(name: str) -> tuple[int, str]:
    """``__all__``'s order, as ruff sorts it: constants, then classes, then the rest."""
    if name.isupper():
        return 0, name
    if name[:1].isupper():
        return 1, name
    return 2, name


def value_type(value: object) -> str:
    """The type of a constant, read from its value."""
    if isinstance(value, (bool, int, float, str)):
        return type(value).__name__
    if isinstance(value, list):
        return f"list[{union(value_type(item) for item in value)}]"
    if isinstance(value, tuple):
        return f"tuple[{', '.join(value_type(item) for item in value)}]"
    if isinstance(value, dict):
        keys = union(value_type(key) for key in value)
        return f"dict[{keys}, {union(value_type(item) for item in value.values())}]"
    if value is None:
        return "None"
    raise Missing(f"no type for a constant of type {type(value).__name__}: add it to TYPES")


def union(types: Any) -> str:
    """The union of `types`, each once, in the order met."""
    return " | ".join(dict.fromkeys(types)) or "Any"


def constants_stub(tables: Tables) -> list[str]:
    """The module's constants (its exports that are neither classes nor functions)."""
    out = []
    for name in sorted(core.__all__, key=lambda name: (name != "__version__", name)):
        value = getattr(core, name)
        if isinstance(value, type) or callable(value):
            continue
        kind = tables.type_of(name) if name in TYPES else value_type(value)
        out += [*tables.note(name), f"{name}: {kind}"]
    return [*out, ""]


def base_name(base: type) -> str:
    """How the stub names a base class: a built-in by its name, another by its public path."""
    if base.__module__ == "builtins" or base.__module__ == core.__name__:
        return base.__name__
    parts = base.__module__.split(".")
    for end in range(1, len(parts) + 1):  # the shortest path that names it (not `_base`)
        module = sys.modules.get(".".join(parts[:end]))
        if module is not None and getattr(module, base.__name__, None) is base:
            return f"{module.__name__}.{base.__name__}"
    raise Missing(f"no public name for the base class {base.__module__}.{base.__qualname__}")


def error_classes() -> list[type]:
    """The module's exception classes, the base first, then by name."""
    found = [getattr(core, name) for name in core.__all__]
    errors = [cls for cls in found if isinstance(cls, type) and issubclass(cls, BaseException)]
    return sorted(errors, key=lambda cls: (cls is not core.RipsightError, cls.__name__))


def error_stub(cls: type, tables: Tables) -> list[str]:
    """The stub of one exception class: its bases, docstring, class attributes and the
    attributes its instances carry."""
    name = cls.__name__
    if name not in ERROR_ATTRIBUTES:
        raise Missing(f"{name}: add its instance attributes to ERROR_ATTRIBUTES")
    bases = ", ".join(base_name(base) for base in cls.__bases__)
    out = [f"class {name}({bases}):"]
    out += docstring(" ".join((cls.__doc__ or name).split()), 4)
    inherited = {attr for base in cls.__bases__ for attr in vars(base)}
    for attr, value in vars(cls).items():
        if attr.startswith("_") or attr in inherited:
            continue
        out += [f"    {attr}: ClassVar[{value_type(value)}]"]
    for attr, kind in ERROR_ATTRIBUTES[name].items():
        out += ["    " + line for line in tables.note(f"{name}.{attr}")]
        out += [f"    {attr}: {kind}"]
    return [*out, ""]


def default_text(value: object) -> str:
    """A parameter's default as the stub writes it."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    return "..."


def signature_text(owner: str, call: str, signature: inspect.Signature, tables: Tables) -> str:
    """The parameters of `owner` (``Engine.glob``, ``index_files``), typed; `call` names its
    ``KEYWORDS`` entry (the type of ``**options``)."""
    parts: list[str] = []
    params = list(signature.parameters.values())
    first = params[0].name if params else ""
    method = first in ("self", "cls")
    positional_only = [p for p in params if p.kind is p.POSITIONAL_ONLY]
    star = False
    for index, param in enumerate(params):
        if param.kind is param.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if param.kind is param.VAR_KEYWORD:
            if call not in core.KEYWORDS:
                raise Missing(f"{owner} takes **{param.name} but KEYWORDS has no {call!r}")
            parts.append(f"**{param.name}: Unpack[{options_name(call)}]")
            continue
        if param.kind is param.VAR_POSITIONAL:
            raise Missing(f"{owner} takes *{param.name}: the generator does not write that")
        text = param.name
        if not (method and index == 0):
            text += ": " + tables.type_of(f"{owner}.{param.name}", param.name)
        if param.default is not param.empty:
            text += " = " + default_text(param.default)
        parts.append(text)
        ends_positional = positional_only and param is positional_only[-1]
        if ends_positional and not (method and len(positional_only) == 1):
            parts.append("/")
    return ", ".join(parts)


def function_stub(owner: str, call: str, function: Any, tables: Tables, indent: int) -> list[str]:
    """One function or method, with its docstring (or ``...`` without one)."""
    pad = " " * indent
    name = owner.rsplit(".", 1)[-1]
    signature = inspect.signature(function)
    params = signature_text(owner, call, signature, tables)
    returns = tables.type_of(owner)
    out = [f"{pad}def {name}({params}) -> {returns}:"]
    doc = " ".join((function.__doc__ or "").split())
    if not doc:
        return [out[0] + " ..."]
    return out + docstring(doc, indent + 4)


def class_stub(cls: type, tables: Tables) -> list[str]:
    """One class of the module that is neither a result nor an error: its constructor (from
    the class's text signature), its properties, then its methods (public first), by name."""
    name = cls.__name__
    out = ["@final", f"class {name}:"]
    out += docstring(" ".join((cls.__doc__ or name).split()), 4)
    out += [""]
    signature = inspect.signature(cls)
    params = signature_text(f"{name}.__new__", name, signature, tables)
    out += [f"    def __new__(cls{', ' if params else ''}{params}) -> {name}: ..."]
    members = {a: m for a, m in vars(cls).items() if not a.startswith("__")}
    properties = sorted(a for a, m in members.items() if inspect.isgetsetdescriptor(m))
    methods = sorted((a for a in members if a not in properties), key=lambda a: (a[:1] == "_", a))
    for attr in properties:
        out += ["    @property", f"    def {attr}(self) -> {tables.type_of(f'{name}.{attr}')}:"]
        doc = " ".join((members[attr].__doc__ or "").split())
        out[-1] += "" if doc else " ..."
        out += docstring(doc, 8) if doc else []
    for attr in methods:
        if not callable(members[attr]):
            raise Missing(f"{name}.{attr} is neither a property nor a method")
        out += function_stub(f"{name}.{attr}", attr, members[attr], tables, 4)
    return [*out, ""]


#: Attributes of a result class beyond its fields (what its `record_methods!` adds), with their
#: type; their docstrings come from the module. A new one fails the generator until listed.
EXTRAS: dict[tuple[str, str], str] = {("GrepResult", "matches"): "list[GrepLine]"}

#: Attributes every result class has besides its fields.
COMMON = {"FIELDS", "SCHEMA", "to_dict"}


def record_classes() -> list[type]:
    """Every class of the module declared with `record!`, by name."""
    found = [getattr(core, name) for name in dir(core)]
    return sorted(
        (cls for cls in found if isinstance(cls, type) and hasattr(cls, "FIELDS")),
        key=lambda cls: cls.__name__,
    )


def annotation(schema: dict[str, Any], by_properties: dict[str, str]) -> str:
    """The Python type of a value whose JSON Schema is `schema`."""
    kind = schema.get("type")
    if isinstance(kind, list):
        (inner,) = [k for k in kind if k != "null"]
        return annotation({**schema, "type": inner}, by_properties) + " | None"
    if kind == "object":
        return by_properties[repr(schema["properties"])]
    if kind == "array":
        return f"list[{annotation(schema['items'], by_properties)}]"
    names = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
    return names[str(kind)]


def docstring(text: str, indent: int) -> list[str]:
    """A docstring of `text`, wrapped to the line length."""
    pad = " " * indent
    lines = textwrap.wrap(text, width=100 - indent - 3, break_on_hyphens=False) or [""]
    lines[0] = '"""' + lines[0]
    lines[-1] += '"""'
    return [pad + line for line in lines]


def record_stub(cls: type, by_properties: dict[str, str]) -> list[str]:
    """The stub of one result class."""
    name = cls.__name__
    properties = cls.SCHEMA["properties"]  # type: ignore[attr-defined]
    out = ["@final", f"class {name}:"]
    out += docstring(" ".join((cls.__doc__ or name).split()), 4)
    out += ["", "    FIELDS: ClassVar[tuple[str, ...]]", "    SCHEMA: ClassVar[dict[str, Any]]"]
    for field in cls.FIELDS:  # type: ignore[attr-defined]
        schema = properties.get(field)
        out += ["    @property"]
        if schema is None:  # bytes: an attribute, not in to_dict() or the schema
            out += [f"    def {field}(self) -> bytes: ..."]
            continue
        out += [f"    def {field}(self) -> {annotation(schema, by_properties)}:"]
        out += docstring(schema["description"], 8)
    extras = sorted(
        attr
        for attr in vars(cls)
        if not attr.startswith("_") and attr not in COMMON and attr not in cls.FIELDS  # type: ignore[attr-defined]
    )
    for attr in extras:
        if (name, attr) not in EXTRAS:
            raise SystemExit(f"{name}.{attr} is not a field: add its type to EXTRAS")
        out += ["    @property", f"    def {attr}(self) -> {EXTRAS[name, attr]}:"]
        out += docstring(" ".join((getattr(cls, attr).__doc__ or attr).split()), 8)
    out += ["    def to_dict(self) -> dict[str, Any]: ...", ""]
    return out


def options_name(call: str) -> str:
    """The name of the TypedDict of `call`'s options: ``read_file`` -> ``_ReadFileOptions``."""
    return "_" + "".join(part[:1].upper() + part[1:] for part in call.split("_")) + "Options"


def options_stub(call: str, keywords: dict[str, tuple[str, Any]]) -> list[str]:
    """The TypedDict of one call's keyword arguments (each may be left out: the engine's
    default applies)."""
    out = [f"class {options_name(call)}(TypedDict, total=False):"]
    out += docstring(f"The keyword arguments of {call} (KEYWORDS[{call!r}]).", 4)
    out += [f"    {name}: {kind}" for name, (kind, _) in keywords.items()]
    return [*out, ""]


def generated() -> str:
    """The whole stub, formatted as ruff formats it."""
    tables = Tables()
    exports = sorted(core.__all__, key=export_order)
    lines = [HEADER, "__all__ = ["]
    lines += [f"    {name!r}," for name in exports] + ["]"]
    lines += constants_stub(tables)
    classes = record_classes()
    by_properties = {repr(cls.SCHEMA["properties"]): cls.__name__ for cls in classes}  # type: ignore[attr-defined]
    if len(by_properties) != len(classes):
        raise SystemExit("two result classes have the same schema: nesting would be ambiguous")
    lines += ["# ==== Results and options ====", ""]
    for cls in classes:
        lines += record_stub(cls, by_properties)
    for call, keywords in sorted(core.KEYWORDS.items()):
        lines += options_stub(call, keywords)
    lines += ["# ==== Errors: each is a RipsightError and the built-in that fits ====", ""]
    errors = error_classes()
    for cls in errors:
        lines += error_stub(cls, tables)
    lines += ["# ==== The engine ====", ""]
    written = {*classes, *errors}
    for name in exports:
        value = getattr(core, name)
        if isinstance(value, type) and value not in written:
            lines += class_stub(value, tables)
    for name in exports:
        value = getattr(core, name)
        if callable(value) and not isinstance(value, type):
            lines += function_stub(name, name, value, tables, 0) + [""]
    tables.check_all_used()
    unwritten = set(ERROR_ATTRIBUTES) - {cls.__name__ for cls in errors}
    if unwritten:
        raise Missing(f"ERROR_ATTRIBUTES names classes the module lacks: {sorted(unwritten)}")
    return ruff_format("\n".join(lines) + "\n")


def ruff_format(text: str) -> str:
    """`text` as ruff formats a stub."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(STUB), "-"],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the stub differs")
    check = parser.parse_args().check
    current = STUB.read_text(encoding="utf-8") if STUB.exists() else ""
    wanted = generated()
    if current == wanted:
        return 0
    if check:
        diff = difflib.unified_diff(
            current.splitlines(keepends=True),
            wanted.splitlines(keepends=True),
            str(STUB),
            "generated",
        )
        sys.stdout.writelines(diff)
        print(f"\n{STUB} differs from the generator's: run python scripts/gen_stub.py")
        return 1
    STUB.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
