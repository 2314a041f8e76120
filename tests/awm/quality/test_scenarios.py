"""Near-duplicate scenarios: the measure separates built-in scenarios and catches a renamed copy."""

import itertools

from awm.backends import get_backend
from awm.quality.scenarios import (
    NEAR_DUPLICATE_SIMILARITY,
    domain_duplicate_findings,
    scenario_identity_findings,
    scenario_similarity,
)
from awm.stages import scenarios as scenarios_stage


def near_copy(scenario, slot):
    """The same business under another name and city: what a careless generator produces."""
    env_id = f"{scenario.domain}__{slot:02d}"
    return scenario.model_copy(update={
        "env_id": env_id, "slot": slot, "name": scenario.name + " East",
        "description": scenario.description.replace("based in", "located in"),
    })


def test_two_near_identical_scenarios_are_caught():
    first = get_backend().scenario("dental_clinic", 0)
    copy = near_copy(first, 1)
    assert scenario_similarity(first, copy) > 0.9
    findings = domain_duplicate_findings([first, copy])
    assert len(findings) == 1
    assert findings[0].env_id == "dental_clinic__01" and "dental_clinic__00" in findings[0].error


def test_built_in_scenarios_of_a_domain_are_distinct():
    backend = get_backend()
    scenarios = [backend.scenario("dental_clinic", slot) for slot in range(10)]
    assert domain_duplicate_findings(scenarios) == []
    assert max(scenario_similarity(a, b) for a, b in itertools.combinations(scenarios, 2)) < NEAR_DUPLICATE_SIMILARITY


def test_scenarios_of_different_domains_are_never_compared():
    backend = get_backend()
    a = backend.scenario("dental_clinic", 0)
    b = near_copy(a, 0).model_copy(update={"domain": "pet_grooming", "env_id": "pet_grooming__00"})
    assert domain_duplicate_findings([a, b]) == []


def test_identity_names_a_misplaced_scenario():
    scenario = get_backend().scenario("dental_clinic", 0)
    assert scenario_identity_findings(scenario, "dental_clinic__00") == []
    misplaced = scenario_identity_findings(scenario, "dental_clinic__03")
    assert misplaced and all("dental_clinic__00" in f.error or "slot 0" in f.error for f in misplaced)


class CopyingBackend:
    """The offline builder, except that slot 1 repeats slot 0 under another name."""

    def __init__(self):
        self.inner = get_backend()
        self.name, self.model, self.params = "copying", None, {"builder": "copying"}

    def scenario(self, domain, slot):
        first = self.inner.scenario(domain, 0)
        return near_copy(first, slot) if slot == 1 else self.inner.scenario(domain, slot)


def test_the_scenarios_stage_fails_the_later_duplicate_and_keeps_the_first(store):
    backend = CopyingBackend()
    assert scenarios_stage.build(store, "dental_clinic__00", backend).ok
    outcome = scenarios_stage.build(store, "dental_clinic__01", backend)
    assert outcome.status == "failed"
    assert "[near_duplicate_scenarios]" in outcome.error and "dental_clinic__00" in outcome.error
    assert store.failure("dental_clinic__01").stage == "scenarios"
    assert scenarios_stage.build(store, "dental_clinic__02", backend).ok
