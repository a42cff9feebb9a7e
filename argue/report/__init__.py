"""The HTML report of a debate: argument map, confidence and score figures, the synthesis.

Like :mod:`argue.render`, it reads records only; ``argue report`` loads them and writes the file.
"""

from argue.report.html import render_report

REPORT_FILE = "report.html"
"""Its default place: ``debates/<id>/report.html``."""

__all__ = ["REPORT_FILE", "render_report"]
