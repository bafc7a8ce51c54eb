"""The tools' advice in the command line's own words.

A tool's text speaks to a model in tool calls ("call grep again with offset=50", "set
literal=true"); on the command line the same advice names the command and its flags ("run the
command again with --offset 50", "pass -F"). The words come from `TOOL_COMMANDS` and the tools'
schemas, so a renamed flag or a new argument needs no edit here, and the tools' texts stay
written once, for the model.

Only the tool's own sentences are rewritten: a line of the result's data (a numbered line of a
file, a line that starts with a path the typed result names) is left exactly as it came.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from ..names import quote_path

__all__ = [
    "CommandWords",
    "cut_in_command_words",
    "data_prefixes",
    "in_command_words",
    "joined_items",
]

#: `name=value` as the tools write an argument: a JSON string, or a bare number or word.
_ASSIGNMENT = r'(?P<name>[a-z_]+)=(?P<value>"(?:[^"\\]|\\.)*"|[\w.\-]+)'
_ASSIGNMENTS = re.compile(rf"{_ASSIGNMENT}(?:(?:, | and ){_ASSIGNMENT.replace('?P<', '?P<x')})*")
_ONE = re.compile(_ASSIGNMENT)
#: "narrow it with kind, path or glob", "without cell": argument names the text lists.
_NAME_LIST = re.compile(
    r"\b(?P<word>with|without) (?P<names>[a-z_]+(?:, [a-z_]+)*(?: (?:or|and) [a-z_]+)?)\b"
)
#: What the tools say that does not hold for a command: each command is a process of its own,
#: and keeps no parse for the next.
_NOT_SO_HERE = (" (the next call reuses the parses made so far)",)
#: "call again", said of the call being answered.
_AGAIN = re.compile(r"\b([Cc])all again\b")
#: A numbered line of a file (read's `     12\ttext`).
_NUMBERED = re.compile(r"^\s*\d+\t")


class CommandWords:
    """How the command `command` of `commands` (`TOOL_COMMANDS`: each entry's `tool`,
    `positionals` and `short`) names the tools and their arguments.

    `properties` maps each tool to the names of its schema's properties (the registry's
    definitions), so only real arguments are rewritten.
    """

    def __init__(
        self,
        command: str,
        commands: Mapping[str, Any],
        properties: Mapping[str, Iterable[str]],
    ) -> None:
        self.command = command
        self.specs = commands
        self.tool = commands[command].tool
        self.commands = {spec.tool: name for name, spec in commands.items()}
        self.properties = {tool: set(names) for tool, names in properties.items()}
        tools = "|".join(sorted(map(re.escape, self.commands), key=len, reverse=True))
        self._call = re.compile(
            rf"\b(?P<verb>[Cc]all|[Uu]se) (?P<tool>{tools})(?P<again> again)?"
            rf"(?: with (?:(?P<args>{_ASSIGNMENTS.pattern})|an? (?P<bare>[a-z_]+)\b))?"
        )
        #: A tool named in a sentence whose command has another name (``find_definitions``).
        renamed = [t for t, c in self.commands.items() if t != c]
        self._tool = re.compile(
            rf"(?<![\w`])(?P<tool>{'|'.join(sorted(renamed, key=len, reverse=True))})(?![\w=])"
            if renamed
            else r"(?!x)x"
        )
        #: An argument named bare: ``max_chars`` (snake case) or `` `path` `` (quoted).
        self._bare = re.compile(
            r"`(?P<quoted>[a-z_]+)`|\((?P<paren>[a-z_]+)\)|(?<![\w-])(?P<snake>[a-z]+_[a-z_]+)\b"
        )
        self._set = re.compile(rf"\b(?P<verb>[Ss]et|[Pp]ass) {_ASSIGNMENT}")
        self._named = re.compile(rf"\b(?P<verb>with|using|[Uu]se) (?P<tool>{tools})\b")
        #: A problem of the argument check: `- "limit" must be at least 1`.
        self._problem = re.compile(r'(?<=- )"(?P<name>[a-z_]+)"')

    def flag(self, tool: str, name: str) -> str:
        """How the command of `tool` names the argument `name`: a positional as its metavar
        (``PATH``), an option as its short form (``-F``, ``--no-ignore``) or ``--name``."""
        spec = self.specs[self.commands[tool]]
        if name in spec.positionals:
            return name.upper()
        return spec.short.get(name) or "--" + name.replace("_", "-")

    def argument(self, tool: str, name: str, value: str) -> list[str]:
        """`name=value` as words of a command line (``["--offset", "50"]``, ``["-F"]``)."""
        try:
            parsed: Any = orjson.loads(value)
        except orjson.JSONDecodeError:
            parsed = value
        spec = self.specs[self.commands[tool]]
        if name in spec.positionals:
            return [str(parsed)]
        flag = self.flag(tool, name)
        if parsed is True:
            return [flag]
        if parsed is False:  # a boolean without a default has its --no- form
            return ["--no-" + name.replace("_", "-")]
        return [flag, str(parsed)]

    def _known(self, tool: str, names: Iterable[str]) -> bool:
        return all(n in self.properties.get(tool, ()) for n in names)

    def _call_words(self, match: re.Match[str]) -> str:
        tool = match["tool"]
        command = self.commands[tool]
        pairs = [(m["name"], m["value"]) for m in _ONE.finditer(match["args"] or "")]
        if not self._known(tool, (n for n, _ in pairs)):
            return match[0]
        verb = {"Call": "Run", "call": "run"}.get(match["verb"], match["verb"])
        words = [w for name, value in pairs for w in self.argument(tool, name, value)]
        if match["bare"]:
            # "call read_file with an offset from 1 to 9": the flag, the sentence goes on.
            if not self._known(tool, [match["bare"]]):
                return match[0]
            words = [self.flag(tool, match["bare"])]
        if command == self.command and verb in ("Run", "run"):
            rest = f" with {shlex.join(words)}" if words else ""
            return f"{verb} the command again{rest}"
        spec = self.specs[command]
        given = dict(pairs)
        if all(p in given for p in spec.positionals[:1]):
            # A whole command line: the positionals in order, then the options.
            line = ["ripsight", command]
            line += [str(orjson.loads(given[p])) for p in spec.positionals if p in given]
            line += [
                w
                for name, value in pairs
                if name not in spec.positionals
                for w in self.argument(tool, name, value)
            ]
            return f"{verb} {shlex.join(line)}"
        rest = f" with {shlex.join(words)}" if words else ""
        return f"{verb} ripsight {command}{rest}"

    def _set_words(self, match: re.Match[str]) -> str:
        name, value = match["name"], match["value"]
        if not self._known(self.tool, [name]):
            return match[0]
        verb = "Pass" if match["verb"][0].isupper() else "pass"
        return f"{verb} {shlex.join(self.argument(self.tool, name, value))}"

    def _assignment_words(self, match: re.Match[str]) -> str:
        if not self._known(self.tool, [match["name"]]):
            return match[0]
        return shlex.join(self.argument(self.tool, match["name"], match["value"]))

    def _list_words(self, match: re.Match[str]) -> str:
        names = re.split(r", | or | and ", match["names"])
        if not self._known(self.tool, names):
            return match[0]
        text = match["names"]
        for name in names:
            text = re.sub(rf"\b{name}\b", self.flag(self.tool, name), text, count=1)
        return f"{match['word']} {text}"

    def line(self, text: str) -> str:
        """One line of a tool's own words, in the command's."""
        text = self._call.sub(self._call_words, text)
        text = self._set.sub(self._set_words, text)
        text = _ONE.sub(self._assignment_words, text)
        text = _NAME_LIST.sub(self._list_words, text)
        text = self._problem.sub(self._problem_words, text)
        text = self._named.sub(lambda m: f"{m['verb']} ripsight {self.commands[m['tool']]}", text)
        text = _AGAIN.sub(lambda m: f"{'R' if m[1] == 'C' else 'r'}un the command again", text)
        for said in _NOT_SO_HERE:
            text = text.replace(said, "")
        text = self._tool.sub(lambda m: f"ripsight {self.commands[m['tool']]}", text)
        return self._bare.sub(self._bare_words, text)

    def _bare_words(self, match: re.Match[str]) -> str:
        name = match["quoted"] or match["paren"] or match["snake"]
        if not self._known(self.tool, [name]):
            return match[0]
        flag = self.flag(self.tool, name)
        return f"({flag})" if match["paren"] else flag

    def _problem_words(self, match: re.Match[str]) -> str:
        name = match["name"]
        return self.flag(self.tool, name) if self._known(self.tool, [name]) else match[0]


def data_prefixes(result: Any) -> tuple[str, ...]:
    """The paths a typed result names (as a result's text shows them): a line starting with
    one is the result's data, never rewritten."""
    found: set[str] = set()

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "path" and isinstance(item, str) and item:
                    found.add(quote_path(item))
                else:
                    visit(item)
        elif isinstance(value, list):
            for item in value:
                visit(item)

    if result is not None:
        from ..workspace import to_dict

        visit(to_dict(result))
    return tuple(sorted(found))


def in_command_words(text: str, words: CommandWords, data: tuple[str, ...] = ()) -> str:
    """`text` with the tool's advice in the command's words; data lines (numbered lines, lines
    starting with a path in `data`) unchanged."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if _NUMBERED.match(line) or _is_data(line, data):
            continue
        lines[i] = words.line(line)
    return "\n".join(lines)


def _is_data(line: str, data: tuple[str, ...]) -> bool:
    """A line of the result's data: a path it names, alone or followed by what a listing puts
    after one (``:12:``, ``-12-``, a tab, two spaces); a sentence that starts with the path
    (``README.md is Markdown...``, ``app.py: offset 9 is past the end``) is the tool's own
    words."""
    for prefix in data:
        if line.startswith(prefix):
            rest = line[len(prefix) :]
            if not rest or rest[0] == "\t" or rest.startswith("  "):
                return True
            if rest[0] in ":-" and rest[1:2].isdigit():  # path:12:..., path-12-...
                return True
    return False


def joined_items(text: str) -> str:
    """A message whose list items (lines starting "- ") follow a line, with the items on that
    line: after its colon, separated by "; " (an error fits one line of stderr)."""
    lines: list[str] = []
    for line in text.split("\n"):
        if line.startswith("- ") and lines:
            lines[-1] += (" " if lines[-1].endswith(":") else "; ") + line[2:]
        else:
            lines.append(line)
    return "\n".join(lines)


#: The note the engine's middle truncation puts where it cut (`truncate.rs`: the full note, or
#: the short one when the budget is small).
_CUT_NOTE = re.compile(
    r"\[\.\.\. \d+ of \d+ characters cut from the middle of this result;[^\]]*\]"
    r"|\[\.\.\. \d+ chars cut \.\.\.\]"
)


def cut_in_command_words(text: str, original_chars: int, budget: int) -> str:
    """A result the budget cut, its note saying how to see the rest from the command line (the
    command line keeps no stored result to page): the same command with --max-result-chars
    set to the whole result's length, or --offset and --limit. The text stays within `budget`
    (the head gives up what the longer note needs)."""
    found = _CUT_NOTE.search(text)
    if found is None:
        return text
    head, tail = text[: found.start()], text[found.end() :]

    def note(cut: int) -> str:
        return (
            f"[... {cut:,} of {original_chars:,} characters cut from the middle; run the "
            f"command again with --max-result-chars {original_chars} to see them, or with "
            "--offset and --limit for a page ...]"
        )

    for _ in range(2):  # the count's width may change once as the head shrinks
        room = budget - len(note(original_chars - len(head) - len(tail))) - len(tail)
        head = head[: max(0, room)]
    return head + note(original_chars - len(head) - len(tail)) + tail
