"""Runs in the interpreter holding agent-world-model 0.1.0 (Python 3.12; its package is also named `awm`, so this
script runs without the project on its path). Their own code only, unmodified, on `awm export --layout awm1k`
output; per run of the job:

1. their reset, as their CLI runs it (`awm env reset_db`), in a process of its own (two in-process calls hung a
   CI job in the second: it forks a process pool), builds the scenario's initial database; the one their server
   works on starts as a copy of it;
2. their server is started as their CLI starts it (`python -m awm.core.server`: the `create_engine` rewrite,
   fastapi_mcp mounted at /mcp, uvicorn);
3. their agent (`awm.core.agent.run_agent`) plays the task against that MCP endpoint, its model the
   OpenAI-compatible endpoint the job names (`awm llm-serve --agent`), with the run's model name (the policy), on
   an event loop of its own whose leftover tasks are cancelled and waited for a bounded time
   (tests/ecosystem/their_loop.py);
4. the task's exported verifier is called with their signature, `verify_task_completion(initial_db_path,
   final_db_path, final_answer)`, in the namespace their verifier runner gives it (sqlite3, json).

The final answer and the calls are read from their agent's own log (loguru). Prints one JSON line: per run, the
verdict, the final answer, the tools called, the tool responses and the seconds it took. Each step has a deadline
and says on stderr what it starts; a step past its deadline ends the script with its name, and one that hangs past
all of them has every thread's stack written to stderr (faulthandler)."""

from __future__ import annotations

import faulthandler
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "ecosystem"))
from their_loop import run_bounded  # noqa: E402 - a sibling folder's stdlib-only module


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url: str, seconds: float = 180.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"their server did not answer at {url} within {seconds:.0f} s")


RESET_SECONDS = 180.0
AGENT_SECONDS = 240.0


def step(text: str) -> None:
    print(f"[their_agent_rollouts] {text}", file=sys.stderr, flush=True)


def reset(folder: Path, name: str, out: Path) -> str:
    """Their reset through their CLI, in a process of its own, into `out`; the database's path."""
    try:
        subprocess.run([sys.executable, "-m", "awm.cli", "env", "reset_db", "--input_db", str(folder / "gen_db.jsonl"),
                        "--input_sample", str(folder / "gen_sample.jsonl"), "--database_dir", str(out),
                        "--scenarios", name], check=True, timeout=RESET_SECONDS, stdout=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"their reset of {name} did not finish within {RESET_SECONDS:.0f} s") from None
    return str(out / f"{name}.db")


def main() -> None:
    job = json.loads(Path(sys.argv[1]).read_text())
    # a hang no step's deadline catches still says where it was, before the test's own timeout (900 s) kills it
    faulthandler.dump_traceback_later(840, exit=True)
    from awm.core.agent import Config, run_agent
    from awm.tools import tools_jsonl_load
    from loguru import logger

    folder, name, work = Path(job["folder"]), job["scenario"], Path(job["work"])
    verifiers = {item["task_idx"]: item["verification"]["code"]
                 for item in tools_jsonl_load(str(folder / "gen_verifier.pure_code.jsonl")) if item["scenario"] == name}
    log: list[str] = []
    logger.remove()  # their agent's log, kept here instead of on stderr
    logger.add(lambda message: log.append(message.record["message"]), level="INFO")
    out = []
    for run in job["runs"]:
        base = work / run["key"]
        step(f"{run['key']}: their reset")
        databases = {"initial": reset(folder, name, base / "initial")}
        (base / "final").mkdir()
        databases["final"] = str(shutil.copyfile(databases["initial"], base / "final" / f"{name}.db"))
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "awm.core.server", "--scenario", name, "--envs_load_path",
                                   str(folder / "gen_envs.jsonl"), "--db_path", databases["final"], "--port",
                                   str(port), "--temp_server_path", str(base / "server.py")],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            step(f"{run['key']}: their server on port {port}")
            wait_for(f"http://127.0.0.1:{port}/openapi.json")
            log.clear()
            step(f"{run['key']}: their agent")
            config = Config(task=run["instruction"], mcp_url=f"http://127.0.0.1:{port}/mcp",
                            vllm_url=job["base_url"], model=run["model"], max_iterations=run["max_iterations"],
                            verbose=True)
            try:
                seconds, leftover = run_bounded(run_agent(config), AGENT_SECONDS)
            except TimeoutError:
                raise SystemExit(f"their agent did not finish {run['key']} within {AGENT_SECONDS:.0f} s; its log "
                                 f"ends: {log[-5:]}") from None
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
        marks = [i for i, line in enumerate(log) if " Final Answer " in line]
        final = log[marks[-1] + 1] if marks and marks[-1] + 1 < len(log) else None
        calls = [line.removeprefix("Executing: ") for line in log if line.startswith("Executing: ")]
        responses = [line for line in log if line.startswith("Tool response")]
        step(f"{run['key']}: their verifier")
        namespace = {"sqlite3": sqlite3, "json": json}
        exec(verifiers[run["task_idx"]], namespace)
        for path in databases.values():
            os.chmod(path, 0o444)  # as their runner does: the verifier reads, never writes
        verdict = namespace["verify_task_completion"](initial_db_path=databases["initial"],
                                                      final_db_path=databases["final"], final_answer=final)
        out.append({"key": run["key"], "verdict": verdict, "final": final, "calls": calls, "responses": responses,
                    "databases": databases, "seconds": round(seconds, 2), "leftover_tasks": leftover})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
