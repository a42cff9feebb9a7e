"""Model text is data: it can neither run as a template nor reshape the Markdown around it."""

from __future__ import annotations

from argue.render.inline import inline_markdown, markdown_paragraphs, safe_link


def test_inline_text_cannot_open_blocks_or_tags():
    assert inline_markdown("# Injected\nheading") == "\\# Injected heading"
    assert inline_markdown("- item") == "\\- item"
    assert inline_markdown("1. step") == "1\\. step"  # a backslash before a digit would show
    assert inline_markdown("> quote") == "\\> quote"
    assert inline_markdown("<script>alert(1)</script>") == "&lt;script>alert(1)&lt;/script>"
    assert inline_markdown("{{ 7*7 }} stays | literal") == "{{ 7*7 }} stays | literal"
    assert inline_markdown("C# is fine") == "C# is fine"


def test_paragraphs_keep_breaks_but_make_each_inert():
    text = "First para\nstill first.\n\n# Not a heading\n\n- not a list"
    assert (
        markdown_paragraphs(text)
        == "First para still first.\n\n\\# Not a heading\n\n\\- not a list"
    )


def test_links_stay_one_autolink_and_only_for_the_web():
    assert safe_link("https://x.org/a b>c") == "<https://x.org/a%20b%3Ec>"
    assert safe_link("javascript:alert(1)") == "`javascript:alert(1)`"
    assert safe_link("file:///etc/passwd") == "`file:///etc/passwd`"


def test_control_characters_never_reach_the_markdown():
    from argue.render.inline import inert_text, model_text

    hostile = "clear\x1b[2J\x1b]0;title\x07 red\x1b[31m \u202eevil\x00"
    for render in (inline_markdown, inert_text, lambda t: model_text(t, None)):
        out = render(hostile)
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and "\x00" not in out


def test_a_hostile_conclusion_renders_inert(run_scripted_debate, tmp_path):
    import json

    store = run_scripted_debate(tmp_path)
    prose = json.loads(store.paths.synthesis_prose.read_text())
    prose["conclusion"] = "line\n# Injected H1\n{{ evil }} <b>"
    store.paths.synthesis_prose.write_text(json.dumps(prose))
    import asyncio

    from argue.engine import load_history, write_synthesis

    text = asyncio.run(write_synthesis(store, load_history(store), None, []))
    assert "\n# Injected" not in text
    assert "{{ evil }} &lt;b&gt;" in text


def test_no_bidi_or_control_character_reaches_the_transcript_or_the_synthesis(
    run_scripted_debate, tmp_path
):
    """Issue 39 item 3: LRM, RLM and ALM (U+200E, U+200F, U+061C) stayed in transcript.md and
    synthesis.md; every Bidi_Control and C0/C1 character now goes.

    Teeth: drop U+200E/U+200F/U+061C from ``argue.text.controls.BIDI_CONTROLS`` and this fails."""
    import asyncio
    import json

    from argue.engine import load_history, render_current_transcript, write_synthesis
    from argue.text.controls import UNSAFE

    hostile = "a\u200eb\u200fc\u061cd\u202ee\u2066f\u2069g\x1b[2Jh\x9bi\x07j"
    store = run_scripted_debate(tmp_path)
    argument = store.paths.argument("A", 1)
    data = json.loads(argument.read_text(encoding="utf-8"))
    data["position"] = hostile
    data["claims"][0]["text"] = hostile
    argument.write_text(json.dumps(data), encoding="utf-8")
    prose = json.loads(store.paths.synthesis_prose.read_text())
    prose["conclusion"] = hostile
    store.paths.synthesis_prose.write_text(json.dumps(prose))
    transcript = render_current_transcript(store)
    synthesis = asyncio.run(write_synthesis(store, load_history(store), None, []))
    for name, text in (("transcript", transcript), ("synthesis", synthesis)):
        assert "abcdefg" in text, name
        assert sorted({f"U+{ord(c):04X}" for c in UNSAFE.findall(text)}) == [], name
