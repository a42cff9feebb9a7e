"""The JSON each research source sends back, stated as pydantic models.

A payload that does not fit fails with one line naming the source and the first field that is
wrong, e.g. ``github: unexpected response shape: items.0.html_url: Input should be a valid
string``. Fields argue only decorates snippets with (stars, dates, channel names) are
``Loose``: a wrong type there drops the decoration instead of failing the search.
arXiv answers in Atom XML and is parsed in ``arxiv.py``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)

from argue.skills.dogpile.sources._http import SourceError

ShapeT = TypeVar("ShapeT", bound="Shape")
T = TypeVar("T")


class Shape(BaseModel):
    """Strict (no coercion of ``5`` into ``"5"``); unknown fields are ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


def _or_none(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    try:
        return handler(value)
    except ValidationError:
        return None


Loose = Annotated[T | None, WrapValidator(_or_none)]


def _web_url(value: str) -> str:
    if not value.startswith(("http://", "https://")):
        raise ValueError("not an http(s) URL")
    return value


WebUrl = Annotated[str, AfterValidator(_web_url)]


def describe(error: ValidationError) -> str:
    """The first problem as ``field.path: message`` (the rest only counted)."""
    problems = error.errors(include_url=False)
    first = problems[0]
    where = ".".join(str(part) for part in first["loc"]) or "response"
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] in ("model_type", "model_attributes_type", "dict_type"):
        message = f"expected a JSON object, got {_json_type(first['input'])}"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{where}: {message}{more}"


def _json_type(value: Any) -> str:
    names = {list: "array", str: "string", bool: "boolean", int: "number", float: "number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def shape_error(source: str, detail: str) -> SourceError:
    return SourceError(f"{source}: unexpected response shape: {detail}")


def parse_shape(source: str, model: type[ShapeT], payload: Any) -> ShapeT:
    try:
        return model.model_validate(payload)
    except ValidationError as error:
        raise shape_error(source, describe(error)) from None


# --- GitHub: GET /search/repositories ---------------------------------------------------------


def _owner_slash_name(value: str) -> str:
    if "/" not in value:
        raise ValueError("expected owner/name")
    return value


class GitHubRepo(Shape):
    full_name: Annotated[str, AfterValidator(_owner_slash_name)]
    html_url: str
    description: Loose[str] = None
    stargazers_count: Loose[int] = None
    language: Loose[str] = None
    pushed_at: Loose[str] = None


class GitHubSearch(Shape):
    items: list[GitHubRepo]


# --- Brave: GET /res/v1/web/search -----------------------------------------------------------


class BraveResult(Shape):
    url: WebUrl
    title: Loose[str] = None
    description: Loose[str] = None


class BraveWeb(Shape):
    results: list[BraveResult]


class BraveSearch(Shape):
    type: Loose[str] = None
    # Brave leaves out the "web" section when nothing matched (then ``type`` is "search").
    web: BraveWeb | None = None


# --- Perplexity: POST /chat/completions ------------------------------------------------------


def _falsy_is_none(value: Any) -> Any:
    return value or None


class PerplexityMessage(Shape):
    content: str


class PerplexityChoice(Shape):
    message: PerplexityMessage


class PerplexitySearchResult(Shape):
    url: WebUrl
    title: Loose[str] = None
    snippet: Loose[str] = None
    date: Loose[str] = None


class PerplexityCompletion(Shape):
    choices: Annotated[list[PerplexityChoice], Field(min_length=1)]
    search_results: Annotated[
        list[PerplexitySearchResult] | None, BeforeValidator(_falsy_is_none)
    ] = None
    # Older payloads: bare cited URLs, used only when there are no search results.
    citations: Annotated[list[WebUrl] | None, BeforeValidator(_falsy_is_none)] = None

    @model_validator(mode="before")
    @classmethod
    def _citations_only_without_results(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("search_results"):
            return {key: value for key, value in data.items() if key != "citations"}
        return data


# --- YouTube Data API v3: GET /search --------------------------------------------------------

_VIDEO_ID = re.compile(r"^[A-Za-z0-9_-]{6,20}$")


def _video_id(value: str) -> str:
    if not _VIDEO_ID.match(value):
        raise ValueError("not a YouTube video id")
    return value


class YouTubeVideoRef(Shape):
    videoId: Annotated[str, AfterValidator(_video_id)]


class YouTubeSnippet(Shape):
    title: Loose[str] = None
    description: Loose[str] = None
    channelTitle: Loose[str] = None
    publishedAt: Loose[str] = None


class YouTubeVideo(Shape):
    id: YouTubeVideoRef
    snippet: YouTubeSnippet


class YouTubeSearch(Shape):
    items: list[YouTubeVideo]
