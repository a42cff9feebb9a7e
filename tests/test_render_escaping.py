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
