"""Where a debate's question comes from: the text given, or a file (``-``: standard input) read
with a bounded read, so a huge file or an endless stream costs at most 4 bytes a character of
:data:`QUESTION_MAX_CHARS` (a UTF-8 character is at most 4 bytes)."""

from __future__ import annotations

import sys
from typing import BinaryIO

from argue.app._errors import UsageError
from argue.app._limits import QUESTION_MAX_CHARS
from argue.app._start import check_question


def question_text(
    question: str | None,
    question_file: str | None = None,
    *,
    interactive: bool = False,
    stdin: BinaryIO | None = None,
) -> str:
    """The question: ``question`` itself, or the text of ``question_file`` (``-``: ``stdin``,
    default this process's standard input). Neither, both, or stdin wanted for the question
    and for ``interactive`` notes at once: a ``UsageError``; so is a text that
    :func:`check_question` refuses."""
    if question_file is None:
        if question is None:
            raise UsageError("give a question, or `question_file` PATH ('-' reads stdin)")
        return question
    if question is not None:
        raise UsageError("give either a question or `question_file`, not both")
    if question_file == "-" and interactive:
        raise UsageError(
            "`question_file` - reads stdin, which `interactive` needs for moderator notes"
        )
    return read_question(question_file, stdin=stdin)


def read_question(path: str, *, stdin: BinaryIO | None = None) -> str:
    """The question in the file at ``path`` (``-``: ``stdin``), UTF-8, checked; at most
    4 x :data:`QUESTION_MAX_CHARS` + 1 bytes are ever read."""
    source = "stdin" if path == "-" else path
    limit = 4 * QUESTION_MAX_CHARS
    try:
        if path == "-":
            data = (stdin or sys.stdin.buffer).read(limit + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(limit + 1)
    except OSError as exc:
        raise UsageError(f"cannot read the question from {source}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise UsageError(
            f"{source}: the question is over the limit of {QUESTION_MAX_CHARS:,} characters"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"{source}: the question is not UTF-8 text") from None
    return check_question(text, source)
