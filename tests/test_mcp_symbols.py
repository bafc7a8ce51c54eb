"""Two `ripsight mcp` servers on one tree share one symbol index file (issue 24): started at the
same moment, one builds the file under the lock while the other waits for it, both answer
`find_references` from it, and both processes map the same file.

Driven by the official SDK's stdio client (whichever major is installed).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from _mcp_helpers import wire
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from test_symbol_index import make_tree

pytestmark = pytest.mark.slow  # two MCP server processes

#: A hang guard, not a speed assertion.
SESSION_TIMEOUT = 120.0


def _mapped_by(path: Path) -> dict[int, int]:
    """The processes mapping `path` (by its name in /proc/PID/maps), each with the inode it
    maps."""
    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            maps = Path(f"/proc/{entry}/maps").read_text()
        except OSError:
            continue
        for line in maps.splitlines():
            fields = line.split(maxsplit=5)
            if len(fields) == 6 and fields[5] == str(path):
                found[int(entry)] = int(fields[4])
    return found


async def _answer_from_the_index(session: ClientSession, deadline: float) -> dict[str, Any]:
    """find_references of `helper`, asked until the symbol index answers it (no file searched:
    the cold engine searches every file of the tree)."""
    while True:
        result = wire(await session.call_tool("find_references", {"name": "helper"}))
        structured = result.get("structuredContent")
        assert structured is not None and not result.get("isError"), result
        if structured["files_searched"] == 0:
            return dict(structured)
        assert time.monotonic() < deadline, "the symbol index did not answer in time"
        await asyncio.sleep(0.1)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/PID/maps")
def test_two_servers_on_one_tree_share_one_symbol_file(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree", files=200)
    cache = tmp_path / "cache"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ripsight.cli", "mcp", str(root)],
        env={**os.environ, "XDG_CACHE_HOME": str(cache)},
    )

    async def both() -> tuple[list[dict[str, Any]], dict[int, int], list[Path]]:
        deadline = time.monotonic() + SESSION_TIMEOUT / 2
        with (tmp_path / "err1").open("w") as err1, (tmp_path / "err2").open("w") as err2:
            async with (
                stdio_client(params, errlog=err1) as (read1, write1),
                stdio_client(params, errlog=err2) as (read2, write2),
                ClientSession(read1, write1) as one,
                ClientSession(read2, write2) as two,
            ):
                await asyncio.gather(one.initialize(), two.initialize())
                answers = await asyncio.gather(
                    _answer_from_the_index(one, deadline), _answer_from_the_index(two, deadline)
                )
                files = sorted((cache / "ripsight" / "index").glob("*.rssym"))
                mapped = _mapped_by(files[0]) if len(files) == 1 else {}
                return list(answers), mapped, files

    answers, mapped, files = asyncio.run(asyncio.wait_for(both(), SESSION_TIMEOUT))
    for err in ("err1", "err2"):
        assert "Traceback" not in (tmp_path / err).read_text()
    assert len(files) == 1, files
    for answer in answers:
        answer.pop("elapsed_ms", None)
    assert answers[0] == answers[1]
    assert answers[0]["total"] > 0
    # Both servers (and nothing else) map the one file, the same inode.
    assert len(mapped) == 2, mapped
    assert set(mapped.values()) == {files[0].stat().st_ino}
