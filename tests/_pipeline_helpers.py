"""Shared helpers of the pipeline tests (tests/test_pipeline_*.py): a tree with a planted
marker, and a check that a call ends in exactly one operation with the expected exit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ripsight import Registry, ToolResult

EMPTY: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


# Planted in every file of the tree; no log record may ever hold it.
MARKER = "QZX-FILE-CONTENT-7f3e9a"


def planted_tree(tmp_path: Path) -> Path:
    """A small tree under `tmp_path` whose every file holds `MARKER`: a text file, a file over
    the read budget, a secret, a binary file and an empty one."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(
        "".join(f"line {i} {MARKER} needle\n" for i in range(1, 40))
    )
    (root / "src" / "big.txt").write_text(
        "".join(f"{MARKER} row {i} {'x' * 80}\n" for i in range(3000))
    )
    (root / ".env").write_text(f"API_KEY={MARKER}\n")
    (root / "blob.bin").write_bytes(b"\x00\x01" + MARKER.encode() + b"\x00" * 50)
    (root / "empty.txt").write_text("")
    return root


def only_record(reg: Registry, call_id: str) -> dict[str, Any]:
    records = [r for r in reg.log.records() if r["call_id"] == call_id]
    assert len(records) == 1, records
    return records[0]


def check(
    reg: Registry, call: Any, status: str, outcome: str, code: str, call_id: str = "c1"
) -> ToolResult:
    result = reg.execute(call)
    record = only_record(reg, call_id)
    assert (record["status"], record["outcome"], record["code"]) == (status, outcome, code), (
        record,
        result.content,
    )
    assert result.meta["code"] == code
    assert record["model_chars"] == len(result.content)
    assert record["duration_ms"] >= 0
    assert result.is_error is (outcome == "failure")
    return result
