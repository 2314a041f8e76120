"""The `awm` command line. Subcommands live in awm/commands/, one module each."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from awm.commands import COMMAND_MODULES
from awm.errors import AWMError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="awm", description="Agent World Model platform")
    parser.add_argument("--home", type=Path, default=None, help="artifact root (default $AWM_HOME or ./.awm)")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except AWMError as exc:
        print(f"awm: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
