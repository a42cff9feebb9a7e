"""The index of ``argue serve``: the debates folder listed, paged and cached.

A folder of 1,000 debates (some of them broken, one with a 20 MB state.json) must not be read
again for every view, every ``/rows`` and every tick of every index stream. So:

* the **listing** (the folders ``argue status`` lists: a real folder with a config.json, links
  never followed) is kept until the debates folder's own mtime changes; folders without a
  config.json yet are looked at one by one each time (a runner makes the folder, then writes
  its config: the parent's mtime does not see the second step);
* the index shows one **page** of ``page_size`` debates, newest first (ids are timestamps), so
  a first view reads ``page_size`` debates, not all of them;
* each debate's **row** is cached with the fingerprint of its folder (every file's size and
  mtime, and the runner's lock): it is read again only when its folder changed. A folder that
  cannot be read is cached too, with its one-line reason: it is parsed once, and named on its
  page, until it changes;
* the index streams' **fingerprint** covers the listing and the current page's watched files
  only (a few lstat calls per debate shown), and is shared by every stream on that page for a
  fraction of the polling interval: an idle tab costs next to nothing however large the folder.

All of it runs in worker threads (``read_in_thread``); one lock keeps two reads of the same
page from parsing the same folder twice.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from markupsafe import Markup

from argue import app as argue_app
from argue.records.labels import label
from argue.web._feed import MAX_ENTRIES, FileMark, Fingerprint, debate_fingerprint
from argue.web._pages import Pages

if TYPE_CHECKING:
    from argue.app import LiveRow, Workspace

WATCHED = ("config.json", "state.json", "usage.jsonl", "usage.json", "failures.json")
"""What an index row shows (status, round, phase, cost, failures) changes with one of these."""
MAX_PAGE_DIGITS = 6


@dataclass(frozen=True)
class Page:
    """One page of the index: ``number`` (from 1) of ``count`` pages over ``total`` debates."""

    number: int
    count: int
    total: int
    start: int
    end: int

    @classmethod
    def of(cls, total: int, wanted: int, size: int) -> Page:
        """Page ``wanted``, or the last one when the folder has fewer pages now."""
        count = max(1, -(-total // size))
        number = min(max(1, wanted), count)
        start = (number - 1) * size
        return cls(number, count, total, start, min(total, start + size))


def page_number(raw: str | None) -> int:
    """``?page=`` as a page number (1 when absent); UsageError for anything but digits."""
    if raw is None or raw == "":
        return 1
    if not raw.isascii() or not raw.isdigit() or len(raw) > MAX_PAGE_DIGITS or int(raw) < 1:
        raise argue_app.UsageError(f"page={raw[:20]!r}: not a page number (1, 2, …)")
    return int(raw)


def _mark(path: Path) -> FileMark | None:
    try:
        info = path.lstat()
    except OSError:
        return None
    return (path.name, info.st_size, info.st_mtime_ns)


@dataclass
class _Listing:
    mtime_ns: int | None = None
    names: list[str] = field(default_factory=list)
    """Debate folders (with a config.json), newest first."""
    pending: list[str] = field(default_factory=list)
    """Folders without a config.json yet (or not a debate at all)."""


@dataclass
class _Row:
    mark: Fingerprint
    row: LiveRow | None
    skipped: str | None


class DebateIndex:
    """The index's reads, cached (see the module docstring). Thread-safe."""

    def __init__(self, workspace: Workspace, page_size: int, *, share_s: float = 0.2) -> None:
        self.workspace = workspace
        self.root = workspace.root
        self.page_size = page_size
        self.share_s = share_s
        self._lock = threading.RLock()
        self._listing = _Listing()
        self._rows: dict[str, _Row] = {}
        self._marks: dict[int, tuple[float, Fingerprint]] = {}
        self.reads = 0
        """How many debate folders were parsed (a cached row is not counted)."""

    # -- the listing

    def _root_mtime(self) -> int | None:
        try:
            info = self.root.lstat()
        except OSError:
            return None
        return info.st_mtime_ns

    def _scan(self) -> _Listing:
        listing = _Listing(mtime_ns=self._root_mtime())
        if self.root.is_symlink() or not self.root.is_dir():
            return listing
        try:
            with os.scandir(self.root) as entries:
                folders = sorted(
                    entry.name
                    for entry in entries
                    if not entry.is_symlink() and entry.is_dir(follow_symlinks=False)
                )[:MAX_ENTRIES]
        except OSError:
            return listing
        for name in folders:
            has_config = os.path.lexists(self.root / name / "config.json")
            (listing.names if has_config else listing.pending).append(name)
        listing.names.reverse()  # ids are timestamps: newest first
        return listing

    def _pending_arrived(self, listing: _Listing) -> bool:
        return any(os.path.lexists(self.root / name / "config.json") for name in listing.pending)

    def names(self) -> list[str]:
        """The debates' ids, newest first, read again only when the folder changed."""
        with self._lock:
            listing = self._listing
            moved = listing.mtime_ns is None or listing.mtime_ns != self._root_mtime()
            if moved or self._pending_arrived(listing):
                self._listing = listing = self._scan()
            return listing.names

    # -- rows

    def _read_row(self, debate_id: str, mark: Fingerprint) -> _Row:
        self.reads += 1
        try:
            row = argue_app.live_row(debate_id, workspace=self.workspace)
        except argue_app.ArgueError as exc:
            return _Row(mark, None, f"skipped {debate_id}: {exc.message}")
        return _Row(mark, row, None)

    def rows(self, wanted: int) -> tuple[list[LiveRow], list[str], Page]:
        """Page ``wanted``'s rows and the lines naming its folders that cannot be read."""
        from argue.app import DebateStore

        with self._lock:
            names = self.names()
            page = Page.of(len(names), wanted, self.page_size)
            rows: list[LiveRow] = []
            skipped: list[str] = []
            for debate_id in names[page.start : page.end]:
                store = DebateStore(self.root / debate_id)
                mark = debate_fingerprint(store.paths.root, store.is_locked)
                cached = self._rows.get(debate_id)
                if cached is None or cached.mark != mark:
                    cached = self._rows[debate_id] = self._read_row(debate_id, mark)
                if cached.row is not None:
                    rows.append(cached.row)
                elif cached.skipped is not None:
                    skipped.append(cached.skipped)
            if len(self._rows) > len(names):
                present = set(names)
                for gone in [name for name in self._rows if name not in present]:
                    del self._rows[gone]
            rows.sort(key=lambda row: row.status.id, reverse=True)
            return rows, skipped, page

    # -- what the index streams watch

    def _page_mark(self, wanted: int) -> Fingerprint:
        from argue.app import DebateStore

        with self._lock:
            names = self.names()
            listing = self._listing
            page = Page.of(len(names), wanted, self.page_size)
            shown = names[page.start : page.end]
            cached = {name: self._rows.get(name) for name in shown}
        files = tuple(
            (name, tuple(m for f in WATCHED if (m := _mark(self.root / name / f)) is not None))
            for name in shown
        )
        # A runner that dies changes no file, but its debate then reads as interrupted; one
        # that is not marked running has no lock worth looking at (a resume rewrites state).
        locks = tuple(
            DebateStore(self.root / name).is_locked()
            for name, row in cached.items()
            if row is None or row.row is None or row.row.status.status in ("running", "interrupted")
        )
        return (listing.mtime_ns, tuple(listing.pending), page.number, files, locks)

    def fingerprint(self, wanted: int) -> Fingerprint:
        """What page ``wanted`` of the index shows would change with; computed at most once
        per ``share_s`` for all the streams on that page."""
        now = time.monotonic()
        with self._lock:
            recent = self._marks.get(wanted)
            if recent is not None and now - recent[0] < self.share_s:
                return recent[1]
        mark = self._page_mark(wanted)
        with self._lock:
            self._marks[wanted] = (time.monotonic(), mark)
            if len(self._marks) > 64:
                self._marks = {wanted: self._marks[wanted]}
        return mark


class ServedPages(Pages):
    """The live pages as this server sends them: the policy in the pages' ``<meta>`` has no
    ``frame-ancestors`` (a browser ignores it there and logs an error); the HTTP header carries
    the whole policy, ``frame-ancestors 'none'`` included. And the index's page links."""

    @property
    def csp(self) -> str:
        """The ``<meta>`` policy: the pages' own, without ``frame-ancestors``."""
        directives = [d.strip() for d in super().csp.split(";")]
        return "; ".join(d for d in directives if d and not d.startswith("frame-ancestors"))

    @cached_property
    def header_csp(self) -> str:
        return f"{self.csp}; frame-ancestors 'none'"

    def page_url(self, path: str, number: int) -> str:
        token = quote(self.token, safe="")
        return f"{path}?page={number}&token={token}" if number > 1 else f"{path}?token={token}"

    def paged_index(
        self, rows: list[LiveRow], skipped: list[str], debates_dir: str, page: Page
    ) -> str:
        """The index page for ``page``: its stream and fragment URLs name the page, and the
        page links follow the rows (inside the part the stream replaces)."""
        urls = {
            "index": self.page_url("/", 1),
            "stream": self.page_url("/stream", page.number),
            "fragment": self.page_url("/rows", page.number),
        }
        html = self._render(
            "index.html.j2",
            lang="en",
            title="debates",
            urls=urls,
            rows=self._rows(rows),
            skipped=skipped,
            debates_dir=debates_dir,
        )
        return html.replace("</main>", f"{self.page_links(page)}</main>", 1)

    def paged_rows(self, rows: list[LiveRow], skipped: list[str], page: Page) -> str:
        return self.index_rows(rows, skipped) + self.page_links(page)

    def page_links(self, page: Page, lang: str = "en") -> str:
        """``← Newer · Page 2 of 20 (1,000 debates) · Older →``; nothing on a single page."""
        if page.count <= 1:
            return ""
        parts = []
        if page.number > 1:
            parts.append(
                Markup('<a href="{}" rel="prev">{}</a>').format(
                    self.page_url("/", page.number - 1), label("serve_newer", lang)
                )
            )
        total = f"{page.total:,}".replace(",", "\u202f" if lang == "fr" else ",")
        where = label("serve_page_of", lang, n=page.number, count=page.count, total=total)
        parts.append(Markup('<span class="muted">{}</span>').format(where))
        if page.number < page.count:
            parts.append(
                Markup('<a href="{}" rel="next">{}</a>').format(
                    self.page_url("/", page.number + 1), label("serve_older", lang)
                )
            )
        nav = Markup('\n<nav class="pages" aria-label="{}"><p>{}</p></nav>\n')
        return str(nav.format(label("serve_pages", lang), Markup(" · ").join(parts)))
