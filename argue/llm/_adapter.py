"""The bases the adapters share: ``complete`` over one abstract ``_send``, and the SDK plumbing.

An adapter sends one call (``_send``: a conversation in, a ``RawReply`` out); ``Adapter`` turns
that into ``ChatModel.complete`` (parsing and the single re-ask, ``argue.llm._structured``). A
reply cut off by the output limit is sent again once with a larger limit; cut off again, it is a
``ModelOutputError`` that says so (not a schema complaint about a half-written answer).
``SDKAdapter`` adds what the two HTTP adapters (anthropic, openai_compat) share: the provider's
connection, the SDK client bound to the running event loop, and one retried, slot-limited call
with the SDK's errors (both SDKs name them alike) in the retry layer's terms.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import json
import socket
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any, ClassVar, Generic, NoReturn, Protocol, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel

from argue.concurrency import cede
from argue.domain import Usage
from argue.llm._batch_route import batch_route
from argue.llm._limits import provider_slots
from argue.llm._retry import (
    CRASH_WORDS,
    EARLIER_CRASH_WORDS,
    RetryPolicy,
    Sleep,
    TransportFailure,
    call_with_retries,
    error_detail,
    one_line,
    sent_before_dropping,
    sent_before_timeout,
    status_failure,
)
from argue.llm._secrets import masked_error
from argue.llm._structured import RawReply, complete_structured
from argue.llm.base import (
    ChatResult,
    Message,
    ModelError,
    ModelOutputError,
    ModelRequestError,
    ModelUnavailableError,
    bill,
    billed_answers,
)
from argue.llm.pricing import PriceTable
from argue.redact import redact, strip_credential_text

T = TypeVar("T", bound=BaseModel)

# A reply cut off by the output limit is sent again once with twice the limit, up to this many
# tokens (a caller that already asked for more is not retried).
TRUNCATION_RETRY_MAX_TOKENS = 16384
# How much of an unexpected body an error message quotes.
UNREADABLE_EXCERPT = 120
# What a 400 says when the model cannot give that many output tokens.
_BUDGET_REJECTION_MARKERS = ("max_tokens", "max_completion_tokens", "max_output_tokens")
# After a dropped connection: how many times, how far apart, and how long each, argue tries to
# connect again to tell a dead server (refused) from a live one that closed this connection.
LISTEN_CHECK_TRIES = 2
LISTEN_CHECK_PAUSE_S = 0.2
LISTEN_CHECK_TIMEOUT_S = 2.0


def larger_budget(max_tokens: int) -> int:
    """The output limit for the one retry after a cut-off reply (``max_tokens`` if none)."""
    return max(max_tokens, min(2 * max_tokens, TRUNCATION_RETRY_MAX_TOKENS))


@dataclass(frozen=True)
class CallSettings:
    """What one ``complete`` asked for, the same for its first call and its re-ask."""

    output: type[BaseModel] | None
    max_tokens: int
    temperature: float | None
    purpose: str | None


class Adapter(abc.ABC):
    """A ``ChatModel`` whose subclass sends one call; this base parses and re-asks."""

    provider: str
    model: str

    cedes_on_the_wire: ClassVar[bool] = False
    """Whether its calls say when their request is on the wire (``argue.concurrency.cede``):
    the caller's send turn then lasts until then; otherwise a call cedes as it starts."""

    output_cap: int | None = None
    """The most output tokens this model is ever asked for (a tiny model's own bound: its
    answers stop there, and a cut-off says so at that limit); None: as each call asks."""

    async def complete(
        self,
        messages: list[Message],
        *,
        output: type[T] | None = None,
        max_tokens: int = 2048,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> ChatResult[T]:
        if self.output_cap is not None:
            max_tokens = min(max_tokens, self.output_cap)
        call = CallSettings(output, max_tokens, temperature, purpose)

        async def send(conversation: list[Message]) -> RawReply:
            return await self._send_uncut(conversation, call)

        return await complete_structured(
            send,
            messages,
            output,
            provider=self.provider,
            purpose=purpose,
            secrets=self._secrets(),
        )

    @abc.abstractmethod
    async def _send(self, conversation: list[Message], call: CallSettings) -> RawReply:
        """One model call (a re-ask is a call of its own)."""

    async def _send_uncut(self, conversation: list[Message], call: CallSettings) -> RawReply:
        """``_send``; a reply cut off by the output limit is sent once more with a larger one."""
        reply = await self._send(conversation, call)
        if not reply.truncated:
            return reply
        if reply.context_cut is not None:
            self._raise_cut_off(reply, call, reply.context_cut.describe())
        limit, retried = call.max_tokens, False
        bigger = larger_budget(limit)
        if self.output_cap is not None:
            bigger = min(bigger, self.output_cap)
        if bigger > limit:
            try:
                again = await self._send(conversation, replace(call, max_tokens=bigger))
            except ModelRequestError as error:
                # The model cannot give that many tokens: the first cut-off is the answer.
                lowered = str(error).lower()
                if error.status_code != 400 or not any(
                    marker in lowered for marker in _BUDGET_REJECTION_MARKERS
                ):
                    bill(error, reply.answers, call.purpose)  # the cut-off answer was billed
                    raise
            except ModelError as error:
                bill(error, reply.answers, call.purpose)  # the cut-off answer was billed
                raise
            else:
                reply = RawReply(
                    text=again.text,
                    usage=reply.usage + again.usage,
                    truncated=again.truncated,
                    context_cut=again.context_cut,
                    answers=[*reply.answers, *again.answers],
                )
                limit, retried = bigger, True
                if not reply.truncated:
                    return reply
                if reply.context_cut is not None:
                    self._raise_cut_off(
                        reply,
                        call,
                        f"cut off at {call.max_tokens} tokens (the output limit), then, on one "
                        f"retry with a larger limit, {reply.context_cut.describe()}",
                    )
        message = f"the answer was cut off at {call.max_tokens} tokens (the output limit)"
        if retried:
            message += f" and again at {limit} on one retry with a larger limit"
        self._raise_cut_off(reply, call, message)

    def _raise_cut_off(self, reply: RawReply, call: CallSettings, message: str) -> NoReturn:
        if not reply.text.strip():
            message += "; no answer text came back (reasoning may have used the whole budget)"
        failure = masked_error(
            ModelOutputError, self.provider, message, secrets=self._secrets(), cause="cut_off"
        )
        # The tokens were spent even though the answer is unusable: keep the bill with the error.
        bill(failure, reply.answers, call.purpose)
        failure.raw_text = reply.text  # type: ignore[attr-defined]
        raise failure

    def _secrets(self) -> Sequence[str | None]:
        """What error messages must never show."""
        return ()


class _Client(Protocol):
    async def close(self) -> None: ...


ClientT = TypeVar("ClientT", bound=_Client)
ClientT_co = TypeVar("ClientT_co", bound=_Client, covariant=True)
ResponseT = TypeVar("ResponseT")


class Connection(Protocol[ClientT_co]):
    """A provider (``argue.llm._providers``): where the API lives, how to authenticate."""

    @property
    def name(self) -> str: ...
    @property
    def base_url(self) -> str: ...
    @property
    def api_key(self) -> str: ...
    @property
    def key_env(self) -> str: ...
    def client(self, timeout_s: float) -> ClientT_co: ...


ConnectionT = TypeVar("ConnectionT", bound=Connection[Any])


class SDKAdapter(Adapter, Generic[ConnectionT, ClientT, ResponseT]):
    """An adapter that speaks HTTP through a vendor SDK client (``_attempt``: one SDK call)."""

    cedes_on_the_wire: ClassVar[bool] = True  # its clients carry the cede_on_the_wire hook

    def __init__(
        self,
        model: str,
        provider: ConnectionT,
        retry: RetryPolicy | None,
        max_concurrency: int,
        sleep: Sleep,
        prices: PriceTable | None,
        clock: Callable[[], float],
    ) -> None:
        self.provider = provider.name
        self.model = model
        self._connection = provider
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        self._prices = prices or PriceTable()
        self._clock = clock
        self.max_concurrency = max_concurrency
        self._client: ClientT | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        # Set when a call found the server dead; a later call that cannot connect says so too.
        self._server_died = False

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def _secrets(self) -> Sequence[str | None]:
        return [self._connection.api_key]

    def _client_for_running_loop(self) -> ClientT:
        """The SDK client; a new one in a new event loop (its connection pool is loop-bound)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            self._client = self._connection.client(self._retry.request_timeout_s)
            self._client_loop = loop
        return self._client

    async def _call(self, request: dict[str, Any]) -> tuple[ResponseT, float, list[Usage]]:
        """``request`` sent with retries inside a provider slot: the response, its latency (s),
        and one Usage per earlier attempt that reached the server and got no answer: it timed
        out after it was sent, or the server closed or reset the connection after reading it
        (``unanswered``: no tokens, ``possibly_billed_calls`` 1, since the provider may have
        computed and billed it). A caller puts those before its answer's Usage
        (``with_unanswered``); when the call fails they are billed to the error.

        Each attempt carries its own ``timeout`` (the policy's, cut to the call's budget left).

        Inside a batch route (``argue.llm._batch_route``: ``argue eval --batch``) the same request
        goes into the provider's batch engine instead, and its answer comes back as the same
        response object: building the request and reading the reply stay the adapter's own."""
        route = batch_route()
        if route is not None:
            started = self._clock()
            cede()  # the request waits for its batch: the next call may be built
            response = await route.send(self, request)
            return response, self._clock() - started, []
        client = self._client_for_running_loop()
        unreadable: list[TransportFailure] = []
        last: list[TransportFailure] = []
        unanswered: list[Usage] = []

        async def attempt(timeout_s: float) -> ResponseT:
            sent_at = self._clock()
            try:
                return await self._attempt(client, {**request, "timeout": timeout_s})
            except TransportFailure as failure:
                last[:] = [failure]
                if failure.possibly_billed:  # sent, then no answer: each such attempt counts
                    unanswered.append(self._unanswered(self._clock() - sent_at))
                if failure.kind == "unreadable":  # a 2xx came back: the server answered
                    unreadable.append(failure)
                if failure.kind == "dropped" and await refuses_connections(
                    self._connection.base_url
                ):
                    # Dropped mid-answer, and now nothing listens: the process died (llama.cpp
                    # built with miscompiled AMX code dies so on its first batch; see
                    # argue/_llama_build.py). Not a rejection of the request, not an outage.
                    self._server_died = True
                    raise TransportFailure(
                        "crashed",
                        detail="the server closed the connection without answering, then "
                        f"refused the next connection: {CRASH_WORDS}",
                    ) from None
                if failure.kind == "dropped" and carries_schema(request):
                    # llama.cpp servers have died compiling a large schema into a grammar:
                    # sending it again would kill the server again. A rejection, not an outage.
                    failure.deterministic = True
                    failure.detail += (
                        " on a request carrying a JSON schema (the server may have failed on "
                        "the schema's grammar)"
                    )
                raise

        slots = provider_slots(self.provider, self.max_concurrency)
        if slots.locked():
            cede()  # waiting for a slot: the next call may be built meanwhile
        async with slots:
            started = self._clock()
            try:
                response = await call_with_retries(
                    attempt,
                    provider=self.provider,
                    endpoint=self._connection.base_url,
                    policy=self._retry,
                    sleep=self._sleep,
                    clock=self._clock,
                    auth_hint=self._connection.key_env,
                    secrets=self._secrets(),
                )
            except ModelError as error:
                if self._server_died and last and last[0].kind == "connection":
                    # Nothing has listened since the server died answering an earlier call.
                    said = str(error).removeprefix(f"{self.provider}: ")
                    error = masked_error(
                        ModelUnavailableError,
                        self.provider,
                        f"{said}; nothing has listened there since {EARLIER_CRASH_WORDS}",
                        secrets=self._secrets(),
                        cause="crashed",
                    )
                if unreadable:
                    # An answer whose tokens (and so whose cost) nobody can read: count it as
                    # a call of unknown cost rather than as no call at all.
                    answer = Usage(
                        provider=self.provider,
                        model=self.model,
                        latency_s=self._clock() - started,
                        calls=len(unreadable),
                    )
                    bill(error, [self._prices.price(answer, tokens_known=False)])
                if unanswered:
                    bill(error, unanswered)  # sent, never answered: possibly billed
                if error.cause == "crashed":
                    raise error from None
                raise
            self._server_died = False  # it answers again (restarted)
            return response, self._clock() - started, unanswered

    def _unanswered(self, waited_s: float) -> Usage:
        """A request sent whose answer never came (timed out, or its connection dropped): maybe
        computed and billed, at a cost nobody can read. Not "unpriced" (its price is known, its
        tokens are not)."""
        return Usage(
            provider=self.provider,
            model=self.model,
            latency_s=waited_s,
            possibly_billed_calls=1,
        )

    @abc.abstractmethod
    async def _attempt(self, client: ClientT, request: dict[str, Any]) -> ResponseT:
        """One SDK call, its errors translated by ``_sdk_failures``; a 2xx body that is not the
        expected response is a ``TransportFailure("unreadable")`` too."""

    def _checked_response(self, response: object) -> ResponseT:
        """``response`` when it is the API's reply, else ``TransportFailure("unreadable")``;
        an adapter with a batch engine (``argue.llm._batch``) reads its batch answers so."""
        raise TransportFailure("unreadable", detail=f"{self.provider} has no batch engine")

    @contextlib.contextmanager
    def _sdk_failures(self, sdk: ModuleType, timeout_s: float) -> Iterator[None]:
        """The SDK's errors as the retry layer's (``status_failure``, ``TransportFailure``)."""
        try:
            yield
        except sdk.APIStatusError as error:
            raise status_failure(error.status_code, error.response.headers, error.body) from None
        except sdk.APITimeoutError as error:
            raise TransportFailure(
                "timeout",
                detail=f"no answer within {timeout_s:g} s",
                possibly_billed=sent_before_timeout(error),
            ) from None
        except sdk.APIConnectionError as error:
            if _dropped_mid_request(error):
                raise TransportFailure(
                    "dropped",
                    detail="the server closed the connection without answering",
                    possibly_billed=True,
                ) from None
            raise TransportFailure(
                "connection",
                detail=f"connection failed ({error.__cause__ or error})",
                possibly_billed=sent_before_dropping(error),  # a reset after sending: ReadError
            ) from None
        except sdk.APIResponseValidationError as error:
            raise TransportFailure("unreadable", detail=error.message) from None
        except json.JSONDecodeError as error:  # a 2xx claiming JSON that is not
            raise TransportFailure(
                "unreadable", detail=f"HTTP 200, body is not valid JSON ({error.msg})"
            ) from None


def with_unanswered(reply: RawReply, unanswered: list[Usage]) -> RawReply:
    """``reply`` with the unanswered attempts before it (``SDKAdapter._call``: timed out or
    dropped after sending) as answers of its own: possibly billed, so counted. Also the rows
    billed to the rejections an adapter adapted to before this reply (``EarlierBills``)."""
    if not unanswered:
        return reply
    answers = [*unanswered, *reply.answers]
    total = answers[0]
    for answer in answers[1:]:
        total = total + answer
    return replace(reply, usage=total, answers=answers)


class EarlierBills:
    """The rows billed to the errors one ``_send`` recovered from (a rejection it adapted to
    and sent again after: another dialect, no temperature; a dropped attempt possibly billed
    among them), so that they stay counted: before the reply that came at last (``before``),
    or on the error that ended the call (inside ``kept``)."""

    def __init__(self) -> None:
        self.rows: list[Usage] = []

    def recovered_from(self, error: BaseException) -> None:
        self.rows.extend(billed_answers(error))

    def before(self, reply: RawReply) -> RawReply:
        return with_unanswered(reply, self.rows)

    @contextlib.contextmanager
    def kept(self) -> Iterator[None]:
        try:
            yield
        except ModelError as error:
            bill(error, self.rows)
            raise


def carries_schema(request: dict[str, Any]) -> bool:
    """A request whose structured-output field holds a schema (OpenAI-style or Ollama's own)."""
    response_format = request.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") != "text":
        return True
    return isinstance(request.get("format"), dict)


async def refuses_connections(base_url: str) -> bool:
    """Whether the server at ``base_url`` now refuses connections: every address its host
    resolves to answers a connect with "connection refused", nothing listens on its port. Asked
    after a dropped connection, True means the process that was answering died. False when a
    connect is accepted, and whenever it cannot be told (a proxy in between, a name that does
    not resolve, no answer in time): only a refusal is taken for a crash."""
    parts = urlsplit(base_url)
    host = parts.hostname
    if not host:
        return False
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    proxies = urllib.request.getproxies_environment()
    if (proxies.get(parts.scheme) or proxies.get("all")) and not (
        # typeshed leaves out this (undocumented, every-platform) function of urllib.request
        urllib.request.proxy_bypass_environment(host, proxies)  # type: ignore[attr-defined]
    ):
        return False  # argue's connections go through the proxy, not to the server itself
    loop = asyncio.get_running_loop()
    for attempt in range(LISTEN_CHECK_TRIES):
        if attempt:
            await asyncio.sleep(LISTEN_CHECK_PAUSE_S)
        try:
            addresses = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError:
            return False
        refused = 0
        for family, kind, proto, _, address in addresses:
            with socket.socket(family, kind, proto) as probe:
                probe.setblocking(False)
                try:
                    await asyncio.wait_for(
                        loop.sock_connect(probe, address), LISTEN_CHECK_TIMEOUT_S
                    )
                except ConnectionRefusedError:
                    refused += 1
                except (OSError, TimeoutError):
                    return False
                else:
                    break  # something listens: maybe the listener of a process still dying
        if addresses and refused == len(addresses):
            return True
    return False


def _dropped_mid_request(error: BaseException) -> bool:
    """A connection the server closed after taking the request (httpx's RemoteProtocolError:
    "Server disconnected without sending a response"), not one it never accepted."""
    seen: BaseException | None = error
    for _ in range(6):
        if seen is None:
            return False
        if type(seen).__name__ == "RemoteProtocolError":
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def sdk_body(request: dict[str, Any]) -> dict[str, Any]:
    """The JSON body an SDK sends for ``request`` (an adapter's keyword arguments to its SDK
    call): the client-side ``timeout`` left out, ``extra_body`` merged in."""
    body = {k: v for k, v in request.items() if k not in ("timeout", "extra_body")}
    body.update(request.get("extra_body") or {})
    return body


def unreadable_body(response: object, expected: str, missing: str) -> TransportFailure:
    """A 2xx whose body is not ``expected`` (an HTML page, an ``{"error": …}`` object, a reply
    without its ``missing`` part), as the retry layer's "unreadable" failure."""
    extra = getattr(response, "model_extra", None) or {}
    error = extra.get("error") if isinstance(extra, dict) else None
    if error is not None:
        said = error_detail({"error": error}, fallback=strip_credential_text(str(error)))
        return TransportFailure("unreadable", detail=f"HTTP 200 carrying an error: {said}")
    if isinstance(response, BaseModel):
        return TransportFailure("unreadable", detail=f"HTTP 200, not {expected} ({missing})")
    text = response.decode(errors="replace") if isinstance(response, bytes) else str(response)
    text = redact(strip_credential_text(text))  # masked before the excerpt is cut
    return TransportFailure(
        "unreadable", detail=f"HTTP 200, not {expected}: {one_line(text, UNREADABLE_EXCERPT)}"
    )


def alternating_turns(messages: list[Message]) -> list[dict[str, str]]:
    """User/assistant turns, system messages left out and consecutive same-role ones merged
    (APIs and chat templates that want strictly alternating turns)."""
    turns: list[dict[str, str]] = []
    for message in messages:
        if message.role == "system":
            continue
        if turns and turns[-1]["role"] == message.role:
            turns[-1]["content"] += "\n\n" + message.content
        else:
            turns.append({"role": message.role, "content": message.content})
    return turns


def alternating_blocks(
    messages: list[Message],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``alternating_turns`` with each message kept as a text block of its own, for APIs whose
    content is a list of blocks (Anthropic): a cache breakpoint can then sit exactly after a
    ``cache_point`` message's text. Returns the turns and the blocks that end at a cache point,
    in order. An empty message adds no block of its own (APIs refuse empty text blocks) unless
    its turn has none yet; an empty message's cache point falls on the block before it."""
    turns: list[dict[str, Any]] = []
    flagged: list[dict[str, Any]] = []
    last_block: dict[str, Any] | None = None
    for message in messages:
        if message.role == "system":
            continue
        block: dict[str, Any] | None = {"type": "text", "text": message.content}
        if turns and turns[-1]["role"] == message.role:
            if message.content:
                turns[-1]["content"].append(block)
            else:
                block = last_block
        else:
            turns.append({"role": message.role, "content": [block]})
        last_block = block
        if message.cache_point and block is not None and not any(b is block for b in flagged):
            flagged.append(block)
    return turns, flagged


def has_cache_point(messages: list[Message]) -> bool:
    return any(message.cache_point for message in messages)


def cached_prefix_chars(messages: list[Message]) -> int:
    """How many characters a provider could cache for this request: every system message (the
    adapters send them first), then the other messages up to the last ``cache_point``; 0 when
    there is no cache point."""
    flagged = [index for index, message in enumerate(messages) if message.cache_point]
    if not flagged:
        return 0
    system = sum(len(m.content) for m in messages if m.role == "system")
    return system + sum(len(m.content) for m in messages[: flagged[-1] + 1] if m.role != "system")


def with_text_last(messages: list[Message], text: str) -> list[Message]:
    """``messages`` with ``text`` at the very end, after the last cache point, where it leaves
    the stable prefix alone: joined by a blank line to the last message when that is the user's
    (so no second user turn follows it; the joined message carries no cache point, since its
    text now runs past one), else a user message of its own."""
    if messages and messages[-1].role == "user":
        last = messages[-1]
        joined = f"{last.content}\n\n{text}" if last.content else text
        return [*messages[:-1], Message(role="user", content=joined)]
    return [*messages, Message(role="user", content=text)]
