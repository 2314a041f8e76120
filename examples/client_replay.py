"""A trainer's side in a few lines, with awm.client: reserve an episode of one exported task, replay its
reference solution through the episode's tools, then score and end it (reward 1); `--null` calls nothing
(reward 0).

    awm export --with-reference --out tasks.jsonl
    AWM_ADMIN_TOKEN_FILE=~/.awm/admin-token awm serve &
    python examples/client_replay.py tasks.jsonl retail_banking__00 t03 --admin-token-file ~/.awm/admin-token
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from awm.client import Client


def find_task(path: str, env_id: str, task_id: str) -> dict:
    with open(path, encoding="utf-8") as lines:  # one line at a time: an export can be large
        for line in lines:
            if f'"{task_id}"' in line and f'"{env_id}"' in line:
                record = json.loads(line)
                if record["env_id"] == env_id and record["task_id"] == task_id:
                    return record
    sys.exit(f"{path} has no task {env_id} {task_id}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("export")
    parser.add_argument("env_id")
    parser.add_argument("task_id")
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--admin-token-file")
    parser.add_argument("--null", action="store_true", help="call nothing and answer nothing")
    args = parser.parse_args()
    record = find_task(args.export, args.env_id, args.task_id)
    if "reference" not in record:
        sys.exit("the export has no reference solutions: write it with --with-reference")
    with Client(args.base_url, admin_token_file=args.admin_token_file) as client:
        episode = client.reserve(args.env_id, args.task_id, tool_format="permissive")
        started = time.perf_counter()
        for step in [] if args.null else record["reference"]["solution"]:
            text, failed = episode.call(step["tool"], step["arguments"])
            print(f"{step['tool']}: {'error ' if failed else ''}{text[:100]}")
        seconds = time.perf_counter() - started
        verdict = episode.end(None if args.null else record["reference"]["answer"])
    print(json.dumps({"reward": verdict["reward"], "complete": verdict["complete"], "calls": verdict["calls"],
                      "episode": verdict["episode"], "seconds": round(seconds, 3)}))


if __name__ == "__main__":
    main()
