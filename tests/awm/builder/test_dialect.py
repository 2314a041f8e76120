"""API styles: drawn from the seed, every style builds environments that pass every check and proof, lists page
in their style (also when a strict client sends nulls), errors keep the structured-error contract in every shape,
nested bodies unpack into the tools' code and refuse a malformed body by its path, and reference calls are
translated from the canonical dialect in one place."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from awm.builder.catalogue import DOMAIN_SEEDS
from awm.builder.data import generate_rows
from awm.builder.dialect import (
    AXES,
    BODIES,
    ERRORS,
    FILTERS,
    NAMINGS,
    PAGE_ITEMS,
    PAGINGS,
    ApiStyle,
    Dialect,
    ReferenceCallError,
    body_groups,
    split_name,
    style_for,
)
from awm.builder.taskgen import generate_tasks
from awm.builder.templates.tools import generic
from awm.builder.toolgen import canonical_tool_defs, dialect_for, generate_tools, tool_defs
from awm.builder.tools.base import Param, ToolDef
from awm.builder.world import make_scenario, plan_world
from awm.contracts import SchemaSpec, TaskSet, ToolSet, VerificationReport
from awm.quality.mutations import InitialRows, ShortcutMutator
from awm.quality.tools import tool_findings
from awm.runtime.db import DBHandle
from awm.runtime.environment import Environment
from awm.runtime.sandbox import functions_of, load_module
from awm.runtime.tools import is_error
from awm.stages.catalog import build_catalog
from awm.store import ArtifactStore
from awm.toolspecs import strict_problems, strict_schema
from tests.conftest import build_environment
from tests.lanes import sample_or_whole

ROOT = Path(__file__).resolve().parents[3]
CANDIDATES = ("retail_banking", "online_bookstore", "dental_clinic", "saas_helpdesk", "hotel_group", "auto_repair",
              "farm_supply_cooperative", "electric_utility")
VALUES = {"naming": NAMINGS, "paging": PAGINGS, "filters": FILTERS, "errors": ERRORS, "bodies": BODIES}


def covering_worlds(axes: int) -> list[tuple[str, int, ApiStyle]]:
    """Environments of several domains that between them have every combination of the values of any `axes` style
    axes."""
    groups = tuple(itertools.combinations(AXES, axes))
    wanted = {(group, values) for group in groups for values in itertools.product(*(VALUES[a] for a in group))}
    chosen = []
    for slot in range(8):
        for domain in CANDIDATES:
            style = style_for(make_scenario(domain, slot).seed)
            have = {(group, tuple(getattr(style, a) for a in group)) for group in groups}
            if have & wanted:
                chosen.append((domain, slot, style))
                wanted -= have
    assert not wanted, f"no candidate environment has {sorted(wanted)[:5]}"
    return chosen


# Built and proven: in `make test` environments with every combination of the values of any two axes (every
# pair); in the fast lane a sample with every value of every axis.
WORLDS = covering_worlds(2)
EVERY_VALUE = covering_worlds(1)


@pytest.fixture(scope="module", params=sample_or_whole(EVERY_VALUE, WORLDS))
def built(request, tmp_path_factory) -> tuple[ArtifactStore, list[tuple[str, ApiStyle]]]:
    store = ArtifactStore(tmp_path_factory.mktemp("styles"))
    envs = []
    for domain, slot, style in request.param:
        outcomes = build_environment(store, domain, slot)
        assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]
        envs.append((outcomes[0].env_id, style))
    return store, envs


def test_styles_are_drawn_from_the_seed_spread_over_every_value_and_independent_of_python_hashing():
    styles = [style_for(make_scenario(d, s).seed) for d in list(DOMAIN_SEEDS)[:100] for s in range(10)]
    for axis, values in VALUES.items():
        counts = Counter(getattr(s, axis) for s in styles)
        assert all(counts[v] >= len(styles) / len(values) * 0.75 for v in values), (axis, counts)
    assert len({s.name for s in styles}) == len(NAMINGS) * len(PAGINGS) * len(FILTERS) * len(ERRORS) * len(BODIES) \
        == 108
    seeds = [make_scenario(d, 0).seed for d in CANDIDATES]
    code = f"from awm.builder.dialect import style_for; print([style_for(s).name for s in {seeds}])"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                           env={**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(ROOT)}).stdout
    assert other.strip() == str([style_for(s).name for s in seeds])


def test_nested_tools_are_the_same_under_another_python_hash_seed():
    domain, slot, style = next(w for w in WORLDS if w[2].bodies == "nested")
    code = ("import hashlib; from awm.builder.toolgen import generate_tools; "
            "from awm.builder.world import make_scenario, plan_world; "
            f"source, specs = generate_tools(plan_world(make_scenario({domain!r}, {slot}))); "
            "print(hashlib.sha256((source + specs.model_dump_json()).encode()).hexdigest())")
    digests = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                              env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}).stdout.strip()
               for seed in ("1", "12345")}
    source, specs = generate_tools(plan_world(make_scenario(domain, slot)))
    assert digests == {hashlib.sha256((source + specs.model_dump_json()).encode()).hexdigest()}
    assert "def body_error(" in source and specs.api_style["bodies"] == "nested"


def test_the_same_seed_gives_the_same_style_tools_and_tasks_byte_for_byte():
    for domain, slot, style in WORLDS[:4]:
        first, second = (plan_world(make_scenario(domain, slot)) for _ in range(2))
        source, specs = generate_tools(first)
        again, specs_again = generate_tools(second)
        assert source == again and specs.model_dump_json() == specs_again.model_dump_json()
        assert specs.api_style == style.record()
        tasks = generate_tasks(first, generate_rows(first)).model_dump_json()
        assert tasks == generate_tasks(second, generate_rows(second)).model_dump_json()


def test_every_style_builds_environments_that_pass_every_check_and_proof(built):
    store, envs = built
    assert len({d for d, _, _ in WORLDS}) >= 4
    for env_id, style in envs:
        toolset = store.read_model(env_id, "tools.json", ToolSet)
        assert toolset.api_style == style.record() and toolset.style_name == style.name
        findings = tool_findings(env_id, store.read_text(env_id, "tools.py"), toolset,
                                 store.read_model(env_id, "schema.json", SchemaSpec),
                                 store.read_model(env_id, "tasks.json", TaskSet), store.path(env_id, "env.db"))
        assert findings == [], (env_id, findings)
        for spec in toolset.tools:
            assert strict_problems(strict_schema(spec.input_schema)) == [], (env_id, spec.name)
        report = store.read_model(env_id, "report.json", VerificationReport)
        assert report.tasks and all(t.publishable for t in report.tasks), \
            [(env_id, t.task_id, t.failure_check(), t.error, t.survivors) for t in report.tasks if not t.publishable]
        totals = report.proof_totals()
        assert totals["wrong_row"]["tried"] and totals["skipped_lookups"]["tried"], (env_id, totals)


def _read_all(episode, dialect: Dialect, tool: str, filters: dict) -> list[int]:
    """Every id a list tool returns for `filters`, two rows a page, following the style's way to the next page."""
    ids, page = [], 0
    name, arguments = dialect.call(tool, {**filters, "limit": 2})
    while True:
        result = episode.call(name, arguments)
        assert not is_error(result), result
        rows = result[PAGE_ITEMS[dialect.style.paging]]
        ids += [r["id"] for r in rows]
        page += 1
        if dialect.style.paging == "offset":
            if result["next_offset"] is None:
                return ids
            arguments = {**arguments, "offset": result["next_offset"]}
        elif dialect.style.paging == "page":
            if page >= result["total_pages"]:
                return ids
            arguments = {**arguments, "page": page + 1}
        else:
            assert result["has_more"] == (result["next_cursor"] is not None)
            if not result["has_more"]:
                return ids
            arguments = {**arguments, "cursor": result["next_cursor"]}


def test_list_tools_page_and_filter_in_their_style_and_take_what_a_strict_client_sends(built):
    store, envs = built
    for env_id, style in envs:
        domain, slot = env_id.rsplit("__", 1)
        plan = plan_world(make_scenario(domain, int(slot)))
        dialect = dialect_for(plan)
        parties = plan["party"]
        canonical = f"search_{parties.plural_name}"
        env = Environment.from_store(store, env_id)
        try:
            with env.reset() as episode:
                everyone = _read_all(episode, dialect, canonical, {})
                assert len(everyone) == len(set(everyone)) > 4 and everyone == sorted(everyone)
                active = _read_all(episode, dialect, canonical, {"status": "active"})
                assert 0 < len(active) < len(everyone) and set(active) < set(everyone)
                name = dialect.name(canonical)
                schema = next(t["inputSchema"] for t in env.tools if t["name"] == name)
                strict = strict_schema(schema)
                nulls = {k: None for k in strict["properties"]}
                if style.filters == "object":  # every filter present, the unused ones null
                    nulls["filters"] = {k: None for k in schema["properties"]["filters"]["properties"]}
                    nulls["filters"]["status"] = "active"
                else:
                    nulls["status"] = "active"
                assert episode.call(name, nulls) == episode.call(*dialect.call(canonical, {"status": "active"}))
                if style.paging == "cursor":
                    bad = episode.call(name, {"cursor": "c1.zz"})
                    assert is_error(bad) and "cursor" in bad["error"]["message"]
        finally:
            env.close()


def test_errors_keep_the_structured_contract_in_every_shape(built):
    store, envs = built
    for env_id, style in envs:
        domain, slot = env_id.rsplit("__", 1)
        plan = plan_world(make_scenario(domain, int(slot)))
        dialect = dialect_for(plan)
        party = plan["party"].name
        env = Environment.from_store(store, env_id)
        try:
            with env.reset() as episode:
                missing = episode.call(dialect.name(f"get_{party}"), {f"{party}_id": 99999})
                refused = episode.call(dialect.name(f"reactivate_{party}"), {f"{party}_id": next(
                    r["id"] for r in episode.call(*dialect.call(f"search_{plan['party'].plural_name}",
                                                                {"status": "active"}))[PAGE_ITEMS[style.paging]])})
        finally:
            env.close()
        for error in (missing, refused):
            assert is_error(error) and {"code", "message"} <= set(error["error"]), error
            assert isinstance(error["error"]["message"], str) and error["error"]["message"]
        codes = (missing["error"]["code"], refused["error"]["code"])
        if style.errors == "status":
            assert codes == ("NOT_FOUND", "INVALID_STATE")
            assert (missing["error"]["status"], refused["error"]["status"]) == (404, 409)
        else:
            assert codes == ("not_found", "invalid_state")
        if style.errors == "detailed":
            assert refused["error"]["retryable"] is False and refused["error"]["details"] == {"allowed": ["suspended"]}
        if style.errors == "plain":
            assert set(missing["error"]) == set(refused["error"]) == {"code", "message"}


def test_names_differ_across_dialects_and_every_canonical_name_translates():
    plan = plan_world(make_scenario("online_bookstore", 0))
    names = {}
    for naming in NAMINGS:
        style = ApiStyle(naming=naming)
        names[naming] = {t.name for t in tool_defs(plan, style)}
        dialect = Dialect(plan, canonical_tool_defs(plan, style), style)
        assert sorted(dialect.names) == sorted(t.name for t in canonical_tool_defs(plan, style))
    assert names["verb_noun"] == {t.name for t in canonical_tool_defs(plan, ApiStyle())}
    assert {"get_customer_by_id", "find_customers", "suspend_customer_by_id", "set_product_price_by_id"} <= \
        names["by_id"]
    assert {"customer_get", "customers_search", "customer_suspend", "product_update_price"} <= names["noun_verb"]
    for a, b in itertools.combinations(NAMINGS, 2):
        assert len(names[a] & names[b]) / len(names[a] | names[b]) < 0.15, (a, b, names[a] & names[b])


def test_reference_calls_are_translated_in_one_place():
    plan = plan_world(make_scenario("online_bookstore", 0))
    party, parties = plan["party"].name, plan["party"].plural_name
    calls = [(f"search_{parties}", {"query": "Ann", "status": "active", "limit": 100}),
             (f"set_{party}_tier", {f"{party}_id": 3, "tier": "gold"})]
    derived = [(0, "status"), (1, "tier")]
    expected = {
        ApiStyle(): ([(f"search_{parties}", {"query": "Ann", "status": "active", "limit": 100}),
                      (f"set_{party}_tier", {f"{party}_id": 3, "tier": "gold"})], [(0, "status"), (1, "tier")]),
        ApiStyle("by_id", "page", "object"): (
            [(f"find_{parties}", {"query": "Ann", "filters": {"status": "active"}, "page_size": 100}),
             (f"set_{party}_tier_by_id", {f"{party}_id": 3, "tier": "gold"})], [(0, "filters"), (1, "tier")]),
        ApiStyle("noun_verb", "cursor", "flat"): (
            [(f"{parties}_search", {"query": "Ann", "status": "active", "limit": 100}),
             (f"{party}_set_tier", {f"{party}_id": 3, "tier": "gold"})], [(0, "status"), (1, "tier")]),
    }
    for style, want in expected.items():
        dialect = Dialect(plan, canonical_tool_defs(plan, style), style)
        assert dialect.reference(calls, derived) == want, style
    page = Dialect(plan, canonical_tool_defs(plan, ApiStyle(paging="page")), ApiStyle(paging="page"))
    assert page.call(f"search_{parties}", {"limit": 10, "offset": 20})[1] == {"page_size": 10, "page": 3}
    with pytest.raises(ReferenceCallError, match="not a whole page"):
        page.call(f"search_{parties}", {"limit": 10, "offset": 15})
    cursor = Dialect(plan, canonical_tool_defs(plan, ApiStyle(paging="cursor")), ApiStyle(paging="cursor"))
    with pytest.raises(ReferenceCallError, match="no cursor"):
        cursor.call(f"search_{parties}", {"offset": 20})
    with pytest.raises(ReferenceCallError, match="no tool 'drop_tables'"):
        cursor.call("drop_tables", {})


def test_bad_styles_and_names_are_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="unknown API style paging 'pages'"):
        ApiStyle(paging="pages")
    with pytest.raises(ValueError, match="names neither 'order' nor 'orders'"):
        split_name("cancel_booking", "order", "orders")
    assert split_name("update_order_line_price", "order_line", "order_lines") == ("update", "order_line", "price")
    assert split_name("mark_no_show_appointment", "appointment", "appointments") == ("mark_no_show", "appointment", "")
    assert json.dumps(ApiStyle().record()) == '{"naming": "verb_noun", "paging": "offset", "filters": "flat", ' \
        '"errors": "plain", "bodies": "flat"}'


def test_the_catalog_records_each_task_s_api_style_and_counts_the_styles(built):
    store, envs = built
    summary = build_catalog(store, [env_id for env_id, _ in envs])
    styles = dict((env_id, style.name) for env_id, style in envs)
    assert summary.entries and all(e.api_style == styles[e.env_id] for e in summary.entries)
    counted = summary.api_styles()
    assert counted["distinct"] == len(set(styles.values()))
    assert counted["naming"] == dict(sorted(Counter(s.naming for _, s in envs).items()))
    assert all(sum(counted[axis].values()) == len(envs) for axis in AXES)
    assert counted["bodies"] == dict(sorted(Counter(s.bodies for _, s in envs).items()))


def _nested(envs: list[tuple[str, ApiStyle]]) -> list[tuple[str, ApiStyle]]:
    chosen = [(env_id, style) for env_id, style in envs if style.bodies == "nested"]
    assert len(chosen) >= (3 if len(envs) == len(WORLDS) else 2), envs  # the fast lane's sample has two
    return chosen


def _plan_of(env_id: str):
    domain, slot = env_id.rsplit("__", 1)
    return plan_world(make_scenario(domain, int(slot)))


def test_nested_bodies_take_grouped_fields_in_closed_objects_and_leave_ids_and_lone_fields_flat():
    """A world with postal addresses (the addresses module): contact and address fields in closed objects."""
    plan = next(p for p in (plan_world(make_scenario("online_bookstore", slot)) for slot in range(10))
                if p.has("address"))
    party = plan["party"].name
    style = ApiStyle(bodies="nested")
    tools = {t.name: t for t in tool_defs(plan, style)}
    create = tools[f"create_{party}"]
    assert [p.name for p in create.params] == ["name", "contact", "city"]
    contact = create.params[1]
    assert contact.required and contact.schema["type"] == "object" and contact.schema["additionalProperties"] is False
    assert sorted(contact.schema["properties"]) == ["email", "phone"] and contact.schema["required"] == ["email", "phone"]
    update = tools[f"update_{party}_contact"]
    assert [(p.name, p.required) for p in update.params] == [(f"{party}_id", True), ("contact", False), ("city", False)]
    assert "required" not in update.params[1].schema
    address = tools["add_address"]
    assert address.bodies == (("address", ("street", "city", "postal_code")),) and address.params[0].name == f"{party}_id"
    assert all(not t.bodies for t in tools.values() if t.kind not in ("create", "update"))
    flat = {t.name: t for t in tool_defs(plan, ApiStyle())}
    assert all(not t.bodies for t in flat.values()) and [p.name for p in flat[f"create_{party}"].params] == \
        ["first_name", "last_name", "email", "phone", "city"]
    dialect = Dialect(plan, canonical_tool_defs(plan, style), style)
    assert dialect.reference([(f"update_{party}_contact", {f"{party}_id": 4, "phone": "555-0101", "city": "Leeds"})],
                             [(0, "phone")]) == \
        ([(f"update_{party}_contact", {f"{party}_id": 4, "contact": {"phone": "555-0101"}, "city": "Leeds"})],
         [(0, "contact")])


def test_body_groups_come_from_parameter_names_so_a_new_module_s_tools_nest_unnamed():
    def groups(kind: str, *names: str):
        params = [Param(n, {"type": "string", "description": n}, n != "memo") for n in names]
        return body_groups(ToolDef("record_anything", "", params, generic, "get_ENTITY", kind=kind))

    assert groups("update", "kennel_id", "weight_kg", "body_fat_pct", "memo") == \
        (("measurements", ("weight_kg", "body_fat_pct")),)
    assert groups("create", "match_id", "home_score", "away_score", "street", "town") == \
        (("score", ("home_score", "away_score")), ("address", ("street", "town")))
    assert groups("create", "starts_at", "ends_at", "schedule") == ()  # the name is taken: left flat
    assert groups("action", "email", "phone") == groups("create", "email", "memo") == ()


def test_a_nested_create_runs_through_the_runtime_and_a_malformed_body_is_refused_by_its_path(built):
    store, envs = built
    fields = {"first_name": "Ada", "last_name": "Quill", "email": "ada.quill@example.com", "phone": "555-010-2020",
              "city": "Leeds"}
    for env_id, style in _nested(envs):
        plan = _plan_of(env_id)
        dialect, party = dialect_for(plan), plan["party"].name
        name, arguments = dialect.call(f"create_{party}", fields)
        assert arguments == {"name": {"first_name": "Ada", "last_name": "Quill"},
                             "contact": {"email": "ada.quill@example.com", "phone": "555-010-2020"}, "city": "Leeds"}
        update = dialect.name(f"update_{party}_contact")
        env = Environment.from_store(store, env_id)
        try:
            schema = next(t["inputSchema"] for t in env.tools if t["name"] == update)
            with env.reset() as episode:
                made = episode.call(name, arguments)
                assert not is_error(made), made
                read = episode.call(dialect.name(f"get_{party}"), {f"{party}_id": made["id"]})
                assert {k: read[k] for k in fields} == fields
                # a strict client sends every field, the ones it leaves alone null, inside the body too
                strict = {**{k: None for k in strict_schema(schema)["properties"]}, f"{party}_id": made["id"],
                          "contact": {"email": None, "phone": "555-010-3030"}}
                assert not is_error(episode.call(update, strict))
                read = episode.call(dialect.name(f"get_{party}"), {f"{party}_id": made["id"]})
                assert (read["email"], read["phone"], read["city"]) == (fields["email"], "555-010-3030", "Leeds")
                bad = episode.call(name, {**arguments, "contact": {"email": 5, "phone": "555-010-2020"}})
                assert bad["error"]["code"] == "invalid_arguments" and "contact/email" in bad["error"]["message"]
        finally:
            env.close()
        # the code itself refuses a malformed body (for a caller without the runtime's schema check), in the
        # style's error shape, naming the field by its path
        tool = functions_of(load_module(store.read_text(env_id, "tools.py")))[name]
        conn = sqlite3.connect(":memory:", isolation_level=None)
        sqlite3.connect(store.path(env_id, "env.db")).backup(conn)
        db = DBHandle(conn)
        try:
            code = "INVALID_ARGUMENT" if style.errors == "status" else "invalid_argument"
            for body, path, says in (({"phone": "1"}, "contact.email", "is required"),
                                     ({"email": 5, "phone": "1"}, "contact.email", "must be string"),
                                     ({"email": "a@b.co", "phone": "1", "fax": "2"}, "contact.fax", "not a field"),
                                     ("a@b.co", "contact", "must be an object")):
                refused = tool(db, **{**arguments, "contact": body})
                assert is_error(refused) and refused["error"]["code"] == code, refused
                assert refused["error"]["message"].startswith(f"{path} ") and says in refused["error"]["message"]
                if style.errors == "detailed":
                    assert refused["error"]["details"] == {"argument": path}
            assert not is_error(tool(db, **arguments))
        finally:
            conn.close()


def test_a_mutant_changing_a_detail_inside_a_body_is_rejected(built):
    store, envs = built
    changed = 0
    for env_id, _ in _nested(envs):
        toolset = store.read_model(env_id, "tools.json", ToolSet)
        spec = store.read_model(env_id, "schema.json", SchemaSpec)
        tasks = store.read_model(env_id, "tasks.json", TaskSet).tasks
        writes = {t.name for t in toolset.tools if not t.annotations.get("readOnlyHint")}
        mutator = ShortcutMutator(toolset, spec, InitialRows(spec, store.path(env_id, "env.db")), writes, tasks)
        env = Environment.from_store(store, env_id)
        try:
            for task in tasks:
                nested = [m for m in mutator.details(task) if "." in m.description.split("=")[0]]
                if not nested:
                    continue
                for mutant in nested:
                    call = next(c for c, r in zip(mutant.calls, task.reference_solution) if c != r)
                    assert any(isinstance(v, dict) for v in call.arguments.values())
                calls = [[(c.tool, c.arguments) for c in m.calls] for m in nested]
                verdicts = env.judge_trajectories(task.task_id, [(c, task.reference_answer) for c in calls])
                assert not any(v["complete"] for v in verdicts), (env_id, task.task_id, nested)
                reference = [(c.tool, c.arguments) for c in task.reference_solution]
                assert env.judge_trajectories(task.task_id, [(reference, task.reference_answer)])[0]["complete"]
                changed += len(nested)
        finally:
            env.close()
    assert changed, "no task states a detail that a body holds"
