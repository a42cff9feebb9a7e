"""The compact persona text the debate engine puts in every system prompt."""

from __future__ import annotations

from argue.domain import BRIDGES, Persona

MAX_CARD_CHARS = 1500
HIGH_WEIGHT = 0.65
LOW_WEIGHT = 0.25
_MAX_ITEMS = 3
_MAX_ITEM_CHARS = 140

BRIDGE_GUIDANCE: dict[str, str] = {
    "precision": "formal proofs and exact definitions",
    "resilience": "practical implications and what holds up under stress",
    "fragility": "edge cases and failure modes",
    "corruption": "adversarial and contrarian angles; attack the strongest claim",
    "loyalty": "precedent, consistency and established consensus",
    "stealth": "hidden variables and unstated assumptions",
}


def _clip(text: str, limit: int = _MAX_ITEM_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def bridge_guidance(persona: Persona) -> list[str]:
    """One line per high-weighted bridge (strongest first), plus what low weights mean."""
    ordered = sorted(BRIDGES, key=lambda bridge: (-persona.bridges.get(bridge, 0.0), bridge))
    lines = [
        f"high {bridge.capitalize()} ({persona.bridges[bridge]:.2f}) → {BRIDGE_GUIDANCE[bridge]}"
        for bridge in ordered
        if persona.bridges.get(bridge, 0.0) >= HIGH_WEIGHT
    ]
    low = [
        bridge.capitalize() for bridge in BRIDGES if persona.bridges.get(bridge, 1.0) <= LOW_WEIGHT
    ]
    if low:
        lines.append(f"low {', '.join(low)} → rarely lead with that angle")
    return lines


def persona_card(persona: Persona) -> str:
    """Role, lens, style, bridge guidance and BDI, under ``MAX_CARD_CHARS`` characters."""
    weights = ", ".join(
        f"{bridge.capitalize()}={persona.bridges.get(bridge, 0.0):.2f}" for bridge in BRIDGES
    )
    lines = [
        f"You are {persona.display_name}, {_clip(persona.role)}.",
        f"Lens: {_clip(persona.lens)}. Style: {_clip(persona.style, 200)}.",
        f"Expertise: {_clip(', '.join(persona.expertise[:12]), 200)}.",
        f"Bridge weights: {weights}.",
    ]
    guidance = bridge_guidance(persona)
    if guidance:
        lines.append("Emphasis: " + "; ".join(guidance) + ".")
    beliefs = sorted(persona.bdi.beliefs, key=lambda belief: -belief.strength)[:_MAX_ITEMS]
    if beliefs:
        lines.append("Beliefs:")
        lines.extend(f"- {_clip(belief.statement)} ({belief.strength:.2f})" for belief in beliefs)
    if persona.bdi.desires:
        lines.append("Desires: " + "; ".join(_clip(d) for d in persona.bdi.desires[:_MAX_ITEMS]))
    if persona.bdi.intentions:
        lines.append(
            "Intentions: " + "; ".join(_clip(i) for i in persona.bdi.intentions[:_MAX_ITEMS])
        )
    card = "\n".join(lines)
    while len(card) > MAX_CARD_CHARS and len(lines) > 4:
        lines.pop()
        card = "\n".join(lines)
    return card[:MAX_CARD_CHARS]
