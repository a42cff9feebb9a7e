"""Text files in any charset: a byte-order mark, else UTF-8, else charset-normalizer's guess.

1. A byte-order mark names the encoding: UTF-8, UTF-32 LE/BE (looked for before UTF-16, whose
   little-endian mark is a prefix of UTF-32's), UTF-16 LE/BE. The rest of the file must decode
   in it, or the file is refused.
2. Without one, a NUL byte means a binary file (UTF-16 or UTF-32 text without a mark is not
   guessed), and text that decodes as UTF-8 (ASCII included) is UTF-8.
3. Anything else goes to ``charset-normalizer``. Its candidates are ranked by chaos (how much
   the decoded text looks like mojibake), then coherence (how much it looks like a language).
   Candidates tied on both are common for short Western texts — cp1250, cp1252 and cp1257
   decode "é" alike but "ñ" differently — and the more widespread encoding (``PREFERRED``) wins
   the tie; an encoding that gives exactly the same text is named by its most widespread alias
   (German Windows text is "cp1252", not "cp1250").

   Confidence is charset-normalizer's own, as its chardet-compatible ``detect()`` computes it:
   1 − chaos, lowered by 0.2 for samples under 32 bytes (too short to tell encodings apart).
   Below ``MIN_CONFIDENCE`` the file is refused with one line naming it, rather than indexed
   as mojibake that no search would ever find.

The encoding is returned with the text (Python's codec name: ``utf-8``, ``utf-16-le``,
``cp1251``, ``shift_jis``…) and recorded with the document.
"""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING, NamedTuple

from argue.skills.library.models import LibraryError

if TYPE_CHECKING:
    from charset_normalizer.models import CharsetMatch

MIN_CONFIDENCE = 0.9
SMALL_SAMPLE_BYTES = 32  # charset-normalizer's TOO_SMALL_SEQUENCE
SMALL_SAMPLE_PENALTY = 0.2
_TIE = 0.005
# Checked in this order: the UTF-32 LE mark starts with the UTF-16 LE one.
_BOMS = (
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)
# Legacy encodings by how widespread they are, for breaking ties (see the module docstring).
PREFERRED = tuple(
    codecs.lookup(name).name
    for name in (
        "cp1252", "cp1251", "shift_jis", "cp932", "gb18030", "gbk", "big5", "euc_kr", "cp949",
        "euc_jp", "cp1250", "cp1253", "cp1254", "cp1256", "cp1255", "cp1257", "cp1258",
        "koi8_r", "koi8_u", "iso8859_15", "latin_1", "iso8859_2", "iso8859_5", "iso8859_7",
    )
)  # fmt: skip


class DecodedText(NamedTuple):
    text: str
    encoding: str  # a Python codec name


def decode_text(data: bytes, name: str) -> DecodedText:
    """The text of a file's bytes and the encoding it was found in; LibraryError if unsure."""
    for bom, encoding, label in _BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as exc:
                raise LibraryError(
                    f"{name}: starts with a {label} byte-order mark but is not valid {label} "
                    f"({exc.reason} at byte {exc.start + len(bom)})"
                ) from None
            if "\x00" in text:
                raise LibraryError(f"{name}: looks like a binary file, not text")
            return DecodedText(text, "utf-8-sig" if encoding == "utf-8" else encoding)
    if b"\x00" in data:
        raise LibraryError(f"{name}: looks like a binary file, not text")
    try:
        return DecodedText(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    return _guess(data, name)


def _guess(data: bytes, name: str) -> DecodedText:
    from charset_normalizer import from_bytes

    # Without a byte-order mark (and without NUL bytes) a UTF-16/32 reading is never right.
    matches = [m for m in from_bytes(data) if not m.encoding.startswith(("utf_16", "utf_32"))]
    if not matches:
        raise LibraryError(
            f"{name}: not text in any known character encoding (a binary file?); "
            "save it as UTF-8 and add it again"
        )
    top = matches[0]  # charset-normalizer's order: least chaos, then most coherent
    tied = [
        match
        for match in matches
        if abs(match.chaos - top.chaos) < _TIE and abs(match.coherence - top.coherence) < _TIE
    ]
    chosen, encoding = min(((match, _alias(match)) for match in tied), key=lambda p: _rank(p[1]))
    confidence = 1.0 - chosen.chaos
    if len(data) < SMALL_SAMPLE_BYTES:
        confidence -= SMALL_SAMPLE_PENALTY
    if confidence < MIN_CONFIDENCE:
        raise LibraryError(
            f"{name}: cannot tell its character encoding (best guess {encoding}, confidence "
            f"{confidence:.2f} < {MIN_CONFIDENCE}); save it as UTF-8 and add it again"
        )
    try:
        return DecodedText(data.decode(encoding), encoding)
    except UnicodeDecodeError:  # the alias matched on charset-normalizer's sample only
        return DecodedText(str(chosen), codecs.lookup(chosen.encoding).name)


def _alias(match: CharsetMatch) -> str:
    """The most widespread encoding that decodes the file to the same text as ``match``."""
    names = [codecs.lookup(name).name for name in (match.encoding, *match.could_be_from_charset)]
    return min(names, key=_rank)


def _rank(encoding: str) -> int:
    return PREFERRED.index(encoding) if encoding in PREFERRED else len(PREFERRED)
