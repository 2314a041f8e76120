"""Agent evaluation: agents run against the published environments, scored by the runtime.

    awm.eval.policies   offline agent models (reference, noisy, null, reward hacker) that `awm llm-serve`
                        answers with in agent mode, to test and measure the evaluation with no key
    awm.eval.rollouts   the rollout engine: an agent loop over the `openai` client against any
                        OpenAI-compatible endpoint, tool calls run through awm.runtime, JSONL trajectories
    awm.eval.report     pass@1, unbiased pass@k, breakdowns, reward-hacking flags, task difficulty
"""
