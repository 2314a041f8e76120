"""verl, as shipped: an agent loop that plays one AWM episode per rollout and puts the server's reward in it.

    # agent_loop.yaml (actor_rollout_ref.rollout.agent.agent_loop_config_path)
    - name: awm_agent
      _target_: awm.trainers.verl.AWMAgentLoop
      base_url: http://127.0.0.1:8000          # `awm serve`; or $AWM_BASE_URL
      admin_token_file: ~/.awm/admin-token     # or $AWM_ADMIN_TOKEN_FILE / $AWM_ADMIN_TOKEN

and rows from `awm export --layout verl` (verl_row: agent_name awm_agent, a small fixed extra_info naming
the environment and the task). docs/training.md has a whole config (examples/verl/).

What the loop does, per rollout (verl makes one loop instance per sample):
  1. reserves the rollout's episode from extra_info (env_id, task_id) under the key `verl-<request id>`,
     in the verl tool format (awm.toolspecs.verl_schema: the schemas pass verl's OpenAIFunctionToolSchema),
     and offers the model that episode's tools (one environment's tools, not one global list);
  2. runs verl's ToolAgentLoop unchanged; verl creates and releases a tool around every call, so the tools
     here reserve nothing: each call finds the rollout's episode by the request id verl hands it;
  3. after the loop, scores the episode with `end` (the answer: the typed submit_answer call the episode
     recorded, or the final message for prose rows) and puts the reward in the output's `reward_score`
     (verl then skips its own scorer) and the verdict in extra_fields["awm"].

The verl-free part (RolloutEpisodes) holds the episodes and runs the calls; the verl classes (AWMAgentLoop,
EpisodeTool) exist when verl imports (it needs torch and ray) and only wire it into verl.
"""

from __future__ import annotations

import json
import os
from typing import Any
from uuid import uuid4

from awm.client import AsyncClient, AsyncEpisode, AWMClientError

AGENT_NAME = "awm_agent"
KEY_PREFIX = "verl-"
TOOL_FORMAT = "verl"


def openai_tool(spec: dict) -> dict:
    """An MCP tool spec (name, description, inputSchema) as the OpenAI function verl's schema model takes."""
    return {"type": "function", "function": {"name": spec["name"], "description": spec.get("description") or "",
                                             "parameters": spec["inputSchema"]}}


def verl_row(record: dict, index: int) -> dict:
    """A verl row of an export record: the prompt, and a small fixed extra_info (the same keys on every row,
    whatever the environment's tools: the tools come from the episode the agent loop reserves)."""
    reference = record.get("reference") or {}
    episode = {"env_id": record["env_id"], "task_id": record["task_id"]}
    return {
        "data_source": f"awm/{record['domain']}",
        "agent_name": AGENT_NAME,
        "prompt": record["prompt"],
        "ability": "tool_use",
        # the reward is the server's (the agent loop's reward_score); ground_truth is for reading only
        "reward_model": {"style": "rule", "ground_truth": json.dumps(reference.get("answer"), ensure_ascii=False)},
        "extra_info": {
            "index": index, "split": record["split"], "domain": record["domain"], **episode,
            "answer_mode": record.get("answer_mode", "typed"),
            "tier": record.get("tier", "proven"), "origin": record.get("origin", "unknown"),
            "need_tools_kwargs": False,
            "interaction_kwargs": {"name": "awm", **episode},
        },
    }


class RolloutEpisodes:
    """The episodes of the rollouts in flight, by verl request id: reserved at the start of a rollout, kept
    across verl's per-call tool create/release, scored and freed at its end."""

    def __init__(self, base_url: str | None = None, admin_token: str | None = None,
                 admin_token_file: str | None = None, timeout: float = 60.0):
        self.base_url = base_url or os.environ.get("AWM_BASE_URL") or "http://127.0.0.1:8000"
        self.admin_token, self.admin_token_file, self.timeout = admin_token, admin_token_file, timeout
        self.live: dict[str, tuple[AsyncClient, AsyncEpisode]] = {}

    async def start(self, request_id: str, extra_info: dict) -> list[dict]:
        """Reserve and open the rollout's episode: its tools, as OpenAI functions in the verl form."""
        missing = [key for key in ("env_id", "task_id") if not (extra_info or {}).get(key)]
        if missing:
            raise AWMClientError(f"the row's extra_info lacks {', '.join(missing)}: export the data with "
                                 "`awm export --layout verl`")
        if request_id in self.live:
            raise AWMClientError(f"request {request_id} already has an episode")
        client = AsyncClient(self.base_url, self.admin_token, self.admin_token_file, timeout=self.timeout)
        try:
            episode = await client.reserve(extra_info["env_id"], extra_info["task_id"], key=KEY_PREFIX + request_id,
                                           tool_format=TOOL_FORMAT)
        except BaseException:
            await client.aclose()
            raise
        self.live[request_id] = (client, episode)
        return [openai_tool(spec) for spec in episode.tools]

    async def execute(self, request_id: str, name: str, arguments: dict) -> tuple[str, dict]:
        """One tool call in the rollout's episode: the result text, and metrics."""
        if request_id not in self.live:
            raise AWMClientError(f"no episode for request {request_id}: the rollout did not start one")
        text, failed = await self.live[request_id][1].call(name, arguments)
        return text, {"tool_error": failed}

    async def finish(self, request_id: str, answer: str | dict | None = None) -> dict:
        """Score the rollout's episode with `answer`, end it and forget it: the server's verdict."""
        client, episode = self.live.pop(request_id)
        try:
            return await episode.end(answer)
        finally:
            await client.aclose()

    async def abandon(self, request_id: str) -> None:
        """Free the rollout's episode unscored (the rollout failed)."""
        if request_id in self.live:
            client, episode = self.live.pop(request_id)
            try:
                await client.free(episode.key)
            finally:
                await client.aclose()


def final_text(response_ids: list[int], response_mask: list[int], decode) -> str:
    """The model's last turn in a verl response: the last run of tokens the model generated (mask 1)."""
    end = len(response_mask)
    while end and not response_mask[end - 1]:
        end -= 1
    start = end
    while start and response_mask[start - 1]:
        start -= 1
    return decode(response_ids[start:end], skip_special_tokens=True).strip()


EPISODES: RolloutEpisodes | None = None  # one per process (an agent loop worker), made by the first loop


_CLASSES: dict[str, type] = {}


def __getattr__(name: str) -> Any:
    """AWMAgentLoop and EpisodeTool, made on first use (importing verl imports torch and ray, so importing this
    module does not: awm.export uses verl_row without verl)."""
    if name not in ("AWMAgentLoop", "EpisodeTool"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if not _CLASSES:
        _CLASSES.update(_verl_classes())
    return _CLASSES[name]


def _verl_classes() -> dict[str, type]:  # pragma: no cover - needs verl (torch, ray)
    from verl.experimental.agent_loop.agent_loop import AgentLoopOutput, _agent_loop_registry, register
    from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse

    class EpisodeTool(BaseTool):
        """One tool of an episode: create and release hold nothing; execute runs the call in the episode of
        the rollout verl calls it from (AgentData.request_id)."""

        def __init__(self, config: dict, tool_schema: OpenAIFunctionToolSchema):  # BaseTool's prints the schema
            self.config, self.tool_schema, self.name = config, tool_schema, tool_schema.function.name

        async def create(self, instance_id: str | None = None, **kwargs) -> tuple[str, ToolResponse]:
            return instance_id or uuid4().hex, ToolResponse()

        async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs):
            agent_data = kwargs["agent_data"]
            text, metrics = await EPISODES.execute(agent_data.request_id, self.name, parameters)
            return ToolResponse(text=text), 0.0, metrics

    class AWMAgentLoop(ToolAgentLoop):
        """verl's ToolAgentLoop over one reserved AWM episode per rollout, rewarded by the server."""

        def __init__(self, *args, base_url: str | None = None, admin_token: str | None = None,
                     admin_token_file: str | None = None, timeout: float = 60.0, **kwargs):
            super().__init__(*args, **kwargs)
            global EPISODES
            if EPISODES is None:
                EPISODES = RolloutEpisodes(base_url, admin_token, admin_token_file, timeout)
            self._awm_request_id = uuid4().hex

        def _make_request_id(self, priority: int, full_determinism: bool) -> str:
            return self._awm_request_id

        async def run(self, sampling_params: dict[str, Any], priority: int = 0, **kwargs) -> AgentLoopOutput:
            extra_info = kwargs.get("extra_info") or {}
            schemas = await EPISODES.start(self._awm_request_id, extra_info)
            try:
                self.tools = {}
                for schema in schemas:
                    tool = EpisodeTool({}, OpenAIFunctionToolSchema.model_validate(schema))
                    self.tools[tool.name] = tool
                self.tool_schemas = schemas  # as served: verl's model would drop nested parameters
                output = await super().run(sampling_params, priority=priority, **kwargs)
            except BaseException:
                await EPISODES.abandon(self._awm_request_id)
                raise
            answer = None
            if extra_info.get("answer_mode") == "prose":
                answer = final_text(output.response_ids, output.response_mask, self.tokenizer.decode)
            verdict = await EPISODES.finish(self._awm_request_id, answer)
            output.reward_score = float(verdict["reward"])
            output.extra_fields["awm"] = {"episode": verdict.get("episode"), "complete": verdict.get("complete"),
                                          "reward": verdict["reward"]}
            return output

    for cls in (AWMAgentLoop, EpisodeTool):  # importable by name: verl's registry and hydra locate classes by it
        cls.__qualname__ = cls.__name__
    if AGENT_NAME not in _agent_loop_registry:
        # `awm_agent` without an agent loop config; an entry loaded from one (with base_url and the token file)
        # is kept: the class is made on the first instantiation, after verl's worker loaded that config
        register(AGENT_NAME)(AWMAgentLoop)
    return {"AWMAgentLoop": AWMAgentLoop, "EpisodeTool": EpisodeTool}
