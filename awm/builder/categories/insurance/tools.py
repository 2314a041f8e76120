"""The tools of an insurer's own entities (awm/builder/modules/packs/insurance.py): policies, premium
installments, beneficiaries; each with the rules its template enforces."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.categories.insurance import templates
from awm.builder.categories.insurance.entities import RELATIONSHIPS, RENEWAL_WINDOW_DAYS
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.tools.base import Param, ToolBuilder, integer, string

ROLES = ("policy",)


def declare(b: ToolBuilder) -> None:
    p = b.ent("policy")
    b.get_tool("policy", ("installment", "beneficiary"))
    b.list_tool("policy")
    b.status_action("policy", "cancel", ("quoted", "active"), "cancelled", f"Cancel a {p.label}, giving the reason.",
                    [Param("reason", string("why"), True)], '{"cancel_reason": reason}')
    b.add(b.names.action("policy", "renew"),
          f"Renew an active {p.label} for one more year; only in the last {RENEWAL_WINDOW_DAYS} days of its term.",
          [b.id_param("policy")], templates, "renew_POLICY", role="policy", kind="action",
          CUTOFF=day(REFERENCE_NOW + timedelta(days=RENEWAL_WINDOW_DAYS)), WINDOW_TEXT=str(RENEWAL_WINDOW_DAYS))
    if b.has("installment"):
        i = b.ent("installment")
        b.list_tool("installment")
        b.status_action("installment", "pay", ("due", "overdue"), "paid", f"Record payment of a {i.label}.",
                        extra='{"paid_on": TODAY}')
        b.status_action("installment", "waive", ("overdue",), "waived", f"Waive an overdue {i.label}.")
    if b.has("beneficiary"):
        be = b.ent("beneficiary")
        b.list_tool("beneficiary")
        b.add(b.names.create("beneficiary"),
              f"Name a {be.label} on an active {p.label} with a share; the shares on one {p.label} may not exceed 100.",
              [b.id_param("policy"), Param("full_name", string("the person's full name"), True),
               Param("relationship", string("relationship to the policyholder", RELATIONSHIPS), True),
               Param("share_percent", {**integer("percent of the benefit", 1), "maximum": 100}, True)],
              templates, "create_BENEFICIARY", role="beneficiary", kind="create")
        b.delete_tool("beneficiary", f"Remove a {be.label}.")
