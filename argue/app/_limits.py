"""Bounds on what a request may ask for (imported by ``--help`` texts, so nothing heavy here)."""

# --question-file: at most 4 bytes a character are ever read. 15,000 leaves room in the shared
# memory's 20,000-character archive entry (the question and a conclusion of up to 4,000).
QUESTION_MAX_CHARS = 15_000
MAX_ROUNDS = 50
# A persona name, a model spec or a debate id from outside is never this long.
NAME_MAX_CHARS = 200
NOTE_MAX_CHARS = 4_000
