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
reward_funcs=[awm_reward], one training step on CPU. The policy is the tiny Qwen2 whose generate adds a
logits processor that forces a script: `replay`, the reference solution's tool calls (TRL's own tool-call
loop parses them, calls the environment's methods and appends the results) and then the reference answer;
`null`, a prose answer and no call.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
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


def server_sessions(job: dict, prefix: str) -> dict[str, dict]:
    """The server's own list of episodes whose key starts with `prefix` (GET /admin/sessions), read right after
    a run: an ended episode is listed for the server's score grace period only."""
    import httpx

    token = Path(job["token_file"]).read_text().strip()
    listed = httpx.get(f"{job['base_url']}/admin/sessions", headers={"Authorization": f"Bearer {token}"}).json()
    return {s["episode"]: s for s in listed["sessions"] if str(s["episode"]).startswith(prefix)}


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
    from transformers import AutoTokenizer
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
    tokenizer = AutoTokenizer.from_pretrained(model_dir)  # the same files verl's worker loads
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
        out.setdefault("sessions", {}).update(server_sessions(job, "verl-"))
        out.setdefault("output_keys", sorted(result.non_tensor_batch))
    out["live_after"] = len(awm_verl.EPISODES.live) if awm_verl.EPISODES else None
    out["registry"] = {k: dict(v) for k, v in _agent_loop_registry.items() if k == awm_verl.AGENT_NAME}
    return out


# ----------------------------------------------------------------------------------------------------- TRL

def replay_processor(tokenizer, scripts: dict[str, dict]):
    """A logits processor that forces, in each sequence, the next token of its script: per assistant turn
    (counted by the `<|im_start|>assistant` headers after the prompt), a hermes tool call or the final answer,
    then the end of turn. The script is the task's whose instruction the sequence holds."""
    import torch

    start = tokenizer.convert_tokens_to_ids("<|im_start|>")
    header = tokenizer.encode("assistant\n", add_special_tokens=False)
    encoded = {task_id: [tokenizer.encode(text, add_special_tokens=False) + [tokenizer.eos_token_id]
                         for text in script["turns"]] for task_id, script in scripts.items()}

    rows: dict[int, str] = {}  # a processor per generate call: its rows keep their task

    def force(input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        for row, ids in enumerate(input_ids.tolist()):
            if row not in rows:
                text = tokenizer.decode(ids)
                [rows[row]] = [t for t, s in scripts.items() if s["instruction"] in text]
            task_id = rows[row]
            heads = [i for i, token in enumerate(ids) if token == start and ids[i + 1:i + 1 + len(header)] == header]
            turn, done = len(heads) - 1, len(ids) - heads[-1] - 1 - len(header)
            turns = encoded[task_id]
            wanted = turns[turn][done] if turn < len(turns) and done < len(turns[turn]) else tokenizer.eos_token_id
            scores[row] = float("-inf")
            scores[row, wanted] = 0.0
        return scores

    return force


def trl_job(job: dict, where: Path) -> dict:
    import torch
    from datasets import load_dataset
    from transformers import AutoTokenizer, LogitsProcessorList, Qwen2ForCausalLM
    from trl import GRPOConfig, GRPOTrainer

    from awm.trainers.trl import AWMEnvironment, awm_reward

    torch.set_num_threads(1)  # a 32-wide model: more threads only contend on a shared 2-core machine
    model_dir = build_model(where / "model")
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    wanted = {(job["env_id"], t["task_id"]) for t in job["tasks"]}
    dataset = load_dataset("json", data_files=job["hf_rows"], split="train")
    dataset = dataset.filter(lambda row: (row["env_id"], row["task_id"]) in wanted)
    scripts = {t["task_id"]: {"instruction": t["instruction"], "turns": [
        *(tool_call_text("call_tool", {"tool_name": s["tool"], "arguments": json.dumps(s["arguments"])})
          for s in t["solution"]),
        t["answer"] or "Done."]} for t in job["tasks"]}
    nulls = {t["task_id"]: {"instruction": t["instruction"], "turns": ["I looked into it and changed nothing."]}
             for t in job["tasks"]}

    def scripted(chosen: dict[str, dict]) -> type:
        class ScriptedPolicy(Qwen2ForCausalLM):
            """The tiny Qwen2, its sampling forced to a script (its forward, trained, unchanged)."""

            def generate(self, *args, **kwargs):
                processors = LogitsProcessorList(kwargs.pop("logits_processor", None) or [])
                processors.append(replay_processor(tokenizer, chosen))
                return super().generate(*args, logits_processor=processors, **kwargs)

        return ScriptedPolicy

    out = {"rows": len(dataset), "timings": (timings := {})}
    for policy in job["policies"]:
        torch.manual_seed(0)
        model = scripted(scripts if policy == "replay" else nulls).from_pretrained(model_dir)
        before = [p.detach().clone() for p in model.parameters()]
        factory = AWMEnvironment.factory(job["base_url"], admin_token_file=job["token_file"])
        args = GRPOConfig(output_dir=str(where / f"grpo-{policy}"), max_steps=1, per_device_train_batch_size=4,
                          num_generations=2, max_completion_length=job["max_completion_length"],
                          learning_rate=1e-2, logging_steps=1, save_strategy="no", report_to="none",
                          use_cpu=True, bf16=False, seed=0, dataloader_num_workers=0)
        started = time.perf_counter()
        trainer = GRPOTrainer(model=model, processing_class=tokenizer, reward_funcs=[awm_reward],
                              train_dataset=dataset, environment_factory=factory, args=args)
        built = time.perf_counter()
        result = trainer.train()
        timings[policy] = {"build_s": round(built - started, 2), "train_s": round(time.perf_counter() - built, 2)}
        sessions = server_sessions(job, "trl-")
        environments = trainer._environment_pool[None]
        verdicts = [e.verdict for e in environments if e.verdict is not None]
        out[policy] = {
            "global_step": result.global_step,
            "changed": any(not torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True)),
            "tools": sorted(t.__name__ for t in trainer.tools),
            "logged_rewards": list(trainer._logs["rewards"]["awm_reward"]),
            "verdicts": [{"episode": v["episode"], "reward": v["reward"], "calls": v["calls"],
                          "task_id": v.get("task_id")} for v in verdicts],
            "environments": len(environments),
            "sessions": {v["episode"]: sessions.get(v["episode"]) for v in verdicts},
            "history": [{k: v for k, v in h.items() if k.startswith(("reward", "tools/", "loss", "completions/"))}
                        for h in trainer.state.log_history],
            "completions": [str(c)[:300] for c in list(trainer._logs["completion"])[:4]],
        }
    return out


def main() -> None:
    job = json.loads(Path(sys.argv[1]).read_text())
    where = Path(job["workdir"])
    out = {"verl": verl_job, "trl": trl_job}[job["kind"]](job, where)
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
