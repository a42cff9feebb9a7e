"""A request body from outside (``argue serve``'s POSTs): parsed with the same bounds as every
JSON file argue reads (``argue.files``: nesting at most 64 deep, by a linear scan
before the parser sees it), UTF-8, one JSON object. Each refusal is a ``UsageError``, one line
(the server answers it with a 400)."""

from __future__ import annotations

from typing import Any

from argue.app._errors import UsageError


def json_object_body(body: bytes, *, max_bytes: int) -> dict[str, Any]:
    """``body`` as a JSON object (an empty body: ``{}``)."""
    from argue.files import MAX_DEPTH, BoundedReadError, loads_json

    if len(body) > max_bytes:
        raise UsageError(f"the request is over {max_bytes:,} bytes")
    if not body:
        return {}
    try:
        data = loads_json(body, "the request")
    except BoundedReadError:
        raise UsageError(f"the request is nested over the limit of {MAX_DEPTH}") from None
    except UnicodeDecodeError:
        raise UsageError("the request is not UTF-8") from None
    except (ValueError, RecursionError):  # a syntax error, a number past the digit limit
        raise UsageError("the request is not JSON") from None
    if not isinstance(data, dict):
        raise UsageError("the request is not a JSON object")
    return data
