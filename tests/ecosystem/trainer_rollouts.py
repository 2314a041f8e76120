"""Runs in the trainers' virtualenv (.venv-trainers): verl's own tool schema model, the verl agent loop's
episode handling, TRL's environment contract, against `awm serve` on 127.0.0.1, with scripted models. Prints
one JSON line. It needs neither torch nor ray (trainer_runs.py runs verl's and TRL's classes that do).

verl: every verl module imports verl/__init__.py, which imports verl.protocol (ray, torch, tensordict), so
verl's schema module (verl/tools/schemas.py, pydantic only) is loaded from the installed package's file as
it is (0.9.1's and 0.7.0's, which is installed without its package's imports). The agent loop is driven as verl's ToolAgentLoop drives it (read from its source:
one request id per rollout; per call: the name checked against the tools, the arguments JSON-decoded,
create, execute with agent_data, release).
TRL: `import trl` works without torch, GRPOTrainer does not; the environment is probed and called as
GRPOTrainer.__init__ and _generate_and_score_completions do (inspect.getmembers on the class, reset(**row),
tool methods by name, reward functions with completions and environments), and the tool schemas are
rendered by transformers' get_json_schema, which TRL's chat templating uses.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import json
import sys
import time
from pathlib import Path
from uuid import uuid4

OLDER_VERL = Path(sys.executable).parents[1] / "verl-0.7.0"  # the Makefile installs it there (--target)


def verl_schemas(root: Path | None = None):
    """verl's tools/schemas.py (pydantic only), as the installed package ships it, loaded from its file."""
    if root is None:
        root = Path(importlib.util.find_spec("verl").submodule_search_locations[0])  # found, not imported
    module_spec = importlib.util.spec_from_file_location(f"verl_tools_schemas_{id(root)}", root / "tools" / "schemas.py")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def nested_keys(prop: dict) -> list[str]:
    """The keys of an object parameter (or of the objects of an array parameter), in any form."""
    for branch in [prop, *(prop.get("anyOf") or ())]:
        inner = branch.get("items", branch) if isinstance(branch, dict) else {}
        if isinstance(inner, dict) and isinstance(inner.get("properties"), dict) and inner["properties"]:
            return list(inner["properties"])
    return []


def accepted(model, tools: list[dict], originals: list[dict]) -> dict:
    """How many tools verl's model takes, and of those with nested object parameters, how many still name
    every nested key in what verl renders (model_dump, as BaseTool and ToolAgentLoop render the schemas)."""
    ok, refused, nested, nested_kept = 0, [], 0, 0
    for tool, original in zip(tools, originals, strict=True):
        try:
            parsed = model.model_validate(tool)
        except Exception as exc:  # pydantic's ValidationError
            refused.append(f"{tool['function']['name']}: {' '.join(str(exc).split())[:300]}")
            continue
        ok += 1
        rendered = parsed.model_dump(exclude_unset=True, exclude_none=True)["function"]["parameters"]["properties"]
        wanted = {name: nested_keys(prop) for name, prop in original["inputSchema"].get("properties", {}).items()}
        wanted = {name: keys for name, keys in wanted.items() if keys}
        if wanted:
            nested += 1
            nested_kept += all(all(key in json.dumps(rendered.get(name)) for key in keys)
                               for name, keys in wanted.items())
    return {"accepted": ok, "refused": refused[:3], "refused_count": len(refused), "nested": nested,
            "nested_kept": nested_kept}


def replay_calls(task: dict, model: str) -> list[tuple[str, dict]]:
    if model == "null":
        return []
    return [(step["tool"], step["arguments"]) for step in task["solution"]]


async def verl_rollouts(job: dict, schema_model) -> list[dict]:
    from awm.trainers.verl import RolloutEpisodes

    episodes = RolloutEpisodes(job["base_url"], admin_token=job["token"])
    rows = {(r["extra_info"]["env_id"], r["extra_info"]["task_id"]): r for r in map(json.loads, open(job["verl_rows"]))}

    async def one(task: dict, model: str) -> dict:
        row = rows[(task["env_id"], task["task_id"])]
        request_id = uuid4().hex  # verl: one per rollout (ToolAgentLoop._make_request_id)
        schemas = await episodes.start(request_id, row["extra_info"])
        for schema in schemas:  # what AWMAgentLoop does with each: verl's model must take it
            schema_model.model_validate(schema)
        names = {s["function"]["name"] for s in schemas}
        latencies, errors = [], 0
        for name, arguments in replay_calls(task, model):
            assert name in names, (name, sorted(names))  # ToolAgentLoop: unknown names never reach a tool
            arguments = json.loads(json.dumps(arguments))  # the model's JSON, decoded by the loop
            instance = uuid4().hex  # create ... release around each call: nothing held but the request id
            started = time.perf_counter()
            _, metrics = await episodes.execute(request_id, name, arguments)
            latencies.append(time.perf_counter() - started)
            errors += metrics["tool_error"]
            del instance
        text = (task["answer"] or "Done.") if model == "replay" else "I looked into it and changed nothing."
        answer = text if row["extra_info"]["answer_mode"] == "prose" else None  # AWMAgentLoop: the final turn
        verdict = await episodes.finish(request_id, answer)
        return {"task_id": task["task_id"], "model": model, "reward": verdict["reward"], "episode": verdict["episode"],
                "calls": verdict["calls"], "tool_errors": errors, "latencies": latencies,
                "tools": len(schemas), "key_is_request": verdict["episode"] == "verl-" + request_id}

    runs = [one(task, model) for task in job["tasks"] for model in ("replay", "null") for _ in range(job["copies"])]
    results = await asyncio.gather(*runs)
    return list(results) + [{"live_after": len(episodes.live)}]


def trl_rollouts(job: dict) -> dict:
    import trl  # noqa: F401 - the package imports without torch; GRPOTrainer needs it
    from transformers.utils import get_json_schema

    from awm.trainers.trl import AWMEnvironment, awm_reward

    factory = AWMEnvironment.factory(job["base_url"], admin_token=job["token"])
    # GRPOTrainer.__init__: members of the class that are functions; reset required; the rest public are tools
    members = dict(inspect.getmembers(factory, predicate=inspect.isfunction))
    assert "reset" in members
    probe = factory()
    tools = [getattr(probe, name) for name in members if name not in ("reset", "get_reward")
             and not name.startswith("_")]
    rendered = {tool.__name__: get_json_schema(tool) for tool in tools}
    rows = {(r["env_id"], r["task_id"]): r for r in map(json.loads, open(job["hf_rows"]))}
    results = []
    for task in job["tasks"]:
        for model in ("replay", "null"):
            environment = factory()
            row = rows[(task["env_id"], task["task_id"])]
            assert environment.reset(**row) is None  # GRPOTrainer: reset(**example) before generating
            latencies = []
            completion = []
            if model == "replay":
                started = time.perf_counter()
                listing = environment.list_tools()
                latencies.append(time.perf_counter() - started)
                for name, arguments in replay_calls(task, model):
                    started = time.perf_counter()
                    environment.call_tool(tool_name=name, arguments=json.dumps(arguments))
                    latencies.append(time.perf_counter() - started)
                text = task["answer"] or "Done."
            else:
                listing, text = None, "I looked into it and changed nothing."
            completion.append({"role": "assistant", "content": text})
            [reward] = awm_reward(completions=[completion], environments=[environment], prompts=[row["prompt"]])
            results.append({"task_id": task["task_id"], "model": model, "reward": reward,
                            "episode": environment.verdict["episode"], "calls": environment.verdict["calls"],
                            "latencies": latencies, "listed": listing is not None and "mcp_tool_" in listing})
    return {"tools": rendered, "rollouts": results}


def verl_loop_contract() -> dict:
    """What AWMAgentLoop relies on in verl's agent loop, read from the installed source (ast): the checks that
    hold. ToolAgentLoop.run takes the request id from self._make_request_id and the row's extra_info from its
    kwargs; _call_tool passes agent_data to execute; AgentLoopOutput has reward_score and extra_fields; the
    worker computes a reward only when reward_score is None, and makes one loop per sample with `tools=`."""
    import ast

    root = Path(importlib.util.find_spec("verl").submodule_search_locations[0]) / "experimental" / "agent_loop"
    tool_loop = ast.parse((root / "tool_agent_loop.py").read_text())
    agent_loop_text = (root / "agent_loop.py").read_text()
    agent_loop = ast.parse(agent_loop_text)

    def method(tree, cls: str, name: str):
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == cls:
                return next((f for f in node.body if isinstance(f, ast.AsyncFunctionDef | ast.FunctionDef)
                             and f.name == name), None)
        return None

    def calls(function) -> list[ast.Call]:
        return [n for n in ast.walk(function) if isinstance(n, ast.Call)] if function is not None else []

    run = method(tool_loop, "ToolAgentLoop", "run")
    call_tool = method(tool_loop, "ToolAgentLoop", "_call_tool")
    output = next(n for n in ast.walk(agent_loop) if isinstance(n, ast.ClassDef) and n.name == "AgentLoopOutput")
    fields = {n.target.id for n in output.body if isinstance(n, ast.AnnAssign)}
    return {
        "request_id_from_method": any(isinstance(c.func, ast.Attribute) and c.func.attr == "_make_request_id"
                                      for c in calls(run)),
        "extra_info_from_kwargs": "extra_info" in ast.unparse(run),
        "execute_gets_agent_data": any(isinstance(c.func, ast.Attribute) and c.func.attr == "execute"
                                       and any(k.arg == "agent_data" for k in c.keywords) for c in calls(call_tool)),
        "output_fields": {"reward_score", "extra_fields"} <= fields,
        "reward_only_when_unset": "reward_score is None" in agent_loop_text,
        "loop_per_sample_with_tools": "tools=ToolListWrap(self.tools)" in agent_loop_text,
    }


def unknown_config_keys(overrides: Path) -> list[str]:
    """The keys of the sample config (examples/verl/awm_grpo.yaml) that verl's own trainer config lacks."""
    import yaml

    root = Path(importlib.util.find_spec("verl").submodule_search_locations[0])
    known = yaml.safe_load((root / "trainer" / "config" / "_generated_ppo_trainer.yaml").read_text())
    unknown = []

    def walk(ours: dict, theirs: dict, where: str) -> None:
        for key, value in ours.items():
            if key not in theirs:
                unknown.append(where + key)
            elif isinstance(value, dict) and isinstance(theirs[key], dict):
                walk(value, theirs[key], f"{where}{key}.")

    walk({k: v for k, v in yaml.safe_load(overrides.read_text()).items() if k not in ("hydra", "defaults")}, known, "")
    return unknown


def main() -> None:
    job = json.loads(Path(sys.argv[1]).read_text())  # a file: the tool sets are too long for a command line
    schemas = verl_schemas()
    models = {"verl-0.9.1": schemas.OpenAIFunctionToolSchema,
              "verl-0.7.0": verl_schemas(OLDER_VERL / "verl").OpenAIFunctionToolSchema}
    out = {"schema_counts": {version: {form: accepted(model, tools, job["specs"])
                                       for form, tools in job["tool_sets"].items()}
                             for version, model in models.items()}}
    out["verl"] = asyncio.run(verl_rollouts(job, schemas.OpenAIFunctionToolSchema))
    out["unknown_config_keys"] = unknown_config_keys(Path(job["config"]))
    out["verl_loop_contract"] = verl_loop_contract()
    out["trl"] = trl_rollouts(job)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
