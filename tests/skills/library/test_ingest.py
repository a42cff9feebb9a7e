from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from argue.skills.library.chunking import MAX_CHARS, ParsedDocument, numbered, pack_lines
from argue.skills.library.ingest import parse_content, read_file
from argue.skills.library.models import LibraryError
from argue.skills.library.subtitles import format_timestamp, parse_timestamp
from tests.skills.library.builders import write_epub, write_pdf
from tests.skills.library.conftest import filler


def parse(path: Path) -> ParsedDocument:
    return parse_content(read_file(path))


# ---------------------------------------------------------------- text and markdown


def test_txt_chunks_by_paragraph_with_line_ranges(sample_files: dict[str, Path]) -> None:
    doc = parse(sample_files["txt"])
    assert doc.kind == "txt"
    assert doc.title == "field notes"
    assert [chunk.locator for chunk in doc.chunks] == ["line 1", "line 3", "lines 5-6"]
    assert doc.chunks[2].text.startswith("The quokka smiled")


def test_small_paragraphs_are_packed_together() -> None:
    lines = numbered(["one", "", "two", "", "three"])
    blocks = pack_lines(lines)
    assert len(blocks) == 1
    assert (blocks[0].first_line, blocks[0].last_line) == (1, 5)
    assert blocks[0].text == "one\n\ntwo\n\nthree"


def test_oversized_line_is_split_between_words() -> None:
    line = " ".join(f"word{i}" for i in range(2000))
    blocks = pack_lines(numbered([line]))
    assert len(blocks) > 1
    assert all(len(block.text) <= MAX_CHARS for block in blocks)
    assert " ".join(block.text for block in blocks).split() == line.split()


def test_markdown_sections_by_heading(sample_files: dict[str, Path]) -> None:
    doc = parse(sample_files["md"])
    assert doc.title == "Variance Study"
    locators = [chunk.locator for chunk in doc.chunks]
    assert locators == ["§ Variance Study", "§ Methods", "§ Results"]
    methods = doc.chunks[1].text
    assert "# not a heading" in methods  # a comment inside a code fence is not a heading
    assert "heteroscedasticity" in doc.chunks[2].text


def test_markdown_front_matter_setext_and_preamble(tmp_path: Path) -> None:
    path = tmp_path / "notes.markdown"
    path.write_text(
        "---\ntitle: 'Field Guide'\n---\nIntro line before any heading.\n\n"
        "Birds\n=====\n\nRobins and wrens.\n\nSome text\n\n---\n\nAfter a rule.\n",
        encoding="utf-8",
    )
    doc = parse(path)
    assert doc.title == "Field Guide"
    assert doc.chunks[0].locator == "line 4"
    assert doc.chunks[1].locator == "§ Birds"
    assert "After a rule." in doc.chunks[1].text  # a rule after a blank line is not a heading


def test_long_markdown_section_keeps_heading_and_adds_lines(tmp_path: Path) -> None:
    path = tmp_path / "long.md"
    body = "\n\n".join(filler(str(i)) for i in range(3))
    path.write_text(f"## Background\n\n{body}\n", encoding="utf-8")
    doc = parse(path)
    assert len(doc.chunks) == 3
    assert doc.chunks[0].locator == "§ Background (lines 1-3)"
    assert doc.chunks[2].locator == "§ Background (line 7)"


def test_windows_1252_text_is_decoded(tmp_path: Path) -> None:
    path = tmp_path / "legacy.txt"
    text = "Café crème à la française, s'il vous plaît, avec deux croissants."
    path.write_bytes(text.encode("cp1252"))
    doc = parse(path)
    assert (doc.chunks[0].text, doc.encoding) == (text, "cp1252")


# ---------------------------------------------------------------- pdf


def test_pdf_pages_become_located_chunks(sample_files: dict[str, Path]) -> None:
    doc = parse(sample_files["pdf"])
    assert doc.kind == "pdf"
    assert doc.title == "Savanna Atlas"
    assert [chunk.locator for chunk in doc.chunks] == ["p. 1", "p. 2"]
    assert "zebra migration" in doc.chunks[1].text


def test_pdf_without_text_is_refused(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "scan.pdf", [[], []])
    with pytest.raises(LibraryError, match="no extractable text in 2 page"):
        parse(path)


def test_truncated_pdf_is_refused(tmp_path: Path, sample_files: dict[str, Path]) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(sample_files["pdf"].read_bytes()[:60])
    with pytest.raises(LibraryError, match="not a readable PDF"):
        parse(path)


@pytest.mark.parametrize(("user_password", "readable"), [("", True), ("secret", False)])
def test_encrypted_pdf(tmp_path: Path, user_password: str, readable: bool) -> None:
    from pypdf import PdfWriter

    plain = write_pdf(tmp_path / "plain.pdf", [["classified budget figures"]])
    writer = PdfWriter(clone_from=str(plain))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="RC4-128")
    locked = tmp_path / "locked.pdf"
    with locked.open("wb") as handle:
        writer.write(handle)
    if readable:
        assert parse(locked).chunks[0].text == "classified budget figures"
    else:
        with pytest.raises(LibraryError, match="password-protected"):
            parse(locked)


# ---------------------------------------------------------------- epub


def test_epub_follows_spine_and_titles_chapters(sample_files: dict[str, Path]) -> None:
    doc = parse(sample_files["epub"])
    assert doc.kind == "epub"
    assert doc.title == "Voyages"
    assert [chunk.locator for chunk in doc.chunks] == [
        "ch. 1: Departure",
        "ch. 2: The Second Voyage",
    ]
    assert "albatross" in doc.chunks[1].text
    text = " ".join(chunk.text for chunk in doc.chunks)
    assert "scripttoken" not in text
    assert "color: red" not in text


def test_epub_chapter_without_h1_uses_title_tag(tmp_path: Path) -> None:
    path = tmp_path / "plain.epub"
    write_epub(path, "Plain", [("Only", "Text.")])
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members["OEBPS/text/chapter 1.xhtml"] = (
        b"<html><head><title>Prologue</title></head><body><p>Once upon a time.</p></body></html>"
    )
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    assert parse(path).chunks[0].locator == "ch. 1: Prologue"


@pytest.mark.parametrize(
    ("drop", "message"),
    [
        ("META-INF/container.xml", "missing META-INF/container.xml"),
        ("OEBPS/content.opf", "missing OEBPS/content.opf"),
        ("OEBPS/text/chapter 2.xhtml", "missing OEBPS/text/chapter 2.xhtml"),
    ],
)
def test_epub_with_missing_parts_is_refused(
    tmp_path: Path, sample_files: dict[str, Path], drop: str, message: str
) -> None:
    path = tmp_path / "damaged.epub"
    with zipfile.ZipFile(sample_files["epub"]) as source, zipfile.ZipFile(path, "w") as target:
        for name in source.namelist():
            if name != drop:
                target.writestr(name, source.read(name))
    with pytest.raises(LibraryError, match=message):
        parse(path)


def test_epub_that_is_not_a_zip_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "fake.epub"
    path.write_text("just text", encoding="utf-8")
    with pytest.raises(LibraryError, match="not a zip archive"):
        parse(path)


def test_epub_with_entity_bomb_is_refused(tmp_path: Path, sample_files: dict[str, Path]) -> None:
    path = tmp_path / "bomb.epub"
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE c [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>'
        b'<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container">&b;</container>'
    )
    with zipfile.ZipFile(sample_files["epub"]) as source, zipfile.ZipFile(path, "w") as target:
        for name in source.namelist():
            data = bomb if name == "META-INF/container.xml" else source.read(name)
            target.writestr(name, data)
    with pytest.raises(LibraryError, match="not valid XML"):
        parse(path)


# ---------------------------------------------------------------- subtitles


def test_vtt_cues_grouped_in_30_second_windows(sample_files: dict[str, Path]) -> None:
    doc = parse(sample_files["vtt"])
    assert doc.kind == "vtt"
    assert [chunk.locator for chunk in doc.chunks] == ["00:00:00", "00:00:31", "00:01:30"]
    first, _, last = doc.chunks
    assert first.text == "Welcome to the lecture. Today we talk about engines."
    # the rolling caption repeated by the next cue is indexed once
    assert last.text == (
        "The second law of thermodynamics says entropy grows. Heat flows from hot to cold."
    )


def test_srt_timestamps_with_hours(sample_files: dict[str, Path]) -> None:
    doc = parse(sample_files["srt"])
    assert [chunk.locator for chunk in doc.chunks] == ["00:00:01", "01:02:03"]
    assert doc.chunks[1].text == "We discuss the photosynthesis of desert plants."


def test_timestamp_round_trip() -> None:
    assert parse_timestamp("01:02:03,500") == pytest.approx(3723.5)
    assert parse_timestamp("02:03.250") == pytest.approx(123.25)
    assert format_timestamp(3723.5) == "01:02:03"


def test_vtt_without_header_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.vtt"
    path.write_text("00:00:01.000 --> 00:00:02.000\nhello\n", encoding="utf-8")
    with pytest.raises(LibraryError, match="missing the WEBVTT header"):
        parse(path)


def test_subtitles_without_cues_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.srt"
    path.write_text("just some words\nno timings here\n", encoding="utf-8")
    with pytest.raises(LibraryError, match="no subtitle cues found"):
        parse(path)


# ---------------------------------------------------------------- refusals before parsing


def test_unsupported_extension(tmp_path: Path) -> None:
    path = tmp_path / "report.docx"
    path.write_bytes(b"PK\x03\x04")
    with pytest.raises(LibraryError, match=r"unsupported file type \.docx \(supported: "):
        read_file(path)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(LibraryError, match="no such file"):
        read_file(tmp_path / "ghost.txt")
    folder = tmp_path / "folder.md"
    folder.mkdir()
    with pytest.raises(LibraryError, match="is a directory"):
        read_file(folder)


def test_empty_and_binary_text_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n\n", encoding="utf-8")
    with pytest.raises(LibraryError, match="file is empty"):
        read_file(empty)
    binary = tmp_path / "blob.txt"
    binary.write_bytes(b"\x00\x01\x02binary")
    with pytest.raises(LibraryError, match="binary file"):
        parse(binary)
