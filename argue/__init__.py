"""argue: structured debates between LLM personas that end in a nuanced synthesis."""

__version__ = "0.1.0"
