"""Subcommands of the `awm` command line, one module each.

A module here defines `register(subparsers)`, which adds its parser and sets
`handler=fn(args) -> int` on it. To add a command, write a module and list it in
COMMAND_MODULES; keep imports of heavy packages inside the handler.
"""

COMMAND_MODULES = (
    "awm.commands.inspect",
    "awm.commands.domains",
    "awm.commands.serve",
    "awm.commands.export",
    "awm.commands.backfill",
    "awm.commands.llm_serve",
    "awm.commands.sandbox",
    "awm.commands.eval",
    "awm.commands.import_awm",
    "awm.commands.serve_awm1k",
    "awm.commands.promote_awm1k",
)
