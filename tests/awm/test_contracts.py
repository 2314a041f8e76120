"""Contracts refuse identifiers that only look valid: a trailing newline is not part of a name."""

import pytest
from pydantic import ValidationError

from awm.builder.catalogue import DOMAIN_SEEDS
from awm.builder.catalogue.model import DomainSeed
from awm.contracts import Column, Task, ToolSpec


@pytest.mark.parametrize("name", ["orders\n", "\norders", "orders\nx"])
def test_identifiers_with_a_newline_are_refused(name):
    with pytest.raises(ValidationError, match="is not a lowercase identifier"):
        Column(name=name, type="TEXT")
    with pytest.raises(ValidationError, match="is not a lowercase identifier"):
        ToolSpec(name=name, description="d", inputSchema={"type": "object"})
    assert Column(name="orders", type="TEXT").name == "orders"


def test_task_ids_with_a_trailing_newline_are_refused():
    task = {"task_id": "t01", "instruction": "Cancel order 7 today.", "kind": "action", "template": "cancel",
            "reference_solution": [{"tool": "cancel_order", "arguments": {"order_id": 7}}],
            "goals": [{"kind": "row_deleted", "table": "orders", "pk": 7}]}
    assert Task.model_validate(task).task_id == "t01"
    with pytest.raises(ValidationError, match="must look like t01"):
        Task.model_validate({**task, "task_id": "t01\n"})


def test_catalogue_labels_with_a_trailing_newline_are_refused():
    seed = next(iter(DOMAIN_SEEDS.values()))
    role = next(iter(seed.roles), None) or "party"
    with pytest.raises(ValueError, match="bad label"):
        DomainSeed.model_validate({**seed.model_dump(), "roles": {**seed.roles, role: "client\n"}})
