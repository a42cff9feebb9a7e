"""The change detection behind the live page's stream: a stat walk of the debate folder that
sees a rewritten file, never follows a link out of the folder, and frames events as the
server-sent events format wants them."""

from __future__ import annotations

import os
from pathlib import Path

import anyio

from argue.store import write_text_atomic
from argue.web._feed import changes, folder_fingerprint, index_fingerprint, sse_event


def test_a_rewritten_file_changes_the_fingerprint_and_a_link_is_never_followed(tmp_path: Path):
    debate = tmp_path / "debates" / "argue_20260101_000000"
    (debate / "persona_a" / "arguments").mkdir(parents=True)
    state = debate / "state.json"
    write_text_atomic(state, '{"phase": "research"}')
    first = folder_fingerprint(debate)
    assert folder_fingerprint(debate) == first
    write_text_atomic(state, '{"phase": "rebuttal"}')  # same size, new file: the runner's way
    assert folder_fingerprint(debate) != first
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    os.symlink(outside, debate / "persona_a" / "arguments" / "link")
    os.symlink(outside / "secret.txt", debate / "linked.json")
    paths = [entry[0] for entry in folder_fingerprint(debate)]
    # Teeth: follow links in _walk and secret.txt shows up here.
    assert not any("secret" in p or "link" in p for p in paths)
    assert folder_fingerprint(tmp_path / "gone") == ()


def test_the_index_fingerprint_sees_a_new_debate_and_a_new_state(tmp_path: Path):
    root = tmp_path / "debates"
    root.mkdir()
    empty = index_fingerprint(root)
    (root / "argue_1").mkdir()
    write_text_atomic(root / "argue_1" / "state.json", "{}")
    one = index_fingerprint(root)
    assert one != empty and [name for name, _ in one] == ["argue_1"]
    write_text_atomic(root / "argue_1" / "state.json", "{ }")
    assert index_fingerprint(root) != one


def test_changes_yields_once_at_once_then_on_each_change_and_stops_when_told():
    marks = iter([1, 1, 2, 2, 2, 3])
    stop = {"now": False}
    seen: list[bool] = []

    def look() -> tuple[object, ...]:
        try:
            return (next(marks),)
        except StopIteration:
            stop["now"] = True
            return (3,)

    async def main() -> None:
        async for changed in changes(
            look, interval=0.0, stopping=lambda: stop["now"], keepalive_every=2
        ):
            seen.append(changed)

    anyio.run(main)
    # 1 (first look) · 1 quiet · 2 changed · 2, 2 quiet: keep-alive · 3 changed · then stop
    assert seen == [True, True, False, True]


def test_an_event_s_data_is_one_data_line_per_line():
    assert sse_event("update", "<p>a</p>\n<p>b</p>") == (
        "event: update\ndata: <p>a</p>\ndata: <p>b</p>\n\n"
    )
    # A carriage return in model text cannot end the event early or start a field.
    assert sse_event("update", "x\revent: evil") == "event: update\ndata: x\ndata: event: evil\n\n"
    assert sse_event("ping", "") == "event: ping\ndata: \n\n"
