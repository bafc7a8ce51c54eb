"""`find_references`: where a name is used across the tree, and who calls it (definition,
handler, the text the model sees)."""

from __future__ import annotations

import functools
import os
import re
from typing import Any

from .._core import ReferencesResult
from ..errors import InvalidArgumentError
from ..limits import DEFAULT_LIMITS, ToolLimits
from ..names import quote_path
from ..roots import Roots
from ..types import ToolContext, ToolOutput, ToolSpec
from ..workspace import REFERENCE_ROLES, SYMBOL_KINDS
from . import _navigation as nav
from ._common import (
    limit_property,
    list_arg,
    offset_property,
    plural,
    resolved_maximum,
    skip_note,
    thousands,
    unquote_paths,
    workspace_of,
)
from .outline import languages_text

__all__ = [
    "FIND_REFERENCES_DESCRIPTION",
    "FIND_REFERENCES_SCHEMA",
    "find_references_description",
    "find_references_schema",
    "find_references_tool",
    "format_references",
    "run_find_references",
]

#: Each role's counter in `RoleTotals` and the word for it.
_ROLE_TOTALS = (
    ("calls", "call"),
    ("imports", "import"),
    ("types", "type"),
    ("writes", "write"),
    ("reads", "read"),
    ("others", "other"),
)


def find_references_description(limits: ToolLimits = DEFAULT_LIMITS) -> str:
    """The model-facing description of `find_references` under these limits."""
    return f"""\
Find where a name is used: every reference to an identifier as code (never in a comment or a \
string), each as `path:line:col role — in <enclosing definition>: <line>`, with the name's \
definitions listed apart and exact totals by role. Roles: call, import, type, write, read, \
other (declared without a value: a parameter, a field, a prototype). Everything spelled the \
same is listed, with no type resolution (two methods `close` of two classes share their \
references); from the symbol index each reference says whether its file's includes or imports \
bind it to a definition (resolved) or it was found by name; the result says how many places \
define the name.

Who calls X: role="call", group_by="caller" lists each calling definition once with its \
number of calls and the first call's line (what a definition calls: find_calls). When the name \
has several definitions, `definition` (PATH:LINE of one of them, or its number in the listed \
definitions) keeps the references bound to it through their files' includes or imports, each \
marked resolved, plus those found by name (their files reach no definition of it); references \
bound to another definition are left out and counted. Narrow with `kind` (only references inside \
definitions of that kind), `path` and `glob` (as grep's). Languages: {languages_text()}. At \
most `limit` entries (default {limits.references_limit}) per call, by path then position; the \
result states the exact total and which `offset` shows the next page."""


def find_references_schema(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """JSON Schema of `find_references`' arguments under these limits."""
    return nav.schema(
        'The identifier, matched whole and case-sensitively, e.g. "parse_args", "kmalloc", '
        '"HttpClient".',
        {
            "role": nav.choices_property(
                REFERENCE_ROLES, "Only references of this role, or these roles", "every role"
            ),
            "group_by": {
                "type": "string",
                "enum": ["reference", "caller"],
                "default": "reference",
                "description": '"reference" lists each reference; "caller" lists each '
                'enclosing definition once with its count and first line (with role="call": '
                'who calls the name). Default: "reference".',
            },
            "kind": nav.choices_property(
                SYMBOL_KINDS,
                "Only references inside a definition of this kind, or these kinds",
                "anywhere",
            ),
            "definition": {
                "type": "string",
                "description": "One definition of the name, as PATH:LINE (a line it covers, "
                'e.g. "include/linux/slab.h:580") or as its number in the definitions a '
                'previous answer listed ("2"): only the references that can mean it. Default: '
                "every reference, by name.",
            },
            "path": nav.path_property(),
            "glob": nav.glob_property(),
            "limit": limit_property(
                limits.references_limit,
                resolved_maximum(limits.references_max_limit),
                "Maximum number of references (or callers) to return",
            ),
            "offset": offset_property(
                0, "Number of references (or callers) to skip, to page through a large result."
            ),
        },
    )


#: The definition under the SPEC section 5 defaults.
FIND_REFERENCES_DESCRIPTION = find_references_description()
FIND_REFERENCES_SCHEMA: dict[str, Any] = find_references_schema()


def _totals_text(totals: Any) -> str:
    parts = [
        plural(getattr(totals, field), word)
        for field, word in _ROLE_TOTALS
        if getattr(totals, field)
    ]
    return ", ".join(parts)


def _within(name: str | None, kind: str | None) -> str:
    return f"in {kind} {name}" if name else "at top level"


def _definitions_text(result: Any) -> list[str]:
    total = result.definitions_total
    if total == 0:
        return [f'No definition of "{result.name}" in these files (it may be defined elsewhere).']
    places = "1 place" if total == 1 else f"{thousands(total)} places"
    lines = [
        f'"{result.name}" is defined in {places}'
        + (" (references to all of them are listed together):" if total > 1 else ":")
    ]
    for found in result.definitions:
        inside = f" (in {found.container})" if found.container else ""
        lines.append(f"  {quote_path(found.path)}:{found.line} {found.kind} {found.name}{inside}")
    more = total - len(result.definitions)
    if more:
        lines.append(f"  and {thousands(more)} more")
    return lines


def _caller_line(caller: Any, roles: list[str] | None) -> str:
    at = f":{caller.line}" if caller.line is not None else ""
    return (
        f"{quote_path(caller.path)}{at} {_within(caller.name, caller.kind)} — "
        f"{plural(caller.count, 'call' if roles == ['call'] else 'use')}, first at line "
        f"{caller.first_line}: {caller.text.strip()}"
    )


def _reference_line(found: Any, marked: bool = False) -> str:
    how = f" ({found.binding.replace('_', ' ')})" if marked else ""
    return (
        f"{quote_path(found.path)}:{found.line}:{found.column} {found.role}{how} — "
        f"{_within(found.enclosing, found.enclosing_kind)}: {found.text.strip()}"
    )


def _binding_text(result: Any) -> str:
    """How the references of the definition asked for were found."""
    asked = result.definition
    parts = [f"{thousands(result.resolved)} resolved", f"{thousands(result.by_name)} by name"]
    text = (
        f"References of the definition at {quote_path(asked.path)}:{asked.line} "
        f"({asked.kind} {asked.name}): {', '.join(parts)}"
    )
    if result.bound_elsewhere:
        text += (
            f"; {plural(result.bound_elsewhere, 'reference')} left out, which cannot mean "
            "it (their files' includes or imports reach another definition, or it belongs to "
            "a part of the tree their files do not see)"
        )
    return text + (
        ". Resolved: the file's includes or imports reach this definition; by name: they "
        "reach no definition of the name, so the reference may mean any of them."
    )


def format_references(
    result: Any,
    path: str | None = None,
    roles: list[str] | None = None,
    kinds: list[str] | None = None,
) -> str:
    """The text a model sees for a `Workspace.references` result."""
    what = f'"{result.name}"'
    if roles:
        what = f"{what} of role {' or '.join(roles)}"
    if kinds:
        what += f" inside a {' or '.join(kinds)}"
    where = nav.under(path)
    candidates = nav.candidates_text(result, "name")
    callers = result.group_by == "caller"
    noun = "caller" if callers else "reference"
    total, shown = result.total, len(result.callers if callers else result.references)
    totals = _totals_text(result.totals)
    lines: list[str] = []
    if total == 0:
        lines.append(f"No {noun} of {what}{where} ({candidates}; found by name).")
        if totals:
            lines.append(f"All roles together: {totals}.")
    else:
        if callers and roles == ["call"]:
            head = f'{plural(total, "caller")} of "{result.name}"'
        elif callers:
            head = f"{plural(total, 'definition')} (or top levels) using {what}"
        else:
            head = f"{plural(total, noun)} of {what}"
        if result.definition is None:
            head += f"{where}, found by name without type resolution"
        else:
            head += f"{where}, of one definition"
        head += f" ({candidates}; all roles: {totals})"
        lines.append(nav.page_head(head, result, shown, total))
        if callers:
            lines.extend(_caller_line(caller, roles) for caller in result.callers)
        else:
            marked = result.definition is not None
            lines.extend(_reference_line(found, marked) for found in result.references)
        if result.next_offset is not None:
            lines.append(
                f"{plural(result.withheld, f'more {noun}')} not shown: call find_references "
                f"again with offset={result.next_offset} for the next page, or narrow it with "
                "role, kind, path or glob."
            )
    if result.definition is not None:
        lines.append(_binding_text(result))
    lines.extend(_definitions_text(result))
    if result.files_cut:
        lines.append(
            f"{plural(result.files_cut, 'file')} held more references than one file's parse "
            "keeps; the rest of those files are not counted."
        )
    if result.unparsed_total:
        lines.append(
            f"{plural(result.unparsed_total, 'file')} that contain the name could not be "
            f"parsed, so references there are not listed: {nav.unparsed_list(result)}. grep them "
            "for the name."
        )
    if result.incomplete:
        lines.append(nav.incomplete_note("references", "path or glob"))
    note = skip_note(result.skipped, include_binary=False, nothing_found=total == 0)
    if note:
        lines.append(note)
    return "\n".join(lines)


def run_find_references(
    context: ToolContext, args: dict[str, Any], limits: ToolLimits = DEFAULT_LIMITS
) -> ToolOutput:
    """Handler of `find_references`."""
    roles, kinds = list_arg(args.get("role")), list_arg(args.get("kind"))
    if args.get("definition") is not None:
        args = {**args, "definition": _definition_at(context, args)}

    def describe(result: Any) -> tuple[str, int]:
        return format_references(result, args.get("path"), roles, kinds), result.total

    try:
        return nav.answer_by_name(
            context, "find_references", args, FIND_REFERENCES_SCHEMA, describe
        )
    except InvalidArgumentError as error:
        if args.get("definition") is None or "no definition of" not in str(error):
            raise
        raise InvalidArgumentError(
            f'no definition of "{args["name"]}" covers {args["definition"]} among the files '
            "searched. Call find_references without definition to list where the name is "
            "defined, then give one of those PATH:LINE (or its number in the list)."
        ) from None


_DEFINITION_AT = re.compile(r"^(?P<path>.+):(?P<line>[1-9][0-9]*)$")


def _definition_at(context: ToolContext, args: dict[str, Any]) -> str:
    """The `definition` argument as PATH:LINE: as given, or the one a number picks from the
    name's definitions (a first call lists them)."""
    given = str(args["definition"]).strip()
    if isinstance(workspace_of(context), Roots):
        raise InvalidArgumentError(
            "definition works within one root; this workspace serves several. Call "
            "find_references without definition."
        )
    if given.isdigit():
        number = int(given)
        listed = (
            workspace_of(context)
            .references(
                str(args["name"]),
                args.get("path") or None,
                args.get("glob") or None,
                limit=1,
                cancel=context.cancel,
            )
            .definitions
        )
        if not 1 <= number <= len(listed):
            raise InvalidArgumentError(
                f'definition={given} picks no definition: "{args["name"]}" has '
                f"{plural(len(listed), 'definition')} listed here. Give a number from 1 to "
                f"{len(listed)}, or PATH:LINE."
                if listed
                else f'definition={given} picks no definition: no file here defines "{args["name"]}".'
            )
        found = listed[number - 1]
        return f"{os.fsdecode(found.path)}:{found.line}"
    if not _DEFINITION_AT.match(given):
        raise InvalidArgumentError(
            f"definition={given!r} is neither PATH:LINE (e.g. include/linux/slab.h:580) nor the "
            "number of a listed definition (e.g. 2); give one of those."
        )
    return given


def find_references_tool(limits: ToolLimits = DEFAULT_LIMITS) -> ToolSpec:
    """`find_references`, its definition generated from `limits`."""
    return ToolSpec(
        name="find_references",
        description=find_references_description(limits),
        parameters=find_references_schema(limits),
        handler=functools.partial(run_find_references, limits=limits),
        title="Find where a name is used, and who calls it",
        prepare=unquote_paths,
        results=(ReferencesResult,),
        paging={"references": "count", "callers": "count"},
        command=nav.command(
            "refs",
            "references",
            "find where a name is used, and who calls it",
            "Find the references to a name across the tree (path:line:col role — in its "
            "enclosing definition), found by name without type resolution, or with --group-by "
            "caller who calls it, and print what a model would see (the find_references tool).",
            {"glob": "-g", "kind": "-k", "role": "-r"},
        ),
    )


#: This module's tool (`ripsight.tools.builtin_tools` finds the built-in tools by this name).
TOOL = find_references_tool
