"""The notification tools: sending a message to a party."""

from __future__ import annotations

from awm.builder.templates.tools import notifications as templates
from awm.builder.tools.base import Param, ToolBuilder, string

ROLE = "notification"


def declare(b: ToolBuilder) -> None:
    nt, p = b.ent("notification"), b.ent("party")
    b.list_tool("notification")
    b.add(b.names.create("notification"), f"Send a {nt.label} to a {p.label}.",
          [b.id_param("party"), Param("channel", string("how to send it", ("email", "sms", "push")), True),
           Param("subject", string("subject line"), True), Param("body", string("message text"), True)],
          templates, "send_NOTIFICATION", role="notification", kind="create")
