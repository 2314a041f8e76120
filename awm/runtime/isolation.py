"""OS-level isolation of sandbox workers: the boundary under the AST policy and the process boundary.

Generated code cannot name the OS (the policy refuses `os`, `socket`, `open`, ...); this
layer is what still holds if it ever could. With isolation "os", a worker is started by
bubblewrap (`bwrap`) and runs:

  without network  in a network namespace of its own (no interface but its own loopback),
                   under a seccomp filter that refuses socket(2) and socketpair(2), io_uring,
                   new namespaces, ptrace and a few kernel interfaces it never needs;
  unprivileged     started by root: as uid/gid 65534 (nobody), no supplementary groups, no
                   capabilities, no_new_privs; started by another user: as that user, in a
                   user namespace that cannot create more;
  read-only        it sees /usr, the Python installation and the awm package, read-only, and
                   a private tmpfs at /tmp (its scratch, size-capped, gone with it); nothing
                   else: no /root, /home, /etc, no artifact root (databases come over its
                   pipe, see awm/runtime/worker.py), no other worker's files;
  alone            its own pid, IPC and UTS namespaces (it can see or signal no other
                   process) and an environment of a few variables (no secrets inherited).
  bounded          where a cgroup hierarchy is writable, a cgroup of its own with a process
                   and a memory limit, set by the pool once it runs (awm/runtime/cgroups.py).

The setting is AWM_SANDBOX_ISOLATION (or WorkerPool(isolation=...)):

  os        refuse to start workers without it (IsolationUnavailable, saying why and what to install)
  process   the worker is an ordinary child process (the other layers only)
  auto      (default) os when this machine allows it, else process, with a warning (once per process);
            a pool resolves it again before each worker start, so one transient failure of the probe
            does not leave it without OS isolation for the life of the process (a success is kept)

Generated code never runs as root without OS isolation: as root, auto without bubblewrap and process
refuse to start workers (IsolationUnavailable) unless AWM_SANDBOX_ALLOW_ROOT=1 says the operator
accepts it.

`awm sandbox` reports what is in force and proves it with `probe_boundary`, which runs a
probe inside the very command line a worker gets (`start_python`).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import json
import logging
import os
import queue
import shutil
import subprocess
import sys
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import awm
from awm.errors import AWMError

log = logging.getLogger(__name__)

ISOLATION_ENV = "AWM_SANDBOX_ISOLATION"
ALLOW_ROOT_ENV = "AWM_SANDBOX_ALLOW_ROOT"  # "1": generated code may run as root without OS isolation
MODES = ("auto", "os", "process")
SANDBOX_UID = SANDBOX_GID = 65534  # nobody/nogroup on Debian
SCRATCH = "/tmp"
SCRATCH_BYTES = 64 * 1024 * 1024
PROBE_SECONDS = 30.0
PACKAGE_DIR = Path(awm.__file__).resolve().parent
INSTALL_HINT = "install bubblewrap (Debian: apt-get install bubblewrap libseccomp2; or run scripts/install_sandbox_deps.sh)"

# Variables a sandboxed worker inherits; everything else (API keys, tokens, AWM_*) stays outside.
# A worker hashes strings with a fixed seed: `hash()` and the order of a set of strings are then the same in
# every worker process, so an episode rebuilt on a successor (its calls replayed) is the episode it was.
WORKER_HASH_SEED = "0"
_INHERITED = ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONFAULTHANDLER",
              "PYTHONMALLOC", "PYTHONDEVMODE", "TZ")
_PROCESS_INHERITED = ("PATH", "PYTHONPATH", "HOME", "TMPDIR", "LANG", "LD_LIBRARY_PATH")  # and LC_*; process mode


class IsolationUnavailable(AWMError):
    """OS-level isolation was required (AWM_SANDBOX_ISOLATION=os) but this machine cannot provide it."""


@dataclass(frozen=True)
class Isolation:
    """How sandbox workers are started: `mode` "os" (bubblewrap) or "process"; `detail` says what holds or why not."""

    mode: str
    detail: str
    bwrap: str | None = None
    as_root: bool = False  # bwrap runs as root (no user namespace) and the worker drops to SANDBOX_UID
    seccomp: bytes | None = None  # the compiled filter, or None where libseccomp is missing

    def describe(self) -> dict:
        return {"mode": self.mode, "detail": self.detail, "seccomp": self.seccomp is not None}


# --- choosing ------------------------------------------------------------------------------------------


def resolve(requested: str | None = None) -> Isolation:
    """The isolation to start workers with: `requested`, else $AWM_SANDBOX_ISOLATION, else auto."""
    mode = (requested or os.environ.get(ISOLATION_ENV) or "auto").strip().lower()
    if mode not in MODES:
        raise ValueError(f"{ISOLATION_ENV}={mode!r} is not one of {', '.join(MODES)}")
    if mode == "process":
        _refuse_root(f"{ISOLATION_ENV}=process")
        return Isolation("process", f"process isolation only ({ISOLATION_ENV}=process)" + _as_root())
    found = os_isolation()
    if isinstance(found, Isolation):
        return found
    if mode == "os":
        raise IsolationUnavailable(f"{ISOLATION_ENV}=os, but OS-level isolation of sandbox workers is unavailable: "
                                   f"{found}. To fix: {INSTALL_HINT}; or set {ISOLATION_ENV}=process to run without it")
    _refuse_root(f"OS isolation unavailable: {found}")
    _warn_fallback(found)
    return Isolation("process", f"process isolation only: OS isolation unavailable ({found})" + _as_root())


def _refuse_root(why: str) -> None:
    """As root, without OS isolation, generated code would run with every privilege of the machine (and, in a
    build, beside the LLM's API key): refused unless the operator said otherwise."""
    if os.geteuid() == 0 and os.environ.get(ALLOW_ROOT_ENV) != "1":
        raise IsolationUnavailable(
            f"sandbox workers would run generated code as root without OS-level isolation ({why}); refused. To fix: "
            f"{INSTALL_HINT}, or run as another user; to accept it, set {ALLOW_ROOT_ENV}=1")


def _as_root() -> str:
    return f", as root ({ALLOW_ROOT_ENV}=1)" if os.geteuid() == 0 else ""


@functools.cache
def _warn_fallback(reason: str) -> None:
    """Once per process and reason: loud, since the operator expected the default (os) and did not get it."""
    log.warning("SANDBOX WORKERS RUN WITHOUT OS-LEVEL ISOLATION: %s. They are ordinary processes of this user, with "
                "its network and files; generated code is still held by the AST policy, the process boundary and "
                "resource limits. To fix: %s. To silence this, set %s=process; to refuse to run without it, %s=os.",
                reason, INSTALL_HINT, ISOLATION_ENV, ISOLATION_ENV)


_probed: Isolation | None = None  # OS isolation, once a probe found it (a failure is not kept)
_probe_lock = threading.Lock()


def os_isolation() -> Isolation | str:
    """OS-level isolation if this machine provides it (a worker's imports, run inside the wrapper), else the
    reason it does not. Found once, it is kept for the process; a failure is probed again next time (it may
    have been transient: a moment without file descriptors or memory)."""
    global _probed
    with _probe_lock:
        if _probed is None:
            found = _probe_os_isolation()
            if not isinstance(found, Isolation):
                return found
            _probed = found
        return _probed


def forget_probe() -> None:
    """Forget what `os_isolation` found (for a test that changes what the machine offers)."""
    global _probed
    with _probe_lock:
        _probed = None


def _probe_os_isolation() -> Isolation | str:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bwrap (bubblewrap) is not installed"
    as_root = os.geteuid() == 0
    if as_root and shutil.which("setpriv") is None:
        return "setpriv (util-linux) is not installed; as root it drops the worker to an unprivileged user"
    seccomp, seccomp_note = _seccomp_program()
    detail = ("bubblewrap: no network, " + ("uid 65534 (nobody)" if as_root else f"uid {os.geteuid()} in a user "
              "namespace") + ", read-only /usr, Python and awm, private /tmp, own pid/ipc/uts namespaces, "
              + ("seccomp filter" if seccomp else f"no seccomp filter ({seccomp_note})"))
    candidate = Isolation("os", detail, bwrap, as_root, seccomp)
    try:
        done = start_python(candidate, ["-c", "import awm.runtime.worker"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as exc:
        return f"bwrap could not be started: {exc}"
    try:
        _, err = done.communicate(timeout=PROBE_SECONDS)
    except subprocess.TimeoutExpired:
        done.kill()
        done.wait()
        return f"a sandboxed Python did not start within {PROBE_SECONDS:g} s"
    if done.returncode != 0:
        lines = err.decode("utf-8", "replace").strip().splitlines()
        return f"bwrap failed here (exit code {done.returncode}): {lines[-1] if lines else 'no message'}"
    if seccomp is None:
        log.warning("sandbox workers get no seccomp filter (%s): the network namespace still cuts them off, but "
                    "they can create sockets and user namespaces. Install libseccomp2.", seccomp_note)
    return candidate


# --- starting --------------------------------------------------------------------------------------------


def start_python(isolation: Isolation, args: list[str], pass_fds: tuple[int, ...] = (),
                 site_paths: tuple[str, ...] = (), **popen: Any) -> subprocess.Popen:
    """Start `python ARGS` (the worker: `-m awm.runtime.worker R W`) as `isolation` says: the one place a
    sandbox worker's command line is built. `pass_fds` stay open in it; `site_paths` (directories of installed
    packages the foreign runtime needs, awm/awm1k/runtime.py) are shown read-only and put on its PYTHONPATH;
    other Popen arguments pass through."""
    if isolation.mode == "process":  # the variables a Python needs, not the server's secrets (API keys, tokens)
        env = {k: v for k, v in os.environ.items()
               if k in _INHERITED or k in _PROCESS_INHERITED or k.startswith("LC_")}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_DIR.parent), *site_paths,
                                                         env.get("PYTHONPATH", "")) if p)
        env["PYTHONHASHSEED"] = WORKER_HASH_SEED
        return subprocess.Popen([sys.executable, *args], pass_fds=pass_fds, env=env, **popen)
    filter_r = -1
    if isolation.seccomp is not None:
        filter_r, filter_w = os.pipe()
        try:
            os.write(filter_w, isolation.seccomp)  # a few hundred bytes: the pipe holds it
        finally:
            os.close(filter_w)
    try:
        argv = _bwrap_argv(isolation, args, filter_r, site_paths)
        fds = (*pass_fds, filter_r) if filter_r >= 0 else tuple(pass_fds)
        # bwrap --die-with-parent ties the sandbox to the *thread* that starts it (PR_SET_PDEATHSIG); the pool
        # starts workers from reader threads and event-loop executors that may end first, so one thread that
        # lives as long as the process starts them all.
        return _on_launcher_thread(lambda: _SandboxedProcess(argv, pass_fds=fds, env={}, start_new_session=True,
                                                             **popen))
    finally:
        if filter_r >= 0:
            os.close(filter_r)


def _bwrap_argv(isolation: Isolation, args: list[str], seccomp_fd: int, site_paths: tuple[str, ...] = ()
                ) -> list[str]:
    python = os.path.realpath(sys.executable)
    argv = [isolation.bwrap, "--die-with-parent", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try"]
    if isolation.as_root:  # bwrap makes the namespaces with root's privileges; the worker then drops them
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        argv += ["--unshare-user", "--disable-userns"]
    argv += ["--ro-bind", "/usr", "/usr"]
    # the scratch first: a checkout or a Python installation under /tmp is bound on top of it below
    argv += ["--perms", "1777", "--size", str(SCRATCH_BYTES), "--tmpfs", SCRATCH]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            argv += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            argv += ["--ro-bind", top, top]
    for path in _visible_paths(python, site_paths):
        for parent in reversed(Path(path).parents[:-1]):  # bwrap would make them 0700, root's: unreadable
            argv += ["--perms", "0755", "--dir", str(parent)]
        argv += ["--ro-bind", path, path]
    argv += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/", "--chdir", "/", "--clearenv"]
    env = {"PYTHONPATH": os.pathsep.join((str(PACKAGE_DIR.parent), *site_paths)), "TMPDIR": SCRATCH, "HOME": SCRATCH, "PATH": "/usr/bin:/bin",
           "LANG": "C.UTF-8", **{k: os.environ[k] for k in _INHERITED if k in os.environ},
           "PYTHONHASHSEED": WORKER_HASH_SEED}
    for key, value in env.items():
        argv += ["--setenv", key, value]
    if seccomp_fd >= 0:
        argv += ["--seccomp", str(seccomp_fd)]
    argv.append("--")
    if isolation.as_root:
        argv += [shutil.which("setpriv") or "/usr/bin/setpriv", f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_GID}",
                 "--clear-groups", "--inh-caps=-all", "--no-new-privs", "--"]
    return [*argv, python, "-s", *args]


def _visible_paths(python: str, site_paths: tuple[str, ...] = ()) -> list[str]:
    """What a worker sees besides /usr, read-only: the Python installation (its prefixes and the interpreter's
    own directory), the awm package, and /etc/localtime (local time as outside; nothing else of /etc). A path
    inside another is left out, and so is "/", whatever the installation looks like."""
    wanted = {os.path.realpath(p) for p in (sys.base_prefix, sys.base_exec_prefix)}
    wanted.add(os.path.dirname(os.path.dirname(python)))  # bin/python -> the installation (a venv made with --copies)
    wanted.add(str(PACKAGE_DIR))
    wanted.update(os.path.realpath(p) for p in site_paths)
    if os.path.exists("/etc/localtime"):
        wanted.add("/etc/localtime")
    kept: list[str] = []
    for path in sorted(wanted):  # a directory sorts before what is inside it
        if path != "/" and not any(path == k or path.startswith(k + "/") for k in ("/usr", *kept)):
            kept.append(path)
    return kept


def process_id(process: subprocess.Popen) -> int:
    """The host pid of the Python a `start_python` process runs: the process itself, or under os isolation
    bubblewrap's grandchild (bwrap -> its init in the new pid namespace -> the worker). What to read for
    memory and CPU; signalling either ends the worker (--die-with-parent)."""
    if not isinstance(process, _SandboxedProcess):
        return process.pid
    if process.worker_pid is None:
        pid = process.pid
        for _ in range(2):
            children = _children(pid)
            if len(children) != 1:
                return process.pid  # not started yet, or already gone
            pid = children[0]
        process.worker_pid = pid
    return process.worker_pid


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


class _SandboxedProcess(subprocess.Popen):
    """bwrap, standing for the worker: it exits as the worker does, but a death by signal N shows as exit
    code 128 + N; `poll` and `wait` report it as -N, as for a plain child, so the pool can tell a worker the
    kernel stopped at the end of its CPU-time budget (SIGPROF) from one that crashed."""

    worker_pid: int | None = None

    def poll(self) -> int | None:
        return self._as_child(super().poll())

    def wait(self, timeout: float | None = None) -> int:
        return self._as_child(super().wait(timeout))

    def _as_child(self, code: int | None) -> int | None:
        if code is not None and code > 128:
            self.returncode = code = 128 - code
        return code


_launcher: tuple[int, queue.SimpleQueue] | None = None
_launcher_lock = threading.Lock()


def _on_launcher_thread(start):
    global _launcher
    with _launcher_lock:
        if _launcher is None or _launcher[0] != os.getpid():  # none yet, or this is a forked child
            _launcher = (os.getpid(), queue.SimpleQueue())
            threading.Thread(target=_launch_forever, args=(_launcher[1],), name="awm-sandbox-launcher",
                             daemon=True).start()
        requests = _launcher[1]
    done: Future = Future()
    requests.put((start, done))
    return done.result()


def _launch_forever(requests: queue.SimpleQueue) -> None:
    while True:
        start, done = requests.get()
        try:
            done.set_result(start())
        except BaseException as exc:  # noqa: BLE001 - handed to the thread that asked
            done.set_exception(exc)


# --- seccomp ---------------------------------------------------------------------------------------------

_SCMP_ACT_ALLOW = 0x7FFF0000
_SCMP_CMP_MASKED_EQ = 7
# Refused with EPERM: what a worker never needs and an escaped one would want first.
_DENIED_SYSCALLS = (
    "socket", "socketpair",                                  # the network, and local sockets
    "io_uring_setup", "io_uring_enter", "io_uring_register",  # io_uring can open sockets behind the filter
    "unshare", "setns",                                      # new namespaces (a user namespace grants capabilities)
    "ptrace", "process_vm_readv", "process_vm_writev",       # other processes' memory
    "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",  # kernel attack surface
)
_CLONE_NAMESPACES = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


@functools.lru_cache(maxsize=1)
def _seccomp_program() -> tuple[bytes | None, str]:
    """The BPF filter bwrap loads (--seccomp), compiled by libseccomp for this architecture; or (None, why not)."""
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError:
        return None, "libseccomp.so.2 not found"
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgCmp)]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    ctx = lib.seccomp_init(_SCMP_ACT_ALLOW)
    if not ctx:
        return None, "seccomp_init failed"
    refuse = 0x00050000 | errno.EPERM  # SCMP_ACT_ERRNO(EPERM)
    memfd = -1
    try:
        rules: list[tuple[str, int, list[_ArgCmp]]] = [(name, refuse, []) for name in _DENIED_SYSCALLS]
        rules.append(("clone3", 0x00050000 | errno.ENOSYS, []))  # flags out of reach of a filter: libc falls back
        rules += [("clone", refuse, [_ArgCmp(0, _SCMP_CMP_MASKED_EQ, flag, flag)]) for flag in _CLONE_NAMESPACES]
        for name, action, conditions in rules:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:
                continue  # not a system call on this architecture
            array = (_ArgCmp * len(conditions))(*conditions) if conditions else None
            if lib.seccomp_rule_add_array(ctx, action, number, len(conditions), array) != 0:
                return None, f"libseccomp refused the rule for {name}"
        memfd = os.memfd_create("awm-seccomp")
        if lib.seccomp_export_bpf(ctx, memfd) != 0:
            return None, "seccomp_export_bpf failed"
        os.lseek(memfd, 0, os.SEEK_SET)
        program = b""
        while chunk := os.read(memfd, 1 << 16):
            program += chunk
        return program, ""
    finally:
        if memfd >= 0:
            os.close(memfd)
        lib.seccomp_release(ctx)


# --- proving it ------------------------------------------------------------------------------------------

_PROBE = r"""
import json, os, socket, sys, tempfile
spec = json.loads(sys.argv[1])
def attempt(action):
    try:
        return {"ok": True, "value": action()}
    except OSError as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
def write(path):
    with open(path, "w") as f:
        return f.write("written from the sandbox")
def read(path):
    with open(path, "rb") as f:
        return len(f.read())
def connect():
    with socket.create_connection(tuple(spec["connect"]), timeout=2):
        return "connected"
def new_user_namespace():  # in which it would hold every capability
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return "created"
print(json.dumps({
    "uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(), "groups": os.getgroups(),
    "socket": attempt(lambda: socket.socket().close()),
    "connect": attempt(connect) if spec.get("connect") else None,
    "user_namespace": attempt(new_user_namespace),
    "scratch": attempt(lambda: write(os.path.join(tempfile.gettempdir(), "probe"))),
    "write": {path: attempt(lambda p=path: write(p)) for path in spec.get("write", [])},
    "read": {path: attempt(lambda p=path: read(p)) for path in spec.get("read", [])},
    "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
    "environ": sorted(os.environ),
}))
"""


def probe_boundary(isolation: Isolation, connect: tuple[str, int] | None = None, write: list[str] = (),
                   read: list[str] = ()) -> dict:
    """Run a probe inside the same command line a worker gets and report what it could do: its uid and gid,
    whether it could make a socket, `connect` to a TCP address, create a user namespace, write into its
    scratch directory, write
    each of `write`, read each of `read`, which process ids it sees and the names of its environment variables."""
    spec = json.dumps({"connect": list(connect) if connect else None, "write": list(write), "read": list(read)})
    done = start_python(isolation, ["-c", _PROBE, spec], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE)
    out, err = done.communicate(timeout=PROBE_SECONDS)
    if done.returncode != 0:
        raise AWMError(f"the sandbox probe failed (exit code {done.returncode}): "
                       f"{err.decode('utf-8', 'replace').strip()[-2000:]}")
    return json.loads(out)
