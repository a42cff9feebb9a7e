"""The scripted-debate fixtures of the engine tests, for the report and watch tests."""

from tests.engine.conftest import new_store, personas, run_debate

__all__ = ["new_store", "personas", "run_debate"]
