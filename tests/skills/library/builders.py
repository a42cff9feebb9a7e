"""Small real files of every supported type, written byte by byte for the tests."""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path


def _pdf_string(text: str) -> str:
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def write_pdf(path: Path, pages: Sequence[Sequence[str]], title: str | None = None) -> Path:
    """A minimal valid PDF: one Helvetica text line per entry, a correct xref table."""
    page_count = len(pages)
    font_obj = 3 + 2 * page_count
    info_obj = font_obj + 1
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        (
            "<< /Type /Pages /Kids ["
            + " ".join(f"{3 + 2 * i} 0 R" for i in range(page_count))
            + f"] /Count {page_count} >>"
        ).encode(),
    ]
    for index, lines in enumerate(pages):
        content_obj = 4 + 2 * index
        objects.append(
            (
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                f"/Resources << /Font << /F1 {font_obj} 0 R >> >> /Contents {content_obj} 0 R >>"
            ).encode()
        )
        operators = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td"]
        for line in lines:
            operators.append(f"{_pdf_string(line)} Tj T*")
        operators.append("ET")
        stream = "\n".join(operators).encode("latin-1")
        objects.append(
            b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream"
        )
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    objects.append(f"<< /Title {_pdf_string(title or '')} >>".encode("latin-1"))

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets: list[int] = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref_at = len(out)
    out += f"xref\n0 {len(objects) + 1}\n".encode()
    out += b"0000000000 65535 f \n"
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    trailer = f"<< /Size {len(objects) + 1} /Root 1 0 R"
    if title:
        trailer += f" /Info {info_obj} 0 R"
    out += f"trailer\n{trailer} >>\nstartxref\n{xref_at}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))
    return path


def write_epub(
    path: Path, title: str, chapters: Sequence[tuple[str, str]], *, reverse_manifest: bool = True
) -> Path:
    """A real EPUB 3 zip: mimetype, container.xml, an OPF in OEBPS/ and one XHTML per chapter.

    The manifest lists chapters in reverse, so only the spine gives the reading order.
    """
    manifest_items = [
        f'<item id="c{i}" href="text/chapter%20{i}.xhtml" media-type="application/xhtml+xml"/>'
        for i in range(1, len(chapters) + 1)
    ]
    if reverse_manifest:
        manifest_items.reverse()
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(1, len(chapters) + 1))
    opf = f"""<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:uuid:test</dc:identifier>
    <dc:title>{title}</dc:title>
    <dc:language>en</dc:language>
  </metadata>
  <manifest>{"".join(manifest_items)}
    <item id="css" href="style.css" media-type="text/css"/>
  </manifest>
  <spine>{spine}</spine>
</package>"""
    container = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>"""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/container.xml", container)
        archive.writestr("OEBPS/content.opf", opf)
        archive.writestr("OEBPS/style.css", "p { margin: 0 }")
        for number, (chapter_title, body) in enumerate(chapters, 1):
            paragraphs = "".join(f"<p>{para}</p>" for para in body.split("\n\n"))
            xhtml = f"""<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}</title>
<style>p {{ color: red }}</style></head>
<body><h1>{chapter_title}</h1>{paragraphs}
<script>var hidden = "scripttoken";</script></body></html>"""
            archive.writestr(f"OEBPS/text/chapter {number}.xhtml", xhtml)
    return path
