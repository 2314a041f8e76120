"""awm serve: the published environments over MCP (streamable HTTP, or stdio for one environment)."""

from __future__ import annotations

import argparse
import gc
import os
import secrets
import sys
from pathlib import Path

from awm.errors import AWMError

TOKEN_ENV = "AWM_ADMIN_TOKEN"
TOKEN_FILE_ENV = "AWM_ADMIN_TOKEN_FILE"


def read_token_file(path: Path, notes: list[str]) -> str:
    """The admin token in `path`: its text, less one final line break (an editor's); nothing else is trimmed."""
    from awm.runtime.server import admin_token_problem

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AWMError(f"cannot read the admin token file {path}: {exc}") from exc
    token = text.removesuffix("\n").removesuffix("\r")
    problem = admin_token_problem(token)
    if problem:
        raise AWMError(f"the admin token in {path} {problem}")
    if path.stat().st_mode & 0o077:
        notes.append(f"warning: the admin token file {path} can be read by other users (chmod 600 it)")
    return token


def admin_token(args, notes: list[str]) -> str:
    """The admin token: from --admin-token-file, --admin-token, $AWM_ADMIN_TOKEN_FILE or $AWM_ADMIN_TOKEN, in
    that order; else a new random one. What the operator should know about it goes into `notes`."""
    from awm.runtime.server import admin_token_problem

    if args.admin_token_file and args.admin_token:
        raise AWMError("give --admin-token-file or --admin-token, not both")
    if args.admin_token_file:
        return read_token_file(args.admin_token_file, notes)
    if args.admin_token:
        notes.append("warning: --admin-token is visible to every user of this machine in the process list; prefer "
                     f"--admin-token-file or ${TOKEN_ENV}")
        token = args.admin_token
    elif os.environ.get(TOKEN_FILE_ENV):
        return read_token_file(Path(os.environ[TOKEN_FILE_ENV]), notes)
    elif os.environ.get(TOKEN_ENV):
        token = os.environ[TOKEN_ENV]
    else:
        token = secrets.token_urlsafe(24)
        notes.append(f"admin token (choose one with --admin-token-file or ${TOKEN_ENV}): {token}")
    problem = admin_token_problem(token)
    if problem:
        raise AWMError(f"the admin token {problem}")
    return token


def serve(args) -> int:
    from awm.runtime.environment import RewardMapping
    from awm.runtime.pool import WorkerPool
    from awm.runtime.server import RuntimeServer, run_http, run_stdio
    from awm.store import ArtifactStore

    store = ArtifactStore(args.home)
    reward = RewardMapping(*args.reward) if args.reward else None
    caps = {name: getattr(args, name) for name in ("worker_memory_mb", "episode_db_mb", "episode_log_mb",
                                                   "unreserved_memory_mb") if getattr(args, name) is not None}
    pool = WorkerPool(workers=args.workers, call_seconds=args.call_timeout, memory_mb=args.memory_mb, **caps)
    try:
        if args.transport == "stdio":
            if not args.env or len(args.env) != 1:
                raise AWMError("--transport stdio serves one environment: give exactly one --env")
            run_stdio(store, args.env[0], args.task, pool, args.final_db, reward, args.tool_format)
            return 0
        if args.task or args.final_db:
            raise AWMError("--task and --final-db are for --transport stdio; over HTTP the task goes in the URL "
                           "(?task=t01)")
        notes: list[str] = []
        configured = bool(args.admin_token_file or args.admin_token or os.environ.get(TOKEN_FILE_ENV)
                          or os.environ.get(TOKEN_ENV))
        token = admin_token(args, notes)
        # A token the operator configured means a trainer: serve its reservations only, unless told otherwise.
        reserved_only = configured if args.reserved_only is None else args.reserved_only
        if args.public_url and not args.public_url.startswith(("http://", "https://")):
            raise AWMError(f"--public-url {args.public_url!r} must start with http:// or https://")
        sources = ()
        if args.awm1k:  # imported AWM-1K environments, in the foreign runtime (docs/awm1k.md)
            from awm.awm1k.serving import ImportedEnvironments

            sources = (ImportedEnvironments(store, memory_mb=args.memory_mb),)
        try:
            server = RuntimeServer(store, pool, token, host=args.host, env_ids=args.env, reward=reward,
                                   score_grace=args.score_grace, idle_timeout=args.idle_timeout or None,
                                   max_sessions=args.max_sessions, max_request_bytes=args.max_request_bytes,
                                   public_url=args.public_url, tool_format=args.tool_format,
                                   reserved_only=reserved_only, max_unreserved=args.max_unreserved,
                                   max_connections=args.max_connections, sources=sources)
        except ValueError as exc:
            raise AWMError(str(exc)) from exc

        def ready(http) -> None:
            port = http.servers[0].sockets[0].getsockname()[1] if http.servers else args.port
            print(f"awm serve: {len(server.catalog)} environments at http://{args.host}:{port}/envs/<env_id>/mcp "
                  f"(list: GET /envs); {pool.stats()['workers'].__len__()} sandbox workers, "
                  f"{pool.isolation.mode} isolation; "
                  + ("reserved episodes only (--no-reserved-only opens /envs/<env_id>/mcp)" if reserved_only else
                     f"unreserved sessions open (at most {server.registry.max_unreserved} of --max-sessions "
                     f"{server.registry.max_held})"), file=sys.stderr)
            for note in notes:
                print(f"awm serve: {note}", file=sys.stderr)
            sys.stderr.flush()

        # A server process holds thousands of long-lived session objects: with the default thresholds the
        # cyclic collector rescans them so often that it doubled the CPU per call at 1,000 sessions
        # (benchmarks/bench_runtime.py). Freeze what startup made and collect young objects less eagerly.
        gc.freeze()
        gc.set_threshold(50_000, 20, 20)
        run_http(server, args.port, ready)
        return 0
    finally:
        pool.close()


def register(sub) -> None:
    parser = sub.add_parser("serve", help="serve published environments to agents over MCP",
                            description="Serve the catalog's environments over MCP. Each MCP session is an episode "
                                        "with its own database copy; a trainer scores it through the admin endpoint "
                                        "(HTTP) or from the saved final database (stdio). See docs/runtime.md.")
    parser.add_argument("--transport", choices=("http", "stdio"), default="http")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default loopback)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (0 picks a free one)")
    parser.add_argument("--env", action="append", metavar="ENV_ID",
                        help="serve only this environment (repeatable; exactly one with stdio)")
    parser.add_argument("--task", help="stdio: the task the episode is for")
    parser.add_argument("--tool-format", choices=("strict", "permissive", "verl", "awm"), default="strict",
                        help="how agents see the tools: strict (every parameter required, optional ones nullable; "
                             "fits strict function calling), permissive (optional parameters left out of required), "
                             "verl (one type per property, as verl's tool schema model takes them), "
                             "awm (list_tools and call_tool, as AWM-trained models expect); a reservation or "
                             "?tool_format= chooses per episode (default strict)")
    parser.add_argument("--final-db", type=Path, help="stdio: write the episode's final database here at the end")
    parser.add_argument("--admin-token-file", type=Path, metavar="FILE",
                        help=f"file holding the token for /admin endpoints (default ${TOKEN_FILE_ENV}, else "
                             f"${TOKEN_ENV}, else one is generated and printed on stderr)")
    parser.add_argument("--admin-token", help="the token itself (visible in the process list: prefer the file "
                                              "or the environment)")
    parser.add_argument("--public-url", metavar="URL",
                        help="base of the URLs handed out (reservations, /envs), e.g. https://envs.example:8443; "
                             "default: the bound address")
    parser.add_argument("--workers", type=int, default=None, help="sandbox worker processes (default: CPU count)")
    parser.add_argument("--call-timeout", type=float, default=2.0, help="seconds one tool call may run")
    parser.add_argument("--memory-mb", type=int, default=256, help="memory budget of one tool call, MiB")
    # defaults: WorkerPool's (imported only when serving)
    parser.add_argument("--worker-memory-mb", type=float,
                        help="resident-memory ceiling of one sandbox worker, MiB (default 1024; 0: none)")
    parser.add_argument("--episode-db-mb", type=float, help="size cap of one episode's database, MiB (default 64; 0: none)")
    parser.add_argument("--episode-log-mb", type=float,
                        help="call arguments kept per episode to rebuild it after a sandbox crash, MiB (default 8; "
                             "0: no cap)")
    parser.add_argument("--score-grace", type=float, default=60.0,
                        help="seconds an ended session's episode is kept for scoring")
    parser.add_argument("--idle-timeout", type=float, default=1800.0, help="seconds before an idle session ends")
    parser.add_argument("--max-sessions", type=int, default=10_000,
                        help="episodes held at once (reserved, live, and ended ones kept for scoring), each "
                             "counted once per MCP session open on it")
    parser.add_argument("--reserved-only", action=argparse.BooleanOptionalAction, default=None,
                        help="serve only episodes the trainer reserved: /envs/<env_id>/mcp refuses every session "
                             "(HTTP 403). Default: on when the admin token is configured (--admin-token-file, "
                             f"--admin-token, ${TOKEN_FILE_ENV}, ${TOKEN_ENV}), off when it is generated")
    parser.add_argument("--max-unreserved", type=int, default=None,
                        help="of --max-sessions, what unreserved sessions may hold; the rest is kept for "
                             "reservations (default half)")
    parser.add_argument("--max-connections", type=int, default=8,
                        help="MCP sessions open at once on one reserved episode; each counts against --max-sessions")
    parser.add_argument("--unreserved-memory-mb", type=float,
                        help="what the databases of a sandbox worker's unreserved episodes may hold together, MiB "
                             "(default half of --worker-memory-mb); the rest is kept for reserved episodes")
    parser.add_argument("--max-request-bytes", type=int, default=64 * 1024,
                        help="largest JSON-RPC message accepted, hence largest tool call (default 65536)")
    parser.add_argument("--reward", type=float, nargs=3, metavar=("COMPLETE", "PARTIAL", "INCOMPLETE"),
                        help="reward mapping (default 1.0 0.1 0.0)")
    parser.add_argument("--awm1k", action=argparse.BooleanOptionalAction, default=True,
                        help="HTTP: serve the catalog's imported AWM-1K environments too (their checked and proven "
                             "tasks; their code in the foreign runtime, under bubblewrap; default on)")
    parser.set_defaults(handler=serve)
