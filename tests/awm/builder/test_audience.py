"""Who may use a tool (awm/builder/tools/audience.py): the party's own request is written only where every call it
needs is one the party may make, and tools.json says which tools are the staff's."""

from __future__ import annotations

import random

import pytest

from awm.backends.offline import OfflineBackend
from awm.builder.catalogue.seeds import builtin_domains
from awm.builder.data import generate_rows
from awm.builder.intents import INTENTS, World
from awm.builder.intents.base import Plan
from awm.builder.phrasing import Say
from awm.builder.taskgen import _party_may
from awm.builder.tools import canonical_tool_defs, generate_tools, tool_defs
from awm.builder.tools.audience import INTERNAL_ROLES, audience
from awm.builder.world import make_scenario, plan_world


@pytest.mark.parametrize(("role", "kind", "verb", "who"), [
    ("case", "action", "cancel", "party"),  # a customer cancels their own order
    ("case", "action", "return", "party"),
    ("case", "action", "ship", "staff"),  # but does not ship it
    ("case", "action", "approve", "staff"),
    ("case", "action", "assign", "staff"),
    ("case", "create", "create", "party"),
    ("line", "delete", "remove", "party"),
    ("note", "delete", "delete", "staff"),
    ("payment", "action", "refund", "party"),  # the tool refunds only a cancelled or returned order's payment
    ("item", "update", "update", "staff"),  # prices
    ("item", "read", "search", "party"),  # the catalogue
    ("staff", "read", "search", "party"),  # who the providers are
    ("staff", "update", "deactivate", "staff"),
    ("shift", "read", "list", "staff"),  # the roster is the business's own
    ("party", "update", "update", "party"),  # their contact details
    ("party", "update", "set", "staff"),  # their tier
    ("party", "action", "suspend", "staff"),
    ("account", "action", "credit", "staff"),
    ("account", "action", "transfer", "party"),
    ("card", "action", "block", "party"),
    ("slot", "action", "block", "staff"),  # the same verb, another role: closing a slot is the business's
    ("slot", "action", "book", "party"),
    ("class_session", "action", "cancel", "staff"),
    ("ticket", "update", "set", "staff"),  # priorities
    ("ticket", "create", "open", "party"),
])
def test_who_may_use_a_tool_follows_role_kind_and_verb(role, kind, verb, who):
    assert audience(role, kind, verb) == who


def test_an_internal_role_is_the_staffs_even_to_read():
    assert all(audience(role, "read", "list") == "staff" for role in INTERNAL_ROLES)


def test_tools_json_marks_the_staff_tools_and_every_world_has_both_kinds():
    for domain in builtin_domains()[::7]:
        plan = plan_world(make_scenario(domain, 0))
        served = tool_defs(plan)
        specs = generate_tools(plan)[1].tools
        assert [s.staff_only for s in specs] == [t.audience == "staff" for t in served], domain
        assert any(s.staff_only for s in specs) and not all(s.staff_only for s in specs), domain
        assert all("staff_only" not in s.mcp() for s in specs)  # what MCP lists is unchanged
        names = {t.name: t for t in canonical_tool_defs(plan)}
        assert names[f"{plan.flavour.cancel.verb}_{plan['case'].name}"].audience == "party"
        assert names[f"assign_{plan['case'].name}"].audience == "staff"


def _plan(voices: tuple[str, ...], tools: list[str], refused: str | None = None) -> Plan:
    return Plan([(tool, {}) for tool in tools], [], Say("do", ("cancel it",), voices=voices),
                refused=((refused, {}), "invalid_state") if refused else None)


def test_a_request_needing_a_staff_tool_is_not_written_in_the_partys_voice():
    staff = frozenset({"ship_order", "assign_order"})
    assert _party_may(_plan(("staff", "self"), ["get_order", "cancel_order"]), staff).say.voices == ("staff", "self")
    assert _party_may(_plan(("staff", "self"), ["get_order", "ship_order"]), staff).say.voices == ("staff",)
    # the call a refusal is proven with counts too: a customer is refused by the rule, not by the role
    assert _party_may(_plan(("staff", "self"), ["get_order"], refused="ship_order"), staff).say.voices == ("staff",)
    assert _party_may(_plan(("self",), ["get_order", "assign_order"]), staff) is None
    assert _party_may(_plan(("staff",), ["ship_order"]), staff).say.voices == ("staff",)


def test_no_request_a_party_writes_calls_a_staff_tool():
    """Over a sample of worlds: the party's own requests exist, and each one's reference calls (and refused call)
    are tools the party may use; the staff's requests use staff tools too."""
    backend = OfflineBackend()
    party = staff_used = 0
    for domain in builtin_domains()[::6]:
        for slot in (0,):
            scenario = make_scenario(domain, slot)
            staff_only = {s.name for s in generate_tools(plan_world(scenario))[1].tools if s.staff_only}
            for task in backend.tasks(scenario).tasks:
                calls = {c.tool for c in task.reference_solution} | {r.call.tool for r in task.refusals}
                if task.requester == "party":
                    party += 1
                    assert not calls & staff_only, (scenario.env_id, task.task_id, task.instruction, calls & staff_only)
                else:
                    staff_used += bool(calls & staff_only)
    assert party >= 20 and staff_used >= 20, (party, staff_used)


def test_a_quality_hold_is_staffs_to_place_while_a_person_tells_of_their_own_allergy():
    """A note on each of a person's open cases (awm/builder/intents/shapes.note_every_open_case) is written in the
    person's voice only where it is theirs to give (an allergy, an injury, a learning plan): a batch's quality hold on
    their orders is placed by staff (no "Hi, it's Regina. Add 'Hold for batch inspection' to each of my orders")."""
    voices = {}
    for domain in builtin_domains():
        plan = plan_world(make_scenario(domain, 0))
        rows = None
        for name in ("mfg_quality_hold", "food_allergy_note"):
            if name in voices or not INTENTS[name].fits(World(plan, {}, random.Random(0))):
                continue
            rows = rows or generate_rows(plan)
            built = INTENTS[name].build(World(plan, rows, random.Random(0)))
            if built is not None:
                voices[name] = built.say.voices
    assert voices == {"mfg_quality_hold": ("staff",), "food_allergy_note": ("staff", "self")}, voices
