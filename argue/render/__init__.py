"""Jinja2 rendering of transcripts and syntheses from the saved records."""

from argue.render.markdown import render_synthesis, render_transcript, synthesis_context

__all__ = ["render_synthesis", "render_transcript", "synthesis_context"]
