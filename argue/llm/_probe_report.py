"""What ``argue doctor``'s probes report: one :class:`Check` a question, a :class:`ProbeReport` a
model. Apart from the probes themselves (``argue.llm.probe``) so that the provider contract
(``argue.llm._spec``: a row's ``probe`` hook returns a report) names the report without
importing the probes, which import the adapters."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from argue.llm._dialects import Dialect

Status = Literal["ok", "rejected", "invalid_output", "unavailable", "crashed", "unreachable",
                 "no_content", "not_told", "skipped"]  # fmt: skip


@dataclass
class Check:
    name: str
    status: Status
    detail: str = ""
    latency_s: float | None = None
    dialect: bool = False  # a structured-output row
    http_status: int | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "kind": "dialect" if self.dialect else "check"}


@dataclass
class ProbeReport:
    provider: str
    model: str
    endpoint: str  # a base URL, or the model file of the local provider
    key_env: str = ""  # the variable holding the key, when the provider takes one
    checks: list[Check] = field(default_factory=list)
    structured: str | None = None  # how a debate will ask for structured output (None: no way)
    forced: Dialect | None = None  # the dialect a setting forces, if one does
    served: list[str] = field(default_factory=list)  # the model ids the server lists
    remembered: Dialect | None = None
    notes: list[str] = field(default_factory=list)

    def check(self, name: str) -> Check | None:
        return next((c for c in self.checks if c.name == name), None)
