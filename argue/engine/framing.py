"""Before the first round: the proposition, each persona's side, the mode's own step; and the
seats (system prompts) each round speaks from."""

from __future__ import annotations

from argue.domain import (
    Belief,
    Failure,
    Framing,
    Persona,
)
from argue.engine import prompts
from argue.engine.digest import clip
from argue.engine.modes import role_hint, stances_for
from argue.engine.phases import PersonaSeat
from argue.engine.runner_state import DebateFailed, RunnerState
from argue.engine.schemas import PHASE_FORMS, FramingDraft
from argue.llm import schema_instruction
from argue.llm.base import ModelAuthError, ModelError
from argue.records.history import DebateHistory

FRAMING_CALL = "framing model call"
# Where the guide goes first (``guide_first``), a persona's role follows its card.
ROLE_BELOW = "(Your own role in this debate is given at the end of these instructions.)"
ROLE_HEADING = "Your role in this debate: "


class DebateFraming(RunnerState):
    # ------------------------------------------------------------ framing

    async def _frame(self) -> None:
        """The proposition (the question itself if the framing call fails), the mode's own
        step, each persona's side. Run again on resume while the framing call has failed and
        no round has used its fallback (see ``_framing_to_ask_again``)."""
        config = self.store.config()
        self.store.update_state(phase="framing")
        fallback = config.framing
        if fallback is not None:
            self.say("t_framing_again")
        else:
            self.say("t_framing")
        lenses = {k: f"{p.display_name}: {p.lens}" for k, p in self.history.personas.items()}
        try:
            result = await self.model.complete(
                prompts.framing_messages(config.question, config.mode, lenses),
                output=FramingDraft,
                purpose="framing",
            )
            draft: FramingDraft = result.parsed()
            proposition = draft.proposition.strip() or config.question
            angles = {a.persona.strip().upper(): a.angle for a in draft.angles}
        except ModelAuthError:
            raise  # rejected credentials end the debate, see DebateRunner.run
        except ModelError as exc:
            self._record_failures(
                [
                    Failure(
                        round=0,
                        phase="framing",
                        kind="failed",
                        what=FRAMING_CALL,
                        reason=f"{exc}; the question itself is used as the proposition",
                        cause=exc.cause,
                    )
                ]
            )
            if fallback is not None:
                return  # failed again: the framing on file (the question) stands
            proposition, angles = config.question, {}
        from argue.engine.modes import PreDebateContext, PreDebateOutcome, mode_named

        mode = mode_named(config.mode)
        outcome = PreDebateOutcome()
        if mode.pre_debate is not None:
            seated = {letter: self.history.personas[letter] for letter in config.personas}
            try:
                outcome = await mode.pre_debate.run(
                    PreDebateContext(self.model, proposition, seated, self._card)
                )
            except ModelAuthError:
                raise  # rejected credentials end the debate, see DebateRunner.run
            except ModelError as exc:
                raise DebateFailed(f"{mode.pre_debate.what} could not be obtained: {exc}") from exc
        # A skill plugin that could not be loaded is reported once, before the first round.
        problems = getattr(self.toolkit, "problems", {})
        problems = [
            Failure(round=0, phase="framing", kind="refused", what=f"skill {name}", reason=why)
            for name, why in problems.items()
        ]
        told = {
            f.what for f in self.history.failures if f.phase == "framing" and f.kind == "refused"
        }
        self._record_failures([f for f in problems if f.what not in told])  # once per debate
        holds = outcome.advocate_holds
        stances = stances_for(
            config.mode, list(config.personas), self.history.personas, angles, holds
        )
        config.framing = Framing(
            proposition=proposition, stances=stances, private_views=outcome.private_views
        )
        self.store.save_config(config)
        self.history.config = config
        self.say("t_proposition", proposition=proposition)

    def _framing_to_ask_again(self) -> bool:
        """On resume: the framing call failed (the question stands as the proposition) and no
        prompt of round 1 has used that fallback yet (no research plan, no argument with
        claims, nothing committed), so the proposition can still be asked for again."""
        config = self.history.config
        if config.framing is None or config.framing.proposition != config.question:
            return False
        if not any(f.phase == "framing" and f.what == FRAMING_CALL for f in self.history.failures):
            return False
        first = self.history.rounds.get(1)
        return not self.store.has(self.paths.round_score(1)) and not any(
            self.store.has(self.paths.research_plan(letter, 1))
            or (first is not None and letter in first.arguments and first.arguments[letter].claims)
            for letter in config.personas
        )

    def _seats(self, round_no: int) -> dict[str, PersonaSeat]:
        config = self.history.config
        assert config.framing is not None
        seats = {}
        for letter, persona in self.history.personas.items():
            stance = config.framing.stances.get(letter, "your own angle")
            hint = role_hint(config.mode, list(config.personas).index(letter))
            # The persona file's card: the same system text every round (a prompt cache's
            # prefix), and trusted text only. Beliefs the reflections updated are model text:
            # they go with each round's material, fenced (PersonaSeat.beliefs).
            system = prompts.system_prompt(persona, self._card(persona), config, stance)
            guided = self._reads_schemas_from_prompt(letter)
            if guided and self._model_says(letter, "guide_first") is True:
                # The guide, the same for every persona, first: a cache shared between personas
                # (vLLM's prefix cache, a llama-server slot two personas share) reuses it from
                # any persona's request to the next.
                guide = prompts.phase_guide(ROLE_BELOW, phase_formats())
                system = f"{guide}\n\n{system}\n\n{ROLE_HEADING}{hint}"
            elif guided:
                system += "\n\n" + prompts.phase_guide(hint, phase_formats())
            self._seat_on_model(letter, system)
            seats[letter] = PersonaSeat(
                letter=letter,
                system=system,
                role_hint=hint,
                brief=prompts.brief(config, stance),
                beliefs=beliefs_now(persona, self.history, letter, round_no),
                record_chars=self._record_chars(letter),
                guided=guided,
            )
        return seats

    def _record_chars(self, letter: str) -> int:
        """The record budget for the persona's model (its context window, when it says)."""
        from argue.engine.record import record_budget

        window = self._model_says(letter, "context_window")
        return record_budget(window if isinstance(window, int) else None)

    def _reads_schemas_from_prompt(self, letter: str) -> bool:
        """Whether the persona's model puts schemas in the prompt of a request with a long
        cached prefix (Anthropic's and OpenAI's APIs): its system text then carries every
        phase's guide (:func:`prompts.phase_guide`)."""
        return self._model_says(letter, "reads_schemas_from_prompt") is True

    def _seat_on_model(self, letter: str, system: str) -> None:
        """Tell the persona's model, in seat order, that this system text is a persona's: a
        llama-server adapter gives it a KV slot of its own (``OpenAICompatModel.seat_persona``);
        models without slots have no such method."""
        model: object = self.model_for(letter)
        while model is not None:
            seat = getattr(type(model), "seat_persona", None)
            if callable(seat):
                seat(model, system)
                return
            model = getattr(model, "inner", None)

    def _model_says(self, letter: str, attribute: str) -> object:
        """``attribute`` of the persona's model, or of the first model it wraps that has it."""
        model: object = self.model_for(letter)
        while model is not None:
            value = getattr(model, attribute, None)
            if value is not None:
                return value
            model = getattr(model, "inner", None)
        return None

    @staticmethod
    def _card(persona: Persona) -> str:
        from argue.personas import persona_card

        return persona_card(persona)


def phase_formats() -> dict[str, str]:
    """Each phase's answer format as a prompt shows it (its stable form's schema)."""
    return {phase: schema_instruction(form) for phase, form in PHASE_FORMS.items()}


def updated_beliefs(
    persona: Persona, history: DebateHistory, letter: str, round_no: int
) -> Persona:
    """The persona's BDI after the belief updates of its reflections before ``round_no``."""
    beliefs = [b.model_copy() for b in persona.bdi.beliefs]
    for record in history.ordered_rounds():
        reflection = record.reflections.get(letter)
        if record.round >= round_no or reflection is None:
            continue
        for update in reflection.belief_updates:
            key = update.belief.strip().lower()
            match = next((b for b in beliefs if b.statement.strip().lower() == key), None)
            if match is not None:
                match.strength = update.new_strength
            else:
                beliefs.append(Belief(statement=update.belief, strength=update.new_strength))
    if beliefs == persona.bdi.beliefs:
        return persona
    bdi = persona.bdi.model_copy(update={"beliefs": beliefs[-8:]})
    return persona.model_copy(update={"bdi": bdi})


def beliefs_now(persona: Persona, history: DebateHistory, letter: str, round_no: int) -> str:
    """The persona's beliefs as its reflections before ``round_no`` left them, strongest first,
    when they differ from its file's ("" when they do not)."""
    updated = updated_beliefs(persona, history, letter, round_no)
    if updated is persona:
        return ""
    ranked = sorted(updated.bdi.beliefs, key=lambda belief: -belief.strength)[:6]
    return "\n".join(f"- {clip(b.statement, 200)} ({b.strength:.2f})" for b in ranked)
