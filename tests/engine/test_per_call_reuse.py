"""What a round's calls build once instead of once a call (issue 43 item 4): the result class
of per-call argument schemas, and the reference index of a set of documents and claims.

Teeth (each broken once by hand, the named test failed, then restored):
- ``result_type`` returning ``output`` itself:
  ``test_argument_schemas_of_different_tables_share_one_result_class``;
- ``result_type`` without its shape check (a subclass with a field of its own named its base):
  ``test_a_subclass_with_a_field_of_its_own_is_wrapped_as_itself``;
- ``DebateHistory.reference_index`` keyed without the evidence (claims only):
  ``test_the_reference_index_is_built_again_when_a_document_arrives``;
- the cache dropped (built on every call): ``test_the_same_documents_and_claims_share_one_index``.
"""

from __future__ import annotations

from pydantic import BaseModel

from argue.domain import Usage
from argue.engine.schemas import argument_model
from argue.llm._structured import _result_model, result_type
from argue.store.history import load_history

CLAIM = {"text": "The map is undecidable here", "warrant": "Conway 1972", "citations": []}


def test_argument_schemas_of_different_tables_share_one_result_class():
    first, second = argument_model(("A-R1-E1",)), argument_model(("A-R1-E1", "A-R1-E2"))
    assert first is not second  # each table its own schema (its enum of ids)
    assert _result_model(first) is _result_model(second)
    value = first.model_validate({"position": "p", "claims": [CLAIM]})
    usage = Usage(provider="scripted", model="m")
    result = _result_model(first)(value=value, text="{}", usage=usage)
    assert type(result.value) is first  # the instance the call's schema validated
    assert result.model_dump()["value"] == value.model_dump()  # dumped with every field


def test_a_subclass_with_a_field_of_its_own_is_wrapped_as_itself():
    class Base(BaseModel):
        a: int

    class Wider(Base):
        b: int = 0

    Wider.result_as = Base  # type: ignore[attr-defined]
    assert result_type(Wider) is Wider
    assert result_type(Base) is Base


def test_the_same_documents_and_claims_share_one_index(run_debate):
    run = run_debate(rounds=2)
    history = load_history(run.store)
    assert history.reference_index(2) is history.reference_index(2)
    assert history.reference_index(1) is not history.reference_index(2)


def test_the_reference_index_is_built_again_when_a_document_arrives(run_debate):
    run = run_debate(rounds=2)
    history = load_history(run.store)
    before = history.reference_index(2)
    research = next(iter(history.rounds[2].research.values()))
    extra = research.evidence[0].model_copy(update={"id": "A-R2-E99", "url": "https://x.test/new"})
    research.evidence.append(extra)
    assert history.reference_index(2) is not before
