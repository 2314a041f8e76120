"""The lengths a verl or TRL config must allow for a corpus: prompt (system, instruction and the tools in the
verl form, as verl's chat template renders them with the prompt), tool results of the reference solutions
(replayed through the runtime) and turns. Prints and writes benchmarks/results/trainer_lengths.json; the
sample config (examples/verl/awm_grpo.yaml) takes its lengths from it.

    python benchmarks/bench_trainer_lengths.py [--home AWM_HOME] [--limit N]

Tokens are estimated as characters / 3 (JSON schemas and English tokenize at 3 to 4 characters a token with
common tokenizers), so the estimate errs long.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from awm.export import export_lines  # noqa: E402
from awm.runtime import WorkerPool, open_environment  # noqa: E402
from awm.store import ArtifactStore  # noqa: E402
from awm.trainers.verl import openai_tool  # noqa: E402

CHARS_PER_TOKEN = 3


def percentile(values: list[int], share: float) -> int:
    values = sorted(values)
    return values[min(len(values) - 1, int(share * len(values)))] if values else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", default=".awm")
    parser.add_argument("--limit", type=int, default=None, help="at most this many environments")
    args = parser.parse_args()
    store = ArtifactStore(Path(args.home))
    prompts, results, steps, envs, per_task = [], [], [], [], []
    pool = WorkerPool()
    try:
        for record in export_lines(store, tool_format="verl", answer_mode="typed"):
            if record["env_id"] not in envs:
                if args.limit is not None and len(envs) >= args.limit:
                    break
                envs.append(record["env_id"])
            text = "".join(m["content"] for m in record["prompt"]) + json.dumps([openai_tool(t) for t in record["tools"]])
            prompts.append(len(text))
        for env_id in envs:
            env = open_environment(env_id, home=store.home, pool=pool)
            try:
                for task in env.tasks:
                    steps.append(task.steps)
                    with env.reset(task.task_id) as episode:
                        lengths = [len(json.dumps(episode.call(step.tool, step.arguments), ensure_ascii=False))
                                   for step in task.reference_solution]
                    results += lengths
                    per_task.append(sum(lengths))
            finally:
                env.close()
    finally:
        pool.close()
    summary = {
        "environments": len(envs), "tasks": len(prompts), "chars_per_token": CHARS_PER_TOKEN,
        "prompt_chars": {"p50": percentile(prompts, 0.5), "p99": percentile(prompts, 0.99), "max": max(prompts)},
        "tool_result_chars": {"p50": percentile(results, 0.5), "p90": percentile(results, 0.9),
                              "p99": percentile(results, 0.99), "max": max(results),
                              "over_256": round(sum(r > 256 for r in results) / len(results), 3)},
        "reference_steps": {"p50": percentile(steps, 0.5), "max": max(steps)},
        "task_result_chars": {"p50": percentile(per_task, 0.5), "p99": percentile(per_task, 0.99),
                              "max": max(per_task)},
    }
    summary["suggested"] = {
        "max_prompt_length": -(-summary["prompt_chars"]["max"] // CHARS_PER_TOKEN),
        "max_tool_response_length": summary["tool_result_chars"]["max"],
        "max_response_length": -(-2 * summary["task_result_chars"]["max"] // CHARS_PER_TOKEN),
        "max_assistant_turns": 2 * summary["reference_steps"]["max"] + 2,
    }
    out = Path(__file__).resolve().parent / "results" / "trainer_lengths.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
