"""What the navigation tools (`find_definitions`, `find_references`, `find_calls`) share: schema
pieces, the call of the engine method whose arguments they are, and the sentences their answers
have in common.

A navigation tool's arguments are the engine method's of the same names, so its handler does not
restate them: `answer_by_name` reads from the tool's schema how each one reaches the method.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..names import quote_path
from ..roots import Roots
from ..types import ToolCommand, ToolContext, ToolOutput
from ..workspace import Workspace
from ._common import answer_search, list_arg, plural, strings_property, thousands

#: `glob`, as the navigation tools take it (as grep does).
GLOB_PROPERTY_TEXT = (
    "Only search files matching this glob, or these globs, as grep's glob: "
    '"*.py", "src/**/*.ts", ["*.c", "!*_test.c"]. Default: all files.'
)


def schema(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    """A navigation tool's JSON Schema: `name` (described by `name`, the one argument it
    requires), then its other `properties`."""
    return {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "description": name},
            **properties,
        },
        "required": ["name"],
        "additionalProperties": False,
    }


def path_property(
    description: str = "File or directory to search, relative to the workspace root. "
    "Default: the workspace root.",
) -> dict[str, Any]:
    """`path`: where to search."""
    return {"type": "string", "description": description}


def command(
    name: str, finds: str, help: str, description: str, short: dict[str, str]
) -> ToolCommand:
    """A navigation tool's subcommand, which `finds` what it lists ("definitions"): the name and
    the path as positional arguments, exit status 1 when the total is 0."""
    return ToolCommand(
        name=name,
        help=help,
        description=description,
        epilog=f"exit status: 0 {finds} found, 1 none, 2 usage or input error (one line on stderr)",
        positionals=("name", "path"),
        short=short,
        found="total",
    )


def glob_property() -> dict[str, Any]:
    """`glob`: one file glob or a list, as grep's."""
    return strings_property(GLOB_PROPERTY_TEXT)


def choices_property(choices: Sequence[str], lead: str, default: str) -> dict[str, Any]:
    """An argument that takes one of `choices` or a list of them (`kind`, `role`): its
    description is `lead`, the choices, and what leaving it out means."""
    return {
        "type": ["string", "array"],
        "items": {"type": "string", "enum": list(choices)},
        "description": f"{lead}: " + ", ".join(choices) + f". Default: {default}.",
    }


def engine_arguments(
    schema: dict[str, Any], args: dict[str, Any]
) -> tuple[list[Any], dict[str, Any]]:
    """A call's arguments as the engine method of the same names takes them, each as the tool's
    schema declares it: the required ones in order, positional; one of several choices or a
    list of them (`kind`, `role`) as a list; an optional one without a default (`path`, `glob`)
    None when left out or empty; the rest as validated (their defaults filled in)."""
    properties: dict[str, Any] = schema["properties"]
    positional = [args[name] for name in schema["required"]]
    keywords: dict[str, Any] = {}
    for name, declared in properties.items():
        if name in schema["required"]:
            continue
        if "enum" in declared.get("items", {}):
            keywords[name] = list_arg(args.get(name))
        elif "default" not in declared:
            keywords[name] = args.get(name) or None
        else:
            keywords[name] = args[name]
    return positional, keywords


def answer_by_name(
    context: ToolContext,
    tool: str,
    args: dict[str, Any],
    schema: dict[str, Any],
    describe: Callable[[Any], tuple[str, int]],
) -> ToolOutput:
    """Answers a navigation call: the workspace's method named as the tool without ``find_``
    (`Workspace.calls` for ``find_calls``), given the call's arguments (`engine_arguments`);
    `describe` turns its result into the model's text and the total (see `answer_search`).
    A result merged from several roots (`merged.Record`) has the same fields."""
    method = tool.removeprefix("find_")
    positional, keywords = engine_arguments(schema, args)

    def search(workspace: Workspace | Roots) -> Any:
        return getattr(workspace, method)(*positional, cancel=context.cancel, **keywords)

    return answer_search(context, tool, args, search, describe)


def under(path: str | None) -> str:
    """Where a search ran, as its answer's first line says it (nothing for the root)."""
    return f" under {quote_path(path.rstrip('/'))}" if path else ""


def candidates_text(result: Any, what: str) -> str:
    """How many files hold the name's text (`what`: "name", "text"), and where they came from:
    the files searched (cold), or the symbol index (more candidates than files searched: those
    are only the files changed since it was written)."""
    candidates, searched = result.candidate_files, result.files_searched
    if candidates > searched:
        changed = f" and {plural(searched, 'changed file')} searched" if searched else ""
        return f"{plural(candidates, 'file')} containing the {what}, from the symbol index{changed}"
    if not searched:
        return f"no file contains the {what}"
    return f"{plural(candidates, 'file')} containing the {what}, of {thousands(searched)} searched"


def page_head(head: str, result: Any, shown: int, total: int) -> str:
    """The first line of a page of `total` entries that shows `shown` from `result.offset`."""
    if shown == 0:
        return f"{head}, but offset={result.offset} is past the end; use an offset below {total}."
    if shown < total:
        head += f"; showing {thousands(result.offset + 1)}-{thousands(result.offset + shown)}"
    return head + ":"


def unparsed_list(result: Any) -> str:
    """The candidate files without an outline a result names, each with why, and how many more
    there are."""
    listed = ", ".join(
        f"{quote_path(item.path)} ({item.refused.replace('_', ' ')})" for item in result.unparsed
    )
    more = result.unparsed_total - len(result.unparsed)
    return listed + (f" and {thousands(more)} more" if more else "")


def incomplete_note(what: str, narrow: str) -> str:
    """The note of a search its time budget cut short: there may be more `what`."""
    return (
        "Incomplete: the time budget ran out before every candidate file was searched and "
        f"parsed, so there may be more {what}. Narrow the search with {narrow}."
    )
