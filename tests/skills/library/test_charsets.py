"""Text files in every charset: found by BOM, UTF-8 or charset-normalizer, recorded, searchable."""

# Teeth (checked once): old UTF-8/cp1252 decoding fails 9 rows + refusals; no tie-break fails 3.

from __future__ import annotations

import codecs
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from argue.commands.library import library_app
from argue.skills.library import LibraryError, LibraryStore
from argue.skills.library.decoding import MIN_CONFIDENCE, decode_text
from argue.skills.library.ingest import parse_content, read_file

RU = (
    "Стратегия декарбонизации экономики требует больших инвестиций в возобновляемую "
    "энергетику. Правительство обсуждает новые меры поддержки для промышленности."
)
JA = (
    "脱炭素社会の実現に向けて、再生可能エネルギーの導入を進める必要があります。"
    "政府は新しい支援策を検討しています。"
)
ZH = "我们需要脱碳技术来应对气候变化。政府正在讨论新的支持措施，以鼓励可再生能源的发展。"
EL = "Η απανθρακοποίηση της οικονομίας απαιτεί μεγάλες επενδύσεις σε ανανεώσιμες πηγές ενέργειας."
FR = "Café crème à la française, s'il vous plaît, avec deux croissants."
ES = "El niño comió una piña en la mañana; la señora está contentísima con la cosecha."


def srt(text: str) -> str:
    return f"1\n00:00:01,000 --> 00:00:04,000\n{text}\n\n2\n00:00:05,000 --> 00:00:08,000\nFin.\n"


def vtt(text: str) -> str:
    return f"WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n{text}\n"


def encoded(codec: str) -> Callable[[str], bytes]:
    return lambda text: text.encode(codec)


def with_bom(bom: bytes, codec: str) -> Callable[[str], bytes]:
    return lambda text: bom + text.encode(codec)


# (file name, text, how its bytes are written, encoding recorded, a query in its own script)
CASES = [
    ("plain.txt", ZH, encoded("utf-8"), "utf-8", "脱碳"),
    ("bom.md", RU, with_bom(codecs.BOM_UTF8, "utf-8"), "utf-8-sig", "декарбонизации"),
    ("russian.txt", RU, encoded("cp1251"), "cp1251", "декарбонизации"),
    ("japanese.txt", JA, encoded("shift_jis"), "shift_jis", "脱炭素"),
    ("chinese.txt", ZH, encoded("gb18030"), "gb18030", "脱碳"),
    ("greek.txt", EL, encoded("cp1253"), "cp1253", "απανθρακοποίηση"),
    ("french.txt", FR, encoded("cp1252"), "cp1252", "crème"),
    ("spanish.txt", ES, encoded("cp1252"), "cp1252", "señora"),
    ("talk.srt", srt(RU), with_bom(codecs.BOM_UTF16_LE, "utf-16-le"), "utf-16-le", "энергетику"),
    ("talk.vtt", vtt(JA), with_bom(codecs.BOM_UTF16_BE, "utf-16-be"), "utf-16-be", "脱炭素"),
    ("wide.txt", EL, with_bom(codecs.BOM_UTF32_LE, "utf-32-le"), "utf-32-le", "ενέργειας"),
    ("wide-be.srt", srt(ZH), with_bom(codecs.BOM_UTF32_BE, "utf-32-be"), "utf-32-be", "气候"),
]


@pytest.fixture
def library(tmp_path: Path) -> Iterator[LibraryStore]:
    with LibraryStore(tmp_path / "library.sqlite3") as store:
        yield store


@pytest.mark.parametrize(
    ("name", "text", "write", "encoding", "query"), CASES, ids=[case[0] for case in CASES]
)
def test_each_charset_is_decoded_recorded_and_searchable(
    tmp_path: Path,
    library: LibraryStore,
    name: str,
    text: str,
    write: Callable[[str], bytes],
    encoding: str,
    query: str,
) -> None:
    path = tmp_path / name
    path.write_bytes(write(text))

    parsed = parse_content(read_file(path))
    assert parsed.encoding == encoding
    assert query in "\n".join(chunk.text for chunk in parsed.chunks)

    added = library.add(path)
    assert added.encoding == encoding
    [document] = library.list_documents()
    assert document.encoding == encoding
    hits = library.search(query)
    assert [hit.doc_id for hit in hits] == [added.doc_id], query
    assert "**" in hits[0].snippet


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("Привет, мир!".encode("cp1251"), "cannot tell its character encoding"),
        ("脱炭素社会の実現".encode("shift_jis"), "cannot tell its character encoding"),
        (codecs.BOM_UTF16_LE + "odd".encode("utf-16-le") + b"!", "UTF-16 byte-order mark but"),
        (codecs.BOM_UTF8 + b"caf\xe9 au lait, s'il vous pla\xeet", "UTF-8 byte-order mark but"),
        (codecs.BOM_UTF16_LE + "a\x00b".encode("utf-16-le"), "looks like a binary file"),
        (b"PK\x03\x04\x00\x00binary", "looks like a binary file"),
        (bytes(range(128, 256)) * 4, "character encoding"),
    ],
    ids=["short-cp1251", "short-sjis", "bad-utf16", "bad-utf8-bom", "utf16-nul", "nul", "noise"],
)
def test_unsure_or_broken_text_is_refused_in_one_line_naming_the_file(
    tmp_path: Path, library: LibraryStore, data: bytes, message: str
) -> None:
    path = tmp_path / "doubtful.txt"
    path.write_bytes(data)
    with pytest.raises(LibraryError) as caught:
        library.add(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
    assert library.list_documents() == []


def test_the_refusal_names_the_guess_and_the_floor(tmp_path: Path) -> None:
    with pytest.raises(LibraryError) as caught:
        decode_text("Привет, мир!".encode("cp1251"), "short.txt")
    assert str(caught.value) == (
        "short.txt: cannot tell its character encoding (best guess cp1251, confidence 0.80 < "
        f"{MIN_CONFIDENCE}); save it as UTF-8 and add it again"
    )


def test_ascii_is_utf8_and_german_windows_text_is_named_cp1252() -> None:
    assert decode_text(b"plain words", "a.txt") == ("plain words", "utf-8")
    german = "Größere Änderungen für Straßenbahnen: Übergänge werden in Köln überprüft."
    assert decode_text(german.encode("cp1252"), "b.txt") == (german, "cp1252")


def test_library_list_shows_the_encoding(tmp_path: Path) -> None:
    path = tmp_path / "russian.txt"
    path.write_bytes(RU.encode("cp1251"))
    app = typer.Typer()
    app.add_typer(library_app, name="library")
    runner = CliRunner()
    added = runner.invoke(app, ["library", "add", str(path)])
    assert added.exit_code == 0 and "(txt, cp1251, 1 chunks)" in added.stdout
    listed = runner.invoke(app, ["library", "list"])
    assert " cp1251 " in listed.stdout
    as_json = json.loads(runner.invoke(app, ["library", "list", "--json"]).stdout)
    assert [doc["encoding"] for doc in as_json["documents"]] == ["cp1251"]
    found = runner.invoke(app, ["library", "search", "декарбонизации"])
    assert found.exit_code == 0 and "russian" in found.stdout
