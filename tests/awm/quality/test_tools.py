"""Tool checks on crafted tool modules: unsafe code, a tool that loops forever, bad specs, unreachable tables."""

import json

from awm.contracts import SchemaSpec, TaskSet, ToolSet
from awm.quality.tools import (
    CHECK_AGREES,
    CHECK_POLICY,
    CHECK_REACH,
    CHECK_SMOKE,
    CHECK_SPEC,
    example_value,
    smoke_arguments,
    tool_findings,
)
from tests.awm.quality.conftest import ENV_ID, TOOLS_JSON, TOOLS_PY, library_schema


def findings_for(store, source=TOOLS_PY, tools_json=None, schema=None):
    toolset = ToolSet.model_validate(tools_json or TOOLS_JSON)
    tasks = store.read_model(ENV_ID, "tasks.json", TaskSet)
    return tool_findings(ENV_ID, source, toolset, schema or library_schema(), tasks, store.path(ENV_ID, "env.db"))


def test_good_tools_have_no_findings(library):
    assert findings_for(library) == []


def test_a_tool_that_imports_os_is_refused(library):
    source = "import os\n" + TOOLS_PY
    findings = findings_for(library, source)
    assert [f.check for f in findings] == [CHECK_POLICY]
    assert "'os'" in findings[0].error


def test_a_module_too_deeply_nested_to_compile_is_a_policy_finding_not_a_crash(library):
    """A thousand-term expression parses, but compiling it raised RecursionError, which escaped the gate and
    failed the whole stage step instead of this one environment."""
    source = TOOLS_PY + "\n\ndef total(db):\n    return " + " + ".join(["1"] * 1000) + "\n"
    findings = findings_for(library, source)
    assert [f.check for f in findings] == [CHECK_POLICY]
    assert "nests too deeply to compile" in findings[0].error


def test_a_tool_that_loops_forever_is_stopped_and_named(library):
    source = TOOLS_PY.replace('def set_stock(db, book_id, stock):\n',
                              'def set_stock(db, book_id, stock):\n    while True:\n        stock = stock + 1\n')
    findings = findings_for(library, source)
    assert [(f.check, f.tool) for f in findings] == [(CHECK_SMOKE, "set_stock")]
    assert findings[0].error.startswith("timeout")


def test_a_tool_that_crashes_is_named_with_its_arguments(library):
    source = TOOLS_PY.replace('def get_author(db, author_id):\n', 'def get_author(db, author_id):\n    return 1 // 0\n')
    findings = findings_for(library, source)
    assert [(f.check, f.tool) for f in findings] == [(CHECK_SMOKE, "get_author")]
    assert "ZeroDivisionError" in findings[0].error and findings[0].value == {"author_id": 1}


def test_a_tool_whose_result_is_not_json_is_named(library):
    source = TOOLS_PY.replace('def get_author(db, author_id):\n',
                              'def get_author(db, author_id):\n    return {"rating": float("nan")}\n')
    findings = findings_for(library, source)
    assert [(f.check, f.tool) for f in findings] == [(CHECK_SMOKE, "get_author")]
    assert findings[0].error.startswith("tool_failed") and "ValueError" in findings[0].error


def test_specs_must_be_valid_json_schema_and_match_the_code(library):
    tools = json.loads(json.dumps(TOOLS_JSON))
    tools["tools"][0]["inputSchema"]["properties"]["book_id"]["type"] = "whole number"
    tools["tools"][1]["inputSchema"]["properties"]["shelf"] = {"type": "string"}
    findings = findings_for(library, tools_json=tools)
    assert {(f.check, f.tool) for f in findings} == {(CHECK_SPEC, "get_book"), (CHECK_AGREES, "list_books")}
    spec_finding = next(f for f in findings if f.check == CHECK_SPEC)
    assert "at properties/book_id/type:" in spec_finding.error, spec_finding.error


def test_ownership_rules_must_name_the_tools_arguments_and_the_schemas_columns(library):
    """A rule the runtime runs before a customer's write (ToolSpec.owned) that names nothing real would refuse,
    or let through, by accident: the gate names it. A rule that names real things passes."""
    tools = json.loads(json.dumps(TOOLS_JSON))
    set_stock = next(t for t in tools["tools"] if t["name"] == "set_stock")
    set_stock["owned"] = [{"argument": "book_id", "path": ["books", "author_id"]}]
    tools["representative"] = ["authors", "id"]
    assert findings_for(library, tools_json=tools) == []
    set_stock["owned"] = [{"argument": "book", "path": ["books", "author_id"]},
                          {"argument": "book_id", "path": ["books", "owner_id"]},
                          {"argument": "book_id", "path": ["books", "author_id", "publishers", "owner_id"]}]
    tools["representative"] = ["authors", "delegate_id"]
    findings = findings_for(library, tools_json=tools)
    assert [(f.check, f.tool) for f in findings] == [(CHECK_SPEC, "set_stock")] * 3 + [(CHECK_SPEC, None)]
    assert [f.error.rpartition(": ")[2] for f in findings] == [
        "owned argument book is not a parameter", "table books has no column owner_id", "no table publishers",
        "table authors has no column delegate_id"]


def test_the_metaschema_check_in_parts_agrees_with_checking_whole_schemas():
    """Validating each property's schema on its own, and the object with `{}` in their place, finds a
    problem exactly where validating the whole schema does."""
    import jsonschema

    from awm.quality.tools import schema_problem

    good = {"type": "integer", "minimum": 1, "description": "an id"}
    cases = [good, {"type": "whole number"}, {"minimum": "one"}, {"enum": "not a list"}, {"required": "x"},
             {"pattern": "("}, {"maxLength": -1}, {"items": {"type": 3}}, {"properties": {"a": {"type": []}}},
             {"additionalProperties": "no"}, {"$ref": 5}]
    for sub in cases:
        for schema in (sub, {"type": "object", "properties": {"a": good, "b": sub}, "required": ["a"]},
                       {"type": "object", "properties": {"a": good}, "required": ["a", "a"]},
                       {"type": "object", "properties": {"outer": {"type": "object", "properties": {"b": sub}}}}):
            try:
                jsonschema.Draft202012Validator.check_schema(schema)
                whole_ok = True
            except jsonschema.SchemaError:
                whole_ok = False
            assert (schema_problem(schema) is None) == whole_ok, schema


def test_every_table_must_be_reachable(library):
    schema = library_schema().model_dump()
    schema["tables"].append({"name": "loans", "description": "who borrowed what", "columns": [
        {"name": "id", "type": "INTEGER", "primary_key": True, "nullable": False},
        {"name": "book_id", "type": "INTEGER", "references": "books.id"}]})
    findings = findings_for(library, schema=SchemaSpec.model_validate(schema))
    assert [(f.check, f.table) for f in findings] == [(CHECK_REACH, "loans")]


def test_smoke_arguments_satisfy_the_spec():
    assert example_value({"type": "string", "pattern": "^[^@ ]+@[^@ ]+$"}) == "smoke.test@example.com"
    assert example_value({"type": "number", "exclusiveMinimum": 0}) == 1.0
    assert example_value({"type": "string", "enum": ["b", "a"]}) == "b"
    assert smoke_arguments({"properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a"]}) \
        == {"a": 1}


def test_every_offline_tool_module_passes(corpus):
    env_id = corpus.env_ids()[0]
    assert tool_findings(env_id, corpus.read_text(env_id, "tools.py"), corpus.read_model(env_id, "tools.json", ToolSet),
                         corpus.read_model(env_id, "schema.json", SchemaSpec),
                         corpus.read_model(env_id, "tasks.json", TaskSet), corpus.database_path(env_id)) == []
