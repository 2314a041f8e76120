"""awm llm-serve: a local OpenAI-compatible server answering AWM prompts from the offline world builder."""

from __future__ import annotations


def serve(args) -> int:
    from awm.llm_serve.server import LLMServer
    from awm.store import ArtifactStore

    agent_home = ArtifactStore(args.home).home if args.agent else None
    server = LLMServer(args.host, args.port, model=args.model, latency_ms=args.latency_ms, slow_s=args.slow_s,
                       faults=args.fault, base_seed=args.seed, api_key=args.api_key, agent_home=agent_home,
                       agent_policy=args.agent_policy, emulate=args.emulate,
                       context_tokens=args.context)
    faults = ", ".join(f"{r.fault}@{r.stage}x{'always' if r.times is None else r.times}" for r in args.fault)
    print(f"awm llm-serve: OpenAI-compatible API on {server.url} (model {args.model}, latency {args.latency_ms:g} ms"
          f"{', faults ' + faults if faults else ''}{', emulating ' + args.emulate if args.emulate else ''}"
          f"{f', agent mode on {agent_home}, default policy {args.agent_policy}' if agent_home else ''})", flush=True)
    print(f"  OPENAI_BASE_URL={server.url} OPENAI_API_KEY={args.api_key or 'any'} AWM_LLM_MODEL={args.model} "
          "AWM_LLM_BACKEND=openai", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def _fault(spec: str):
    import argparse

    from awm.llm_serve.server import FaultRule, FaultSpecError

    try:
        return FaultRule.parse(spec)
    except FaultSpecError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _policy(spec: str) -> str:
    import argparse

    from awm.eval.policies import AgentRequestError, parse_policy

    try:
        parse_policy("", spec)
    except AgentRequestError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return spec


def register(sub) -> None:
    parser = sub.add_parser(
        "llm-serve", help="serve an OpenAI-compatible API on 127.0.0.1 that answers from the offline world builder",
        description="A local OpenAI-compatible chat completions server that answers AWM stage prompts from the "
                    "offline world builder, with switchable latency and fault injection. Faults: malformed_json, "
                    "truncated, schema_violation, bad_sql, unsafe_code, lying_verifier, duplicate, login_task, "
                    "wall_clock, http_429, http_500, slow, missing_usage, no_json_schema, json_schema_500, "
                    "no_response_format, "
                    "malformed_tool_call (agent mode). Stages: scenarios, tasks, schemas, databases, tools, verifier, "
                    "agent, or * for any. With --agent it also acts as an agent model: a request with tools gets "
                    "tool_calls from the policy its model name selects (awm-agent-reference, awm-agent-noisy-0.3, "
                    "awm-agent-null, awm-agent-hacker) on the task found in the corpus under --home.")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (0 picks a free one; default 8000)")
    parser.add_argument("--model", default="awm-offline", help="model name it answers as")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="added to every response")
    parser.add_argument("--slow-s", type=float, default=5.0, help="delay of the 'slow' fault")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the offline world builder")
    parser.add_argument("--api-key", default=None, help="require this key (default: accept any)")
    parser.add_argument("--fault", action="append", type=_fault, default=[], metavar="FAULT[:STAGE[:TIMES]]",
                        help="inject a fault, e.g. http_429:tasks:2 or malformed_json:*:always (repeatable)")
    parser.add_argument("--emulate", choices=("llama-cpp-python",), default=None,
                        help="answer as that server does: llama-cpp-python refuses response_format json_schema with "
                             "HTTP 500 (accepting json_object with a schema), names itself owned_by 'me' and answers "
                             "one request at a time")
    parser.add_argument("--context", type=int, default=None, metavar="TOKENS",
                        help="a context window: reported as max_model_len in GET /models, and a request whose prompt "
                             "and max_tokens exceed it refused with HTTP 400 as vLLM does")
    parser.add_argument("--agent", action="store_true",
                        help="agent mode: answer requests with tools from the corpus under --home ($AWM_HOME)")
    parser.add_argument("--agent-policy", default="reference", type=_policy, metavar="POLICY",
                        help="policy for model names outside awm-agent-*: reference, noisy[-RATE], null, hacker")
    parser.set_defaults(handler=serve)
