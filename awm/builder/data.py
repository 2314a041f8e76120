"""Deterministic sample data for a world plan.

Rows depend only on the scenario's seed: the clock is the fixed REFERENCE_NOW,
names and contacts come from a seeded Faker, and every foreign key points at a
row generated earlier. The result is plain Python (table -> list of row dicts),
written to SQLite by the databases stage and read by the task generator.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from faker import Faker

from awm.builder.naming import code_prefix
from awm.builder.world import WorldPlan

REFERENCE_NOW = datetime(2025, 6, 1, 9, 0, 0)
REFERENCE_NOW_ISO = REFERENCE_NOW.isoformat()

_FAKER = Faker("en_US")
_MAIL_HOSTS = ("example.com", "example.org", "example.net", "mail.test")
_TITLES = ("Senior", "Lead", "Junior", "Associate", "Principal")
_DOC_TYPES = ("identity proof", "signed form", "invoice copy", "photo evidence", "contract", "certificate")
_NOTE_LINES = (
    "Called to confirm the details.",
    "Asked for an update by email.",
    "Priority handling requested.",
    "Details double-checked with the file.",
    "Follow-up scheduled for next week.",
    "Left a voicemail about timing.",
)
_TICKET_SUBJECTS = (
    "billing question",
    "cannot access online portal",
    "request for paperwork copy",
    "complaint about wait time",
    "change of contact details",
    "question about pricing",
    "damaged item received",
    "feedback on recent visit",
)

Rows = dict[str, list[dict]]


def iso(dt: datetime) -> str:
    return dt.replace(microsecond=0).isoformat()


def day(dt: datetime) -> str:
    return dt.date().isoformat()


class _Gen:
    def __init__(self, plan: WorldPlan):
        self.plan = plan
        self.sc = plan.scenario
        self.rng = random.Random(self.sc.seed)
        self.fake = _FAKER
        self.fake.seed_instance(self.sc.seed)
        self.rows: Rows = {}
        self.emails: set[str] = set()

    # helpers ------------------------------------------------------------------
    def past(self, lo_days: int, hi_days: int) -> datetime:
        minutes = self.rng.randint(lo_days * 1440, hi_days * 1440)
        return (REFERENCE_NOW - timedelta(minutes=minutes)).replace(second=0)

    def future(self, lo_days: int, hi_days: int) -> datetime:
        minutes = self.rng.randint(lo_days * 1440, hi_days * 1440)
        return (REFERENCE_NOW + timedelta(minutes=minutes)).replace(second=0, minute=(minutes % 4) * 15)

    def email(self, first: str, last: str) -> str:
        base = f"{first}.{last}".lower().replace("'", "").replace(" ", "")
        host = self.rng.choice(_MAIL_HOSTS)
        address, n = f"{base}@{host}", 1
        while address in self.emails:
            n += 1
            address = f"{base}{n}@{host}"
        self.emails.add(address)
        return address

    def phone(self) -> str:
        return f"555-{self.rng.randint(100, 999)}-{self.rng.randint(1000, 9999)}"

    def money(self, lo: float, hi: float) -> float:
        return round(self.rng.uniform(lo, hi), 2)

    def add(self, role: str, row: dict) -> dict:
        rows = self.rows.setdefault(role, [])
        row = {"id": len(rows) + 1, **row}
        rows.append(row)
        return row

    def ids(self, role: str) -> list[int]:
        return [r["id"] for r in self.rows.get(role, [])]

    def fk(self, role: str) -> str:
        return self.plan[role].fk

    def has(self, role: str) -> bool:
        return self.plan.has(role)

    # generators ---------------------------------------------------------------
    def sites(self) -> None:
        used = set()
        for _ in range(self.rng.randint(4, 6)):
            city = self.fake.city()
            while city in used:
                city = self.fake.city()
            used.add(city)
            self.add("site", {
                "name": f"{city} {self.plan['site'].label.title()}",
                "city": city,
                "street": self.fake.street_address(),
                "phone": self.phone(),
                "opened_on": day(self.past(400, 3650)),
            })

    def departments(self) -> None:
        names = ("Operations", "Customer Care", "Finance", "Quality", "Sales")
        for site in self.rows["site"]:
            for name in self.rng.sample(names, 2):
                self.add("department", {"name": name, self.fk("site"): site["id"],
                                        "budget": float(self.rng.randint(20, 400) * 1000)})

    def categories(self) -> None:
        for name in self.sc.item_categories:
            self.add("category", {"name": name, "description": f"{name} offered by the business"})

    def items(self) -> None:
        lo, hi = self.sc.price_range
        prefix = code_prefix(self.plan["item"].label)
        cats = self.ids("category")
        for i, name in enumerate(self.sc.items):
            self.add("item", {
                "sku": f"{prefix}-{101 + i}",
                "name": name,
                self.fk("category"): cats[i % len(cats)],
                "price": self.money(lo, hi),
                "active": 0 if i == len(self.sc.items) - 1 else 1,
                "description": f"{name}, part of our {self.sc.item_categories[i % len(cats)]} range",
            })

    def parties(self) -> None:
        for _ in range(self.rng.randint(24, 34)):
            first, last = self.fake.first_name(), self.fake.last_name()
            self.add("party", {
                "first_name": first,
                "last_name": last,
                "email": self.email(first, last),
                "phone": self.phone(),
                "city": self.fake.city(),
                "tier": self.rng.choices(("standard", "silver", "gold"), (6, 3, 1))[0],
                "status": self.rng.choices(("active", "suspended", "closed"), (18, 1, 1))[0],
                "created_at": iso(self.past(30, 1500)),
            })

    def addresses(self) -> None:
        for party in self.rows["party"]:
            for n in range(self.rng.choice((1, 1, 2))):
                self.add("address", {
                    self.fk("party"): party["id"],
                    "kind": ("home", "billing", "work")[n] if n else "home",
                    "street": self.fake.street_address(),
                    "city": party["city"],
                    "postal_code": self.fake.zipcode(),
                    "is_primary": 1 if n == 0 else 0,
                })

    def staff(self) -> None:
        label = self.plan["staff"].label
        sites = self.ids("site")
        depts = self.rows.get("department", [])
        for i in range(self.rng.randint(9, 14)):
            first, last = self.fake.first_name(), self.fake.last_name()
            site = sites[i % len(sites)]
            row = {
                "first_name": first,
                "last_name": last,
                "email": self.email(first, last),
                "title": f"{self.rng.choice(_TITLES)} {label.title()}",
                self.fk("site"): site,
            }
            if self.has("department"):
                local = [d["id"] for d in depts if d[self.fk("site")] == site]
                row[self.fk("department")] = self.rng.choice(local)
            row["active"] = 0 if i == 5 else 1
            row["hired_on"] = day(self.past(60, 3000))
            self.add("staff", row)

    def promotions(self) -> None:
        words = ("SPRING", "WELCOME", "LOYAL", "SUMMER", "VIP", "FLASH", "BUNDLE")
        for i, word in enumerate(self.rng.sample(words, 6)):
            expired = i == 4
            self.add("promotion", {
                "code": f"{word}{self.rng.randint(10, 40)}",
                "description": f"{word.title()} discount",
                "percent_off": float(self.rng.choice((5, 10, 15, 20, 25))),
                "valid_from": day(self.past(120, 200)),
                "valid_to": day(self.past(5, 30) if expired else self.future(30, 120)),
                "active": 0 if i == 5 else 1,
            })

    def cases(self) -> None:
        fl = self.plan.flavour
        prefix = code_prefix(self.plan["case"].label)
        parties = [p["id"] for p in self.rows["party"] if p["status"] == "active"]
        staff = [s for s in self.rows["staff"] if s["active"]]
        items = [i for i in self.rows["item"] if i["active"]]
        weights = [5, 4, 3, 4, 2, 1][: len(fl.statuses)]
        self.rng.shuffle(parties)
        for n in range(self.rng.randint(44, 60)):
            status = self.rng.choices(fl.statuses, weights)[0]
            party = parties[n % len(parties)] if n < 2 * len(parties) else self.rng.choice(parties)
            site = self.rng.choice(self.rows["site"])["id"]
            assigned = None
            if status != fl.initial or self.rng.random() < 0.3:
                assigned = self.rng.choice(staff)["id"]
            created = self.past(3, 300)
            if fl.name in ("appointment", "reservation") and status in fl.editable:
                when = self.future(2, 60)
            else:
                when = created + timedelta(hours=self.rng.randint(1, 72))
            case = self.add("case", {
                "code": f"{prefix}-{1001 + n}",
                self.fk("party"): party,
                self.fk("site"): site,
                self.fk("staff"): assigned,
                "status": status,
                fl.time_column: iso(when),
                "total_amount": 0.0,
            })
            total = 0.0
            for item in self.rng.sample(items, self.rng.choice((1, 1, 2, 2, 3))):
                qty = self.rng.choice((1, 1, 1, 2, 3))
                self.add("line", {self.fk("case"): case["id"], self.fk("item"): item["id"],
                                  "quantity": qty, "unit_price": item["price"]})
                total += qty * item["price"]
            if self.has("promotion"):
                case[self.fk("promotion")] = None
                case["discount_amount"] = 0.0
            case["total_amount"] = round(total, 2)
            case["created_at"] = iso(created)

    def payments(self) -> None:
        fl = self.plan.flavour
        cancelled = fl.cancel.target
        for case in self.rows["case"]:
            status = case["status"]
            if status == fl.initial and self.rng.random() < 0.4:
                continue
            if status == cancelled:
                pay_status = self.rng.choice(("refunded", "captured"))
            elif status == fl.initial:
                pay_status = self.rng.choice(("pending", "captured"))
            else:
                pay_status = self.rng.choices(("captured", "failed"), (9, 1))[0]
            paid = datetime.fromisoformat(case["created_at"]) + timedelta(minutes=self.rng.randint(5, 600))
            self.add("payment", {
                self.fk("case"): case["id"],
                "amount": case["total_amount"],
                "method": self.rng.choice(("card", "card", "bank_transfer", "cash", "wallet")),
                "status": pay_status,
                "paid_at": iso(paid),
                "refund_reason": "cancelled before service" if pay_status == "refunded" else None,
            })

    def notes(self) -> None:
        staff = self.ids("staff")
        for case in self.rows["case"]:
            for _ in range(self.rng.choice((0, 0, 1, 2))):
                created = datetime.fromisoformat(case["created_at"]) + timedelta(hours=self.rng.randint(1, 48))
                self.add("note", {
                    self.fk("case"): case["id"],
                    self.fk("staff"): self.rng.choice(staff),
                    "body": self.rng.choice(_NOTE_LINES),
                    "created_at": iso(min(created, REFERENCE_NOW)),
                })

    def invoices(self) -> None:
        prefix = code_prefix(self.plan["invoice"].label)
        n = 0
        for case in self.rows["case"]:
            if self.rng.random() < 0.45:
                continue
            issued = datetime.fromisoformat(case["created_at"])
            due = issued + timedelta(days=30)
            if due < REFERENCE_NOW:
                status = self.rng.choices(("paid", "overdue", "void"), (6, 2, 1))[0]
            else:
                status = self.rng.choices(("open", "paid"), (3, 1))[0]
            n += 1
            self.add("invoice", {
                "number": f"{prefix}-{5000 + n}",
                self.fk("party"): case[self.fk("party")],
                self.fk("case"): case["id"],
                "amount": case["total_amount"],
                "issued_on": day(issued),
                "due_on": day(due),
                "status": status,
            })

    def accounts(self) -> None:
        n = 0
        for party in self.rows["party"]:
            kinds = self.rng.sample(("checking", "savings", "credit", "wallet"), self.rng.choice((1, 2, 2, 3)))
            for kind in kinds:
                n += 1
                account = self.add("account", {
                    "number": f"AC{700000 + n * 37}",
                    self.fk("party"): party["id"],
                    "kind": kind,
                    "balance": 0.0,
                    "currency": "USD",
                    "status": "frozen" if self.rng.random() < 0.08 else "active",
                    "opened_on": day(self.past(200, 2000)),
                })
                balance = 0.0
                for _ in range(self.rng.randint(2, 4)):
                    kind_ = self.rng.choices(("deposit", "withdrawal", "fee"), (5, 3, 1))[0]
                    amount = self.money(20, 2500)
                    if kind_ != "deposit":
                        amount = -min(amount, round(balance, 2))
                        if kind_ == "fee":
                            amount = -min(15.0, round(balance, 2))
                    balance = round(balance + amount, 2)
                    self.add("account_entry", {
                        self.fk("account"): account["id"],
                        "amount": amount,
                        "entry_type": kind_,
                        "memo": f"{kind_} via {self.rng.choice(('branch', 'online', 'mobile', 'atm'))}",
                        "posted_at": iso(self.past(1, 190)),
                    })
                account["balance"] = balance

    def documents(self) -> None:
        fl = self.plan.flavour
        for case in self.rows["case"]:
            status = case["status"]
            if status == fl.initial and fl.name != "application":
                continue
            for _ in range(self.rng.choice((1, 2, 2, 3))):
                if status in ("approved", "completed", "closed", "delivered", "checked_out"):
                    doc_status = "verified"
                else:
                    doc_status = self.rng.choices(("submitted", "verified", "rejected"), (5, 4, 1))[0]
                doc_type = self.rng.choice(_DOC_TYPES)
                self.add("document", {
                    self.fk("case"): case["id"],
                    "doc_type": doc_type,
                    "filename": f"{case['code'].lower()}-{doc_type.replace(' ', '-')}.pdf",
                    "status": doc_status,
                    "uploaded_at": case["created_at"],
                    "review_comment": "illegible scan" if doc_status == "rejected" else None,
                })

    def reviews(self) -> None:
        parties = self.ids("party")
        items = self.ids("item")
        for _ in range(self.rng.randint(30, 45)):
            rating = self.rng.choices((1, 2, 3, 4, 5), (1, 1, 2, 4, 4))[0]
            self.add("review", {
                self.fk("party"): self.rng.choice(parties),
                self.fk("item"): self.rng.choice(items),
                "rating": rating,
                "comment": ("Excellent", "Good value", "As expected", "Could be better", "Disappointing")[5 - rating],
                "created_at": iso(self.past(1, 365)),
            })

    def procurement(self) -> None:
        for _ in range(5):
            name = self.fake.company()
            while any(v["name"] == name for v in self.rows.get("vendor", [])):
                name = self.fake.company()
            self.add("vendor", {"name": name, "email": f"sales@{name.split()[0].lower().strip(',')}.example",
                                "phone": self.phone(), "rating": self.rng.randint(2, 5)})
        prefix = code_prefix(self.plan["purchase_order"].label)
        items = self.rows["item"]
        statuses = ("draft", "submitted", "submitted", "approved", "received", "cancelled")
        for n in range(self.rng.randint(10, 14)):
            po = self.add("purchase_order", {
                "number": f"{prefix}-{301 + n}",
                self.fk("vendor"): self.rng.choice(self.ids("vendor")),
                self.fk("site"): self.rng.choice(self.ids("site")),
                "status": statuses[n % len(statuses)],
                "total_cost": 0.0,
                "ordered_on": day(self.past(1, 90)),
            })
            total = 0.0
            for item in self.rng.sample(items, self.rng.choice((1, 2, 3))):
                qty = self.rng.choice((5, 10, 12, 20, 24))
                cost = round(item["price"] * 0.55, 2)
                self.add("purchase_line", {self.fk("purchase_order"): po["id"], self.fk("item"): item["id"],
                                           "quantity": qty, "unit_cost": cost})
                total += qty * cost
            po["total_cost"] = round(total, 2)

    def stock(self) -> None:
        for item in self.rows["item"]:
            for site in self.rows["site"]:
                if self.rng.random() < 0.15:
                    continue
                self.add("stock_level", {self.fk("item"): item["id"], self.fk("site"): site["id"],
                                         "quantity": self.rng.randint(0, 80),
                                         "reorder_level": self.rng.choice((5, 10, 15))})

    def tickets(self) -> None:
        prefix = code_prefix(self.plan["ticket"].label)
        staff = [s["id"] for s in self.rows["staff"] if s["active"]]
        parties = self.ids("party")
        for n in range(self.rng.randint(14, 20)):
            status = self.rng.choices(("open", "in_progress", "escalated", "resolved", "closed"), (4, 2, 1, 2, 2))[0]
            ticket = self.add("ticket", {
                "number": f"{prefix}-{801 + n}",
                self.fk("party"): self.rng.choice(parties),
                self.fk("staff"): None if status == "open" else self.rng.choice(staff),
                "subject": self.rng.choice(_TICKET_SUBJECTS),
                "priority": self.rng.choice(("low", "normal", "normal", "high", "urgent")),
                "status": status,
                "opened_at": iso(self.past(1, 120)),
            })
            for _ in range(self.rng.choice((0, 1, 2))):
                self.add("ticket_comment", {self.fk("ticket"): ticket["id"],
                                            self.fk("staff"): ticket[self.fk("staff")],
                                            "body": self.rng.choice(_NOTE_LINES), "created_at": ticket["opened_at"]})

    def notifications(self) -> None:
        for _ in range(self.rng.randint(15, 25)):
            self.add("notification", {self.fk("party"): self.rng.choice(self.ids("party")),
                                       "channel": self.rng.choice(("email", "sms", "push")),
                                       "subject": "Update on your account",
                                       "body": self.rng.choice(_NOTE_LINES),
                                       "sent_at": iso(self.past(1, 200))})

    def subscriptions(self) -> None:
        items = [i for i in self.rows["item"] if i["active"]]
        for _ in range(self.rng.randint(14, 22)):
            item = self.rng.choice(items)
            status = self.rng.choices(("active", "paused", "cancelled"), (6, 2, 2))[0]
            started = self.past(30, 700)
            self.add("subscription", {
                self.fk("party"): self.rng.choice(self.ids("party")),
                self.fk("item"): item["id"],
                "status": status,
                "monthly_price": round(item["price"] / 10, 2),
                "started_on": day(started),
                "renews_on": None if status == "cancelled" else day(self.future(1, 30)),
            })

    def shifts(self) -> None:
        staff = self.rows["staff"]
        for _ in range(self.rng.randint(24, 36)):
            person = self.rng.choice(staff)
            past = self.rng.random() < 0.6
            when = self.past(1, 30) if past else self.future(1, 21)
            start = self.rng.choice((7, 8, 9, 12, 14))
            self.add("shift", {
                self.fk("staff"): person["id"],
                self.fk("site"): person[self.fk("site")],
                "shift_date": day(when),
                "start_time": f"{start:02d}:00",
                "end_time": f"{start + 8:02d}:00",
                "status": self.rng.choices(("completed", "missed"), (9, 1))[0] if past else "scheduled",
            })

    def loyalty(self) -> None:
        for party in self.rows["party"]:
            if self.rng.random() < 0.3:
                continue
            account = self.add("loyalty_account", {self.fk("party"): party["id"], "points": 0,
                                                   "tier": self.rng.choice(("bronze", "silver", "gold", "platinum"))})
            points = 0
            for _ in range(self.rng.randint(1, 3)):
                earned = self.rng.randint(5, 60) * 10
                points += earned
                self.add("loyalty_entry", {self.fk("loyalty_account"): account["id"], "points": earned,
                                           "reason": "purchase reward", "posted_at": iso(self.past(1, 300))})
            account["points"] = points

    def build(self) -> Rows:
        steps = [
            ("site", self.sites), ("department", self.departments), ("category", self.categories),
            ("item", self.items), ("party", self.parties), ("address", self.addresses),
            ("staff", self.staff), ("promotion", self.promotions), ("case", self.cases),
            ("payment", self.payments), ("note", self.notes), ("invoice", self.invoices),
            ("account", self.accounts), ("document", self.documents), ("review", self.reviews),
            ("vendor", self.procurement), ("stock_level", self.stock), ("ticket", self.tickets),
            ("notification", self.notifications), ("subscription", self.subscriptions),
            ("shift", self.shifts), ("loyalty_account", self.loyalty),
        ]
        for role, step in steps:
            if self.has(role):
                step()
        # column order follows the plan, so every row has exactly the table's columns
        out: Rows = {}
        for role, entity in self.plan.entities.items():
            names = [c.name for c in entity.columns]
            out[role] = [{n: row.get(n) for n in names} for row in self.rows.get(role, [])]
        return out


def generate_rows(plan: WorldPlan) -> Rows:
    """Rows for every table of the plan, keyed by role; identical for identical scenarios."""
    return _Gen(plan).build()
