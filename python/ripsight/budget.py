"""The result budget: every result's text held to ``limits.max_result_chars``, its head and tail
kept, and the whole stored by reference when the registry can page stored results.

    >>> text, meta = bound("x" * 20_000, DEFAULT_LIMITS, Session().references)
    >>> len(text) <= 8000, meta["ref"].startswith("ref_")
    (True, True)

A cut result names its reference and the lines (the rows `read_result` pages in) that were cut;
without a store it is the engine's middle truncation, which says how much was cut.
"""

from __future__ import annotations

import bisect
import itertools
from typing import Any

from ._core import truncate_middle as _engine_truncate_middle
from .limits import ToolLimits
from .session import ReferenceStore, StoredResult
from .types import ImagePart, ToolResult

__all__ = ["bound", "bound_images", "bound_replacement", "head_and_tail", "with_budget"]


def with_budget(
    limits: ToolLimits, max_result_chars: int | None, head_ratio: float | None
) -> ToolLimits:
    """`limits` with the budget's two fields replaced where given (the shorthands of
    `Registry` and `default_registry`)."""
    if not isinstance(limits, ToolLimits):
        raise TypeError(f"limits must be a ToolLimits, got {type(limits).__name__}")
    changes: dict[str, Any] = {}
    if max_result_chars is not None:
        changes["max_result_chars"] = max_result_chars
    if head_ratio is not None:
        changes["head_ratio"] = head_ratio
    return limits.replace(**changes) if changes else limits


def _truncate_middle(text: str, max_chars: int, head_ratio: float) -> tuple[str, int, int]:
    return _engine_truncate_middle(text, max_chars, head_ratio)


def bound(
    text: str, limits: ToolLimits, references: ReferenceStore | None
) -> tuple[str, dict[str, Any]]:
    """`text` cut to the budget, and the facts for ``ToolResult.meta`` (``original_chars``,
    ``chars``, ``truncated``, ``ref``): head and tail kept, the whole stored in `references`
    when given, else the engine's middle truncation. Never raises."""
    budget = limits.max_result_chars
    original = len(text)
    meta: dict[str, Any] = {"original_chars": original}
    if original <= budget:
        meta.update(truncated=False, chars=original)
        return text, meta
    content: str | None = None
    if references is not None:
        try:
            content, ref = _by_reference(text, limits, references)
        except Exception as error:  # noqa: BLE001 - fall back to a plain cut
            meta["reference_error"] = repr(error)
        else:
            if ref is not None:
                meta["ref"] = ref
    if content is None:
        try:
            content, _cut, _total = _truncate_middle(text, budget, limits.head_ratio)
        except Exception as error:  # noqa: BLE001 - the entry point must not raise
            content = text[:budget]
            meta["truncate_error"] = repr(error)
    meta.update(truncated=content != text, chars=len(content))
    return content, meta


def bound_images(images: tuple[ImagePart, ...], budget: int) -> tuple[tuple[ImagePart, ...], int]:
    """The images that fit in `budget` bytes together (the image budget, apart from the text's),
    in order, and how many were left out."""
    kept: list[ImagePart] = []
    used = 0
    for image in images:
        if used + len(image.data) > budget:
            break
        kept.append(image)
        used += len(image.data)
    return tuple(kept), len(images) - len(kept)


def bound_replacement(replaced: ToolResult, code: str, limits: ToolLimits) -> ToolResult:
    """A result an application's hook put in place of the tool's, held to the same budget (not
    stored: it is not the tool's) and carrying a code."""
    meta = dict(replaced.meta)
    meta.setdefault("code", code)
    content = replaced.content if isinstance(replaced.content, str) else str(replaced.content)
    if len(content) > limits.max_result_chars:
        content, cut = bound(content, limits, None)
        meta.update(cut)
    images, _ = bound_images(tuple(replaced.images), limits.image_max_bytes)
    return ToolResult(
        replaced.call_id, content, bool(replaced.is_error), replaced.name, meta, images
    )


def _by_reference(
    text: str, limits: ToolLimits, references: ReferenceStore
) -> tuple[str | None, str | None]:
    ref = references.put(text)
    entry = references.get(ref) if ref is not None else None
    if ref is None or entry is None:
        return None, None
    return head_and_tail(entry, limits.max_result_chars, limits.head_ratio), ref


def head_and_tail(entry: StoredResult, budget: int, head_ratio: float) -> str:
    """Head and tail of a stored result within `budget` characters, with a note naming the
    reference and the rows (the units `read_result` pages in) that were cut."""
    text = entry.text
    total = len(text)
    rows = len(entry.rows)
    starts = list(itertools.accumulate((len(r) for r in entry.rows), initial=0))

    def note(cut: int, first: int, last: int) -> str:
        return (
            f"\n[... {cut:,} of {total:,} characters cut from the middle (the result's lines "
            f"{first:,}-{last:,} of {rows:,}). The whole result is stored as {entry.ref}: call "
            f'read_result with ref="{entry.ref}" and offset={first} to read the cut lines ...]\n'
        )

    room = max(0, budget - len(note(total, rows, rows)))
    head = int(room * head_ratio)
    tail = room - head
    # End the head and start the tail at a line break when one is near.
    newline = text.rfind("\n", 0, head)
    if newline >= 0 and newline + 1 >= head * 0.8:
        head = newline + 1
    tail_start = total - tail
    newline = text.find("\n", tail_start - 1, total)
    if 0 <= newline and newline + 1 - tail_start <= tail * 0.2:
        tail_start = newline + 1
    first = bisect.bisect_right(starts, head) - 1 + 1
    last = bisect.bisect_right(starts, max(head, tail_start - 1)) - 1 + 1
    return text[:head] + note(tail_start - head, first, min(last, rows)) + text[tail_start:]
