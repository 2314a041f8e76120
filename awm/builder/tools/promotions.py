"""The promotion tools: applying a promotion code to a case."""

from __future__ import annotations

from awm.builder.templates.tools import promotions as templates
from awm.builder.tools.base import Param, ToolBuilder, string

ROLE = "promotion"


def declare(b: ToolBuilder) -> None:
    pr, c = b.ent("promotion"), b.ent("case")
    editable = tuple(b.plan.flavour.editable)
    b.list_tool("promotion")
    b.add(b.names.action("promotion", "apply"),
          f"Apply an active, currently valid {pr.label} code to a {c.label} that is still "
          f"{' or '.join(editable)} and has none yet; the discount comes off its total.",
          [b.id_param("case"), Param("code", string(f"{pr.label} code"), True)],
          templates, "apply_PROMOTION", role="promotion", kind="action", EDITABLE=editable)
