"""Code's own words, in the debate's language: headings, markers, failure sentences.

The language is chosen once per debate (``--lang``, else detected from the question by
:func:`argue.text.language.detect_language`) and recorded in config.json; personas already
answer in the question's language, so a French question gets a French synthesis throughout
("Synthèse du débat", "Points d'accord", …).

The words live in one catalog per language, ``catalog/<lang>.toml`` beside this module, read
with :mod:`tomllib` the first time a label of that language is asked for (once per process;
importing this module reads nothing). A catalog holds

- labels: ``agreements = "Points of agreement"``, named by a literal key in code
  (``label("agreements", lang)``) or in a template (``{{ L.agreements }}``);
- families, ``[family.<name>]``: where a recorded value picks the label (a mode, a status, a
  termination, a score reason's part), ``label_of("mode", config.mode, lang)``; which values
  exist is the table, not an f-string;
- plural forms, ``{ one = "{n} claim", other = "{n} claims" }``: the field ``n`` picks the form
  (English: 1 is singular; French: 0 and 1 are).

tests/records/test_label_catalog.py holds code and catalogs to that: every key literal and
present, every key and family value in every language with the same ``{fields}``, no key unused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypeAlias

from argue.text.language import LANGUAGES, Language
from argue.text.typography import french_spacing, localise_amounts, localise_number

__all__ = [
    "LANGUAGES",
    "Labels",
    "Language",
    "catalog",
    "has_label",
    "label",
    "label_of",
    "plural_form",
]

Entry: TypeAlias = str | dict[str, str]
"""A label's words: a string, or its plural forms (``one``, ``other``)."""

_CATALOGS: dict[str, dict[str, Any]] = {}
_FRENCH: dict[tuple[str, str, str], str] = {}


def catalog(lang: str) -> Mapping[str, Any]:
    """The parsed catalog of ``lang`` (``en`` for a language argue does not speak): its
    labels at the top, its families under ``family``. Read once per process."""
    lang = lang if lang in LANGUAGES else "en"
    loaded = _CATALOGS.get(lang)
    if loaded is None:
        import tomllib  # here, not at the top: importing the labels reads and parses nothing
        from importlib.resources import files

        text = files(__package__).joinpath("catalog", f"{lang}.toml").read_text(encoding="utf-8")
        loaded = _CATALOGS[lang] = tomllib.loads(text)
    return loaded


def _family(lang: str, family: str) -> Mapping[str, Entry]:
    families: Mapping[str, Mapping[str, Entry]] = catalog(lang)["family"]
    return families[family]


def has_label(family: str, value: str) -> bool:
    """Whether ``family`` has words for ``value`` (a record may carry a value this version
    does not know: an older or newer argue's)."""
    return value in _family("en", family)


def plural_form(n: object, lang: str) -> str:
    """``one`` or ``other``: the plural form a count ``n`` (a number, or digits a pattern
    matched) takes in ``lang``. English: 1 is singular; French: 0 and 1 are."""
    try:
        count = float(n) if isinstance(n, str) else n
    except ValueError:
        return "other"
    if not isinstance(count, int | float):
        return "other"
    singular = abs(count) < 2 if lang == "fr" else count == 1
    return "one" if singular else "other"


# Fields that carry numbers code formatted (``"0.85"``, ``"$0.0123"``,
# ``"A1.c1=0.00, A1.c2=0.33"``), never model text: their decimals and dollar amounts are shown
# the French way.
_NUMBER_FIELDS = frozenset(
    {"similarities", "threshold", "confidence", "evidence", "spent", "budget", "seconds", "s"}
    | {"cost", "now", "d1", "d2", "value", "span", "input", "output"}
)


def _french_field(name: str, value: object) -> object:
    if name not in _NUMBER_FIELDS or not isinstance(value, str):
        return localise_number(value, "fr")
    shown = localise_amounts(value, "fr")
    if shown != value and re.search(r"\d,\d", shown) and ", " in shown:
        shown = shown.replace(", ", label("list_separator", "fr"))  # "0,00 ; 0,33"
    return shown


def _say(where: str, name: str, entry: Entry, lang: str, fields: Mapping[str, object]) -> str:
    """``entry``'s words in ``lang`` with ``fields``. In French the text takes French
    typography (no-break spaces before ``:`` ``;`` ``?`` ``!`` ``%`` and inside ``« »``; the
    catalog is written with plain spaces), spaced once, and a field that is one decimal number
    as its caller formatted it (``confidence=f"{c:.2f}"``), or a field that only ever carries
    numbers (``_NUMBER_FIELDS``), is shown with decimal commas."""
    form = plural_form(fields.get("n"), lang) if isinstance(entry, dict) else ""
    text = entry[form] if isinstance(entry, dict) else entry
    if lang != "fr":
        return text.format(**fields) if fields else text
    spaced = _FRENCH.get((where, name, form))
    if spaced is None:
        spaced = _FRENCH[(where, name, form)] = french_spacing(text)
    if not fields:
        return spaced
    return spaced.format(**{key: _french_field(key, value) for key, value in fields.items()})


def label(key: str, lang: str = "en", **fields: object) -> str:
    """Code's words for ``key`` (a literal: a label the catalog has) in ``lang``; a label with
    plural forms picks one by the field ``n``."""
    if key == "family":
        raise KeyError(key)
    lang = lang if lang in LANGUAGES else "en"
    return _say("", key, catalog(lang)[key], lang, fields)


def label_of(
    family: str, value: str, lang: str = "en", *, default: str | None = None, **fields: object
) -> str:
    """The words ``family`` (a literal: a table the catalog has) gives ``value`` (a recorded
    id: a mode, a status, a phase…) in ``lang``; ``default`` when it has none (a record from
    another version), else :class:`KeyError`."""
    lang = lang if lang in LANGUAGES else "en"
    table = _family(lang, family)
    entry = table.get(value)
    if entry is None:
        if default is not None:
            return default
        raise KeyError(f"{family}.{value}")
    return _say(family, value, entry, lang, fields)


def all_words(lang: str, *, spaced: bool = True) -> dict[str, str]:
    """Every label's words in ``lang``, fields unfilled, by name: ``key``, ``family.value``,
    and ``key[one]`` / ``key[other]`` for plural forms. ``spaced``: French as :func:`label`
    says it (French typography); otherwise as the catalog writes it (plain spaces)."""
    words = catalog(lang)
    entries: list[tuple[str, Entry]] = [(k, v) for k, v in words.items() if k != "family"]
    for family, table in words["family"].items():
        entries += [(f"{family}.{value}", entry) for value, entry in table.items()]
    out: dict[str, str] = {}
    for name, entry in entries:
        forms = entry.items() if isinstance(entry, dict) else [("", entry)]
        for form, text in forms:
            shown = french_spacing(text) if spaced and lang == "fr" else text
            out[f"{name}[{form}]" if form else name] = shown
    return out


class Labels:
    """Attribute access for templates: ``{{ L.agreements }}``; an unknown key is an error."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang if lang in LANGUAGES else "en"

    def __getattr__(self, key: str) -> str:
        if key.startswith("__") or key == "family" or key not in catalog(self.lang):
            raise AttributeError(f"no label {key!r}")
        return label(key, self.lang)
