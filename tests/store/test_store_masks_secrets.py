"""Every file the debate store writes has credentials masked: a model's answer that quotes a
key (or the base64 of a URL's ``user:password``) is recorded, the secret is not.

Teeth: ``redact`` dropped from ``DebateStore.save_text`` fails the first test.
"""

from __future__ import annotations

import base64

import pytest

from argue.store import DebateStore

KEY = "sk-test-canary-0123456789abcdef"


def test_a_saved_record_quoting_a_key_is_masked(
    monkeypatch: pytest.MonkeyPatch, tmp_path, run_scripted_debate
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://argue:pa55-w0rd-canary@127.0.0.1:9/v1")
    store: DebateStore = run_scripted_debate(tmp_path)
    pair = base64.b64encode(b"argue:pa55-w0rd-canary").decode()
    store.save(store.paths.root / "note.json", {"said": f"my key is {KEY}, Basic {pair}"})
    written = (store.paths.root / "note.json").read_text(encoding="utf-8")
    assert KEY not in written and pair not in written and "pa55-w0rd-canary" not in written
    assert "my key is ***" in written


def test_text_without_secrets_is_written_as_given(tmp_path, run_scripted_debate) -> None:
    store: DebateStore = run_scripted_debate(tmp_path)
    text = "plain text, a URL https://example.org/a?b=c and a number 12345\n"
    store.save_text(store.paths.root / "plain.md", text)
    assert (store.paths.root / "plain.md").read_text(encoding="utf-8") == text
