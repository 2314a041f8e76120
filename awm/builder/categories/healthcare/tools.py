"""The tools of a clinic's own entities (awm/builder/modules/packs/healthcare.py): appointment slots, clinical
procedures, insurance claims; each with the rules its template enforces."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.categories.healthcare import templates
from awm.builder.categories.healthcare.entities import DENIAL_REASONS, FILING_WINDOW_DAYS
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.tools.base import Param, ToolBuilder, number, string

ROLES = ("slot", "procedure", "insurance_claim")


def declare(b: ToolBuilder) -> None:
    fl = b.plan.flavour
    if b.has("slot"):
        s, c, st = b.ent("slot"), b.ent("case"), b.ent("staff")
        b.list_tool("slot")
        b.status_action("slot", "block", ("open",), "blocked", f"Block an open {s.label} so it cannot be booked.",
                        [Param("reason", string("why"), True)], '{"block_reason": reason}')
        b.status_action("slot", "reopen", ("blocked",), "open", f"Make a blocked {s.label} bookable again.",
                        extra='{"block_reason": None}')
        b.add(b.names.action("slot", "book"),
              f"Book a {c.label} that is still {' or '.join(fl.editable)} into an open {s.label}: the {c.label} "
              f"takes the slot's time and {st.label}, and the {s.label} becomes booked.",
              [b.id_param("slot"), b.id_param("case")], templates, "book_SLOT", role="slot", kind="action",
              EDITABLE=tuple(fl.editable), TIME_COLUMN=fl.time_column)
    if b.has("procedure"):
        p, c, i, st = b.ent("procedure"), b.ent("case"), b.ent("item"), b.ent("staff")
        b.list_tool("procedure")
        b.add(b.names.create("procedure"),
              f"Plan a {p.label} at a {c.label} that is not cancelled, by its {st.label}; the fee is the "
              f"{i.label}'s price.",
              [b.id_param("case"), b.id_param("item"), Param("procedure_code", string("the procedure's code"), True),
               Param("body_site", string("where on the body"))],
              templates, "create_PROCEDURE", role="procedure", kind="create")
        b.status_action("procedure", "perform", ("planned",), "performed",
                        f"Record a planned {p.label} as performed today.", extra='{"performed_on": TODAY}')
        b.status_action("procedure", "cancel", ("planned",), "cancelled", f"Cancel a planned {p.label}.")
    if b.has("insurance_claim"):
        ic = b.ent("insurance_claim")
        b.get_tool("insurance_claim")
        b.list_tool("insurance_claim")
        b.add(b.names.action("insurance_claim", "submit"),
              f"Submit a draft {ic.label} to its insurer; only within {FILING_WINDOW_DAYS} days of the service date.",
              [b.id_param("insurance_claim")], templates, "submit_INSURANCE_CLAIM", role="insurance_claim",
              kind="action", CUTOFF=day(REFERENCE_NOW - timedelta(days=FILING_WINDOW_DAYS)),
              WINDOW_TEXT=str(FILING_WINDOW_DAYS))
        b.add(b.names.action("insurance_claim", "approve"),
              f"Record the insurer's approval of a submitted {ic.label}, for at most the amount claimed.",
              [b.id_param("insurance_claim"),
               Param("amount_approved", number("amount the insurer approved", 0, True), True)],
              templates, "approve_INSURANCE_CLAIM", role="insurance_claim", kind="action")
        b.status_action("insurance_claim", "deny", ("submitted",), "denied",
                        f"Record that the insurer denied a {ic.label}.",
                        [Param("reason", string("why it was denied", DENIAL_REASONS), True)], '{"denial_reason": reason}')
        b.status_action("insurance_claim", "mark_paid", ("approved",), "paid",
                        f"Record payment of an approved {ic.label}.")
