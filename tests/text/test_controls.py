"""Issue 39 item 3: one character policy for every output.

C0 and C1 controls (ESC, BEL, the one-character CSI U+009B) and every Bidi_Control character
(U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) never reach a terminal, Markdown, the
JSON argue prints or an eval record as raw characters. The HTML report, its SVG tooltips and the
``argue serve`` pages and stream are tested beside them (tests/report/test_report_hardening.py,
tests/web/test_serve.py), against the same ``argue.text.controls.UNSAFE``.

Teeth: drop U+200E/U+200F/U+061C from ``BIDI_CONTROLS`` (the pattern every output shared
before) and the terminal, Markdown, JSON and policy tests fail; write ``status --json`` with
``json.dumps`` and the JSON test fails; drop ``json_safe`` from ``EvalFolder._append`` and the
eval test fails.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from typer.testing import CliRunner

from argue.cli import app as cli_app
from argue.console import terminal_safe
from argue.eval.arms import ItemResult
from argue.eval.folder import EvalFolder
from argue.render.inline import inline_markdown, markdown_paragraphs, one_line
from argue.text.controls import BIDI_CONTROLS, UNSAFE, dumps, json_safe, strip_controls
from tests.engine.conftest import new_store, personas

__all__ = ["new_store", "personas"]

# Every Bidi_Control character (Unicode's PropList.txt), and the C0/C1 controls that act.
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
HOSTILE = "a\x1b[31mb\x07c\x9bd\u202ee\u202af\u202cg\u2067h\u2066i\u2069j\u200ek\u200fl\u061cm\x7fn"
CLEAN = "a[31mbcdefghijklmn"


def _raw(text: str) -> list[str]:
    return [f"U+{ord(c):04X}" for c in text if UNSAFE.match(c)]


def test_the_policy_covers_every_bidi_control_and_every_c0_c1_control():
    assert set(BIDI_CONTROLS) == set(BIDI)
    for code in range(0x110000):
        char = chr(code)
        acts = unicodedata.category(char) == "Cc" and char not in "\t\n"
        assert bool(UNSAFE.match(char)) == (acts or char in BIDI), f"U+{code:04X}"


def test_the_terminal_strips_them():
    assert terminal_safe(HOSTILE) == CLEAN


def test_markdown_strips_them():
    for shown in (one_line(HOSTILE), inline_markdown(HOSTILE), markdown_paragraphs(HOSTILE)):
        assert _raw(shown) == [] and "klmn" in shown


def test_printed_json_escapes_them_and_keeps_the_value():
    document = dumps({"question": HOSTILE, "é": "\u00e9"})
    assert _raw(document) == [] and "é" in document
    assert "\\u202e" in document and "\\u200f" in document and "\\u009b" in document
    assert json.loads(document) == {"question": HOSTILE, "é": "é"}
    assert strip_controls(HOSTILE) == CLEAN and json_safe('"\u200e"') == '"\\u200e"'


def test_status_json_prints_no_raw_bidi_or_control_character(new_store):
    store = new_store("debates")
    config = json.loads(store.paths.config.read_text(encoding="utf-8"))
    config["question"] = f"Is it {HOSTILE}?"
    store.paths.config.write_text(json.dumps(config), encoding="utf-8")
    debates = str(store.paths.root.parent)
    for args in (["status", store.debate_id], ["status"]):
        result = CliRunner().invoke(cli_app, [*args, "--json", "--debates-dir", debates])
        assert result.exit_code == 0, result.output
        assert _raw(result.stdout) == [], result.stdout
        document = json.loads(result.stdout)
        row = document if isinstance(document, dict) else document[0]
        assert row["question"] == f"Is it {HOSTILE}?"  # the value is kept, escaped


def test_eval_records_store_no_raw_bidi_or_control_character(tmp_path: Path):
    folder = EvalFolder(tmp_path / "evals" / "e")
    result = ItemResult.model_validate(
        {"item": "i1", "arm": "single", "answer": HOSTILE, "expected": "4"}
        | {"started_at": 1.0, "finished_at": 2.0}
    )
    folder.append_result(result)
    text = (folder.root / "items.jsonl").read_text(encoding="utf-8")
    assert _raw(text) == [], text
    (stored,) = folder.results().values()
    assert stored.answer == HOSTILE
