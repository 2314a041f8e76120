"""Supervised fine-tuning data: trajectories that earned reward 1, as OpenAI chat messages.

Two sources, one row shape:

- **reference** (`awm export --sft`): each published task's reference solution replayed through the runtime
  (a fresh episode, the same sandbox and argument checks an agent gets), so every tool message holds the real
  output of the call; then the answer (typed: a `submit_answer` call with each slot's expected value and its
  real result, then a short final message; prose: the reference answer as the final message). The episode is
  scored, and a task is written only when it scores reward 1 (a reference that does not is counted and named,
  never written).
- **eval** (`awm export --sft --from-eval AGENT`): the trajectories `awm eval` wrote for AGENT, only those that
  scored reward 1 (rejection sampling), every passing sample.

A row: `messages` (system, user, then assistant turns with `tool_calls` in the OpenAI shape: `id`, `type:
function`, `function.name`, `function.arguments` as a JSON string, and `tool` messages with `tool_call_id`
and `content`), `tools` (JSON text of the tools in the OpenAI function shape: `{"type": "function",
"function": {"name", "description", "parameters"}}`), and env_id, domain, task_id, split, source, reward.

Chat templates of Hugging Face models (Qwen2.5 among them) expect `function.arguments` as an object and
render a string as a quoted string: `template_inputs(row)` gives the messages and tools as a template wants
them (`tokenizer.apply_chat_template(**template_inputs(row))`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from awm import artifacts
from awm.contracts import Task
from awm.errors import AWMError
from awm.export import DEFAULT_FRACTIONS, SPLITS, ExportSummary, Progress, SplitSinks, select, system_prompt
from awm.runtime.answers import SUBMIT_ANSWER, answer_tool, reference_submission
from awm.runtime.environment import Environment
from awm.store import ArtifactStore, atomic_directory
from awm.toolspecs import published_spec

FINAL_MESSAGE = "Done: the request is complete."


def openai_tools(specs: list[dict]) -> list[dict]:
    """MCP tool specs as OpenAI function tools."""
    return [{"type": "function", "function": {"name": s["name"], "description": s.get("description", ""),
                                              "parameters": s["inputSchema"]}} for s in specs]


def tool_message(call_id: str, name: str, output) -> dict:
    return {"role": "tool", "tool_call_id": call_id, "name": name,
            "content": json.dumps(output, ensure_ascii=False, default=str)}


def call_message(call_id: str, name: str, arguments: dict) -> dict:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": call_id, "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}]}


def reference_messages(env: Environment, task: Task, prompt: list[dict], answer_mode: str) -> tuple[list[dict], dict]:
    """The reference trajectory of `task` replayed in a fresh episode, as chat messages; and its score."""
    messages = [dict(m) for m in prompt]
    with env.reset(task.task_id) as episode:
        for n, step in enumerate(task.reference_solution, 1):
            call_id = f"call_{n}"
            messages.append(call_message(call_id, step.tool, step.arguments))
            messages.append(tool_message(call_id, step.tool, episode.call(step.tool, step.arguments)))
        submission = reference_submission(task) if answer_mode == "typed" else None
        if submission is not None:
            call_id = f"call_{len(task.reference_solution) + 1}"
            messages.append(call_message(call_id, SUBMIT_ANSWER, submission))
            messages.append(tool_message(call_id, SUBMIT_ANSWER, episode.call(SUBMIT_ANSWER, submission)))
        final = task.reference_answer or FINAL_MESSAGE
        messages.append({"role": "assistant", "content": final})
        score = episode.score(None if submission is not None else final)
    return messages, score


def template_inputs(row: dict) -> dict:
    """`messages` and `tools` of a row as a Hugging Face chat template wants them: each tool call's arguments
    an object, the tools a list (pass to `tokenizer.apply_chat_template(**template_inputs(row))`)."""
    messages = []
    for message in row["messages"]:
        message = {k: v for k, v in message.items() if v is not None}
        if message.get("tool_calls"):
            message["tool_calls"] = [{**call, "function": {**call["function"], "arguments": json.loads(
                call["function"]["arguments"])}} for call in message["tool_calls"]]
        messages.append(message)
    return {"conversation": messages, "tools": json.loads(row["tools"])}


@dataclass
class _Row:
    split: str
    row: dict


def reference_rows(store: ArtifactStore, selection, tool_format: str = "strict", answer_mode: str = "typed",
                   pool=None, skipped: list[str] | None = None) -> Iterator[_Row]:
    """One row per published task of the selection whose replayed reference scores reward 1."""
    by_env: dict[str, list[str]] = {}
    for entry in store.iter_catalog():
        if entry["env_id"] in selection:
            by_env.setdefault(entry["env_id"], []).append(entry["task_id"])
    for env_id, task_ids in by_env.items():
        scenario = artifacts.SCENARIO.read(store, env_id)
        env = Environment.from_store(store, env_id, pool=pool, task_ids=task_ids)
        try:
            for task in env.tasks:
                submit = answer_tool(task) if answer_mode == "typed" else None
                tools = ([published_spec(spec.mcp(), tool_format) for spec in env.toolset.offered(task)]
                         + ([published_spec(submit, tool_format)] if submit else []))
                prompt = [{"role": "system", "content": system_prompt(scenario, env.taskset.acting_user, task,
                                                                      answer_mode)},
                          {"role": "user", "content": task.instruction}]
                messages, score = reference_messages(env, task, prompt, answer_mode)
                if score["reward"] != 1.0:
                    if skipped is not None:
                        skipped.append(f"{env_id} {task.task_id}: reward {score['reward']}")
                    continue
                yield _Row(selection[env_id], {
                    "env_id": env_id, "domain": scenario.domain, "task_id": task.task_id,
                    "split": selection[env_id], "source": "reference", "reward": score["reward"],
                    "messages": messages, "tools": json.dumps(openai_tools(tools), ensure_ascii=False)})
        finally:
            env.close()


def eval_rows(store: ArtifactStore, selection, agent: str, skipped: list[str] | None = None) -> Iterator[_Row]:
    """The trajectories `awm eval` wrote for `agent` that scored reward 1, in the chat message shape, with the
    tools the rollout was offered (the environment's, in the published strict form, as the engine gives them)."""
    from awm.eval.rollouts import agent_dir, read_trajectory

    folder = agent_dir(store.home, agent)
    if not folder.is_dir():
        raise AWMError(f"no trajectories of agent {agent!r} under {folder}: run `awm eval` for it first")
    tools_of: dict[tuple[str, str], str] = {}
    for path in sorted(folder.glob("*/*/*/*.jsonl")):
        lines = read_trajectory(path)
        if not lines or lines[0].get("type") != "rollout" or lines[-1].get("type") != "result":
            if skipped is not None:
                skipped.append(f"{path.name}: not a finished trajectory")
            continue
        header, result = lines[0], lines[-1]
        if header["env_id"] not in selection or result.get("status") != "completed" or result.get("reward") != 1.0:
            continue
        env_id, task_id = header["env_id"], header["task_id"]
        if (env_id, task_id) not in tools_of:  # the tools the rollout's task offered (a customer's: not staff-only)
            toolset = artifacts.TOOLS_JSON.read(store, env_id)
            task = next((t for t in artifacts.TASKS.read(store, env_id).tasks if t.task_id == task_id), None)
            tools_of[env_id, task_id] = json.dumps(
                openai_tools([published_spec(s.mcp()) for s in toolset.offered(task)]), ensure_ascii=False)
        messages = [{k: v for k, v in line.items() if k != "type"} for line in lines[1:-1]]
        yield _Row(selection[env_id], {
            "env_id": env_id, "domain": header["domain"], "task_id": header["task_id"], "split": selection[env_id],
            "source": f"eval:{header['agent']}:s{header['sample']}", "reward": result["reward"],
            "messages": [_chat_message(m) for m in messages], "tools": tools_of[env_id, task_id]})


def _chat_message(message: dict) -> dict:
    """A message in the shape every row has (the same keys in every message, so Arrow gives one type)."""
    return {"role": message["role"], "content": message.get("content") or "",
            **({"tool_calls": [{"id": c.get("id"), "type": "function",
                                "function": {"name": c["function"]["name"],
                                             "arguments": c["function"].get("arguments") or "{}"}}
                               for c in message["tool_calls"]]} if message.get("tool_calls") else {}),
            **({"tool_call_id": message.get("tool_call_id")} if message["role"] == "tool" else {}),
            **({"name": message["name"]} if message.get("name") else {})}


IMPORTED_WHY = ("SFT rows are references replayed with real tool outputs by our sandbox runtime, which does not run "
                "imported code: a checked task has no reference, and replaying a promoted one in the foreign runtime "
                "is not written yet; `awm export` (layouts awm, hf, verl) carries them with their tier")


def write_sft(store: ArtifactStore, out: Path, domains: list[str] | None = None, env_ids: list[str] | None = None,
              splits: list[str] | None = None, fractions: tuple[float, float, float] = DEFAULT_FRACTIONS,
              held_out: list[str] | None = None, tool_format: str = "strict", answer_mode: str = "typed",
              from_eval: str | None = None, pool=None, progress=None, tiers: list[str] | None = None) -> ExportSummary:
    """Write SFT rows to the directory `out` (one JSONL per split and a dataset card), atomically; from the
    replayed references, or with `from_eval` from that agent's passing `awm eval` trajectories. Imported
    AWM-1K environments are left out (`ExportSummary.left_out` names them, with `IMPORTED_WHY`)."""
    if tool_format == "awm":
        raise AWMError("SFT rows carry the environment's own tools; use --tool-format strict or permissive")
    selection = select(store, domains, env_ids, splits, fractions, held_out, tiers, imported=False,
                       why_not=IMPORTED_WHY)
    skipped: list[str] = []
    rows = (eval_rows(store, selection, from_eval, skipped) if from_eval
            else reference_rows(store, selection, tool_format, answer_mode, pool, skipped))
    counter = (Progress(None, progress, 100, "passing trajectories") if from_eval
               else Progress(selection.tasks, progress, 100))
    counts = dict.fromkeys(SPLITS, 0)
    envs: dict[str, set[str]] = {name: set() for name in SPLITS}
    with atomic_directory(out) as folder:
        sinks = SplitSinks(folder, "jsonl")
        try:
            for item in rows:
                sinks.write(item.split, item.row)
                counts[item.split] += 1
                envs[item.split].add(item.row["env_id"])
                counter.tick()
            files = sinks.close()
        finally:
            sinks.discard()
        if not files:
            raise AWMError(f"no trajectory scored reward 1 ({len(skipped)} skipped: {'; '.join(skipped[:5])})")
        (folder / "README.md").write_text(_card(files, counts, envs, from_eval, tool_format, answer_mode, skipped),
                                          encoding="utf-8")
    return ExportSummary(Path(out), sum(counts.values()), len(set().union(*envs.values())), counts,
                         selection.empty, left_out=selection.left_out)


def _card(files: dict[str, str], counts: dict[str, int], envs: dict[str, set[str]], from_eval: str | None,
          tool_format: str, answer_mode: str, skipped: list[str]) -> str:
    from awm.export_card import LICENSE_TEXT

    header = ["---", "license: other", "pretty_name: AWM tool-use trajectories (SFT)", "task_categories:",
              "- text-generation", "tags:", "- agents", "- tool-use", "- sft", "- synthetic", "configs:",
              "- config_name: default", "  data_files:"]
    for split, name in files.items():
        header += [f"  - split: {split}", f"    path: {name}"]
    source = (f"the `awm eval` trajectories of agent `{from_eval}` that scored reward 1 (rejection sampling)"
              if from_eval else "each published task's reference solution replayed through the runtime (real "
              f"tool outputs), then its answer ({answer_mode}); only replays that scored reward 1")
    lines = ["# AWM tool-use trajectories (SFT)", "", f"Source: {source}. Tools in the OpenAI function shape "
             f"(`{tool_format}` schemas, JSON text in `tools`); messages in the OpenAI chat shape, tool call "
             "arguments as JSON strings (`awm.sft.template_inputs(row)` gives them as objects, as Hugging Face "
             "chat templates want them).", "", "| split | trajectories | environments |", "|---|---|---|"]
    lines += [f"| {split} | {counts[split]:,} | {len(envs[split]):,} |" for split in files]
    lines += ["", f"Left out: {len(skipped):,}" + (f" (first: {'; '.join(skipped[:3])})" if skipped else "") + ".",
              "", "## Licence", "", LICENSE_TEXT, ""]
    return "\n".join(header + ["---"]) + "\n" + "\n".join(lines)
