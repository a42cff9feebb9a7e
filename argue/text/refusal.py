"""Whether a piece of model text is a refusal rather than an answer.

A model that declines ("I'm sorry, but I can't help with that") inside a schema-valid answer
fills the fields with its refusal: a claim that only refuses must not be scored or ranked as an
argument, and prose returned instead of the JSON asked for is a refusal, not "invalid JSON".
The test is deliberately narrow — the text *opens* with a refusal formula, in English or
French, and is short — so that a claim which discusses refusals, or says "I cannot agree with
B1.c2 because …", is not taken for one.
"""

from __future__ import annotations

import re
import unicodedata

MAX_REFUSAL_CHARS = 400
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'"})
_OPENERS = re.compile(
    r"""^(?:
        (?:i'?m|i\ am)\ (?:so\ |very\ |really\ )?sorry
      | sorry,?\ (?:but\ )?i
      | (?:i|we)\ (?:cannot|can'?t|can\ not|won'?t|will\ not|am\ unable|'m\ unable|am\ not\ able)
        \ (?:help|assist|comply|provide|fulfil|fulfill|do\ that|answer|participate|take\ part|
             engage|write|argue|continue|support)
      | (?:i'?m|i\ am)\ (?:unable|not\ able)\ to\ (?:help|assist|comply|provide|answer|
             participate|take\ part|engage|write|argue|continue)
      | as\ an?\ (?:ai|language\ model|assistant)\b
      | i\ (?:must|have\ to)\ (?:decline|refuse)
      | je\ suis\ (?:vraiment\ )?d[ée]sol[ée]e?
      | d[ée]sol[ée]e?,
      | je\ ne\ (?:peux|pourrai|vais)\ pas\ (?:vous\ )?(?:aider|r[ée]pondre|participer|fournir|
             faire|[ée]crire|argumenter|continuer)
      | en\ tant\ qu'(?:ia|intelligence\ artificielle|assistant|mod[eè]le)
      | je\ dois\ (?:refuser|d[ée]cliner)
    )""",
    re.IGNORECASE | re.VERBOSE,
)


def is_refusal(text: str) -> bool:
    """Whether ``text`` is a refusal formula and little else."""
    folded = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).strip().strip("\"'*_ ")
    if not folded or len(folded) > MAX_REFUSAL_CHARS:
        return False
    return _OPENERS.match(folded) is not None


def first_words(text: str, limit: int = 120) -> str:
    """The start of ``text`` on one line, for quoting a refusal in a record."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
