"""Prompt templates: versioned, hashed into provenance, parseable by llm-serve, feedback bounded."""

from __future__ import annotations

import dataclasses
import re

import pytest
from pydantic import ValidationError

from awm.backends.llm import LLMBackend
from awm.builder.modules.packs import PACK_MODULES, PACK_ROLE_OWNER
from awm.llm.client import LLMClient
from awm.llm.prompts import (
    FEEDBACK_CHARS,
    STAGE_TEMPLATES,
    TASKS,
    TEMPLATES,
    ScenarioDraft,
    identify,
    json_block,
    parse_blocks,
    render_feedback,
    stage_prompt_hash,
)
from awm.llm.settings import LLMSettings


def test_every_stage_has_a_template_whose_hash_is_stable_and_distinct():
    hashes = {stage: stage_prompt_hash(stage) for stage in STAGE_TEMPLATES}
    assert hashes == {stage: stage_prompt_hash(stage) for stage in STAGE_TEMPLATES}
    assert len(set(hashes.values())) == len(hashes) == 6
    edited = dataclasses.replace(TASKS, system=TASKS.system + "\nAlso be brief.")
    assert edited.hash != TASKS.hash
    assert dataclasses.replace(TASKS, version="v99").hash != TASKS.hash


def test_a_rendered_prompt_names_its_stage_and_carries_its_inputs_and_schema():
    messages = TASKS.render(request=json_block("request", {"stage": "tasks", "env_id": "x__00", "count": 3}),
                            scenario=json_block("scenario", {"name": "A shop"}), count="3")
    assert identify(messages) == ("tasks", "v2")
    user = messages[1]["content"]
    blocks = parse_blocks(user)
    assert blocks["scenario"] == '{"name":"A shop"}' and '"count":3' in blocks["request"]
    assert '"acting_user"' in user  # the output's JSON Schema is in the prompt, for servers without json_schema
    assert "<previous_attempt_errors>" not in user
    assert identify([{"role": "user", "content": "hello"}]) is None


def test_feedback_from_earlier_attempts_is_bounded_newest_first():
    errors = [f"error {n}: " + "x" * 2000 for n in range(1, 8)]
    note = render_feedback(errors)
    assert note.startswith("<previous_attempt_errors>")
    assert note.index("attempt 7") < note.index("attempt 6")  # newest first
    assert "...[truncated]" in note and "older error(s) omitted" in note
    assert len(note) < FEEDBACK_CHARS + 1200
    assert render_feedback([]) == ""
    rendered = TASKS.render(feedback=["SchemaViolationError: tasks.0.goals: Field required"], request="", scenario="",
                            count="1")
    assert "- attempt 1: SchemaViolationError: tasks.0.goals: Field required" in rendered[1]["content"]


def test_the_backend_fingerprint_changes_with_what_shapes_the_answer(tmp_path):
    def fingerprint(**settings) -> str:
        client = LLMClient(LLMSettings(api_key="k", **settings), None)
        return LLMBackend(client).fingerprint("tasks")

    base = fingerprint()
    assert base == fingerprint()
    assert base != fingerprint(model="another-model")
    assert base != fingerprint(temperature=0.9)
    assert base == fingerprint(base_url="http://127.0.0.1:1/v1")  # where it is served is not what it is
    assert set(TEMPLATES) == {"scenarios", "tasks", "schemas", "databases", "tools", "verifier"}


def _draft_of(domain: str, slot: int) -> dict:
    from awm.builder.world import make_scenario

    data = make_scenario(domain, slot).model_dump(mode="json")
    return {k: data[k] for k in ScenarioDraft.model_fields}


def test_a_scenario_draft_carries_the_category_entities_and_refuses_them_where_they_do_not_belong():
    draft = _draft_of("retail_banking", 0)
    assert draft["entity_groups"] and ScenarioDraft.model_validate(draft).entity_groups == draft["entity_groups"]
    with pytest.raises(ValidationError, match=r"entity_groups \['loyalty_cards'\] are not groups of category 'banking'"):
        ScenarioDraft.model_validate({**draft, "entity_groups": ["loyalty_cards"]})
    group = draft["entity_groups"][0]
    role = PACK_MODULES["banking"].GROUPS[group].roles[0]
    labels = {r: label for r, label in draft["labels"].items() if r != role}
    with pytest.raises(ValidationError, match=rf"entity group '{group}': labels for its roles \['{role}'\] are missing"):
        ScenarioDraft.model_validate({**draft, "labels": labels})
    clinic = _draft_of("primary_care", 0)
    foreign = next(r for r in clinic["labels"] if PACK_ROLE_OWNER.get(r) is PACK_MODULES["healthcare"])
    with pytest.raises(ValidationError, match=rf"roles \['{foreign}'\] belong to another category's entities"):
        ScenarioDraft.model_validate({**draft, "labels": {**draft["labels"], foreign: "thing"}})


def test_the_scenario_draft_enforces_what_the_prompt_asks():
    """14 modules (the prompt asks 1 to 8), 4 items (6 to 12), a vendor labelled like the staff: each rejected by
    name, and the schema a server turns into a grammar carries the same bounds."""
    from awm.builder.catalogue.model import MODULES
    from awm.builder.world import make_scenario
    from awm.llm.prompts import ITEMS_RANGE, MODULES_RANGE, SCENARIOS, ScenarioDraft

    offline = make_scenario("dental_clinic", 0, 0).model_dump()
    draft = {name: offline[name] for name in ScenarioDraft.model_fields}
    ScenarioDraft.model_validate(draft)
    for bad, problem in (({"modules": list(MODULES)}, "modules\n  List should have at most 8 items"),
                         ({"items": draft["items"][:4]}, "items\n  List should have at least 6 items"),
                         ({"labels": {**draft["labels"], "vendor": draft["labels"]["staff"]}},
                          f"staff, vendor are all called {draft['labels']['staff']!r}")):
        with pytest.raises(ValidationError, match=re.escape(problem)):
            ScenarioDraft.model_validate({**draft, **bad})
    schema = SCENARIOS.schema["properties"]
    assert (schema["modules"]["minItems"], schema["modules"]["maxItems"]) == MODULES_RANGE
    assert (schema["items"]["minItems"], schema["items"]["maxItems"]) == ITEMS_RANGE
    assert f"({MODULES_RANGE[0]} to {MODULES_RANGE[1]} of:" in SCENARIOS.system
