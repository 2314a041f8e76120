"""Task generation: multi-step user tasks with reference solutions and goals, by construction.

Each template looks at the world (plan and its generated rows), picks concrete
targets that make the task feasible, and writes a self-contained instruction
naming every value the agent needs, the sequence of tool calls that solves it
(lookups included, as an agent would make them), the expected answer for
questions, and goals the verifier checks against the final database.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from awm.builder.data import Rows
from awm.builder.naming import plural
from awm.builder.toolgen import ToolNames
from awm.builder.world import WorldPlan, stable_seed
from awm.contracts import Goal, Task, TaskSet, ToolCall

TASKS_PER_ENV = 10
MAX_ANSWER_CANDIDATES = 200
_NOTES = ("Customer contacted by phone", "Handled at the front desk", "Requested by email",
          "Confirmed with the customer", "Escalated by the duty manager")
_REASONS = ("customer request", "service not delivered", "duplicate booking", "billing error")


def money(x: float) -> str:
    return f"{x:.2f}"


@dataclass
class Draft:
    template: str
    instruction: str
    calls: list[tuple[str, dict[str, Any]]]
    goals: list[Goal]
    answer: str | None = None
    targets: set[tuple[str, int]] = field(default_factory=set)
    segments: list[int] = field(default_factory=list)


class _World:
    """Convenient access to one world's rows for the templates."""

    def __init__(self, plan: WorldPlan, rows: Rows, rng: random.Random):
        self.plan, self.rows, self.rng = plan, rows, rng
        self.n = ToolNames(plan)
        self.L = plan.scenario.labels
        self.fl = plan.flavour

    def fk(self, role: str) -> str:
        return self.plan[role].fk

    def table(self, role: str) -> str:
        return self.plan[role].table

    def by_id(self, role: str, row_id: int) -> dict:
        return self.rows[role][row_id - 1]

    def children(self, child: str, parent: str, parent_id: int) -> list[dict]:
        col = self.fk(parent)
        return [r for r in self.rows.get(child, []) if r.get(col) == parent_id]

    def person(self, row: dict) -> str:
        return f"{row['first_name']} {row['last_name']}"

    def party_of(self, row: dict) -> dict:
        return self.by_id("party", row[self.fk("party")])

    def find_party(self, party: dict) -> tuple[str, dict]:
        return self.n.list("party"), {"query": party["email"]}

    def pick(self, candidates: list[dict]) -> dict | None:
        return self.rng.choice(candidates) if candidates else None

    def unique_staff_name(self, staff: dict) -> bool:
        name = self.person(staff)
        return sum(1 for s in self.rows["staff"] if self.person(s) == name) == 1

    def text_answer(self, value: str, alternatives: list[str]) -> Goal:
        """An answer goal for a name or a status: the other values of its kind are conflicting candidates (an
        answer that names one of them as well hedges or dumps)."""
        others = sorted({a for a in alternatives if a != value})[:MAX_ANSWER_CANDIDATES]
        return Goal(kind="answer", expect={"value": value, "others": others} if others else {"value": value})


Template = Callable[[_World], Draft | None]
TEMPLATES: dict[str, Template] = {}


def template(fn: Template) -> Template:
    TEMPLATES[fn.__name__] = fn
    return fn


# --- core templates -------------------------------------------------------------


@template
def cancel_and_refund(w: _World) -> Draft | None:
    cancel = w.fl.cancel
    cases = []
    for case in w.rows["case"]:
        if case["status"] not in cancel.sources or w.party_of(case)["status"] != "active":
            continue
        captured = [p for p in w.children("payment", "case", case["id"]) if p["status"] == "captured"]
        if len(captured) == 1:
            cases.append((case, captured[0]))
    if not cases:
        return None
    case, payment = w.rng.choice(cases)
    party = w.party_of(case)
    note, reason = w.rng.choice(_NOTES), w.rng.choice(_REASONS)
    c, pay = w.L["case"], w.L["payment"]
    calls = [
        w.find_party(party),
        (w.n.list("case"), {w.fk("party"): party["id"]}),
        (w.n.get("case"), {f"{w.plan['case'].name}_id": case["id"]}),
        (w.n.action("case", cancel.verb), {w.fk("case"): case["id"]}),
        (w.n.list("payment"), {w.fk("case"): case["id"]}),
        (w.n.action("payment", "refund"), {f"{w.plan['payment'].name}_id": payment["id"], "reason": reason}),
        (w.n.create("note"), {w.fk("case"): case["id"], "body": note}),
    ]
    return Draft(
        "cancel_and_refund",
        f"{w.person(party)} ({party['email']}) asked us to call off {c} {case['code']}: "
        f"{cancel.verb.replace('_', ' ')} it, refund its captured {pay} with the reason '{reason}', "
        f"and add a note to the {c} saying '{note}'.",
        calls,
        [
            Goal(kind="row_equals", table=w.table("case"), pk=case["id"], expect={"status": cancel.target}),
            Goal(kind="row_equals", table=w.table("payment"), pk=payment["id"],
                 expect={"status": "refunded", "refund_reason": {"text": reason}}),
            Goal(kind="rows_created", table=w.table("note"), count=1,
                 expect={w.fk("case"): case["id"], "body": {"text": note}}),
        ],
        targets={("case", case["id"])},
    )


@template
def open_new_case(w: _World) -> Draft | None:
    parties = [p for p in w.rows["party"] if p["status"] == "active"]
    items = [i for i in w.rows["item"] if i["active"]]
    staff = [s for s in w.rows["staff"] if s["active"] and w.unique_staff_name(s)]
    if len(items) < 2 or not staff:
        return None
    party, site, member = w.pick(parties), w.pick(w.rows["site"]), w.pick(staff)
    first, second = w.rng.sample(items, 2)
    q1, q2 = w.rng.randint(1, 3), w.rng.randint(1, 4)
    new_id = len(w.rows["case"]) + 1
    c, cfk = w.L["case"], w.fk("case")
    calls = [
        w.find_party(party),
        (w.n.list("site"), {"query": site["name"]}),
        (w.n.list("item"), {"query": first["name"]}),
        (w.n.list("item"), {"query": second["name"]}),
        (w.n.list("staff"), {"query": w.person(member)}),
        (w.n.create("case"), {w.fk("party"): party["id"], w.fk("site"): site["id"]}),
        (w.n.create("line"), {cfk: new_id, w.fk("item"): first["id"], "quantity": q1}),
        (w.n.create("line"), {cfk: new_id, w.fk("item"): second["id"], "quantity": q2}),
        (w.n.action("case", "assign"), {cfk: new_id, w.fk("staff"): member["id"]}),
    ]
    return Draft(
        "open_new_case",
        f"Open a new {c} for {w.person(party)} ({party['email']}) at {site['name']} with {q1} x "
        f"{first['name']} and {q2} x {second['name']}, and assign it to {w.L['staff']} {w.person(member)}.",
        calls,
        [Goal(kind="rows_created", table=w.table("case"), count=1,
              expect={w.fk("party"): party["id"], w.fk("site"): site["id"], w.fk("staff"): member["id"]},
              child_table=w.table("line"), child_fk=cfk,
              children=[{w.fk("item"): first["id"], "quantity": q1},
                        {w.fk("item"): second["id"], "quantity": q2}])],
    )


@template
def party_spend_question(w: _World) -> Draft | None:
    options = []
    for party in w.rows["party"]:
        cases = w.children("case", "party", party["id"])
        if 2 <= len(cases) <= 5:
            total = sum(p["amount"] for c in cases for p in w.children("payment", "case", c["id"])
                        if p["status"] == "captured")
            if total > 0:
                options.append((party, cases, round(total, 2)))
    if not options:
        return None
    party, cases, total = w.rng.choice(options)
    calls = [w.find_party(party), (w.n.list("case"), {w.fk("party"): party["id"]})]
    calls += [(w.n.list("payment"), {w.fk("case"): c["id"]}) for c in cases]
    return Draft(
        "party_spend_question",
        f"What is the total amount of captured {plural(w.L['payment'])} across all {plural(w.L['case'])} of "
        f"{w.person(party)} ({party['email']})? Answer with the amount to the cent.",
        calls,
        [Goal(kind="answer", expect={"value": total})],
        answer=money(total),
    )


@template
def busiest_staff_question(w: _World) -> Draft | None:
    options = []
    statuses = [s for s in w.fl.statuses if s != w.fl.initial]
    for site in w.rows["site"]:
        staff = [s for s in w.rows["staff"] if s[w.fk("site")] == site["id"]]
        if len(staff) < 2:
            continue
        for status in statuses:
            counts = {s["id"]: sum(1 for c in w.rows["case"] if c[w.fk("staff")] == s["id"] and c["status"] == status)
                      for s in staff}
            ranked = sorted(counts.values(), reverse=True)
            if ranked[0] >= 2 and ranked[0] > ranked[1]:
                winner = max(counts, key=counts.get)
                options.append((site, staff, status, w.by_id("staff", winner)))
    if not options:
        return None
    site, staff, status, winner = w.rng.choice(options)
    calls = [(w.n.list("site"), {"query": site["name"]}), (w.n.list("staff"), {w.fk("site"): site["id"]})]
    calls += [(w.n.list("case"), {w.fk("staff"): s["id"], "status": status}) for s in staff]
    return Draft(
        "busiest_staff_question",
        f"Which {w.L['staff']} based at {site['name']} has the most {plural(w.L['case'])} with status "
        f"'{status}'? Give their full name.",
        calls,
        [w.text_answer(w.person(winner), [w.person(s) for s in w.rows["staff"]])],
        answer=w.person(winner),
    )


@template
def update_contact_details(w: _World) -> Draft | None:
    parties = [p for p in w.rows["party"] if p["status"] == "active" and w.children("case", "party", p["id"])]
    party = w.pick(parties)
    if party is None:
        return None
    city = w.rng.choice(("Portland", "Madison", "Tucson", "Raleigh", "Boise", "Omaha"))
    phone = f"555-{w.rng.randint(100, 999)}-{w.rng.randint(1000, 9999)}"
    street = f"{w.rng.randint(10, 999)} {w.rng.choice(('Elm', 'Harbor', 'Maple', 'Summit'))} Street"
    postal = f"{w.rng.randint(10000, 99999)}"
    case = max(w.children("case", "party", party["id"]), key=lambda c: c["created_at"])
    note = "Contact details updated"
    pfk = w.fk("party")
    calls = [
        w.find_party(party),
        (f"update_{w.plan['party'].name}_contact", {f"{w.plan['party'].name}_id": party["id"], "city": city,
                                                    "phone": phone}),
        (w.n.list("address"), {pfk: party["id"]}),
        (w.n.create("address"), {pfk: party["id"], "kind": "home", "street": street, "city": city,
                                 "postal_code": postal, "is_primary": True}),
        (w.n.list("case"), {pfk: party["id"]}),
        (w.n.create("note"), {w.fk("case"): case["id"], "body": note}),
    ]
    return Draft(
        "update_contact_details",
        f"{w.person(party)} ({party['email']}) has moved: change their city to {city} and phone to {phone}, "
        f"add a primary home {w.L['address']} at {street}, {city} {postal}, and add a note saying '{note}' "
        f"to their {w.L['case']} {case['code']}.",
        calls,
        [
            Goal(kind="row_equals", table=w.table("party"), pk=party["id"], expect={"city": city, "phone": phone}),
            Goal(kind="rows_created", table=w.table("address"), count=1,
                 expect={pfk: party["id"], "kind": "home", "street": street, "city": city, "postal_code": postal,
                         "is_primary": 1}),
            Goal(kind="rows_created", table=w.table("note"), count=1,
                 expect={w.fk("case"): case["id"], "body": {"text": note}}),
        ],
        targets={("party", party["id"]), ("case", case["id"])},
    )


@template
def advance_case(w: _World) -> Draft | None:
    first, second = (w.fl.action(v) for v in w.fl.forward[:2])
    if first.requires_verified_documents or second.requires_verified_documents:
        return None
    cases = [c for c in w.rows["case"] if c["status"] in first.sources and w.party_of(c)["status"] == "active"]
    if w.fl.name == "service":
        cases = [c for c in cases if c[w.fk("staff")] is not None]
    case = w.pick(cases)
    if case is None:
        return None
    party = w.party_of(case)
    method = w.rng.choice(("card", "bank_transfer", "cash"))
    amount = round(max(case["total_amount"], 1.0), 2)
    cfk = w.fk("case")
    calls = [
        w.find_party(party),
        (w.n.list("case"), {w.fk("party"): party["id"]}),
        (w.n.get("case"), {f"{w.plan['case'].name}_id": case["id"]}),
        (w.n.action("case", first.verb), {cfk: case["id"]}),
        (w.n.action("case", second.verb), {cfk: case["id"]}),
        (w.n.create("payment"), {cfk: case["id"], "amount": amount, "method": method}),
    ]
    v1, v2 = first.verb.replace("_", " "), second.verb.replace("_", " ")
    return Draft(
        "advance_case",
        f"For {w.person(party)} ({party['email']}), {v1} and then {v2} their {w.L['case']} {case['code']}, "
        f"and record a {method.replace('_', ' ')} {w.L['payment']} of {money(amount)} against it.",
        calls,
        [
            Goal(kind="row_equals", table=w.table("case"), pk=case["id"], expect={"status": second.target}),
            Goal(kind="rows_created", table=w.table("payment"), count=1,
                 expect={cfk: case["id"], "amount": {"approx": amount}, "method": method, "status": "captured"}),
        ],
        targets={("case", case["id"])},
    )


@template
def reprice_item(w: _World) -> Draft | None:
    item = w.pick([i for i in w.rows["item"] if i["active"]])
    if item is None:
        return None
    pct = w.rng.choice((5, 8, 10, 12, 15, 20))
    up = w.rng.random() < 0.7
    new_price = round(item["price"] * (1 + pct / 100 if up else 1 - pct / 100), 2)
    i = w.plan["item"]
    calls = [(w.n.list("item"), {"query": item["name"]}),
             (w.n.get("item"), {f"{i.name}_id": item["id"]}),
             (f"update_{i.name}_price", {f"{i.name}_id": item["id"], "price": new_price})]
    return Draft(
        "reprice_item",
        f"{'Raise' if up else 'Lower'} the price of the {w.L['item']} '{item['name']}' by {pct}% "
        f"(rounded to the cent) and tell me the new price.",
        calls,
        [Goal(kind="row_equals", table=w.table("item"), pk=item["id"], expect={"price": {"approx": new_price}}),
         Goal(kind="answer", expect={"value": new_price})],
        answer=money(new_price),
        targets={("item", item["id"])},
    )


@template
def remove_line_item(w: _World) -> Draft | None:
    options = []
    for case in w.rows["case"]:
        lines = w.children("line", "case", case["id"])
        if case["status"] in w.fl.editable and len(lines) >= 2:
            options.append((case, lines))
    if not options:
        return None
    case, lines = w.rng.choice(options)
    line = w.rng.choice(lines)
    item = w.by_id("item", line[w.fk("item")])
    new_total = round(max(case["total_amount"] - line["quantity"] * line["unit_price"], 0), 2)
    c = w.plan["case"]
    calls = [(w.n.list("case"), {"code": case["code"]}),
             (w.n.list("line"), {w.fk("case"): case["id"]}),
             (w.n.delete("line"), {f"{w.plan['line'].name}_id": line["id"]}),
             (w.n.get("case"), {f"{c.name}_id": case["id"]})]
    return Draft(
        "remove_line_item",
        f"Remove '{item['name']}' from {w.L['case']} {case['code']} and tell me the {w.L['case']}'s new total.",
        calls,
        [Goal(kind="row_deleted", table=w.table("line"), pk=line["id"]),
         Goal(kind="answer", expect={"value": new_total})],
        answer=money(new_total),
        targets={("case", case["id"])},
    )


@template
def reschedule_case(w: _World) -> Draft | None:
    try:
        action = w.fl.action("reschedule")
    except KeyError:
        return None
    staff = [s for s in w.rows["staff"] if s["active"] and w.unique_staff_name(s)]
    cases = [c for c in w.rows["case"] if c["status"] in action.sources and w.party_of(c)["status"] == "active"]
    case, member = w.pick(cases), w.pick(staff)
    if case is None or member is None:
        return None
    party = w.party_of(case)
    when = f"2025-{w.rng.randint(7, 9):02d}-{w.rng.randint(1, 28):02d}T{w.rng.choice((9, 10, 14, 16)):02d}:00:00"
    tc, cfk = w.fl.time_column, w.fk("case")
    calls = [
        w.find_party(party),
        (w.n.list("case"), {w.fk("party"): party["id"]}),
        (w.n.list("staff"), {"query": w.person(member)}),
        (w.n.action("case", "reschedule"), {cfk: case["id"], tc: when}),
        (w.n.action("case", "assign"), {cfk: case["id"], w.fk("staff"): member["id"]}),
    ]
    return Draft(
        "reschedule_case",
        f"Move {w.person(party)}'s ({party['email']}) {w.L['case']} {case['code']} to {when.replace('T', ' ')} "
        f"and assign it to {w.L['staff']} {w.person(member)}.",
        calls,
        [Goal(kind="row_equals", table=w.table("case"), pk=case["id"],
              expect={tc: {"prefix": when[:16]}, "status": action.target, w.fk("staff"): member["id"]})],
        targets={("case", case["id"])},
    )


@template
def site_status_question(w: _World) -> Draft | None:
    options = []
    for site in w.rows["site"]:
        for status in w.fl.statuses:
            cases = [c for c in w.rows["case"] if c[w.fk("site")] == site["id"] and c["status"] == status]
            if 2 <= len(cases) <= 20:
                options.append((site, status, cases))
    if not options:
        return None
    site, status, cases = w.rng.choice(options)
    total = round(sum(c["total_amount"] for c in cases), 2)
    calls = [(w.n.list("site"), {"query": site["name"]}),
             (w.n.list("case"), {w.fk("site"): site["id"], "status": status, "limit": 100})]
    return Draft(
        "site_status_question",
        f"How many {plural(w.L['case'])} at {site['name']} currently have status '{status}', and what is their "
        "combined total amount?",
        calls,
        [Goal(kind="answer", expect={"value": len(cases)}), Goal(kind="answer", expect={"value": total})],
        answer=f"{len(cases)} {plural(w.L['case'])}, {money(total)} in total",
    )


@template
def top_item_question(w: _World) -> Draft | None:
    options = []
    for category in w.rows["category"]:
        items = [i for i in w.rows["item"] if i[w.fk("category")] == category["id"] and i["active"]]
        prices = sorted((i["price"] for i in items), reverse=True)
        if len(items) >= 2 and prices[0] > prices[1]:
            options.append((category, max(items, key=lambda i: i["price"])))
    if not options:
        return None
    category, item = w.rng.choice(options)
    calls = [(w.n.list("category"), {"query": category["name"]}),
             (w.n.list("item"), {w.fk("category"): category["id"], "active": 1, "limit": 100})]
    return Draft(
        "top_item_question",
        f"Which active {w.L['item']} in the '{category['name']}' {w.L['category']} has the highest price, and "
        "what is that price?",
        calls,
        [w.text_answer(item["name"], [i["name"] for i in w.rows["item"]]),
         Goal(kind="answer", expect={"value": item["price"]})],
        answer=f"{item['name']} at {money(item['price'])}",
    )


@template
def latest_case_question(w: _World) -> Draft | None:
    options = []
    for party in w.rows["party"]:
        cases = sorted(w.children("case", "party", party["id"]), key=lambda c: c["created_at"])
        if len(cases) >= 2 and cases[-1]["created_at"] != cases[-2]["created_at"] and cases[-1][w.fk("staff")]:
            options.append((party, cases[-1]))
    if not options:
        return None
    party, case = w.rng.choice(options)
    member = w.by_id("staff", case[w.fk("staff")])
    calls = [w.find_party(party), (w.n.list("case"), {w.fk("party"): party["id"]}),
             (w.n.get("staff"), {f"{w.plan['staff'].name}_id": member["id"]})]
    return Draft(
        "latest_case_question",
        f"What is the status of the most recently created {w.L['case']} of {w.person(party)} ({party['email']}), "
        f"and which {w.L['staff']} handles it? Give the status and their full name.",
        calls,
        # any status of the world is a conflicting candidate ("cancelled, or maybe active")
        [w.text_answer(case["status"], sorted({r["status"] for rows in w.rows.values() for r in rows
                                                if isinstance(r.get("status"), str)})),
         w.text_answer(w.person(member), [w.person(s) for s in w.rows["staff"]])],
        answer=f"{case['status']}, handled by {w.person(member)}",
    )


# --- module templates ---------------------------------------------------------


@template
def transfer_between_accounts(w: _World) -> Draft | None:
    if not w.plan.has("account"):
        return None
    options = []
    for party in w.rows["party"]:
        accounts = [a for a in w.children("account", "party", party["id"]) if a["status"] == "active"]
        rich = [a for a in accounts if a["balance"] >= 60]
        if len(accounts) >= 2 and rich:
            options.append((party, accounts, rich))
    if not options:
        return None
    party, accounts, rich = w.rng.choice(options)
    source = w.rng.choice(rich)
    target = w.rng.choice([a for a in accounts if a["id"] != source["id"]])
    amount = float(w.rng.randint(2, max(2, int(source["balance"] * 0.8) // 10)) * 5)
    amount = min(amount, float(int(source["balance"])))
    new_balance = round(target["balance"] + amount, 2)
    a = w.plan["account"]
    calls = [
        w.find_party(party),
        (w.n.list("account"), {w.fk("party"): party["id"]}),
        (w.n.get("account"), {f"{a.name}_id": source["id"]}),
        ("transfer_funds", {f"from_{a.fk}": source["id"], f"to_{a.fk}": target["id"], "amount": amount}),
        (w.n.get("account"), {f"{a.name}_id": target["id"]}),
    ]
    return Draft(
        "transfer_between_accounts",
        f"Transfer {money(amount)} from {w.person(party)}'s ({party['email']}) {source['kind']} {w.L['account']} "
        f"{source['number']} to their {target['kind']} {w.L['account']} {target['number']}, then tell me the new "
        f"balance of {target['number']}.",
        calls,
        [Goal(kind="row_delta", table=w.table("account"), pk=source["id"], column="balance", delta=-amount),
         Goal(kind="row_delta", table=w.table("account"), pk=target["id"], column="balance", delta=amount),
         Goal(kind="answer", expect={"value": new_balance})],
        answer=money(new_balance),
        targets={("account", source["id"]), ("account", target["id"])},
    )


@template
def settle_invoices(w: _World) -> Draft | None:
    if not w.plan.has("invoice"):
        return None
    options = []
    for party in w.rows["party"]:
        unpaid = [i for i in w.children("invoice", "party", party["id"]) if i["status"] in ("open", "overdue")]
        if 1 <= len(unpaid) <= 4:
            options.append((party, unpaid))
    if not options:
        return None
    party, unpaid = w.rng.choice(options)
    inv = w.plan["invoice"]
    total = round(sum(i["amount"] for i in unpaid), 2)
    calls = [w.find_party(party),
             (w.n.list("invoice"), {w.fk("party"): party["id"], "status": "open"}),
             (w.n.list("invoice"), {w.fk("party"): party["id"], "status": "overdue"})]
    calls += [(w.n.action("invoice", "pay"), {f"{inv.name}_id": i["id"]}) for i in unpaid]
    return Draft(
        "settle_invoices",
        f"Mark every unpaid (open or overdue) {w.L['invoice']} of {w.person(party)} ({party['email']}) as paid, "
        "and tell me the total amount settled.",
        calls,
        [Goal(kind="row_equals", table=inv.table, pk=i["id"], expect={"status": "paid"}) for i in unpaid]
        + [Goal(kind="answer", expect={"value": total})],
        answer=money(total),
        targets={("party_invoices", party["id"])},
    )


@template
def verify_documents(w: _World) -> Draft | None:
    if not w.plan.has("document"):
        return None
    approve = w.fl.name == "application"
    options = []
    for case in w.rows["case"]:
        docs = w.children("document", "case", case["id"])
        submitted = [d for d in docs if d["status"] == "submitted"]
        if not submitted or len(submitted) > 3 or any(d["status"] == "rejected" for d in docs):
            continue
        if approve and case["status"] != "under_review":
            continue
        options.append((case, submitted))
    if not options:
        return None
    case, submitted = w.rng.choice(options)
    d = w.plan["document"]
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("document"), {w.fk("case"): case["id"]})]
    calls += [(w.n.action("document", "verify"), {f"{d.name}_id": doc["id"]}) for doc in submitted]
    goals = [Goal(kind="row_equals", table=d.table, pk=doc["id"], expect={"status": "verified"}) for doc in submitted]
    tail = ""
    if approve:
        calls.append((w.n.action("case", "approve"), {w.fk("case"): case["id"]}))
        goals.append(Goal(kind="row_equals", table=w.table("case"), pk=case["id"], expect={"status": "approved"}))
        tail = f", then approve the {w.L['case']}"
    else:
        note = "All paperwork verified"
        calls.append((w.n.create("note"), {w.fk("case"): case["id"], "body": note}))
        goals.append(Goal(kind="rows_created", table=w.table("note"), count=1,
                          expect={w.fk("case"): case["id"], "body": {"text": note}}))
        tail = f", then add a note saying '{note}' to it"
    return Draft(
        "verify_documents",
        f"Verify every submitted {w.L['document']} on {w.L['case']} {case['code']}{tail}.",
        calls, goals, targets={("case", case["id"])},
    )


@template
def receive_purchase_order(w: _World) -> Draft | None:
    if not w.plan.has("purchase_order"):
        return None
    pos = [p for p in w.rows["purchase_order"] if p["status"] == "submitted"]
    po = w.pick(pos)
    if po is None:
        return None
    vendor = w.by_id("vendor", po[w.fk("vendor")])
    lines = w.children("purchase_line", "purchase_order", po["id"])
    p = w.plan["purchase_order"]
    calls = [(w.n.list("vendor"), {"query": vendor["name"]}),
             (w.n.list("purchase_order"), {w.fk("vendor"): vendor["id"], "status": "submitted"}),
             (w.n.get("purchase_order"), {f"{p.name}_id": po["id"]}),
             (w.n.action("purchase_order", "approve"), {f"{p.name}_id": po["id"]}),
             (w.n.action("purchase_order", "receive"), {f"{p.name}_id": po["id"]})]
    goals = [Goal(kind="row_equals", table=p.table, pk=po["id"], expect={"status": "received"})]
    text = f"Approve {w.L['purchase_order']} {po['number']} from {vendor['name']} and record it as received"
    answer = None
    if w.plan.has("stock_level"):
        line = lines[0]
        item = w.by_id("item", line[w.fk("item")])
        site = w.by_id("site", po[w.fk("site")])
        level = next((s for s in w.rows["stock_level"] if s[w.fk("item")] == item["id"]
                      and s[w.fk("site")] == site["id"]), None)
        if level is None:
            return None
        held = level["quantity"] + sum(x["quantity"] for x in lines if x[w.fk("item")] == item["id"])
        calls.append((w.n.list("stock_level"), {w.fk("item"): item["id"], w.fk("site"): site["id"]}))
        goals.append(Goal(kind="row_delta", table=w.table("stock_level"), pk=level["id"], column="quantity",
                          delta=held - level["quantity"]))
        goals.append(Goal(kind="answer", expect={"value": held}))
        text += f"; then tell me how many units of '{item['name']}' {site['name']} now holds"
        answer = str(held)
    targets = {("purchase_order", po["id"])}
    if answer is not None:
        targets.add(("stock_level", level["id"]))
    return Draft("receive_purchase_order", text + ".", calls, goals, answer=answer, targets=targets)


@template
def write_off_stock(w: _World) -> Draft | None:
    if not w.plan.has("stock_level"):
        return None
    level = w.pick([s for s in w.rows["stock_level"] if s["quantity"] >= 5])
    if level is None:
        return None
    item = w.by_id("item", level[w.fk("item")])
    site = w.by_id("site", level[w.fk("site")])
    n = w.rng.randint(1, min(6, level["quantity"]))
    left = level["quantity"] - n
    calls = [(w.n.list("item"), {"query": item["name"]}), (w.n.list("site"), {"query": site["name"]}),
             (w.n.list("stock_level"), {w.fk("item"): item["id"], w.fk("site"): site["id"]}),
             (f"adjust_{w.plan['stock_level'].name}", {w.fk("item"): item["id"], w.fk("site"): site["id"],
                                                       "change": -n, "reason": "stock write-off"})]
    # The stock tool keeps no record of the reason it is given, so the instruction states none: a detail
    # that no table records is one no verifier can check.
    return Draft(
        "write_off_stock",
        f"{n} units of '{item['name']}' were found damaged at {site['name']}: reduce the stock there by {n} "
        "and tell me how many units remain.",
        calls,
        [Goal(kind="row_delta", table=w.table("stock_level"), pk=level["id"], column="quantity", delta=-n),
         Goal(kind="answer", expect={"value": left})],
        answer=str(left),
        targets={("stock_level", level["id"])},
    )


@template
def escalate_ticket(w: _World) -> Draft | None:
    if not w.plan.has("ticket"):
        return None
    ticket = w.pick([t for t in w.rows["ticket"] if t["status"] == "open"
                     and w.party_of(t)["status"] == "active"])
    member = w.pick([s for s in w.rows["staff"] if s["active"] and w.unique_staff_name(s)])
    if ticket is None or member is None:
        return None
    party = w.party_of(ticket)
    comment = "We are looking into this with priority"
    t = w.plan["ticket"]
    calls = [w.find_party(party),
             (w.n.list("ticket"), {w.fk("party"): party["id"], "status": "open"}),
             (w.n.list("staff"), {"query": w.person(member)}),
             (w.n.action("ticket", "assign"), {t.fk: ticket["id"], w.fk("staff"): member["id"]}),
             (w.n.create("ticket_comment"), {t.fk: ticket["id"], "body": comment, w.fk("staff"): member["id"]}),
             (w.n.action("ticket", "escalate"), {f"{t.name}_id": ticket["id"]})]
    return Draft(
        "escalate_ticket",
        f"Assign {w.person(party)}'s ({party['email']}) open {w.L['ticket']} {ticket['number']} about "
        f"'{ticket['subject']}' to {w.L['staff']} {w.person(member)}, add a comment from them saying "
        f"'{comment}', and escalate it.",
        calls,
        [Goal(kind="row_equals", table=t.table, pk=ticket["id"],
              expect={"status": "escalated", w.fk("staff"): member["id"]}),
         Goal(kind="rows_created", table=w.table("ticket_comment"), count=1,
              expect={t.fk: ticket["id"], "body": {"text": comment}, w.fk("staff"): member["id"]})],
        targets={("ticket", ticket["id"])},
    )


@template
def pause_subscription(w: _World) -> Draft | None:
    if not w.plan.has("subscription"):
        return None
    options = []
    for sub in w.rows["subscription"]:
        party = w.party_of(sub)
        same = [s for s in w.children("subscription", "party", party["id"])
                if s["status"] == "active" and s[w.fk("item")] == sub[w.fk("item")]]
        if sub["status"] == "active" and party["status"] == "active" and len(same) == 1:
            options.append((sub, party))
    if not options:
        return None
    sub, party = w.rng.choice(options)
    item = w.by_id("item", sub[w.fk("item")])
    s = w.plan["subscription"]
    calls = [w.find_party(party),
             (w.n.list("subscription"), {w.fk("party"): party["id"], "status": "active"}),
             (w.n.action("subscription", "pause"), {f"{s.name}_id": sub["id"]})]
    goals = [Goal(kind="row_equals", table=s.table, pk=sub["id"], expect={"status": "paused"})]
    text = f"Pause the active '{item['name']}' {w.L['subscription']} of {w.person(party)} ({party['email']})"
    if w.plan.has("notification"):
        subject = "Your plan is paused"
        calls.append((w.n.create("notification"), {w.fk("party"): party["id"], "channel": "email",
                                                    "subject": subject, "body": f"{item['name']} is paused."}))
        goals.append(Goal(kind="rows_created", table=w.table("notification"), count=1,
                          expect={w.fk("party"): party["id"], "channel": "email", "subject": {"text": subject}}))
        text += f" and send them an email {w.L['notification']} with the subject '{subject}'"
    return Draft("pause_subscription", text + ".", calls, goals, targets={("subscription", sub["id"])})


@template
def redeem_points(w: _World) -> Draft | None:
    if not w.plan.has("loyalty_account"):
        return None
    acct = w.pick([a for a in w.rows["loyalty_account"] if a["points"] >= 100])
    if acct is None:
        return None
    party = w.party_of(acct)
    n = w.rng.randint(1, acct["points"] // 50) * 50
    la = w.plan["loyalty_account"]
    calls = [w.find_party(party), (w.n.list("loyalty_account"), {w.fk("party"): party["id"]}),
             ("redeem_points", {la.fk: acct["id"], "points": n, "reason": "reward redemption"})]
    return Draft(
        "redeem_points",
        f"Redeem {n} points from the {w.L['loyalty_account']} of {w.person(party)} ({party['email']}) with the "
        "reason 'reward redemption', and tell me how many points remain.",
        calls,
        [Goal(kind="row_delta", table=la.table, pk=acct["id"], column="points", delta=-n),
         Goal(kind="rows_created", table=w.table("loyalty_entry"), count=1,
              expect={la.fk: acct["id"], "points": -n, "reason": {"text": "reward redemption"}}),
         Goal(kind="answer", expect={"value": acct["points"] - n})],
        answer=str(acct["points"] - n),
        targets={("loyalty_account", acct["id"])},
    )


@template
def average_rating_question(w: _World) -> Draft | None:
    if not w.plan.has("review"):
        return None
    options = []
    for item in w.rows["item"]:
        ratings = [r["rating"] for r in w.children("review", "item", item["id"])]
        if len(ratings) >= 3:
            options.append((item, round(sum(ratings) / len(ratings), 2)))
    if not options:
        return None
    item, avg = w.rng.choice(options)
    calls = [(w.n.list("item"), {"query": item["name"]}),
             (w.n.list("review"), {w.fk("item"): item["id"], "limit": 100})]
    return Draft(
        "average_rating_question",
        f"What is the average {w.L['review']} rating of the {w.L['item']} '{item['name']}', rounded to two "
        "decimals?",
        calls,
        [Goal(kind="answer", expect={"value": avg})],
        answer=money(avg),
    )


@template
def apply_promotion(w: _World) -> Draft | None:
    if not w.plan.has("promotion"):
        return None
    today = "2025-06-01"
    promos = [p for p in w.rows["promotion"] if p["active"] and p["valid_from"] <= today <= p["valid_to"]]
    cases = [c for c in w.rows["case"] if c["status"] in w.fl.editable and c["total_amount"] > 0]
    promo, case = w.pick(promos), w.pick(cases)
    if promo is None or case is None:
        return None
    discount = round(case["total_amount"] * promo["percent_off"] / 100, 2)
    new_total = round(case["total_amount"] - discount, 2)
    c = w.plan["case"]
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("promotion"), {"query": promo["code"]}),
             (w.n.action("promotion", "apply"), {w.fk("case"): case["id"], "code": promo["code"]}),
             (w.n.get("case"), {f"{c.name}_id": case["id"]})]
    return Draft(
        "apply_promotion",
        f"Apply the {w.L['promotion']} code {promo['code']} to {w.L['case']} {case['code']} and tell me its new total.",
        calls,
        [Goal(kind="row_equals", table=c.table, pk=case["id"],
              expect={w.fk("promotion"): promo["id"], "total_amount": {"approx": new_total}}),
         Goal(kind="answer", expect={"value": new_total})],
        answer=money(new_total), targets={("case", case["id"])},
    )


@template
def schedule_shift(w: _World) -> Draft | None:
    if not w.plan.has("shift"):
        return None
    member = w.pick([s for s in w.rows["staff"] if s["active"] and w.unique_staff_name(s)])
    if member is None:
        return None
    taken = {s["shift_date"] for s in w.children("shift", "staff", member["id"])}
    date = next(d for d in (f"2025-06-{n:02d}" for n in range(10, 29)) if d not in taken)
    site = w.by_id("site", member[w.fk("site")])
    calls = [(w.n.list("staff"), {"query": w.person(member)}), (w.n.list("site"), {"query": site["name"]}),
             (w.n.list("shift"), {w.fk("staff"): member["id"], "shift_date": date}),
             (w.n.create("shift"), {w.fk("staff"): member["id"], w.fk("site"): site["id"], "shift_date": date,
                                    "start_time": "09:00", "end_time": "17:00"})]
    return Draft(
        "schedule_shift",
        f"Schedule {w.L['staff']} {w.person(member)} for a {w.L['shift']} at {site['name']} on {date} from 09:00 "
        "to 17:00.",
        calls,
        [Goal(kind="rows_created", table=w.table("shift"), count=1,
              expect={w.fk("staff"): member["id"], w.fk("site"): site["id"], "shift_date": date,
                      "start_time": "09:00", "end_time": "17:00", "status": "scheduled"})],
        targets={("staff_shift", member["id"])},
    )


# --- assembly -------------------------------------------------------------------


SHORT_TASK_STEPS = 5  # drafts this short are paired into one compound task


def combine(first: Draft, second: Draft) -> Draft:
    """One task that asks for both: '<first>; then <second>'."""
    tail = second.instruction[0].lower() + second.instruction[1:]
    answers = [a for a in (first.answer, second.answer) if a]
    return Draft(
        f"{first.template}+{second.template}",
        f"{first.instruction.rstrip('.?')}; then {tail}",
        first.calls + second.calls,
        first.goals + second.goals,
        answer="; ".join(answers) if answers else None,
        targets=first.targets | second.targets,
        segments=[len(first.calls), len(second.calls)],
    )


def _draw(world: _World, names: list[str], budget: int) -> list[Draft]:
    drafts: list[Draft] = []
    used_targets: set[tuple[str, int]] = set()
    for round_ in range(3):
        for name in names:
            if len(drafts) >= budget:
                return drafts
            if sum(d.template == name for d in drafts) > round_:
                continue
            for _ in range(4):  # a few tries for targets not used by an earlier task
                draft = TEMPLATES[name](world)
                if draft is not None and not (draft.targets & used_targets):
                    drafts.append(draft)
                    used_targets |= draft.targets
                    break
    return drafts


def _is_question(draft: Draft) -> bool:
    return all(g.kind == "answer" for g in draft.goals)


def _assemble(drafts: list[Draft], count: int) -> list[Draft]:
    """Long drafts stand alone; short ones are paired with a short one of the same kind (question with
    question, action with action), so tasks need several steps and tools and questions stay questions."""
    tasks: list[Draft] = []
    waiting: dict[bool, Draft] = {}
    for draft in drafts:
        if len(tasks) >= count:
            break
        if len(draft.calls) > SHORT_TASK_STEPS:
            tasks.append(draft)
            continue
        kind = _is_question(draft)
        if kind in waiting:
            tasks.append(combine(waiting.pop(kind), draft))
        else:
            waiting[kind] = draft
    for draft in waiting.values():
        if len(tasks) < count:
            tasks.append(draft)
    return tasks


def generate_tasks(plan: WorldPlan, rows: Rows, count: int = TASKS_PER_ENV) -> TaskSet:
    """`count` tasks drawn from the templates that fit this world (at most two drafts per template
    in a first pass); short drafts are paired into compound tasks."""
    sc = plan.scenario
    rng = random.Random(stable_seed("tasks", sc.seed))
    world = _World(plan, rows, rng)
    names = list(TEMPLATES)
    rng.shuffle(names)
    drafts = _assemble(_draw(world, names, budget=2 * count), count)
    if len(drafts) < count:  # a small world: allow more drafts per template
        drafts = _assemble(_draw(world, names * 2, budget=4 * count), count)
    tasks = []
    for n, d in enumerate(drafts, 1):
        answer_only = all(g.kind == "answer" for g in d.goals)
        tasks.append(Task(
            task_id=f"t{n:02d}",
            instruction=d.instruction,
            kind="question" if answer_only else "action",
            template=d.template,
            reference_solution=[ToolCall(tool=t, arguments=a) for t, a in d.calls],
            reference_answer=d.answer,
            goals=d.goals,
            segments=d.segments,
        ))
    staff = rows["staff"][0]
    acting = f"{staff['first_name']} {staff['last_name']}, {staff['title']}"
    return TaskSet(env_id=sc.env_id, acting_user=acting, tasks=tasks)
