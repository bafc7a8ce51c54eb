"""Real images and notebooks no one here made, for the media tests.

Images: the PNG, JPEG and GIF files Debian packages install under /usr/share (documentation,
gitweb, info pages). Notebooks: the ones `scripts/real-notebooks` unpacks from Debian packages
(nbclient's test notebooks, nbconvert's documentation notebook); .ci/run runs it first.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Where Debian packages put images (searched in this order, without following links).
IMAGE_ROOTS = ("/usr/share/doc", "/usr/share/info", "/usr/share/gitweb", "/usr/share/pixmaps")
_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".gif": "GIF"}
#: Where `scripts/real-notebooks` unpacks notebooks.
NOTEBOOK_DIR = Path(os.environ.get("RIPSIGHT_NOTEBOOKS", "/tmp/ripsight-real-notebooks"))


def real_images() -> dict[str, list[Path]]:
    """The real image files found, by format ("PNG", "JPEG", "GIF"), smallest file first."""
    found: dict[str, list[Path]] = {}
    for root in IMAGE_ROOTS:
        for directory, _dirs, files in os.walk(root):
            for name in files:
                kind = _FORMATS.get(os.path.splitext(name)[1].lower())
                path = Path(directory, name)
                if kind is not None and path.is_file() and not path.is_symlink():
                    found.setdefault(kind, []).append(path)
    for paths in found.values():
        paths.sort(key=lambda p: (p.stat().st_size, str(p)))
    return found


def copy_a_real_png(to: Path) -> bool:
    """Copies a real PNG of this machine (the median one by size) to `to`; False when it has
    none."""
    pngs = real_images().get("PNG", [])
    if pngs:
        to.write_bytes(pngs[len(pngs) // 2].read_bytes())
    return bool(pngs)


def real_notebooks() -> list[Path]:
    """The real notebooks `scripts/real-notebooks` unpacked, by name."""
    if not NOTEBOOK_DIR.is_dir():
        return []
    return sorted(NOTEBOOK_DIR.glob("*.ipynb"))
