"""awm backfill --domain D [--domain E ...]: a per-domain backfill through the running webserver."""

from __future__ import annotations

import sys
import time

from awm.dagster_client import DagsterClient
from awm.domains import validate_domain_slug
from awm.errors import AWMError


def run_backfill(args) -> int:
    domains = [validate_domain_slug(d) for d in args.domain]
    client = DagsterClient(args.url, location=args.location)
    for domain in domains:
        if client.add_domain(domain):
            print(f"registered domain partition {domain}")
    backfill_id = client.launch_backfill(domains)
    print(f"launched backfill {backfill_id} for {', '.join(domains)} ({args.url}/overview/backfills/{backfill_id})")
    if args.no_wait:
        return 0
    deadline = time.monotonic() + args.timeout
    last = ""
    while True:
        progress = client.backfill_progress(backfill_id)
        line = progress.line()
        if line != last:
            print(line, flush=True)
            last = line
        if progress.done:
            if progress.error:
                print(f"error: {progress.error}", file=sys.stderr)
            return 0 if progress.succeeded else 1
        if time.monotonic() > deadline:
            raise AWMError(f"backfill {backfill_id} still {progress.status} after {args.timeout:.0f}s")
        time.sleep(args.poll)


def register(sub) -> None:
    parser = sub.add_parser("backfill", help="backfill one or more domains through the running Dagster webserver")
    parser.add_argument("--domain", action="append", required=True, help="domain slug (repeatable)")
    parser.add_argument("--url", default="http://127.0.0.1:3000", help="Dagster webserver (default %(default)s)")
    parser.add_argument("--location", default="awm", help="code location name (workspace.yaml)")
    parser.add_argument("--no-wait", action="store_true", help="launch and return")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait for the backfill")
    parser.add_argument("--poll", type=float, default=2.0, help="seconds between progress checks")
    parser.set_defaults(handler=run_backfill)
