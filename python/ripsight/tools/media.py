"""`read_file` of images and notebooks: the handlers and the text the model sees.

The engine prepares images (`Workspace.read_image`: downscaled within the pixel and byte bounds,
bombs refused from their header) and parses notebooks (`Workspace.read_notebook`); this module
turns its typed results into a one-line text plus the image parts of the result, or into
numbered cells, and its refusals (facts) into sentences that say what to do instead.
"""

from __future__ import annotations

from typing import Any

from .. import codes
from .._core import ImageResult, NotebookResult
from ..limits import DEFAULT_LIMITS, ToolLimits
from ..names import quote_path
from ..roots import Roots
from ..types import ImagePart, ToolOutput
from ..workspace import CancelToken, Workspace
from ._common import ENGINE_RESULT_KEY, plural, size_text, thousands

__all__ = [
    "IMAGE_EXTENSIONS",
    "IMAGE_TYPES",
    "NOTEBOOK_EXTENSIONS",
    "format_image",
    "format_notebook",
    "media_sentences",
    "run_image",
    "run_notebook",
    "run_notebook_images",
]

#: File name endings (lower case) read as images.
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".webp")
#: File name endings (lower case) read as Jupyter notebooks.
NOTEBOOK_EXTENSIONS = (".ipynb",)
#: The binary types a plain read may sniff that are images this reader shows (the engine's
#: `binary_type` begins with one of these).
IMAGE_TYPES = ("PNG image", "JPEG image", "GIF image", "WebP image")

_FORMAT_NAMES = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/gif": "GIF",
    "image/webp": "WebP",
}


def media_sentences(limits: ToolLimits = DEFAULT_LIMITS) -> str:
    """What `read_file`'s description says of images and notebooks, from `limits`."""
    return (
        f"Images (PNG, JPEG, GIF's first frame, WebP) come back as the picture itself with one "
        f"line of text; one over {thousands(limits.image_max_edge)} px on its long edge or "
        f"{limits.image_max_pixels / 1e6:g} megapixels is shown scaled down, and files over "
        f"{limits.image_max_source_bytes / 1e6:g} MB are not shown. SVG files are text. Jupyter "
        f"notebooks (.ipynb) come back as numbered cells with their kind, source lines and "
        f"outputs (at most {thousands(limits.notebook_output_chars)} characters of output per "
        f"cell); for a notebook `offset` and `limit` count cells (default "
        f"{limits.notebook_limit}, at most {limits.notebook_max_limit}), and `cell` shows the "
        f"images of that cell's outputs."
    )


def _format_name(media_type: str) -> str:
    return _FORMAT_NAMES.get(media_type, media_type or "unknown")


def format_image(result: ImageResult) -> str:
    """The one line a model reads beside a shown image (`ImageResult`)."""
    path = quote_path(result.path)
    kind = _format_name(result.source_media_type)
    original = f"{result.width}x{result.height}"
    if not result.reencoded:
        return f"{path}: {kind} image, {original}, shown as is ({size_text(result.byte_size)})."
    shown_as = (
        f"shown at {result.shown_width}x{result.shown_height}"
        if result.downscaled
        else "shown re-encoded"
    )
    line = (
        f"{path}: {kind} image, {original}, {shown_as} "
        f"({_format_name(result.media_type)}, {size_text(result.byte_size)})."
    )
    if result.partial:
        line += (
            f" The file is cut short or damaged ({result.detail}): the image shows what "
            "decoded, and part of it may be missing or grey."
        )
    return line


#: The code and the advice for each refusal of an image.
_IMAGE_ADVICE = {
    "too_large": (
        codes.TOO_LARGE,
        "Images that large are not shown; use a smaller copy of it if the workspace has one.",
    ),
    "too_many_pixels": (
        codes.TOO_MANY_PIXELS,
        (
            "Images with that many pixels are not decoded (it could exhaust memory); use a "
            "smaller copy of it if the workspace has one."
        ),
    ),
    "unsupported": (
        codes.UNSUPPORTED_FORMAT,
        "Only PNG, JPEG, GIF and WebP images are shown.",
    ),
    "undecodable": (
        codes.UNDECODABLE,
        "The file may be truncated or corrupt; nothing of it is shown.",
    ),
    "cannot_fit": (codes.TOO_LARGE, "No encoding of it fits in the image budget."),
    "no_such_cell": (codes.INVALID_ARGUMENTS, "Call read_file with a cell number that exists."),
}


def _refused(path: str, what: str, refusal: str, detail: str) -> ToolOutput:
    code, advice = _IMAGE_ADVICE.get(refusal, (codes.UNDECODABLE, ""))
    text = f"{quote_path(path)} cannot be shown as {what}: {detail}. {advice}".rstrip()
    return ToolOutput(text, is_error=True, code=code, meta={"refused": refusal})


def _image_part(result: ImageResult) -> ImagePart:
    return ImagePart(media_type=result.media_type, data=bytes(result.data))


def _image_bounds(limits: ToolLimits) -> dict[str, int]:
    """The image bounds every image read takes (an image's encoded size goes by another name
    in a notebook read, so the callers add it)."""
    return {
        "max_edge": limits.image_max_edge,
        "max_pixels": limits.image_max_pixels,
        "max_source_bytes": limits.image_max_source_bytes,
        "max_decode_pixels": limits.image_max_decode_pixels,
    }


def run_image(
    workspace: Workspace | Roots, path: str, limits: ToolLimits, cancel: CancelToken | None = None
) -> ToolOutput:
    """`read_file` of an image: one line of text and the image."""
    result = workspace.read_image(
        path, max_bytes=limits.image_max_bytes, **_image_bounds(limits), cancel=cancel
    )
    if result.refused is not None:
        return _refused(result.path, "an image", result.refused, result.detail)
    return ToolOutput(
        format_image(result), meta={ENGINE_RESULT_KEY: result}, images=(_image_part(result),)
    )


def run_notebook_images(
    workspace: Workspace | Roots,
    path: str,
    cell: int,
    limits: ToolLimits,
    cancel: CancelToken | None = None,
) -> ToolOutput:
    """`read_file` with `cell` on a notebook: the images of that cell's outputs, as many as fit
    in the image budget together."""
    found = workspace.read_notebook_images(
        path,
        cell,
        max_bytes=limits.notebook_max_bytes,
        max_image_bytes=limits.image_max_bytes,
        **_image_bounds(limits),
        cancel=cancel,
    )
    if found.refused is not None:
        what = f"a notebook (cell {cell})"
        return _refused(found.path, what, found.refused, found.detail)
    name = f"{quote_path(found.path)} cell {cell}"
    if not found.images:
        return ToolOutput(
            f"{name} has no image outputs. Call read_file without `cell` to see the cells and "
            "which of them hold images.",
            code=codes.NO_MATCH,
        )
    lines: list[str] = []
    parts: list[ImagePart] = []
    budget = limits.image_max_bytes
    for number, image in enumerate(found.images, 1):
        if image.refused is not None:
            lines.append(f"Image {number}: not shown ({image.refused}: {image.detail}).")
        elif image.byte_size > budget:
            lines.append(
                f"Image {number}: not shown, the images before it fill this result's image budget."
            )
        else:
            budget -= image.byte_size
            parts.append(_image_part(image))
            lines.append(f"Image {number}: {format_image(image).split(': ', 1)[1]}")
    head = f"{name}: {plural(len(found.images), 'image')}."
    return ToolOutput(
        "\n".join([head, *lines]),
        meta={ENGINE_RESULT_KEY: found},
        images=tuple(parts),
        is_error=not parts,
        code=codes.OK if parts else codes.UNDECODABLE,
    )


def _cut_line(line: str, max_chars: int) -> str:
    if len(line) <= max_chars:
        return line
    return f"{line[:max_chars]} [... line cut at {thousands(max_chars)} of {thousands(len(line))} characters]"


def _numbered(text: str, max_chars: int, indent: str = "") -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    width = max(4, len(str(len(lines))))
    return [
        f"{indent}{n:>{width}}\t{_cut_line(line, max_chars)}" for n, line in enumerate(lines, 1)
    ]


def _output_lines(output: Any, cell: int, max_chars: int) -> list[str]:
    kind = output.output_type
    if kind == "stream":
        label = f"Output ({output.name or 'stream'}):"
    elif kind == "execute_result":
        label = "Result:"
    elif kind == "error":
        label = f"Error ({output.name}):" if output.name else "Error:"
    elif kind == "display_data":
        label = "Display:"
    else:
        label = "Output:"
    out: list[str] = []
    if output.text or output.cut_from is not None or not output.images:
        out.append(f"  {label}")
        text_lines = output.text.split("\n")
        if text_lines and text_lines[-1] == "":
            text_lines.pop()
        out.extend(f"    {_cut_line(line, max_chars)}" for line in text_lines)
        if output.cut_from is not None:
            out.append(
                f"    [... output cut at {thousands(len(output.text))} of "
                f"{thousands(output.cut_from)} characters]"
            )
    for image in output.images:
        readable = image.media_type in _FORMAT_NAMES
        how = f"; read_file with cell={cell} shows it" if readable else ""
        out.append(f"  Image: {image.media_type}, {size_text(image.size_bytes)}{how}.")
    return out


def format_notebook(
    result: NotebookResult, max_line_chars: int = DEFAULT_LIMITS.read_line_chars
) -> str:
    """The text a model sees for a `Workspace.read_notebook` result."""
    path = quote_path(result.path)
    version = f"nbformat {result.nbformat}.{result.nbformat_minor}"
    language = f", {result.language}" if result.language else ""
    total = result.total_cells
    if not result.cells:
        if total == 0:
            return f"{path}: notebook ({version}{language}) with no cells."
        return (
            f"{path}: offset {result.offset} is past the end: the notebook has "
            f"{plural(total, 'cell')}. Call read_file with an offset from 1 to {thousands(total)}."
        )
    first, last = result.cells[0].number, result.cells[-1].number
    span = f"cell {first}" if first == last else f"cells {first}-{last}"
    lines = [f"{path}: notebook ({version}{language}), {span} of {thousands(total)}."]
    for cell in result.cells:
        about = [cell.kind]
        if cell.id:
            about.append(f"id {cell.id}")
        if cell.kind == "code":
            count = cell.execution_count
            about.append(f"execution {count}" if count is not None else "not run")
        lines.append(f"[{cell.number}] {', '.join(about)}")
        lines.extend(_numbered(cell.source, max_line_chars))
        for output in cell.outputs:
            lines.extend(_output_lines(output, cell.number, max_line_chars))
        if cell.outputs_withheld:
            lines.append(f"  [{plural(cell.outputs_withheld, 'more output')} not shown]")
    if result.next_offset is not None:
        lines.append(
            f"More cells follow: call read_file with offset={result.next_offset} to read on."
        )
    return "\n".join(lines)


def notebook_page(limit: int, limits: ToolLimits) -> int:
    """Cells a `read_file` call reads: the notebook default when `limit` is the line default
    (the schema fills it in when the model gives none), else `limit` up to the notebook maximum."""
    if limit == limits.read_limit:
        return limits.notebook_limit
    maximum = limits.notebook_max_limit
    return min(limit, maximum if maximum is not None else limits.notebook_limit)


def run_notebook(
    workspace: Workspace | Roots,
    path: str,
    offset: int,
    limit: int,
    limits: ToolLimits,
    cancel: CancelToken | None = None,
) -> ToolOutput:
    """`read_file` of a notebook: a page of numbered cells with their outputs."""
    result = workspace.read_notebook(
        path,
        offset,
        notebook_page(limit, limits),
        max_output_chars=limits.notebook_output_chars,
        max_bytes=limits.notebook_max_bytes,
        cancel=cancel,
    )
    if result.refused == "too_large":
        text = (
            f"{quote_path(result.path)} is a notebook of {size_text(result.size_bytes)}; "
            f"notebooks over {size_text(limits.notebook_max_bytes)} are not read. Use grep on it "
            "to find the cells you need."
        )
        return ToolOutput(text, is_error=True, code=codes.TOO_LARGE, meta={"refused": "too_large"})
    if result.refused is not None:
        text = (
            f"{quote_path(result.path)} cannot be read as a notebook: {result.detail}. Use grep "
            "on it to see its text."
        )
        meta = {"refused": "undecodable", "detail": result.detail}
        return ToolOutput(text, is_error=True, code=codes.UNDECODABLE, meta=meta)
    if not result.cells:
        code = codes.EMPTY_FILE if result.total_cells == 0 else codes.PAST_END
    else:
        code = codes.OK
    return ToolOutput(
        format_notebook(result, limits.read_line_chars),
        meta={ENGINE_RESULT_KEY: result},
        code=code,
    )
