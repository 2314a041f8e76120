"""Prove that a change to the code generators changes no generated artifact.

    # with the reference code on the path (an older checkout), then with the new code:
    PYTHONPATH=/path/to/reference python scripts/codegen_equivalence.py snapshot /tmp/ref
    PYTHONPATH=$PWD python scripts/codegen_equivalence.py snapshot /tmp/new
    python scripts/codegen_equivalence.py compare /tmp/ref /tmp/new   # exit 1 and list what differs

`snapshot` writes, for a sample of environments (every built-in domain at the slots given, plus a few
domains no pack describes), what the offline backend generates: scenario, tasks, schema and database
rows (JSON), the tool specs (tools.json), the tools' source (tools.py) and each task's verifier source.
`compare-builds` compares two AWM_HOMEs built by the pipeline (build_environment or `make run`) with
scripts/corpus_digest.py, then accepts exactly these differences: tools.py AST-identical, and in
provenance.json the tools.py hashes and the `source_lines` metric (both follow tools.py's formatting).

`compare` requires the JSON artifacts to be byte-identical and the Python sources to be AST-identical
(`ast.dump` of both parses equal); it also counts the sources that are byte-identical. It prints a summary
and, with --json, writes it (benchmarks/results/codegen_equivalence.json by convention).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import tempfile
import time
from pathlib import Path

UNSEEN_DOMAINS = ("llama_farm", "piano_school", "drone_repair_shop", "seed_library")
JSON_ARTIFACTS = ("scenario.json", "tasks.json", "schema.json", "rows.json", "tools.json")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, encoding="utf-8") as handle:
        handle.write(text)
    os.replace(handle.name, path)


def sample(slots: int, limit: int | None = None) -> list[tuple[str, int]]:
    from awm.builder.catalogue import DOMAIN_SEEDS

    domains = [*DOMAIN_SEEDS, *UNSEEN_DOMAINS]
    pairs = [(domain, slot) for slot in range(slots) for domain in domains]
    return pairs[:limit] if limit else pairs


def snapshot_environment(out: Path, domain: str, slot: int) -> None:
    """Everything the offline backend generates for one environment, under out/<env_id>/."""
    from awm.backends.offline import OfflineBackend

    backend = OfflineBackend()
    scenario = backend.scenario(domain, slot)
    tasks = backend.tasks(scenario)
    schema = backend.schema(scenario, tasks)
    rows = backend.database_rows(scenario, schema)
    source, toolset = backend.tools(scenario, schema, tasks)
    verifiers = backend.verifiers(scenario, tasks, toolset)
    folder = out / scenario.env_id
    _write(folder / "scenario.json", scenario.model_dump_json(indent=1))
    _write(folder / "tasks.json", tasks.model_dump_json(indent=1))
    _write(folder / "schema.json", schema.model_dump_json(indent=1))
    _write(folder / "rows.json", json.dumps(rows, indent=1, sort_keys=True, default=str))
    _write(folder / "tools.json", toolset.model_dump_json(indent=1))
    _write(folder / "tools.py", source)
    for verifier in verifiers.verifiers:
        _write(folder / "verifiers" / f"{verifier.task_id}.py", verifier.code)


def snapshot(out: Path, slots: int, limit: int | None) -> int:
    started = time.perf_counter()
    pairs = sample(slots, limit)
    for domain, slot in pairs:
        snapshot_environment(out, domain, slot)
    print(f"{len(pairs)} environments written to {out} in {time.perf_counter() - started:.1f} s")
    return 0


def same_ast(left: str, right: str) -> bool:
    return ast.dump(ast.parse(left)) == ast.dump(ast.parse(right))


def compare(first: Path, second: Path) -> dict:
    """Per kind of file: how many there are, how many are byte-identical, how many AST-identical; and the
    differences (a file missing on one side, JSON bytes differing, Python ASTs differing)."""
    envs = sorted({p.name for p in first.iterdir() if p.is_dir()} | {p.name for p in second.iterdir() if p.is_dir()})
    counts: dict[str, dict[str, int]] = {}
    differences: list[str] = []
    for env in envs:
        names = {p.relative_to(first / env) for p in (first / env).rglob("*") if p.is_file()} | \
                {p.relative_to(second / env) for p in (second / env).rglob("*") if p.is_file()}
        for name in sorted(names):
            kind = "verifier.py" if name.parts[0] == "verifiers" else name.name
            tally = counts.setdefault(kind, {"files": 0, "byte_identical": 0, "ast_identical": 0})
            tally["files"] += 1
            left, right = first / env / name, second / env / name
            if not left.is_file() or not right.is_file():
                differences.append(f"only in {'the second' if right.is_file() else 'the first'}: {env}/{name}")
                continue
            a, b = left.read_text(), right.read_text()
            if a == b:
                tally["byte_identical"] += 1
            if name.suffix == ".py" and same_ast(a, b):
                tally["ast_identical"] += 1
            elif name.suffix == ".py" or a != b:
                differences.append(f"differs: {env}/{name}")
    return {"environments": len(envs), "by_kind": counts, "differences": len(differences),
            "first_differences": differences[:50]}


FORMATTING_PATHS = ("/tools/outputs/tools.py", "/verification_reports/inputs/tools.py", "/tools/metrics/source_lines")


def _json_paths_differing(a: object, b: object, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [p for k in sorted(set(a) | set(b)) for p in _json_paths_differing(a.get(k), b.get(k), f"{path}/{k}")]
    return [] if a == b else [path]


def compare_builds(first: Path, second: Path) -> dict:
    """Two built corpora: every file byte-identical (corpus_digest), except tools.py (then AST-identical)
    and provenance.json (then differing only where tools.py's bytes are recorded)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from corpus_digest import TIMED_FIELDS, TIMED_METRICS, digest
    from corpus_digest import compare as compare_digests

    a, b = digest(first), digest(second)
    accepted: dict[str, int] = {}
    unexplained = []
    for line in compare_digests(a, b):
        name = line.split(": ", 1)[1]
        kind = Path(name).name
        left, right = (first / name), (second / name)
        if line.startswith("differs") and kind == "tools.py" and same_ast(left.read_text(), right.read_text()):
            accepted["tools.py AST-identical"] = accepted.get("tools.py AST-identical", 0) + 1
            continue
        if line.startswith("differs") and kind == "provenance.json":
            paths = _json_paths_differing(json.loads(left.read_text()), json.loads(right.read_text()))
            timed = TIMED_FIELDS + TIMED_METRICS
            rest = [p for p in paths if not p.endswith(FORMATTING_PATHS) and p.rsplit("/", 1)[1] not in timed]
            if not rest:
                accepted["provenance.json: tools.py hash and line count"] = \
                    accepted.get("provenance.json: tools.py hash and line count", 0) + 1
                continue
            line += f" ({', '.join(rest[:5])})"
        unexplained.append(line)
    return {"files": [a["files"], b["files"]], "accepted": accepted, "differences": len(unexplained),
            "first_differences": unexplained[:50]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("snapshot", help="write the generated artifacts of a sample of environments")
    s.add_argument("out", type=Path)
    s.add_argument("--slots", type=int, default=2, help="slots per domain (default 2)")
    s.add_argument("--limit", type=int, help="at most this many environments")
    c = sub.add_parser("compare", help="compare two snapshots")
    c.add_argument("first", type=Path)
    c.add_argument("second", type=Path)
    c.add_argument("--json", type=Path, help="also write the summary here")
    cb = sub.add_parser("compare-builds", help="compare two AWM_HOMEs built by the pipeline")
    cb.add_argument("first", type=Path)
    cb.add_argument("second", type=Path)
    cb.add_argument("--json", type=Path, help="also write the summary here")
    args = parser.parse_args(argv)
    if args.command == "snapshot":
        return snapshot(args.out, args.slots, args.limit)
    if args.command == "compare-builds":
        result = compare_builds(args.first, args.second)
        for line in result["first_differences"]:
            print(line)
        for what, count in result["accepted"].items():
            print(f"{count:5} accepted: {what}")
        print(f"{result['files'][0]} vs {result['files'][1]} files: "
              + ("identical up to tools.py formatting" if not result["differences"]
                 else f"{result['differences']} unexplained difference(s)"))
        if args.json:
            _write(args.json, json.dumps(result, indent=1) + "\n")
        return 1 if result["differences"] else 0
    for folder in (args.first, args.second):
        if not folder.is_dir():
            raise SystemExit(f"error: {folder} is not a snapshot folder (run `snapshot` first)")
    result = compare(args.first, args.second)
    for line in result["first_differences"]:
        print(line)
    for kind, tally in sorted(result["by_kind"].items()):
        print(f"{kind:14} {tally['files']:6} files, {tally['byte_identical']:6} byte-identical"
              + (f", {tally['ast_identical']:6} AST-identical" if kind.endswith(".py") else ""))
    print(f"{result['environments']} environments: "
          + ("identical" if not result["differences"] else f"{result['differences']} difference(s)"))
    if args.json:
        _write(args.json, json.dumps(result, indent=1) + "\n")
    return 1 if result["differences"] else 0


if __name__ == "__main__":
    sys.exit(main())
