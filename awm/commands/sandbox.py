"""awm sandbox: which isolation sandbox workers get here, proven by a probe run inside a worker's command line."""

from __future__ import annotations

import socket
import tempfile
from pathlib import Path


def check(args) -> int:
    from awm.runtime.isolation import ISOLATION_ENV, probe_boundary, resolve

    isolation = resolve(args.isolation)
    print(f"sandbox isolation: {isolation.mode} ({isolation.detail})")
    with tempfile.TemporaryDirectory(prefix="awm-sandbox-check-") as outside, \
            socket.create_server(("127.0.0.1", 0)) as listener:
        secret = Path(outside) / "secret.txt"
        secret.write_text("a file of the user starting the workers\n")
        secret.chmod(0o644)
        target = Path(outside) / "written-by-the-sandbox.txt"
        address = listener.getsockname()[:2]
        report = probe_boundary(isolation, connect=address, write=[str(target)], read=[str(secret)])
        written = target.exists()
    rows = [
        ("runs as", f"uid {report['uid']}, gid {report['gid']}, groups {report['groups'] or 'none'}",
         report["uid"] != 0 and report["euid"] != 0),
        ("create a socket", _outcome(report["socket"]), not report["socket"]["ok"]),
        (f"connect to {address[0]}:{address[1]} (a listener here)", _outcome(report["connect"]),
         not report["connect"]["ok"]),
        ("create a user namespace", _outcome(report["user_namespace"]), not report["user_namespace"]["ok"]),
        ("write a file outside its scratch", _outcome(report["write"][str(target)]), not written),
        ("read a file of this user", _outcome(report["read"][str(secret)]), not report["read"][str(secret)]["ok"]),
        ("processes it can see", f"{len(report['processes'])} (pids {', '.join(map(str, report['processes'][:5]))}"
                                 f"{', ...' if len(report['processes']) > 5 else ''})", len(report["processes"]) <= 2),
        ("write its scratch directory", _outcome(report["scratch"]), report["scratch"]["ok"]),
    ]
    width = max(len(name) for name, _, _ in rows)
    for name, outcome, held in rows:
        print(f"  {name:<{width}}  {'ok  ' if held else 'OPEN'}  {outcome}")
    print(f"cgroup limits: {cgroup_limits(isolation, args.isolation)}")
    if all(held for _, _, held in rows):
        print("every OS boundary holds")
        return 0
    print(f"some OS boundaries are open (set {ISOLATION_ENV}=os to refuse to start without them; see docs/runtime.md)")
    return 1


def cgroup_limits(isolation, requested: str | None) -> str:
    """Whether a pool's workers run under cgroup limits here, proven on one started worker: the kernel's own
    record of its cgroup and the limits read back from it. Never fails `awm sandbox`: it is a layer more."""
    from awm.errors import AWMError
    from awm.runtime.pool import WorkerPool

    if isolation.mode != "os":
        return "not applied (set under OS isolation only)"
    try:
        with WorkerPool(workers=1, isolation=requested) as pool:
            report = pool.cgroup_report()
            if not report["applied"]:
                return f"not applied: {report['reason']}"
            pid = pool.stats()["workers"][0]["pid"]
            found = pool.cgroups.read(0, pid)
    except (AWMError, OSError, ValueError) as exc:
        return f"not proven: {type(exc).__name__}: {exc}"
    memory = found["memory_bytes"]
    return (f"applied (cgroup v{report['version']}, {found['name']}): worker pid {pid} inside, "
            f"at most {found['pids_max']} processes, "
            f"memory {'unlimited' if memory is None else f'{memory / 2 ** 20:.0f} MiB'}")


def _outcome(attempt: dict) -> str:
    return "allowed" if attempt["ok"] else f"refused: {attempt['error']}"


def register(sub) -> None:
    parser = sub.add_parser("sandbox", help="show and prove the OS isolation of sandbox workers",
                            description="Resolve the sandbox isolation as a worker pool would "
                                        "($AWM_SANDBOX_ISOLATION: auto, os or process), then run a probe inside a "
                                        "worker's command line that tries to reach the network, write outside its "
                                        "scratch directory and read a file of this user. Exit code 0 when every "
                                        "boundary holds.")
    parser.add_argument("--isolation", choices=("auto", "os", "process"), default=None,
                        help="instead of $AWM_SANDBOX_ISOLATION (default auto)")
    parser.set_defaults(handler=check)

