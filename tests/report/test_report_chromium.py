"""The report renders in a real browser: headless Chromium draws it to a PNG that is not blank.

Skipped, saying why, when ``chromium`` is not on PATH (``apt-get install -y chromium``). The
browser gets no network (``--disable-background-networking``; the page fetches nothing
anyway) and a throwaway profile.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from argue.app import write_report

CHROMIUM = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB(A) rows of an 8-bit, non-interlaced PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert header is not None
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, header
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            corner = previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, rows


@pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not on PATH; install it (apt-get install -y chromium) to render the "
    "report headless and check the picture",
)
def test_headless_chromium_renders_the_report_at_1280_px(run_debate, tmp_path: Path):
    run = run_debate(rounds=2)
    report = write_report(run.store)
    png = tmp_path / "report.png"
    assert CHROMIUM is not None
    result = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1280,1600",
            f"--screenshot={png}",
            report.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert png.is_file(), f"no screenshot (exit {result.returncode}): {result.stderr[-2000:]}"
    width, height, rows = png_pixels(png.read_bytes())
    assert (width, height) == (1280, 1600)
    # Not blank: a real page has a lot of ink (text, boxes, bars), in several colours.
    bpp = len(rows[0]) // width
    sampled = [row[x * bpp : x * bpp + 3] for row in rows[::4] for x in range(0, width, 4)]
    ink = sum(1 for px in sampled if min(px) < 200)
    colours = {px for px in sampled}
    # Teeth: an empty or unstyled page (no SVG, no colour) fails one of these.
    assert ink / len(sampled) > 0.03, f"only {ink} of {len(sampled)} sampled pixels have ink"
    assert len(colours) > 50, f"{len(colours)} colours: the figures did not render"
    # The persona colours of the map's column headers are on screen (the SVG was drawn).
    assert (0x0B, 0x5F, 0xA5) in {tuple(px) for px in sampled}
