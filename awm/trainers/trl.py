"""TRL GRPO, as shipped: an environment for GRPOTrainer's `environment_factory`, and its reward function.

    from awm.trainers.trl import AWMEnvironment, awm_reward
    trainer = GRPOTrainer(model=..., train_dataset=dataset,          # `awm export --layout hf --tool-format awm`
                          environment_factory=AWMEnvironment.factory(base_url, admin_token_file="~/.awm/admin-token"),
                          reward_funcs=[awm_reward], args=GRPOConfig(...))

TRL makes one environment instance per rollout and calls `reset(**row)` before generating, with the row's
columns: reset reserves the episode of the row's env_id and task_id (under a key of its own), in the `awm`
tool format, so one environment class fits every AWM environment. The model sees the environment's public
methods as tools (TRL renders them from their type hints and docstrings): `list_tools` (the environment's
tools as text) and `call_tool` (one of them, with its arguments as a JSON string), the two functions AWM's
models were trained with (awm.runtime.agent_format). `awm_reward` scores each rollout's episode with its
final completion (the answer, read by the server) and ends it: one reward per completion, the server's.
"""

from __future__ import annotations

import os
from typing import Any
from uuid import uuid4

from awm.client import AWMClientError, Client, Episode

KEY_PREFIX = "trl-"
TOOL_FORMAT = "awm"


def final_answer(completion: Any) -> str | None:
    """The final message of a completion: the text of its last assistant turn (a conversational completion),
    or the completion itself (a plain one); None when there is none."""
    if isinstance(completion, str):
        return completion.strip() or None
    for message in reversed(completion or []):
        if isinstance(message, dict) and message.get("role") == "assistant":
            content = message.get("content")
            if isinstance(content, list):
                content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
            return (content.strip() or None) if isinstance(content, str) else None
    return None


class AWMEnvironment:
    """One rollout's AWM episode, for TRL's environment_factory (reset, then the tool methods)."""

    base_url: str = os.environ.get("AWM_BASE_URL", "http://127.0.0.1:8000")
    admin_token: str | None = None
    admin_token_file: str | None = None

    def __init__(self) -> None:
        self._client: Client | None = None
        self.episode: Episode | None = None
        self.verdict: dict | None = None

    @classmethod
    def factory(cls, base_url: str | None = None, admin_token: str | None = None,
                admin_token_file: str | None = None) -> type[AWMEnvironment]:
        """An environment class bound to one `awm serve` (TRL calls it with no argument for each rollout)."""
        return type(cls.__name__, (cls,), {"base_url": base_url or cls.base_url, "admin_token": admin_token,
                                           "admin_token_file": admin_token_file})

    def _close(self) -> None:
        if self.episode is not None and self.verdict is None:
            try:
                self._client.free(self.episode.key)
            except AWMClientError:
                pass  # the server frees an unscored episode after its grace period anyway
        if self._client is not None:
            self._client.close()
        self._client, self.episode = None, None

    def reset(self, env_id: str | None = None, task_id: str | None = None, **row: Any) -> None:
        if not env_id or not task_id:
            raise AWMClientError("the dataset row lacks env_id or task_id: export it with `awm export --layout hf`")
        self._close()
        self.verdict = None
        self._client = Client(self.base_url, self.admin_token, self.admin_token_file)
        try:
            self.episode = self._client.reserve(env_id, task_id, key=f"{KEY_PREFIX}{uuid4().hex}",
                                                tool_format=TOOL_FORMAT)
        except AWMClientError:
            self._close()
            raise
        return None

    def _episode(self) -> Episode:
        if self.episode is None:
            raise AWMClientError("no episode: TRL calls reset(**row) before the rollout's tools")
        return self.episode

    def list_tools(self) -> str:
        """List all available MCP tools for the current environment to help you finish the user task.

        Returns:
            A list of MCP environment-specific tools, their descriptions and parameters.
        """
        return self._episode().call("list_tools", {})[0]

    def call_tool(self, tool_name: str, arguments: str) -> str:
        """Call a MCP environment-specific tool.

        Args:
            tool_name: The tool name in the list_tools output.
            arguments: The arguments for calling the tool, as a valid JSON string without markdown fences; an
                empty JSON object string if it takes none.

        Returns:
            The result of the tool call, as JSON text.
        """
        return self._episode().call("call_tool", {"tool_name": tool_name, "arguments": arguments})[0]

    def _finish(self, answer: str | dict | None) -> float:
        """Score the episode with `answer` and end it (once): the server's reward. Private: TRL offers every
        public method to the model as a tool."""
        if self.verdict is None:
            self.verdict = self._episode().end(answer)
            self._client.close()
            self._client = None
        return float(self.verdict["reward"])


def awm_reward(completions: list, environments: list[AWMEnvironment], **kwargs: Any) -> list[float]:
    """TRL reward function: each rollout's episode scored by the server with the completion's final message
    as the answer (the typed submit_answer, when the episode recorded one, counts as well)."""
    return [environment._finish(final_answer(completion))
            for completion, environment in zip(completions, environments, strict=True)]
