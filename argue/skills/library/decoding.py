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

``read_decoded`` does the same on an open file without holding its text: the text goes to the
reader in pieces as it is decoded (1 MB of bytes at a time). A file without a byte-order mark is
read as UTF-8 first; if it turns out not to be, the reader's work is dropped, charset-normalizer
guesses from the file (its first and last 4 MB past ``GUESS_SAMPLE_BYTES``), the whole file must
decode in the guess, and the reader starts again.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, BinaryIO, NamedTuple, TypeVar

from argue.skills.library.limits import IngestBudget, LimitExceeded
from argue.skills.library.models import LibraryError

if TYPE_CHECKING:
    from charset_normalizer.models import CharsetMatch

Read = TypeVar("Read")

MIN_CONFIDENCE = 0.9
SMALL_SAMPLE_BYTES = 32  # charset-normalizer's TOO_SMALL_SEQUENCE
SMALL_SAMPLE_PENALTY = 0.2
_TIE = 0.005
BLOCK_BYTES = 1 << 20
# charset-normalizer needs memory several times what it reads: a larger file is guessed from
# its first and last 4 MB (it samples the file itself anyway), and must decode whole.
GUESS_SAMPLE_BYTES = 8 << 20
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


class _NotUtf8(Exception):
    """The file read as UTF-8 is not: read it again in the encoding charset-normalizer finds."""


def decode_text(data: bytes, name: str) -> DecodedText:
    """The text of a file's bytes and the encoding it was found in; LibraryError if unsure."""
    for bom, encoding, label in _BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as exc:
                raise _bad_bom(name, label, exc.reason, exc.start + len(bom)) from None
            if "\x00" in text:
                raise _binary(name)
            return DecodedText(text, _recorded(encoding))
    if b"\x00" in data:
        raise _binary(name)
    try:
        return DecodedText(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    encoding = _guess_encoding(data, name)
    return DecodedText(data.decode(encoding), encoding)


def read_decoded(
    stream: BinaryIO, name: str, budget: IngestBudget, read: Callable[[Iterator[str]], Read]
) -> tuple[Read, str]:
    """``read(pieces of the text)`` and the encoding, as ``decode_text`` would find it.

    ``stream`` is a seekable file opened at its start. ``read`` may be called a second time,
    from the start, when a file that looked like UTF-8 turns out to be in another encoding.
    """
    head = stream.read(4)
    for bom, encoding, label in _BOMS:
        if head.startswith(bom):
            stream.seek(len(bom))
            pieces = _decoded(stream, encoding, name, budget, bom=(len(bom), label))
            return read(pieces), _recorded(encoding)
    stream.seek(0)
    try:
        return read(_decoded(stream, "utf-8", name, budget, trying_utf8=True)), "utf-8"
    except _NotUtf8:
        pass
    except LimitExceeded:
        raise
    except LibraryError:
        # Refused on what came before the first byte that is not UTF-8, perhaps: find out.
        stream.seek(0)
        if _decodes(_blocks_from(stream), "utf-8"):
            raise
    stream.seek(0)
    if any(b"\x00" in block for block in _blocks_from(stream)):
        raise _binary(name)

    def decodes(encoding: str) -> bool:
        stream.seek(0)
        return _decodes(_blocks_from(stream), encoding)

    encoding = _guess_encoding(_guess_sample(stream), name, decodes)
    budget.restart()
    stream.seek(0)
    return read(_decoded(stream, encoding, name, budget)), encoding


def _guess_sample(stream: BinaryIO) -> bytes:
    """What charset-normalizer looks at: the whole file up to ``GUESS_SAMPLE_BYTES``, else its
    beginning and its end, cut at line ends (never inside a character, in any encoding it
    guesses: their multi-byte characters have no newline byte)."""
    stream.seek(0, 2)
    size = stream.tell()
    stream.seek(0)
    if size <= GUESS_SAMPLE_BYTES:
        return stream.read()
    half = GUESS_SAMPLE_BYTES // 2
    head = stream.read(half)
    stream.seek(size - half)
    tail = stream.read(half)
    head = head[: head.rfind(b"\n") + 1] or head
    tail = tail[tail.find(b"\n") + 1 :] or tail
    return head + tail


def _decoded(
    stream: BinaryIO,
    encoding: str,
    name: str,
    budget: IngestBudget,
    *,
    bom: tuple[int, str] | None = None,
    trying_utf8: bool = False,
) -> Iterator[str]:
    """The text of ``stream`` from where it is, 1 MB of bytes at a time; NUL means binary."""
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    fed = 0
    while True:
        budget.check_time()
        block = stream.read(BLOCK_BYTES)
        if trying_utf8 and b"\x00" in block:
            raise _binary(name)
        buffered = len(decoder.getstate()[0])
        try:
            text = decoder.decode(block, final=not block)
        except UnicodeDecodeError as exc:
            if bom is not None:
                bom_length, label = bom
                at_byte = bom_length + fed - buffered + exc.start
                raise _bad_bom(name, label, exc.reason, at_byte) from None
            if trying_utf8:
                raise _NotUtf8 from None
            raise _changed(name) from None
        fed += len(block)
        if bom is not None and "\x00" in text:
            raise _binary(name)
        if text:
            yield text
        if not block:
            return


def _decodes(blocks: Iterable[bytes], encoding: str) -> bool:
    """Whether the bytes of ``blocks``, one after the other, decode in ``encoding``."""
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    try:
        for block in blocks:
            decoder.decode(block)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _blocks_of(data: bytes) -> Iterator[bytes]:
    view = memoryview(data)
    for start in range(0, len(data), BLOCK_BYTES):
        yield bytes(view[start : start + BLOCK_BYTES])


def _blocks_from(stream: BinaryIO) -> Iterator[bytes]:
    while block := stream.read(BLOCK_BYTES):
        yield block


def _recorded(encoding: str) -> str:
    return "utf-8-sig" if encoding == "utf-8" else encoding


def _changed(name: str) -> LibraryError:
    return LibraryError(f"{name}: changed while it was being read; add it again")


def _not_text(name: str) -> LibraryError:
    return LibraryError(
        f"{name}: not text in any known character encoding (a binary file?); "
        "save it as UTF-8 and add it again"
    )


def _binary(name: str) -> LibraryError:
    return LibraryError(f"{name}: looks like a binary file, not text")


def _bad_bom(name: str, label: str, reason: str, at_byte: int) -> LibraryError:
    return LibraryError(
        f"{name}: starts with a {label} byte-order mark but is not valid {label} "
        f"({reason} at byte {at_byte})"
    )


def _guess_encoding(sample: bytes, name: str, decodes: Callable[[str], bool] | None = None) -> str:
    """charset-normalizer's encoding for ``sample`` (see the module docstring), one in which
    the whole file decodes (``decodes(encoding)``; by default, ``sample`` is the whole file)."""
    from charset_normalizer import from_bytes

    if decodes is None:

        def decodes(encoding: str) -> bool:
            return _decodes(_blocks_of(sample), encoding)

    # Without a byte-order mark (and without NUL bytes) a UTF-16/32 reading is never right.
    matches = [m for m in from_bytes(sample) if not m.encoding.startswith(("utf_16", "utf_32"))]
    if not matches:
        raise _not_text(name)
    top = matches[0]  # charset-normalizer's order: least chaos, then most coherent
    tied = [
        match
        for match in matches
        if abs(match.chaos - top.chaos) < _TIE and abs(match.coherence - top.coherence) < _TIE
    ]
    chosen, encoding = min(((match, _alias(match)) for match in tied), key=lambda p: _rank(p[1]))
    confidence = 1.0 - chosen.chaos
    if len(sample) < SMALL_SAMPLE_BYTES:
        confidence -= SMALL_SAMPLE_PENALTY
    if confidence < MIN_CONFIDENCE:
        raise LibraryError(
            f"{name}: cannot tell its character encoding (best guess {encoding}, confidence "
            f"{confidence:.2f} < {MIN_CONFIDENCE}); save it as UTF-8 and add it again"
        )
    if decodes(encoding):
        return encoding
    # The alias matched on charset-normalizer's sample only.
    fallback = codecs.lookup(chosen.encoding).name
    if decodes(fallback):
        return fallback
    raise _not_text(name)


def _alias(match: CharsetMatch) -> str:
    """The most widespread encoding that decodes the file to the same text as ``match``."""
    names = [codecs.lookup(name).name for name in (match.encoding, *match.could_be_from_charset)]
    return min(names, key=_rank)


def _rank(encoding: str) -> int:
    return PREFERRED.index(encoding) if encoding in PREFERRED else len(PREFERRED)
