"""Whether a piece of model text is a refusal rather than an answer.

A model that declines ("I'm sorry, but I can't help with that") inside a schema-valid answer
fills the fields with its refusal: a claim that only refuses must not be scored or ranked as an
argument, a synthesis whose sections refuse is not a completed synthesis, and prose returned
instead of the JSON asked for is a refusal, not "invalid JSON".

The text is folded first (NFKC, typographic apostrophes and quotes, case, emphasis marks). A
field is a refusal when it is short (at most :data:`MAX_REFUSAL_CHARS`) and one of its
sentences, once an opener is set aside ("Unfortunately,", "My apologies, but", "Hélas,",
"Malheureusement,"), *begins* with a declining sentence in English or French ("I can't help
with that", "I'd rather not argue this position", "Je refuse de participer"). A sentence that
declines only something an argument also declines ("I cannot agree with B1.c2 because …",
"I cannot provide a proof, but …") is no refusal, nor is an opener alone ("Unfortunately, the
bound fails for n = 27"), nor a sentence that reports someone else refusing.
"""

from __future__ import annotations

import re
import unicodedata

MAX_REFUSAL_CHARS = 400
_FOLD = str.maketrans(
    {
        "’": "'", "‘": "'", "ʼ": "'", "´": "'", "`": "'", "′": "'",
        "“": '"', "”": '"', "„": '"', "«": '"', "»": '"',
        "\u00a0": " ", "\u202f": " ", "\u2009": " ",
    }
)  # fmt: skip
# What a refusal declines to do: "I can't *help*", never "I cannot *agree* with B1.c2". A verb
# an argument also uses ("I cannot *provide* a proof, but…", "I cannot *support* B1.c2's bound")
# counts only when the sentence ends with it or with a bare object ("I can't argue this
# position."); "I cannot help but note…" is no refusal either.
_OBJECT = r"""(?:\ (?:with\ |in\ |to\ |for\ |on\ )?(?:that|this|it|you|(?:this|that|your|the|such)
            \ (?:request|question|position|side|task|topic|content|prompt|debate|argument
              |assignment|role|exercise|kind\ of\ (?:request|content))))?"""
_VERB = rf"""(?:
        help(?!\ but\b)(?:\ you)?
            (?:\ (?:with|on)\ (?:that|this|it|(?:this|that|your|the|such)\ \w+))?
      | assist | comply | fulfil | fulfill | oblige
      | do\ (?:that|this)(?=\s*(?:[.!]|$))
      | participate | take\ part | go\ along\ with | play\ along
      | (?:argue|support|answer|provide|write|continue|create|produce|generate|engage|respond
          |defend|take\ (?:this|that|a)\ (?:side|position|stance)|be\ (?:providing|arguing
          |participating|writing|answering|continuing|taking\ part|helping|engaging))
        {_OBJECT}(?=\s*(?:[.!]|$))
    )"""
_VERBE = r"""(?:(?:vous|t'|te|y)\ ?)?(?:
        aider | participer | prendre\ part | accéder\ à\ (?:cette|votre|ta)\ demande
      | donner\ suite | satisfaire\ (?:cette|votre|ta)\ demande
      | traiter\ (?:cette|votre|ta)\ demande
      | (?:r[ée]pondre|fournir|faire|[ée]crire|argumenter|continuer|d[ée]fendre|soutenir|jouer
          |m'engager|m'impliquer|contribuer)
        (?:\ (?:à\ )?(?:cela|ça|ceci|ce\ d[ée]bat|(?:cette|votre|ta|la|une\ telle)
            \ (?:question|demande|position|t[âa]che|th[èe]se|requ[êe]te)))?
        (?=\s*(?:[.!]|$))
    )"""
# The declining sentence itself, English then French.
_DECLINE = rf"""(?:
        (?:i|we)\ (?:really\ |simply\ |just\ )?(?:cannot|can't|can\ not|won't|will\ not|shall\ not
            |am\ unable|am\ not\ able)\ {_VERB}
      | (?:i'm|i\ am|we\ are|we're)\ (?:afraid\ (?:that\ )?i
            \ (?:cannot|can't|can\ not|won't)\ {_VERB}
            |(?:unable|not\ able|not\ going|not\ in\ a\ position)\ to\ {_VERB})
      | (?:i|we)\ (?:cannot|can't|can\ not|won't|will\ not)\ in\ good\ conscience
      | i(?:\ will|'ll|\ would)\ not\ be\ (?:providing|arguing|participating|writing|answering
            |continuing|taking\ part|helping|engaging|able\ to)
      | i\ won't\ be\ (?:providing|arguing|participating|writing|answering|continuing|taking\ part
            |helping|engaging|able\ to)
      | i(?:'d|\ would)\ (?:rather|prefer)\ not(?:\ to)?\ (?:argue|engage|participate|take\ part
            |answer|respond|continue|discuss|defend|do|write|help)
      | i\ prefer\ not\ to\ (?:argue|engage|participate|take\ part|answer|respond|continue|discuss)
      | i(?:\ must|\ have\ to|'ll\ have\ to|\ will\ have\ to|'m\ going\ to\ have\ to|\ need\ to)
            \ (?:respectfully\ |politely\ )?(?:decline|refuse|pass)
      | i\ (?:respectfully\ |politely\ )?(?:decline|refuse)\b
      | i\ (?:don't|do\ not)\ feel\ comfortable
      | (?:i'm|i\ am)\ not\ comfortable
      | (?:that's|that\ is|this\ is|it's|it\ is)\ not\ something\ i
            \ (?:can|am\ able\ to|will|'m\ able\ to)
      | (?:this|that|your)\ request\ (?:violates|goes\ against|is\ against)
      | as\ an?\ (?:ai|language\ model|assistant|large\ language\ model)\b
      | je\ ne\ (?:peux|pourrai|pourrais|vais|puis|saurais)
            \ (?:pas\ |malheureusement\ pas\ )?{_VERBE}
      | je\ ne\ suis\ pas\ (?:en\ mesure|autoris[ée]e?|à\ même)\ (?:de|d'|à)
      | je\ ne\ vais\ pas\ pouvoir
      | je\ (?:refuse|me\ refuse)\ (?:de|d'|à)
      | je\ refuse\b(?=\s*(?:[.!]|$))
      | je\ (?:dois|vais\ devoir|me\ vois\ contraint(?:e)?\ de)\ (?:refuser|d[ée]cliner)
      | je\ (?:pr[ée]f[èe]re|pr[ée]f[ée]rerais)\ ne\ pas\ (?:participer|r[ée]pondre|argumenter
            |prendre\ part|d[ée]fendre|continuer|m'engager)
      | je\ ne\ souhaite\ pas\ (?:participer|r[ée]pondre|argumenter|prendre\ part|d[ée]fendre
            |continuer|m'engager)
      | je\ ne\ me\ sens\ pas\ à\ l'aise
      | il\ m'est\ impossible\ de\ (?:r[ée]pondre|participer|vous\ aider|t'aider|aider|argumenter
            |prendre\ part|donner\ suite|d[ée]fendre|continuer)
      | (?:ce\ n'est|cela\ n'est)\ pas\ quelque\ chose\ que\ je\ (?:peux|puis)
      | en\ tant\ qu'(?:ia|intelligence\ artificielle|assistant|mod[eè]le)
      | (?:cette|votre|ta)\ (?:demande|requ[êe]te)\ (?:va\ à\ l'encontre|enfreint|viole)
    )"""
# Set aside before a declining sentence: "I'm sorry, but I can't help with that" is a refusal,
# "I'm sorry, but the evidence says otherwise" is an argument.
_OPENER = r"""(?:
        (?:i'm|i\ am|we're|we\ are)\ (?:so\ |very\ |really\ |truly\ |terribly\ )?sorry(?:\ to\ say)?
      | sorry | so\ sorry | my\ apologies | apologies | i\ apologi[sz]e | forgive\ me | pardon\ me
      | (?:i'm|i\ am)\ afraid | unfortunately | regrettably | sadly | alas | respectfully
      | with\ respect | honestly | to\ be\ honest | i\ understand(?:\ the\ request)?
      | thank\ you(?:\ for\ the\ (?:request|question|prompt))?
      | je\ suis\ (?:vraiment\ |sinc[èe]rement\ |tr[èe]s\ )?(?:d[ée]sol[ée]e?|navr[ée]e?)
      | d[ée]sol[ée]e? | navr[ée]e? | je\ regrette | toutes\ mes\ excuses | je\ m'excuse
      | excusez-moi | pardon | h[ée]las | malheureusement
      | je\ comprends(?:\ (?:la|votre)\ demande)?
      | merci(?:\ pour\ (?:la|votre)\ (?:question|demande))?
      | (?:but|however|mais|cependant|toutefois|n[ée]anmoins)
    )[\s,.!:;—–-]+"""
_SENTENCE = re.compile(rf"(?:{_OPENER})*{_DECLINE}", re.IGNORECASE | re.VERBOSE)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?…;])\s+|\n+")


def fold(text: str) -> str:
    """The form refusals are matched in: NFKC, one apostrophe and one quote mark, one space,
    no emphasis marks around the text."""
    folded = unicodedata.normalize("NFKC", text).translate(_FOLD)
    return " ".join(folded.split()).strip().strip("\"'*_ ")


def is_refusal(text: str, max_chars: int = MAX_REFUSAL_CHARS) -> bool:
    """Whether ``text`` is short and one of its sentences declines (see the module docstring)."""
    folded = fold(text)
    if not folded or len(folded) > max_chars:
        return False
    return any(
        _SENTENCE.match(sentence.strip().strip("\"'*_ ()"))
        for sentence in _SENTENCE_BREAK.split(folded)
    )


def first_words(text: str, limit: int = 120) -> str:
    """The start of ``text`` on one line, for quoting a refusal in a record."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
