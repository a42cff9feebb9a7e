from __future__ import annotations

from pathlib import Path

from argue.skills.library import EMPTY_LIBRARY_NOTE, LibraryStore, search_library


async def test_ok_result_carries_citable_items(
    tmp_path: Path, sample_files: dict[str, Path]
) -> None:
    db_path = tmp_path / "library.sqlite3"
    with LibraryStore(db_path) as store:
        added = store.add(sample_files["epub"])
        store.add(sample_files["pdf"])

    result = await search_library("albatross", 3, db_path=db_path)

    assert result.status == "ok"
    assert result.skill == "library"
    assert result.query == "albatross"
    [item] = result.items
    assert item.id == f"library:{added.doc_id}:2"
    assert item.title == "Voyages — ch. 2: The Second Voyage"
    assert item.locator == "ch. 2: The Second Voyage"
    assert item.url == sample_files["epub"].resolve().as_uri()
    assert item.url.startswith("file://")
    assert item.source == "library"
    assert "**albatross**" in item.snippet
    assert item.score == 1.0


async def test_default_database_is_the_argue_home_one(sample_files: dict[str, Path]) -> None:
    with LibraryStore() as store:
        store.add(sample_files["srt"])
    result = await search_library("photosynthesis")
    assert result.status == "ok"
    assert result.items[0].locator == "01:02:03"


async def test_missing_database_is_empty_and_not_created(tmp_path: Path) -> None:
    db_path = tmp_path / "none.sqlite3"
    result = await search_library("anything", db_path=db_path)
    assert result.status == "empty"
    assert result.note == EMPTY_LIBRARY_NOTE
    assert result.items == []
    assert not db_path.exists()


async def test_library_emptied_by_removal_says_empty(
    tmp_path: Path, sample_files: dict[str, Path]
) -> None:
    db_path = tmp_path / "library.sqlite3"
    with LibraryStore(db_path) as store:
        store.remove(store.add(sample_files["md"]).doc_id)
    result = await search_library("results", db_path=db_path)
    assert (result.status, result.note) == ("empty", EMPTY_LIBRARY_NOTE)


async def test_no_match_is_empty_with_the_query_named(
    tmp_path: Path, sample_files: dict[str, Path]
) -> None:
    db_path = tmp_path / "library.sqlite3"
    with LibraryStore(db_path) as store:
        store.add(sample_files["md"])
    result = await search_library("xylophone quartet", db_path=db_path)
    assert result.status == "empty"
    assert result.note == "library has no match for 'xylophone quartet'"


async def test_unreadable_database_is_failed(tmp_path: Path) -> None:
    db_path = tmp_path / "library.sqlite3"
    db_path.write_bytes(b"garbage, not sqlite" * 300)
    result = await search_library("anything", db_path=db_path)
    assert result.status == "failed"
    assert "unreadable" in result.note
    assert str(db_path) in result.note


async def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    db_path = tmp_path / "library.sqlite3"
    assert (await search_library("x", 0, db_path=db_path)).status == "refused"
    no_words = await search_library('"*" -- ()', db_path=db_path)
    assert no_words.status == "refused"
    assert "no searchable words" in no_words.note


def test_public_surface_changes_only_on_purpose() -> None:
    import argue.skills.library
    import argue.skills.memory

    assert set(argue.skills.library.__all__) == {
        "EMPTY_LIBRARY_NOTE",
        "SUPPORTED_SUFFIXES",
        "AddResult",
        "DocumentInfo",
        "LibraryError",
        "LibraryHit",
        "LibraryStore",
        "query_terms",  # the application layer checks a query has words before searching
        "search_library",
        "without_highlights",
    }
    assert set(argue.skills.memory.__all__) == {
        "MemoryOrigin",
        "MemoryRecord",
        "MemoryScope",
        "MemoryStore",
        "MemoryStoreError",
        "learn_memory",
        "recall_memory",
    }
    assert argue.skills.library.SUPPORTED_SUFFIXES == (
        ".epub", ".markdown", ".md", ".pdf", ".srt", ".text", ".txt", ".vtt",
    )  # fmt: skip
