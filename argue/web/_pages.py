"""The live pages, rendered by autoescaping Jinja templates: model text is data everywhere.

The stylesheet and the one script are static files inlined into every page; the
Content-Security-Policy allows exactly those two by their sha256 (``csp_hash``, as the report
does for its stylesheet), and otherwise only requests to this server (the event stream, the
polling fallback, stop and interject).
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib.resources import files
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from argue.app import LiveDebate, LiveRow, UsageSummary
from argue.records.labels import Labels, label, label_of
from argue.text.controls import strip_controls
from argue.text.typography import format_usd, jinja_filters, localise_amounts

EVIDENCE_STATES = ("quoted", "quote_not_found", "unverified", "uncited")


def evidence_words(lang: str = "en") -> dict[str, str]:
    """Each claim's evidence state as the page says it, in ``lang``."""
    return {state: label_of("live_ev", state, lang) for state in EVIDENCE_STATES}


@lru_cache(maxsize=1)
def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("argue.web", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(jinja_filters())  # decimal commas in French (argue.text.typography)
    return env


def csp_hash(text: str) -> str:
    """``sha256-<base64>`` of an inline script's or stylesheet's exact text, the source a
    Content-Security-Policy allows it by (as ``argue.report.html.csp_hash`` does for the
    report; not imported from there, so the live pages do not load the whole report)."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def _asset(name: str) -> str:
    return files("argue.web").joinpath("templates", name).read_text(encoding="utf-8")


def cost_words(usage: UsageSummary | None, lang: str = "en") -> str:
    """The cost so far as people should read it: a model without a price is "not priced",
    never "$0.0000"; a partly priced total is a lower bound, said so."""
    if usage is None:
        return label("live_cost_not_read", lang)
    if usage.calls == 0:
        return label("live_no_call_yet", lang)
    if usage.cost_usd is not None:
        return format_usd(usage.cost_usd, lang)
    if usage.unpriced_calls >= usage.calls:
        return label("live_not_priced", lang)
    return localise_amounts(usage.cost, lang)


def calls_words(usage: UsageSummary | None, lang: str = "en") -> str:
    if usage is None or usage.calls == 0:
        return ""
    return label("live_calls", lang, n=usage.calls)


@dataclass(frozen=True)
class Urls:
    """Where this server's pages are, each carrying the token (every route requires it)."""

    token: str

    def _with_token(self, path: str) -> str:
        return f"{path}?token={quote(self.token, safe='')}"

    def index(self) -> str:
        return self._with_token("/")

    def debate(self, debate_id: str) -> str:
        return self._with_token(f"/debates/{quote(debate_id, safe='')}")

    def for_index(self) -> dict[str, str]:
        return {
            "index": self.index(),
            "stream": self._with_token("/stream"),
            "fragment": self._with_token("/rows"),
        }

    def for_debate(self, debate_id: str) -> dict[str, str]:
        base = f"/debates/{quote(debate_id, safe='')}"
        return {
            "index": self.index(),
            "stream": self._with_token(f"{base}/stream"),
            "fragment": self._with_token(f"{base}/live"),
            "report": self._with_token(f"{base}/report"),
            # POSTs carry the token in a header (the page's script adds it), not in the URL.
            "stop": f"{base}/stop",
            "interject": f"{base}/interject",
        }


class Pages:
    """Renders the index and debate pages and their live sections, and says their CSP."""

    def __init__(self, token: str) -> None:
        self.urls = Urls(token)
        self.token = token

    @cached_property
    def css(self) -> str:
        return _asset("live.css")

    @cached_property
    def script(self) -> str:
        return _asset("live.js")

    @cached_property
    def meta_csp(self) -> str:
        """Only this page's stylesheet and script (by hash), requests to this server only: the
        policy the pages repeat in a ``<meta>``, where ``frame-ancestors`` has no effect (a
        browser ignores it there and logs an error), so it is left out."""
        return (
            f"default-src 'none'; script-src '{csp_hash(self.script)}'; "
            f"style-src '{csp_hash(self.css)}'; connect-src 'self'; img-src 'self'; "
            "base-uri 'none'; form-action 'self'"
        )

    @cached_property
    def csp(self) -> str:
        """The response header's policy: the meta's, and no page of this server in a frame."""
        return f"{self.meta_csp}; frame-ancestors 'none'"

    def _render(self, template: str, lang: str = "en", **context: Any) -> str:
        """A page or fragment, without any control or bidi character (the one character policy
        of every output, ``argue.text.controls``): the pages, ``/live`` and the streams' updates
        are all rendered here."""
        return strip_controls(
            _environment()
            .get_template(template)
            .render(
                token=self.token,
                css=Markup(self.css),
                script=Markup(self.script),
                csp=self.meta_csp,
                lang=lang,
                L=Labels(lang),
                label=label,
                label_of=label_of,
                evidence_words=evidence_words(lang),
                **context,
            )
        )

    # -- the index

    def _rows(self, rows: list[LiveRow]) -> list[dict[str, Any]]:
        return [
            {
                "live": row,
                "url": self.urls.debate(row.status.id),
                "cost": cost_words(row.status.usage),
                "partial_title": "; ".join(row.status.partial_reasons or []),
            }
            for row in rows
        ]

    def index(self, rows: list[LiveRow], skipped: list[str], debates_dir: str) -> str:
        return self._render(
            "index.html.j2",
            lang="en",
            title="debates",
            urls=self.urls.for_index(),
            rows=self._rows(rows),
            skipped=skipped,
            debates_dir=debates_dir,
        )

    def index_rows(self, rows: list[LiveRow], skipped: list[str]) -> str:
        return self._render("_rows.html.j2", rows=self._rows(rows), skipped=skipped)

    # -- one debate

    def _debate_context(self, debate: LiveDebate) -> dict[str, Any]:
        usage = debate.row.status.usage
        lang = debate.row.status.language
        return {
            "debate": debate,
            "lang": lang,
            "urls": self.urls.for_debate(debate.row.status.id),
            "cost": cost_words(usage, lang),
            "calls": calls_words(usage, lang),
        }

    def debate(self, debate: LiveDebate, note_max: int) -> str:
        lang = debate.row.status.language
        names = label("live_versus", lang).join(p.name for p in debate.personas)
        return self._render(
            "debate.html.j2",
            title=debate.row.status.question,
            names=names,
            note_max=note_max,
            **self._debate_context(debate),
        )

    def debate_live(self, debate: LiveDebate) -> str:
        return self._render("_debate_live.html.j2", **self._debate_context(debate))
