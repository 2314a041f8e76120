"""Fingerprint a corpus, and compare two corpora byte for byte.

    python scripts/corpus_digest.py digest AWM_HOME -o digest.json   # sha256 of every artifact file
    python scripts/corpus_digest.py compare A.json B.json            # exit 1 and list what differs

A corpus is the artifacts under AWM_HOME: every file of corpus/, catalog.jsonl, failures.jsonl and
catalog_chart.png (not Dagster's own storage under dagster/). Files are compared by their sha256 as
written, with one exception: provenance.json records how long each stage took, so its `duration_ms`
fields and the verification stage's `metrics.proof_ms` are left out of its hash (they are the only
fields that depend on the clock; everything else must be identical for the same seed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

TOP_LEVEL_FILES = ("catalog.jsonl", "failures.jsonl", "catalog_chart.png")
TIMED_FIELDS = ("duration_ms",)
TIMED_METRICS = ("proof_ms",)


def _provenance_without_timings(data: bytes) -> bytes:
    records = json.loads(data)
    for record in records.values():
        for name in TIMED_FIELDS:
            record.pop(name, None)
        for name in TIMED_METRICS:
            (record.get("metrics") or {}).pop(name, None)
    return json.dumps(records, sort_keys=True).encode("utf-8")


def file_digest(path: Path) -> str:
    data = path.read_bytes()
    if path.name == "provenance.json":
        data = _provenance_without_timings(data)
    return hashlib.sha256(data).hexdigest()


def corpus_files(home: Path) -> list[Path]:
    files = sorted(p for p in (home / "corpus").rglob("*") if p.is_file())
    return files + [home / name for name in TOP_LEVEL_FILES if (home / name).is_file()]


def digest(home: Path) -> dict:
    home = home.resolve()
    if not (home / "corpus").is_dir():
        raise SystemExit(f"error: {home} has no corpus/ folder: is it an AWM_HOME?")
    files = {str(p.relative_to(home)): file_digest(p) for p in corpus_files(home)}
    whole = hashlib.sha256("".join(f"{name} {h}\n" for name, h in files.items()).encode()).hexdigest()
    kinds: dict[str, int] = {}
    for name in files:
        kinds[Path(name).name] = kinds.get(Path(name).name, 0) + 1
    return {"home": str(home), "files": len(files), "corpus_sha256": whole, "by_name": kinds, "sha256": files}


def compare(a: dict, b: dict) -> list[str]:
    differences = []
    for name in sorted(set(a["sha256"]) | set(b["sha256"])):
        left, right = a["sha256"].get(name), b["sha256"].get(name)
        if left is None:
            differences.append(f"only in the second: {name}")
        elif right is None:
            differences.append(f"only in the first: {name}")
        elif left != right:
            differences.append(f"differs: {name}")
    return differences


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("digest", help="sha256 of every artifact of a corpus")
    d.add_argument("home", type=Path)
    d.add_argument("-o", "--output", type=Path)
    c = sub.add_parser("compare", help="compare two digests (or two AWM_HOME folders)")
    c.add_argument("first", type=Path)
    c.add_argument("second", type=Path)
    args = parser.parse_args(argv)
    if args.command == "digest":
        result = digest(args.home)
        text = json.dumps(result, indent=1, sort_keys=True) + "\n"
        if args.output:
            args.output.write_text(text)
        print(f"{result['files']} files, corpus sha256 {result['corpus_sha256']}")
        return 0
    first, second = (digest(p) if p.is_dir() else json.loads(p.read_text()) for p in (args.first, args.second))
    differences = compare(first, second)
    for line in differences[:200]:
        print(line)
    print(f"{first['files']} vs {second['files']} files; corpus sha256 {first['corpus_sha256']} vs "
          f"{second['corpus_sha256']}: {'identical' if not differences else f'{len(differences)} difference(s)'}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
