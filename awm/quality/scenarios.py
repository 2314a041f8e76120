"""Scenario checks: every scenario belongs where it says, and no two of a domain are near-duplicates.

Similarity of two scenarios is the mean of three Jaccard indices:
  - modules: the optional parts of the business, which decide the tables and tools an agent gets;
  - catalogue: item categories and items, which decide the data and what the tasks are about;
  - story: word 3-shingles of the description, which catch a paraphrase of the same business.
Two environments that agree on all three give an agent the same tool surface, the same data and the
same story, so training on both teaches nothing new. Scenarios of one domain share the description
template and often the modules, so the catalogue is what separates them. Over the 100 built-in domains
x 10 scenarios (4,500 pairs) the highest similarity is 0.61; a copy with a new name and city scores
above 0.9. NEAR_DUPLICATE_SIMILARITY sits between the two.
"""

from __future__ import annotations

import itertools
import re

from awm.contracts import Scenario
from awm.domains import split_env_id
from awm.quality.findings import Finding

NEAR_DUPLICATE_SIMILARITY = 0.8
CHECK_DUPLICATE = "near_duplicate_scenarios"
CHECK_IDENTITY = "scenario_identity"


def _jaccard(a: set, b: set) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def _shingles(text: str, n: int = 3) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(words[i:i + n]) for i in range(max(1, len(words) - n + 1))}


def scenario_similarity(a: Scenario, b: Scenario) -> float:
    """0 (nothing shared) .. 1 (same modules, same catalogue, same description)."""
    modules = _jaccard(set(a.modules), set(b.modules))
    catalogue = _jaccard({x.lower() for x in a.item_categories + a.items},
                         {x.lower() for x in b.item_categories + b.items})
    story = _jaccard(_shingles(a.description), _shingles(b.description))
    return (modules + catalogue + story) / 3


def scenario_identity_findings(scenario: Scenario, env_id: str) -> list[Finding]:
    """The scenario is stored under its own id and domain."""
    domain, slot = split_env_id(env_id)
    problems = []
    if scenario.env_id != env_id:
        problems.append(f"scenario.json names environment {scenario.env_id!r}")
    if scenario.domain != domain or scenario.slot != slot:
        problems.append(f"scenario.json says domain {scenario.domain!r} slot {scenario.slot}, not {domain!r} {slot}")
    return [Finding(env_id, CHECK_IDENTITY, p) for p in problems]


def near_duplicate_findings(scenario: Scenario, earlier: list[Scenario],
                            threshold: float = NEAR_DUPLICATE_SIMILARITY) -> list[Finding]:
    """Findings for `scenario` against the scenarios built before it in its domain (lower slots)."""
    findings = []
    for other in earlier:
        score = scenario_similarity(scenario, other)
        if score >= threshold:
            findings.append(Finding(scenario.env_id, CHECK_DUPLICATE,
                                    f"near-duplicate of {other.env_id} ({other.name!r}): similarity {score:.2f} "
                                    f">= {threshold}", value=round(score, 3)))
    return findings


def domain_duplicate_findings(scenarios: list[Scenario], threshold: float = NEAR_DUPLICATE_SIMILARITY) -> list[Finding]:
    """Every near-duplicate pair within each domain; the later slot of a pair is the one named."""
    findings = []
    ordered = sorted(scenarios, key=lambda s: (s.domain, s.slot))
    for a, b in itertools.combinations(ordered, 2):
        if a.domain == b.domain:
            findings += near_duplicate_findings(b, [a], threshold)
    return findings
