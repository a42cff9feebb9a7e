"""A French debate's documents are French (issue 21, Deliver 1, the documents half).

Teeth: put one English label back (e.g. ``termination = "Termination"`` in
argue/records/catalog/fr.toml, or ``{{ state.termination }}`` in synthesis.md.j2) and
``test_a_whole_french_debate_has_no_english_word_from_code`` fails naming the word and the
document; drop Embry's ``[fr]`` table and the participants-line test fails. Render the stored
English score reason again (``{{ comp.reason | model }}`` in transcript_round.md.j2) or put
``"reason_key_not_set"``'s French side back to ``"{name} not set"`` and
``test_failures_and_score_reasons_of_a_french_debate_are_french`` fails (both checked).

Model-written text (the scripted model writes English placeholders) is removed from each
document before the check, field by field from the debate's records; what remains is code's.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from argue.app import write_report
from argue.domain import BRIDGES, Failure, RoundScore
from argue.engine import ResearchRequest, create_debate
from argue.engine.modes import MODES
from argue.llm.base import ModelError
from argue.personas import load_catalog
from argue.records.labels import all_words
from argue.render import words
from argue.skills.base import SkillResult, SourceStatus
from tests.engine.conftest import personas, run_debate  # noqa: F401  (fixtures)
from tests.engine.script import DebateScript, ScriptedToolkit, names_of

QUESTION = "La conjecture de Collatz est-elle décidable ?"

# Fields of the records that hold model-written (or retrieved) text, never code's words.
MODEL_FIELDS = {
    "text",
    "warrant",
    "position",
    "reason",
    "point",
    "position_now",
    "would_change_my_mind",
    "belief",
    "query",
    "why",
    "title",
    "snippet",
    "proposition",
    "angle",
    "angles",
    "conclusion",
    "open_questions",
    "crux",
    "common_ground",
    "located",
    "context_before",  # the document's sentence around a located quote (issue 36)
    "context_after",
    "distancing",
    "support_note",  # the support checker's reason (a model's words)
    "quote",
    "view",
    "ready_reason",
    "taxonomy_tags",
    "dropped_calls",
    "stances",
    "reasons",  # the judge's reasons per persona
    "unmatched",  # names the judge rated that are no persona
}
# What the tests' doubles say as an external service or a model server would: quoted, not code.
EXTERNAL = ("arxiv: HTTP 503 from loopback", "scripted: HTTP 500 from the test server")

IDS = re.compile(r"[A-Z]-R\d+-E\d+|[A-Z]\d+\.c\d+|\n")
TOKEN = re.compile(r"[A-Za-zÀ-ÿœŒ_']+")


def _tokens(text: str) -> set[str]:
    return {t.strip("'").lower() for t in TOKEN.findall(text) if t.strip("'")}


def _english_words() -> set[str]:
    """Code's own English: every label's English side, minus words its French sides use too,
    plus the recorded ids and the personas' English roles and lenses."""
    english: set[str] = set()
    french: set[str] = set()
    french_words = all_words("fr", spaced=False)
    for name, en in all_words("en").items():
        fr = french_words[name]
        english |= _tokens(re.sub(r"\{[^}]*\}", " ", en))
        if fr != en:  # a label left English must not teach the check that its words are French
            french |= _tokens(re.sub(r"\{[^}]*\}", " ", fr))
    ids = {"synthesis_ready", "max_rounds", "null_production", "stopped", "convergence"}
    ids |= {"running", "completed", "failed", "interrupted", "budget_exhausted"}
    ids |= {"adversarial", "socratic", "devils-advocate", "panelist", "questioner", "defender"}
    ids |= set(BRIDGES)
    for persona in load_catalog():
        ids |= _tokens(persona.role) | _tokens(persona.lens)
    french_too = french | {"a", "on", "panel", "convergence", "corruption", "ok", "angle", "total"}
    french_too |= {"score", "round", "rounds", "argument", "persona", "skill", "mode"}
    return (english | ids) - french_too - {"mode", "participants", "proposition", "sources"}


# Records whose "reason" is written by code (a score component, a failure): it is said in the
# debate's language, so it stays in the document for the check.
CODE_REASONS = ({"name", "weight", "reason"}, {"what", "kind", "reason"})


def _model_strings(value: Any, out: list[str], inside: bool = False) -> None:
    if isinstance(value, dict):
        by_code = any(keys <= value.keys() for keys in CODE_REASONS)
        for key, item in value.items():
            if by_code and key in ("reason", "parts"):
                continue
            _model_strings(item, out, inside or key in MODEL_FIELDS)
    elif isinstance(value, list):
        for item in value:
            _model_strings(item, out, inside)
    elif isinstance(value, str) and inside and value.strip():
        out.append(value)


def _without_model_text(text: str, root: Path) -> str:
    strings: list[str] = []
    for path in root.rglob("*.json"):
        if path.name in ("config.json", "state.json"):
            continue
        try:
            _model_strings(json.loads(path.read_text()), strings)
        except (ValueError, UnicodeDecodeError):
            continue
    config = json.loads((root / "config.json").read_text())
    _model_strings(config.get("framing") or {}, strings, inside=True)
    state = json.loads((root / "state.json").read_text())
    if state.get("termination_detail", "").startswith("judge: "):
        strings.append(state["termination_detail"].removeprefix("judge: "))
    # Model text reaches a document whole, clipped, or cut around the ids code marks: remove
    # each piece between ids (a short piece as a whole word only).
    pieces = {p.strip() for s in strings for p in IDS.split(s) if p.strip()}
    for piece in sorted(pieces, key=len, reverse=True):
        if len(piece) > 3:
            text = text.replace(piece, " ")
        else:
            text = re.sub(rf"(?<!\w){re.escape(piece)}(?!\w)", " ", text)
    text = text.replace(QUESTION, " ")
    for message in EXTERNAL:
        text = text.replace(message, " ")
    text = re.sub(r"https?://\S+", " ", text)
    text = re.sub(r"\b[A-Z]-R\d+-E\d+\b|\b[A-Z]\d+\.c\d+\b|argue_\d+_\d+\S*", " ", text)
    text = re.sub(r"/(?:dogpile|memory|ask|taxonomy)\b", " ", text)  # skill names
    return re.sub(r"scripted(?:-1)?|SECRET-RESEARCH-[A-Z]|SPARTA", " ", text)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # the style sheet, and the map's clipped claim and rebuttal texts (model text)
        if tag == "style" or dict(attrs).get("class") in ("ntext", "rtext"):
            self._style = True
        for name, value in attrs:
            if name in ("title", "aria-label") and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "text"):
            self._style = False

    def handle_data(self, data: str) -> None:
        if not self._style:
            self.parts.append(data)


def _french_debate(run_debate, tmp_path: Path, personas, mode: str, names: list[str]):  # noqa: F811
    store = create_debate(
        tmp_path / mode,
        question=QUESTION,
        mode=mode,  # type: ignore[arg-type]
        personas=[personas[n] for n in names],
        max_rounds=2,
        provider="scripted",
        model="scripted-1",
        language="fr",
    )
    script = DebateScript(names=names_of([personas[n] for n in names]), cite_bogus=True)
    run = run_debate(
        names, mode=mode, store=store, script=script, toolkit=ScriptedToolkit(fail_skill="ask")
    )
    report = write_report(run.store, tmp_path / mode / "report.html")
    page = _Text()
    page.feed(report.read_text())
    return run.store.paths.root, {
        "synthesis.md": run.store.paths.synthesis.read_text(),
        "transcript.md": run.store.paths.transcript.read_text(),
        "report.html": "\n".join(page.parts),
    }


@pytest.mark.parametrize(
    ("mode", "names"),
    [("adversarial", ["embry", "horus"]), ("panel", ["embry", "horus", "brandon"])],
)
def test_a_whole_french_debate_has_no_english_word_from_code(
    run_debate,  # noqa: F811
    tmp_path: Path,
    personas,  # noqa: F811
    mode: str,
    names: list[str],
) -> None:
    root, documents = _french_debate(run_debate, tmp_path, personas, mode, names)
    english = _english_words()
    assert {"termination", "because", "synthesis_ready", "precision", "engineer"} <= english
    for name, text in documents.items():
        code_only = _without_model_text(text, root)
        found = sorted(_tokens(code_only) & english)
        assert not found, f"{mode} {name}: English from code: {found}"


def test_the_spec_participants_line_is_reproduced(run_debate, tmp_path: Path, personas) -> None:  # noqa: F811
    _, documents = _french_debate(run_debate, tmp_path, personas, "adversarial", ["embry", "horus"])
    synthesis = documents["synthesis.md"]
    assert (
        "- **Embry** (Ingénieur aérospatial, Précision=0,85) — Prisme formel/mathématique"
        in synthesis
    )
    assert "- **Horus** (IA, Résilience=0,80) — Prisme informatique/pratique" in synthesis
    assert re.search(
        r"^## Rounds\u00a0: 2 \| Terminaison\u00a0: Nombre maximum de rounds$", synthesis, re.M
    )
    assert "camp\u00a0: pour la proposition" in synthesis
    assert "**Mode\u00a0:** Adversaire" in documents["transcript.md"]


def test_a_panel_shows_the_angle_never_the_instruction(
    run_debate,  # noqa: F811
    tmp_path: Path,
    personas,  # noqa: F811
) -> None:
    _, documents = _french_debate(
        run_debate, tmp_path, personas, "panel", ["embry", "horus", "brandon"]
    )
    for text in documents.values():
        assert "PANELIST" not in text and "argue from your own lens" not in text
    assert words.stance_words("PANELIST: argue from your own lens (formal)", "fr") == ("", False)


def test_every_stance_code_assigns_is_shown_in_words() -> None:
    catalog = load_catalog()
    seated = {letter: catalog.get(n) for letter, n in zip("AB", ["embry", "horus"], strict=True)}
    for mode in MODES.values():
        for holds in (True, False, None):
            stances = mode.stances(["A", "B"], seated, {}, holds)
            for stance in stances.values():
                shown, by_model = words.stance_words(stance, "fr")
                assert not by_model, (mode.name, stance)
                assert not re.search(r"[A-Z]{4,}|the proposition|argue", shown), shown


def test_every_builtin_persona_has_french_role_and_lens() -> None:
    for persona in load_catalog():
        assert persona.fr is not None, persona.name
        assert persona.fr.role and persona.fr.lens
    embry = load_catalog().get("embry")
    assert words.dominant_bridge_words(embry, "fr") == "Précision=0,85"


def test_a_persona_file_without_a_french_table_still_loads(tmp_path: Path) -> None:
    from argue.personas.catalog import parse_persona

    text = (Path(__file__).parents[1] / "argue/personas/builtin/embry.toml").read_text()
    old = text.split("\n# French role and lens")[0]
    persona = parse_persona(old, "embry.toml")
    assert persona.fr is None
    assert words.persona_role(persona, "fr") == persona.role  # falls back to the English


def test_french_failure_sentences_quote_what_is_not_code() -> None:
    failure = Failure(
        round=1,
        persona="A",
        phase="research",
        kind="refused",
        what="dogpile 'collatz'",
        reason="nothing sent; brave refused: no BRAVE_API_KEY",
    )
    sentence = words.failure_sentence(failure, "fr")
    assert sentence.startswith("dogpile «\u00a0collatz\u00a0»\u00a0: refusé — rien ne s'est passé")
    assert (
        "rien n'a été envoyé\u202f; brave refusé\u00a0: «\u00a0no BRAVE_API_KEY\u00a0»" in sentence
    )
    note = words.research_note("nothing sent; brave refused: no key", "fr")
    assert note == "rien n'a été envoyé\u202f; brave refusé\u00a0: «\u00a0no key\u00a0»"


# ---------------------------------------------------------------- score reasons and failures


class _RefusingToolkit(ScriptedToolkit):
    """Research double whose dogpile also names a source refused for want of its key, and a
    source the plan asked for that is no research source; ``ask`` fails as a service would."""

    async def run(self, request: ResearchRequest) -> SkillResult:
        result = await super().run(request)
        if request.call.skill != "dogpile":
            return result
        statuses = [
            SourceStatus(source="library", status="ok", count=len(result.items)),
            SourceStatus(source="brave", status="refused", note="BRAVE_API_KEY not set"),
            SourceStatus(
                source="wikipedia",
                status="refused",
                note="not a research source; allowed: library, brave",
            ),
        ]
        note = "library ok (2), brave refused: BRAVE_API_KEY not set"
        return result.model_copy(update={"sources": statuses, "note": note})


def _fails(letter: str, rnd: int, phase: str) -> Exception | None:
    """The framing call, B's first research plan and A's second argument fail as a dead
    server would."""
    plan = letter == "B" and rnd == 1 and phase == "ResearchPlanDraft"
    argument = letter == "A" and rnd == 2 and phase == "ArgumentDraft"
    if phase == "FramingDraft" or plan or argument:
        return ModelError("scripted", "HTTP 500 from the test server", cause="crashed")
    return None


def _french_debate_with_failures(run_debate, tmp_path: Path, personas, lang: str = "fr"):  # noqa: F811
    names = ["embry", "horus"]
    store = create_debate(
        tmp_path / lang,
        question=QUESTION if lang == "fr" else "Is the Collatz conjecture decidable?",
        mode="adversarial",
        personas=[personas[n] for n in names],
        max_rounds=2,
        provider="scripted",
        model="scripted-1",
        language=lang,
    )
    script = DebateScript(names=names_of([personas[n] for n in names]), cite_bogus=True)
    script.fail = _fails
    run = run_debate(names, store=store, script=script, toolkit=_RefusingToolkit(fail_skill="ask"))
    report = write_report(run.store, tmp_path / lang / "report.html")
    page = _Text()
    page.feed(report.read_text())
    return run, {
        "synthesis.md": run.store.paths.synthesis.read_text(),
        "transcript.md": run.store.paths.transcript.read_text(),
        "report.html": "\n".join(page.parts),
        "terminal": "\n".join(run.events),
    }


def test_failures_and_score_reasons_of_a_french_debate_are_french(
    run_debate,  # noqa: F811
    tmp_path: Path,
    personas,  # noqa: F811
) -> None:
    run, documents = _french_debate_with_failures(run_debate, tmp_path, personas)
    root = run.store.paths.root
    failures = json.loads((root / "failures.json").read_text())
    whats = {f["what"] for f in failures}
    # the debate had what the check is about: a failing source, a refused source, failed model
    # calls (framing, a research plan) and score reasons
    assert {"framing model call", "research plan model call", "argument model call"} <= whats
    assert any(w.startswith("dogpile source brave for") for w in whats)
    assert any(w.startswith("ask ") for w in whats)
    assert any(f["reason"] == "BRAVE_API_KEY not set" for f in failures)
    scores = json.loads((root / "scoring" / "round_001.json").read_text())
    component = scores["personas"]["A"]["components"][0]
    # the record keeps the English sentence and its machine form
    assert "claims backed by a quote found in a retrieved document" in component["reason"]
    assert component["parts"] and component["parts"][0]["key"].startswith("score_")

    english = _english_words()
    assert {"claims", "backed", "counters", "refused", "sent"} <= english
    for name, text in documents.items():
        code_only = _without_model_text(text, root)
        found = sorted(_tokens(code_only) & english)
        assert not found, f"{name}: English from code: {found}"
    transcript, terminal = documents["transcript.md"], documents["terminal"]
    assert "contre-argument(s) visent un identifiant réel d'affirmation adverse" in transcript
    assert "BRAVE_API_KEY non définie" in transcript
    assert "appel au modèle (plan de recherche)\u00a0: planté" in transcript, transcript
    assert "appel au modèle pour le cadrage" in terminal
    # the same refusal is told once on the terminal, then counted
    assert terminal.count("BRAVE_API_KEY non définie") == 2, terminal
    assert re.search(r"le même refus s'est produit \d+ fois en tout\u00a0: BRAVE_API_KEY", terminal)


def test_an_english_debate_keeps_the_recorded_english_reasons(
    run_debate,  # noqa: F811
    tmp_path: Path,
    personas,  # noqa: F811
) -> None:
    run, documents = _french_debate_with_failures(run_debate, tmp_path, personas, lang="en")
    history = run.history
    for path in sorted((run.store.paths.root / "scoring").glob("round_00?.json")):
        score = RoundScore.model_validate_json(path.read_text())
        for persona in score.personas.values():
            for component in persona.components:
                # the sentence recorded is the sentence shown, and its parts say it again
                assert words.component_reason(component, "en") == component.reason
                assert words.reasons.score_reason_words(component.parts or [], "en") == (
                    component.reason
                )
                # (the transcript marks ids the debate does not know: compare up to the first one)
                assert re.split(r"[A-Z]\d", component.reason)[0] in documents["transcript.md"]
    for failure in history.failures:
        sentence = words.failure_sentence(failure, "en")  # as before: the record's own words
        assert sentence.startswith(f"{failure.what}: ") and sentence.endswith(
            f"({failure.reason})."
        )
    assert "framing model call: crashed" in documents["terminal"]
    assert "(the same refusal happened" in documents["terminal"]


def test_an_old_score_record_without_parts_shows_its_sentence() -> None:
    from argue.domain import ScoreComponent

    old = ScoreComponent(name="novelty", weight=1.5, value=0.5, reason="1/2 claims below 0.6")
    assert words.component_reason(old, "fr") == "1/2 claims below 0.6"
    assert "parts" not in old.model_dump()
    assert words.research_note(
        "asked only for wikipedia (not a research source): ran on every allowed source "
        "instead. library ok (2)",
        "fr",
    ) == (
        "seules wikipedia (pas une source de recherche) étaient demandées\u00a0: recherche lancée "
        "sur toutes les sources autorisées. library ok (2)"
    )
