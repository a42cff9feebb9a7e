"""Realistic responses, shaped like what each real API sends back."""

from __future__ import annotations

from typing import Any

ATOM_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"
      xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"
      xmlns:arxiv="http://arxiv.org/schemas/atom">
  <link href="http://arxiv.org/api/query?search_query%3Dall%3Adebate" rel="self"
        type="application/atom+xml"/>
  <title type="html">ArXiv Query: search_query=all:debate&amp;id_list=&amp;start=0</title>
  <id>http://arxiv.org/api/cHxbiOdZaP56ODnBPIenZhzg5f8</id>
  <updated>2024-05-01T00:00:00-04:00</updated>
  <opensearch:totalResults>2</opensearch:totalResults>
  <opensearch:startIndex>0</opensearch:startIndex>
  <opensearch:itemsPerPage>2</opensearch:itemsPerPage>
  <entry>
    <id>http://arxiv.org/abs/2101.00001v2</id>
    <updated>2021-02-03T10:00:00Z</updated>
    <published>2021-01-01T18:59:59Z</published>
    <title>Improving Factuality
      through Multiagent   Debate</title>
    <summary>  Large language models that debate each other
  converge on more accurate answers: with a share $0&lt;p&lt;1$ of faulty agents,
  accuracy still rises after $n&gt;2$ rounds.
</summary>
    <author><name>Yilun Du</name></author>
    <author><name>Shuang Li</name></author>
    <author><name>Antonio Torralba</name></author>
    <author><name>Joshua B. Tenenbaum</name></author>
    <arxiv:comment>Project page at composable-models.github.io</arxiv:comment>
    <link href="http://arxiv.org/abs/2101.00001v2" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/2101.00001v2" rel="related"
          type="application/pdf"/>
    <arxiv:primary_category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
  <entry>
    <id>http://arxiv.org/abs/hep-th/9901001v1</id>
    <updated>1999-01-04T00:00:00Z</updated>
    <published>1999-01-04T00:00:00Z</published>
    <title>An Old-Style Identifier Paper</title>
    <summary>Strings, briefly.</summary>
    <author><name>A. Physicist</name></author>
    <link href="http://arxiv.org/abs/hep-th/9901001v1" rel="alternate" type="text/html"/>
    <arxiv:primary_category term="hep-th" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
</feed>
"""

ATOM_EMPTY_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title type="html">ArXiv Query: search_query=all:zzzz</title>
  <id>http://arxiv.org/api/empty</id>
</feed>
"""

ATOM_ERROR_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <entry>
    <id>http://arxiv.org/api/errors#incorrect_id_format_for_1234</id>
    <title>Error</title>
    <summary>incorrect id format for 1234</summary>
  </entry>
</feed>
"""

GITHUB_SEARCH: dict[str, Any] = {
    "total_count": 2,
    "incomplete_results": False,
    "items": [
        {
            "id": 123456,
            "name": "debate-kit",
            "full_name": "octo/debate-kit",
            "html_url": "https://github.com/octo/debate-kit",
            "description": "Tools for structured multi-agent debate",
            "stargazers_count": 4210,
            "language": "Python",
            "pushed_at": "2024-04-30T12:00:00Z",
            "owner": {"login": "octo"},
        },
        {
            "id": 654321,
            "name": "argmin",
            "full_name": "lab/argmin",
            "html_url": "https://github.com/lab/argmin",
            "description": None,
            "stargazers_count": 12,
            "language": None,
            "pushed_at": "2023-01-02T00:00:00Z",
            "owner": {"login": "lab"},
        },
    ],
}

BRAVE_SEARCH: dict[str, Any] = {
    "type": "search",
    "query": {"original": "multiagent debate"},
    "web": {
        "type": "search",
        "results": [
            {
                "title": "Multi-agent <strong>debate</strong> explained",
                "url": "https://example.org/debate-explained",
                "description": (
                    "How <strong>debate</strong> between models\n\n improves   factuality."
                ),
                "age": "2 days ago",
            },
            {
                "title": "Debate Kit on GitHub",
                "url": "https://www.github.com/octo/debate-kit/",
                "description": "The same repository as the GitHub result, seen from the web.",
            },
        ],
    },
}

PERPLEXITY_COMPLETION: dict[str, Any] = {
    "id": "3c90c3cc-0d44-4b50-8888-8dd25736052a",
    "model": "sonar",
    "created": 1714560000,
    "object": "chat.completion",
    "usage": {"prompt_tokens": 14, "completion_tokens": 70, "total_tokens": 84},
    "citations": ["https://example.org/debate-explained", "https://news.example.com/ai-debate"],
    "search_results": [
        {
            "title": "Multi-agent debate explained",
            "url": "https://example.org/debate-explained",
            "date": "2024-04-28",
            "snippet": "Debate between models improves factuality.",
        },
        {
            "title": "AI debate in the news",
            "url": "https://news.example.com/ai-debate",
            "date": "2024-04-29",
        },
    ],
    "choices": [
        {
            "index": 0,
            "finish_reason": "stop",
            "message": {
                "role": "assistant",
                "content": (
                    "Debate between several models tends to improve factual accuracy [1][2]."
                ),
            },
        }
    ],
}

PERPLEXITY_CITATIONS_ONLY: dict[str, Any] = {
    "id": "x",
    "model": "sonar",
    "citations": ["https://a.example.com/one", "https://b.example.com/two"],
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Short answer [1]."}}],
}

YOUTUBE_SEARCH: dict[str, Any] = {
    "kind": "youtube#searchListResponse",
    "etag": "abc",
    "regionCode": "FR",
    "pageInfo": {"totalResults": 2, "resultsPerPage": 2},
    "items": [
        {
            "kind": "youtube#searchResult",
            "etag": "e1",
            "id": {"kind": "youtube#video", "videoId": "dQw4w9WgXcQ"},
            "snippet": {
                "publishedAt": "2023-06-01T15:00:00Z",
                "channelId": "UC1",
                "title": "Why AI debate works &amp; when it doesn&#39;t",
                "description": "A lecture on debate as an alignment technique.",
                "channelTitle": "Lecture Hall",
            },
        },
        {
            "kind": "youtube#searchResult",
            "etag": "e2",
            "id": {"kind": "youtube#video", "videoId": "abcDEF12345"},
            "snippet": {
                "publishedAt": "2024-01-10T09:00:00Z",
                "channelId": "UC2",
                "title": "Debate panel",
                "description": "",
                "channelTitle": "Conf",
            },
        },
    ],
}

YOUTUBE_QUOTA_ERROR: dict[str, Any] = {
    "error": {
        "code": 403,
        "message": "The request cannot be completed because you have exceeded your quota.",
        "errors": [{"message": "quota", "domain": "youtube.quota", "reason": "quotaExceeded"}],
    }
}
