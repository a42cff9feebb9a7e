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
# What a refusal declines to do: "I can't *help*", never "I cannot *agree* with B1.c2". A verb
# an argument also uses ("I cannot *provide* a proof, but…", "I cannot *support* B1.c2's bound")
# counts only when the sentence ends with it or with a bare object ("I can't argue this
# position."); "I cannot help but note…" is no refusal either.
_VERB = r"""(?:
        help(?!\ but\b) | assist | comply | fulfil | fulfill | do\ (?:that|this)(?=\s*(?:[.!]|$))
      | participate | take\ part
      | (?:argue|support|answer|provide|write|continue|create|produce|generate|engage)
        (?:\ (?:with\ |in\ |to\ |for\ )?(?:that|this|it|(?:this|that|your|the|such)
            \ (?:request|question|position|side|task|topic|content|prompt|debate|argument)))?
        (?=\s*(?:[.!]|$))
    )"""
_VERBE = r"""(?:vous\ )?(?:
        aider | participer | accéder\ à\ (?:cette|votre)\ demande
      | (?:r[ée]pondre|fournir|faire|[ée]crire|argumenter|continuer)
        (?:\ (?:à\ )?(?:cela|ça|ceci|(?:cette|votre|la)\ (?:question|demande|position|t[âa]che)))?
        (?=\s*(?:[.!]|$))
    )"""
# The declining sentence itself, English then French.
_DECLINE = rf"""(?:
        (?:i|we)\ (?:cannot|can'?t|can\ not|won'?t|will\ not|am\ unable|'m\ unable
            |am\ not\ able|'m\ not\ able)\ {_VERB}
      | (?:i'?m|i\ am)\ (?:unable|not\ able|not\ going)\ to\ {_VERB}
      | i\ (?:must|have\ to)\ (?:respectfully\ )?(?:decline|refuse)
      | i\ (?:don'?t|do\ not)\ feel\ comfortable
      | (?:that'?s|that\ is|this\ is|it'?s)\ not\ something\ i\ (?:can|am\ able\ to|will)
      | as\ an?\ (?:ai|language\ model|assistant)\b
      | je\ ne\ (?:peux|pourrai|vais)\ pas\ {_VERBE}
      | je\ ne\ suis\ pas\ en\ mesure\ de
      | en\ tant\ qu'(?:ia|intelligence\ artificielle|assistant|mod[eè]le)
      | je\ dois\ (?:refuser|d[ée]cliner)
    )"""
# An apology counts only when a declining sentence follows it at once: "I'm sorry, but I can't
# help with that" is a refusal, "I'm sorry, but the evidence says otherwise" is an argument.
_APOLOGY = r"""(?:
        (?:i'?m|i\ am)\ (?:so\ |very\ |really\ |truly\ )?sorry
      | sorry
      | i\ apologi[sz]e
      | je\ suis\ (?:vraiment\ |sinc[èe]rement\ )?d[ée]sol[ée]e?
      | d[ée]sol[ée]e?
      | je\ regrette
    )(?:[\s,.!:;—–-]+(?:but|however|mais|cependant))?[\s,.!:;—–-]+"""
_OPENERS = re.compile(rf"^(?:{_APOLOGY})?{_DECLINE}", re.IGNORECASE | re.VERBOSE)


def is_refusal(text: str, max_chars: int = MAX_REFUSAL_CHARS) -> bool:
    """Whether ``text`` is a refusal formula and little else (at most ``max_chars``)."""
    folded = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).strip().strip("\"'*_ ")
    if not folded or len(folded) > max_chars:
        return False
    return _OPENERS.match(" ".join(folded.split())) is not None


def first_words(text: str, limit: int = 120) -> str:
    """The start of ``text`` on one line, for quoting a refusal in a record."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
