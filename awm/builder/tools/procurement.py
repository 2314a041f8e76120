"""The procurement tools: vendors, purchase orders and their lines, receiving an order into stock."""

from __future__ import annotations

from awm.builder.templates.tools import procurement as templates
from awm.builder.tools.base import Param, ToolBuilder, integer

ROLE = "vendor"


def declare(b: ToolBuilder) -> None:
    po = b.ent("purchase_order")
    vendor, site, item = b.ent("vendor"), b.ent("site"), b.ent("item")
    b.list_tool("vendor")
    b.get_tool("purchase_order", ("purchase_line",))
    b.list_tool("purchase_order")
    b.add(b.names.create("purchase_order"),
          f"Start a draft {po.label} with a {vendor.label} for a {site.label}; add lines, then submit it.",
          [b.id_param("vendor"), b.id_param("site")],
          templates, "create_PURCHASE_ORDER", role="purchase_order", kind="create")
    b.add(b.names.create("purchase_line"),
          f"Add a {item.label} to a draft {po.label}; the unit cost is 55% of the {item.label}'s price and the "
          "order's total cost is updated.",
          [b.id_param("purchase_order"), b.id_param("item"),
           Param("quantity", {**integer("how many units", 1), "maximum": 10000}, True)],
          templates, "add_PURCHASE_LINE", role="purchase_line", kind="create")
    b.status_action("purchase_order", "submit", ("draft",), "submitted", f"Submit a draft {po.label}.")
    b.status_action("purchase_order", "approve", ("submitted",), "approved", f"Approve a submitted {po.label}.")
    b.status_action("purchase_order", "cancel", ("draft", "submitted"), "cancelled",
                    f"Cancel a {po.label} that is not approved yet.")
    stocked = b.has("stock_level")
    b.status_action("purchase_order", "receive", ("approved",), "received",
                    f"Record delivery of an approved {po.label}"
                    + ("; its quantities are added to stock at its site." if stocked else "."),
                    template=templates, function="receive_PURCHASE_ORDER", HAS_STOCK=stocked)
