"""Who may use a tool: the party (a customer, a patient, a member: the person a request is about, acting on
their own records) or only the business's staff.

A task written in the party's own words (`Task.requester == "party"`) is offered only the tools the party may
use, and the runtime refuses the others (awm.contracts.ToolSet.offered, awm.runtime.environment); a request
that needs a staff tool is written in a staff member's voice (awm.builder.taskgen).

The rule, in order:
  1. every tool of a role the business keeps to itself (rosters, timesheets, purchasing, production, fleet:
     INTERNAL_ROLES) is staff-only, reads included;
  2. any other read is open to the party: the catalogue, the sites, the providers and their own records;
  3. a create or a delete is open to the party on the records a customer makes and unmakes themselves (their
     order or booking and its lines, an address, a review, a ticket, a payment: PARTY_CREATES, PARTY_DELETES);
  4. any other change is open to the party when its verb is something a customer does to their own record
     (cancel, return, reschedule, pay, redeem, pause: PARTY_VERBS), unless the role says otherwise
     (STAFF_ACTIONS: the business cancels a group class, not a member; PARTY_ACTIONS: a customer declines
     a quote, resizes their own server). Approving, verifying, assigning, shipping, completing, pricing,
     stock, tiers and priorities, crediting an account: the staff's.
The tools still enforce their business rules for everyone: a customer may cancel only what can be cancelled.

And a party acts only on their own records: a write the party may make names, in a party's own request, only
rows that party owns (their account, their order and its lines) or that a party who names them as
representative owns; the runtime refuses the others (`not_permitted`, owned_arguments).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from awm.contracts import OwnedArgument

if TYPE_CHECKING:
    from awm.builder.tools.base import ToolDef
    from awm.builder.world import WorldPlan

Audience = Literal["party", "staff"]

# The roles whose every tool, reads included, only the business uses.
INTERNAL_ROLES = frozenset({
    "shift", "timesheet", "leave_request", "time_entry", "purchase_order", "purchase_line", "vendor",
    "service_log", "production_run", "product_lot", "nonconformance", "instrument", "temperature_check",
    "crop_batch", "animal", "fleet_vehicle", "survey_wave", "dining_table", "loaner", "lost_item", "royalty_statement",
})
# The records a party creates for themselves.
PARTY_CREATES = frozenset({
    "case", "line", "address", "review", "wishlist_item", "ticket", "ticket_comment", "note", "notification",
    "payment", "dispute", "return_request", "special_request", "event_ticket", "event_signup", "enrolment",
    "transcript_request", "standing_order", "beneficiary", "freeze", "field_application", "api_key",
})
# The records a party deletes for themselves (a line of their order, their address, review or wish).
PARTY_DELETES = frozenset({"line", "address", "review", "wishlist_item", "beneficiary"})
# What a party does to a record of their own, whatever its role.
PARTY_VERBS = frozenset({
    "cancel", "return", "reschedule", "submit", "withdraw", "pay", "redeem", "book", "accept", "sign", "appeal",
    "drop", "pause", "resume", "change", "change_plan", "block", "unblock", "contribute", "abandon", "transfer",
    "top_up", "renew", "redeem_session", "apply",
})
# (role, verb): a verb of PARTY_VERBS the business alone uses on that role.
STAFF_ACTIONS = frozenset({
    ("live_event", "cancel"), ("class_session", "cancel"), ("title_release", "cancel"), ("inspection_visit", "cancel"),
    ("background_check", "cancel"), ("slot", "block"),
})
# (role, verb): a verb outside PARTY_VERBS a party uses on their own record of that role.
PARTY_ACTIONS = frozenset({
    ("party", "update"),  # their contact details
    ("payment", "refund"),  # of their own payment: the tool refunds only once the order is cancelled or returned
    ("rate_quote", "decline"), ("room_block", "release"), ("meter", "record_reading"),
    ("vehicle", "record_mileage"), ("card", "set_limit"), ("budget", "set_limit"), ("server_instance", "start"),
    ("server_instance", "stop"), ("server_instance", "terminate"), ("server_instance", "resize"),
    ("seat_licence", "set_seats"), ("api_key", "revoke"), ("engagement_letter", "withdraw"),
    ("lease", "extend"), ("content_licence", "extend"),
})


def audience(role: str, kind: str, verb: str) -> Audience:
    """Who may use a tool of `kind` (read, create, update, delete, action) on `role`, named with `verb` (the verb
    of its canonical name: cancel_order -> cancel, update_customer_contact -> update)."""
    if role in INTERNAL_ROLES:
        return "staff"
    if kind == "read":
        return "party"
    if kind == "create":
        return "party" if role in PARTY_CREATES else "staff"
    if kind == "delete":
        return "party" if role in PARTY_DELETES else "staff"
    if (role, verb) in PARTY_ACTIONS:
        return "party"
    return "party" if verb in PARTY_VERBS and (role, verb) not in STAFF_ACTIONS else "staff"


# Arguments a party's write may name another party's row with: where money or a new item goes, not what it acts on.
UNOWNED_PREFIXES = ("to_", "new_")


def owner_path(plan: WorldPlan, role: str) -> list[str] | None:
    """How a row of `role` leads to the party that owns it (awm.contracts.OwnedArgument.path): the party's own
    row, a row with a party column, or a row whose parent has one (a line of an order); None for what no party
    owns (the catalogue, the sites, the staff)."""
    party = plan["party"]
    if role == "party":
        return [party.table, "id"]
    ent = plan[role]
    if ent.has(party.fk) and ent.col(party.fk).ref == "party":
        return [ent.table, party.fk]
    for col in ent.columns:
        if col.ref and col.ref not in ("party", role) and plan.has(col.ref):
            parent = plan[col.ref]
            if parent.has(party.fk) and parent.col(party.fk).ref == "party":
                return [ent.table, col.name, parent.table, party.fk]
    return None


def owned_arguments(plan: WorldPlan, tool: ToolDef) -> list[OwnedArgument]:
    """The arguments of a write the party may make that name a row some party owns: in a party's own request the
    runtime lets them name only the party's rows (or of a party that names them as representative)."""
    if tool.audience != "party" or tool.kind == "read" or not plan.has("party"):
        return []
    roles = {}
    for role, ent in plan.entities.items():
        roles.setdefault(ent.fk, role)
        roles.setdefault(f"{ent.name}_id", role)
    owned = []
    for param in tool.params:
        name = param.name.removeprefix("from_")
        if param.name.startswith(UNOWNED_PREFIXES) or name not in roles:
            continue
        path = owner_path(plan, roles[name])
        if path is not None:
            owned.append(OwnedArgument(argument=param.name, path=path))
    return owned
