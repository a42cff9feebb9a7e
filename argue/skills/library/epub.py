"""EPUB: container.xml → OPF → spine order; chapter text from XHTML, located as ``ch. N: Title``.

An EPUB is a zip archive from anyone: before it is opened, its end record must announce at most
``max_entries`` entries in a directory no larger than they need; every entry name must stay
inside the archive (no absolute path, drive or ``..``); the sizes the entries declare must fit
``max_entry_mb`` each and ``max_unzipped_mb`` in all. Declared sizes may lie, so every entry is
also read with a bounded read (at most one byte past what is left of either limit), and an entry
over 1 MB that expands more than ``max_zip_ratio`` times is refused. Chapters are decoded and
parsed as they are read, never held whole.
"""

from __future__ import annotations

import codecs
import lzma
import posixpath
import re
import struct
import zipfile
import zlib
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import BinaryIO
from urllib.parse import unquote
from xml.etree.ElementTree import Element, ParseError

from argue.skills.library.chunking import (
    Chunk,
    LinePacker,
    ParsedDocument,
    TextBlock,
    clip_label,
)
from argue.skills.library.limits import (
    MAX_ENTRY_NAME_CHARS,
    RATIO_CHECKED_FROM_BYTES,
    IngestBudget,
    megabytes,
)
from argue.skills.library.models import LibraryError

_CONTAINER_NS = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF_NS = "{http://www.idpf.org/2007/opf}"
_DC_NS = "{http://purl.org/dc/elements/1.1/}"
_XHTML_TYPES = {"application/xhtml+xml", "text/html", "application/xml"}
_BLOCK_BYTES = 1 << 20
# A central directory record is 46 bytes and a name; real EPUBs stay well under this per entry.
_DIRECTORY_BYTES_PER_ENTRY = 256
_END_RECORD = struct.Struct("<4s4H2LH")
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_END_RECORD = struct.Struct("<4sQ2H2L4Q")
_ZIP_ERRORS = (
    lzma.LZMAError,
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    OSError,
    EOFError,
    ValueError,
    NotImplementedError,
    RuntimeError,
    struct.error,
)
_WHITESPACE_RUN = re.compile(r"\s+")
# Enough for any chapter title; an <h1> that never closes stops being collected here.
_TITLE_CAPTURE_CHARS = 4096

_BLOCK_TAGS = {
    "p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table",
    "blockquote", "pre", "section", "article", "header", "footer", "aside", "hr", "dd", "dt",
    "figcaption", "body",
}  # fmt: skip
_SKIPPED_TAGS = {"script", "style", "head", "svg", "math"}


def parse_epub(stream: BinaryIO, name: str, stem: str, budget: IngestBudget) -> ParsedDocument:
    _check_end_record(stream, budget)
    try:
        archive = zipfile.ZipFile(stream)
    except zipfile.BadZipFile as exc:
        raise LibraryError(f"{name}: not a valid EPUB (not a zip archive)") from exc
    except _ZIP_ERRORS as exc:
        raise LibraryError(f"{name}: not a valid EPUB (damaged zip: {exc})") from exc
    with archive:
        entries = _Entries(archive, budget)
        opf_path = _rootfile_path(entries, name)
        opf = _parse_xml(entries.read(opf_path), opf_path, name)
        book_title = _book_title(opf)
        hrefs = _spine_hrefs(opf, opf_path, name)
        entries.check_reading(hrefs)
        chunks: list[Chunk] = []
        chapter_no = 0
        for href in hrefs:
            texts, title = _chapter_texts(entries, href, budget)
            if not texts:
                continue
            chapter_no += 1
            label = f"ch. {chapter_no}: {title}" if title else f"ch. {chapter_no}"
            chunks.extend(Chunk.from_utf8(label, text) for text in texts)
    if not chunks:
        raise LibraryError(f"{name}: EPUB has no readable chapter text")
    return ParsedDocument(title=book_title or stem, kind="epub", chunks=chunks)


def _check_end_record(stream: BinaryIO, budget: IngestBudget) -> None:
    """Refuse, before ``zipfile`` builds one record per entry, an archive announcing too many
    entries or a directory larger than that many entries need."""
    stream.seek(0, 2)
    size = stream.tell()
    tail_size = min(size, _END_RECORD.size + 0xFFFF)
    stream.seek(size - tail_size)
    tail = stream.read(tail_size)
    stream.seek(0)
    at = tail.rfind(b"PK\x05\x06")
    if at == -1 or len(tail) - at < _END_RECORD.size:
        return  # not a zip archive: zipfile says so
    fields = _END_RECORD.unpack_from(tail, at)
    entries, directory_size = fields[4], fields[5]
    if at >= _ZIP64_LOCATOR.size and tail[at - _ZIP64_LOCATOR.size :].startswith(b"PK\x06\x07"):
        zip64_at = _ZIP64_LOCATOR.unpack_from(tail, at - _ZIP64_LOCATOR.size)[2]
        stream.seek(zip64_at)
        record = stream.read(_ZIP64_END_RECORD.size)
        stream.seek(0)
        if len(record) == _ZIP64_END_RECORD.size and record.startswith(b"PK\x06\x06"):
            zip64 = _ZIP64_END_RECORD.unpack(record)  # what zipfile reads in this case too
            entries, directory_size = zip64[7], zip64[8]
    most = budget.limits.max_entries
    if entries > most:
        raise budget.over(f"number of zip entries ({entries})", "max_entries")
    if directory_size > most * _DIRECTORY_BYTES_PER_ENTRY:
        raise budget.refusal(
            f"zip directory of {directory_size} bytes is larger than {most} entries need",
            "max_entries",
        )


class _Entries:
    """The archive's entries, checked once, each read within what is left of the limits."""

    def __init__(self, archive: zipfile.ZipFile, budget: IngestBudget) -> None:
        self._archive = archive
        self._budget = budget
        self._name = budget.name
        self._read_total = 0
        limits = budget.limits
        self._entry_most = limits.max_bytes("max_entry_mb")
        self._total_most = limits.max_bytes("max_unzipped_mb")
        infos = archive.infolist()
        if len(infos) > limits.max_entries:
            raise budget.over(f"number of zip entries ({len(infos)})", "max_entries")
        declared_total = 0
        for info in infos:
            _check_entry_name(info.filename, budget)
            if info.file_size > self._entry_most:
                raise budget.over(
                    f"entry {info.filename!r} ({megabytes(info.file_size)} decompressed)",
                    "max_entry_mb",
                )
            declared_total += info.file_size
        if declared_total > self._total_most:
            raise budget.over(
                f"decompressed size ({megabytes(declared_total)} declared)", "max_unzipped_mb"
            )

    def check_reading(self, members: list[str]) -> None:
        """Refuse a spine that would read more than the limit in all, as the entries declare
        their sizes (a spine may list one entry many times)."""
        declared = self._read_total
        for member in members:
            try:
                declared += self._archive.getinfo(member).file_size
            except KeyError:
                continue  # reported as missing when it is read
        if declared > self._total_most:
            raise self._budget.over(
                f"decompressed size ({megabytes(declared)} declared, chapters read in the spine)",
                "max_unzipped_mb",
            )

    def read(self, member: str) -> bytes:
        return b"".join(self.blocks(member))

    def blocks(self, member: str) -> Iterator[bytes]:
        """The entry's bytes, 1 MB at a time, never more than the limits allow (plus one byte,
        to tell that it is over)."""
        budget, name = self._budget, self._name
        try:
            info = self._archive.getinfo(member)
        except KeyError:
            raise LibraryError(f"{name}: EPUB is missing {member}") from None
        ratio_most = budget.limits.max_zip_ratio * max(info.compress_size, 1)
        entry_read = 0
        try:
            with self._archive.open(info) as entry:
                while True:
                    allowed = min(
                        self._entry_most - entry_read, self._total_most - self._read_total
                    )
                    block = entry.read(min(_BLOCK_BYTES, allowed + 1))
                    if not block:
                        return
                    entry_read += len(block)
                    self._read_total += len(block)
                    if entry_read > self._entry_most:
                        raise budget.over(f"entry {member!r} decompressed size", "max_entry_mb")
                    if self._read_total > self._total_most:
                        raise budget.over("decompressed size", "max_unzipped_mb")
                    if entry_read > RATIO_CHECKED_FROM_BYTES and entry_read > ratio_most:
                        raise budget.over(f"entry {member!r} compression ratio", "max_zip_ratio")
                    budget.check_time()
                    yield block
        except LibraryError:
            raise
        except _ZIP_ERRORS as exc:
            raise LibraryError(f"{name}: EPUB member {member} is damaged ({exc})") from exc


def _check_entry_name(entry: str, budget: IngestBudget) -> None:
    if len(entry) > MAX_ENTRY_NAME_CHARS:
        raise LibraryError(
            f"{budget.name}: refused: an entry name is longer than {MAX_ENTRY_NAME_CHARS} "
            "characters"
        )
    parts = entry.replace("\\", "/").split("/")
    if entry.startswith(("/", "\\")) or ".." in parts or re.match(r"[A-Za-z]:", entry):
        raise LibraryError(
            f"{budget.name}: refused: entry {entry!r} points outside the archive "
            "(an absolute path or '..')"
        )


def _chapter_texts(
    entries: _Entries, href: str, budget: IngestBudget
) -> tuple[list[bytes], str | None]:
    """The chapter's chunk texts in UTF-8 (its label waits for its title), and its title."""
    chapter = _ChapterText(budget)
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    for block in entries.blocks(href):
        chapter.feed(decoder.decode(block))
    chapter.feed(decoder.decode(b"", final=True))
    chapter.close()
    return chapter.finish(), chapter.title


def _parse_xml(data: bytes, member: str, name: str) -> Element:
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    try:
        return fromstring(data)
    except (ParseError, DefusedXmlException) as exc:
        raise LibraryError(f"{name}: EPUB {member} is not valid XML ({exc})") from exc


def _rootfile_path(entries: _Entries, name: str) -> str:
    container = _parse_xml(entries.read("META-INF/container.xml"), "META-INF/container.xml", name)
    for rootfile in container.iter(f"{_CONTAINER_NS}rootfile"):
        path = rootfile.get("full-path")
        if path:
            return path
    raise LibraryError(f"{name}: EPUB container.xml names no rootfile")


def _book_title(opf: Element) -> str | None:
    title = opf.find(f"{_OPF_NS}metadata/{_DC_NS}title")
    if title is not None and title.text and title.text.strip():
        return clip_label(" ".join(title.text.split()))
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
    """Visible text of one XHTML chapter, with its title (first <h1>, else <title>, else <h2>).

    Fed in pieces; each line of text (between block tags and newlines), with its whitespace
    collapsed, goes to a ``LinePacker`` as soon as it is complete.
    """

    def __init__(self, budget: IngestBudget) -> None:
        super().__init__(convert_charrefs=True)
        self.skip_depth = 0
        self.capture: str | None = None
        self.captured: dict[str, str] = {}
        self.buffer: list[str] = []
        self._buffered_chars = 0
        self._line: list[str] = []
        self._line_no = 0
        self._packer = LinePacker(budget=budget)
        self._texts: list[bytes] = []

    def finish(self) -> list[bytes]:
        """The texts of the chapter's blocks, in UTF-8, once ``close`` has been called."""
        self._end_line("".join(self._line))
        self._line = []
        self._keep(self._packer.finish())
        return self._texts

    def _keep(self, blocks: list[TextBlock]) -> None:
        self._texts.extend(block.text.encode("utf-8", "replace") for block in blocks)

    @property
    def title(self) -> str | None:
        for tag in ("h1", "title", "h2"):
            if self.captured.get(tag):
                return self.captured[tag]
        return None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("title", "h1", "h2") and self.capture is None and tag not in self.captured:
            self.capture, self.buffer, self._buffered_chars = tag, [], 0
        if tag in _SKIPPED_TAGS:
            self.skip_depth += 1
        if tag in _BLOCK_TAGS:
            self._add_text("\n\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK_TAGS:
            self._add_text("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == self.capture:
            self.captured[tag] = clip_label(" ".join("".join(self.buffer).split()))
            self.capture = None
        if tag in _SKIPPED_TAGS and self.skip_depth:
            self.skip_depth -= 1
        if tag in _BLOCK_TAGS:
            self._add_text("\n\n")

    def handle_data(self, data: str) -> None:
        if self.capture is not None and self._buffered_chars < _TITLE_CAPTURE_CHARS:
            self.buffer.append(data[: _TITLE_CAPTURE_CHARS - self._buffered_chars])
            self._buffered_chars += len(self.buffer[-1])
        if not self.skip_depth:
            self._add_text(data)

    def _add_text(self, text: str) -> None:
        if "\n" not in text:
            self._line.append(text)
            return
        lines = text.split("\n")
        self._line.append(lines[0])
        self._end_line("".join(self._line))
        for line in lines[1:-1]:
            self._end_line(line)
        self._line = [lines[-1]]

    def _end_line(self, line: str) -> None:
        self._line_no += 1
        self._packer.add_line(self._line_no, _WHITESPACE_RUN.sub(" ", line).strip(" "))
        if self._packer.blocks:
            self._keep(self._packer.take_blocks())
