from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argue.skills.library import LibraryError, LibraryStore
from argue.skills.library import store as store_module
from argue.skills.library.chunking import Chunk, ParsedDocument
from argue.skills.library.ingest import content_id


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "lib" / "library.sqlite3"


@pytest.fixture
def library(db_path: Path) -> Iterator[LibraryStore]:
    with LibraryStore(db_path) as store:
        yield store


def snapshot(db_path: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]], int]:
    with sqlite3.connect(db_path) as conn:
        documents = conn.execute("SELECT * FROM documents ORDER BY doc_id").fetchall()
        chunks = conn.execute("SELECT * FROM chunks ORDER BY id").fetchall()
        indexed = conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
    conn.close()
    return documents, chunks, indexed


def test_default_location_is_argue_home() -> None:
    from argue.paths import library_db_path

    assert LibraryStore().db_path == library_db_path()


@pytest.mark.parametrize(
    ("kind", "query", "locator"),
    [
        ("txt", "quokka camera", "lines 5-6"),
        ("md", "heteroscedasticity residuals", "§ Results"),
        ("pdf", "zebra migration", "p. 2"),
        ("epub", "albatross mast", "ch. 2: The Second Voyage"),
        ("vtt", "thermodynamics entropy", "00:01:30"),
        ("srt", "photosynthesis desert", "01:02:03"),
    ],
)
def test_every_kind_is_found_at_the_right_place(
    library: LibraryStore, sample_files: dict[str, Path], kind: str, query: str, locator: str
) -> None:
    for path in sample_files.values():
        library.add(path)
    hits = library.search(query, k=3)
    assert hits, f"nothing found for {query!r}"
    best = hits[0]
    assert best.kind == kind
    assert best.locator == locator
    assert best.score == pytest.approx(1.0)
    assert best.item_id == f"library:{best.doc_id}:{best.chunk_no}"
    assert best.path == str(sample_files[kind].resolve())
    first_word = query.split()[0]
    assert f"**{first_word}" in best.snippet.lower()


def test_add_reports_what_was_stored(library: LibraryStore, sample_files: dict[str, Path]) -> None:
    result = library.add(sample_files["pdf"])
    assert result.duplicate is False
    assert result.doc_id == content_id(sample_files["pdf"].read_bytes())
    assert len(result.doc_id) == 16
    assert (result.title, result.kind, result.chunk_count) == ("Savanna Atlas", "pdf", 2)
    [doc] = library.list_documents()
    assert doc.doc_id == result.doc_id
    assert doc.size_bytes == sample_files["pdf"].stat().st_size


def test_re_adding_same_content_even_renamed_does_not_duplicate(
    library: LibraryStore, db_path: Path, sample_files: dict[str, Path], tmp_path: Path
) -> None:
    first = library.add(sample_files["epub"])
    before = snapshot(db_path)
    again = library.add(sample_files["epub"])
    renamed = tmp_path / "copy of voyages.epub"
    shutil.copy(sample_files["epub"], renamed)
    copy = library.add(renamed)
    assert (again.duplicate, copy.duplicate) == (True, True)
    assert again.doc_id == copy.doc_id == first.doc_id
    assert copy.path == str(sample_files["epub"].resolve())  # the original is still there
    assert snapshot(db_path) == before
    assert len(library.search("albatross")) == 1


def test_duplicate_of_a_moved_file_follows_the_new_path(
    library: LibraryStore, sample_files: dict[str, Path], tmp_path: Path
) -> None:
    library.add(sample_files["md"])
    moved = tmp_path / "moved.md"
    sample_files["md"].rename(moved)
    result = library.add(moved)
    assert result.duplicate
    assert library.list_documents()[0].path == str(moved.resolve())


def test_failed_add_leaves_library_unchanged(
    library: LibraryStore, db_path: Path, sample_files: dict[str, Path], tmp_path: Path
) -> None:
    library.add(sample_files["txt"])
    before = snapshot(db_path)
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.4\nthis is not really a pdf\n")
    unsupported = tmp_path / "sheet.xlsx"
    unsupported.write_bytes(b"data")
    for path in (corrupt, unsupported, tmp_path / "missing.md"):
        with pytest.raises(LibraryError):
            library.add(path)
    assert snapshot(db_path) == before


def test_failed_first_add_does_not_create_the_database(db_path: Path, tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.epub"
    corrupt.write_bytes(b"not a zip")
    with pytest.raises(LibraryError, match="not a zip archive"):
        LibraryStore(db_path).add(corrupt)
    assert not db_path.exists()


def test_insert_failure_rolls_back_the_whole_document(
    library: LibraryStore,
    db_path: Path,
    sample_files: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    library.add(sample_files["txt"])
    before = snapshot(db_path)

    def half_valid(content: object) -> ParsedDocument:
        # the second chunk violates NOT NULL: the insert fails after the first rows went in
        return ParsedDocument("Broken", "md", [Chunk("§ A", "fine"), Chunk(None, "too")])  # type: ignore[arg-type]

    monkeypatch.setattr(store_module, "parse_content", half_valid)
    with pytest.raises(LibraryError, match="NOT NULL"):
        library.add(sample_files["md"])
    assert snapshot(db_path) == before


@pytest.mark.parametrize(
    "query",
    [
        'say "hello',
        "(unbalanced",
        "zebra NEAR migration",
        "NEAR(zebra migration, 2)",
        "zeb*",
        "-zebra",
        "title:zebra",
        "zebra AND OR NOT",
        "^zebra",
        "zebra + migration {x}",
        "'; DROP TABLE chunks; --",
        "",
        "   ",
        "***",
    ],
)
def test_fts_hostile_queries_do_not_raise(
    library: LibraryStore, sample_files: dict[str, Path], query: str
) -> None:
    library.add(sample_files["pdf"])
    hits = library.search(query)
    assert isinstance(hits, list)
    if "zebra" in query.lower():
        assert hits and hits[0].locator == "p. 2"
    assert len(library.list_documents()) == 1


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=st.text(max_size=40))
def test_any_text_is_a_safe_query(
    library: LibraryStore, sample_files: dict[str, Path], query: str
) -> None:
    if not library.list_documents():
        library.add(sample_files["md"])
    for hit in library.search(query, k=2):
        assert 0.0 <= hit.score <= 1.0


def test_all_terms_rank_above_some_terms(library: LibraryStore, tmp_path: Path) -> None:
    both = tmp_path / "both.txt"
    both.write_text("Tides depend on the moon and on the sun.", encoding="utf-8")
    one = tmp_path / "one.txt"
    one.write_text("The moon moon moon is bright tonight.", encoding="utf-8")
    library.add(one)
    library.add(both)
    hits = library.search("moon tides", k=5)
    assert [hit.path for hit in hits] == [str(both.resolve()), str(one.resolve())]
    assert hits[0].score == pytest.approx(1.0)
    assert 0.0 < hits[1].score <= 0.5


def test_no_match_returns_empty_list(library: LibraryStore, sample_files: dict[str, Path]) -> None:
    library.add(sample_files["txt"])
    assert library.search("xylophone") == []


def test_search_k_limits_and_validates(library: LibraryStore, tmp_path: Path) -> None:
    path = tmp_path / "rivers.md"
    path.write_text("\n\n".join(f"## River {n}\n\nThe river number {n}." for n in range(6)))
    library.add(path)
    assert len(library.search("river", k=2)) == 2
    assert len(library.search("river", k=10)) == 6
    with pytest.raises(ValueError):
        library.search("river", k=0)


def test_remove_deletes_document_and_index(
    library: LibraryStore, db_path: Path, sample_files: dict[str, Path]
) -> None:
    kept = library.add(sample_files["md"])
    gone = library.add(sample_files["pdf"])
    assert library.remove(gone.doc_id) is True
    assert library.search("zebra") == []
    assert [doc.doc_id for doc in library.list_documents()] == [kept.doc_id]
    assert library.remove(gone.doc_id) is False
    _, chunks, indexed = snapshot(db_path)
    assert len(chunks) == indexed == kept.chunk_count
    # re-adding after removal works and is not a duplicate
    assert library.add(sample_files["pdf"]).duplicate is False


def test_resolve_prefix_and_item_id(library: LibraryStore, sample_files: dict[str, Path]) -> None:
    added = library.add(sample_files["srt"])
    assert library.resolve(added.doc_id[:6]) == added.doc_id
    assert library.resolve(f"library:{added.doc_id}:2") == added.doc_id
    with pytest.raises(LibraryError, match="no document with id ffff"):
        library.resolve("ffff" if not added.doc_id.startswith("ffff") else "0000")


def test_resolve_ambiguous_prefix(library: LibraryStore, tmp_path: Path) -> None:
    by_first_char: dict[str, Path] = {}
    for n in range(100):
        path = tmp_path / f"note{n}.txt"
        path.write_text(f"note number {n}", encoding="utf-8")
        first = content_id(path.read_bytes())[0]
        if first in by_first_char:
            library.add(by_first_char[first])
            library.add(path)
            with pytest.raises(LibraryError, match="ambiguous"):
                library.resolve(first)
            return
        by_first_char[first] = path
    pytest.fail("no two notes share a first hex digit")


def test_database_is_wal_with_busy_timeout(
    library: LibraryStore, sample_files: dict[str, Path]
) -> None:
    library.add(sample_files["txt"])
    conn = library._connection()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000


def test_two_stores_on_one_file_see_each_other(
    db_path: Path, sample_files: dict[str, Path]
) -> None:
    with LibraryStore(db_path) as writer, LibraryStore(db_path) as reader:
        reader.list_documents()
        writer.add(sample_files["vtt"])
        assert reader.search("thermodynamics")[0].locator == "00:01:30"


def test_unreadable_database_raises_library_error(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(b"this is not a database, just bytes" * 200)
    with pytest.raises(LibraryError, match="unreadable"):
        LibraryStore(db_path).search("anything")


def test_newer_schema_is_refused(db_path: Path) -> None:
    LibraryStore(db_path).list_documents()
    with sqlite3.connect(db_path) as conn:
        conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(LibraryError, match="schema version 99"):
        LibraryStore(db_path).list_documents()
