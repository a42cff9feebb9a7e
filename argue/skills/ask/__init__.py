"""The ask skill: consult a colleague persona for an expert opinion."""

from argue.skills.ask.consult import ColleagueAnswer, MemoryRecall, answer_id, ask, consult_messages

__all__ = ["ColleagueAnswer", "MemoryRecall", "answer_id", "ask", "consult_messages"]
