"""How big each stage's request is: prompt and answer tokens per call, against a context window.

Builds environments with the LLM backend against `awm llm-serve` (in this process, on 127.0.0.1), which answers
with what the offline world builder makes, so the answers have the offline-sized worlds' size (~18 tables,
~35 tools, ~600 rows). For each stage it reads the prompts the server received and the answers' sizes, and
prints per stage the largest and mean prompt, answer and prompt + answer in tokens, and how many calls would
not fit a context of --context tokens (default 32,768) or a budget of --budget (default 24,576).

Tokens are estimated from characters: / 4 (what llm-serve reports) and / 3.5 (the client's clamping estimate,
closer to small open models' tokenizers on JSON and code). tiktoken's o200k_base is used as well when installed.

    python benchmarks/llm_prompt_sizes.py                      # 4 domains, 1 environment each
    python benchmarks/llm_prompt_sizes.py --domains bakery airline --context 32768

Writes benchmarks/results/llm_prompt_sizes.json.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from awm.backends import get_backend  # noqa: E402
from awm.llm.settings import LLMSettings  # noqa: E402
from awm.llm_serve.server import LLMServer  # noqa: E402
from awm.stages.pipeline import build_environment  # noqa: E402
from awm.store import ArtifactStore  # noqa: E402

STAGE_ORDER = ("scenarios", "tasks", "schemas", "databases", "tools", "verifier")


def _tiktoken():
    try:
        import tiktoken
    except ImportError:
        return None
    return tiktoken.get_encoding("o200k_base")


def measure(domains: list[str], tasks_per_env: int) -> list[dict]:
    server = LLMServer(model="awm-offline").start()
    calls: list[dict] = []
    try:
        with tempfile.TemporaryDirectory(prefix="awm-prompt-sizes-") as tmp:
            store = ArtifactStore(Path(tmp) / "home")
            settings = LLMSettings(base_url=server.url, api_key="any", model="awm-offline", cache=False,
                                   context_tokens=1_000_000)  # measure, never clamp
            backend = get_backend("openai", settings=settings, store=store, tasks_per_env=tasks_per_env,
                                  run_id="sizes")
            for domain in domains:
                outcomes = build_environment(store, domain, 0, backend)
                failed = [(o.stage, o.error) for o in outcomes if not o.ok]
                if failed:
                    raise SystemExit(f"{domain}: {failed}")
            answers = {(r.env_id, r.stage, r.subject): r.completion_tokens
                       for r in backend.client.ledger.records(run_id="sizes")}
            for entry in server.state.requests:
                if "messages" not in entry:
                    continue
                chars = sum(len(str(m.get("content") or "")) for m in entry["messages"])
                answer_tokens = answers.get((entry["env_id"], entry["stage"], entry.get("task_id")), 0)
                calls.append({"stage": entry["stage"], "env_id": entry["env_id"], "prompt_chars": chars,
                              "answer_chars": answer_tokens * 4,
                              "text": "".join(str(m.get("content") or "") for m in entry["messages"])})
            backend.close()
    finally:
        server.stop()
    return calls


def summarise(calls: list[dict], context: int, budget: int) -> dict:
    encoding = _tiktoken()
    table: dict[str, dict] = {}
    for stage in STAGE_ORDER:
        mine = [c for c in calls if c["stage"] == stage]
        if not mine:
            continue
        row: dict = {"calls": len(mine)}
        for label, per in (("chars/4", 4.0), ("chars/3.5", 3.5)):
            prompt = [math.ceil(c["prompt_chars"] / per) for c in mine]
            answer = [math.ceil(c["answer_chars"] / per) for c in mine]
            total = [p + a for p, a in zip(prompt, answer, strict=True)]
            row[label] = {"prompt_max": max(prompt), "prompt_mean": round(sum(prompt) / len(prompt)),
                          "answer_max": max(answer), "total_max": max(total),
                          f"over_{context}": sum(t > context for t in total),
                          f"over_{budget}": sum(t > budget for t in total)}
        if encoding is not None:
            row["o200k_prompt_max"] = max(len(encoding.encode(c["text"])) for c in mine)
        table[stage] = row
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--domains", nargs="+", default=["bakery", "airline", "dental_clinic", "university"])
    parser.add_argument("--tasks-per-env", type=int, default=10)
    parser.add_argument("--context", type=int, default=32768)
    parser.add_argument("--budget", type=int, default=24576)
    args = parser.parse_args()
    calls = measure(args.domains, args.tasks_per_env)
    table = summarise(calls, args.context, args.budget)
    print(f"{len(args.domains)} environments, {len(calls)} calls; tokens estimated as characters / 4 and / 3.5\n")
    print(f"{'stage':<11} {'calls':>5}  {'prompt max':>10} {'prompt mean':>11} {'answer max':>10} "
          f"{'prompt+answer max':>17} {'over ' + str(args.context):>10} {'over ' + str(args.budget):>10}")
    for label in ("chars/4", "chars/3.5"):
        print(f"-- {label}")
        for stage, row in table.items():
            r = row[label]
            print(f"{stage:<11} {row['calls']:>5}  {r['prompt_max']:>10} {r['prompt_mean']:>11} {r['answer_max']:>10} "
                  f"{r['total_max']:>17} {r[f'over_{args.context}']:>10} {r[f'over_{args.budget}']:>10}")
    out = ROOT / "benchmarks" / "results" / "llm_prompt_sizes.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"domains": args.domains, "tasks_per_env": args.tasks_per_env, "context": args.context,
                               "budget": args.budget, "stages": table}, indent=2) + "\n")
    tmp.replace(out)
    print(f"\nwrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
