"""The pipeline of SPEC §3, its log: records hold compact forms only (no file content, no
secret, long arguments cut); sinks that fail or fill up never change a result; 32 threads at
once leave one record per call in every sink."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest
from _pipeline_helpers import EMPTY, MARKER, only_record, planted_tree
from ripsight import OperationLog, Registry, ToolCall, ToolSpec, default_registry


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return planted_tree(tmp_path)


# -- the log holds compact forms only ---------------------------------------------------------


def test_no_log_record_holds_file_content(tree: Path, tmp_path: Path) -> None:
    jsonl, db = tmp_path / "ops.jsonl", tmp_path / "ops.db"
    log = OperationLog(jsonl=jsonl, sqlite=db)
    reg = default_registry(tree, log=log)
    calls = [
        ("grep", {"pattern": "QZX-FILE-CONTENT-7f3e\\w+"}),
        ("grep", {"pattern": "needle", "output_mode": "count"}),
        ("grep", {"pattern": "row", "limit": 500, "context": 2}),
        ("glob", {"pattern": "**/*"}),
        ("read_file", {"path": "src/app.py"}),
        ("read_file", {"path": "src/big.txt", "limit": 2000}),
        ("read_file", {"path": ".env"}),
        ("read_file", {"path": "blob.bin"}),
        ("grep", {"pattern": "API_KEY", "path": ".env"}),
    ]
    results = [
        reg.execute(ToolCall(f"c{i}", n, orjson.dumps(a).decode()))
        for i, (n, a) in enumerate(calls)
    ]
    refs = [r.meta["ref"] for r in results if r.meta.get("ref")]
    assert refs, "a result over the budget was stored by reference"
    page = reg.execute(ToolCall("page", "read_result", orjson.dumps({"ref": refs[0]}).decode()))
    assert MARKER in page.content and any(MARKER in r.content for r in results)
    log.close()

    dumped = orjson.dumps(reg.log.records()).decode()
    assert MARKER not in dumped
    assert MARKER not in jsonl.read_text()
    rows = sqlite3.connect(db).execute("SELECT * FROM operations").fetchall()
    assert len(rows) == len(calls) + 1
    assert MARKER not in repr(rows)
    # Sizes and counts are kept.
    grep_record = next(r for r in reg.log.records() if r["call_id"] == "c0")
    assert grep_record["output"]["total_matches"] == 3039
    assert grep_record["input"] == {"pattern": "QZX-FILE-CONTENT-7f3e\\w+"}


def test_long_and_secret_arguments_are_compacted() -> None:
    reg = Registry()
    schema = {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "api_key": {"type": "string"},
            "note": {"type": "string"},
        },
    }
    reg.register(ToolSpec("send", "", schema, lambda c, a: "sent", effect="consequential"))
    reg.execute(
        ToolCall(
            "c1",
            "send",
            orjson.dumps(
                {
                    "text": "y" * 5000,
                    "api_key": "hunter2",
                    "note": "token sk-abcdefghijklmnopqrstuvwx inside",
                }
            ).decode(),
        )
    )
    record = only_record(reg, "c1")
    assert record["input"]["text"] == "y" * 200 + "... [5,000 characters]"
    assert record["input"]["api_key"] == "[redacted]"
    assert record["input"]["note"] == "[redacted]"
    assert "hunter2" not in orjson.dumps(record).decode()
    # Text that never parsed is kept as its length only.
    reg.execute(ToolCall("c2", "send", '{"api_key": "hunter2", '))
    assert only_record(reg, "c2")["input"] == {"_unparsed_chars": 23}


def test_records_read_as_dicts_and_attributes(tmp_path: Path) -> None:
    reg = Registry()
    reg.register(ToolSpec("ok", "", EMPTY, lambda c, a: "fine"))
    reg.execute(ToolCall("c1", "ok", "{}"))
    record = reg.log.records()[0]
    assert record["status"] == record.status == "done"
    assert (record.call_id, record.tool, record.outcome, record.code) == (
        "c1",
        "ok",
        "success",
        "ok",
    )
    assert json.loads(orjson.dumps(record))["code"] == "ok"
    with pytest.raises(AttributeError):
        _ = record.nothing


# -- sinks ------------------------------------------------------------------------------------


class RaisingSink:
    def write(self, record: Any) -> None:
        raise OSError("disk full")

    def close(self) -> None:
        raise OSError("still full")


def test_a_failing_sink_never_changes_a_result(tree: Path, tmp_path: Path) -> None:
    log = OperationLog(jsonl=tmp_path / "missing-dir" / "ops.jsonl")
    log._sinks.append(RaisingSink())
    with_log = default_registry(tree, log=log)
    without = default_registry(tree)
    for i, (name, args) in enumerate(
        [
            ("grep", '{"pattern": "needle"}'),
            ("glob", '{"x": 1}'),
            ("nope", "{}"),
            ("read_file", '{"path": "src/app.py"}'),
        ]
    ):
        a = with_log.execute(ToolCall(f"c{i}", name, args))
        b = without.execute(ToolCall(f"c{i}", name, args))
        assert (a.content, a.is_error, a.meta["code"]) == (b.content, b.is_error, b.meta["code"])
    assert log.sink_errors == 8  # two sinks, four calls
    assert len(log.records()) == 4
    log.close()


def test_a_full_ring_keeps_the_newest_and_the_sinks_keep_all(tmp_path: Path) -> None:
    log = OperationLog(capacity=5, jsonl=tmp_path / "ops.jsonl")
    reg = Registry(log=log)
    reg.register(ToolSpec("ok", "", EMPTY, lambda c, a: "fine"))
    for i in range(50):
        reg.execute(ToolCall(f"c{i}", "ok", "{}"))
    assert [r["call_id"] for r in log.records()] == [f"c{i}" for i in range(45, 50)]
    lines = [json.loads(line) for line in (tmp_path / "ops.jsonl").read_text().splitlines()]
    assert [r["call_id"] for r in lines] == [f"c{i}" for i in range(50)]


def test_32_threads_one_record_per_call(tmp_path: Path) -> None:
    log = OperationLog(capacity=100_000, jsonl=tmp_path / "ops.jsonl", sqlite=tmp_path / "ops.db")
    reg = Registry(log=log)
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    reg.register(ToolSpec("echo", "", schema, lambda c, a: f"n={a.get('n')}"))
    reg.register(ToolSpec("fail", "", EMPTY, lambda c, a: 1 / 0))  # type: ignore[arg-type, misc]
    barrier = threading.Barrier(32, timeout=60)
    per_thread = 40

    def worker(t: int) -> None:
        barrier.wait(timeout=60)
        for i in range(per_thread):
            kind = i % 4
            call_id = f"t{t}-{i}"
            if kind == 0:
                reg.execute(ToolCall(call_id, "echo", f'{{"n": {i}}}'))
            elif kind == 1:
                reg.execute(ToolCall(call_id, "fail", "{}"))
            elif kind == 2:
                reg.execute(ToolCall(call_id, "echo", "{bad json"))
            else:
                reg.execute(ToolCall(call_id, "missing", "{}"))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    log.close()
    expected = {f"t{t}-{i}" for t in range(32) for i in range(per_thread)}
    ring = [r["call_id"] for r in log.records()]
    assert len(ring) == len(expected) and set(ring) == expected
    jsonl = [json.loads(x)["call_id"] for x in (tmp_path / "ops.jsonl").read_text().splitlines()]
    assert len(jsonl) == len(expected) and set(jsonl) == expected
    rows = (
        sqlite3.connect(tmp_path / "ops.db")
        .execute("SELECT call_id, status, code FROM operations")
        .fetchall()
    )
    assert len(rows) == len(expected) and {r[0] for r in rows} == expected
    codes = {r[2] for r in rows}
    assert codes == {"ok", "internal", "malformed_json", "unknown_tool"}
    assert all(r["status"] != "running" for r in log.records())


def test_records_read_back_from_each_sink_agree(tree: Path, tmp_path: Path) -> None:
    log = OperationLog(jsonl=tmp_path / "ops.jsonl", sqlite=tmp_path / "ops.db")
    reg = default_registry(tree, log=log)
    for i, args in enumerate(['{"pattern": "needle"}', '{"pattern": "("}', '{"pattern": 1}']):
        reg.execute(ToolCall(f"c{i}", "grep", args))
    log.close()
    ring = [(r["call_id"], r["tool"], r["status"], r["outcome"], r["code"]) for r in log.records()]
    lines = [json.loads(x) for x in (tmp_path / "ops.jsonl").read_text().splitlines()]
    assert [(r["call_id"], r["tool"], r["status"], r["outcome"], r["code"]) for r in lines] == ring
    db = sqlite3.connect(tmp_path / "ops.db")
    rows = db.execute(
        "SELECT call_id, tool, status, outcome, code, input FROM operations ORDER BY started_at"
    ).fetchall()
    assert [tuple(r[:5]) for r in rows] == ring
    assert json.loads(rows[0][5]) == {"pattern": "needle"}


def test_an_unopenable_database_is_a_failing_sink(tmp_path: Path) -> None:
    log = OperationLog(sqlite=tmp_path / "no" / "such" / "dir" / "ops.db")
    reg = Registry(log=log)
    reg.register(ToolSpec("ok", "", EMPTY, lambda c, a: "fine"))
    assert reg.execute(ToolCall("c1", "ok", "{}")).content == "fine"
    assert log.sink_errors == 1 and "OperationalError" in (log.last_sink_error or "")
    assert [r.code for r in log.records()] == ["ok"]
