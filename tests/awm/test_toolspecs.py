"""Tool specs in their strict form: derived from the permissive one, checked against strict mode's rules."""

from __future__ import annotations

import json

import pytest

from awm.contracts import ToolSet
from awm.quality.tools import CHECK_STRICT, spec_findings
from awm.runtime.tools import ArgumentCheck
from awm.toolspecs import NotStrictable, published_spec, strict_problems, strict_schema, without_omitted

LIST = {"type": "object", "additionalProperties": False, "required": ["branch_id"], "properties": {
    "branch_id": {"type": "integer", "minimum": 1, "description": "id of the branch"},
    "status": {"type": "string", "enum": ["open", "closed"], "description": "only rows with this status"},
    "city": {"type": "string", "minLength": 1, "description": "only rows in this city"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20, "description": "page size"},
    "filters": {"type": "object", "properties": {"tag": {"type": "string"}}, "required": []},
    "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}, "uniqueItems": True},
}}


def test_the_permissive_form_is_refused_by_strict_rules_and_the_strict_form_is_not():
    problems = strict_problems(LIST)
    assert any("every property must be required" in p for p in problems)
    assert any("'minLength'" in p for p in problems) and any("'default'" in p for p in problems)
    assert any("/properties/filters: additionalProperties must be false" in p for p in problems)
    strict = strict_schema(LIST)
    assert strict_problems(strict) == []
    props = strict["properties"]
    assert strict["required"] == list(LIST["properties"]) and strict["additionalProperties"] is False
    assert props["branch_id"] == LIST["properties"]["branch_id"]  # required: as it was
    assert props["status"]["type"] == ["string", "null"] and props["status"]["enum"] == ["open", "closed", None]
    assert props["city"]["description"] == "only rows in this city (at least 1 character)"
    assert props["limit"]["description"] == "page size (null for the default, 20)" and "default" not in props["limit"]
    assert props["filters"]["required"] == ["tag"] and props["filters"]["properties"]["tag"]["type"] == ["string", "null"]
    assert props["tags"]["items"] == {"type": "string", "description": "At most 8 characters"}
    assert strict_schema(strict) == strict  # the strict form is its own strict form


def test_schemas_without_a_strict_form_are_named():
    free = {"type": "object", "properties": {"meta": {"type": "object", "additionalProperties": True}}}
    with pytest.raises(NotStrictable, match="properties/meta"):
        strict_schema(free)
    with pytest.raises(NotStrictable, match="items"):
        strict_schema({"type": "object", "properties": {"ids": {"type": "array"}}})
    with pytest.raises(ValueError, match="tool format"):
        published_spec({"name": "x", "inputSchema": LIST}, "loose")


def test_null_means_not_given_for_optional_parameters_only():
    check = ArgumentCheck({"list_accounts": LIST})
    strict_call = {"branch_id": 3, "status": None, "city": None, "limit": None, "filters": {"tag": None},
                   "tags": None}
    arguments, problem = check.checked("list_accounts", strict_call)
    assert problem is None and arguments == {"branch_id": 3, "filters": {}}
    assert without_omitted(LIST, {"branch_id": None})["branch_id"] is None  # required: null is a value
    _, problem = check.checked("list_accounts", {"branch_id": None})
    assert problem["error"]["code"] == "invalid_arguments"
    _, problem = check.checked("list_accounts", {"branch_id": 3, "city": ""})  # the permissive form still rules
    assert problem["error"]["code"] == "invalid_arguments" and "city" in problem["error"]["message"]


def test_the_tools_gate_names_a_spec_without_a_strict_form():
    toolset = ToolSet(env_id="shop__00", tools=[
        {"name": "tag_item", "description": "tag", "inputSchema": {
            "type": "object", "properties": {"meta": {"type": "object"}}, "required": []}},
        {"name": "list_items", "description": "list", "inputSchema": json.loads(json.dumps(LIST))}])
    findings = spec_findings("shop__00", toolset)
    assert [(f.check, f.tool) for f in findings] == [(CHECK_STRICT, "tag_item")]
    assert "free-form objects" in findings[0].error


def test_every_tool_of_a_built_corpus_has_a_strict_form_that_strict_rules_accept(corpus):
    specs = [spec for env_id in corpus.env_ids() for spec in corpus.read_model(env_id, "tools.json", ToolSet).tools]
    assert len(specs) > 100
    refused_before = [s.name for s in specs if strict_problems(s.input_schema)]
    assert refused_before  # the permissive form, as tools.json holds it, is not strict-safe
    assert [s.name for s in specs if strict_problems(strict_schema(s.input_schema))] == []


def test_the_verl_form_has_one_type_per_property_no_nulls_and_keeps_nested_parameters():
    from awm.toolspecs import verl_schema

    schema = {"type": "object", "required": ["order"], "properties": {
        "order": {"type": "object", "required": ["id"], "properties": {
            "id": {"type": "integer"}, "note": {"type": ["string", "null"]}}},
        "status": {"type": "string", "enum": ["open", "closed", None]},
        "size": {"type": "integer", "enum": [1, 2, 3]},
        "amount": {"type": ["integer", "number", "null"]},
        "when": {"anyOf": [{"type": "string", "format": "date"}, {"type": "integer"}, {"type": "null"}]},
        "lines": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}}}},
        "tags": {"description": "free text"}}}
    out = verl_schema(schema)
    props = out["properties"]
    assert out["required"] == ["order"]
    assert {name: p["type"] for name, p in props.items()} == {
        "order": "object", "status": "string", "size": "integer", "amount": "number", "when": "string",
        "lines": "array", "tags": "string"}
    assert props["order"]["properties"]["note"]["type"] == "string" and props["order"]["required"] == ["id"]
    assert "id (integer, required), note (string)" in props["order"]["description"]
    assert props["status"]["enum"] == ["open", "closed"]
    assert "enum" not in props["size"] and props["size"]["description"] == "One of 1, 2, 3"
    assert props["when"]["description"] == "Or integer" and props["when"]["format"] == "date"
    assert props["lines"]["items"]["properties"]["sku"]["type"] == "string"
    assert props["lines"]["description"] == "A list of objects with keys sku (string)"
    assert "null" not in json.dumps(out)
    assert published_spec({"name": "t", "description": "", "inputSchema": schema}, "verl")["inputSchema"] == out
