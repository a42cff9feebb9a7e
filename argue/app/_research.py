"""Research on its own (``argue research``): the dogpile skill over the sources that can
answer now, the others named with why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from argue.app._errors import UsageError

if TYPE_CHECKING:
    from argue.skills.base import SkillResult


def source_names() -> tuple[str, ...]:
    """Every research source's name, the ones an ``argue.sources`` plugin adds included."""
    from argue.skills.dogpile import SOURCE_NAMES

    return tuple(SOURCE_NAMES)


@dataclass(frozen=True)
class ResearchOutcome:
    result: SkillResult
    unused: dict[str, str] = field(default_factory=dict)  # a chosen source -> why it was not asked

    @property
    def answered(self) -> bool:
        """False when the search failed (no results and a source failed) or was refused."""
        return self.result.status not in ("failed", "refused")

    @property
    def nobody_answered(self) -> bool:
        return all(s.status in ("failed", "refused") for s in self.result.sources)


def research(
    query: str,
    sources: Sequence[str] | None = None,
    *,
    limit: int = 12,
    per_source: int = 5,
    timeout_s: float = 15.0,
) -> ResearchOutcome:
    """Ask every chosen source (default: all) at once; only those that can answer now are
    asked (a debate's rule), the others are listed in ``unused``."""
    import asyncio

    from argue.skills.dogpile import dogpile, usable_sources

    names = source_names()
    if not query.strip():
        raise UsageError("the query is empty")
    chosen = list(names) if sources is None else [s.strip().lower() for s in sources if s.strip()]
    if not chosen:
        raise UsageError(f"no source chosen (choose from {', '.join(names)})")
    unknown = [name for name in chosen if name not in names]
    if unknown:
        raise UsageError(
            f"unknown source(s): {', '.join(unknown)} (choose from {', '.join(names)})"
        )
    if limit < 1 or per_source < 1:
        raise UsageError("the limit and the items per source must be at least 1")
    if timeout_s <= 0:
        raise UsageError("the timeout must be positive")
    usable, unused = usable_sources(chosen)
    if not usable:
        why = "; ".join(f"{name}: {reason}" for name, reason in unused.items())
        raise UsageError(f"no source can answer now ({why})")
    try:
        result = asyncio.run(
            dogpile(
                query.strip(),
                sources=usable,
                limit_per_source=per_source,
                max_items=limit,
                timeout_s=timeout_s,
            )
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return ResearchOutcome(result, dict(unused))
