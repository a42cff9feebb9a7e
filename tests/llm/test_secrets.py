from __future__ import annotations

import pytest

from argue.llm import SECRET_ENV_VARS, mask_secrets


@pytest.mark.parametrize("name", SECRET_ENV_VARS)
def test_each_known_credential_is_masked(name: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(name, "s3cr3t-value-123")
    assert mask_secrets("key=s3cr3t-value-123; again s3cr3t-value-123") == "key=***; again ***"


def test_short_values_and_unset_variables_are_left_alone(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GITHUB_TOKEN", "abc")
    assert mask_secrets("abc is a common word") == "abc is a common word"


def test_explicit_env_and_extra_values():
    env = {"OPENAI_API_KEY": "sk-proj-0123456789"}
    text = "sent sk-proj-0123456789 and custom-key-98765"
    assert mask_secrets(text, env=env, extra=["custom-key-98765", None]) == "sent *** and ***"


def test_a_key_containing_another_is_masked_whole():
    env = {"OPENAI_API_KEY": "abcdefgh", "BRAVE_API_KEY": "abcdefgh-longer"}
    assert mask_secrets("abcdefgh-longer", env=env) == "***"
