"""``argue memory recall|learn|list|forget``: what personas remember across debates."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from argue.commands._output import echo_json, note, show_skill_result
from argue.console import echo

if TYPE_CHECKING:
    from argue.app import MemoryRecord, SkillItem

memory_app = typer.Typer(
    help="Persona memories and the shared archive of finished debates.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)


@memory_app.command("recall")
def recall_command(
    query: str = typer.Argument(..., help="What to remember", show_default=False),
    persona: str | None = typer.Option(
        None, "--persona", help="Whose memories (default: the shared archive only)"
    ),
    k: int = typer.Option(5, "--k", help="How many memories to return"),
    min_score: float = typer.Option(0.0, "--min-score", help="Drop matches scoring below (0-1)"),
    no_shared: bool = typer.Option(
        False, "--no-shared", help="With --persona: leave the shared archive out"
    ),
    json_output: bool = typer.Option(False, "--json", help="Print the SkillResult as JSON"),
) -> None:
    """Search memories; exit 1 if the memory database could not be read."""
    from argue.app import check_bounds, recall
    from argue.commands._debate import app_errors
    from argue.console import die

    with app_errors():
        check_bounds(k=k, min_score=min_score)
    if no_shared and not (persona and persona.strip()):
        die("--no-shared needs --persona (otherwise there is nothing to search)", 2)
    with app_errors():
        result = recall(query, persona, k=k, min_score=min_score, include_shared=not no_shared)
    show_skill_result(result, json_output, _print_recalled)


def _print_recalled(rank: int, item: SkillItem, score: str) -> None:
    where = f"  {item.locator}" if item.locator else ""
    echo(f"{item.id}  {item.title}  [score {score}]{where}")
    echo(f"    {item.snippet}")


@memory_app.command("learn")
def learn_command(
    text: str = typer.Argument(..., help="What to remember", show_default=False),
    persona: str | None = typer.Option(None, "--persona", help="Whose memory this is"),
    shared: bool = typer.Option(False, "--shared", help="Store in the shared archive"),
    tags: list[str] = typer.Option([], "--tag", help="A tag (repeatable)"),
    kind: str = typer.Option("note", "--kind", help="note, claim, fact, lesson..."),
) -> None:
    """Store one memory and print its id."""
    from argue.app import learn
    from argue.commands._debate import app_errors
    from argue.console import die

    if not (persona and persona.strip()) and not shared:
        die("say whose memory this is: --persona NAME, or --shared", 2)
    with app_errors():
        memory_id = learn(text, persona=persona, shared=shared, tags=tags, kind=kind)
    echo(memory_id)


@memory_app.command("list")
def list_command(
    persona: str | None = typer.Option(None, "--persona", help="Only this persona's memories"),
    limit: int = typer.Option(50, "--limit", help="At most this many, newest first"),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON document"),
) -> None:
    """Stored memories, newest first (all of them unless --persona)."""
    from argue.app import check_bounds, memories
    from argue.commands._debate import app_errors

    with app_errors():
        check_bounds(limit=limit)
        records = memories(persona, limit)
    if json_output:
        echo_json({"memories": [record.model_dump() for record in records]})
        return
    if not records:
        note(f"no memories stored{f' for {persona}' if persona else ''}")
        return
    for record in records:
        _print_record(record)


def _print_record(record: MemoryRecord) -> None:
    tags = f"  [{', '.join(record.tags)}]" if record.tags else ""
    where = f"  {record.locator()}" if record.locator() else ""
    echo(
        f"{record.id}  {record.owner()}  {record.kind} ({record.origin_words()})  "
        f"{record.created_at}{where}{tags}"
    )
    echo(f"    {' '.join(record.text.split())}")


@memory_app.command("forget")
def forget_command(
    memory_id: str = typer.Argument(..., metavar="ID", help="mem:<n>", show_default=False),
) -> None:
    """Delete one memory; an id that names none is exit 2."""
    from argue.app import forget
    from argue.commands._debate import app_errors

    with app_errors():
        forget(memory_id)
    echo(f"forgot {memory_id}")
