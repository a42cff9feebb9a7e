from __future__ import annotations

from pathlib import Path

import pytest

from tests.skills.library.builders import write_epub, write_pdf


def filler(seed: str, words: int = 110) -> str:
    """Neutral prose, long enough that each paragraph becomes its own chunk."""
    vocabulary = ["river", "stone", "window", "garden", "letter", "morning", "table", "harbor"]
    return " ".join(f"{vocabulary[i % len(vocabulary)]}{seed}" for i in range(words))


@pytest.fixture
def sample_files(tmp_path: Path) -> dict[str, Path]:
    """One small real file of each supported type, each with a distinctive word at a known spot."""
    folder = tmp_path / "inbox"
    folder.mkdir()
    files: dict[str, Path] = {}

    txt = folder / "field notes.txt"
    paragraphs = [filler("a"), filler("b"), "The quokka smiled at the camera.\n" + filler("c")]
    txt.write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    files["txt"] = txt

    md = folder / "paper.md"
    md.write_text(
        "# Variance Study\n\nPreamble about the study.\n\n"
        "## Methods\n\nWe sampled ordinary households.\n\n```python\n# not a heading\n```\n\n"
        "## Results\n\nStrong heteroscedasticity appeared in the residuals.\n",
        encoding="utf-8",
    )
    files["md"] = md

    files["pdf"] = write_pdf(
        folder / "atlas.pdf",
        [
            ["Chapter one describes savanna grasses.", "Lions rest in the shade."],
            ["Page two covers the zebra migration.", "Herds cross the Mara river."],
        ],
        title="Savanna Atlas",
    )

    files["epub"] = write_epub(
        folder / "voyages.epub",
        "Voyages",
        [
            ("Departure", "The ship left the harbour at dawn.\n\nGulls followed it."),
            ("The Second Voyage", "An albatross circled the mast for three days."),
        ],
    )

    files["vtt"] = folder / "lecture.vtt"
    files["vtt"].write_text(
        "WEBVTT\n\nNOTE recorded at the conference\n\n"
        "1\n00:00:00.000 --> 00:00:04.000\nWelcome to the <b>lecture</b>.\n\n"
        "00:00:10.000 --> 00:00:14.000\n<v Speaker>Today we talk about engines.\n\n"
        "00:00:31.500 --> 00:00:35.000\nFirst, some history.\n\n"
        "00:01:30.000 --> 00:01:34.000\nThe second law of thermodynamics says entropy grows.\n\n"
        "00:01:34.000 --> 00:01:38.000\nThe second law of thermodynamics says entropy grows.\n"
        "Heat flows from hot to cold.\n",
        encoding="utf-8",
    )

    files["srt"] = folder / "interview.srt"
    files["srt"].write_text(
        "1\n00:00:01,000 --> 00:00:03,000\nHello and welcome.\n\n"
        "2\n01:02:03,500 --> 01:02:06,000\nWe discuss the photosynthesis\nof desert plants.\n",
        encoding="utf-8",
    )
    return files
