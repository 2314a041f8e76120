"""awm promote-awm1k: imported AWM-1K tasks from `checked` to `proven`, by candidate references put through the
proofs (awm/awm1k/promotion.py, docs/awm1k.md)."""

from __future__ import annotations

import os
from pathlib import Path


def promote_awm1k(args) -> int:
    from awm import artifacts
    from awm.awm1k.promotion import candidates_from_evals, candidates_from_file, promote
    from awm.errors import AWMError
    from awm.stages.catalog import build_catalog
    from awm.store import ArtifactStore

    store = ArtifactStore(args.home)
    imported = [e for e in store.env_ids() if artifacts.AWM1K.exists(store, e)]
    env_ids = args.env or imported
    unknown = sorted(set(env_ids) - set(imported))
    if unknown:
        raise AWMError(f"not imported from AWM-1K: {', '.join(unknown)} (imported: {', '.join(imported) or 'none'})")
    if args.model:  # an agent endpoint: its rollouts (awm eval's engine and files) are the candidates
        from awm.eval.rollouts import EvalLimits, RolloutEngine
        from awm.llm.settings import LLMSettings

        base_url = args.base_url or os.environ.get("AWM_AGENT_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
        settings = LLMSettings.from_env(model=args.model, base_url=base_url)
        run = RolloutEngine(store, settings, EvalLimits(k=args.k, max_steps=args.max_steps)).run(env_ids)
        passed = sum(r.passed for r in run.results)
        print(f"rollouts: {len(run.results)} ({passed} judged complete by their verifiers) in {run.seconds:.1f} s")
    candidates = [c for path in args.trajectories or () for c in candidates_from_file(path)]
    status = 0
    for env_id in env_ids:
        found = [c for c in candidates if c.env_id == env_id]
        if not args.no_evals:
            found += candidates_from_evals(store, env_id)
        if not found:
            print(f"{env_id}: no candidate references")
            continue
        result = promote(store, env_id, found)
        print(f"{env_id}: {len(result.promoted)} promoted to proven ({', '.join(result.promoted) or '-'}) in "
              f"{result.seconds:.1f} s")
        for task_id, reason in sorted(result.kept.items()):
            print(f"    {task_id} stays checked: {reason[:300]}")
    summary = build_catalog(store, store.env_ids())
    print(f"catalog: {len(summary.entries)} tasks ({sum(e.tier == 'checked' for e in summary.entries)} checked, "
          f"{sum(e.tier == 'proven' for e in summary.entries)} proven)")
    return status


def register(sub) -> None:
    parser = sub.add_parser("promote-awm1k", help="promote imported AWM-1K tasks to proven with candidate references",
                            description="Trajectories their verifier accepts (awm eval rollouts, a trajectory file, "
                                        "or rollouts of --model made now) are put through the proofs: replayed twice, "
                                        "null rejected, every mutant rejected (docs/awm1k.md).")
    parser.add_argument("--env", action="append", help="an imported environment (repeatable; default all)")
    parser.add_argument("--trajectories", action="append", type=Path, metavar="FILE",
                        help="an awm eval rollout file, or JSONL lines {env_id, task_id, calls: [{tool, arguments}], "
                             "answer} (repeatable)")
    parser.add_argument("--no-evals", action="store_true", help="do not read awm eval rollouts under AWM_HOME/evals")
    parser.add_argument("--model", help="an agent model: roll out every checked task first (awm eval's engine)")
    parser.add_argument("--base-url", help="its OpenAI-compatible endpoint (default AWM_AGENT_BASE_URL, else "
                                           "OPENAI_BASE_URL)")
    parser.add_argument("--k", type=int, default=1, help="rollouts per task with --model (default 1)")
    parser.add_argument("--max-steps", type=int, default=30, help="model turns per rollout (default 30)")
    parser.set_defaults(handler=promote_awm1k)
