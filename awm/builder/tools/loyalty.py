"""The loyalty tools: awarding and redeeming points."""

from __future__ import annotations

from awm.builder.templates.tools import loyalty as templates
from awm.builder.tools.base import Param, ToolBuilder, integer, string

ROLE = "loyalty_account"


def declare(b: ToolBuilder) -> None:
    la = b.ent("loyalty_account")
    b.list_tool("loyalty_account")
    b.list_tool("loyalty_entry")
    for verb, desc in (("award", "Add points to a {label}."), ("redeem", "Take points from a {label}; cannot take more than it holds.")):
        b.add(b.names.points(verb), desc.format(label=la.label),
              [b.id_param("loyalty_account"), Param("points", {**integer("how many points", 1), "maximum": 100000}, True),
               Param("reason", string("why"), True)],
              templates, f"{verb}_points", role="loyalty_account", kind="action")
