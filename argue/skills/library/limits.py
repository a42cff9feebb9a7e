"""How much one file may cost ``library add``: its size, what it expands to, its pages, its time.

Every limit has a default and an environment variable (``ENV_NAMES``); a file over a limit is
refused with one line naming the file, the limit and its variable::

    book.epub: refused: decompressed size exceeds 200 MB (ARGUE_LIBRARY_MAX_UNZIPPED_MB)

Sizes are in MB of 2^20 bytes. The time budget is checked between steps (each 1 MB of text,
each PDF page, each EPUB chapter block, every few chunks), so one step can overrun it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from argue.skills.library.models import LibraryError

MB = 1024 * 1024
ENV_NAMES: dict[str, str] = {
    "max_file_mb": "ARGUE_LIBRARY_MAX_FILE_MB",
    "max_unzipped_mb": "ARGUE_LIBRARY_MAX_UNZIPPED_MB",
    "max_entry_mb": "ARGUE_LIBRARY_MAX_ENTRY_MB",
    "max_entries": "ARGUE_LIBRARY_MAX_ENTRIES",
    "max_zip_ratio": "ARGUE_LIBRARY_MAX_ZIP_RATIO",
    "max_pages": "ARGUE_LIBRARY_MAX_PAGES",
    "max_seconds": "ARGUE_LIBRARY_MAX_SECONDS",
    "max_chunks": "ARGUE_LIBRARY_MAX_CHUNKS",
    "max_subtitle_line_chars": "ARGUE_LIBRARY_MAX_SUBTITLE_LINE_CHARS",
}
# Not a setting: no EPUB needs longer entry names, and the zip format allows 65,535 bytes.
MAX_ENTRY_NAME_CHARS = 1024
# The compression ratio is only checked past this size: small entries (a page of spaces) may
# compress far better than any book.
RATIO_CHECKED_FROM_BYTES = MB
# The clock of every budget; a test may replace it.
clock: Callable[[], float] = time.monotonic


def megabytes(size_bytes: int) -> str:
    return f"{size_bytes / MB:.3g} MB"


class LimitExceeded(LibraryError):
    """A file refused because it is over one of the ``IngestLimits``."""


class IngestLimits(BaseModel):
    """What one file may cost; ``from_env`` reads each limit from its variable in ENV_NAMES."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_file_mb: float = Field(
        default=100, gt=0, allow_inf_nan=False, description="Size of any file, before it is read"
    )
    max_unzipped_mb: float = Field(
        default=200,
        gt=0,
        allow_inf_nan=False,
        description="EPUB: all entries, decompressed (as declared, and as actually read)",
    )
    max_entry_mb: float = Field(
        default=32, gt=0, allow_inf_nan=False, description="EPUB: one entry, decompressed"
    )
    max_entries: int = Field(default=10_000, gt=0, description="EPUB: entries in the zip")
    max_zip_ratio: float = Field(
        default=100,
        gt=1,
        allow_inf_nan=False,
        description="EPUB: decompressed / compressed size of an entry over 1 MB",
    )
    max_pages: int = Field(default=2_000, gt=0, description="PDF: pages")
    max_seconds: float = Field(
        default=60, gt=0, allow_inf_nan=False, description="Time to parse one file"
    )
    max_chunks: int = Field(default=200_000, gt=0, description="Chunks from one file")
    max_subtitle_line_chars: int = Field(
        default=100_000,
        gt=0,
        description="SRT/VTT: one line (text and Markdown lines of any length are chunked)",
    )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Self:
        """The defaults, overridden by the variables that are set; LibraryError names a bad one."""
        source = os.environ if env is None else env
        values = {
            field: source[name].strip()
            for field, name in ENV_NAMES.items()
            if source.get(name, "").strip()
        }
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            error = exc.errors()[0]
            field = str(error["loc"][0])
            raise LibraryError(
                f"{ENV_NAMES[field]}={values.get(field, '')!r} is not valid: {error['msg']}"
            ) from None

    def max_bytes(self, field: str) -> int:
        megabytes: float = getattr(self, field)
        return int(megabytes * MB)

    def shown(self, field: str) -> str:
        """A limit as the user sets it: ``100 MB``, ``2000``, ``60 s``."""
        value = getattr(self, field)
        if field.endswith("_mb"):
            return f"{value:g} MB"
        if field == "max_seconds":
            return f"{value:g} s"
        return f"{value:g}" if isinstance(value, float) else str(value)


class IngestBudget:
    """One file being parsed: its name, its limits, when it started, the chunks made so far."""

    def __init__(self, name: str, limits: IngestLimits) -> None:
        self.name = name
        self.limits = limits
        self.chunks = 0
        self._started = clock()

    def refusal(self, what: str, field: str) -> LimitExceeded:
        """``<file>: refused: <what> (<VARIABLE>)``, ``what`` saying which limit was passed."""
        return LimitExceeded(f"{self.name}: refused: {what} ({ENV_NAMES[field]})")

    def over(self, what: str, field: str) -> LimitExceeded:
        """``<file>: refused: <what> exceeds <limit> (<VARIABLE>)``."""
        return self.refusal(f"{what} exceeds {self.limits.shown(field)}", field)

    def check_time(self) -> None:
        if clock() - self._started > self.limits.max_seconds:
            raise self.refusal(
                f"parsing took longer than {self.limits.shown('max_seconds')}", "max_seconds"
            )

    def count_chunk(self) -> None:
        self.chunks += 1
        if self.chunks > self.limits.max_chunks:
            raise self.over("number of chunks", "max_chunks")
        if self.chunks % 256 == 0:
            self.check_time()

    def restart(self) -> None:
        """The file is read again from the start (in another encoding): its chunks start over."""
        self.chunks = 0
