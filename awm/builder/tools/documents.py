"""The document tools: verifying or rejecting a submitted document."""

from __future__ import annotations

from awm.builder.tools.base import Param, ToolBuilder, string

ROLE = "document"


def declare(b: ToolBuilder) -> None:
    d = b.ent("document")
    b.list_tool("document")
    b.status_action("document", "verify", ("submitted",), "verified", f"Verify a submitted {d.label}.")
    b.status_action("document", "reject", ("submitted",), "rejected", f"Reject a submitted {d.label}.",
                    [Param("comment", string("why it is rejected"), True)], '{"review_comment": comment}')
