"""Dogpile research: ask every source at once, then merge, de-duplicate and interleave.

Each source runs under its own timeout and reports its own status, so one slow or broken
source never sinks the others, and the caller can say exactly which ones answered.
"""

from __future__ import annotations

import asyncio
import functools
import os
import ssl
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType

import httpx

from argue._version import __version__
from argue.grounding.urls import normalise_url
from argue.redact import LiveNames, register_secret_variables
from argue.skills.base import SkillItem, SkillResult, SkillStatus, SourceStatus
from argue.skills.dogpile.sources import arxiv, brave, github, library, perplexity, youtube
from argue.skills.dogpile.sources._http import NAME_LOOKUP_FAILED

__all__ = [
    "NAME_LOOKUP_FAILED",
    "RANK_ORDER",
    "SOURCES",
    "SOURCE_NAMES",
    "ResearchSource",
    "aggregate_status",
    "all_sources",
    "dogpile",
    "merge_items",
    "normalise_url",
    "unusable_reason",
    "usable_sources",
]


@dataclass(frozen=True)
class ResearchSource:
    """One research source (one row of the source table). ``module`` has ``async search(query,
    *, client, limit)`` (looked up at call time, so a test can patch it); ``rank`` orders the
    round-robin merge (lower first: curated and scholarly sources lead); a ``paced`` source may
    wait its turn behind a process-wide rate limiter; without ``key_env`` set, a keyed source
    sends nothing; ``optional_key_env`` is a key it works without; ``url_env`` overrides where
    it is asked. The key and URL variables are masked in everything argue prints."""

    name: str
    module: ModuleType
    rank: int
    paced: bool = False
    key_env: str | None = None
    optional_key_env: str | None = None
    url_env: str | None = None
    origin: str = field(default="built-in", compare=False)

    @classmethod
    def of(cls, module: ModuleType, rank: int, *, paced: bool = False, origin: str = "built-in"
           ) -> ResearchSource:  # fmt: skip
        """The row of a source module that declares its own facts: ``SOURCE`` (its name),
        ``KEY_ENV``, ``OPTIONAL_KEY_ENV`` and ``URL_ENV`` (each optional)."""
        return cls(
            name=module.SOURCE,
            module=module,
            rank=rank,
            paced=paced,
            key_env=getattr(module, "KEY_ENV", None),
            optional_key_env=getattr(module, "OPTIONAL_KEY_ENV", None),
            url_env=getattr(module, "URL_ENV", None),
            origin=origin,
        )

    @property
    def secret_variables(self) -> tuple[str, ...]:
        return tuple(v for v in (self.key_env, self.optional_key_env) if v)

    def unusable_reason(self, env: Mapping[str, str]) -> str | None:
        """Why this source cannot answer now, in the words its own refusal uses (None: it
        can): its key variable unset, no URL to ask (a ``url_env`` unset and an empty
        ``DEFAULT_URL``), or
        what the module's own ``unusable_reason(env)`` says (the library: empty)."""
        if self.key_env and not env.get(self.key_env, "").strip():
            return f"{self.key_env} not set"
        # A module that declares an empty DEFAULT_URL has no place to ask until one is set.
        no_default = hasattr(self.module, "DEFAULT_URL") and not self.module.DEFAULT_URL
        if self.url_env and no_default and not env.get(self.url_env, "").strip():
            return f"{self.url_env} not set"
        check = getattr(self.module, "unusable_reason", None)
        if callable(check):
            try:
                reason = check(env)
            except Exception as exc:  # a plugin's check must not stop a debate from starting
                return f"its readiness check crashed ({type(exc).__name__}: {exc})"
            return str(reason) if reason else None
        return None


SOURCES: tuple[ResearchSource, ...] = (
    ResearchSource.of(arxiv, rank=2, paced=True),
    ResearchSource.of(github, rank=3, paced=True),
    ResearchSource.of(brave, rank=5, paced=True),
    ResearchSource.of(perplexity, rank=4),
    ResearchSource.of(youtube, rank=6),
    ResearchSource.of(library, rank=1),
)
"""Every built-in research source, in the order they are listed to the user. A package adds
one through the entry-point group ``argue.sources`` (see ``argue.skills.dogpile.registry``)."""

for _source in SOURCES:
    register_secret_variables(keys=_source.secret_variables, urls=[_source.url_env or ""])


def all_sources() -> tuple[ResearchSource, ...]:
    """The built-in rows, then those ``argue.sources`` entry points or ``register_source`` added."""
    from argue.skills.dogpile.registry import extra_sources

    return SOURCES + extra_sources()


def unusable_reason(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """Why the source ``name`` cannot answer now (None: it can); ValueError if no such row."""
    source = _by_name().get(name)
    if source is None:
        raise ValueError(f"unknown source: {name}")
    return source.unusable_reason(os.environ if env is None else env)


def usable_sources(
    names: Sequence[str] | None = None, env: Mapping[str, str] | None = None
) -> tuple[list[str], dict[str, str]]:
    """``names`` (default: every row) split into those that can answer now, in order, and
    those that cannot, each with its reason ("YOUTUBE_API_KEY not set", "the library is
    empty …"). Decided from the table alone, without sending anything; an unknown name is a
    ValueError (the caller checks names first)."""
    environment = os.environ if env is None else env
    chosen = list(dict.fromkeys(SOURCE_NAMES if names is None else names))
    usable: list[str] = []
    unusable: dict[str, str] = {}
    for name in chosen:
        reason = unusable_reason(name, environment)
        if reason is None:
            usable.append(name)
        else:
            unusable[name] = reason
    return usable, unusable


def _by_name() -> dict[str, ResearchSource]:
    return {source.name: source for source in all_sources()}


def _rank_order() -> tuple[str, ...]:
    return tuple(s.name for s in sorted(all_sources(), key=lambda s: s.rank))


SOURCE_NAMES: Sequence[str] = LiveNames(lambda: tuple(s.name for s in all_sources()))
RANK_ORDER: Sequence[str] = LiveNames(_rank_order)
PACED_SOURCES = frozenset(s.name for s in SOURCES if s.paced)
USER_AGENT = f"argue/{__version__} (research dogpile)"


@functools.cache
def _tls_context(cafile: str | None, capath: str | None) -> ssl.SSLContext:
    """httpx's default TLS context, built once per certificate setting: loading the CA bundle
    costs ~60 ms of CPU, which a client per search paid again every round (issue 43 item 4)."""
    return httpx.create_ssl_context()


def _tls() -> ssl.SSLContext:
    return _tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


async def dogpile(
    query: str,
    *,
    sources: Sequence[str] | None = None,
    limit_per_source: int = 5,
    max_items: int = 12,
    timeout_s: float = 15.0,
    client: httpx.AsyncClient | None = None,
) -> SkillResult:
    """Raises ValueError only for caller mistakes (unknown source, non-positive limits)."""
    if not query.strip():
        raise ValueError("the query is empty")
    chosen = _validate(sources, limit_per_source, max_items, timeout_s)
    started = time.monotonic()
    if client is None:
        async with httpx.AsyncClient(
            verify=_tls(),
            timeout=httpx.Timeout(timeout_s, connect=min(5.0, timeout_s)),
            headers={"User-Agent": USER_AGENT},
            follow_redirects=True,
            limits=httpx.Limits(max_connections=20),
        ) as own_client:
            results = await _fan_out(query, chosen, own_client, limit_per_source, timeout_s)
    else:
        results = await _fan_out(query, chosen, client, limit_per_source, timeout_s)

    statuses = [_source_status(name, results[name]) for name in chosen]
    items = merge_items({name: results[name].items for name in chosen}, max_items)
    status, note = aggregate_status(items, statuses)
    return SkillResult(
        skill="dogpile",
        query=query,
        status=status,
        items=items,
        note=note,
        elapsed_s=time.monotonic() - started,
        sources=statuses,
        usage=[usage for name in chosen for usage in results[name].usage],
    )


def _validate(
    sources: Sequence[str] | None, limit_per_source: int, max_items: int, timeout_s: float
) -> list[str]:
    if isinstance(sources, str):
        raise ValueError("sources must be a sequence of source names, not one string")
    known = _by_name()
    chosen = list(dict.fromkeys(known if sources is None else sources))
    unknown = [name for name in chosen if name not in known]
    if unknown:
        raise ValueError(
            f"unknown source(s): {', '.join(unknown)} (choose from {', '.join(SOURCE_NAMES)})"
        )
    if not chosen:
        raise ValueError("no source selected")
    if limit_per_source < 1 or max_items < 1:
        raise ValueError("limit_per_source and max_items must be at least 1")
    if timeout_s <= 0:
        raise ValueError("timeout_s must be positive")
    return chosen


PACING_ALLOWANCE_S = 60.0


async def _fan_out(
    query: str, names: list[str], client: httpx.AsyncClient, limit: int, timeout_s: float
) -> dict[str, SkillResult]:
    results = await asyncio.gather(
        *(_ask_one(name, query, client, limit, timeout_s) for name in names)
    )
    return dict(zip(names, results, strict=True))


async def _ask_one(
    name: str, query: str, client: httpx.AsyncClient, limit: int, timeout_s: float
) -> SkillResult:
    started = time.monotonic()
    # Each HTTP request is bounded by the client's timeout_s; a paced source may first wait its
    # turn behind other dogpiles of the debate (arXiv asks for 3 s between requests), which
    # must not read as the source being slow.
    source = _by_name()[name]
    budget = timeout_s + (PACING_ALLOWANCE_S if source.paced else 0.0)
    try:
        result = await asyncio.wait_for(
            source.module.search(query, client=client, limit=limit), budget
        )
    except TimeoutError:
        waited = " (including its wait for a rate-limit turn)" if source.paced else ""
        note = f"{name}: timed out after {budget:g} s{waited}"
        failed = SkillResult.failed(name, query, note, elapsed_s=time.monotonic() - started)
        # A model-backed source (Perplexity) may have computed, and billed, the request it sent.
        unanswered = getattr(source.module, "unanswered_usage", None)
        if callable(unanswered):
            failed.usage.append(unanswered(time.monotonic() - started))
        return failed
    except Exception as exc:  # an adapter bug must not sink the other sources: report it
        note = f"{name}: crashed ({type(exc).__name__}: {exc})"
        return SkillResult.failed(name, query, note, elapsed_s=time.monotonic() - started)
    if not result.elapsed_s:
        result = result.model_copy(update={"elapsed_s": time.monotonic() - started})
    return result


def _source_status(name: str, result: SkillResult) -> SourceStatus:
    note = result.note
    if note.startswith(f"{name}: "):
        note = note[len(name) + 2 :]
    return SourceStatus(
        source=name,
        status=result.status,
        note=note,
        count=len(result.items),
        elapsed_s=round(result.elapsed_s, 3),
    )


def aggregate_status(
    items: list[SkillItem], statuses: list[SourceStatus]
) -> tuple[SkillStatus, str]:
    """The call's status and note. With no items, one failed source makes the call ``failed``:
    "nothing found" would be a lie when a source may have had results it could not return.
    Every source refused (nothing was sent) is ``refused``; with items the call is ``ok`` and
    each failed or refused source is still named in the note and in ``sources``."""
    described = [_describe(s) for s in statuses]
    if items:
        return "ok", ", ".join(described)
    if any(s.status == "failed" for s in statuses):
        return "failed", "no results; " + "; ".join(described)
    if all(s.status == "refused" for s in statuses):
        return "refused", "nothing sent; " + "; ".join(described)
    return "empty", ", ".join(described)


def _describe(status: SourceStatus) -> str:
    if status.status == "ok":
        return f"{status.source} ok ({status.count})"
    if status.status == "empty":
        return f"{status.source} empty"
    return f"{status.source} {status.status}: {status.note}"


def merge_items(items_by_source: dict[str, list[SkillItem]], max_items: int) -> list[SkillItem]:
    """Round-robin across sources in ``RANK_ORDER``; the first of duplicates wins."""
    ordered = [name for name in _rank_order() if name in items_by_source]
    ordered += [name for name in items_by_source if name not in ordered]
    longest = max((len(items_by_source[name]) for name in ordered), default=0)
    merged: list[SkillItem] = []
    seen: set[str] = set()
    for position in range(longest):
        for name in ordered:
            source_items = items_by_source[name]
            if position >= len(source_items):
                continue
            item = source_items[position]
            key = _dedupe_key(item)
            if key in seen:
                continue
            seen.add(key)
            merged.append(item)
            if len(merged) >= max_items:
                return merged
    return merged


def _dedupe_key(item: SkillItem) -> str:
    # Passages of one book or transcript share a URL (or a title): the locator keeps them apart.
    locator = f"|{item.locator}" if item.locator else ""
    if item.url:
        return "url:" + normalise_url(item.url) + locator
    return f"title:{item.title.casefold().strip()}{locator}"
