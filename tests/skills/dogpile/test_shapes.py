"""Payload shapes: decoration fields tolerate a wrong type, required fields name themselves."""

from __future__ import annotations

import pytest

from argue.skills.dogpile.sources import github, perplexity, youtube
from argue.skills.dogpile.sources._http import SourceError


def test_wrong_type_in_a_decoration_field_drops_only_the_decoration() -> None:
    repo = {
        "full_name": "a/b",
        "html_url": "https://github.com/a/b",
        "stargazers_count": "many",  # not an int: no star count, no failure
        "language": 7,
        "pushed_at": "2025-03-01T00:00:00Z",
        "description": None,
    }
    [item] = github.parse_repositories({"items": [repo]})
    assert item.snippet == "(last push 2025-03-01)"


def test_strings_are_not_coerced_into_required_fields() -> None:
    with pytest.raises(SourceError) as raised:
        github.parse_repositories({"items": [{"full_name": "a/b", "html_url": 12}]})
    assert str(raised.value) == (
        "github: unexpected response shape: items.0.html_url: Input should be a valid string"
    )


def test_youtube_published_date_of_wrong_type_is_ignored() -> None:
    payload = {
        "items": [
            {
                "id": {"videoId": "dQw4w9WgXcQ"},
                "snippet": {"title": "T", "channelTitle": "C", "publishedAt": 2020},
            }
        ]
    }
    [item] = youtube.parse_videos(payload)
    assert item.snippet == "C:"


def test_perplexity_citations_are_ignored_when_search_results_are_given() -> None:
    payload = {
        "choices": [{"message": {"content": "answer"}}],
        "search_results": [{"url": "https://a.example", "title": "A"}],
        "citations": "not a list, but unused",
    }
    items = perplexity.parse_completion("q", payload)
    assert [item.url for item in items] == [None, "https://a.example"]
