"""The runtime, measured: reset, tool calls in-process and over MCP, and many concurrent sessions in one server.

    python benchmarks/bench_runtime.py                         # builds a small corpus in a temp dir
    python benchmarks/bench_runtime.py --home .awm --sessions 100 1000
    python benchmarks/bench_runtime.py --isolation process    # workers without OS isolation, to compare

Prints a table and writes benchmarks/results/runtime.json. What is measured:

  reset      a fresh private copy of the initial database: SQLite backup API into memory, a file copy
             (to tmpfs), and deserialize (one memcpy of the file image), raw; then Environment.reset end to end
  start      a sandbox worker, from starting the process to its greeting (a one-worker pool started and closed)
  call       one read tool: the bare function, run_tool with its savepoint and call limits in this process
             on a new instance of the tools module, as a worker runs every call (the sandbox's own cost), and
             Episode.call through the sandbox worker (the isolation's cost)
  mcp        the same call through the official mcp client over streamable HTTP to `awm serve` (a subprocess)
  sessions   N concurrent MCP sessions on one server, each calling tools in a closed loop: calls/s and memory
  failover   a sandbox worker killed while its successor cannot start (EMFILE): seconds until each of its
             episodes answers again from another worker, with its state
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from awm.store import ArtifactStore  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "runtime.json"
TOKEN = "bench-token"


def percentiles(samples: list[float]) -> dict:
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"n": len(ordered), "p50_ms": round(pick(0.50) * 1e3, 4), "p99_ms": round(pick(0.99) * 1e3, 4),
            "mean_ms": round(statistics.fmean(ordered) * 1e3, 4)}


def timed(fn, n: int, warmup: int = 50) -> dict:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return percentiles(samples)


def ensure_corpus(home: Path | None) -> ArtifactStore:
    if home is not None:
        store = ArtifactStore(home)
        if not store.catalog_path.exists():
            raise SystemExit(f"no catalog at {store.catalog_path}; build it (make run) or omit --home")
        return store
    from awm.stages.catalog import build_catalog
    from awm.stages.pipeline import build_environment

    store = ArtifactStore(Path(tempfile.mkdtemp(prefix="awm-bench-runtime-")))
    print(f"building a small corpus in {store.home} ...", flush=True)
    for domain in ("retail_banking", "dental_clinic"):
        outcomes = build_environment(store, domain, 0)
        if not all(o.ok for o in outcomes):
            raise SystemExit(f"corpus build failed: {[(o.stage, o.error) for o in outcomes if not o.ok]}")
    build_catalog(store, store.env_ids())
    return store


def read_call(env) -> tuple[str, dict]:
    """A read-only tool and arguments that succeed (the first tool getting one row by id, whatever its API style
    names it, on row 1)."""
    for spec in env.tools:
        required = spec["inputSchema"].get("required", [])
        if spec["annotations"].get("readOnlyHint") and list(spec["inputSchema"]["properties"]) == required and \
                len(required) == 1 and required[0].endswith("_id"):
            return spec["name"], {required[0]: 1}
    raise SystemExit(f"{env.env_id} has no get_<entity>(id) tool to measure")


# --- reset ----------------------------------------------------------------------------------------


def bench_reset(env, n: int) -> dict:
    from awm.runtime.db import fresh_copy, open_template

    template = open_template(env.db_path)
    image = env.db_path.read_bytes()
    scratch = Path(tempfile.mkdtemp(prefix="awm-reset-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))

    def by_backup():  # what the runtime uses
        fresh_copy(template).close()

    def by_deserialize():
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.deserialize(image)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.close()

    counter = iter(range(10 ** 9))

    def by_file_copy():
        target = scratch / f"{next(counter)}.db"
        shutil.copyfile(env.db_path, target)
        conn = sqlite3.connect(target, isolation_level=None)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.close()
        target.unlink()

    def end_to_end():
        env.reset().close()

    try:
        return {"db_bytes": len(image), "backup_api": timed(by_backup, n), "file_copy": timed(by_file_copy, n),
                "deserialize": timed(by_deserialize, n), "environment_reset": timed(end_to_end, n),
                "memory_per_episode_kb": {method: episode_memory_in_fresh_process(method, env.db_path)
                                          for method in ("backup_api", "deserialize")}}
    finally:
        template.close()
        shutil.rmtree(scratch, ignore_errors=True)


def rss_kb() -> int:
    return int(re.search(r"VmRSS:\s+(\d+) kB", Path("/proc/self/status").read_text()).group(1))


def episode_memory_in_fresh_process(method: str, db_path: Path) -> float:
    """Measured in a new interpreter each, so one method does not reuse memory the other freed."""
    done = subprocess.run([sys.executable, __file__, "--episode-memory", method, str(db_path)], capture_output=True,
                          text=True, check=True)
    return float(done.stdout.strip())


def episode_memory(method: str, db_path: Path) -> float:
    from awm.runtime.db import fresh_copy, open_template

    template = open_template(db_path)
    image = db_path.read_bytes()

    def deserialized():
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.deserialize(image)
        return conn

    return episode_memory_kb(deserialized if method == "deserialize" else lambda: fresh_copy(template))


def episode_memory_kb(open_copy, count: int = 300) -> float:
    """Resident memory per episode once every table has been read and a row written."""
    before = rss_kb()
    copies = [open_copy() for _ in range(count)]
    tables = [r[0] for r in copies[0].execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for conn in copies:
        for table in tables:
            conn.execute(f'SELECT * FROM "{table}"').fetchall()
        conn.execute(f'UPDATE "{tables[0]}" SET rowid = rowid WHERE rowid = 1')
    used = (rss_kb() - before) / count
    for conn in copies:
        conn.close()
    return round(used, 1)


# --- worker start ------------------------------------------------------------------------------------


def bench_worker_start(n: int) -> dict:
    from awm.runtime.pool import WorkerPool

    samples = []
    for _ in range(n):
        pool = WorkerPool(workers=1)
        started = time.perf_counter()
        pool.start()
        samples.append(time.perf_counter() - started)
        pool.close()
    return percentiles(samples)


# --- calls in process -------------------------------------------------------------------------------


def bench_calls(env, n: int) -> dict:
    from awm.runtime.db import DBHandle, fresh_copy, open_template
    from awm.runtime.sandbox import compile_checked, install_call_limits, run_module
    from awm.runtime.tools import DEFAULT_CALL_MEMORY_MB, run_tool

    tool, arguments = read_call(env)
    code = compile_checked(env.tools_source, "tools.py")
    fn = run_module(code, "tools.py")[tool]
    db = DBHandle(fresh_copy(open_template(env.db_path)))
    install_call_limits()
    memory = DEFAULT_CALL_MEMORY_MB * 1024 * 1024
    episode = env.reset()
    try:
        return {"tool": tool,
                "bare_function": timed(lambda: fn(db, **arguments), n),
                "sandboxed_in_process": timed(
                    lambda: run_tool(db, run_module(code, "tools.py")[tool], tool, arguments, 2.0, memory), n),
                "python_api_via_worker": timed(lambda: episode.call(tool, arguments), n)}
    finally:
        episode.close()


# --- over MCP -----------------------------------------------------------------------------------


class ServerProcess:
    """`awm serve` in a subprocess, so the client does not share its interpreter."""

    def __init__(self, home: Path, workers: int):
        env = {**os.environ, "AWM_ADMIN_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "awm.cli", "--home", str(home), "serve"]
        usage = subprocess.run([*command, "--help"], capture_output=True, text=True, env=env).stdout
        # the sessions measured are unreserved: with a configured token, servers that know --reserved-only need
        # to be told (an older tree, measured for comparison, does not know the flag)
        opened = ["--no-reserved-only"] if "--reserved-only" in usage else []
        self.proc = subprocess.Popen(
            [*command, "--port", "0", "--workers", str(workers), "--idle-timeout", "600", "--score-grace", "0",
             *opened],
            stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not found:
            self.proc.kill()
            raise SystemExit(f"awm serve did not start: {line}{self.proc.stderr.read()}")
        self.url = f"http://127.0.0.1:{found.group(1)}"

    def pids(self) -> list[int]:
        """The server and every process under it (the sandbox workers; under OS isolation, bubblewrap's too):
        /healthz names no process."""
        parents: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
        found = [self.proc.pid]
        for pid in found:
            found += [child for child, parent in parents.items() if parent == pid]
        return found

    def rss_mb(self) -> dict:
        sizes = {}
        for pid in self.pids():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            sizes[pid] = int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024
        return {"server_mb": round(sizes[self.proc.pid], 1),
                "workers_mb": round(sum(v for k, v in sizes.items() if k != self.proc.pid), 1),
                "total_mb": round(sum(sizes.values()), 1)}

    def cpu_seconds(self) -> dict:
        """CPU time used so far by the server process and by its sandbox workers."""
        ticks = os.sysconf("SC_CLK_TCK")
        used = {}
        for pid in self.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            used[pid] = (int(fields[11]) + int(fields[12])) / ticks
        return {"server": used[self.proc.pid], "workers": sum(v for k, v in used.items() if k != self.proc.pid)}

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


async def bench_mcp_call(url: str, env_id: str, tool: str, arguments: dict, n: int) -> dict:
    from mcp import Client

    async with Client(f"{url}/envs/{env_id}/mcp") as session:
        for _ in range(50):
            await session.call_tool(tool, arguments)
        samples = []
        for _ in range(n):
            started = time.perf_counter()
            result = await session.call_tool(tool, arguments)
            samples.append(time.perf_counter() - started)
            assert not result.is_error, result.content
    opened = []
    for _ in range(20):
        started = time.perf_counter()
        async with Client(f"{url}/envs/{env_id}/mcp"):
            opened.append(time.perf_counter() - started)
    return {"call": percentiles(samples), "session_open_and_close": percentiles(opened)}


class WireSession:
    """One MCP session spoken directly on the wire: JSON-RPC over streamable HTTP (JSON responses), HTTP/1.1
    keep-alive on its own connection.

    The load generator for many sessions. The official client costs ~3 ms of CPU per call at a thousand
    sessions on this machine (it validates each result against the tool list), and a general HTTP client
    pool of a thousand connections costs as much; on two shared cores either would measure itself rather
    than the server. Latency above is measured with the official client.
    """

    def __init__(self, url: str):
        parts = urlsplit(url)
        self.host, self.port, self.path = parts.hostname, parts.port, parts.path
        self.ids = itertools.count(1)
        self.headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def _request(self, method: str, body: dict | None = None) -> tuple[int, dict, bytes]:
        payload = json.dumps(body).encode() if body is not None else b""
        head = [f"{method} {self.path} HTTP/1.1", f"Host: {self.host}:{self.port}", f"Content-Length: {len(payload)}"]
        head += [f"{k}: {v}" for k, v in self.headers.items()]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        headers = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        content = await self.reader.readexactly(int(headers.get("content-length", 0)))
        if status >= 400:
            raise RuntimeError(f"{method} {self.path}: HTTP {status}: {content[:200]!r}")
        return status, headers, content

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        _, headers, content = await self._request("POST", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
        self.headers["mcp-session-id"] = headers["mcp-session-id"]
        self.headers["mcp-protocol-version"] = json.loads(content)["result"]["protocolVersion"]
        await self._request("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _, _, content = await self._request("POST", {"jsonrpc": "2.0", "id": next(self.ids), "method": "tools/list"})
        assert json.loads(content)["result"]["tools"]

    async def call(self, tool: str, arguments: dict) -> dict:
        _, _, content = await self._request("POST", {"jsonrpc": "2.0", "id": next(self.ids), "method": "tools/call",
                                                     "params": {"name": tool, "arguments": arguments}})
        return json.loads(content)["result"]

    async def close(self) -> None:
        await self._request("DELETE")
        self.writer.close()


async def bench_idle_sessions(server: ServerProcess, env_id: str, sessions: int) -> dict:
    """Memory the server and its workers hold for `sessions` open, idle, unreserved sessions."""
    before = await asyncio.to_thread(server.rss_mb)
    agents = [WireSession(f"{server.url}/envs/{env_id}/mcp") for _ in range(sessions)]
    opening = asyncio.Semaphore(50)

    async def open_one(agent: WireSession) -> None:
        async with opening:
            await agent.open()

    started = time.perf_counter()
    await asyncio.gather(*(open_one(a) for a in agents))
    opened = time.perf_counter() - started
    await asyncio.sleep(1)
    held = await asyncio.to_thread(server.rss_mb)
    for agent in agents:  # their connections may have idled out: the sessions end with the server
        agent.writer.close()
    return {"sessions": sessions, "open_seconds": round(opened, 2), "memory_before": before, "memory_held": held,
            "memory_per_session_kb": round((held["total_mb"] - before["total_mb"]) * 1024 / sessions, 1)}


async def bench_sessions(server: ServerProcess, env_id: str, tool: str, arguments: dict, sessions: int,
                         seconds: float) -> dict:
    before = await asyncio.to_thread(server.rss_mb)
    url = f"{server.url}/envs/{env_id}/mcp"
    agents = [WireSession(url) for _ in range(sessions)]
    opening = asyncio.Semaphore(50)

    async def open_one(agent: WireSession) -> None:
        async with opening:
            await agent.open()

    started = time.perf_counter()
    await asyncio.gather(*(open_one(a) for a in agents))
    open_seconds = time.perf_counter() - started
    held = await asyncio.to_thread(server.rss_mb)
    counts = [0] * sessions
    latencies: list[float] = []
    errors = 0
    last_done = 0.0

    async def loop(i: int, agent: WireSession) -> None:
        nonlocal errors, last_done
        while time.perf_counter() < stop_at:
            begun = time.perf_counter()
            result = await agent.call(tool, arguments)
            last_done = time.perf_counter()
            latencies.append(last_done - begun)
            counts[i] += 1
            errors += bool(result.get("isError"))

    cpu_before, load_cpu_before = await asyncio.to_thread(server.cpu_seconds), time.process_time()
    started = time.perf_counter()
    stop_at = started + seconds
    running = asyncio.gather(*(loop(i, a) for i, a in enumerate(agents)))
    await asyncio.sleep(seconds / 2)
    busy = await asyncio.to_thread(server.rss_mb)
    await running
    elapsed = last_done - started
    cpu_after, load_cpu = await asyncio.to_thread(server.cpu_seconds), time.process_time() - load_cpu_before
    await asyncio.gather(*(a.close() for a in agents))
    calls = sum(counts)
    server_ms = (cpu_after["server"] - cpu_before["server"]) * 1e3 / max(calls, 1)
    return {
        "sessions": sessions, "open_seconds": round(open_seconds, 2), "seconds": round(elapsed, 2),
        "calls": calls, "calls_per_second": round(calls / elapsed, 1), "errors": errors,
        "sessions_that_called": sum(1 for c in counts if c), "call_latency": percentiles(latencies),
        "cpu": {"server_ms_per_call": round(server_ms, 3),
                "workers_ms_per_call": round((cpu_after["workers"] - cpu_before["workers"]) * 1e3 / max(calls, 1), 3),
                "load_generator_ms_per_call": round(load_cpu * 1e3 / max(calls, 1), 3),
                "server_calls_per_cpu_second": round(1e3 / server_ms, 1) if server_ms else None},
        "memory_before": before, "memory_with_sessions": held, "memory_under_load": busy,
        "memory_per_session_kb": round((held["total_mb"] - before["total_mb"]) * 1024 / sessions, 1),
    }


def bench_failover(store: ArtifactStore, env_id: str, tool: str, arguments: dict, episodes: int = 20,
                   rounds: int = 5) -> dict:
    """Kill a worker of a two-worker pool while starting a successor fails (EMFILE); time from the kill until
    each episode it held answers again (rebuilt on the other worker, its calls replayed), and check its state.
    The calls are sent once the death is seen: one sent before would be the one blamed for it."""
    import errno
    import signal

    from awm.runtime import pool as pool_module
    from awm.runtime.environment import Environment

    real = pool_module.start_python
    tried = threading.Event()

    def failing(*args, **kwargs):
        tried.set()
        raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))

    back, last = [], []
    for _ in range(rounds):
        with pool_module.WorkerPool(workers=2) as pool, Environment.from_store(store, env_id, pool=pool) as env:
            opened = [env.reset() for _ in range(episodes)]
            before = [json.dumps(e.call(tool, arguments), sort_keys=True) for e in opened]
            held = [e for e in opened if e.record.worker is pool._workers[0]]
            pool_module.start_python = failing
            try:
                tried.clear()
                started = time.perf_counter()
                os.kill(pool.stats()["workers"][0]["pid"], signal.SIGKILL)
                tried.wait(10)  # its death seen (a call sent before would be blamed for it, as a crash)
                futures = [(e, e.env.pool.call(e.record, tool, arguments)) for e in held]
                for episode, future in futures:
                    answer = json.dumps(future.result(), sort_keys=True)
                    back.append(time.perf_counter() - started)
                    assert answer == before[opened.index(episode)], answer
                last.append(time.perf_counter() - started)
                assert pool.stats()["down"] == 1
            finally:
                pool_module.start_python = real
            for episode in opened:
                episode.close()
    return {"episodes_moved_per_round": len(held), "rounds": rounds,
            "episode_back": percentiles(back), "all_back": percentiles(last)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=None, help="a built corpus (default: build a small one)")
    parser.add_argument("--n", type=int, default=2000, help="samples per latency measurement")
    parser.add_argument("--sessions", type=int, nargs="*", default=[100, 1000])
    parser.add_argument("--seconds", type=float, default=10.0, help="load duration per concurrency level")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="sandbox workers of the server")
    parser.add_argument("--isolation", choices=("auto", "os", "process"), default=None,
                        help="sandbox workers' isolation (default $AWM_SANDBOX_ISOLATION, else auto)")
    parser.add_argument("--starts", type=int, default=30, help="worker starts to time")
    parser.add_argument("--episode-memory", nargs=2, metavar=("METHOD", "DB"), help=argparse.SUPPRESS)
    parser.add_argument("--idle-sessions", type=int, default=1000,
                        help="idle unreserved sessions whose memory is measured (on a server of their own)")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"where to write the JSON (default {RESULTS})")
    args = parser.parse_args()
    if args.episode_memory:
        print(episode_memory(args.episode_memory[0], Path(args.episode_memory[1])))
        return 0
    if args.isolation:
        os.environ["AWM_SANDBOX_ISOLATION"] = args.isolation  # this process's pools and the server's

    from awm.runtime.environment import Environment
    from awm.runtime.pool import WorkerPool
    from awm.runtime.server import published_catalog

    store = ensure_corpus(args.home)
    env_id = sorted(published_catalog(store))[0]
    results: dict = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                 "platform": platform.platform(), "sqlite": sqlite3.sqlite_version},
                     "env_id": env_id}
    with WorkerPool(workers=1) as pool:
        results["isolation"] = pool.stats()["isolation"]
        print(f"sandbox isolation: {results['isolation']['mode']} ...", flush=True)
        results["worker_start"] = bench_worker_start(args.starts)
        env = Environment.from_store(store, env_id, pool=pool)
        tool, arguments = read_call(env)
        print("reset ...", flush=True)
        results["reset"] = bench_reset(env, args.n)
        print("calls in process ...", flush=True)
        results["call_in_process"] = bench_calls(env, args.n)
        env.close()
    from awm.runtime import pool as pool_module

    if hasattr(pool_module, "WorkerDown"):  # a tree measured for comparison may predate failover
        print("failover ...", flush=True)
        results["failover"] = bench_failover(store, env_id, tool, arguments)

    server = ServerProcess(store.home, args.workers)
    try:
        print("calls over MCP streamable HTTP ...", flush=True)
        results["call_mcp_http"] = asyncio.run(bench_mcp_call(server.url, env_id, tool, arguments, args.n // 2))
        results["concurrent_sessions"] = []
        for sessions in args.sessions:
            print(f"{sessions} concurrent sessions ...", flush=True)
            results["concurrent_sessions"].append(
                asyncio.run(bench_sessions(server, env_id, tool, arguments, sessions, args.seconds)))
    finally:
        server.stop()
    if args.idle_sessions:
        print(f"{args.idle_sessions} idle sessions ...", flush=True)
        server = ServerProcess(store.home, args.workers)
        try:
            results["idle_sessions"] = asyncio.run(bench_idle_sessions(server, env_id, args.idle_sessions))
        finally:
            server.stop()

    results["targets"] = {
        "reset_p99_ms<=5": results["reset"]["environment_reset"]["p99_ms"] <= 5,
        "in_process_call_p50_ms<=1": results["call_in_process"]["python_api_via_worker"]["p50_ms"] <= 1,
        "mcp_http_call_p50_ms<=10": results["call_mcp_http"]["call"]["p50_ms"] <= 10,
        "sessions>=1000": any(r["sessions"] >= 1000 and r["sessions_that_called"] == r["sessions"] and not r["errors"]
                              for r in results["concurrent_sessions"]),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    from awm.store import atomic_write_text

    atomic_write_text(args.out, json.dumps(results, indent=2) + "\n")
    print_table(results)
    print(f"\nwrote {args.out}")
    return 0


def print_table(results: dict) -> None:
    reset, calls, mcp = results["reset"], results["call_in_process"], results["call_mcp_http"]
    print(f"\nsandbox isolation: {results['isolation']['mode']} ({results['isolation']['detail']})")
    rows = [
        ("sandbox worker start", results["worker_start"]),
        ("reset: SQLite backup API", reset["backup_api"]),
        ("reset: file copy (tmpfs)", reset["file_copy"]),
        ("reset: deserialize image", reset["deserialize"]),
        ("reset: Environment.reset (worker)", reset["environment_reset"]),
        (f"call {calls['tool']}: bare function", calls["bare_function"]),
        ("call: sandboxed, in this process", calls["sandboxed_in_process"]),
        ("call: Python API via worker", calls["python_api_via_worker"]),
        ("call: MCP streamable HTTP", mcp["call"]),
        ("MCP session open + close", mcp["session_open_and_close"]),
    ]
    if "failover" in results:
        rows += [("failover: a dead worker's episode back", results["failover"]["episode_back"]),
                 ("failover: all its episodes back", results["failover"]["all_back"])]
    print(f"\n{'measure':<40} {'p50 ms':>9} {'p99 ms':>9}")
    for name, row in rows:
        print(f"{name:<40} {row['p50_ms']:>9.3f} {row['p99_ms']:>9.3f}")
    print(f"\n{'sessions':>8} {'calls/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6} {'RSS MB':>8} {'KB/session':>10}")
    for r in results["concurrent_sessions"]:
        print(f"{r['sessions']:>8} {r['calls_per_second']:>9.1f} {r['call_latency']['p50_ms']:>8.2f} "
              f"{r['call_latency']['p99_ms']:>8.2f} {r['errors']:>6} {r['memory_under_load']['total_mb']:>8.1f} "
              f"{r['memory_per_session_kb']:>10.1f}")
    if "idle_sessions" in results:
        idle = results["idle_sessions"]
        print(f"\n{idle['sessions']} idle sessions: {idle['memory_held']['total_mb']:.1f} MB held "
              f"({idle['memory_per_session_kb']:.1f} KB per session)")
    print("\ntargets:", ", ".join(f"{k} {'met' if v else 'MISSED'}" for k, v in results["targets"].items()))


if __name__ == "__main__":
    sys.exit(main())
