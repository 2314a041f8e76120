"""Run in the agent-side environment (.venv-clients: verifiers 0.3.1, mcp 1.x).

Given an export, a running `awm serve` and, per task, its reference solution and answer, it
  1. loads the environment through verifiers' own loader (`vf.load_environment("awm.adapters.verifiers")`);
  2. starts a scripted OpenAI-compatible chat-completions server on 127.0.0.1 that plays a policy chosen by the
     request's model name: `replay` calls the reference solution one tool per turn, as a strict model sends
     arguments (every listed property, null for those not used), then answers; `null` answers at once and
     calls nothing; `garbled` sends one call whose arguments are not JSON, then answers;
  3. runs verifiers' rollout machinery (`env.generate`, groups of `copies` rollouts of each task) for the three
     policies at once, against one server;
and prints, as JSON, each rollout's reward, metrics, episode key and error, and the tools each policy was
offered for each task, for the test in the project's own environment to judge.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ScriptedModel(BaseHTTPRequestHandler):
    scripts: dict[str, dict] = {}  # instruction -> {"solution": [...], "answer": ...}
    offered: dict[str, dict] = {}  # model -> instruction -> {tool name: strict flag}, as its first request offered them

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        message = self.turn(request)
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        body = json.dumps({"id": f"chatcmpl-{time.monotonic_ns()}", "object": "chat.completion",
                           "created": int(time.time()), "model": request["model"],
                           "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                           "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def turn(self, request: dict) -> dict:
        messages, model = request["messages"], request["model"]
        tools = {t["function"]["name"]: t["function"] for t in request.get("tools") or []}
        instruction = next(m["content"] for m in messages if m["role"] == "user")
        self.offered.setdefault(model, {}).setdefault(instruction, {name: f.get("strict") for name, f in tools.items()})
        script = self.scripts[instruction]
        done = sum(m["role"] == "tool" for m in messages)
        if model == "replay" and done < len(script["solution"]):
            step = script["solution"][done]
            if step["tool"] not in tools:  # the AWM agent format: every tool behind call_tool, JSON-string arguments
                return self.call(done, "call_tool", json.dumps({"tool_name": f"mcp_tool_{step['tool']}",
                                                                "arguments": json.dumps(step["arguments"])}))
            properties = tools[step["tool"]]["parameters"]["properties"]
            arguments = {name: step["arguments"].get(name) for name in properties}  # strict: all, null if unused
            return self.call(done, step["tool"], json.dumps(arguments))
        if model == "garbled" and done == 0:
            return self.call(done, script["solution"][0]["tool"], "{not json")
        answer = script["answer"] if model == "replay" else "I looked into it and changed nothing."
        text = answer if isinstance(answer, str) else json.dumps(answer) if answer is not None else "Done."
        return {"role": "assistant", "content": text}

    @staticmethod
    def call(index: int, name: str, arguments: str) -> dict:
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{index}_{time.monotonic_ns()}", "type": "function",
             "function": {"name": name, "arguments": arguments}}]}


async def main(job: dict) -> dict:
    import verifiers as vf
    from verifiers.types import ClientConfig

    ScriptedModel.scripts = {t["instruction"]: t for t in job["tasks"]}
    model_server = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedModel)
    threading.Thread(target=model_server.serve_forever, daemon=True).start()
    os.environ["AWM_SCRIPTED_MODEL_KEY"] = "not-a-real-key"
    client = ClientConfig(api_base_url=f"http://127.0.0.1:{model_server.server_address[1]}/v1",
                          api_key_var="AWM_SCRIPTED_MODEL_KEY", max_retries=0)
    refused = {}
    for name, arguments in job.get("refused", {}).items():  # inputs the adapter must refuse, with a reason
        try:
            vf.load_environment("awm.adapters.verifiers", **arguments)
            refused[name] = None
        except Exception as exc:  # vf.load_environment wraps the adapter's error: keep the whole chain
            refused[name] = f"{exc} <- {exc.__cause__}"
    try:
        env = vf.load_environment("awm.adapters.verifiers", export=job["export"], base_url=job["base_url"],
                                  admin_token=job["token"], train_split="all", eval_split=None,
                                  max_turns=job.get("max_turns", 32))
        wanted = {(t["env_id"], t["task_id"]) for t in job["tasks"]}
        rows = [row for row in env.get_dataset().to_list() if (row["info"]["env_id"], row["info"]["task_id"]) in wanted]
        inputs = [row for row in rows for _ in range(job["copies"])]  # same example_id: one group per task
        runs = await asyncio.gather(*(env.generate(inputs, client=client, model=model, state_columns=["awm"])
                                      for model in job["models"]))
        awm_format = None
        if job.get("awm_export"):  # the same tasks exported in the AWM agent format
            awm_env = vf.load_environment("awm.adapters.verifiers", export=job["awm_export"], base_url=job["base_url"],
                                          admin_token=job["token"], train_split="all", eval_split=None)
            awm_rows = [row for row in awm_env.get_dataset().to_list()
                        if (row["info"]["env_id"], row["info"]["task_id"]) in wanted]
            awm_format = (await awm_env.generate(awm_rows, client=client, model="replay",
                                                 state_columns=["awm"]))["outputs"]
        stale = None
        if job.get("stale_export"):  # an export naming a task the server does not publish
            stale_env = vf.load_environment("awm.adapters.verifiers", export=job["stale_export"],
                                            base_url=job["base_url"], admin_token=job["token"], train_split="all",
                                            eval_split=None)
            stale = (await stale_env.generate(stale_env.get_dataset().to_list(), client=client, model="null",
                                              state_columns=["awm"]))["outputs"]
    finally:
        model_server.shutdown()
    rollouts = {}
    for model, run in zip(job["models"], runs):
        rollouts[model] = [{"env_id": o["info"]["env_id"], "task_id": o["info"]["task_id"], "reward": o["reward"],
                            "metrics": o["metrics"], "episode": o["awm"]["episode"],
                            "verdict": o["awm"]["verdict"], "format_errors": o["awm"]["format_errors"],
                            "error": str(o.get("error")) if o.get("error") else None,
                            "stop_condition": o.get("stop_condition"),
                            "tool_messages": sum(m["role"] == "tool" for m in o["completion"])}
                           for o in run["outputs"]]
    return {"rows": len(env.get_dataset()), "rollouts": rollouts, "offered": ScriptedModel.offered,
            "refused": refused,
            "awm_format": [{"reward": o["reward"], "error": str(o.get("error")) if o.get("error") else None,
                            "tools": [t["name"] for t in o.get("tool_defs") or []], "verdict": o["awm"]["verdict"]}
                           for o in awm_format or []],
            "stale": [{"reward": o["reward"], "error": str(o.get("error")), "verdict": o["awm"]["verdict"]}
                      for o in stale or []]}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(json.loads(sys.argv[1]))), default=str))
