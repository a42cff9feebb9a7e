"""Big argument maps, before and after the round-by-round view (issue 41, item 2): arrow crossings
and the share of arrows in a shared corridor, on a 10-persona scripted debate.

Run: ``.venv/bin/python bench/map_tangle.py [--personas 10] [--rounds 2]``

Before: the columns view (one column per persona, every round in one figure), as the report
drew every map. After: the round-by-round view the report now draws above four personas, one
figure per round (the arrows of two figures never meet, so the figures' counts add up).
Measured by :mod:`argue.report.argument_map.tangle` on the arrows' drawn points; the corridor
share is also given at 6 and 12 px, to show what the threshold does. Counts, not times: the
same debate gives the same figures on any machine.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

LINEUP = [
    "aldous",
    "brandon",
    "embry",
    "hana",
    "horus",
    "lucien",
    "mirela",
    "noor",
    "odile",
    "priya",
]


def debate_history(root: Path, personas: int, rounds: int):  # type: ignore[no-untyped-def]
    """A scripted panel of ``personas`` (the report tests' script) and its record."""
    from argue.engine import DebateRunner, create_debate
    from argue.llm import ScriptedModel
    from argue.personas import load_catalog
    from argue.store.history import load_history
    from tests.engine.script import DebateScript, ScriptedToolkit, names_of

    catalog = load_catalog()
    lineup = [catalog.get(name) for name in LINEUP[:personas]]
    store = create_debate(
        root / "debates",
        question="Is the Collatz conjecture decidable?",
        mode="panel",
        personas=lineup,
        max_rounds=rounds,
        provider="scripted",
        model="scripted-1",
    )
    model = ScriptedModel(DebateScript(names=names_of(lineup)))
    asyncio.run(DebateRunner(store, model, ScriptedToolkit(), reporter=lambda _: None).run())
    return load_history(store)


def measure(personas: int, rounds: int) -> None:
    from argue.grounding.index import ReferenceIndex
    from argue.report.argument_map.layout import _layout, map_model
    from argue.report.argument_map.stack import build_round_maps
    from argue.report.argument_map.tangle import views_tangle

    with tempfile.TemporaryDirectory() as tmp:
        history = debate_history(Path(tmp), personas, rounds)
    references = ReferenceIndex([])
    scores = history.claim_scores()
    columns = map_model(history, references, scores)
    _layout(columns)
    stacked = build_round_maps(map_model(history, references, scores), "en")
    before_views = [[e.points for e in columns.edges]]
    after_views = [[e.points for e in m.edges] for m in stacked]
    print(f"{personas} personas, {rounds} rounds, {len(columns.edges)} arrows")
    print(f"  before: columns view, one figure {columns.width:.0f} px wide")
    print(
        f"  after:  round-by-round view, {len(stacked)} figures, widest "
        f"{max(m.width for m in stacked):.0f} px"
    )
    for corridor in (10.0, 6.0, 12.0):
        before = views_tangle(before_views, corridor)
        after = views_tangle(after_views, corridor)
        if corridor == 10.0:
            factor = before.crossings / after.crossings if after.crossings else float("inf")
            print(
                f"  crossings: before {before.crossings}, after {after.crossings} "
                f"(factor {factor:.1f})"
            )
        share_factor = f"factor {before.share / after.share:.1f}" if after.share else "none left"
        print(
            f"  arrows in a shared corridor (< {corridor:g} px): before {before.shared}/"
            f"{before.arrows} ({before.share:.0%}), after {after.shared}/{after.arrows} "
            f"({after.share:.0%}) ({share_factor})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--personas", type=int, default=10, choices=range(2, 11))
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    measure(args.personas, args.rounds)


if __name__ == "__main__":
    main()
