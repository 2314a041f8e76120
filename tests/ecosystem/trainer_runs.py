"""Runs in the trainers' virtualenv with torch (CPU) and ray installed (.venv-trainers): verl's and TRL's own
training-side classes, executed, against `awm serve` on 127.0.0.1. Prints one JSON line.

Offline: the model is a tiny randomly initialised Qwen2 and the tokenizer a byte-level one built here with the
`tokenizers` library, saved with TRL's own Qwen2.5 chat template (it renders tools and tool calls in the hermes
form verl's and TRL's parsers read).

verl (`verl` job): the verl Parquet from `awm export --layout verl` is read by verl's RLHFDataset with the
data keys of examples/verl/awm_grpo.yaml (composed by hydra over verl's own ppo_trainer config, as
main_ppo does), batched by verl's collate_fn into a DataProto, and run through verl's AgentLoopWorker
(generate_sequences: it instantiates AWMAgentLoop from the agent loop config by hydra, one loop per sample,
and pads the outputs into rm_scores), in this process (no ray cluster: AgentLoopManager would make the
worker a ray actor). The LLM server is scripted: it answers with the token ids of the reference solution's
tool calls (hermes `<tool_call>` blocks), one per turn, then the reference answer; or with a prose answer
and no call (a null model).

TRL (`trl` job): GRPOTrainer itself, with environment_factory=AWMEnvironment.factory(...) and
reward_funcs=[awm_reward], one training step on CPU. The policy is the tiny Qwen2: `random` samples from it
as it is; `replay` is the same model whose generate adds a logits processor that forces the reference
solution's tool calls (TRL's own tool-call loop parses them, calls the environment's methods and appends
the results) and then the reference answer.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
MARKUP = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]  # not special: decoded as text


def build_model(where: Path) -> Path:
    """A tiny random Qwen2 and a byte-level tokenizer with TRL's Qwen2.5 chat template, saved in `where`."""
    from importlib.resources import files

    import torch
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    core = Tokenizer(models.BPE(vocab={ch: i for i, ch in enumerate(alphabet)}, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    core.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIAL])
    core.add_tokens([AddedToken(t, special=False, normalized=False) for t in MARKUP])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                        model_max_length=65536)
    tokenizer.chat_template = (files("trl") / "chat_templates" / "qwen2_5.jinja").read_text()
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=65536,
                         tie_word_embeddings=True, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id, bos_token_id=None)
    Qwen2ForCausalLM(config).save_pretrained(where)
    tokenizer.save_pretrained(where)
    return where


def tool_call_text(name: str, arguments: dict) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False) + "\n</tool_call>"


# ---------------------------------------------------------------------------------------------------- verl

class ScriptedServer:
    """verl's LLM server client as ToolAgentLoop calls it (generate(request_id=, prompt_ids=, ...) ->
    TokenOutput): per request, the next turn of the script of the task whose instruction is in the prompt."""

    def __init__(self, tokenizer, scripts: dict[str, list[str]], model: str):
        self.tokenizer, self.scripts, self.model = tokenizer, scripts, model
        self.turns: dict[str, list[str]] = {}
        self.requests: dict[str, str] = {}

    async def generate(self, *, request_id: str, prompt_ids: list[int], sampling_params: dict, **kwargs):
        from verl.workers.rollout.replica import TokenOutput

        if request_id not in self.turns:
            prompt = self.tokenizer.decode(prompt_ids)
            [task_id] = [t for t, s in self.scripts.items() if s["instruction"] in prompt]
            script = self.scripts[task_id]
            calls = [tool_call_text(n, a) for n, a in script["calls"]] if self.model == "replay" else []
            final = script["answer"] if self.model == "replay" else "I looked into it and changed nothing."
            self.turns[request_id] = [*calls, final]
            self.requests[request_id] = task_id
        text = self.turns[request_id].pop(0)
        ids = self.tokenizer.encode(text, add_special_tokens=False) + [self.tokenizer.eos_token_id]
        return TokenOutput(token_ids=ids, log_probs=[0.0] * len(ids), stop_reason="completed")


def verl_job(job: dict, where: Path) -> dict:
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf
    from torch.utils.data import DataLoader
    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker, _agent_loop_registry
    from verl.protocol import DataProto
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

    import awm.trainers.verl as awm_verl

    model_dir = build_model(where / "model")
    loops = where / "agent_loop.yaml"  # examples/verl/agent_loop.yaml, pointed at this server and token
    entries = OmegaConf.load(job["agent_loop_config"])
    for entry in entries:
        entry.base_url, entry.admin_token_file = job["base_url"], job["token_file"]
    OmegaConf.save(entries, loops)
    with initialize_config_dir(config_dir=str(Path(job["config"]).parent), version_base=None):
        config = compose(config_name=Path(job["config"]).stem, overrides=[
            f"data.train_files={job['parquet']}", f"data.val_files={job['parquet']}",
            f"actor_rollout_ref.model.path={model_dir}",
            f"actor_rollout_ref.rollout.agent.agent_loop_config_path={loops}",
            f"actor_rollout_ref.rollout.n={job['copies']}",
        ])
    tokenizer = __import__("transformers").AutoTokenizer.from_pretrained(model_dir)
    dataset = RLHFDataset(data_files=config.data.train_files, tokenizer=tokenizer, config=config.data)
    rows = [dataset[i] for i in range(len(dataset))]
    wanted = {t["task_id"] for t in job["tasks"]}
    chosen = [r for r in rows if r["extra_info"]["env_id"] == job["env_id"] and r["extra_info"]["task_id"] in wanted]
    batch = next(iter(DataLoader(chosen, batch_size=len(chosen), collate_fn=collate_fn)))
    batch = DataProto.from_single_dict(batch).repeat(repeat_times=config.actor_rollout_ref.rollout.n, interleave=True)

    scripts = {t["task_id"]: {"instruction": t["instruction"], "answer": t["answer"] or "Done.",
                              "calls": [(s["tool"], s["arguments"]) for s in t["solution"]]} for t in job["tasks"]}
    out = {"dataset": {"rows": len(dataset), "keys": sorted(rows[0]), "agent_name": str(rows[0].get("agent_name")),
                       "raw_prompt_roles": [m["role"] for m in rows[0]["raw_prompt"]]}, "runs": []}
    for model in ("replay", "null"):
        server = ScriptedServer(tokenizer, scripts, model)
        worker = AgentLoopWorker(config, server)
        result = asyncio.run(worker.generate_sequences(batch))
        rewards = result.batch["rm_scores"].sum(dim=-1).tolist()
        for i, reward in enumerate(rewards):
            awm = result.non_tensor_batch["awm"][i] if "awm" in result.non_tensor_batch else None  # extra_fields
            out["runs"].append({
                "model": model, "task_id": str(result.non_tensor_batch["extra_info"][i]["task_id"]),
                "reward": reward, "awm": awm, "response_tokens": int(result.batch["response_mask"][i].sum()),
                "turns": int(result.non_tensor_batch["__num_turns__"][i]),
            })
        out.setdefault("requests", []).extend(server.requests)
        out.setdefault("output_keys", sorted(result.non_tensor_batch))
    out["live_after"] = len(awm_verl.EPISODES.live) if awm_verl.EPISODES else None
    out["registry"] = {k: dict(v) for k, v in _agent_loop_registry.items() if k == awm_verl.AGENT_NAME}
    return out


def main() -> None:
    job = json.loads(Path(sys.argv[1]).read_text())
    where = Path(job["workdir"])
    out = {"verl": verl_job}[job["kind"]](job, where)
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
