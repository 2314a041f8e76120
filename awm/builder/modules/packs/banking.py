"""What only a bank keeps: payment cards on accounts, disputes of account transactions, standing orders and
holds on balances; each with its lifecycle and the rules its tools enforce."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.clock import REFERENCE_NOW, day, iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.modules.packs import Group
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour
    from awm.builder.toolgen import _Builder

CATEGORY = "banking"
LABELS = {"card": "payment card", "dispute": "transaction dispute", "standing_order": "standing order",
          "hold": "balance hold"}
ALT_LABELS = {"card": "bank card", "dispute": "charge dispute", "standing_order": "recurring transfer",
              "hold": "funds hold"}
_NO_ACCOUNTS = ("pawn_brokerage",)
GROUPS = {
    "cards": Group(("card",), needs=("accounts",), not_for=_NO_ACCOUNTS + ("mortgage_lending",)),
    "disputes": Group(("dispute",), needs=("accounts",), not_for=_NO_ACCOUNTS),
    "standing_orders": Group(("standing_order",), needs=("accounts",), not_for=_NO_ACCOUNTS),
    "holds": Group(("hold",), needs=("accounts",), not_for=_NO_ACCOUNTS),
}
CODED = ("card", "dispute", "standing_order")

CARD_STATUSES = ("active", "blocked", "cancelled")
BLOCK_REASONS = ("lost", "stolen", "suspected_fraud", "customer_request")
DISPUTE_REASONS = ("unrecognised", "duplicate", "not_received", "wrong_amount")
DISPUTE_STATUSES = ("open", "investigating", "upheld", "declined")
DISPUTE_WINDOW_DAYS = 60  # a charge older than this can no longer be disputed
FREQUENCIES = ("weekly", "monthly", "quarterly")
ORDER_STATUSES = ("active", "paused", "cancelled")
HOLD_REASONS = ("card_authorisation", "cheque_clearing", "legal_order", "fraud_review")
CARD_LIMITS = (500.0, 1000.0, 1500.0, 2500.0, 5000.0)
MAX_CARD_LIMIT = 10000.0


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the card, dispute, standing_order and hold tables."""
    acct_fk, party_fk = f"{snake(L['account'])}_id", f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    if has("card"):
        ents["card"] = Entity("card", L["card"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "account"), fk_col(L, "party"),
            Col("last_four", "TEXT"), Col("network", "TEXT", enum=("visa", "mastercard")),
            Col("card_type", "TEXT", enum=("debit", "credit")),
            Col("daily_limit", "REAL", minimum=0, maximum=MAX_CARD_LIMIT),
            Col("status", "TEXT", enum=CARD_STATUSES), Col("block_reason", "TEXT", nullable=True, enum=BLOCK_REASONS),
            Col("expires_on", "TEXT"), Col("issued_on", "TEXT"),
        ], f"Cards issued on {plural(L['account'])}: statuses {', '.join(CARD_STATUSES)}.",
            filters=("number", acct_fk, party_fk, "status"), code="number")
    if has("dispute"):
        ents["dispute"] = Entity("dispute", L["dispute"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "account_entry"), fk_col(L, "account"),
            Col("amount", "REAL", minimum=0), Col("reason", "TEXT", enum=DISPUTE_REASONS),
            Col("status", "TEXT", enum=DISPUTE_STATUSES), Col("opened_at", "TEXT"),
            Col("resolved_at", "TEXT", nullable=True),
        ], f"Disputes of charges on {plural(L['account'])}; a charge can be disputed within "
           f"{DISPUTE_WINDOW_DAYS} days of posting.",
            filters=("number", acct_fk, "status"), code="number")
    if has("standing_order"):
        ents["standing_order"] = Entity("standing_order", L["standing_order"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "account", name=f"from_{acct_fk}"),
            fk_col(L, "account", name=f"to_{acct_fk}"), Col("amount", "REAL", minimum=0),
            Col("frequency", "TEXT", enum=FREQUENCIES), Col("next_run_on", "TEXT"),
            Col("reference", "TEXT"), Col("status", "TEXT", enum=ORDER_STATUSES), Col("created_at", "TEXT"),
        ], f"Transfers repeated on a schedule between {plural(L['account'])}.",
            filters=("number", f"from_{acct_fk}", f"to_{acct_fk}", "status"), code="number")
    if has("hold"):
        ents["hold"] = Entity("hold", L["hold"], [
            pk_col(), fk_col(L, "account"), Col("amount", "REAL", minimum=0), Col("reason", "TEXT", enum=HOLD_REASONS),
            Col("status", "TEXT", enum=("active", "released")), Col("placed_at", "TEXT"), Col("expires_on", "TEXT"),
        ], f"Amounts held back on {plural(L['account'])} (an active hold reduces what can be held again).",
            filters=(acct_fk, "status", "reason"))
    return ents


def _open_accounts(gen: RowGen, kinds: tuple[str, ...]) -> list[dict]:
    return [a for a in gen.rows["account"] if a["kind"] in kinds]


def fill_cards(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["card"]
    for n, acct in enumerate(_open_accounts(gen, ("checking", "credit"))):
        issued = gen.between(acct["opened_on"] + "T09:00:00", gen.past(30, 30))
        expires = issued + timedelta(days=365 * 3)
        status = "active" if acct["status"] == "active" else "blocked"
        reason = None if status == "active" else "customer_request"
        if status == "active" and gen.rng.random() < 0.15:
            status, reason = "blocked", gen.rng.choice(BLOCK_REASONS)
        elif expires < REFERENCE_NOW:
            status = "cancelled"
        gen.add("card", {
            "number": f"{prefix}-{4100 + n * 7}", gen.fk("account"): acct["id"], gen.fk("party"): acct[gen.fk("party")],
            "last_four": f"{gen.rng.randint(0, 9999):04d}", "network": gen.rng.choice(("visa", "mastercard")),
            "card_type": "credit" if acct["kind"] == "credit" else "debit",
            "daily_limit": gen.rng.choice(CARD_LIMITS), "status": status, "block_reason": reason,
            "expires_on": day(expires), "issued_on": day(issued),
        })


def fill_disputes(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["dispute"]
    afk = gen.fk("account")
    charges = [e for e in gen.rows["account_entry"] if e["amount"] < 0 and e["entry_type"] in ("withdrawal", "fee")]
    for n, entry in enumerate(gen.rng.sample(charges, min(len(charges), gen.rng.randint(4, 8)))):
        opened = gen.between(entry["posted_at"])
        status = gen.rng.choice(DISPUTE_STATUSES)
        resolved = iso(gen.between(opened)) if status in ("upheld", "declined") else None
        gen.add("dispute", {
            "number": f"{prefix}-{2201 + n}", gen.fk("account_entry"): entry["id"], afk: entry[afk],
            "amount": -entry["amount"], "reason": gen.rng.choice(DISPUTE_REASONS), "status": status,
            "opened_at": iso(opened), "resolved_at": resolved,
        })


def fill_standing_orders(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["standing_order"]
    afk = gen.fk("account")
    n = 0
    for party in gen.rows["party"]:
        accounts = [a for a in gen.rows["account"] if a[gen.fk("party")] == party["id"]]
        if len(accounts) < 2 or gen.rng.random() < 0.5:
            continue
        source, target = gen.rng.sample(accounts, 2)
        n += 1
        created = gen.between(max(source["opened_on"], target["opened_on"]) + "T09:00:00", gen.past(5, 5))
        gen.add("standing_order", {
            "number": f"{prefix}-{601 + n}", f"from_{afk}": source["id"], f"to_{afk}": target["id"],
            "amount": float(gen.rng.choice((25, 50, 75, 100, 150, 200, 250, 400))),
            "frequency": gen.rng.choice(FREQUENCIES), "next_run_on": day(gen.future(1, 28)),
            "reference": gen.rng.choice(("Savings", "Rent share", "Holiday fund", "Loan repayment", "Allowance")),
            "status": gen.rng.choices(ORDER_STATUSES, (6, 2, 1))[0], "created_at": iso(created),
        })


def fill_holds(gen: RowGen) -> None:
    for acct in gen.rows["account"]:
        if acct["balance"] < 50 or gen.rng.random() < 0.6:
            continue
        placed = gen.past(1, 20)
        status = gen.rng.choices(("active", "released"), (3, 1))[0]
        gen.add("hold", {
            gen.fk("account"): acct["id"], "amount": round(gen.rng.uniform(10, min(acct["balance"], 900) / 2), 2),
            "reason": gen.rng.choice(HOLD_REASONS), "status": status, "placed_at": iso(placed),
            "expires_on": day(placed + timedelta(days=gen.rng.choice((3, 5, 7, 10)) + 20)),
        })


FILL = {"card": fill_cards, "dispute": fill_disputes, "standing_order": fill_standing_orders, "hold": fill_holds}


def _cutoff() -> str:
    return day(REFERENCE_NOW - timedelta(days=DISPUTE_WINDOW_DAYS))


def tools(b: _Builder) -> None:
    """Tools of the chosen banking tables."""
    from awm.builder.toolgen import Param, ToolDef, _int, _num, _str

    has, a = b.plan.has, b.ent("account")
    active_account = [
        f"if {a.name}[\"status\"] != \"active\":",
        f"    return error(\"invalid_state\", \"{a.label} \" + {a.name}[\"number\"] + \" is \" + {a.name}[\"status\"])",
    ]
    if has("card"):
        c = b.ent("card")
        b.get_tool("card")
        b.list_tool("card")
        b.status_action("card", "block", ("active",), "blocked", f"Block an active {c.label}, giving the reason.",
                        [Param("reason", _str("why it is blocked", BLOCK_REASONS), True)], '{"block_reason": reason}')
        b.add(ToolDef(
            b.names.action("card", "unblock"),
            f"Unblock a blocked {c.label} that has not expired and whose {a.label} is active. "
            "A card blocked as lost or stolen cannot be unblocked: it must be replaced.",
            [Param(c.fk, _int(f"id of the {c.label}"), True)],
            [*b.require("card", c.fk),
             f"if {c.name}[\"status\"] != \"blocked\":",
             f"    return error(\"invalid_state\", \"{c.label} \" + {c.name}[\"number\"] + \" is \" + {c.name}[\"status\"] + \", not blocked\")",
             f"if {c.name}[\"block_reason\"] in (\"lost\", \"stolen\"):",
             f"    return error(\"not_allowed\", \"{c.label} \" + {c.name}[\"number\"] + \" was blocked as \" + {c.name}[\"block_reason\"] + \"; it must be replaced\")",
             f"if {c.name}[\"expires_on\"] < TODAY:",
             f"    return error(\"expired\", \"{c.label} \" + {c.name}[\"number\"] + \" expired on \" + {c.name}[\"expires_on\"])",
             *b.require("account", f"{c.name}[\"{a.fk}\"]"), *active_account,
             f"return update_row(db, \"{c.table}\", {c.fk}, {{\"status\": \"active\", \"block_reason\": None}})"],
            role="card", kind="action"))
        b.add(ToolDef(
            b.names.action("card", "set_limit"),
            f"Change the daily spending limit of an active {c.label} (at most {MAX_CARD_LIMIT:.0f}).",
            [Param(c.fk, _int(f"id of the {c.label}"), True),
             Param("daily_limit", {**_num("the new daily limit", 0, True), "maximum": MAX_CARD_LIMIT}, True)],
            [*b.require("card", c.fk),
             f"if {c.name}[\"status\"] != \"active\":",
             f"    return error(\"invalid_state\", \"{c.label} \" + {c.name}[\"number\"] + \" is \" + {c.name}[\"status\"])",
             f"if daily_limit > {MAX_CARD_LIMIT}:",
             f"    return error(\"invalid_argument\", \"daily_limit may be at most {MAX_CARD_LIMIT:.0f}\")",
             f"return update_row(db, \"{c.table}\", {c.fk}, {{\"daily_limit\": round(daily_limit, 2)}})"],
            role="card", kind="update"))
    if has("dispute"):
        d, e = b.ent("dispute"), b.ent("account_entry")
        prefix = b.plan.code_prefixes["dispute"]
        b.get_tool("dispute")
        b.list_tool("dispute")
        b.add(ToolDef(
            b.names.create("dispute"),
            f"Dispute a charge (a withdrawal or fee) on an {a.label}, within {DISPUTE_WINDOW_DAYS} days of its "
            "posting; a charge can be disputed once.",
            [Param(e.fk, _int(f"id of the {e.label} disputed"), True),
             Param("reason", _str("why it is disputed", DISPUTE_REASONS), True)],
            [*b.require("account_entry", e.fk),
             f"if {e.name}[\"amount\"] >= 0 or {e.name}[\"entry_type\"] not in (\"withdrawal\", \"fee\"):",
             f"    return error(\"invalid_argument\", \"{e.label} \" + str({e.fk}) + \" is not a charge\")",
             f"if {e.name}[\"posted_at\"][:10] < \"{_cutoff()}\":",
             f"    return error(\"window_closed\", \"{e.label} \" + str({e.fk}) + \" was posted on \" + {e.name}[\"posted_at\"][:10] + \", more than {DISPUTE_WINDOW_DAYS} days ago\")",
             f"if db.one(\"SELECT id FROM {d.table} WHERE {e.fk} = ?\", [{e.fk}]) is not None:",
             f"    return error(\"conflict\", \"{e.label} \" + str({e.fk}) + \" is already disputed\")",
             f"return insert_row(db, \"{d.table}\", {{\"number\": next_code(db, \"{d.table}\", \"number\", \"{prefix}\", 2201), "
             f"\"{e.fk}\": {e.fk}, \"{a.fk}\": {e.name}[\"{a.fk}\"], \"amount\": -{e.name}[\"amount\"], \"reason\": reason, "
             "\"status\": \"open\", \"opened_at\": REFERENCE_NOW, \"resolved_at\": None})"],
            role="dispute", kind="create"))
        b.status_action("dispute", "investigate", ("open",), "investigating", f"Start investigating an open {d.label}.")
        b.status_action("dispute", "decline", ("open", "investigating"), "declined",
                        f"Decline a {d.label} (the charge stands).", extra='{"resolved_at": REFERENCE_NOW}')
        b.add(ToolDef(
            b.names.action("dispute", "uphold"),
            f"Uphold a {d.label} that is open or being investigated: the disputed amount is credited back to its "
            f"{a.label} as a deposit with the memo 'Dispute <number> upheld'.",
            [Param(d.fk, _int(f"id of the {d.label}"), True)],
            [*b.require("dispute", d.fk),
             f"if {d.name}[\"status\"] not in (\"open\", \"investigating\"):",
             f"    return error(\"invalid_state\", \"{d.label} \" + {d.name}[\"number\"] + \" is \" + {d.name}[\"status\"])",
             f"db.execute(\"UPDATE {a.table} SET balance = ROUND(balance + ?, 2) WHERE id = ?\", [{d.name}[\"amount\"], {d.name}[\"{a.fk}\"]])",
             f"insert_row(db, \"{e.table}\", {{\"{a.fk}\": {d.name}[\"{a.fk}\"], \"amount\": {d.name}[\"amount\"], "
             f"\"entry_type\": \"deposit\", \"memo\": \"Dispute \" + {d.name}[\"number\"] + \" upheld\", \"posted_at\": REFERENCE_NOW}})",
             f"return update_row(db, \"{d.table}\", {d.fk}, {{\"status\": \"upheld\", \"resolved_at\": REFERENCE_NOW}})"],
            role="dispute", kind="action"))
    if has("standing_order"):
        s = b.ent("standing_order")
        prefix = b.plan.code_prefixes["standing_order"]
        b.get_tool("standing_order")
        b.list_tool("standing_order")
        b.add(ToolDef(
            b.names.create("standing_order"),
            f"Set up a {s.label}: a fixed amount moved from one active {a.label} to another on a schedule, first on "
            "a date after today.",
            [Param(f"from_{a.fk}", _int(f"id of the {a.label} to debit"), True),
             Param(f"to_{a.fk}", _int(f"id of the {a.label} to credit"), True),
             Param("amount", _num("amount each time", 0, True), True),
             Param("frequency", _str("how often", FREQUENCIES), True),
             Param("first_run_on", {**_str("ISO date of the first transfer"), "pattern": r"^\d{4}-\d{2}-\d{2}$"}, True),
             Param("reference", _str("reference shown on both accounts"))],
            [f"if from_{a.fk} == to_{a.fk}:",
             f"    return error(\"invalid_argument\", \"the two {plural(a.label)} are the same\")",
             *b.require("account", f"from_{a.fk}"), *active_account,
             *b.require("account", f"to_{a.fk}"), *active_account,
             "if first_run_on <= TODAY:",
             "    return error(\"invalid_argument\", \"first_run_on must be after \" + TODAY)",
             f"return insert_row(db, \"{s.table}\", {{\"number\": next_code(db, \"{s.table}\", \"number\", \"{prefix}\", 602), "
             f"\"from_{a.fk}\": from_{a.fk}, \"to_{a.fk}\": to_{a.fk}, \"amount\": round(amount, 2), \"frequency\": frequency, "
             "\"next_run_on\": first_run_on, \"reference\": reference or \"Standing transfer\", \"status\": \"active\", "
             "\"created_at\": REFERENCE_NOW})"],
            role="standing_order", kind="create"))
        b.status_action("standing_order", "pause", ("active",), "paused", f"Pause an active {s.label}.")
        b.status_action("standing_order", "resume", ("paused",), "active", f"Resume a paused {s.label}.")
        b.status_action("standing_order", "cancel", ("active", "paused"), "cancelled", f"Cancel a {s.label} for good.")
    if has("hold"):
        h = b.ent("hold")
        b.list_tool("hold")
        b.add(ToolDef(
            b.names.create("hold"),
            f"Hold back an amount on an active {a.label}; active holds together may not exceed its balance.",
            [Param(a.fk, _int(f"id of the {a.label}"), True), Param("amount", _num("amount to hold", 0, True), True),
             Param("reason", _str("why", HOLD_REASONS), True),
             Param("expires_on", {**_str("ISO date the hold lapses"), "pattern": r"^\d{4}-\d{2}-\d{2}$"}, True)],
            [*b.require("account", a.fk), *active_account,
             f"held = db.one(\"SELECT COALESCE(SUM(amount), 0) AS n FROM {h.table} WHERE {a.fk} = ? AND status = 'active'\", [{a.fk}])[\"n\"]",
             f"if held + amount > {a.name}[\"balance\"]:",
             f"    return error(\"insufficient_funds\", \"{a.label} \" + {a.name}[\"number\"] + \" has only \" + str(round({a.name}[\"balance\"] - held, 2)) + \" not yet held\")",
             "if expires_on <= TODAY:",
             "    return error(\"invalid_argument\", \"expires_on must be after \" + TODAY)",
             f"return insert_row(db, \"{h.table}\", {{\"{a.fk}\": {a.fk}, \"amount\": round(amount, 2), \"reason\": reason, "
             "\"status\": \"active\", \"placed_at\": REFERENCE_NOW, \"expires_on\": expires_on})"],
            role="hold", kind="create"))
        b.status_action("hold", "release", ("active",), "released", f"Release an active {h.label}.")
