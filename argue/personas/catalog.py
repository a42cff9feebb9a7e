"""Persona files: the built-ins shipped in ``argue/personas/builtin`` plus the user's own.

User personas live in ``ARGUE_HOME/personas/*.toml``; one whose ``name`` matches a built-in
replaces it. Every problem in a file is reported as one line naming the file and the field.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from argue.domain import BRIDGES, Bridge, Persona

BUILTIN_SOURCE = "builtin"
_NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_-]*$")


class PersonaFileError(ValueError):
    """A persona file that cannot be used; ``str()`` is one line: ``<file>: <field>: <problem>``."""

    def __init__(self, file: str, field: str, problem: str) -> None:
        self.file = file
        self.field = field
        self.problem = problem
        where = f"{file}: {field}" if field else file
        super().__init__(f"{where}: {problem}")


class UnknownPersonaError(LookupError):
    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        super().__init__(f"unknown persona '{name}' (known: {', '.join(known)})")


# The file schema is stricter than argue.domain.Persona: unknown keys are typos, every bridge
# weight must be present and within 0-1.


class _BeliefFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    statement: str = Field(min_length=1)
    strength: float = Field(ge=0.0, le=1.0)


class _BDIFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    beliefs: list[_BeliefFile] = Field(default_factory=list)
    desires: list[str] = Field(default_factory=list)
    intentions: list[str] = Field(default_factory=list)


class _PersonaWordsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: str = Field(min_length=1)
    lens: str = Field(min_length=1)


class _PersonaFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    display_name: str = Field(min_length=1)
    role: str = Field(min_length=1)
    lens: str = Field(min_length=1)
    expertise: list[str] = Field(min_length=1)
    style: str = Field(min_length=1)
    bridges: dict[Bridge, Annotated[float, Field(ge=0.0, le=1.0)]]
    bdi: _BDIFile = Field(default_factory=_BDIFile)
    colleagues: list[str] = Field(default_factory=list)
    # This persona's own model: "MODEL" (the debate's provider) or "provider:MODEL".
    model: str | None = Field(default=None, min_length=1, pattern=r"\S")
    # French role and lens, shown in French documents: [fr] role = "…", lens = "…".
    fr: _PersonaWordsFile | None = None

    @field_validator("name")
    @classmethod
    def _name_is_identifier(cls, value: str) -> str:
        if not _NAME_PATTERN.match(value):
            raise ValueError(
                "must be lower-case letters, digits, '-' or '_', starting with a letter"
            )
        return value

    @field_validator("expertise")
    @classmethod
    def _keywords_lower_case(cls, value: list[str]) -> list[str]:
        keywords = [keyword.strip().lower() for keyword in value]
        if any(not keyword for keyword in keywords):
            raise ValueError("keywords must not be empty")
        return list(dict.fromkeys(keywords))

    @field_validator("bridges")
    @classmethod
    def _all_bridges_weighted(cls, value: dict[str, float]) -> dict[str, float]:
        missing = [bridge for bridge in BRIDGES if bridge not in value]
        if missing:
            raise ValueError(f"missing weight(s) for: {', '.join(missing)}")
        return {bridge: value[bridge] for bridge in BRIDGES}

    @field_validator("colleagues")
    @classmethod
    def _colleague_names_lower_case(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(name.strip().lower() for name in value))


def _error_field(loc: tuple[int | str, ...]) -> str:
    parts = [str(part) for part in loc if part != "[key]"]
    return ".".join(parts)


def _error_problem(message: str) -> str:
    return message.removeprefix("Value error, ")


def parse_persona(text: str, file: str, expected_name: str | None = None) -> Persona:
    """Parse one persona TOML document; ``file`` is how errors name it."""
    from argue.files import BoundedReadError, loads_toml

    try:
        data: dict[str, Any] = loads_toml(text, file)
    except tomllib.TOMLDecodeError as error:
        raise PersonaFileError(file, "", f"invalid TOML: {error}") from None
    except BoundedReadError as error:
        raise PersonaFileError(file, "", error.reason) from None
    try:
        parsed = _PersonaFile.model_validate(data)
    except ValidationError as error:
        errors = error.errors()
        first = errors[0]
        problem = _error_problem(first["msg"])
        if len(errors) > 1:
            problem += f" (and {len(errors) - 1} more problem(s))"
        raise PersonaFileError(file, _error_field(first["loc"]), problem) from None
    if expected_name is not None and parsed.name != expected_name:
        raise PersonaFileError(
            file, "name", f"'{parsed.name}' must match the file name ('{expected_name}')"
        )
    if parsed.name in parsed.colleagues:
        raise PersonaFileError(file, "colleagues", f"'{parsed.name}' lists itself")
    return Persona.model_validate(parsed.model_dump())


def load_persona_file(path: Path) -> Persona:
    from argue.files import BoundedReadError, read_text

    try:
        # A FIFO or device is refused unopened; the size is capped before reading.
        text = read_text(path)
    except BoundedReadError as error:
        raise PersonaFileError(str(path), "", error.reason) from None
    except (OSError, UnicodeDecodeError) as error:
        raise PersonaFileError(str(path), "", f"cannot read: {error}") from None
    if text is None:
        raise PersonaFileError(str(path), "", "cannot read: no such file")
    return parse_persona(text, str(path), expected_name=path.stem.lower())


def load_builtin_personas() -> list[Persona]:
    folder = resources.files("argue.personas") / "builtin"
    entries = sorted(
        (entry for entry in folder.iterdir() if entry.name.endswith(".toml")),
        key=lambda entry: entry.name,
    )
    return [
        parse_persona(
            entry.read_text(encoding="utf-8"),
            f"builtin/{entry.name}",
            expected_name=entry.name.removesuffix(".toml"),
        )
        for entry in entries
    ]


class PersonaCatalog:
    """Personas by name (case-insensitive), each with where it came from."""

    def __init__(self, personas: Mapping[str, Persona], sources: Mapping[str, str]) -> None:
        self._personas = {name.lower(): personas[name] for name in sorted(personas)}
        self._sources = {name.lower(): source for name, source in sources.items()}

    def get(self, name: str) -> Persona:
        key = name.strip().lower()
        if key not in self._personas:
            raise UnknownPersonaError(name, self.names())
        return self._personas[key]

    def source(self, name: str) -> str:
        """``builtin`` or the path of the user file that defined it."""
        return self._sources[self.get(name).name]

    def names(self) -> list[str]:
        return list(self._personas)

    def all(self) -> list[Persona]:
        return list(self._personas.values())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.strip().lower() in self._personas

    def __iter__(self) -> Iterator[Persona]:
        return iter(self._personas.values())

    def __len__(self) -> int:
        return len(self._personas)


def load_catalog(user_dir: Path | None = None) -> PersonaCatalog:
    """Built-ins, then ``user_dir`` (default ``ARGUE_HOME/personas``) overriding by name."""
    personas: dict[str, Persona] = {}
    sources: dict[str, str] = {}
    for persona in load_builtin_personas():
        personas[persona.name] = persona
        sources[persona.name] = BUILTIN_SOURCE
    if user_dir is None:
        from argue.paths import user_personas_dir

        user_dir = user_personas_dir()
    if user_dir.is_dir():
        for path in sorted(user_dir.glob("*.toml")):
            persona = load_persona_file(path)
            personas[persona.name] = persona
            sources[persona.name] = str(path)
    for name, persona in personas.items():
        unknown = [colleague for colleague in persona.colleagues if colleague not in personas]
        if unknown:
            file = sources[name] if sources[name] != BUILTIN_SOURCE else f"builtin/{name}.toml"
            raise PersonaFileError(
                file,
                "colleagues",
                f"unknown persona(s) {', '.join(unknown)} (known: {', '.join(sorted(personas))})",
            )
    return PersonaCatalog(personas, sources)
