"""Whether model text copies the words code uses for its own markers.

Code marks what it found ("the source says:", "quote not found", "**unverified**",
"(= A-R1-E1)", "**evidence:**"…). Those marks are rendered in a form model text cannot produce,
but a claim that writes them anyway is imitating code's account of the evidence: it is shown as
it is, and it never ranks. Only the forms code writes count (with their colon, dash, brackets
or bold), so "a near match between theory and data" or "cases not counted" are not copies.
English and French, matched after folding (NFKC, case, typographic apostrophes). Pure.
"""

from __future__ import annotations

import re
import unicodedata

_PHRASES = (
    r"the source says\s*:", r"la source dit\s*:", r"\(\s*near match", r"near match\s*[—–-]",
    r"correspondance approchée\s*[—–-]", r"quote not found", r"citation introuvable",
    r"quoted out of context\s*:", r"citée hors contexte\s*:", r"refused by the model",
    r"refus du modèle", r"contradicted by the source it quotes", r"contredite par la source",
    r"\(\s*=\s*[A-Z]-R\d{1,3}-E\d{1,4}\s*\)",
    r"\*\*\s*(?:unverified|evidence\s*:|not counted|quoted\s*:|non vérifiée?|preuves\s*:"
    r"|non comptée?|citation trouvée\s*:)\s*\*\*",
)  # fmt: skip
_PATTERN = re.compile("|".join(f"(?:{p})" for p in _PHRASES), re.IGNORECASE)
_FOLD = str.maketrans({"’": "'", "‘": "'", "\u00a0": " ", "\u202f": " "})


def marker_copies(text: str) -> list[str]:
    """The marker forms ``text`` writes, as written (once each, in order)."""
    folded = unicodedata.normalize("NFKC", text).translate(_FOLD)
    return list(dict.fromkeys(m.group() for m in _PATTERN.finditer(folded)))
