"""Recurring plans parties hold."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.catalogue.kinds import subscribable
from awm.builder.clock import day
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

MODULE = "subscriptions"
ROLES = ("subscription",)


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The subscription tables, named in the domain's words."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    ents["subscription"] = Entity(
        "subscription",
        L["subscription"],
        [
            pk_col(),
            fk_col(L, "party"),
            fk_col(L, "item"),
            Col("status", "TEXT", enum=("active", "paused", "cancelled")),
            Col("monthly_price", "REAL", minimum=0),
            Col("started_on", "TEXT"),
            Col("renews_on", "TEXT", nullable=True),
        ],
        f"Recurring plans {plural(L['party'])} hold.",
        filters=(party_fk, f"{snake(L['item'])}_id", "status"),
    )
    return ents


def subscribable_items(rows: dict, item_kind: str, labels: dict[str, str]) -> list[dict]:
    """The active items a subscription may be to (awm.builder.catalogue.kinds.subscribable)."""
    label = labels.get("subscription", "subscription")
    return [i for i in rows["item"] if i["active"] and subscribable(i["name"], item_kind, label)]


def fill_subscriptions(gen: RowGen) -> None:
    items = subscribable_items(gen.rows, gen.sc.item_kind, gen.sc.labels)
    if not items and gen.sc.builtin:  # the world builder only gives subscriptions to worlds whose items fit them
        raise ValueError(f"{gen.sc.env_id}: subscriptions, but none of its items may be subscribed to (its "
                         f"{gen.sc.labels.get('subscription', 'subscription')}s would hold one-off items)")
    # a scenario written elsewhere (a model, a seeds file) keeps the modules it chose: its items as they are
    items = items or [i for i in gen.rows["item"] if i["active"]]
    for _ in range(gen.rng.randint(14, 22)):
        item = gen.rng.choice(items)
        status = gen.rng.choices(("active", "paused", "cancelled"), (6, 2, 2))[0]
        started = gen.past(30, 700)
        gen.add(
            "subscription",
            {
                gen.fk("party"): gen.rng.choice(gen.ids("party")),
                gen.fk("item"): item["id"],
                "status": status,
                "monthly_price": round(item["price"] / 10, 2),
                "started_on": day(started),
                "renews_on": None if status == "cancelled" else day(gen.future(1, 30)),
            },
        )


FILL = {"subscription": fill_subscriptions}
