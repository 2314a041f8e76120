"""Runs in AWM's own agent's virtualenv (.venv-awm-agent: agent-world-model 0.1.0 from PyPI, Python 3.12; its
package is also named `awm`, so this script runs without the project on its path): AWM's agent loop,
unmodified (awm.core.agent.run_agent), against episodes reserved on `awm serve` on 127.0.0.1, with a scripted
model behind an OpenAI-compatible endpoint that writes tool calls as AWM's models do (<tool_call> text: first
list_tools, then call_tool with the prefixed name and a JSON-string of arguments, then the answer).

The job names, per run, the reserved URL, the instruction and the script; prints one JSON line with, per
run, the final message, the listing AWM's client made of the served tools, and the time it took."""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from their_loop import run_bounded  # beside this script (stdlib only)

AGENT_SECONDS = 240.0


class ScriptedModel(BaseHTTPRequestHandler):
    scripts: dict[str, dict] = {}  # instruction -> {"solution": [...], "answer": ..., "model": replay|null}
    seen: dict[str, list] = {}  # instruction -> the tool messages the agent sent back

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        messages = request["messages"]
        instruction = next(m["content"] for m in messages if m["role"] == "user")
        script = self.scripts[instruction]
        results = [m["content"] for m in messages if m["role"] == "tool"]
        self.seen[instruction] = results
        if script["model"] == "replay" and not results:
            content = '<tool_call>\n{"name": "list_tools", "arguments": {}}\n</tool_call>'
        elif script["model"] == "replay" and len(results) <= len(script["solution"]):
            step = script["solution"][len(results) - 1]
            call = {"name": "call_tool", "arguments": {"tool_name": f"mcp_tool_{step['tool']}",
                                                       "arguments": json.dumps(step["arguments"])}}
            content = f"<tool_call>\n{json.dumps(call)}\n</tool_call>"
        elif script["model"] == "replay":
            content = script["answer"] or "Done."
        else:
            content = "I looked into it and changed nothing."
        body = json.dumps({"id": f"chatcmpl-{time.monotonic_ns()}", "object": "chat.completion",
                           "created": int(time.time()), "model": request["model"],
                           "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                        "finish_reason": "stop"}],
                           "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main() -> None:
    job = json.loads(Path(sys.argv[1]).read_text())
    from awm.core.agent import Config, run_agent  # AWM's agent, as its package ships it

    model_server = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedModel)
    threading.Thread(target=model_server.serve_forever, daemon=True).start()
    out = []
    for run in job["runs"]:  # one at a time: the scripted model is keyed by the instruction
        ScriptedModel.scripts = {run["instruction"]: run}
        seconds, leftover = run_bounded(run_agent(Config(
            task=run["instruction"], mcp_url=run["url"], vllm_url=f"http://127.0.0.1:{model_server.server_address[1]}/v1",
            model="scripted", max_iterations=len(run["solution"]) + 3, verbose=False)), AGENT_SECONDS)
        results = ScriptedModel.seen.get(run["instruction"], [])
        answer = (run["answer"] or "Done.") if run["model"] == "replay" else "I looked into it and changed nothing."
        out.append({"key": run["key"], "seconds": seconds, "final": answer, "leftover_tasks": leftover,
                    "listing": results[0] if results else None, "results": results[1:]})
    model_server.shutdown()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
