"""Secrets in every form: a model server that echoes its request's credentials in its error
bodies (401 and 500, JSON and plain text) gets none of them back into anything argue prints or
writes: stdout/stderr, every file under the debates folder (state, failures, rounds, transcript,
synthesis, report, eval records) and ARGUE_HOME, ``argue doctor --json``, the MCP tools'
answers. The forms checked, each computed here independently of ``argue.redact``: literal,
base64 (standard and URL-safe, with and without padding: ``Basic <b64(user:pass)>``),
percent-encoded (``quote`` and ``quote_plus``), JSON-escaped and HTML-escaped, of the URL
password, of the ``user:password`` pair and of the API key; and a credential header argue does
not know (a proxy's cookie) is stripped from the server's words.

Teeth (each checked once: the named tests failed, then the code was restored):
- ``secret_forms`` in argue/redact.py without the base64 forms: the base64, alignment, pair,
  cut and both end-to-end tests (``dXNlcjpzM2NyM3QtcGFzcw==`` in stderr, failures.json, ...).
- without the percent-encoded forms: the percent and pair unit tests, the bearer end-to-end.
- without the JSON escapes: the JSON unit test and the bearer end-to-end (``\\"k\\"``).
- ``_secret_values`` without the ``user:password`` pair: the pair, base64, percent, JSON and
  cut unit tests. The end-to-end tests still pass then: the password's own forms (its base64
  at each alignment, its literal inside ``user%3As3cr3t-pass``) break up every form checked.
- no header stripping (``error_detail`` in argue/llm/_retry.py and ``masked_error``): the
  error-body unit test and both end-to-end tests (the proxy's cookie).
- ``error_detail`` masking after the excerpt is cut instead of before: the cut test.
- ``_secrets_pattern`` without its escaped trie (issue 39): the pair test and both
  end-to-end tests (the every-character ``\\uXXXX``, ``&#NN;`` and ``&#xNN;`` echoes in
  stderr, report.html, …).
What is not covered: a secret the server transforms in a way no encoding above produces
(hashed, reversed, split by line breaks inside a base64 block);
the part of a base64 blob around a secret (a few characters at each end encode the secret's
neighbours together with a few of its bits) stays; and values shorter than 8 characters are
not masked at all (``MIN_SECRET_LENGTH``). The debate folder's records (state, rounds,
transcript, synthesis) are clean because every error text is masked where it is made
(``masked_error``, ``error_detail``, the failure records); the store's writes themselves do not
pass through ``redact`` (report.html, eval records and MCP answers do), so a model's own answer
quoting a secret would reach them.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from argue.redact import MASK, redact, strip_credential_headers
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.harness import QUESTION, Cli
from tests.loopback import RecordedRequest, Reply

USER = "user"
PASSWORD = "s3cr3t-pass"
PAIR = f"{USER}:{PASSWORD}"
# JSON and HTML escape some of its characters: a form that differs from the literal.
KEY = 'sk-canary/"k"\\0123456789'
COOKIE = "session=proxy-session-cookie-777"  # a proxy's credential argue never knew
ENV = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": f"http://{PAIR}@127.0.0.1:9/v1"}


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode()


def forms(secret: str) -> dict[str, str]:
    """Each way a server may write ``secret``, by name."""
    return {
        "literal": secret,
        "base64": b64(secret),
        "base64 unpadded": b64(secret).rstrip("="),
        "urlsafe base64": b64url(secret),
        "urlsafe base64 unpadded": b64url(secret).rstrip("="),
        "percent-encoded": quote(secret, safe=""),
        "percent-encoded (plus)": quote_plus(secret),
        "json-escaped": json.dumps(secret)[1:-1],
        "html-escaped": html.escape(secret),
        "go-escaped": go_escaped(secret),
        "every character u-escaped": "".join(f"\\u{ord(c):04x}" for c in secret),
        "every character &#NN;": "".join(f"&#{ord(c)};" for c in secret),
        "every character &#xNN;": "".join(f"&#x{ord(c):X};" for c in secret),
    }


def go_escaped(secret: str) -> str:
    """Go's encoding/json (and JS's safe JSON): ``&``, ``<``, ``>`` as ``\\u0026``…"""
    escaped = json.dumps(secret)[1:-1]
    for char in "&<>":
        escaped = escaped.replace(char, f"\\u{ord(char):04x}")
    return escaped


CANARIES = {
    f"{what} {form}": value
    for what, secret in (("password", PASSWORD), ("pair", PAIR), ("key", KEY))
    for form, value in forms(secret).items()
} | {"cookie": "proxy-session-cookie-777"}


def leaks(text: str) -> list[str]:
    return [name for name, value in CANARIES.items() if value in text]


# ----------------------------------------------------------------------------- redact()


@pytest.mark.parametrize("secret", [PASSWORD, PAIR, KEY])
@pytest.mark.parametrize(
    "form", ["base64", "base64 unpadded", "urlsafe base64", "urlsafe base64 unpadded"]
)
def test_base64_forms_are_masked(secret: str, form: str):
    value = forms(secret)[form]
    assert redact(f"Authorization: Basic {value}!", env=ENV) == f"Authorization: Basic {MASK}!"


@pytest.mark.parametrize("form", ["percent-encoded", "percent-encoded (plus)"])
@pytest.mark.parametrize("secret", [PASSWORD, PAIR, KEY])
def test_percent_encoded_forms_are_masked(secret: str, form: str):
    value = forms(secret)[form]
    assert redact(f"?auth={value}&x=1", env=ENV) == f"?auth={MASK}&x=1"
    assert redact(f"?auth={value.lower()}&x=1", env=ENV) == f"?auth={MASK}&x=1"


def test_json_and_html_escaped_forms_are_masked():
    for secret in (PASSWORD, PAIR, KEY):
        assert redact(json.dumps({"seen": secret}), env=ENV) == json.dumps({"seen": MASK})
        escaped = json.dumps(secret, ensure_ascii=True)[1:-1].replace("/", "\\/")
        assert redact(f'"{escaped}"', env=ENV) == f'"{MASK}"'
        assert redact(f"<td>{html.escape(secret)}</td>", env=ENV) == f"<td>{MASK}</td>"


def test_the_pair_is_masked_in_every_form_and_the_url_keeps_its_host():
    for name, value in forms(PAIR).items():
        assert PASSWORD not in redact(value, env=ENV), name
        assert redact(value, env=ENV) == MASK, name
    assert redact(ENV["OPENAI_BASE_URL"], env=ENV) == "http://***@127.0.0.1:9/v1"


@pytest.mark.parametrize("before", ["", "x", "xy"])
def test_a_secret_inside_a_longer_base64_text_is_masked_at_each_alignment(before: str):
    blob = b64(f"{before}{PASSWORD}:and more after it")
    masked = redact(blob, env=ENV)
    assert MASK in masked and b64(PASSWORD).rstrip("=")[2:-2] not in masked


def test_a_percent_encoded_password_is_masked_as_sent():
    env = {"OPENAI_BASE_URL": "http://me:p%40ss-w0rd-9@127.0.0.1:9/v1"}
    assert redact(f"Basic {b64('me:p@ss-w0rd-9')}", env=env) == f"Basic {MASK}"
    assert redact("p@ss-w0rd-9 and p%40ss-w0rd-9", env=env) == f"{MASK} and {MASK}"


def test_ordinary_text_is_left_alone_and_short_values_are_not_masked():
    text = "The proponent's claim (dXNlcj) rests on 3 sources: see https://example.org/a%20b."
    assert redact(text, env=ENV) == text
    assert redact("abc YWJj", env={"OPENAI_API_KEY": "abc"}) == "abc YWJj"


# ----------------------------------------------------------------------------- error bodies


def test_credential_headers_are_stripped_from_error_bodies():
    from argue.llm._retry import error_detail

    said = (
        "denied. Authorization: Basic Zm9vOmJhcg==\nX-Api-Key: k-123\n"
        'cookie: a=b; c=d\n{"proxy-authorization": "Bearer zz", "host": "h"}'
    )
    detail = error_detail({"error": {"message": said}})
    for value in ("Zm9vOmJhcg==", "k-123", "a=b", "Bearer zz"):
        assert value not in detail
    assert "denied." in detail and '"host": "h"' in detail
    body = {"error": "no", "headers": {"Authorization": "x", "X-API-KEY": "y", "Host": "h"}}
    assert strip_credential_headers(body) == {"error": "no", "headers": {"Host": "h"}}
    assert error_detail(b"Cookie: sid=1234567\r\nHost: h") == "Cookie: *** Host: h"


def test_a_secret_cut_by_the_excerpt_limit_leaves_no_part_of_it(monkeypatch):
    from argue.llm._retry import DETAIL_LIMIT, error_detail

    monkeypatch.setenv("OPENAI_BASE_URL", ENV["OPENAI_BASE_URL"])
    token = b64(PAIR)
    for cut in range(4, len(token)):
        # The excerpt ends inside the token: masked first, no prefix of it remains.
        said = "x " * ((DETAIL_LIMIT - cut) // 2) + token + " and more words after it"
        detail = error_detail({"error": {"message": said}})
        assert token[:4] not in detail, cut


# ----------------------------------------------------------------------------- end to end


class EchoingServer:
    """The fake LLM, except that every third call (``fail_every``; 1: every call) is answered
    with ``status`` and a body quoting the request's credentials back in several forms,
    alternately as JSON and as plain text, and with a proxy's cookie line."""

    def __init__(self, fake: FakeLLM, status: int = 500, fail_every: int = 3) -> None:
        self.fake, self.status, self.fail_every = fake, status, fail_every
        self.answer = fake.server.handler
        self.calls = self.echoed = 0
        self._lock = threading.Lock()
        fake.server.handler = self.handle

    def handle(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.calls += 1
            fails = self.calls % self.fail_every == 0
            self.echoed += fails
            as_json = self.echoed % 2 == 1
        if not fails:
            assert self.answer is not None
            return self.answer(request)
        return self.echo(request, as_json=as_json)

    def echo(self, request: RecordedRequest, *, as_json: bool) -> Reply:
        sent = request.headers.get("authorization", "")
        scheme, _, token = sent.partition(" ")
        plain = base64.b64decode(token).decode() if scheme == "Basic" else token
        escapes = forms(plain)
        said = (
            f"Cookie: {COOKIE}\n"
            f"{self.status} denied: you sent {sent} | seen={token}"
            f" | urlsafe={b64url(plain).rstrip('=')} | quoted={quote(plain, safe='')}"
            f" | json={json.dumps({'credentials': plain})}"
            f" | go={go_escaped(plain)} | u={escapes['every character u-escaped']}"
            f" | ent={escapes['every character &#NN;']}"
            f" | hex={escapes['every character &#xNN;']}\nheaders:\n"
            + "\n".join(f"{name}: {value}" for name, value in request.headers.items())
        )
        if as_json:
            return Reply(status=self.status, json={"error": {"message": said, "seen": sent}})
        return Reply(status=self.status, body=said)


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    server = FakeLLM().start()
    try:
        yield server
    finally:
        server.stop()


def _scan(cli: Cli, outputs: dict[str, str]) -> dict[str, list[str]]:
    found = {where: leaks(text) for where, text in outputs.items()}
    for folder in (cli.debates, cli.home):
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                found[str(path.relative_to(cli.workdir))] = leaks(
                    path.read_bytes().decode(errors="replace")
                )
    return {where: names for where, names in found.items() if names}


def _mcp_answers(cli: Cli) -> dict[str, str]:
    """What the MCP tools answer (their text), read in this process."""
    pytest.importorskip("mcp.types", reason="needs the mcp extra")
    from argue.mcp.capture import _json, _text, run_tool
    from argue.mcp.tools import Debates

    debates = Debates(cli.debates)
    answers: dict[str, str] = {}

    def text_of(result: object) -> str:
        return "\n".join(getattr(c, "text", "") for c in getattr(result, "content", []))

    listed = run_tool(lambda: debates.all_statuses(compact=False), _json)
    answers["mcp list_debates"] = text_of(listed) + json.dumps(listed.structured_content)
    for folder in sorted(cli.debates.glob("argue_*")):
        name = folder.name
        status = run_tool(functools.partial(debates.status, name), _json)
        answers[f"mcp debate_status {name}"] = text_of(status)
        answers[f"mcp debate_status {name} (structured)"] = json.dumps(status.structured_content)
        for tool in ("transcript", "synthesis"):
            result = run_tool(functools.partial(getattr(debates, tool), name), _text)
            answers[f"mcp get_{tool} {name}"] = text_of(result)
    return answers


@pytest.mark.parametrize("credential", ["basic", "bearer"])
def test_no_form_of_a_secret_leaves_argue_under_a_header_echoing_server(
    tmp_path: Path, fake: FakeLLM, credential: str, monkeypatch: pytest.MonkeyPatch
):
    host = fake.url.removeprefix("http://")
    url = f"http://{PAIR}@{host}/v1" if credential == "basic" else f"http://{host}/v1"
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": url, "ARGUE_MAX_ATTEMPTS": "1"}
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "qa.jsonl").write_text(
        json.dumps({"id": "a", "question": "What is 2+3*4?", "answer": 14}) + "\n",
        encoding="utf-8",
    )
    cli = Cli(workdir, env_overrides=env)
    echo = EchoingServer(fake)

    outputs: dict[str, str] = {}
    # A debate some of whose calls fail (rounds, transcript, synthesis, report) ...
    done = cli.run("argue", QUESTION, "--rounds", "1")
    outputs["debate stdout"], outputs["debate stderr"] = done.stdout, done.stderr
    # ... an eval (its records under debates/evals/) ...
    evaluated = cli.run("eval", "qa.jsonl", "--arms", "single", "--concurrency", "1")
    outputs["eval stdout"], outputs["eval stderr"] = evaluated.stdout, evaluated.stderr
    # ... then a server refusing every call: a debate that fails at once, and doctor.
    echo.status, echo.fail_every = 401, 1
    refused = cli.run("argue", QUESTION, "--rounds", "1")
    outputs["refused stdout"], outputs["refused stderr"] = refused.stdout, refused.stderr
    doctor = cli.run("doctor", "--json", "--no-sources", "--timeout", "5")
    outputs["doctor --json"], outputs["doctor stderr"] = doctor.stdout, doctor.stderr
    for name, value in env.items():
        monkeypatch.setenv(name, value)  # the MCP server's own environment
    monkeypatch.setenv("ARGUE_HOME", str(cli.home))
    outputs |= _mcp_answers(cli)

    # The test has teeth only if the server did echo, and argue did record its words.
    assert echo.echoed >= 3, echo.calls
    assert done.returncode == 0, done.describe()
    assert refused.returncode != 0 and "denied" in refused.stderr, refused.describe()
    recorded = [*cli.debates.rglob("failures.json"), *cli.debates.rglob("state.json")]
    assert any("denied" in path.read_text(encoding="utf-8") for path in recorded)
    assert "401" in doctor.stdout, doctor.describe()
    transcripts = list(cli.debates.rglob("transcript.md"))
    assert transcripts and any("denied" in p.read_text(encoding="utf-8") for p in transcripts)
    assert list(cli.debates.rglob("report.html"))
    assert any("denied" in p.read_text() for p in (cli.debates / "evals").rglob("*.jsonl"))
    assert _scan(cli, outputs) == {}


def test_mcp_answers_are_masked_even_where_a_file_holds_a_secret(monkeypatch):
    """A transcript or status carrying a secret's form (a model that quoted it) is masked in
    the MCP answer: its text and its structured value. Teeth: ``_text``/``_json`` in
    argue/mcp/capture.py without ``redact`` fail this test."""
    pytest.importorskip("mcp.types", reason="needs the mcp extra")
    from argue.mcp.capture import _json, _text

    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    said = f"the model wrote Basic {b64(PAIR)} and {json.dumps(KEY)}"
    assert leaks(_text(said).content[0].text) == []  # type: ignore[union-attr]
    result = _json({"status": "failed", "error": said, "n": 3})
    assert leaks(result.content[0].text) == []  # type: ignore[union-attr]
    assert leaks(json.dumps(result.structured_content)) == []
    assert result.structured_content is not None and result.structured_content["n"] == 3


def test_eval_records_are_masked_even_where_an_answer_quotes_a_secret(tmp_path, monkeypatch):
    """An eval item's answer or error quoting a secret's form is masked in items.jsonl.
    Teeth: ``append_result`` in argue/eval/folder.py without ``redact`` fails this test."""
    from argue.eval.arms import ItemResult
    from argue.eval.folder import RESULTS, EvalFolder

    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    said = f"Basic {b64(PAIR)} / {quote(PAIR, safe='')} / {KEY}"
    result = ItemResult(
        item="a", arm="single", answer=said, expected="14", started_at=0, finished_at=1, error=said
    )
    EvalFolder(tmp_path).append_result(result)
    line = (tmp_path / RESULTS).read_text(encoding="utf-8")
    assert leaks(line) == [] and json.loads(line)["answer"].startswith("Basic ***")


def test_the_report_is_masked_even_where_a_model_wrote_a_secret(
    tmp_path: Path, fake: FakeLLM, monkeypatch: pytest.MonkeyPatch
):
    """report.html passes through redact() as it is written, HTML-escaped forms included.
    Teeth: ``write_report`` in argue/app/_debates.py without ``redact`` fails this test."""
    import importlib

    report_package = importlib.import_module("argue.report")  # argue.report is the function
    cli = Cli(tmp_path, env_overrides={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": url_of(fake)})
    done = cli.run("argue", QUESTION, "--rounds", "1")
    assert done.returncode == 0, done.describe()
    (folder,) = cli.debates.glob("argue_*")
    real = report_package.render_report

    def quoting(*args: object, **kwargs: object) -> str:
        page = real(*args, **kwargs)  # type: ignore[arg-type]
        return page.replace("</body>", f"<p>{html.escape(KEY)} {b64(PAIR)}</p></body>")

    monkeypatch.setattr(report_package, "render_report", quoting)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("ARGUE_DEBATES_DIR", str(cli.debates))
    from argue.app._debates import report

    written = report(folder.name, workspace=None, out=tmp_path / "report.html")
    page = written.read_text(encoding="utf-8")
    assert "<p>*** ***</p>" in page and leaks(page) == []


def url_of(fake: FakeLLM) -> str:
    return f"http://{PAIR}@{fake.url.removeprefix('http://')}/v1"
