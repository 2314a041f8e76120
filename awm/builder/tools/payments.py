"""The payment tools: recording a payment against a case, refunding it."""

from __future__ import annotations

from awm.builder.templates.tools import payments as templates
from awm.builder.tools.base import Param, ToolBuilder, integer, number, string


def declare(b: ToolBuilder) -> None:
    fl = b.plan.flavour
    pay, c = b.ent("payment"), b.ent("case")
    b.list_tool("payment")
    cancelled = fl.cancel.target
    b.add(b.names.create("payment"), f"Record a captured payment against a {c.label} that is not {cancelled}.",
          [b.id_param("case"), Param("amount", number("amount paid", 0, True), True),
           Param("method", string("payment method", ("card", "bank_transfer", "cash", "wallet")), True)],
          templates, "record_PAYMENT", role="payment", kind="create", CANCELLED=cancelled)
    b.add(b.names.action("payment", "refund"),
          f"Refund a captured {pay.label}. Only allowed once its {c.label} is {' or '.join(fl.refundable)}.",
          [Param(f"{pay.name}_id", integer(f"id of the {pay.label}"), True), Param("reason", string("why"), True)],
          templates, "refund_PAYMENT", role="payment", kind="action",
          REFUNDABLE=fl.refundable, REFUNDABLE_TEXT=" or ".join(fl.refundable))
