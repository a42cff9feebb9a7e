"""Library search latency: 1,000 vs 10,000 chunks, same ~200 queries.

Run: ``.venv/bin/python bench/library_search.py [--chunks 10000] [--queries 200] [--seed 7]``

Builds temporary libraries through the public ``LibraryStore.add`` path (generated Markdown,
one chunk per section), then times ``LibraryStore.search(q, k=5)``. Prints p50/p95 per size and
the ratio p50(large)/p50(small): the repo compares ratios measured in one run, never absolute
times, because machines differ.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from argue.skills.library import LibraryStore

SECTIONS_PER_FILE = 500
WORDS_PER_SECTION = 90
VOCABULARY_SIZE = 6000
HOSTILE_QUERIES = ['"unbalanced', "NEAR(a b)", "term*", "-minus", "col:umn", "(x) AND OR"]


def make_vocabulary(rng: random.Random) -> list[str]:
    syllables = ["ka", "lo", "mi", "ren", "tu", "sa", "vor", "ne", "pli", "dak", "or", "zu", "he"]
    words: set[str] = set()
    while len(words) < VOCABULARY_SIZE:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def zipf_weights(size: int) -> list[float]:
    return [1.0 / (rank + 1) for rank in range(size)]


def write_corpus(
    folder: Path, chunks: int, vocabulary: list[str], rng: random.Random
) -> list[Path]:
    weights = zipf_weights(len(vocabulary))
    files: list[Path] = []
    section = 0
    file_no = 0
    while section < chunks:
        lines: list[str] = []
        for _ in range(min(SECTIONS_PER_FILE, chunks - section)):
            section += 1
            words = rng.choices(vocabulary, weights=weights, k=WORDS_PER_SECTION)
            lines.append(f"## Section {section}\n\n{' '.join(words)}.\n")
        file_no += 1
        path = folder / f"corpus_{file_no:03d}.md"
        path.write_text("\n".join(lines), encoding="utf-8")
        files.append(path)
    return files


def make_queries(count: int, vocabulary: list[str], rng: random.Random) -> list[str]:
    queries: list[str] = []
    for index in range(count):
        if index % 20 == 0:
            queries.append(HOSTILE_QUERIES[(index // 20) % len(HOSTILE_QUERIES)])
            continue
        # mix frequent (head of the Zipf list) and rare words, 1-4 terms
        terms = [
            vocabulary[rng.randrange(50)] if rng.random() < 0.4 else rng.choice(vocabulary)
            for _ in range(rng.randint(1, 4))
        ]
        queries.append(" ".join(terms))
    return queries


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def measure(chunks: int, queries: list[str], vocabulary: list[str], seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="argue-bench-") as tmp:
        folder = Path(tmp)
        files = write_corpus(folder, chunks, vocabulary, rng)
        with LibraryStore(folder / "library.sqlite3") as store:
            started = time.perf_counter()
            for path in files:
                store.add(path)
            ingest_s = time.perf_counter() - started
            if store.chunk_total() != chunks:
                raise SystemExit(f"expected {chunks} chunks, built {store.chunk_total()}")
            for query in queries[:10]:  # warm the page cache
                store.search(query, k=5)
            timings: list[float] = []
            hit_counts: list[int] = []
            for query in queries:
                started = time.perf_counter()
                hits = store.search(query, k=5)
                timings.append(time.perf_counter() - started)
                hit_counts.append(len(hits))
    return {
        "chunks": chunks,
        "ingest_s": ingest_s,
        "p50_ms": statistics.median(timings) * 1000,
        "p95_ms": percentile(timings, 0.95) * 1000,
        "mean_hits": statistics.fmean(hit_counts),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    vocabulary = make_vocabulary(rng)
    queries = make_queries(args.queries, vocabulary, rng)
    small_size = max(1, args.chunks // 10)
    print(f"library search bench: {len(queries)} queries, k=5, sqlite {_sqlite_version()}")
    results = [measure(size, queries, vocabulary, args.seed) for size in (small_size, args.chunks)]
    for row in results:
        print(
            f"  {row['chunks']:>6} chunks: ingest {row['ingest_s']:.2f} s "
            f"({row['chunks'] / row['ingest_s']:.0f} chunks/s), "
            f"query p50 {row['p50_ms']:.2f} ms, p95 {row['p95_ms']:.2f} ms, "
            f"mean hits {row['mean_hits']:.1f}"
        )
    small, large = results
    print(
        f"ratio p50({large['chunks']})/p50({small['chunks']}) = "
        f"{large['p50_ms'] / small['p50_ms']:.2f} "
        f"(corpus {large['chunks'] / small['chunks']:.0f}x larger)"
    )
    return 0


def _sqlite_version() -> str:
    import sqlite3

    return sqlite3.sqlite_version


if __name__ == "__main__":
    sys.exit(main())
