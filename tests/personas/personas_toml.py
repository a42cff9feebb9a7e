"""A valid user persona file, to be broken one field at a time by the tests."""

from __future__ import annotations

from pathlib import Path

VALID_ZED = """\
name = "zed"
display_name = "Zed"
role = "marine biologist"
lens = "ecological"
style = "patient"
expertise = ["ocean", "coral reef", "plankton"]
colleagues = ["embry"]

[bridges]
precision = 0.3
resilience = 0.9
fragility = 0.4
corruption = 0.1
loyalty = 0.2
stealth = 0.5

[bdi]
desires = ["protect reefs"]
intentions = ["cite field studies"]

[[bdi.beliefs]]
statement = "ecosystems recover slowly"
strength = 0.8
"""


def write_user_persona(home: Path, file_name: str, text: str) -> Path:
    folder = home / "personas"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file_name
    path.write_text(text, encoding="utf-8")
    return path
