"""The taxonomy skill: tag arguments with the six bridges (precision … stealth)."""

from argue.skills.taxonomy.classify import (
    BridgeTag,
    BridgeTags,
    TaxonomyResult,
    classify,
    classify_with_model,
    taxonomy_skill,
)
from argue.skills.taxonomy.vocabulary import BRIDGE_KEYWORDS

__all__ = [
    "BRIDGE_KEYWORDS",
    "BridgeTag",
    "BridgeTags",
    "TaxonomyResult",
    "classify",
    "classify_with_model",
    "taxonomy_skill",
]
