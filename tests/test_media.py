"""Images and notebooks through `read_file`: real files compared with independent readers
(Pillow for images, nbformat for notebooks), the one-line text, the bounds, and every
provider's form of an image result validated with the SDKs' own types."""

from __future__ import annotations

import base64
import io
import random
import re
import shutil
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import nbformat
import pytest
from _media_corpus import real_images, real_notebooks
from PIL import Image, ImageChops, ImageStat
from pydantic import TypeAdapter
from ripsight import (
    ToolCall,
    ToolLimits,
    Workspace,
    default_registry,
    follow_up,
    openai_chat_image_messages,
)
from ripsight.tools.read_file import read_kind

IMAGES = real_images()
LIMITS = ToolLimits()


def _pick(kind: str, count: int = 4) -> list[Path]:
    """Up to `count` real images of `kind` Pillow reads as that format, spread over sizes."""
    paths = IMAGES.get(kind, [])
    step = max(1, len(paths) // count)
    picked = []
    for path in paths[::step]:
        try:
            with Image.open(path) as image:
                if image.format == kind:
                    picked.append(path)
        except OSError:
            continue
    return picked[:count]


def _large_real_png() -> Path | None:
    """The real PNG with the most pixels, when it is over the shown bounds."""
    best: tuple[int, Path] | None = None
    for path in IMAGES.get("PNG", [])[-400:]:
        try:
            with Image.open(path) as image:
                pixels = image.width * image.height
        except OSError:
            continue
        if best is None or pixels > best[0]:
            best = (pixels, path)
    if best is None or best[0] <= LIMITS.image_max_pixels:
        return None
    return best[1]


def _decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def _mean_difference(ours: Image.Image, theirs: Image.Image) -> float:
    """Mean absolute difference per channel (0-255) of two images of one size, in RGB."""
    assert ours.size == theirs.size
    stat = ImageStat.Stat(ImageChops.difference(ours.convert("RGB"), theirs.convert("RGB")))
    return sum(stat.mean) / 3


# -- real images against Pillow --------------------------------------------------------------


@pytest.mark.parametrize("kind", ["PNG", "JPEG", "GIF"])
def test_real_images_within_the_bounds_pass_through_untouched(kind: str, tmp_path: Path) -> None:
    paths = _pick(kind)
    if not paths:
        pytest.skip(f"no {kind} file under /usr/share on this machine")
    ws = Workspace(tmp_path)
    for number, path in enumerate(paths):
        name = f"img{number}{path.suffix}"
        shutil.copyfile(path, tmp_path / name)
        original = path.read_bytes()
        with Image.open(path) as theirs:
            size = theirs.size
        result = ws.read_image(name)
        assert result.refused is None, (path, result.detail)
        assert (result.width, result.height) == size, path
        assert result.source_media_type == f"image/{kind.lower()}"
        within = max(size) <= LIMITS.image_max_edge and size[0] * size[1] <= LIMITS.image_max_pixels
        if within and len(original) <= LIMITS.image_max_bytes:
            assert result.data == original and not result.reencoded, path
            assert (result.shown_width, result.shown_height) == size
        else:
            assert max(result.shown_width, result.shown_height) <= LIMITS.image_max_edge
        assert _decoded(result.data).size == (result.shown_width, result.shown_height)


def test_a_large_real_png_is_downscaled_like_pillow_does_it(tmp_path: Path) -> None:
    path = _large_real_png()
    if path is None:
        pytest.skip("no real PNG over the shown bounds under /usr/share on this machine")
    shutil.copyfile(path, tmp_path / "big.png")
    result = Workspace(tmp_path).read_image("big.png")
    assert result.refused is None, result.detail
    with Image.open(path) as theirs:
        assert (result.width, result.height) == theirs.size
        w, h = result.shown_width, result.shown_height
        assert result.downscaled and max(w, h) <= LIMITS.image_max_edge
        assert w * h <= LIMITS.image_max_pixels and result.byte_size <= LIMITS.image_max_bytes
        assert abs(w / h - theirs.width / theirs.height) < 0.01
        expected = theirs.convert("RGBA").resize((w, h), Image.Resampling.BOX)
    ours = _decoded(result.data)
    assert ours.size == (w, h) and result.media_type == "image/png"
    assert _mean_difference(ours, expected) < 3.0


def test_webp_from_a_real_image_passes_through_and_downscales(tmp_path: Path) -> None:
    # No Debian package here ships a WebP: Pillow (libwebp) encodes a real PNG as one.
    path = _large_real_png() or (_pick("PNG") or [None])[-1]
    if path is None:
        pytest.skip("no real PNG under /usr/share on this machine")
    with Image.open(path) as source:
        small = source.convert("RGB")
        small.thumbnail((400, 400))
        small.save(tmp_path / "small.webp", "WEBP", lossless=True)
        big = source.convert("RGB").resize((2400, 1800))
        big.save(tmp_path / "big.webp", "WEBP", quality=90)
    ws = Workspace(tmp_path)
    result = ws.read_image("small.webp")
    assert result.refused is None and result.media_type == "image/webp"
    assert result.data == (tmp_path / "small.webp").read_bytes()
    result = ws.read_image("big.webp")
    assert result.refused is None and result.downscaled
    with Image.open(tmp_path / "big.webp") as theirs:
        expected = theirs.convert("RGB").resize(
            (result.shown_width, result.shown_height), Image.Resampling.BOX
        )
    assert _mean_difference(_decoded(result.data), expected) < 4.0


def test_the_byte_budget_reencodes_smaller(tmp_path: Path) -> None:
    paths = _pick("PNG")
    if not paths:
        pytest.skip("no real PNG under /usr/share on this machine")
    shutil.copyfile(paths[-1], tmp_path / "a.png")
    size = (tmp_path / "a.png").stat().st_size
    budget = max(200, size // 3)
    result = Workspace(tmp_path).read_image("a.png", max_bytes=budget)
    # A third of the file (200 bytes at least) holds a smaller encoding of any image, made
    # smaller still if need be: the image is shown, never refused.
    assert result.refused is None, result.detail
    assert result.reencoded and result.byte_size <= budget
    assert len(result.data) == result.byte_size
    # Under what any encoding needs, it is refused, and says so.
    tiny = Workspace(tmp_path).read_image("a.png", max_bytes=10)
    assert (tiny.refused, tiny.data) == ("cannot_fit", b"")
    assert tiny.detail == "no encoding of the image fits in 10 bytes"


# -- images cut short or damaged: nothing undecodable is handed on --------------------------

#: Pillow's `save` arguments for each encoding cut in the tests below.
_ENCODINGS: dict[str, dict[str, Any]] = {
    "JPEG": {"format": "JPEG", "quality": 90},
    "progressive JPEG": {"format": "JPEG", "quality": 90, "progressive": True},
    "PNG": {"format": "PNG"},
    "GIF": {"format": "GIF"},
    "animated GIF": {"format": "GIF", "save_all": True},
    "lossy WebP": {"format": "WEBP", "quality": 80},
    "lossless WebP": {"format": "WEBP", "lossless": True},
}
_SUFFIXES = {"JPEG": ".jpg", "PNG": ".png", "GIF": ".gif", "WEBP": ".webp"}
_SIZE = (240, 160)


def _busy_image(seed: int = 7) -> Image.Image:
    """Gradients under noise: every part of the encoded data carries pixels, so a cut anywhere
    after the header loses some."""
    rng = random.Random(seed)
    width, height = _SIZE
    image = Image.new("RGB", _SIZE)
    image.putdata(
        [
            ((x * 255) // width, (y * 255) // height, rng.randrange(256))
            for y in range(height)
            for x in range(width)
        ]
    )
    return image


def _encoded(kind: str) -> tuple[bytes, str]:
    """The busy image encoded as `kind` (three frames for the animated GIF), and its suffix."""
    options = dict(_ENCODINGS[kind])
    if options.get("save_all"):
        options["append_images"] = [_busy_image(8), _busy_image(9)]
    out = io.BytesIO()
    _busy_image().save(out, **options)
    return out.getvalue(), _SUFFIXES[options["format"]]


@pytest.mark.parametrize("kind", list(_ENCODINGS))
def test_an_image_cut_short_is_shown_only_as_bytes_that_decode(kind: str, tmp_path: Path) -> None:
    """A file cut anywhere is refused `undecodable`, or shown re-encoded from what decoded and
    marked partial; Pillow (the independent reader, which refuses a truncated file) decodes
    every image handed on. The whole file passes through untouched."""
    data, suffix = _encoded(kind)
    reg = default_registry(tmp_path)
    (tmp_path / f"whole{suffix}").write_bytes(data)
    whole = reg.execute(ToolCall("w", "read_file", {"path": f"whole{suffix}"}))
    assert not whole.is_error and whole.images[0].data == data, whole.content
    assert not whole.meta["engine_result"].partial and "shown as is" in whole.content
    fractions = (0.05, 0.2, 0.4, 0.6, 0.8, 0.9, 0.97, 0.995)
    cuts = sorted({int(len(data) * f) for f in fractions} | {len(data) - 2, len(data) - 1})
    outcomes = Counter()
    for cut in cuts:
        name = f"cut{cut}{suffix}"
        (tmp_path / name).write_bytes(data[:cut])
        result = reg.execute(ToolCall(f"c{cut}", "read_file", {"path": name}))
        if result.is_error:
            assert result.meta["code"] == "undecodable" and not result.images, result.content
            outcomes["refused"] += 1
            continue
        (image,) = result.images
        assert _decoded(image.data).size == _SIZE, (name, result.content)
        engine = result.meta["engine_result"]
        assert engine.partial and engine.reencoded and engine.detail, (name, result.content)
        assert "The file is cut short or damaged (" in result.content
        outcomes["partial"] += 1
    assert sum(outcomes.values()) == len(cuts), outcomes


def test_a_damaged_png_chunk_is_not_passed_through(tmp_path: Path) -> None:
    """A flipped bit in an ancillary chunk: the png crate decodes the image and skips the CRC
    check, Pillow refuses the file, so the bytes shown are a new encoding."""
    data, _ = _encoded("PNG")
    text = b"tEXtComment\x00made by the test"
    chunk = len(text[4:]).to_bytes(4, "big") + text + zlib.crc32(text).to_bytes(4, "big")
    damaged = bytearray(data[:33] + chunk + data[33:])
    damaged[33 + 12] ^= 0x01  # inside the chunk's text
    (tmp_path / "damaged.png").write_bytes(bytes(damaged))
    with pytest.raises(OSError):  # Pillow: "cannot identify image file"
        _decoded(bytes(damaged))
    result = default_registry(tmp_path).execute(
        ToolCall("c1", "read_file", {"path": "damaged.png"})
    )
    assert not result.is_error and result.meta["engine_result"].partial, result.content
    assert "CRC of a tEXt chunk" in result.content
    assert _decoded(result.images[0].data).size == _SIZE


def test_a_notebook_cell_image_cut_short_decodes_or_is_not_shown(tmp_path: Path) -> None:
    jpeg, _ = _encoded("JPEG")
    png, _ = _encoded("PNG")
    outputs = [
        nbformat.v4.new_output(
            "display_data", data={"image/jpeg": base64.b64encode(jpeg[: len(jpeg) // 2]).decode()}
        ),
        nbformat.v4.new_output(
            "display_data", data={"image/png": base64.b64encode(png[: len(png) // 2]).decode()}
        ),
        nbformat.v4.new_output("display_data", data={"image/png": base64.b64encode(png).decode()}),
    ]
    cell = nbformat.v4.new_code_cell("show()", outputs=outputs)
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), tmp_path / "nb.ipynb")
    result = default_registry(tmp_path).execute(
        ToolCall("c1", "read_file", {"path": "nb.ipynb", "cell": 1})
    )
    assert not result.is_error, result.content
    lines = result.content.splitlines()
    assert "cut short or damaged" in lines[1] and "not shown (undecodable" in lines[2], lines
    assert "shown as is" in lines[3], lines
    assert len(result.images) == 2
    assert [_decoded(image.data).size for image in result.images] == [_SIZE, _SIZE]
    assert result.images[1].data == png


# -- read_file: dispatch, text, bounds -------------------------------------------------------


@pytest.fixture
def image_tree(tmp_path: Path) -> Path:
    paths = _pick("PNG")
    if not paths:
        pytest.skip("no real PNG under /usr/share on this machine")
    shutil.copyfile(paths[-1], tmp_path / "Logo.PNG")
    shutil.copyfile(paths[-1], tmp_path / "logo.dat")
    (tmp_path / "notes.png").write_text("not an image at all\n")
    (tmp_path / "icon.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>\n')
    (tmp_path / "app.py").write_text("x = 1\n")
    return tmp_path


def test_read_file_returns_the_image_and_one_line(image_tree: Path) -> None:
    reg = default_registry(image_tree)
    result = reg.execute(ToolCall("c1", "read_file", {"path": "Logo.PNG"}))
    with Image.open(image_tree / "Logo.PNG") as theirs:
        w, h = theirs.size
    assert not result.is_error and result.meta["code"] == "ok"
    assert re.fullmatch(
        rf"Logo\.PNG: PNG image, {w}x{h}, shown (as is|at \d+x\d+) \(.*\)\.", result.content
    )
    assert len(result.images) == 1 and result.images[0].media_type.startswith("image/")
    assert result.meta["image_bytes"] == len(result.images[0].data)
    record = reg.log.records()[-1]
    assert record["output"]["images"] == 1 and "data" not in str(record["output"])


def test_an_image_the_engine_sniffs_is_shown_and_a_text_named_png_is_text(image_tree: Path) -> None:
    reg = default_registry(image_tree)
    sniffed = reg.execute(ToolCall("c1", "read_file", {"path": "logo.dat"}))
    assert sniffed.images and sniffed.content.startswith("logo.dat: PNG image")
    text = reg.execute(ToolCall("c2", "read_file", {"path": "notes.png"}))
    assert not text.images and "not an image at all" in text.content
    svg = reg.execute(ToolCall("c3", "read_file", {"path": "icon.svg"}))
    assert not svg.images and "<svg" in svg.content


def test_grep_still_skips_a_png_as_binary(image_tree: Path) -> None:
    result = Workspace(image_tree).grep("IHDR", literal=True)
    assert result.total_matches == 0 and result.skipped.binary >= 2


def test_cell_on_a_file_that_is_not_a_notebook_is_refused(image_tree: Path) -> None:
    result = default_registry(image_tree).execute(
        ToolCall("c1", "read_file", {"path": "app.py", "cell": 2})
    )
    assert result.is_error and "cell applies to Jupyter notebooks" in result.content


def test_dispatch_is_by_extension_in_any_case() -> None:
    assert [read_kind(p) for p in ("a.PNG", "b.JpEg", "c.webp", "d.gif", "e.jpg")] == ["image"] * 5
    assert [read_kind(p) for p in ("n.IPYNB", "x.svg", "y.py")] == ["notebook", "text", "text"]


def test_the_image_bounds_are_configurable_and_stated(image_tree: Path) -> None:
    limits = ToolLimits(image_max_edge=40, image_max_pixels=1000)
    reg = default_registry(image_tree, limits=limits)
    result = reg.execute(ToolCall("c1", "read_file", {"path": "Logo.PNG"}))
    shown = _decoded(result.images[0].data)
    assert max(shown.size) <= 40 and shown.size[0] * shown.size[1] <= 1000
    description = next(d for d in reg.definitions("anthropic") if d["name"] == "read_file")
    assert "over 40 px on its long edge or 0.001 megapixels" in description["description"]
    default = default_registry(image_tree).definitions("anthropic")
    text = next(d for d in default if d["name"] == "read_file")["description"]
    assert "over 1,568 px on its long edge or 1.15 megapixels" in text and "50 MB" in text


def test_error_results_carry_no_image(tmp_path: Path) -> None:
    (tmp_path / "cut.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    result = default_registry(tmp_path).execute(ToolCall("c1", "read_file", {"path": "cut.png"}))
    assert result.is_error and not result.images and result.meta["code"] == "undecodable"
    assert "truncated or corrupt" in result.content


# -- every provider form, validated with the SDKs' types --------------------------------------


@pytest.fixture
def image_result(image_tree: Path) -> tuple[ToolCall, Any]:
    call = ToolCall("call_img", "read_file", {"path": "Logo.PNG"})
    return call, default_registry(image_tree).execute(call)


def test_anthropic_tool_result_has_an_image_block(image_result: tuple[ToolCall, Any]) -> None:
    from anthropic.types import MessageParam

    call, result = image_result
    messages = follow_up("anthropic", [call], [result])
    for message in messages:
        TypeAdapter(MessageParam).validate_python(message)
    block = messages[1]["content"][0]
    assert block["type"] == "tool_result"
    text, image = block["content"]
    assert text == {"type": "text", "text": result.content}
    assert image["type"] == "image" and image["source"]["type"] == "base64"
    assert base64.b64decode(image["source"]["data"]) == result.images[0].data
    assert image["source"]["media_type"] == result.images[0].media_type


def test_openai_responses_output_has_an_input_image(image_result: tuple[ToolCall, Any]) -> None:
    from openai.types.responses import ResponseInputItemParam

    call, result = image_result
    items = follow_up("openai-responses", [call], [result])
    for item in items:
        TypeAdapter(ResponseInputItemParam).validate_python(item)
    output = items[-1]["output"]
    assert output[0] == {"type": "input_text", "text": result.content}
    prefix = f"data:{result.images[0].media_type};base64,"
    assert output[1]["type"] == "input_image" and output[1]["image_url"].startswith(prefix)
    assert base64.b64decode(output[1]["image_url"][len(prefix) :]) == result.images[0].data


def test_openai_chat_carries_text_and_a_helper_adds_the_image(
    image_result: tuple[ToolCall, Any],
) -> None:
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionUserMessageParam

    call, result = image_result
    messages = follow_up("openai", [call], [result])
    assert messages[-1]["content"] == result.content
    extra = openai_chat_image_messages([result])
    assert len(extra) == 1
    TypeAdapter(ChatCompletionUserMessageParam).validate_python(extra[0])
    for message in [*messages, *extra]:
        TypeAdapter(ChatCompletionMessageParam).validate_python(message)
    parts = extra[0]["content"]
    assert "call_img" in parts[0]["text"]
    assert parts[1]["image_url"]["url"] == result.images[0].data_url
    text_only = default_registry(Path(result.meta["engine_result"].path).parent)
    assert openai_chat_image_messages([text_only.execute(ToolCall("t", "glob", {}))]) == []


# -- notebooks against nbformat --------------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def _expected_output(output: Any) -> tuple[str, str]:
    kind = output["output_type"]
    if kind == "stream":
        return kind, output.get("text", "")
    if kind in ("execute_result", "display_data"):
        return kind, output.get("data", {}).get("text/plain", "")
    if kind == "error":
        traceback = "\n".join(output.get("traceback", []))
        text = traceback or f"{output.get('ename', '')}: {output.get('evalue', '')}"
        return kind, _ANSI.sub("", text)
    return "other", ""


def _compare_with_nbformat(ws: Workspace, name: str, path: Path) -> None:
    theirs = nbformat.read(path, as_version=4)
    ours = ws.read_notebook(name, 1, 10_000, max_output_chars=10**8)
    assert ours.refused is None, ours.detail
    assert ours.total_cells == len(theirs.cells) == len(ours.cells), name
    for cell, mine in zip(theirs.cells, ours.cells, strict=True):
        where = f"{name} cell {mine.number}"
        assert mine.kind == cell.cell_type, where
        assert mine.source == cell.source, where
        assert mine.id == cell.get("id"), where
        if cell.cell_type != "code":
            continue
        assert mine.execution_count == cell.get("execution_count"), where
        assert len(mine.outputs) == len(cell.outputs), where
        for output, shown in zip(cell.outputs, mine.outputs, strict=True):
            kind, text = _expected_output(output)
            assert (shown.output_type, shown.text) == (kind, text), where
            images = [k for k in output.get("data", {}) if k.startswith("image/")]
            assert [i.media_type for i in shown.images] == images, where


def test_real_notebooks_read_as_nbformat_reads_them() -> None:
    notebooks = real_notebooks()
    if not notebooks:
        pytest.skip("no real notebooks: run scripts/real-notebooks (.ci/run does)")
    ws = Workspace(notebooks[0].parent)
    for path in notebooks:
        _compare_with_nbformat(ws, path.name, path)


def test_nbformat3_notebooks_read_as_their_nbformat4_upgrade(tmp_path: Path) -> None:
    v3 = nbformat.v3
    worksheet = v3.new_worksheet(
        cells=[
            v3.new_heading_cell("A heading", level=2),
            v3.new_code_cell(
                input="print('hi')\n1 + 1",
                prompt_number=4,
                outputs=[
                    v3.new_output("stream", output_text="hi\n", stream="stdout"),
                    v3.new_output("pyout", output_text="2", prompt_number=4),
                    v3.new_output(
                        "pyerr", ename="E", evalue="bad", traceback=["\x1b[31mE\x1b[0m: bad"]
                    ),
                ],
            ),
            v3.new_text_cell("markdown", source="some *text*"),
        ]
    )
    notebook = v3.new_notebook(
        worksheets=[worksheet, v3.new_worksheet(cells=[v3.new_code_cell("x")])]
    )
    (tmp_path / "old.ipynb").write_text(v3.writes_json(notebook))
    ours = Workspace(tmp_path).read_notebook("old.ipynb")
    assert ours.nbformat == 3 and ours.total_cells == 4
    theirs = nbformat.read(tmp_path / "old.ipynb", as_version=4)
    for cell, mine in zip(theirs.cells, ours.cells, strict=True):
        assert (mine.kind, mine.source) == (cell.cell_type, cell.source)
        outputs = [_expected_output(o) for o in cell.get("outputs", [])]
        assert [(o.output_type, o.text) for o in mine.outputs] == outputs


def test_read_file_pages_cells_and_shows_a_cell_image(tmp_path: Path) -> None:
    notebooks = {p.name: p for p in real_notebooks()}
    path = notebooks.get("Inline Image.ipynb") or notebooks.get("nbconvert_library.ipynb")
    if path is None:
        pytest.skip("no real notebook with an image: run scripts/real-notebooks")
    shutil.copyfile(path, tmp_path / "nb.ipynb")
    theirs = nbformat.read(path, as_version=4)
    with_image = next(
        number
        for number, cell in enumerate(theirs.cells, 1)
        for output in cell.get("outputs", [])
        if "image/png" in output.get("data", {})
    )
    reg = default_registry(tmp_path)
    page = reg.execute(
        ToolCall("c1", "read_file", {"path": "nb.ipynb", "offset": with_image, "limit": 1})
    )
    assert page.content.startswith("nb.ipynb: notebook (nbformat 4.")
    assert f"[{with_image}] code" in page.content
    assert f"read_file with cell={with_image} shows it" in page.content
    if with_image < len(theirs.cells):
        assert f"offset={with_image + 1}" in page.content
    shown = reg.execute(ToolCall("c2", "read_file", {"path": "nb.ipynb", "cell": with_image}))
    assert not shown.is_error and len(shown.images) >= 1
    png = next(o for o in theirs.cells[with_image - 1].outputs if "image/png" in o.get("data", {}))
    original = base64.b64decode(png["data"]["image/png"])
    with Image.open(io.BytesIO(original)) as image:
        size = image.size
    assert _decoded(shown.images[0].data).size[0] <= size[0]
    if max(size) <= LIMITS.image_max_edge and size[0] * size[1] <= LIMITS.image_max_pixels:
        assert shown.images[0].data == original
    missing = reg.execute(ToolCall("c3", "read_file", {"path": "nb.ipynb", "cell": 100_000}))
    assert missing.is_error and f"has {len(theirs.cells)} cells" in missing.content


def test_the_per_cell_output_cap_and_paging(tmp_path: Path) -> None:
    cells = [nbformat.v4.new_code_cell(f"print({i})") for i in range(45)]
    cells[3].outputs = [nbformat.v4.new_output("stream", name="stdout", text="y" * 5000)]
    (tmp_path / "n.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook(cells=cells)))
    ws = Workspace(tmp_path)
    page = ws.read_notebook("n.ipynb", 1, 20, max_output_chars=100)
    assert page.total_cells == 45 and page.next_offset == 21 and len(page.cells) == 20
    output = page.cells[3].outputs[0]
    assert output.text == "y" * 100 and output.cut_from == 5000
    last = ws.read_notebook("n.ipynb", 41, 20)
    assert [c.number for c in last.cells] == [41, 42, 43, 44, 45] and last.next_offset is None
    text = default_registry(tmp_path).execute(ToolCall("c", "read_file", {"path": "n.ipynb"}))
    assert "cells 1-20 of 45" in text.content and "offset=21" in text.content
    assert "[... output cut at 2,000 of 5,000 characters]" in text.content
