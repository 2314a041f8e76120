"""AWM-1K environments: import time, and reset and call latency under our foreign runtime against their own
server started their way (same machine, one run). Prints a table and writes benchmarks/results/awm1k.json.

    python benchmarks/bench_awm1k.py [--dataset tests/fixtures/awm1k/sample] [--scenario e_commerce_33]
                                     [--reference-python /path/to/py3.12/bin/python] [--calls 50]

Ours: `ForeignHost` (python -m awm.awm1k.host under bubblewrap): start and load once, then per episode a reset
(SQLite backup of the initial database over the working one) and calls through ASGI in-process over a pipe.
Theirs (with --reference-python, an interpreter with `agent-world-model` 0.1.0 and fastapi-mcp installed): a
database made by their `reset_single_database`, their server started by their `start_server_process`
(`python -m awm.core.server`: FastAPI + fastapi_mcp under uvicorn), timed until its MCP endpoint answers (their
reset is a new database and a new server); calls as their agent makes them, a new MCP session per tool call
(streamable HTTP, the `mcp` client of their interpreter), and plain HTTP calls of the same route for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from awm.awm1k.database import build_database  # noqa: E402
from awm.awm1k.dataset import read_dataset  # noqa: E402
from awm.awm1k.importer import import_dataset  # noqa: E402
from awm.awm1k.runtime import ForeignHost, smoke_arguments  # noqa: E402
from awm.store import ArtifactStore  # noqa: E402


def summary(values: list[float]) -> dict:
    ordered = sorted(values)
    return {"n": len(values), "median_ms": round(statistics.median(ordered), 3),
            "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 3), "mean_ms": round(statistics.mean(ordered), 3)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ours(scenario, calls: int, read_tool: str, write_tool: str, workdir: Path) -> dict:
    db = workdir / "ours.db"
    build_database(db, scenario.tables, scenario.samples)
    started = time.perf_counter()
    host = ForeignHost.start()
    spawned = time.perf_counter()
    routes = {r.tool: r for r in host.load(scenario.code, db)}
    loaded = time.perf_counter()
    reads, writes, resets, inside = [], [], [], []
    try:
        for _ in range(calls):
            t = time.perf_counter()
            host.reset()
            resets.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            answer = host.call_tool(read_tool, smoke_arguments(routes[read_tool]))
            reads.append((time.perf_counter() - t) * 1000)
            inside.append(answer["ms"])
            t = time.perf_counter()
            host.call_tool(write_tool, smoke_arguments(routes[write_tool]))
            writes.append((time.perf_counter() - t) * 1000)
    finally:
        host.close()
    return {"start_ms": round((spawned - started) * 1000, 1), "load_ms": round((loaded - spawned) * 1000, 1),
            "reset": summary(resets), "read_call": summary(reads), "read_call_in_sandbox": summary(inside),
            "write_call": summary(writes), "isolation": host.isolation.detail}


REFERENCE_CLIENT = textwrap.dedent('''
    import asyncio, json, sys, time
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client
    url, tool, args, route, calls = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4]), int(sys.argv[5])

    async def one_session_call():
        async with streamablehttp_client(url) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await session.call_tool(tool, args)

    async def main():
        mcp, http = [], []
        for _ in range(calls):
            t = time.perf_counter(); await one_session_call(); mcp.append((time.perf_counter() - t) * 1000)
        async with httpx.AsyncClient(base_url=url.rsplit("/mcp", 1)[0]) as client:
            for _ in range(calls):
                t = time.perf_counter()
                await client.request(route["method"], route["path"], params=route.get("query"), json=route.get("body"))
                http.append((time.perf_counter() - t) * 1000)
        print(json.dumps({"mcp_session_per_call": mcp, "http": http}))
    asyncio.run(main())
''')

REFERENCE_RESET = textwrap.dedent("""
    import json, os, sys, time
    from awm.core.reset import reset_all_databases
    t = time.perf_counter()
    reset_all_databases(sys.argv[1], sys.argv[2], sys.argv[4], {sys.argv[3]})
    print(json.dumps({"path": os.path.join(sys.argv[4], sys.argv[3] + ".db"), "ms": (time.perf_counter() - t) * 1000}))
""")

# Their code on our export: their verifier runner on each exported verifier (the null test their generator
# runs: final = initial, answer "EMPTY RESPONSE FOR TESTING"), and their MCP server's tool list and one call.
REFERENCE_LOAD = textwrap.dedent("""
    import json, sys
    from awm.core.verifier import VerificationMode, execute_verification_code
    from awm.tools import tools_jsonl_load
    verdicts = {}
    for item in tools_jsonl_load(sys.argv[1]):
        done = execute_verification_code(item["verification"]["code"], "verify_task_completion", sys.argv[2],
                                         mode=VerificationMode.code)
        key = done["execution_status"] + ":" + str((done.get("result") or {}).get("result"))
        verdicts[key] = verdicts.get(key, 0) + 1
    print(json.dumps(verdicts))
""")

REFERENCE_TOOLS = textwrap.dedent("""
    import asyncio, json, sys
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    async def main():
        async with streamablehttp_client(sys.argv[1]) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = (await session.list_tools()).tools
                schema = next(t.inputSchema for t in tools if t.name == sys.argv[2])
                kinds = {"integer": 1, "number": 1.0, "string": "test", "boolean": True, "array": [], "object": {}}
                args = {p: kinds.get(schema["properties"][p].get("type"), "test") for p in schema.get("required", [])}
                called = await session.call_tool(sys.argv[2], args)
                print(json.dumps({"tools": len(tools), "called": sys.argv[2], "arguments": args,
                                  "is_error": called.isError,
                                  "text": called.content[0].text[:200] if called.content else ""}))
    asyncio.run(main())
""")


def wait_for(url: str, seconds: float = 120.0) -> bool:
    import httpx

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=1.0)
            return True
        except httpx.HTTPError:
            time.sleep(0.02)
    return False


def their_database(python: str, dataset: Path, name: str, workdir: Path, folder: str) -> dict:
    made = subprocess.run([python, "-c", REFERENCE_RESET, str(dataset / "gen_db.jsonl"),
                           str(dataset / "gen_sample.jsonl"), name, str(workdir / folder)],
                          capture_output=True, text=True, check=True, cwd=workdir)
    return json.loads(made.stdout.strip().splitlines()[-1])


def their_server(python: str, dataset: Path, name: str, db: str, workdir: Path, tag: str):
    """Their server as their CLI starts it (`awm env start`: python -m awm.core.server), and when it answered."""
    port = free_port()
    started = time.perf_counter()
    server = subprocess.Popen([python, "-m", "awm.core.server", "--scenario", name, "--envs_load_path",
                               str(dataset / "gen_envs.jsonl"), "--db_path", db, "--port", str(port),
                               "--temp_server_path", str(workdir / f"server_{tag}.py")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir,
                              start_new_session=True)
    if not wait_for(f"http://127.0.0.1:{port}/openapi.json"):
        os.killpg(server.pid, 15)
        raise SystemExit("their server did not answer within 120 s")
    return server, port, (time.perf_counter() - started) * 1000


def stop(server: subprocess.Popen) -> None:
    os.killpg(server.pid, 15)
    server.wait(timeout=30)


def theirs(python: str, dataset: Path, name: str, calls: int, read_tool: str, route: dict, workdir: Path,
           starts: int = 3) -> dict:
    resets, startup, result = [], [], {}
    for attempt in range(starts):
        reset = their_database(python, dataset, name, workdir, f"theirs{attempt}")
        resets.append(reset["ms"])
        server, port, ms = their_server(python, dataset, name, reset["path"], workdir, str(attempt))
        startup.append(ms)
        try:
            if attempt == starts - 1:
                out = subprocess.run([python, "-c", REFERENCE_CLIENT, f"http://127.0.0.1:{port}/mcp", read_tool,
                                      json.dumps(route.get("args", {})), json.dumps(route), str(calls)],
                                     capture_output=True, text=True, cwd=workdir)
                if out.returncode != 0:
                    result["client_error"] = out.stderr[-1500:]
                else:
                    timings = json.loads(out.stdout.strip().splitlines()[-1])
                    result["mcp_call_new_session"] = summary(timings["mcp_session_per_call"])
                    result["http_call"] = summary(timings["http"])
        finally:
            stop(server)
    result["db_reset"] = summary(resets)
    result["server_start"] = summary(startup)
    return result


def their_code_on_our_export(python: str, export: Path, workdir: Path) -> dict:
    """Their reset, server and verifier runner on `awm export --layout awm1k` output."""
    names = [json.loads(line)["name"] for line in (export / "gen_scenario.jsonl").read_text().splitlines()]
    report = {}
    for position, name in enumerate(names):
        reset = their_database(python, export, name, workdir, "export")
        conn = sqlite3.connect(reset["path"])
        tables = [t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE "
                                             "'sqlite_%'").fetchall()]
        rows = sum(conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables)
        conn.close()
        sample = json.loads((export / "gen_sample.jsonl").read_text().splitlines()[position])
        expected = sum(len(t["insert_statements"]) for t in sample["sample_data"]["tables"])
        verifiers = workdir / "verifiers_one.jsonl"
        verifiers.write_text("".join(line + "\n" for line in (export / "gen_verifier.pure_code.jsonl").read_text()
                                     .splitlines() if json.loads(line)["scenario"] == name))
        judged = subprocess.run([python, "-c", REFERENCE_LOAD, str(verifiers), reset["path"]], capture_output=True,
                                text=True, cwd=workdir)
        server, port, ms = their_server(python, export, name, reset["path"], workdir, "export")
        try:
            spec = json.loads((export / "gen_spec.jsonl").read_text().splitlines()[position])
            first = spec["api_spec"]["api_groups"][0]["endpoints"][0]["operation_id"]
            listed = subprocess.run([python, "-c", REFERENCE_TOOLS, f"http://127.0.0.1:{port}/mcp", first],
                                    capture_output=True, text=True, cwd=workdir)
        finally:
            stop(server)
        report[name] = {"rows_inserted": rows, "insert_statements": expected, "server_start_ms": round(ms, 1),
                        "null_test_by_their_runner": json.loads(judged.stdout.strip().splitlines()[-1])
                        if judged.returncode == 0 else judged.stderr[-800:],
                        "mcp": json.loads(listed.stdout.strip().splitlines()[-1]) if listed.returncode == 0
                        else listed.stderr[-800:]}
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path, default=ROOT / "tests" / "fixtures" / "awm1k" / "sample")
    parser.add_argument("--scenario", default="e_commerce_33")
    parser.add_argument("--read-tool", default="search_products")
    parser.add_argument("--write-tool", default="add_cart_item")
    parser.add_argument("--reference-python", help="an interpreter with agent-world-model 0.1.0 and fastapi-mcp")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--our-export", type=Path, help="an `awm export --layout awm1k` folder to load with their "
                                                       "code (needs --reference-python)")
    args = parser.parse_args()
    dataset = args.dataset.resolve()
    report: dict = {"benchmark": "awm1k", "machine": {"cpus": os.cpu_count()}, "dataset": str(args.dataset.name)}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        imports = import_dataset(ArtifactStore(workdir / "home"), dataset)
        report["import"] = [{"scenario": r.scenario, "status": r.status, "tasks": r.tasks,
                             "seconds": round(r.seconds, 3)} for r in imports]
        scenario = read_dataset(dataset)[args.scenario]
        report["ours"] = ours(scenario, args.calls, args.read_tool, args.write_tool, workdir)
        if args.reference_python:
            with ForeignHost.start() as host:  # the read route's request, as our runtime makes it
                db = workdir / "probe.db"
                build_database(db, scenario.tables, scenario.samples)
                r = {route.tool: route for route in host.load(scenario.code, db)}[args.read_tool]
            arguments = smoke_arguments(r)
            path, query, body = r.request(arguments)
            routes = {"method": r.method, "path": path, "query": query, "body": body, "args": arguments}
            report["theirs"] = theirs(args.reference_python, dataset, args.scenario, args.calls, args.read_tool,
                                      routes, workdir)
            if args.our_export:
                report["their_code_on_our_export"] = their_code_on_our_export(
                    args.reference_python, args.our_export.resolve(), workdir)
    for item in report["import"]:
        print(f"import {item['scenario']}: {item['status']} {item['tasks']} in {item['seconds']:.2f} s")
    o = report["ours"]
    print(f"ours: start {o['start_ms']} ms, load {o['load_ms']} ms, reset median {o['reset']['median_ms']} ms, "
          f"read call median {o['read_call']['median_ms']} ms ({o['read_call_in_sandbox']['median_ms']} ms inside), "
          f"write call median {o['write_call']['median_ms']} ms")
    if "theirs" in report:
        t = report["theirs"]
        print(f"theirs: db reset median {t['db_reset']['median_ms']} ms, server start median {t['server_start']['median_ms']} ms, "
              f"MCP call (new session) median {t.get('mcp_call_new_session', {}).get('median_ms')} ms, "
              f"HTTP call median {t.get('http_call', {}).get('median_ms')} ms {t.get('client_error', '')}")
    for name, item in report.get("their_code_on_our_export", {}).items():
        print(f"their code on our export, {name}: {json.dumps(item)[:400]}")
    out = ROOT / "benchmarks" / "results" / "awm1k.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
