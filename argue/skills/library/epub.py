"""EPUB: container.xml → OPF → spine order; chapter text from XHTML, located as ``ch. N: Title``."""

from __future__ import annotations

import io
import posixpath
import zipfile
from html.parser import HTMLParser
from urllib.parse import unquote
from xml.etree.ElementTree import Element, ParseError

from argue.skills.library.chunking import Chunk, ParsedDocument, numbered, pack_lines
from argue.skills.library.models import LibraryError

_CONTAINER_NS = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF_NS = "{http://www.idpf.org/2007/opf}"
_DC_NS = "{http://purl.org/dc/elements/1.1/}"
_XHTML_TYPES = {"application/xhtml+xml", "text/html", "application/xml"}
# Declared sizes are checked before anything is decompressed (zip bombs).
_MAX_MEMBER_BYTES = 64 * 1024 * 1024
_MAX_TOTAL_BYTES = 512 * 1024 * 1024

_BLOCK_TAGS = {
    "p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table",
    "blockquote", "pre", "section", "article", "header", "footer", "aside", "hr", "dd", "dt",
    "figcaption", "body",
}  # fmt: skip
_SKIPPED_TAGS = {"script", "style", "head", "svg", "math"}


def parse_epub(data: bytes, name: str, stem: str) -> ParsedDocument:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise LibraryError(f"{name}: not a valid EPUB (not a zip archive)") from exc
    with archive:
        _check_sizes(archive, name)
        opf_path = _rootfile_path(archive, name)
        opf = _parse_xml(_read(archive, opf_path, name), opf_path, name)
        book_title = _book_title(opf)
        chunks: list[Chunk] = []
        chapter_no = 0
        for href in _spine_hrefs(opf, opf_path, name):
            chapter = _ChapterText.parse(_read(archive, href, name).decode("utf-8", "replace"))
            if not chapter.text.strip():
                continue
            chapter_no += 1
            label = f"ch. {chapter_no}: {chapter.title}" if chapter.title else f"ch. {chapter_no}"
            for block in pack_lines(numbered(chapter.text.splitlines())):
                chunks.append(Chunk(label, block.text))
    if not chunks:
        raise LibraryError(f"{name}: EPUB has no readable chapter text")
    return ParsedDocument(title=book_title or stem, kind="epub", chunks=chunks)


def _check_sizes(archive: zipfile.ZipFile, name: str) -> None:
    infos = archive.infolist()
    if any(info.file_size > _MAX_MEMBER_BYTES for info in infos) or (
        sum(info.file_size for info in infos) > _MAX_TOTAL_BYTES
    ):
        raise LibraryError(f"{name}: EPUB expands to more than the size limit, refusing it")


def _read(archive: zipfile.ZipFile, member: str, name: str) -> bytes:
    try:
        return archive.read(member)
    except KeyError as exc:
        raise LibraryError(f"{name}: EPUB is missing {member}") from exc
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise LibraryError(f"{name}: EPUB member {member} is damaged ({exc})") from exc


def _parse_xml(data: bytes, member: str, name: str) -> Element:
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    try:
        return fromstring(data)
    except (ParseError, DefusedXmlException) as exc:
        raise LibraryError(f"{name}: EPUB {member} is not valid XML ({exc})") from exc


def _rootfile_path(archive: zipfile.ZipFile, name: str) -> str:
    container = _parse_xml(
        _read(archive, "META-INF/container.xml", name), "META-INF/container.xml", name
    )
    for rootfile in container.iter(f"{_CONTAINER_NS}rootfile"):
        path = rootfile.get("full-path")
        if path:
            return path
    raise LibraryError(f"{name}: EPUB container.xml names no rootfile")


def _book_title(opf: Element) -> str | None:
    title = opf.find(f"{_OPF_NS}metadata/{_DC_NS}title")
    if title is not None and title.text and title.text.strip():
        return " ".join(title.text.split())
    return None


def _spine_hrefs(opf: Element, opf_path: str, name: str) -> list[str]:
    base = posixpath.dirname(opf_path)
    manifest: dict[str, tuple[str, str]] = {}
    for item in opf.iter(f"{_OPF_NS}item"):
        item_id, href = item.get("id"), item.get("href")
        if item_id and href:
            manifest[item_id] = (href, item.get("media-type", ""))
    spine = opf.find(f"{_OPF_NS}spine")
    if spine is None:
        raise LibraryError(f"{name}: EPUB package has no spine")
    hrefs: list[str] = []
    for itemref in spine.iter(f"{_OPF_NS}itemref"):
        entry = manifest.get(itemref.get("idref", ""))
        if entry is None:
            raise LibraryError(f"{name}: EPUB spine refers to unknown item {itemref.get('idref')}")
        href, media_type = entry
        if media_type and media_type not in _XHTML_TYPES:
            continue
        path = unquote(href.split("#", 1)[0])
        hrefs.append(posixpath.normpath(posixpath.join(base, path)))
    if not hrefs:
        raise LibraryError(f"{name}: EPUB spine lists no chapters")
    return hrefs


class _ChapterText(HTMLParser):
    """Visible text of one XHTML chapter, with its title (first <h1>, else <title>, else <h2>)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip_depth = 0
        self.capture: str | None = None
        self.captured: dict[str, str] = {}
        self.buffer: list[str] = []

    @classmethod
    def parse(cls, markup: str) -> _ChapterText:
        parser = cls()
        parser.feed(markup)
        parser.close()
        return parser

    @property
    def text(self) -> str:
        lines = (" ".join(line.split()) for line in "".join(self.parts).split("\n"))
        return "\n".join(lines)

    @property
    def title(self) -> str | None:
        for tag in ("h1", "title", "h2"):
            if self.captured.get(tag):
                return self.captured[tag]
        return None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("title", "h1", "h2") and self.capture is None and tag not in self.captured:
            self.capture, self.buffer = tag, []
        if tag in _SKIPPED_TAGS:
            self.skip_depth += 1
        if tag in _BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == self.capture:
            self.captured[tag] = " ".join("".join(self.buffer).split())
            self.capture = None
        if tag in _SKIPPED_TAGS and self.skip_depth:
            self.skip_depth -= 1
        if tag in _BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self.capture is not None:
            self.buffer.append(data)
        if not self.skip_depth:
            self.parts.append(data)
