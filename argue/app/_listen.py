"""Where ``argue serve`` may listen: loopback unless the caller allows other machines, since
anyone who reaches the page with its URL can read, stop and steer the debates."""

from __future__ import annotations

import ipaddress

from argue.app._errors import UsageError


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and the name localhost; anything else reaches other machines."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def listen_error(host: str, *, allow_remote: bool) -> UsageError | None:
    """Why serving on ``host`` is refused (not loopback and ``allow_remote`` not given), as the
    error to raise; None when it may listen there."""
    if is_loopback(host) or allow_remote:
        return None
    return UsageError(
        f"`host` {host} is not a loopback address: other machines could reach the page; "
        "pass `allow_remote` to serve there anyway",
        field="host",
    )
