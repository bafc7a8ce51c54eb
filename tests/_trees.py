"""Small helpers that build test trees in a temporary directory (shared by the read-side tests)."""

from __future__ import annotations

from pathlib import Path

# Minimal but well-formed heads of common binary formats (enough for magic-byte detection).
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
PDF = (
    b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Length 4 >>\nstream\n\x00\x01\x02\x03\nendstream\n"
)
ELF = b"\x7fELF\x02\x01\x01" + b"\x00" * 9 + b"\x03\x00\x3e\x00" + b"\x00" * 44
ZIP = b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + b"\x00" * 20 + b"a.txt"


def make_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Writes `files` (relative path -> text or bytes) under `root` and returns `root`."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
    return root


def numbered(n: int, template: str = "line {}") -> str:
    """`n` lines "line 1" .. "line n", each ending in a newline."""
    return "".join(template.format(i) + "\n" for i in range(1, n + 1))
