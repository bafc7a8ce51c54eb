"""PDFs written byte by byte for the tests: well-formed ones with known text, and hostile ones.

Each builder returns the file's bytes. `pdf_file` writes numbered objects with a correct
cross-reference table, so a strict parser reads what was meant; the hostile builders break one
thing each (a loop in the page tree, a content stream that draws itself 2^40 times).
"""

from __future__ import annotations

import random


def pdf_file(objects: list[bytes], root: int = 1, trailer: bytes = b"") -> bytes:
    """A PDF of `objects` (object i + 1 is objects[i]) with its xref table and trailer
    (`trailer`: more entries for it)."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root %d 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        root,
        trailer,
        xref,
    )
    return bytes(out)


def _stream(content: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s>>\nstream\n" % (len(content), extra) + content + b"\nendstream"


def text_pdf(pages: list[str]) -> bytes:
    """One page per string, each drawn in Helvetica (an empty string: a page with no text)."""
    count = len(pages)
    # 1 catalog, 2 pages, 3 font, then a page and its content per page.
    kids = b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, count),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i, text in enumerate(pages):
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        content = b"BT /F1 12 Tf 72 720 Td (%s) Tj ET" % escaped.encode("latin-1") if text else b""
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (5 + 2 * i)
        )
        objects.append(_stream(content))
    return pdf_file(objects)


def many_pages_pdf(count: int) -> bytes:
    """`count` pages sharing one content stream that writes "Same page"."""
    kids = b" ".join(b"%d 0 R" % (5 + i) for i in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, count),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        _stream(b"BT /F1 12 Tf 72 720 Td (Same page) Tj ET"),
    ]
    objects += [
        (
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"
        )
    ] * count
    return pdf_file(objects)


def page_tree_loop_pdf() -> bytes:
    """A page tree whose node lists itself (and its parent) among its kids."""
    return pdf_file(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [2 0 R 3 0 R 2 0 R] /Count 3 >>",
            b"<< /Type /Pages /Parent 2 0 R /Kids [3 0 R 2 0 R] /Count 2 >>",
        ]
    )


def object_loop_pdf() -> bytes:
    """A page whose /Contents and /Resources refer to objects that refer back to themselves."""
    return pdf_file(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            (
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 4 0 R "
                b"/Contents 5 0 R >>"
            ),
            b"<< /Font 4 0 R /XObject 4 0 R /Self 4 0 R >>",
            b"5 0 R",
        ]
    )


def nested_forms_pdf(depth: int = 40, text: bool = True) -> bytes:
    """A page drawing form 1 twice, form 1 drawing form 2 twice, ... `depth` levels: 2^depth
    draws of one line of text, work no parser finishes (the "billion laughs" of PDF). Without
    `text`, the last form draws nothing: the work takes time but no memory."""
    # 1 catalog, 2 pages, 3 page, 4 font, 5 page content, 6.. forms.
    first_form = 6
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /XObject << /X %d 0 R >> >> /Contents 5 0 R >>" % first_form,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        _stream(b"/X Do /X Do"),
    ]
    for level in range(depth):
        number = first_form + level
        if level + 1 < depth:
            body = b"/X Do /X Do"
            resources = b"/Resources << /XObject << /X %d 0 R >> >>" % (number + 1)
        else:
            body = b"BT /F 12 Tf 10 10 Td (deep) Tj ET" if text else b"0 0 m"
            resources = b"/Resources << /Font << /F 4 0 R >> >>"
        objects.append(
            _stream(body, b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] %s " % resources)
        )
    return pdf_file(objects)


def encrypted_pdf() -> bytes:
    """A PDF under the standard security handler whose user password is not empty: the check
    value /U matches no key the empty password gives."""
    return pdf_file(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [] /Count 0 >>",
            b"<< /Filter /Standard /V 1 /R 2 /Length 40 /P -4 /O <%s> /U <%s> >>"
            % (b"11" * 32, b"22" * 32),
        ],
        trailer=b"/Encrypt 3 0 R /ID [<%s> <%s>] " % (b"ab" * 16, b"ab" * 16),
    )


def random_bytes(size: int = 200_000, seed: int = 18) -> bytes:
    """Bytes that are no PDF at all (a fixed seed: the same bytes every run)."""
    return random.Random(seed).randbytes(size)
