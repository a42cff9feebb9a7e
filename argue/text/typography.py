"""French typography for the words argue writes to people (issue 41, item 5).

French puts a no-break space before ``:`` ``;`` ``?`` ``!`` and inside ``« »``, and writes
decimals with a comma. A plain space there lets a line (a terminal's, a browser's) start with
``:``; a dot decimal reads as English. Both are applied at the output boundaries: to code's own
words (``argue.records.labels`` spaces its French table once with :func:`french_spacing`), and
to the numbers shown to people (:func:`format_number`, the ``format`` filter of the document
templates, :func:`localise_number` for a value a caller formatted already). Machine fields
(JSON, ids, URLs, SVG coordinates) never pass through here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

NBSP = "\u00a0"
"""No-break space: before ``:`` and inside ``« »`` (the Imprimerie nationale's usage)."""
NNBSP = "\u202f"
"""Narrow no-break space: before ``;`` ``?`` ``!`` and ``%``."""
NO_BREAK = NBSP + NNBSP + "\u2007\u2060"

_BEFORE = {":": NBSP, ";": NNBSP, "?": NNBSP, "!": NNBSP, "%": NNBSP}

# What is left alone: code spans, URLs (and anything scheme-like), and clock times or ratios.
_PROTECTED = re.compile(r"`[^`\n]*`|\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
# A plain space (or several, or a tab) before one of : ; ? ! %, when that sign ends a word
# group: followed by a space, the end, a closing sign, or a Markdown emphasis mark; ``{``/``}``
# are kept so a label's format fields (``{n} :``) are spaced too.
_SPACE_BEFORE = re.compile(r"[ \t]+([:;?!%])(?=$|[\s)\]»”*_.,;:?!<\"'])")
_AFTER_OPEN = re.compile(r"«[ \t]*(?![\u00a0\u202f])")
_BEFORE_CLOSE = re.compile(r"(?<![\u00a0\u202f])[ \t]*»")


def french_spacing(text: str) -> str:
    """``text`` with French no-break spaces: ``"Round 1 : fini ?"`` becomes
    ``"Round 1\u00a0: fini\u202f?"``; ``«x»`` becomes ``«\u00a0x\u00a0»``.

    Idempotent. A sign not preceded by a space is left as it is (``10:30``, ``a:b``, ``?q=``),
    so are code spans, URLs and a whole JSON document."""
    if not text or not any(sign in text for sign in (*_BEFORE, "«", "»")):
        return text
    if _is_json(text):
        return text
    out: list[str] = []
    last = 0
    for found in _PROTECTED.finditer(text):
        out.append(_space(text[last : found.start()]))
        out.append(found.group(0))
        last = found.end()
    out.append(_space(text[last:]))
    return "".join(out)


def _space(text: str) -> str:
    text = _SPACE_BEFORE.sub(lambda m: _BEFORE[m.group(1)] + m.group(1), text)
    text = _AFTER_OPEN.sub("«" + NBSP, text)
    return _BEFORE_CLOSE.sub(NBSP + "»", text)


def _is_json(text: str) -> bool:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return False
    try:
        json.loads(stripped)
    except ValueError:
        return False
    return True


def format_number(value: float, lang: str = "en", digits: int = 2) -> str:
    """``value`` with ``digits`` decimals as people read it in ``lang``: ``0.85`` in English,
    ``0,85`` in French (and ``-0,50`` for ``-0.5``; a typographic minus is not used, so the
    text stays searchable)."""
    shown = f"{value:.{digits}f}"
    return shown.replace(".", ",") if lang == "fr" else shown


def format_percent(share: float, lang: str = "en") -> str:
    """A whole percentage: ``50%``, French ``50\u202f%``."""
    return f"{round(share)}{NNBSP}%" if lang == "fr" else f"{round(share)}%"


def format_usd(amount: float, lang: str = "en", digits: int = 4) -> str:
    """A cost in US dollars: ``$0.0123``; French ``0,0123\u00a0$``."""
    if lang == "fr":
        return f"{format_number(amount, lang, digits)}{NBSP}$"
    return f"${amount:.{digits}f}"


_DECIMAL = re.compile(r"-?\d+\.\d+")
_DOLLARS = re.compile(r"\$(\d+(?:\.\d+)?)")
# A decimal in code's sentence: not part of an id, a version, a path or a time (``A1.c2``,
# ``4.1.2``, ``/a/1.5``, ``1.5:2``); a comma, a colon or a slash after it ends the number only
# when a space or the end follows (``=0.00, A1.c2=0.33``).
_DECIMAL_IN_TEXT = re.compile(r"(?<![\w.,/:$-])(-?\d+)\.(\d+)(?!\w|\.\w|[.,/:-][\w])")


def localise_number(value: object, lang: str = "en") -> object:
    """A field already formatted by its caller (``f"{x:.2f}"``), in ``lang``: a string that is
    exactly one decimal number gets a decimal comma in French; anything else is returned as it
    is (an id, a path, a version like ``4.1.2``, a sentence)."""
    if lang != "fr" or not isinstance(value, str | float):
        return value
    if isinstance(value, float):
        return repr(value).replace(".", ",")
    if _DECIMAL.fullmatch(value):
        return value.replace(".", ",")
    return value


def localise_amounts(text: str, lang: str = "en") -> str:
    """Code's own sentence about costs and numbers (``"at least $0.0123 (1 unpriced call)"``),
    in ``lang``: French dollar amounts become ``0,0123\u00a0$`` and bare decimals take a comma.
    For text argue wrote, never for model text, a URL or an id."""
    if lang != "fr" or not text:
        return text
    text = _DOLLARS.sub(lambda m: m.group(1).replace(".", ",") + NBSP + "$", text)
    return _DECIMAL_IN_TEXT.sub(r"\1,\2", text)


def jinja_filters() -> dict[str, Callable[..., Any]]:
    """Filters for a document environment whose templates are rendered with ``lang`` in their
    context: ``format`` (Jinja's own, with decimal commas in French when every argument is a
    number, so ``"%.2f" | format(score)`` reads ``0,85``), ``number`` (``x | number(2)``, for
    templates of one's own in ``$ARGUE_HOME/templates``) and ``decimal`` (a value as ``str``
    shows it, ``1.5`` → ``1,5``: a score component's weight)."""
    from jinja2 import pass_context
    from jinja2.filters import do_format
    from jinja2.runtime import Context

    def language(context: Context) -> str:
        return str(context.get("lang") or "en")

    @pass_context
    def localised_format(context: Context, value: str, *args: Any, **kwargs: Any) -> str:
        shown = do_format(value, *args, **kwargs)
        numeric = args and all(isinstance(a, int | float) and not isinstance(a, bool) for a in args)
        if language(context) == "fr" and numeric and not kwargs:
            return re.sub(r"(?<=\d)\.(?=\d)", ",", str(shown))
        return str(shown)

    @pass_context
    def number(context: Context, value: float, digits: int = 2) -> str:
        return format_number(value, language(context), digits)

    @pass_context
    def decimal(context: Context, value: object) -> str:
        return str(localise_number(str(value), language(context)))

    return {"format": localised_format, "number": number, "decimal": decimal}
