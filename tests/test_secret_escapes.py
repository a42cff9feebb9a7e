"""Secrets in every escape: a password or an API key written with any subset of its characters
escaped, in any mix of ``\\uXXXX`` (JSON, JS, Go's ``\\u0026\\u003c\\u003e``; a surrogate pair
past U+FFFF), ``\\u{…}``, ``\\xHH``, the short JSON escapes, numeric and hex HTML entities
(``&#NN;``, ``&#xNN;``, leading zeros, no ``;``), named entities and percent-encoding, is masked
by ``argue.redact.redact`` (the one masking function every output goes through). Each escape
is computed here independently of ``argue.redact``.

Teeth (checked once: the tests failed, then the code was restored): ``_secrets_pattern`` in
argue/redact.py without the escaped trie (``escaped`` left out of the regex): the property
test (falsified on the first example with an escaped character), the every-character tests
for ``\\uXXXX`` and ``&#NN;`` and the Go-style test; ``char_escapes`` with the literal
character first: the property test (``0000000&`` written as ``&#0038;`` left ``#0038;``;
``0000000\\\\`` likewise).
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argue.redact import MASK, MIN_SECRET_LENGTH, redact

KEY = "sk-ant-api03-Zx9&<>\"'/q"
PASSWORD = "p&ss<w>rd-ünï-😀"
ENV = {"ANTHROPIC_API_KEY": KEY, "SOME_TOKEN": PASSWORD}


def u_escape(char: str, upper: bool = False) -> str:
    units = json.dumps(char, ensure_ascii=True)[1:-1]
    if not units.startswith("\\u"):  # json.dumps keeps ASCII: write its code point
        units = f"\\u{ord(char):04x}"
    return units.upper().replace("\\U", "\\u") if upper else units


ESCAPES = {
    "literal": lambda c: c,
    "\\u lower": u_escape,
    "\\u upper": lambda c: u_escape(c, upper=True),
    "\\u doubled backslash": lambda c: u_escape(c).replace("\\", "\\\\"),
    "\\u{}": lambda c: f"\\u{{{ord(c):x}}}",
    "&#NN;": lambda c: f"&#{ord(c)};",
    "&#0NN;": lambda c: f"&#00{ord(c)};",
    "&#NN": lambda c: f"&#{ord(c)}",
    "&#xNN;": lambda c: f"&#x{ord(c):x};",
    "&#XNN;": lambda c: f"&#X{ord(c):X};",
    "percent": lambda c: "".join(f"%{b:02X}" for b in c.encode()),
    "percent lower": lambda c: "".join(f"%{b:02x}" for b in c.encode()),
}

# Any characters; and the characters escapes are made of, where one form may stop short of
# another (``&`` of ``&#38;``: found by this test).
TRICKY = "&#;\\u0123456789xX%\"'/<> +aA{}"
secrets = st.one_of(
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Cc")),
        min_size=MIN_SECRET_LENGTH,
        max_size=40,
    ),
    st.text(alphabet=TRICKY, min_size=MIN_SECRET_LENGTH, max_size=30),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(secret=secrets, data=st.data())
def test_any_mix_of_escapes_of_any_secret_is_masked(secret: str, data: st.DataObject) -> None:
    choices = data.draw(
        st.lists(st.sampled_from(sorted(ESCAPES)), min_size=len(secret), max_size=len(secret))
    )
    written = "".join(ESCAPES[name](char) for name, char in zip(choices, secret, strict=True))
    text = f"error: bad credential {written} (echoed)"
    masked = redact(text, env={"X_API_KEY": secret})
    assert written not in masked
    assert masked == f"error: bad credential {MASK} (echoed)"


def test_an_api_key_as_every_character_u_escaped_is_masked() -> None:
    written = "".join(f"\\u{ord(c):04x}" for c in KEY)
    assert redact(f'{{"detail": "{written}"}}', env=ENV) == f'{{"detail": "{MASK}"}}'


def test_an_api_key_as_every_character_a_numeric_entity_is_masked() -> None:
    for written in ("".join(f"&#{ord(c)};" for c in KEY), "".join(f"&#x{ord(c):x};" for c in KEY)):
        assert redact(f"<p>{written}</p>", env=ENV) == f"<p>{MASK}</p>"


def test_go_style_escapes_and_mixes_are_masked() -> None:
    go = json.dumps(PASSWORD)[1:-1].replace("&", "\\u0026").replace("<", "\\u003c")
    go = go.replace(">", "\\u003e")
    assert "\\u0026" in go and "\\u003c\\u003e" not in PASSWORD
    mixed = "p&#38;ss\\u003cw&gt;rd-%C3%BCn\\u00ef-&#x1F600"
    for written in (go, mixed, go.replace("\\", "\\\\")):
        assert redact(f"echo {written}.", env=ENV) == f"echo {MASK}."


def test_ordinary_escaped_text_is_left_alone() -> None:
    text = "a \\u0026 b &#38; c &amp; d %20 e \\n f"
    assert redact(text, env=ENV) == text
