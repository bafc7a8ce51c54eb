"""A process holding one indexed workspace, driven by JSON lines on stdin (for the tests of
processes sharing one index file: tests/test_index_shared.py).

Run as ``python tests/_index_child.py ROOT``; each line read is a command, each answered with one
JSON line: ``{"op": "wait"}`` (waits for the index, then as "status"), ``{"op": "status"}``,
``{"op": "grep" | "glob", "kwargs": {...}}`` (the answer without its timing, or the error),
``{"op": "write", "path": P, "text": T}`` (an edit made by this process), ``{"op": "maps"}``
(the index files this process maps: device and inode from /proc/self/maps), ``{"op": "memory"}``
(RssAnon, RssFile, RssShmem and VmRSS in KiB, before the workspace was made and now),
``{"op": "exit"}``.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from ripsight import Workspace
from ripsight.workspace import to_dict


def answer(ws: Workspace, call: str, kwargs: dict[str, Any]) -> Any:
    try:
        result = getattr(ws, call)(**kwargs)
    except Exception as error:  # noqa: BLE001 - the error is the answer
        return [type(error).__name__, str(error)]
    out = to_dict(result)
    out.pop("elapsed_ms", None)
    return out


def maps() -> list[list[str]]:
    """(device, inode) of every index file mapped, from /proc/self/maps."""
    found = set()
    with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 6 and parts[5].endswith(".rsidx"):
                found.add((parts[3], parts[4]))
    return sorted([list(f) for f in found])


def memory() -> dict[str, int]:
    out = {}
    with open("/proc/self/status", encoding="utf-8") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in ("RssAnon", "RssFile", "RssShmem", "VmRSS"):
                out[key] = int(value.split()[0])
    return out


def main() -> None:
    root = sys.argv[1]
    before = memory()
    ws = Workspace(root, index=True)
    for line in sys.stdin:
        command = json.loads(line)
        op = command["op"]
        reply: Any
        if op == "wait":
            ws.wait_index(command.get("timeout", 120))
            reply = ws.index_status()
        elif op == "status":
            reply = ws.index_status()
        elif op in ("grep", "glob"):
            reply = answer(ws, op, command.get("kwargs", {}))
        elif op == "write":
            path = os.path.join(root, command["path"])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(command["text"])
            reply = "written"
        elif op == "maps":
            reply = maps()
        elif op == "memory":
            reply = {"before": before, "now": memory()}
        elif op == "exit":
            ws.close()
            print(json.dumps("bye"), flush=True)
            return
        else:
            reply = f"unknown op {op!r}"
        print(json.dumps(reply, default=str), flush=True)


if __name__ == "__main__":
    main()
