"""``argue serve`` (issue 26 item 5): the live view in the browser, over a real uvicorn on
127.0.0.1 in a thread. The token guards every route; the pages show the same records as the
CLI, escaped; the event stream follows the folder; stop and interject are the application
layer's, behind POST, the token header and a same-origin check."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import socket
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from argue.cli import app
from argue.domain import ArgumentRecord, Citation, Claim, Failure, Usage
from argue.records.reasons import failure_sentence
from argue.store import DebateStore
from tests.web.conftest import LiveServer

ROUTES_GET = ["/", "/rows", "/stream", "/debates/{id}", "/debates/{id}/live"]
ROUTES_GET += ["/debates/{id}/stream", "/debates/{id}/report", "/no/such/page"]
ROUTES_POST = ["/debates/{id}/stop", "/debates/{id}/interject"]


def _running(store: DebateStore, *, round_no: int = 1, phase: str = "research") -> None:
    """Make ``store`` look run by a live runner: this test process holds its lock."""
    store.update_state(status="running", round=round_no, phase=phase, pid=os.getpid())
    store.acquire_lock()


def _read_event(lines, wanted: str = "update", within_s: float = 30.0) -> str:
    """The data of the next server-sent event named ``wanted`` (pings and others skipped).

    ``within_s`` bounds the wait (a stream that never updates still sends a keep-alive
    comment now and then, which keeps a read timeout from firing); a bound, not a timing."""
    deadline = time.monotonic() + within_s
    name, data = None, []
    for line in lines:
        if time.monotonic() > deadline:
            raise AssertionError(f"no {wanted!r} event within {within_s} s")
        if line == "":
            if name == wanted and data:
                return "\n".join(data)
            name, data = None, []
        elif line.startswith("event:"):
            name = line.partition(":")[2].strip()
        elif line.startswith("data:"):
            data.append(line.partition(":")[2].removeprefix(" "))
    raise AssertionError("the stream ended")


# ---------------------------------------------------------------- the token


def test_every_route_refuses_a_missing_or_wrong_token(live_server: LiveServer, new_store):
    store = new_store("debates")
    _running(store)
    try:
        with live_server.client() as client:
            for template in ROUTES_GET + ROUTES_POST:
                path = template.format(id=store.debate_id)
                method = "POST" if template in ROUTES_POST else "GET"
                for query in ("", "?token=", "?token=" + "x" * 43, f"?token={live_server.token}x"):
                    reply = client.request(method, path + query, json={"note": "n"})
                    # Teeth: let TokenGate pass everything and every one of these is a 200.
                    assert reply.status_code == 403, (method, path, query, reply.status_code)
                    assert store.debate_id not in reply.text
                    assert "Collatz" not in reply.text
                reply = client.request(
                    method, path, headers={"X-Argue-Token": "wrong"}, json={"note": "n"}
                )
                assert reply.status_code == 403, (method, path)
            # The right token opens the pages.
            for template in ("/", "/rows", "/debates/{id}", "/debates/{id}/live"):
                reply = client.get(live_server.url(template.format(id=store.debate_id)))
                assert reply.status_code == 200, template
    finally:
        store.release_lock()
    assert not store.stop_requested()
    assert not store.paths.inbox.exists()


def test_a_post_needs_the_token_in_its_header_and_the_same_origin(
    live_server: LiveServer, new_store
):
    store = new_store("debates")
    _running(store)
    stop = f"/debates/{store.debate_id}/stop"
    try:
        with live_server.client() as client:
            # The token in the URL only (what a cross-site form could send): refused.
            assert client.post(live_server.url(stop)).status_code == 403
            header = {"X-Argue-Token": live_server.token}
            evil = {**header, "Origin": "http://evil.example"}
            assert client.post(stop, headers=evil).status_code == 403
            cross = {**header, "Sec-Fetch-Site": "cross-site"}
            assert client.post(stop, headers=cross).status_code == 403
            assert not store.stop_requested()
            same = {**header, "Origin": live_server.base}
            reply = client.post(stop, headers=same)
    finally:
        store.release_lock()
    assert reply.status_code == 200, reply.text
    assert store.stop_requested()


# ---------------------------------------------------------------- the pages


def test_the_index_lists_each_debate_with_status_round_phase_and_cost(
    serve_folder, run_debate, new_store, tmp_path
):
    finished = run_debate(rounds=2).store
    waiting = DebateStore.open(tmp_path / "debates", new_store("debates").debate_id)
    _running(waiting, round_no=1, phase="rebuttal")
    server = serve_folder(tmp_path / "debates")
    try:
        with server.client() as client:
            page = client.get(server.url("/")).text
    finally:
        waiting.release_lock()
    body = page.split("<tbody>", 1)[1]
    rows = re.findall(r"<tr>.*?</tr>", body, re.S)
    assert len(rows) == 2
    # By the link's text: both ids may share a timestamp ("…_054452" and "…_054452_2").
    done = next(r for r in rows if f">{finished.debate_id}</a>" in r)
    live = next(r for r in rows if f">{waiting.debate_id}</a>" in r)
    assert "Is the Collatz conjecture decidable?" in done
    assert ">completed<" in done and ">2/2</td>" in done and "$0.0000" in done
    assert ">running<" in live and ">1/2 · rebuttal</td>" in live and "no model call yet" in live
    assert "partial" in live  # not finished: its record is partial, said so
    # Each id links to its own page, the token carried along.
    assert f'href="/debates/{finished.debate_id}?token={server.token}"' in done


def test_an_unpriced_model_costs_not_priced_never_zero_dollars(live_server, new_store):
    store = new_store("debates")
    usage = Usage(provider="openai", model="mystery-1", input_tokens=10, output_tokens=5)
    store.append_usage(usage.model_copy(update={"unpriced_calls": 1}))
    with live_server.client() as client:
        index = client.get(live_server.url("/")).text
        debate = client.get(live_server.url(f"/debates/{store.debate_id}")).text
    for page in (index, debate):
        # Teeth: show usage.cost_usd_at_least as dollars and "$0.0000" comes back here.
        assert "not priced" in page
        assert "$0.0000" not in page


def test_the_debate_page_shows_claims_failures_and_the_termination_line(
    serve_folder, run_debate, tmp_path
):
    run = run_debate(rounds=2)
    failure = Failure(
        round=2, persona="A", phase="research", kind="failed", what="dogpile", reason="x"
    )
    run.store.save(run.store.paths.failures, [failure])
    server = serve_folder(tmp_path / "debates")
    with server.client() as client:
        page = client.get(server.url(f"/debates/{run.store.debate_id}")).text
    claims = [c for r in run.history.ordered_rounds() for c in r.claims()]
    assert claims
    for claim in claims:
        assert claim.id in page and claim.text in page
    assert failure_sentence(failure) in page.replace("&#39;", "'").replace("&#34;", '"')
    # In words, not the recorded ids (issue 41 item 4); no file path: the report link instead.
    assert "Termination: completed (maximum rounds) — reached the limit of 2 rounds" in page
    assert "max_rounds" not in page and "synthesis.md" not in page
    assert f"/debates/{run.store.debate_id}/report?token={server.token}" in page
    assert 'data-running="no"' in page
    assert 'id="controls" class="controls" aria-label="Steer the debate" hidden' in page


def test_the_live_page_prints_a_contradicting_source_beside_its_claim(live_server, new_store):
    """Issue 36, item 6: a quote whose sentence contradicts the claim is said beside the claim
    (teeth: drop ``contradicted_by`` from ``LiveClaim`` and this fails)."""
    store = new_store("debates")
    citation = Citation(
        evidence_id="A-R1-E1",
        verdict="quoted",
        exact=True,
        located="six words of the document here",
        support="contradicts",
    )
    claim = Claim(id="A1.c1", persona="A", round=1, text="claim words", citations=[citation])
    record = ArgumentRecord(persona="A", round=1, position="p", claims=[claim])
    store.save(store.paths.argument("A", 1), record)
    store.update_state(round=1, phase="rebuttal")
    with live_server.client() as client:
        page = client.get(live_server.url(f"/debates/{store.debate_id}")).text
    line = next(line for line in page.splitlines() if "claim words" in line)
    assert "contradicted by the source it quotes:</strong> A-R1-E1" in line


def test_model_text_is_escaped_and_never_a_live_link(live_server: LiveServer, new_store):
    store = new_store("debates")
    hostile = (
        '<script>alert(1)</script> <a href="javascript:alert(2)">click</a> '
        "<img src=x onerror=alert(3)> javascript:alert(4) https://example.com/x"
    )
    claim = Claim(id="A1.c1", persona="A", round=1, text=hostile)
    record = ArgumentRecord(persona="A", round=1, position=hostile, claims=[claim])
    store.save(store.paths.argument("A", 1), record)
    store.update_state(round=1, phase="rebuttal")
    with live_server.client() as client:
        page = client.get(live_server.url(f"/debates/{store.debate_id}")).text
        fragment = client.get(live_server.url(f"/debates/{store.debate_id}/live")).text
    for html in (page, fragment):
        # Teeth: render a claim with |safe (or autoescape off) and these fail.
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "<script>alert" not in html and "<img" not in html
        assert 'href="javascript:' not in html and "href='javascript:" not in html
        assert 'href="https://example.com' not in html
    # The page's only script is its own, and its only links are to this server.
    assert page.count("<script>") == 1
    assert all(h.startswith("/") for h in re.findall(r'href="([^"]*)"', page))


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_the_csp_allows_exactly_the_inline_script_and_stylesheet(live_server, new_store):
    store = new_store("debates")
    with live_server.client() as client:
        for path in ("/", f"/debates/{store.debate_id}"):
            reply = client.get(live_server.url(path))
            policy = reply.headers["content-security-policy"]
            script = re.search(r"<script>(.*?)</script>", reply.text, re.S)
            style = re.search(r"<style>(.*?)</style>", reply.text, re.S)
            assert script and style
            # Teeth: change one byte of the script after hashing and the hash differs.
            assert f"script-src '{_sha256(script.group(1))}'" in policy
            assert f"style-src '{_sha256(style.group(1))}'" in policy
            assert "default-src 'none'" in policy and "'unsafe-inline'" not in policy
            meta = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', reply.text)
            # The meta repeats the header's policy but frame-ancestors, which a <meta> cannot
            # carry (a browser ignores it there and logs an error; issue 41 item 6).
            assert meta and "frame-ancestors" not in meta.group(1)
            assert meta.group(1).replace("&#39;", "'") + "; frame-ancestors 'none'" == policy
            assert reply.headers["referrer-policy"] == "no-referrer"


def test_the_report_is_the_application_layer_s_under_its_own_csp(
    serve_folder, run_debate, tmp_path
):
    from argue.app import report_html

    run = run_debate(rounds=1)
    before = sorted((p, p.stat().st_mtime_ns) for p in run.store.paths.root.rglob("*"))
    server = serve_folder(tmp_path / "debates")
    with server.client() as client:
        reply = client.get(server.url(f"/debates/{run.store.debate_id}/report"))
    assert reply.status_code == 200
    assert reply.text == report_html(run.store.debate_id, workspace=_workspace(tmp_path))
    policy = reply.headers["content-security-policy"]
    assert policy.startswith("default-src 'none'; style-src 'sha256-")
    assert "script-src" not in policy
    # Read-only: serving the report wrote nothing into the debate's folder.
    assert sorted((p, p.stat().st_mtime_ns) for p in run.store.paths.root.rglob("*")) == before


def _workspace(tmp_path: Path):
    from argue.app import Workspace

    return Workspace(tmp_path / "debates")


# ---------------------------------------------------------------- live updates


def test_the_stream_sends_a_phase_change_and_new_claims_as_they_land(
    live_server: LiveServer, new_store
):
    store = new_store("debates")
    _running(store, round_no=1, phase="research")
    writer = DebateStore(store.paths.root)  # the runner's own handle, as another process has
    stream = live_server.url(f"/debates/{store.debate_id}/stream")
    try:
        with (
            httpx.Client(timeout=httpx.Timeout(20.0)) as client,
            client.stream("GET", stream) as reply,
        ):
            assert reply.status_code == 200
            assert reply.headers["content-type"].startswith("text/event-stream")
            lines = reply.iter_lines()
            first = _read_event(lines)
            assert 'data-phase="research"' in first and "Nothing published yet" in first
            # The runner moves on: a new state.json (the store's atomic writer), then a claim.
            state = writer.state().model_copy(update={"phase": "rebuttal"})
            writer.save_state(state)
            second = _read_event(lines)
            # Teeth: never look again after the first event and this read times out.
            assert 'data-phase="rebuttal"' in second
            claim = Claim(id="A1.c1", persona="A", round=1, text="Orbits are bounded.")
            writer.save(
                writer.paths.argument("A", 1),
                ArgumentRecord(persona="A", round=1, position="Bounded.", claims=[claim]),
            )
            third = _read_event(lines)
            assert "Orbits are bounded." in third and "A1.c1" in third
    finally:
        store.release_lock()
    # The polling fallback reads the same section.
    headers = {"X-Argue-Token": live_server.token}
    with live_server.client() as client:
        fragment = client.get(f"/debates/{store.debate_id}/live", headers=headers).text
    assert "Orbits are bounded." in fragment and 'data-status="interrupted"' in fragment


def test_a_shutdown_ends_the_open_streams_cleanly(live_server: LiveServer, new_store):
    store = new_store("debates")
    stream = live_server.url(f"/debates/{store.debate_id}/stream")
    with (
        httpx.Client(timeout=httpx.Timeout(20.0)) as client,
        client.stream("GET", stream) as reply,
    ):
        lines = reply.iter_lines()
        assert "Nothing published yet" in _read_event(lines)
        live_server.server.should_exit = True  # what Ctrl-C does
        # Teeth: ignore ``stopping`` in the stream and uvicorn cuts it after its grace period:
        # httpx raises RemoteProtocolError (incomplete chunked read) here.
        rest = list(lines)
    assert rest == []


def test_the_index_stream_sees_a_new_debate(live_server: LiveServer, new_store):
    with (
        httpx.Client(timeout=httpx.Timeout(20.0)) as client,
        client.stream("GET", live_server.url("/stream")) as reply,
    ):
        lines = reply.iter_lines()
        assert "No debates in this folder yet" in _read_event(lines)
        store = new_store("debates")
        assert store.debate_id in _read_event(lines)


# ---------------------------------------------------------------- steering


def test_stop_marks_the_stop_request_as_the_cli_does(live_server: LiveServer, new_store):
    store = new_store("debates")
    _running(store)
    headers = {"X-Argue-Token": live_server.token}
    try:
        with live_server.client() as client:
            reply = client.post(f"/debates/{store.debate_id}/stop", headers=headers)
    finally:
        store.release_lock()
    assert reply.status_code == 200
    assert reply.json() == {
        "id": store.debate_id,
        "stop_requested": True,
        "message": f"Stop requested for {store.debate_id}",
    }
    # The same flag `argue stop` writes (the runner checks it between batches).
    assert store.stop_requested() and store.paths.stop_flag.is_file()


def test_stop_on_a_debate_that_is_not_running_says_so(live_server: LiveServer, run_debate):
    run = run_debate(rounds=1)
    headers = {"X-Argue-Token": live_server.token}
    with live_server.client() as client:
        reply = client.post(f"/debates/{run.store.debate_id}/stop", headers=headers)
        missing = client.post("/debates/argue_19990101_000000/stop", headers=headers)
    assert reply.json()["stop_requested"] is False
    assert "is not running" in reply.json()["message"]
    assert not run.store.stop_requested()
    assert missing.status_code == 404 and "no debate" in missing.json()["error"]


def test_interject_records_the_note_for_the_next_round(live_server: LiveServer, new_store):
    store = new_store("debates", rounds=3)
    _running(store, round_no=1, phase="research")
    headers = {"X-Argue-Token": live_server.token}
    url = f"/debates/{store.debate_id}/interject"
    try:
        with live_server.client() as client:
            reply = client.post(url, headers=headers, json={"note": "  Consider halting.  "})
            empty = client.post(url, headers=headers, json={"note": "   "})
            wrong = client.post(url, headers=headers, content=b"not json")
    finally:
        store.release_lock()
    assert reply.status_code == 200, reply.text
    assert reply.json()["first_round"] == 2
    notes = sorted(store.paths.inbox.iterdir())
    assert [p.read_text(encoding="utf-8") for p in notes] == ["Consider halting."]
    assert empty.status_code == 400 and empty.json() == {"error": "the note is empty"}
    assert wrong.status_code == 400 and wrong.json() == {"error": "the request is not JSON"}
    assert len(list(store.paths.inbox.iterdir())) == 1


def test_a_hostile_body_is_a_400_with_one_line(live_server: LiveServer, new_store, caplog):
    """``[`` × 30,000 used to be a 500 with a RecursionError traceback: every POST body goes
    through the bounded JSON reader (nesting at most 64 deep, 64 KB, UTF-8, an object).
    Teeth: ``_json_body`` in argue/web/_app.py with ``json.loads`` again instead of
    ``json_object_body`` fails the nested cases (500, ``RecursionError``)."""
    store = new_store("debates", rounds=3)
    _running(store, round_no=1, phase="research")
    headers = {"X-Argue-Token": live_server.token}
    bodies = {
        b"[" * 30_000: "the request is nested over the limit of 64",
        b'{"note": ' + b"[" * 30_000 + b"]" * 30_000 + b"}": "nested over the limit",
        b"{" * 20_000: "nested over the limit",
        b'{"note": ' + b"1" * 5_000 + b"}": "the request is not JSON",
        b'{"note": "\xff"}': "the request is not UTF-8",
        b"x" * 70_000: "the request is over 65,536 bytes",
        b"[1]": "the request is not a JSON object",
    }
    try:
        with live_server.client() as client:
            for path in ("interject", "stop"):
                url = f"/debates/{store.debate_id}/{path}"
                for body, words in bodies.items():
                    reply = client.post(url, headers=headers, content=body)
                    assert reply.status_code == 400, (path, body[:20], reply.text[:300])
                    error = reply.json()["error"]
                    assert words in error and "\n" not in error, (path, body[:20], error)
    finally:
        store.release_lock()
    assert not store.paths.inbox.exists() or not any(store.paths.inbox.iterdir())
    assert "Traceback" not in caplog.text and "RecursionError" not in caplog.text


# ---------------------------------------------------------------- the command


def test_a_non_loopback_host_is_refused_without_allow_remote(tmp_path):
    from argue.commands.serve import is_loopback

    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert is_loopback("127.8.0.1") and not is_loopback("0.0.0.0")
    assert not is_loopback("192.168.1.2") and not is_loopback("example.com")
    runner = CliRunner()
    for host in ("0.0.0.0", "192.168.1.2", "example.com"):
        result = runner.invoke(app, ["serve", "--host", host, "--debates-dir", str(tmp_path)])
        assert result.exit_code == 2, result.output
        assert len(result.stderr.strip().splitlines()) == 1
        assert "not a loopback address" in result.stderr and "--allow-remote" in result.stderr
        assert "http://" not in result.stdout


def test_allow_remote_warns_in_one_line(tmp_path):
    # The port is taken, so the command warns, then fails to listen: nothing is served.
    taken = socket.socket()
    taken.bind(("0.0.0.0", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    try:
        result = CliRunner().invoke(
            app,
            [
                *("serve", "--host", "0.0.0.0", "--allow-remote", "--port", str(port)),
                *("--debates-dir", str(tmp_path)),
            ],
        )
    finally:
        taken.close()
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("warning: serving on 0.0.0.0, which other machines may reach")
    assert lines[1].startswith(f"error: cannot listen on 0.0.0.0:{port}")
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_without_the_serve_extra_the_command_names_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn raises ImportError
    result = CliRunner().invoke(app, ["serve", "--debates-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: argue serve needs starlette and uvicorn (the serve extra): "
        "pip install 'argue-debate[serve]' (in a clone, ./run.sh installs it)"
    ]


@pytest.mark.timeout(120)
def test_argue_serve_prints_its_url_once_and_serves_it(tmp_path):
    import signal
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    (tmp_path / "debates").mkdir()
    command = [sys.executable, "-m", "argue", "serve", "--port", "0"]
    process = subprocess.Popen(
        [*command, "--debates-dir", str(tmp_path / "debates")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        match = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]{43})", url)
        assert match, url
        assert httpx.get(url, timeout=10).status_code == 200
        bare = url.split("?")[0]
        assert httpx.get(bare, timeout=10).status_code == 403
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert match.group(2) not in out + err  # printed once, never logged again
    assert "Traceback" not in err


ENGLISH_PAGE_WORDS = (
    "cost so far",
    "Connecting to the live stream",
    "Steer the debate",
    "Stop after the current batch",
    "Interject",
    "Moderator note",
    "no evidence cited",
    "Nothing published yet",
    "← all debates",
    "Live: this page updates",
    "Live stream lost",
    "Cannot reach argue serve",
    "Refused: ",
    "model call",
)


def test_a_french_debate_s_page_speaks_french_throughout(live_server: LiveServer, new_store):
    """The page's own words (headings, buttons, the connection line, the script's messages, the
    evidence words, the cost) follow the debate's language, as its records already did.
    Teeth: render with ``Labels("en")`` whatever the debate and the English words come back."""
    store = new_store("debates", language="fr")
    claim = Claim(id="A1.c1", persona="A", round=1, text="Une affirmation sans source.")
    store.save(
        store.paths.argument("A", 1),
        ArgumentRecord(persona="A", round=1, position="Une position.", claims=[claim]),
    )
    store.append_usage(Usage(provider="scripted", model="scripted-1", purpose="A/R1/argument"))
    _running(store, round_no=1, phase="rebuttal")
    try:
        with live_server.client() as client:
            page = client.get(live_server.url(f"/debates/{store.debate_id}")).text
    finally:
        store.release_lock()
    page = page.replace("&#39;", "'")
    assert '<html lang="fr">' in page
    for french in (
        "Round 1",
        "coût à ce stade\u00a0: ",
        "1 appel au modèle",
        "Connexion au flux en direct…",
        'data-lost="Flux en direct perdu',
        "Piloter le débat",
        "Intervenir",
        "aucune preuve citée",
        "Rien de publié pour l'instant.",  # Horus has published nothing
        "← tous les débats",
        ">en cours<",  # the status
        "Adversaire",  # the mode
    ):
        assert french in page, french
    for english in ENGLISH_PAGE_WORDS:
        assert english not in page, english


def test_no_page_fragment_or_stream_carries_a_control_or_bidi_character(
    live_server: LiveServer, new_store
):
    """Issue 39 item 3: ESC, BEL, U+009B, RLO, RLE/PDF, RLI/LRI/PDI, LRM/RLM and ALM in model
    text and the question reach none of the debate page, ``/live``, the index, its rows and
    either event stream (only ``/report`` stripped them).

    Teeth: drop ``strip_controls`` from ``Pages._render`` and every page and stream fails."""
    from argue.text.controls import UNSAFE

    hostile = (
        "x\x1b[2Jy\x07z\x9b31m \u202eexe.txt\u202a e\u202c \u2067i\u2066l\u2069 "
        "\u200em\u200fr\u061cend"
    )
    store = new_store("debates")
    config = store.paths.config
    data = json.loads(config.read_text(encoding="utf-8"))
    data["question"] = f"Q {hostile}"
    config.write_text(json.dumps(data), encoding="utf-8")
    claim = Claim(id="A1.c1", persona="A", round=1, text=f"Claim {hostile}")
    record = ArgumentRecord(persona="A", round=1, position=f"Pos {hostile}", claims=[claim])
    store.save(store.paths.argument("A", 1), record)
    _running(store, round_no=1, phase="rebuttal")
    shown: dict[str, str] = {}
    try:
        with live_server.client() as client:
            for path in ("/", "/rows", f"/debates/{store.debate_id}"):
                shown[path] = client.get(live_server.url(path)).text
            shown["/live"] = client.get(live_server.url(f"/debates/{store.debate_id}/live")).text
        with (
            httpx.Client(timeout=httpx.Timeout(20.0)) as client,
            client.stream("GET", live_server.url(f"/debates/{store.debate_id}/stream")) as reply,
        ):
            shown["debate stream"] = _read_event(reply.iter_lines())
        with (
            httpx.Client(timeout=httpx.Timeout(20.0)) as client,
            client.stream("GET", live_server.url("/stream")) as reply,
        ):
            shown["index stream"] = _read_event(reply.iter_lines())
    finally:
        store.release_lock()
    for where, text in shown.items():
        raw = sorted({f"U+{ord(c):04X}" for c in UNSAFE.findall(text)})
        assert raw == [], (where, raw)
    assert "exe.txt" in shown["/live"] and "Claim x[2Jyz31m" in shown["/live"]
    assert "Q x[2Jyz31m" in shown["/"]
