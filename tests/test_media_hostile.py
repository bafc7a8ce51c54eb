"""Hostile images and notebooks: each read runs in a child process that reports its answer, how
long the call took and its peak memory (VmHWM from /proc, else `resource.getrusage`), then makes
one more call to show it lives on. Every child wait has a timeout.

Each must answer within 5 s with a clear error or a bounded answer, in under 300 MB.
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
from _media_corpus import real_images
from PIL import Image

pytestmark = pytest.mark.slow  # a child interpreter per case, and files up to 1 GiB

#: The child's bound on one call, and on its peak resident memory (the interpreter included).
ANSWER_SECONDS = 5.0
PEAK_BYTES = 300 * 1024 * 1024
#: A hang guard on the child as a whole (start-up, the call, the second call).
CHILD_TIMEOUT = 60.0

_CHILD = r"""
import json, resource, sys, time
from ripsight import ToolCall, default_registry
def peak_bytes():
    # VmHWM: this process's own peak (ru_maxrss also counts the parent's pages it forked with).
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
root, arguments = sys.argv[1], json.loads(sys.argv[2])
registry = default_registry(root)
started = time.perf_counter()
result = registry.execute(ToolCall("c1", "read_file", arguments))
elapsed = time.perf_counter() - started
alive = registry.execute(ToolCall("c2", "glob", {"pattern": "*"}))
print(json.dumps({
    "code": result.meta["code"],
    "is_error": result.is_error,
    "text": result.content[:600],
    "images": [len(image.data) for image in result.images],
    "elapsed": elapsed,
    "peak_bytes": peak_bytes(),
    "alive": not alive.is_error,
}))
"""


def _read_in_child(root: Path, arguments: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), json.dumps(arguments)],
        capture_output=True,
        timeout=CHILD_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    answer: dict[str, Any] = json.loads(done.stdout)
    assert answer["alive"], answer
    assert answer["elapsed"] < ANSWER_SECONDS, answer
    assert answer["peak_bytes"] < PEAK_BYTES, answer
    return answer


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png_bomb(path: Path, side: int = 30_000) -> None:
    """A complete, valid `side` x `side` PNG (1-bit grey, all black): about 100 KB on disk,
    900 million pixels (3.6 GB as RGBA) once decoded."""
    row = b"\x00" + bytes((side + 7) // 8)
    packer = zlib.compressobj(9)
    body = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", body)
        + _chunk(b"IEND", b"")
    )


def _largest(kind: str) -> Path:
    paths = real_images().get(kind, [])
    if not paths:
        pytest.skip(f"no real {kind} under /usr/share on this machine")
    return paths[-1]


def test_a_30000x30000_png_bomb_is_refused_from_its_header(tmp_path: Path) -> None:
    _png_bomb(tmp_path / "bomb.png")
    answer = _read_in_child(tmp_path, {"path": "bomb.png"})
    assert answer["is_error"] and answer["code"] == "too_many_pixels", answer
    assert "30000x30000" in answer["text"] and not answer["images"]


@pytest.mark.parametrize("kind", ["PNG", "JPEG"])
def test_an_image_cut_off_mid_stream_answers_clearly(kind: str, tmp_path: Path) -> None:
    data = _largest(kind).read_bytes()
    name = f"cut.{kind.lower()}"
    (tmp_path / name).write_bytes(data[: len(data) // 2])
    answer = _read_in_child(tmp_path, {"path": name})
    if answer["is_error"]:
        assert answer["code"] == "undecodable" and "truncated or corrupt" in answer["text"]
    else:
        # A decoder may show what arrived (JPEG's scans): one bounded image, re-encoded and
        # said to be partial (test_media.py has Pillow decode such images).
        assert answer["code"] == "ok" and len(answer["images"]) == 1, answer
        assert "cut short or damaged" in answer["text"], answer


def test_a_gif_of_10000_frames_shows_its_first_frame(tmp_path: Path) -> None:
    frames = [Image.new("P", (8, 8), i % 2) for i in range(10_000)]
    for frame in frames:
        frame.putpalette([0, 0, 0, 255, 255, 255])
    frames[0].save(tmp_path / "many.gif", save_all=True, append_images=frames[1:], duration=10)
    with Image.open(tmp_path / "many.gif") as image:
        assert image.n_frames == 10_000
    answer = _read_in_child(tmp_path, {"path": "many.gif"})
    assert answer["code"] == "ok" and len(answer["images"]) == 1, answer
    assert answer["text"].startswith("many.gif: GIF image, 8x8")


def test_a_deeply_nested_notebook_answers(tmp_path: Path) -> None:
    depth = 1_000_000
    skipped = "[" * depth + "]" * depth
    notebook = (
        '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", '
        '"metadata": {}, "source": "x = 1", "execution_count": 1, "outputs": [{"output_type": '
        f'"display_data", "metadata": {{}}, "data": {{"application/json": {skipped}, '
        '"text/plain": "shown"}}]}]}'
    )
    (tmp_path / "deep.ipynb").write_text(notebook)
    answer = _read_in_child(tmp_path, {"path": "deep.ipynb"})
    assert answer["code"] == "ok" and "shown" in answer["text"], answer
    (tmp_path / "deeper.ipynb").write_text(f'{{"cells": [{{"source": {skipped}}}]}}')
    answer = _read_in_child(tmp_path, {"path": "deeper.ipynb"})
    assert "is not a valid notebook" in answer["text"], answer


def test_a_notebook_with_a_1_gb_output_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "huge.ipynb"
    block = b"a" * (64 << 20)
    try:
        with path.open("wb") as out:
            out.write(
                b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": '
                b'"code", "metadata": {}, "source": "print()", "execution_count": 1, "outputs": '
                b'[{"output_type": "stream", "name": "stdout", "text": "'
            )
            for _ in range(16):
                out.write(block)
            out.write(b'"}]}]}')
        assert path.stat().st_size > 1 << 30
        answer = _read_in_child(tmp_path, {"path": "huge.ipynb"})
        assert answer["is_error"] and answer["code"] == "too_large", answer
        assert "notebooks over" in answer["text"]
        answer = _read_in_child(tmp_path, {"path": "huge.ipynb", "cell": 1})
        assert answer["is_error"] and answer["code"] == "too_large", answer
    finally:
        path.unlink(missing_ok=True)


def test_a_50_mb_image_file_is_refused_unread(tmp_path: Path) -> None:
    source = _largest("PNG")
    with (tmp_path / "padded.png").open("wb") as out:
        shutil.copyfileobj(source.open("rb"), out)
        out.write(bytes(51_000_000))
    answer = _read_in_child(tmp_path, {"path": "padded.png"})
    assert answer["is_error"] and answer["code"] == "too_large", answer
