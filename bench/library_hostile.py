"""Hostile files for ``library add``: chunking time ratios, and wall time and peak RSS per file.

Run: ``.venv/bin/python bench/library_hostile.py [--quick] [--case NAME]… [--keep DIR]``

1. One child process per file (``resource.getrusage`` there, so each peak RSS is that file's
   alone): files at the default limits (100 MB of text: in lines, on one line, with an emoji per
   paragraph, in cp1252; 100 MB of Markdown; an EPUB expanding to ~190 MB) and over them (a
   200 MB text, the 643 KB EPUB of seven 60 MB chapters, a zip bomb, an entry the spine reads
   40 times, a PDF of 3,000 pages, a subtitle line of 1 MB).
   Each row: what happened, the time ``add`` took, the child's peak RSS. The target is a few
   seconds for a refusal and < 300 MB RSS for any file. ``--quick`` skips the 100 MB files.
2. Linear chunking: parsing (read, decode, chunk), and the whole ``LibraryStore.add``, of
   one-line texts of 2, 8 and 32 MB in this process (best of 3), and the ratios of their times:
   about 4 and 16 when linear. Cutting a long line used to copy the rest of it at every cut:
   parsing 16 MB took 12 s, 300 times 1 MB.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from argue.skills.library import LibraryError, LibraryStore
from argue.skills.library.ingest import parse_content, read_file
from tests.skills.library.builders import write_pdf

MB = 1 << 20
WORD = "abcdefghi "
CHILD = """
import json, resource, sys, time
from pathlib import Path
from argue.skills.library import LibraryError, LibraryStore
path, db = Path(sys.argv[1]), Path(sys.argv[2])
with LibraryStore(db) as store:
    store.list_documents()
    started = time.perf_counter()
    try:
        added = store.add(path) if path.name != "-" else None
        outcome = f"added, {added.chunk_count} chunks" if added else "nothing added"
    except LibraryError as exc:
        outcome = str(exc).replace(str(path), path.name)
    seconds = time.perf_counter() - started
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"outcome": outcome, "seconds": seconds, "peak_mb": peak_mb}))
"""


def one_line_text(path: Path, megabytes: float) -> Path:
    path.write_text(WORD * int(megabytes * MB / len(WORD)), encoding="utf-8")
    return path


def text_in_lines(path: Path, megabytes: float, rng: random.Random, markdown: bool = False) -> Path:
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "sigma"]
    paragraphs = [
        "\n".join(" ".join(rng.choices(words, k=rng.randint(4, 14))) for _ in range(6))
        for _ in range(200)
    ]
    with path.open("w", encoding="utf-8") as out:
        written, section = 0, 0
        while written < megabytes * MB - 4096:
            if markdown and section % 20 == 0:
                out.write(f"## Section {section}\n\n")
            section += 1
            paragraph = rng.choice(paragraphs) + "\n\n"
            written += out.write(paragraph)
    return path


def epub(path: Path, chapters: list[bytes], spine_repeat: int = 1) -> Path:
    items = "".join(
        f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>'
        for i in range(len(chapters))
    )
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters))) * spine_repeat
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>",
        )
        archive.writestr(
            "content.opf",
            '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
            '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Bench</dc:title>'
            f"</metadata><manifest>{items}</manifest><spine>{spine}</spine></package>",
        )
        for number, chapter in enumerate(chapters):
            archive.writestr(f"c{number}.xhtml", chapter)
    return path


def chapter(text: str) -> bytes:
    return f"<html><body><p>{text}</p></body></html>".encode()


def varied_chapter(megabytes: float, rng: random.Random) -> bytes:
    """XHTML paragraphs of words from a 50,000-word vocabulary: compresses like real text."""
    vocabulary = [f"w{rng.randrange(1 << 24):x}" for _ in range(50_000)]
    paragraphs = []
    size = 0
    while size < megabytes * MB:
        paragraph = " ".join(rng.choices(vocabulary, k=150))
        paragraphs.append(f"<p>{paragraph}</p>")
        size += len(paragraph) + 7
    return f"<html><body>{''.join(paragraphs)}</body></html>".encode()


def emoji_text(path: Path, megabytes: float) -> Path:
    """ASCII but for one emoji per paragraph: each chunk's str takes 4 bytes per character."""
    block = ("plain words in a paragraph " * 40 + "\U0001f600\n\n").encode("utf-8")
    path.write_bytes(block * int(megabytes * MB / len(block)))
    return path


def legacy_text(path: Path, megabytes: float) -> Path:
    """German in cp1252: not UTF-8, so the whole file goes through charset-normalizer first."""
    paragraph = "Größere Änderungen für Straßenbahnen: Übergänge werden in Köln überprüft. " * 20
    block = (paragraph + "\n\n").encode("cp1252")
    path.write_bytes(block * int(megabytes * MB / len(block)))
    return path


def sparse_file(path: Path, megabytes: int) -> Path:
    with path.open("wb") as out:
        out.truncate(megabytes * MB)
        out.seek(0)
        out.write(b"text")
    return path


def time_linear(folder: Path) -> None:
    print("2. one-line text in this process: parsing alone, and the whole LibraryStore.add")
    with LibraryStore(folder / "warm-up.sqlite3") as store:
        store.add(one_line_text(folder / "warm-up.txt", 0.1))
    parse_times: dict[int, float] = {}
    add_times: dict[int, float] = {}
    for megabytes in (2, 8, 32):
        path = one_line_text(folder / f"line_{megabytes}mb.txt", megabytes)
        database = folder / "linear.sqlite3"
        parse_times[megabytes] = min(_time_parse(path) for _ in range(3))
        add_times[megabytes] = min(_time_add(path, database) for _ in range(3))
        print(
            f"   {megabytes:>3} MB: parse {parse_times[megabytes]:6.2f} s, "
            f"add {add_times[megabytes]:6.2f} s (best of 3)"
        )
    for what, times in (("parse", parse_times), ("add", add_times)):
        print(
            f"   {what:<5} ratio 8/2 MB = {times[8] / times[2]:4.1f}, "
            f"32/2 MB = {times[32] / times[2]:4.1f} (linear: ~4 and ~16)"
        )


def _time_parse(path: Path) -> float:
    started = time.perf_counter()
    parse_content(read_file(path))
    return time.perf_counter() - started


def _time_add(path: Path, database: Path) -> float:
    for leftover in database.parent.glob(database.name + "*"):
        leftover.unlink()
    with LibraryStore(database) as store:
        started = time.perf_counter()
        store.add(path)
        return time.perf_counter() - started


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


Builder = Callable[[Path, random.Random], Path]
# name: (what it is, file name, builder, built even with --quick)
CASES: dict[str, tuple[str, str, Builder, bool]] = {
    "baseline": ("nothing (baseline)", "-", lambda path, rng: path, True),
    "lines": (
        "text, 100 MB in lines",
        "lines.txt",
        lambda path, rng: text_in_lines(path, 99, rng),
        False,
    ),
    "one-line": (
        "text, 100 MB on one line",
        "one.txt",
        lambda path, rng: one_line_text(path, 99),
        False,
    ),
    "markdown": (
        "markdown, 100 MB",
        "notes.md",
        lambda path, rng: text_in_lines(path, 99, rng, markdown=True),
        False,
    ),
    "large-epub": (
        "EPUB expanding to ~190 MB",
        "large.epub",
        lambda path, rng: epub(path, [varied_chapter(27, rng) for _ in range(7)]),
        False,
    ),
    "emoji": (
        "text, 100 MB, an emoji per paragraph",
        "emoji.txt",
        lambda path, rng: emoji_text(path, 99),
        False,
    ),
    "legacy": (
        "text, 100 MB in cp1252",
        "legacy.txt",
        lambda path, rng: legacy_text(path, 99),
        False,
    ),
    "huge-text": (
        "text, 200 MB (over the cap)",
        "huge.txt",
        lambda p, r: sparse_file(p, 200),
        True,
    ),
    "seven-chapters": (
        "EPUB, seven 60 MB chapters",
        "seven.epub",
        lambda path, rng: epub(path, [chapter("a" * (60 * MB))] * 7),
        True,
    ),
    "bomb": (
        "EPUB, 20 MB zip bomb",
        "bomb.epub",
        lambda path, rng: epub(path, [chapter("a" * (20 * MB))]),
        True,
    ),
    "reread": (
        "EPUB, one 8 MB entry read 40 times",
        "reread.epub",
        lambda path, rng: epub(path, [varied_chapter(8, rng)], spine_repeat=40),
        True,
    ),
    "pages": (
        "PDF, 3,000 pages",
        "pages.pdf",
        lambda path, rng: write_pdf(path, [[f"page {i}"] for i in range(3000)]),
        True,
    ),
    "subtitle-line": (
        "subtitles, one 1 MB line",
        "talk.srt",
        lambda path, rng: _write(path, f"1\n00:00:01,000 --> 00:00:02,000\n{'x' * MB}\n"),
        True,
    ),
}


def measure(folder: Path, case: str) -> None:
    """Build the case's file in one child and add it in another, so that neither this process's
    memory nor the builder's counts in the peak RSS (Linux keeps ru_maxrss across fork/exec)."""
    label, file_name, _, _ = CASES[case]
    path = folder / file_name
    started = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--build", case, str(path)], check=True)
    built = time.perf_counter() - started
    database = folder / f"{path.stem or 'baseline'}.sqlite3"
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(database)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        print(f"   {label}: child failed: {result.stderr.strip().splitlines()[-1:]}")
        return
    row = json.loads(result.stdout)
    size = path.stat().st_size / MB if path.name != "-" else 0.0
    print(
        f"   {label:<36} {size:6.1f} MB  add {row['seconds']:6.2f} s  "
        f"peak {row['peak_mb']:4.0f} MB RSS  {row['outcome']}  (built in {built:.0f} s)"
    )
    if path.name != "-":
        path.unlink(missing_ok=True)
    database.unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 100 MB files")
    parser.add_argument("--keep", type=Path, help="work in this folder instead of a temporary one")
    parser.add_argument(
        "--case", action="append", choices=sorted(CASES), help="only these files (repeatable)"
    )
    parser.add_argument("--build", nargs=2, metavar=("CASE", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build:
        case, path = args.build
        CASES[case][2](Path(path), random.Random(7))
        return
    with tempfile.TemporaryDirectory() as temporary:
        folder = args.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        print("1. one child process per file: add time, and the child's peak RSS")
        for case, (_, _, _, quick) in CASES.items():
            if (quick or not args.quick) and (not args.case or case in args.case):
                measure(folder, case)
        if not args.case:
            time_linear(folder)


if __name__ == "__main__":
    try:
        main()
    except LibraryError as exc:
        sys.exit(f"error: {exc}")
