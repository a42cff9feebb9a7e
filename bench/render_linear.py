"""Rendering one long untrusted field (issue 24, item 3): seconds for a 10 KB and a 1 MB field,
and their ratio (linear time: about 100; the old bare-link pattern made it about 10,000).

Run: ``.venv/bin/python bench/render_linear.py [--runs 3]``

The field is ``tests/test_render_linear.py``'s adversarial text (long runs of word characters,
dots, slashes, ``http`` fragments, an address with a long domain, then many small references).
It goes through each escaper (``model_text`` with and without a reference index,
``inert_text``, ``model_html``, ``inert_html``) and through whole pages: a scripted two-round
debate with one claim and the conclusion set to the field, rendered as transcript.md,
synthesis.md and report.html. Each figure is the best of ``--runs``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SIZES = (10_000, 1_000_000)


def _best(fn: Callable[[], object], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _pages(field: str, recorded: tuple[str, str, str]) -> None:
    from argue.render import render_synthesis, render_transcript
    from argue.report import render_report
    from tests.test_render_structure import _load

    history, state, prose = _load(recorded)
    next(iter(history.rounds[1].arguments.values())).claims[0].text = field
    prose.conclusion = field
    render_transcript(history, state, [])
    render_synthesis(history, state, [], prose, None)
    render_report(history, state, [], prose, None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as home:
        os.environ["ARGUE_HOME"] = home
        os.environ["OLLAMA_HOST"] = "127.0.0.1:9"
        from argue.render.inline import inert_text, model_text
        from argue.report.text import inert_html, model_html
        from tests.test_render_linear import INDEX, adversarial
        from tests.test_render_structure import _record

        recorded = _record(Path(home) / "debates")
        cases: dict[str, Callable[[str], object]] = {
            "model_text (references)": lambda t: model_text(t, INDEX),
            "model_text": lambda t: model_text(t, None),
            "inert_text": inert_text,
            "model_html (references)": lambda t: model_html(t, INDEX),
            "inert_html": inert_html,
            "pages (transcript, synthesis, report)": lambda t: _pages(t, recorded),
        }
        small, large = (adversarial(size) for size in SIZES)
        print(f"render bench: one field of {len(small):,} and {len(large):,} characters")
        for name, render in cases.items():
            t_small = _best(lambda fn=render: fn(small), args.runs)  # type: ignore[misc]
            t_large = _best(lambda fn=render: fn(large), args.runs)  # type: ignore[misc]
            ratio = t_large / t_small if t_small else float("inf")
            print(f"  {name:38} {t_small * 1000:8.1f} ms {t_large:7.2f} s  ratio {ratio:6.0f}")
        print(f"size ratio {len(large) / len(small):.0f} (linear: a time ratio near it)")


if __name__ == "__main__":
    main()
