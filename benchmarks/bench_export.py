"""The export, measured: size on disk, write time and peak memory, and what loading it costs a trainer.

    python benchmarks/bench_export.py --home .awm                    # a built corpus (1,000 environments: make run)
    python benchmarks/bench_export.py --home .awm --outputs awm-dir hf-dir
    python benchmarks/bench_export.py --home .awm --pythonpath OLD_SRC --label before --outputs awm-jsonl hf-parquet

Each output is written by `awm export` in a process of its own, then loaded with Hugging Face `datasets`
(`load_dataset`, a fresh cache folder) in another; wall time and peak resident memory (the child's
ru_maxrss) of both. `--pythonpath` runs both with another checkout of the code first on the path (to
measure an older version on the same corpus). Prints a table and writes benchmarks/results/export.json
(or export_<label>.json).

  awm-jsonl   one file, layout awm (every record whole, the tools in every row)
  hf-parquet  one file, layout hf, Parquet
  hf-jsonl    one file, layout hf, JSONL
  awm-dir     a directory, layout awm: one JSONL per split, the tools once per environment, a dataset card
  hf-dir      a directory, layout hf: one Parquet per split, a dataset card
  verl-dir    a directory, layout verl: one Parquet per split
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

OUTPUTS = {
    "awm-jsonl": (["--layout", "awm"], "tasks.jsonl", ("json", "tasks.jsonl")),
    "hf-parquet": (["--layout", "hf"], "hf.parquet", ("parquet", "hf.parquet")),
    "hf-jsonl": (["--layout", "hf"], "hf.jsonl", ("json", "hf.jsonl")),
    "awm-dir": (["--layout", "awm"], "awm", (None, "awm")),
    "hf-dir": (["--layout", "hf"], "hf", (None, "hf")),
    "verl-dir": (["--layout", "verl"], "verl", (None, "verl")),
}

LOAD = """
import json, sys
from datasets import load_dataset
builder, path, cache = sys.argv[1:4]
loaded = load_dataset(path, cache_dir=cache) if builder == "-" else load_dataset(builder, data_files=path, cache_dir=cache)
print(json.dumps({name: len(rows) for name, rows in loaded.items()}))
"""


def measured(command: list[str], env: dict, cwd: str) -> dict:
    """Wall time and the child's peak RSS (through a `resource` wrapper, so other children do not count). Run in
    `cwd`, away from any checkout: `python -m` puts the working directory first on the path."""
    wrapper = ("import resource, subprocess, sys, json, time\n"
               "t = time.perf_counter(); p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
               "sys.stdout.write(p.stdout); sys.stderr.write(p.stderr)\n"
               "print(json.dumps({'wall_s': time.perf_counter() - t, 'rc': p.returncode, "
               "'maxrss_kb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}), file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", wrapper, *command], env=env, capture_output=True, text=True,
                          cwd=cwd)
    stats = json.loads(proc.stderr.strip().splitlines()[-1])
    if stats["rc"] != 0:
        raise SystemExit(f"{' '.join(command)} failed ({stats['rc']}):\n{proc.stderr[-3000:]}")
    return {"wall_s": round(stats["wall_s"], 1), "peak_rss_mb": round(stats["maxrss_kb"] / 1024), "stdout": proc.stdout}


def size(path: Path) -> int:
    return path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True, help="a built corpus (AWM_HOME with a catalog)")
    parser.add_argument("--outputs", nargs="+", choices=OUTPUTS, default=["awm-jsonl", "hf-parquet", "awm-dir",
                                                                          "hf-dir"])
    parser.add_argument("--pythonpath", type=Path, help="run the export with this checkout's code")
    parser.add_argument("--label", default="", help="results file export_<label>.json")
    parser.add_argument("--no-load", action="store_true", help="only write")
    parser.add_argument("--load-existing", nargs="+", type=Path, metavar="PATH",
                        help="only load these exports (files or directories written before), e.g. an older version's")
    args = parser.parse_args(argv)
    if args.load_existing:
        return load_existing(args)

    env = dict(os.environ, AWM_HOME=str(args.home), HF_DATASETS_DISABLE_PROGRESS_BARS="1")
    env["PYTHONPATH"] = str((args.pythonpath or ROOT).resolve())
    tasks = sum(1 for _ in open(args.home / "catalog.jsonl", encoding="utf-8"))
    imported = subprocess.run([sys.executable, "-c", "import awm; print(awm.__file__)"], env=env, cwd="/",
                              capture_output=True, text=True).stdout.strip()
    if not Path(imported).resolve().is_relative_to(Path(env["PYTHONPATH"])):
        raise SystemExit(f"the export would run {imported}, not the code under {env['PYTHONPATH']}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="awm-bench-export-") as tmp:
        for name in args.outputs:
            flags, target, (builder, load_path) = OUTPUTS[name]
            out = Path(tmp) / target
            write = measured([sys.executable, "-m", "awm.cli", "--home", str(args.home), "export", *flags,
                              "--out", str(out)], env, tmp)
            row = {"output": name, "bytes": size(out), "bytes_per_task": round(size(out) / tasks),
                   "write_s": write["wall_s"], "write_peak_rss_mb": write["peak_rss_mb"],
                   "files": sorted(p.name for p in out.iterdir()) if out.is_dir() else [out.name]}
            if not args.no_load:
                load = measured([sys.executable, "-c", LOAD, builder or "-", str(Path(tmp) / load_path),
                                 str(Path(tmp) / f"cache-{name}")], env, tmp)
                row.update(load_s=load["wall_s"], load_peak_rss_mb=load["peak_rss_mb"],
                           splits=json.loads(load["stdout"].strip().splitlines()[-1]))
            rows.append(row)
            print(f"{name:10s} {row['bytes'] / 1e6:8.1f} MB ({row['bytes_per_task']:,} B/task)  write "
                  f"{row['write_s']:6.1f} s {row['write_peak_rss_mb']:5d} MB"
                  + ("" if args.no_load else f"  load {row['load_s']:6.1f} s {row['load_peak_rss_mb']:5d} MB  "
                     f"{row['splits']}"), flush=True)
            for path in list(Path(tmp).iterdir()):  # one output on disk at a time
                subprocess.run(["rm", "-rf", str(path)], check=True)
    result = {"corpus_tasks": tasks, "code": "--pythonpath" if args.pythonpath else "this checkout", "cpus": os.cpu_count(), "load_average": os.getloadavg(), "outputs": rows}
    results = ROOT / "benchmarks" / "results"
    results.mkdir(parents=True, exist_ok=True)
    path = results / (f"export_{args.label}.json" if args.label else "export.json")
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


def load_existing(args) -> int:
    env = dict(os.environ, HF_DATASETS_DISABLE_PROGRESS_BARS="1")
    rows = []
    with tempfile.TemporaryDirectory(prefix="awm-bench-export-") as tmp:
        for n, path in enumerate(args.load_existing):
            builder = "-" if path.is_dir() else {".parquet": "parquet", ".jsonl": "json"}[path.suffix]
            load = measured([sys.executable, "-c", LOAD, builder, str(path.resolve()), str(Path(tmp) / f"cache-{n}")],
                            env, tmp)
            row = {"output": path.name, "bytes": size(path), "load_s": load["wall_s"],
                   "load_peak_rss_mb": load["peak_rss_mb"], "splits": json.loads(load["stdout"].strip().splitlines()[-1])}
            rows.append(row)
            print(f"{path.name:12s} {row['bytes'] / 1e6:8.1f} MB  load {row['load_s']:6.1f} s "
                  f"{row['load_peak_rss_mb']:5d} MB  {row['splits']}", flush=True)
    path = ROOT / "benchmarks" / "results" / f"export_load_{args.label or 'existing'}.json"
    path.write_text(json.dumps({"load_average": os.getloadavg(), "outputs": rows}, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
