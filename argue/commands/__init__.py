"""CLI sub-commands; each module imports only typer and the stdlib at load time."""
