"""A French debate's terminal speaks French: start banner, progress, termination, hints,
``--dry-run``, ``status`` and ``watch`` carry no English word of argue's own (issue 21 item 1).

Teeth: putting one English label back (``"t_wave"``'s French side set to
``"  {wave}: {n} personas in parallel…"`` in argue/records/catalog/fr.toml) makes
``test_a_french_debate_prints_no_english_word_of_code`` fail on "personas in parallel".
Putting ``"reason_key_not_set"``'s French side back to ``"{name} not set"`` makes
``test_a_refused_source_is_said_once_in_french_then_counted`` fail on "not set" (checked).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.fake_llm import FakeLLM, ResearchingScript
from tests.e2e.harness import Cli, Result, openai_env

pytestmark = pytest.mark.e2e

QUESTION_FR = "La conjecture de Collatz est-elle décidable ?"

# Code's own English words (the English side of the labels the terminal uses, and the literal
# words that were translated). "Round" is not here: the spec's French session writes "Round 1/5".
ENGLISH = (
    "Debate ID",
    "Question:",
    "Personas:",
    "Mode:",
    "Model:",
    "adversarial",
    "Adversarial",
    "Auto-selected",
    "keyword routing",
    "matched",
    "as embry's colleague",
    "no other persona",
    "ties go to",
    "warning:",
    "all personas use",
    "personas in parallel",
    "research and argument",
    "reflection and judge",
    "rebuttal",
    "research:",
    "item(s)",
    "call(s)",
    "claim(s)",
    "quote(s)",
    "found in their sources",
    "counter(s)",
    "confidence",
    "scored",
    "model calls",
    "tokens",
    "so far",
    "Termination",
    "max_rounds",
    "Maximum rounds",
    "reached the limit",
    "Synthesis:",
    "Proposition:",
    "Dry run",
    "no debate folder",
    "Seating",
    "auto-selected",
    "Debate model",
    "at most",
    "Estimate for",
    "framing",
    "research plan",
    "judge,",
    "Prices",
    "per Mtok",
    "built-in table",
    "Assumptions",
    "Precision",
    "Stealth",
    "status ",
    "termination",
    "completed",
    "Following",
    "Ctrl-C stops",
    "up to",
    "synthesis:",
    # failures (issue 21): a step and code's reasons
    "source brave for",
    "refused —",
    "nothing happened",
    "not set",
    "model call",
    "the same refusal",
)


def _code_words(result: Result, allowed: tuple[str, ...]) -> list[str]:
    """The English words of code found in the output, once the text argue did not write is cut
    out (the question, ids, paths, model names, the fake model's own English text)."""
    text = result.stdout + "\n" + result.stderr
    for part in allowed:
        text = text.replace(part, "")
    text = re.sub(r'"[^"\n]*"', '""', text)  # queries the model wrote
    text = re.sub(r"argue_\d{8}_\d{6}(_\d+)?", "ID", text)
    text = re.sub(r"\S*/debates/\S*", "PATH", text)
    return [word for word in ENGLISH if word in text]


@pytest.fixture(scope="module")
def french(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cli, FakeLLM]]:
    fake = FakeLLM(ResearchingScript(names={}, consult={"A": "brandon"})).start()
    try:
        workdir = tmp_path_factory.mktemp("french_terminal")
        cli = Cli(workdir, env_overrides=openai_env(fake.url))
        cli.add_library_note()
        yield cli, fake
    finally:
        fake.stop()


ALLOWED = (
    QUESTION_FR,
    "openai/gpt-5.4-mini",
    "It is true that",  # the fake model's proposition
    "--persona-model",
    "--mode",
)


def _only_french(result: Result) -> None:
    assert result.returncode == 0, result.describe()
    found = _code_words(result, ALLOWED)
    assert not found, f"English words of code: {found}\n{result.describe()}"


def test_a_french_debate_prints_no_english_word_of_code(french: tuple[Cli, FakeLLM]) -> None:
    cli, _ = french
    dry = cli.run("argue", QUESTION_FR, "--rounds", "2", "--dry-run")
    _only_french(dry)
    assert "Simulation" in dry.stdout and "Mode\u00a0: Adversaire" in dry.stdout

    run = cli.run("argue", QUESTION_FR, "--rounds", "2")
    _only_french(run)
    assert "ID du débat\u00a0: argue_" in run.stdout
    assert "Mode\u00a0: Adversaire" in run.stderr
    assert "Round 1/2" in run.stderr and "Round 2/2" in run.stderr
    assert "Recherche via /dogpile" in run.stderr
    assert "Terminaison\u00a0: Nombre maximum de rounds — limite de 2 rounds atteinte" in run.stderr
    assert "Précision=0,85" in run.stderr

    debate_id = re.search(r"argue_\d{8}_\d{6}\S*", run.stdout)
    assert debate_id, run.describe()
    for args in (("status",), ("status", debate_id[0]), ("watch", debate_id[0])):
        shown = cli.run(*args)
        _only_french(shown)
    status = cli.run("status", debate_id[0], COLUMNS="120").stdout
    assert "statut" in status and "terminé" in status and "terminaison" in status


def test_an_english_debate_says_the_words_in_english(french: tuple[Cli, FakeLLM]) -> None:
    """The same words in English: termination and mode as words, not ids."""
    cli, _ = french
    run = cli.run("argue", "Is the Collatz conjecture decidable?", "--rounds", "1")
    assert run.returncode == 0, run.describe()
    assert "Debate ID: argue_" in run.stdout
    assert "Mode: Adversarial" in run.stderr
    assert "Termination: Maximum rounds — reached the limit of 1 round" in run.stderr
    assert "  research and argument: 2 personas in parallel…" in run.stderr


def test_a_source_without_its_key_is_said_once_in_french(
    french: tuple[Cli, FakeLLM],
) -> None:
    """Brave without its key is not asked (issue 35): the terminal names it once, in French,
    before round 1, and no research call refuses for it; no English word of code (issue 21)."""
    cli, _ = french
    run = cli.run("argue", QUESTION_FR, "--rounds", "2", "--sources", "library,brave")
    _only_french(run)
    for english in ("source brave for", "refused", "nothing happened", "not set"):
        assert english not in run.stderr, run.describe()
    assert run.stderr.count("BRAVE_API_KEY non définie") == 1, run.describe()
    assert "attention\u00a0: brave non utilisée\u00a0: BRAVE_API_KEY non définie" in run.stderr
    assert "source brave" not in run.stderr
    english = cli.run(
        "argue",
        "Is the Collatz conjecture decidable?",
        "--rounds",
        "2",
        "--sources",
        "library,brave",
    )
    assert english.returncode == 0, english.describe()
    assert english.stderr.count("BRAVE_API_KEY not set") == 1, english.describe()
    assert "warning: brave not used: BRAVE_API_KEY not set" in english.stderr
    assert "dogpile source brave" not in english.stderr


def test_stored_details_are_said_in_french() -> None:
    from argue.records.terminal import detail_words

    assert detail_words("reached the limit of 3 round(s)", "fr") == "limite de 3 rounds atteinte"
    assert detail_words("stop requested; stopped before the rebuttal of round 2", "fr") == (
        "arrêt demandé\u202f; arrêté avant la réfutation du round 2"
    )
    assert detail_words("judge: ready", "fr") == "juge\u00a0: prête"
    assert detail_words("anything else", "fr") == "anything else"
    assert Path(__file__).name  # the module runs from a checkout
