"""The protocol's value types: a tool's definition, a call the model made, and its result.

    >>> call = ToolCall(id="call_1", name="grep", arguments='{"pattern": "TODO"}')
    >>> call.name
    'grep'

All are frozen, slotted dataclasses: cheap, hashable where their fields are, and safe to
share between the threads of a parallel batch.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

import orjson

from .session import ReadState, Session

if TYPE_CHECKING:
    from .roots import Roots
    from .workspace import CancelToken, Workspace

__all__ = [
    "EFFECTS",
    "PAGE_COUNTERS",
    "Effect",
    "Handler",
    "ImagePart",
    "PageBy",
    "ToolCall",
    "ToolCommand",
    "ToolContext",
    "ToolOutput",
    "ToolResult",
    "ToolSpec",
    "call_name_field",
    "result_schema",
]

#: What running a tool may change: nothing (``read``), files or state it can undo (``write``),
#: or something outside that cannot be taken back (``consequential``: sending, paying, deleting).
Effect = Literal["read", "write", "consequential"]
EFFECTS: tuple[Effect, ...] = ("read", "write", "consequential")


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What a handler gets besides its arguments.

    Attributes:
        workspace: the registry's workspace, or its `Roots` when it serves several (None for a
            registry without one).
        call_id: the id of the call being answered.
        session: the conversation's state (delivered reads, stored results, repeated calls).
        max_result_chars: the budget of one result's text.
        cancel: the call's engine cancel token, to pass to every `Workspace` method (``cancel=``)
            so the caller can stop the call from another thread (the MCP server does when a
            client cancels); None when the caller gave none.
    """

    workspace: Workspace | Roots | None
    call_id: str
    session: Session
    max_result_chars: int = 8000
    cancel: CancelToken | None = None

    @property
    def read_state(self) -> ReadState:
        """The session's delivered reads (v1 name)."""
        return self.session.reads


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image a result carries beside its text (a `read_file` of a PNG, a notebook cell's
    plot). Each provider form places it where that API takes images (see
    `ripsight.providers`); the text still describes it in one line.

    Attributes:
        media_type: ``image/png``, ``image/jpeg``, ``image/gif`` or ``image/webp``.
        data: the encoded bytes.
    """

    media_type: str
    data: bytes = field(repr=False)

    @property
    def base64(self) -> str:
        """The bytes in standard base64 (MCP ``ImageContent.data``, Anthropic's source)."""
        return base64.b64encode(self.data).decode("ascii")

    @property
    def data_url(self) -> str:
        """A ``data:`` URL (OpenAI's ``image_url`` and ``input_image``)."""
        return f"data:{self.media_type};base64,{self.base64}"

    def __repr__(self) -> str:
        return f"ImagePart({self.media_type!r}, {len(self.data):,} bytes)"


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What a handler may return instead of a plain string: the text plus private metadata.

    `meta` goes to `ToolResult.meta` (never to the model); `is_error` marks a result the model
    should treat as a failed call.
    """

    text: str
    meta: Mapping[str, Any] = field(default_factory=dict)
    is_error: bool = False
    #: Called with the final `ToolResult` once it is answered (after truncation), unless it is an
    #: error; a handler uses it to remember what the model was actually shown.
    on_delivered: Callable[[ToolResult], None] | None = None
    #: A stable machine code for `ToolResult.meta["code"]` ("ok" when None and not an error).
    code: str | None = None
    #: Images shown beside the text (within the image budget, `ToolLimits.image_max_bytes`).
    images: tuple[ImagePart, ...] = ()


#: A tool's function: receives the execution context and the checked arguments (defaults filled
#: in, unknown keys dropped) and returns the text the model sees, or a `ToolOutput`.
Handler = Callable[[ToolContext, dict[str, Any]], str | ToolOutput]

#: Whether calls of a tool may run in parallel: a constant, or a function of a call's checked
#: arguments (a call whose arguments do not parse is never run in parallel).
ConcurrencySafety = bool | Callable[[dict[str, Any]], bool]


#: How a page of a typed result is shortened to fewer entries of one of its lists (the MCP
#: server holds its structured copy to the result budget so): ``"count"`` (each entry left out
#: is counted in ``withheld``, ``next_offset`` reads on after the last one kept), ``"matches"``
#: (as count, but only the entries whose ``is_match`` is true count: grep's context lines stay
#: with their match), ``"number"`` (``next_offset`` is the ``number`` of the first entry left
#: out: a line, a cell) or ``"page"`` (``next_page`` is the ``number`` of the first page left
#: out), ``"rank"`` (a ranked list that is not paged: each entry left out is counted in
#: ``files_left``, as the repository map's files).
PageBy = Literal["count", "matches", "number", "page", "rank"]

#: The field of a typed result that says where paging goes on, by `PageBy`.
PAGE_COUNTERS: dict[PageBy, str] = {
    "count": "withheld",
    "matches": "withheld",
    "number": "next_offset",
    "page": "next_page",
    "rank": "files_left",
}


@dataclass(frozen=True, slots=True)
class ToolCommand:
    """A tool's subcommand of the ``ripsight`` command line: what it adds to the tool's schema
    (everything else, the options, their types, choices and help, is generated from the schema,
    so a property added to a tool is a flag of its command with no edit here).

    Attributes:
        name: the subcommand (``read`` for ``read_file``).
        help: its line in ``ripsight --help``.
        description, epilog: the text before and after its options in ``ripsight NAME --help``.
        positionals: properties taken as positional arguments, in order (an optional one may be
            left out; one taking a list takes one value there); every other property is an
            option ``--name-with-dashes``.
        short: another name of an option, rg's: a one-letter flag (``-t``) or rg's long name
            where it differs (``--no-ignore`` for ``--include-ignored``).
        shortcuts: flags that set an option to one value (``-l`` for
            ``--output-mode files_with_matches``), exclusive with it; a flag without a short
            form has "" there.
        limit_flags: the `ToolLimits` flags of this tool.
        found: the typed result's count whose 0 makes the exit status 1 (no match), if any.
        tool: the tool the command calls; its `ToolSpec` fills it in with its own name.
    """

    name: str
    help: str
    description: str
    epilog: str
    positionals: tuple[str, ...]
    short: Mapping[str, str] = field(default_factory=dict)
    shortcuts: Mapping[str, tuple[tuple[str, str, str], ...]] = field(default_factory=dict)
    limit_flags: tuple[str, ...] = ()
    found: str | None = None
    tool: str = ""


def result_schema(results: Sequence[type[Any]]) -> dict[str, Any] | None:
    """The JSON Schema of `ripsight.to_dict` of a tool's typed result, from the ``SCHEMA`` of
    its classes (a copy: the caller may edit it): one class's, or for several, the schema any
    one of them matches. None for a tool without a typed result."""
    # A JSON round trip copies a schema several times faster than deepcopy does.
    schemas: list[dict[str, Any]] = [orjson.loads(orjson.dumps(cls.SCHEMA)) for cls in results]
    if not schemas:
        return None
    if len(schemas) == 1:
        return schemas[0]
    return {"type": "object", "anyOf": schemas}


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: its model-facing definition and the function that runs it.

    Args:
        name: a verb_noun name, identical in every export format (``read_file``).
        description: written for the model: what the tool is for, syntax with examples, limits.
        parameters: JSON Schema of the arguments (an object schema, every property described,
            ``additionalProperties: false``); it drives both the exported definitions and the
            argument checking.
        handler: the function, see `Handler`.
        read_only: the v1 flag, kept so existing code runs: False means ``effect="write"``.
            After construction it always equals ``effect == "read"``.
        concurrency_safe: calls may run in parallel threads within one batch: a bool, or a
            function of the checked arguments returning one.
        title: a human-readable name for MCP clients.
        effect: ``"read"`` (changes nothing; MCP's ``readOnlyHint``), ``"write"`` or
            ``"consequential"``; see `Effect`. Default: from `read_only`, else ``"read"``.
        prepare: turns the checked arguments, in place, into the ones the handler uses (the
            built-in tools turn a quoted ``path``, as results show odd names, back into the
            name). It runs before the host's policy and hooks, so they see what the tool will use.
        check: further checks of the arguments, beyond what the schema states (grep's file
            type names): it gets the checked arguments and returns each problem as a sentence,
            reported with the schema's problems and the call not run. An argument with a syntax
            of its own (read_file's ``pages``) is parsed here, once: `check` replaces its text
            with the typed value in the arguments, and everything after (the policy, the
            handler) gets that value.
        results: the classes of the typed result the handler returns in its
            ``meta[ENGINE_RESULT_KEY]`` (each with a ``SCHEMA`` and ``to_dict``): the MCP
            server's ``structuredContent``, ``ripsight --json``.
        output_schema: the JSON Schema of ``to_dict`` of that result (the MCP ``outputSchema``);
            default: generated from `results` (`result_schema`).
        paging: how a page of the typed result is shortened, by the name of its list of entries
            (see `PageBy`), in the order the lists are tried.
        command: the tool's ``ripsight`` subcommand, if it has one (its ``tool`` is filled in
            with this tool's name).
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    handler: Handler
    read_only: bool | None = None
    concurrency_safe: ConcurrencySafety = True
    title: str | None = None
    effect: Effect | None = None
    prepare: Callable[[dict[str, Any]], None] | None = None
    check: Callable[[dict[str, Any]], list[str]] | None = None
    results: tuple[type[Any], ...] = ()
    output_schema: Mapping[str, Any] | None = None
    paging: Mapping[str, PageBy] = field(default_factory=dict)
    command: ToolCommand | None = None

    def __post_init__(self) -> None:
        effect = self.effect
        if effect is None:
            effect = "write" if self.read_only is False else "read"
        if effect not in EFFECTS:
            raise ValueError(f"{self.name}: effect must be one of {EFFECTS}, got {effect!r}")
        if self.read_only is not None and self.read_only != (effect == "read"):
            raise ValueError(
                f"{self.name}: read_only={self.read_only} contradicts effect={effect!r}"
            )
        object.__setattr__(self, "effect", effect)
        object.__setattr__(self, "read_only", effect == "read")
        if self.output_schema is None and self.results:
            object.__setattr__(self, "output_schema", result_schema(self.results))
        if self.command is not None and self.command.tool != self.name:
            object.__setattr__(self, "command", replace(self.command, tool=self.name))

    def is_concurrency_safe(self, arguments: dict[str, Any] | None) -> bool:
        """Whether a call with these checked arguments may run beside others.

        `arguments` None means they did not parse or check: such a call is treated as unsafe,
        as is one whose safety function raises.
        """
        safety = self.concurrency_safe
        if arguments is None:
            return False
        if isinstance(safety, bool):
            return safety
        try:
            return bool(safety(arguments))
        except Exception:  # noqa: BLE001 - a host's function must not break a batch
            return False


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call as the model produced it.

    Args:
        id: the provider's call id (``call_...``, ``toolu_...``); echoed in the result.
        name: the tool the model asked for, possibly one that does not exist.
        arguments: the raw JSON text of the arguments (as streamed), or an already parsed
            mapping (Anthropic's ``input``).
        incomplete: set by `ToolCallAccumulator` when the stream ended before the arguments
            were complete; such a call is answered with an error, never run on a guess.
    """

    id: str
    name: str
    arguments: str | Mapping[str, Any] = "{}"
    incomplete: bool = False

    @classmethod
    def from_any(cls, value: Any) -> ToolCall:
        """Builds a call from a dict or an SDK object of any supported provider.

        Accepts ``{"id", "name", "arguments"}`` dicts, OpenAI chat tool calls (``function`` with
        ``name``/``arguments``), OpenAI Responses ``function_call`` items (``call_id``) and
        Anthropic ``tool_use`` blocks (``input``).

            >>> ToolCall.from_any({"id": "toolu_1", "name": "glob", "input": {"pattern": "*"}}).name
            'glob'
        """
        if isinstance(value, ToolCall):
            if isinstance(value.name, str) and isinstance(value.id, str):
                return value
            # A ToolCall built with a name that is no string (None, 7) is read as a dict's
            # would be: no name, or a name of the wrong type (refused below).
            incomplete = value.incomplete
            call_id, name, arguments = value.id, value.name, value.arguments
        else:
            if hasattr(value, "model_dump"):
                value = value.model_dump()
            if not isinstance(value, Mapping):
                raise TypeError(f"cannot make a ToolCall from {type(value).__name__}")
            incomplete = False
            call_id, name, arguments = _call_fields(value.get)
        if name is not None and not isinstance(name, str):
            raise TypeError(f"a tool name must be a string, not {type(name).__name__}")
        if arguments is None:
            arguments = "{}"
        if not isinstance(arguments, (str, Mapping)):
            # JSON of what was sent (``true``, ``[1]``), so the arguments check names its type.
            try:
                arguments = orjson.dumps(arguments).decode()
            except TypeError:
                arguments = repr(arguments)
        return cls(
            id=_id_text(call_id), name=name or "", arguments=arguments, incomplete=incomplete
        )

    @classmethod
    def peek(cls, value: Any) -> tuple[str, str]:
        """The id and name of a call `from_any` cannot build, read from its fields in the
        same order (so even a call nothing can run gets its id back); ``("", "")`` when it has
        none. Never raises."""
        try:
            call_id, name, _ = _call_fields(_field_getter(value))
        except Exception:  # noqa: BLE001 - an object whose attributes raise has no id
            return "", ""
        return _id_text(call_id), name if isinstance(name, str) else ""


def call_name_field(value: Any) -> Any:
    """The name field of a call as sent, whatever its type (None when it has none, or reading
    it fails): what a call `from_any` refused was named."""
    try:
        return _call_fields(_field_getter(value))[1]
    except Exception:  # noqa: BLE001 - a call whose fields raise has no name
        return None


def _field_getter(value: Any) -> Callable[[str], Any]:
    """How to read a call's fields: by key from a mapping (or an SDK object's dump), else by
    attribute."""
    if hasattr(value, "model_dump"):
        value = value.model_dump()
    if isinstance(value, Mapping):
        return value.get
    return lambda key: getattr(value, key, None)


def _id_text(call_id: Any) -> str:
    """A call id as the text results echo: a string as sent, another value as its text (an
    integer id ``7`` as ``"7"``), none as ``""``."""
    if call_id is None or isinstance(call_id, str):
        return call_id or ""
    try:
        return str(call_id)
    except Exception:  # noqa: BLE001 - an object whose text raises has no usable id
        return ""


def _call_fields(get: Callable[[str], Any]) -> tuple[Any, Any, Any]:
    """A call's id, name and raw arguments, read from its fields with `get` in the one order
    every provider's shape needs: OpenAI chat keeps name and arguments in ``function``; a
    Responses item carries its call's id in ``call_id`` beside an item ``id``; an Anthropic
    block sends ``input``."""
    function = get("function")
    if isinstance(function, Mapping):
        name, arguments = function.get("name"), function.get("arguments")
    else:
        name, arguments = get("name"), get("arguments")
        if arguments is None:
            arguments = get("input")
    return get("call_id") or get("id"), name, arguments


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The answer to one call.

    Attributes:
        call_id: the id of the call this answers.
        content: the text the model sees (already bounded by middle truncation).
        is_error: the call failed; `content` says why and what to do instead.
        name: the tool's name as called.
        meta: facts for the application, never shown to the model: ``code`` (the stable
            machine code, ``"ok"`` on success), ``duration_ms``, ``truncated``,
            ``original_chars``, ``ignored_arguments``, ``ref`` ...
        images: images the model is shown beside `content` (an image read by `read_file`);
            their bytes have their own budget (`ToolLimits.image_max_bytes`), apart from the
            text's.
    """

    call_id: str
    content: str
    is_error: bool = False
    name: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)
    images: tuple[ImagePart, ...] = ()
