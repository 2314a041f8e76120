"""A business whose lowest price is 0 (a volunteer network's free services) is a valid scenario draft on the
LLM path, as it is for the offline builder; every built-in domain's scenario passes the draft schema."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from awm.builder.catalogue.seeds import builtin_domains
from awm.builder.world import make_scenario
from awm.llm.prompts import ScenarioDraft
from awm.llm_serve.simulator import _scenario_draft
from awm.stages import scenarios
from awm.store import ArtifactStore
from tests.llm.test_backend import llm_backend


def test_every_builtin_domain_scenario_is_a_valid_scenario_draft():
    failures = {}
    for domain in builtin_domains():
        try:
            ScenarioDraft.model_validate(_scenario_draft(make_scenario(domain, 0, 0)))
        except ValidationError as exc:
            failures[domain] = str(exc)
    assert failures == {}


def test_a_free_lowest_price_is_accepted_and_a_negative_or_inverted_range_is_not():
    draft = _scenario_draft(make_scenario("volunteer_network", 0, 0))
    assert draft["price_range"][0] == 0
    assert ScenarioDraft.model_validate(draft).price_range == (0.0, 2500.0)
    for bad in ([-1, 100], [100, 100], [200, 100]):
        with pytest.raises(ValidationError, match="0 <= low < high"):
            ScenarioDraft.model_validate({**draft, "price_range": bad})


def test_the_volunteer_network_scenario_builds_through_the_llm_path(serve, home):
    store = ArtifactStore(home)
    outcome = scenarios.build(store, "volunteer_network__00", llm_backend(serve, store))
    assert outcome.status == "built", outcome.error


def test_the_core_roles_are_required_properties_of_the_labels_schema():
    """A server's schema grammar (json_object_schema, json_schema) can then not leave a core role out, as a small
    real model did on every attempt when labels were only a string map."""
    from awm.builder.entities import CORE_ROLES
    from awm.llm.prompts import output_schema

    labels = output_schema(ScenarioDraft)["properties"]["labels"]
    assert labels["required"] == list(CORE_ROLES) and set(labels["properties"]) == set(CORE_ROLES)
    assert labels["additionalProperties"] == {"type": "string"}  # the category's own roles stay allowed


def test_each_core_role_is_described_in_the_labels_schema_and_the_prompt():
    """Told only the roles' names, a small real model called the site and the category both by the domain's name
    (11 of 12 scenario answers invalid); each role's meaning is in the schema the grammar and the prompt carry."""
    from awm.builder.entities import CORE_ROLES
    from awm.llm.prompts import ROLE_MEANINGS, SCENARIOS, output_schema

    labels = output_schema(ScenarioDraft)["properties"]["labels"]["properties"]
    system = SCENARIOS.render(request="", avoid="", number="1", domain="bakery")[0]["content"]
    for role in CORE_ROLES:
        assert labels[role]["description"] == ROLE_MEANINGS[role]
        assert f"  - {role}: {ROLE_MEANINGS[role]}" in system


@pytest.mark.parametrize(("role", "label", "why"), [
    ("note", "none", "not stand in for one: note ('none')"),
    ("payment", "N/A", "not stand in for one: payment ('N/A')"),
    ("note", "no_note", "not stand in for one: note ('no_note')"),
    ("staff", "dentist, hygienist", "one name, not a list: staff ('dentist, hygienist')"),
    ("site", "shop/kiosk", "one name, not a list: site ('shop/kiosk')"),
])
def test_a_label_that_stands_in_for_a_name_or_lists_several_is_refused(role, label, why):
    """What a small real model wrote where it had no name for a role; each would become a table ('nones')."""
    draft = _scenario_draft(make_scenario("dental_clinic", 0, 0))
    with pytest.raises(ValidationError, match=why.replace("(", r"\(").replace(")", r"\)")):
        ScenarioDraft.model_validate({**draft, "labels": {**draft["labels"], role: label}})
    assert ScenarioDraft.model_validate({**draft, "labels": {**draft["labels"], "site": "bed and breakfast"}})
