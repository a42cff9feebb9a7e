from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from argue.skills.base import SkillResult
from argue.skills.memory import (
    MemoryStore,
    MemoryStoreError,
    learn_memory,
    recall_memory,
)


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "memory.sqlite3") as store:
        yield store


def ids(result: SkillResult) -> list[str]:
    return [item.id for item in result.items]


def test_default_location_is_argue_home() -> None:
    from argue.paths import memory_db_path

    assert MemoryStore().db_path == memory_db_path()


def test_learn_then_recall_own_memory(memory: MemoryStore) -> None:
    memory_id = memory.learn(
        "embry",
        "Tao 2019 showed almost all Collatz orbits attain almost bounded values.",
        kind="claim",
        debate_id="argue_20260212_153000",
        round_no=2,
        tags=["collatz", "evidence"],
    )
    assert memory_id == "mem:1"
    result = memory.recall("Collatz orbits", persona="embry")
    assert result.status == "ok"
    assert result.skill == "memory"
    [item] = result.items
    assert item.id == memory_id
    assert item.source == "memory"
    assert item.title == "claim (embry; model-written) [collatz, evidence]"
    assert item.provenance == "recall"  # a memory is never a document, whoever wrote it
    assert item.locator == "debate argue_20260212_153000, round 2"
    assert item.snippet.startswith("Tao 2019 showed")
    assert item.score == 1.0


def test_personas_never_see_each_other(memory: MemoryStore) -> None:
    memory.learn("embry", "Microservices multiply failure modes.")
    memory.learn("horus", "Microservices let teams deploy independently.")
    embry = memory.recall("microservices", persona="embry")
    horus = memory.recall("microservices", persona="horus")
    assert ids(embry) == ["mem:1"]
    assert ids(horus) == ["mem:2"]
    stranger = memory.recall("microservices", persona="brandon")
    assert stranger.status == "empty"
    assert stranger.items == []
    assert stranger.note == "no memories of brandon or the shared archive match 'microservices'"


def test_persona_names_are_case_insensitive(memory: MemoryStore) -> None:
    memory.learn("Embry", "Rust borrow checker prevents data races.")
    assert ids(memory.recall("borrow checker", persona=" EMBRY ")) == ["mem:1"]


def test_shared_scope_visible_to_all_unless_excluded(memory: MemoryStore) -> None:
    memory.learn("embry", "Monoliths are simpler to debug.")
    archive = memory.learn(
        None,
        "Debate argue_1 on monoliths ended in stable disagreement.",
        kind="debate",
        scope="shared",
        debate_id="argue_1",
    )
    assert set(ids(memory.recall("monoliths", persona="embry"))) == {"mem:1", archive}
    assert ids(memory.recall("monoliths", persona="horus")) == [archive]
    assert ids(memory.recall("monoliths", persona="embry", include_shared=False)) == ["mem:1"]
    # no persona: the shared archive only
    assert ids(memory.recall("monoliths")) == [archive]
    none_at_all = memory.recall("monoliths", persona=None, include_shared=False)
    assert none_at_all.status == "refused"


def test_shared_memory_may_name_its_author(memory: MemoryStore) -> None:
    memory.learn("embry", "Lesson: cite primary sources.", scope="shared", kind="lesson")
    result = memory.recall("primary sources", persona="horus")
    assert result.items[0].title == "lesson (shared; model-written)"
    assert memory.list("embry")[0].scope == "shared"


def test_min_score_filters_partial_matches(memory: MemoryStore) -> None:
    memory.learn("embry", "Entropy always increases in a closed system.")
    memory.learn("embry", "Closed questions get short answers.")
    everything = memory.recall("entropy closed system", persona="embry")
    scores = [item.score for item in everything.items]
    assert ids(everything) == ["mem:1", "mem:2"]
    assert scores[0] == 1.0
    assert scores[1] is not None and 0.0 < scores[1] < 0.5
    strict = memory.recall("entropy closed system", persona="embry", min_score=0.5)
    assert ids(strict) == ["mem:1"]
    nothing = memory.recall("entropy quantum gravity", persona="embry", min_score=0.9)
    assert nothing.status == "empty"
    assert nothing.items == []
    assert "with score ≥ 0.90 (best was 0.33)" in nothing.note


def test_recall_k_and_validation(memory: MemoryStore) -> None:
    for n in range(8):
        memory.learn("embry", f"Observation {n} about coral reefs.")
    assert len(memory.recall("coral reefs", persona="embry", k=3).items) == 3
    assert memory.recall("coral", persona="embry", k=0).status == "refused"
    assert memory.recall("coral", persona="embry", min_score=1.5).status == "refused"
    no_words = memory.recall("*** -- ()", persona="embry")
    assert no_words.status == "refused"
    assert "no searchable words" in no_words.note


@pytest.mark.parametrize(
    "query",
    ['"coral unbalanced', "coral NEAR reef", "coral*", "-coral", "tags:coral", "(coral) AND"],
)
def test_hostile_queries_are_plain_text(memory: MemoryStore, query: str) -> None:
    memory.learn("embry", "Coral reefs bleach when the sea warms.")
    result = memory.recall(query, persona="embry")
    assert result.status == "ok"
    assert ids(result) == ["mem:1"]


def test_tags_are_searchable(memory: MemoryStore) -> None:
    memory.learn("embry", "Quorum reads trade latency for safety.", tags=["distributed-systems"])
    assert ids(memory.recall("distributed systems", persona="embry")) == ["mem:1"]


def test_long_memory_shows_a_snippet(memory: MemoryStore) -> None:
    text = " ".join(["filler"] * 400) + " the keystone fact " + " ".join(["padding"] * 400)
    memory.learn("embry", text)
    snippet = memory.recall("keystone", persona="embry").items[0].snippet
    assert "**keystone**" in snippet
    assert len(snippet) < 600


@pytest.mark.parametrize(
    ("persona", "text", "scope", "message"),
    [
        (None, "orphan", "persona", "needs a persona"),
        ("embry", "   ", "persona", "empty memory"),
        ("embry", "x", "global", "unknown memory scope"),
    ],
)
def test_learn_rejects_bad_input(
    memory: MemoryStore, persona: str | None, text: str, scope: str, message: str
) -> None:
    with pytest.raises(MemoryStoreError, match=message):
        memory.learn(persona, text, scope=scope)  # type: ignore[arg-type]
    assert memory.list() == []


def test_list_and_forget(memory: MemoryStore) -> None:
    memory.learn("embry", "first")
    memory.learn("horus", "second")
    memory.learn("embry", "third", tags=["a", "b"])
    assert [r.id for r in memory.list()] == ["mem:3", "mem:2", "mem:1"]
    assert [r.text for r in memory.list("embry")] == ["third", "first"]
    assert memory.list("embry", limit=1)[0].tags == ["a", "b"]

    assert memory.forget("mem:3") is True
    assert memory.forget("mem:3") is False
    assert memory.forget("not-an-id") is False
    assert memory.recall("third", persona="embry").status == "empty"
    # ids are never reused
    assert memory.learn("embry", "fourth") == "mem:4"
    assert memory.get("4") is not None and memory.get("mem:3") is None


async def test_async_learn_and_recall_run_concurrently(tmp_path: Path) -> None:
    db_path = tmp_path / "memory.sqlite3"
    personas = ["embry", "horus", "brandon"]
    learned = await asyncio.gather(
        *(
            learn_memory(persona, f"{persona} insight {n} on volcanoes", db_path=db_path)
            for persona in personas
            for n in range(4)
        )
    )
    assert len(set(learned)) == 12
    results = await asyncio.gather(
        *(recall_memory("volcanoes", persona, k=10, db_path=db_path) for persona in personas)
    )
    for persona, result in zip(personas, results, strict=True):
        assert result.status == "ok"
        assert len(result.items) == 4
        assert all(persona in item.snippet for item in result.items)


async def test_recall_memory_on_unreadable_database_is_failed(tmp_path: Path) -> None:
    db_path = tmp_path / "memory.sqlite3"
    db_path.write_bytes(b"definitely not sqlite" * 300)
    result = await recall_memory("anything", "embry", db_path=db_path)
    assert result.status == "failed"
    assert "unreadable" in result.note
    with pytest.raises(MemoryStoreError, match="unreadable"):
        await learn_memory("embry", "text", db_path=db_path)


async def test_learn_memory_passes_every_field(tmp_path: Path) -> None:
    db_path = tmp_path / "memory.sqlite3"
    memory_id = await learn_memory(
        None,
        "Debate argue_7 converged on a hybrid design.",
        kind="debate",
        debate_id="argue_7",
        round_no=4,
        tags=("architecture",),
        scope="shared",
        db_path=db_path,
    )
    with MemoryStore(db_path) as store:
        record = store.get(memory_id)
    assert record is not None
    assert (record.persona, record.scope, record.kind) == (None, "shared", "debate")
    assert (record.debate_id, record.round_no, record.tags) == ("argue_7", 4, ["architecture"])


def test_origin_is_stored_and_a_version_1_database_is_upgraded(tmp_path) -> None:
    import sqlite3

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE memories (id INTEGER PRIMARY KEY AUTOINCREMENT, persona TEXT, scope TEXT "
        "NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL, tags TEXT NOT NULL DEFAULT '', "
        "debate_id TEXT, round_no INTEGER, created_at TEXT NOT NULL);"
        "INSERT INTO memories (persona, scope, kind, text, created_at) VALUES "
        "('embry', 'persona', 'argument', 'An old claim about orbits', '2026-01-01');"
        "PRAGMA user_version = 1;"
    )
    conn.close()
    with MemoryStore(path) as store:
        [old] = store.list("embry")
        assert old.origin == "model"
        new_id = store.learn("embry", "The operator's note on orbits", origin="operator")
        assert store.get(new_id).origin == "operator"
        recalled = store.recall("orbits", persona="embry")
        assert len(recalled.items) == 2  # the version-1 row is indexed by the migration too
        assert {item.provenance for item in recalled.items} == {"recall"}
        assert any("noted by the operator" in item.title for item in recalled.items)
