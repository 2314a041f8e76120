"""Lifecycles a case follows: its statuses, its actions, and the rules between them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Action:
    verb: str  # tool verb, e.g. "cancel" -> cancel_order
    sources: tuple[str, ...]  # statuses it may start from
    target: str  # status it leads to
    description: str
    needs_staff: bool = False  # the action assigns a staff member
    needs_time: bool = False  # the action sets a new scheduled time
    requires_verified_documents: bool = False
    window_days: int | None = None  # only within this many days of the case's time column


@dataclass(frozen=True)
class Flavour:
    name: str
    statuses: tuple[str, ...]
    initial: str
    actions: tuple[Action, ...]
    refundable: tuple[str, ...]  # statuses in which a captured payment may be refunded
    editable: tuple[str, ...]  # statuses in which lines may be added
    time_column: str
    forward: tuple[str, ...]  # verbs of the happy path, in order
    open: tuple[str, ...] = ()  # statuses in which work on a case remains (its staff member still has it)

    def action(self, verb: str) -> Action:
        for a in self.actions:
            if a.verb == verb:
                return a
        raise KeyError(f"flavour {self.name} has no action {verb}")

    @property
    def once(self) -> bool:
        """Whether a case takes each item once (a booked service, an application's programme): a line's quantity
        is 1; goods and reservations may be several."""
        return self.name in ("appointment", "application")

    @property
    def attended(self) -> bool:
        """Whether a case is a time the person comes to (an appointment, a reservation): they "can no longer make
        it", and book elsewhere; an order, a work order or an application is no longer needed."""
        return self.name in ("appointment", "reservation")

    @property
    def paid_at_first(self) -> bool:
        """Whether a case may already be paid at its first status (an order at checkout, a booking's deposit); a
        draft application is not yet submitted, and nothing is paid on it."""
        return self.name != "application"

    @property
    def cancel(self) -> Action:
        return self.action(next(a.verb for a in self.actions if a.target in ("cancelled", "withdrawn")))


FLAVOURS: dict[str, Flavour] = {
    "fulfillment": Flavour(
        name="fulfillment",
        statuses=("pending", "confirmed", "shipped", "delivered", "cancelled", "returned"),
        initial="pending",
        actions=(
            Action("confirm", ("pending",), "confirmed", "Confirm a pending {case}."),
            Action("ship", ("confirmed",), "shipped", "Mark a confirmed {case} as shipped."),
            Action("deliver", ("shipped",), "delivered", "Mark a shipped {case} as delivered."),
            Action("cancel", ("pending", "confirmed"), "cancelled", "Cancel a {case} that has not shipped yet."),
            Action("return", ("delivered",), "returned",
                   "Record the return of a delivered {case}, within 30 days of when it was placed.", window_days=30),
        ),
        refundable=("cancelled", "returned"),
        editable=("pending", "confirmed"),
        time_column="placed_at",
        forward=("confirm", "ship", "deliver"),
        open=("pending", "confirmed", "shipped"),
    ),
    # a purchase of access, not of goods (a streaming rental, a hosting plan, an online course, a fare, a trade): it
    # is activated, not shipped, and revoked within its refund window, not returned
    "digital": Flavour(
        name="digital",
        statuses=("pending", "confirmed", "activated", "completed", "cancelled", "revoked"),
        initial="pending",
        actions=(
            Action("confirm", ("pending",), "confirmed", "Confirm a pending {case}."),
            Action("activate", ("confirmed",), "activated", "Activate a confirmed {case}: the access it buys starts."),
            Action("complete", ("activated",), "completed", "Mark an activated {case} as completed: its access has "
                   "run its course."),
            Action("cancel", ("pending", "confirmed"), "cancelled", "Cancel a {case} that has not been activated yet."),
            Action("revoke", ("activated",), "revoked",
                   "Revoke an activated {case} and end its access, within 14 days of when it was placed.",
                   window_days=14),
        ),
        refundable=("cancelled", "revoked"),
        editable=("pending", "confirmed"),
        time_column="placed_at",
        forward=("confirm", "activate", "complete"),
        open=("pending", "confirmed", "activated"),
    ),
    "appointment": Flavour(
        name="appointment",
        statuses=("requested", "scheduled", "checked_in", "completed", "cancelled", "no_show"),
        initial="requested",
        actions=(
            Action("schedule", ("requested",), "scheduled", "Schedule a requested {case}."),
            Action("check_in", ("scheduled",), "checked_in", "Check in a scheduled {case}."),
            Action("complete", ("checked_in",), "completed", "Complete a checked-in {case}."),
            Action("cancel", ("requested", "scheduled"), "cancelled", "Cancel a {case} that has not started."),
            Action("mark_no_show", ("scheduled",), "no_show", "Mark a scheduled {case} as a no-show."),
            Action(
                "reschedule",
                ("requested", "scheduled"),
                "scheduled",
                "Move a {case} that has not started to a new time.",
                needs_time=True,
            ),
        ),
        refundable=("cancelled",),
        editable=("requested", "scheduled"),
        time_column="scheduled_for",
        forward=("schedule", "check_in", "complete"),
        open=("requested", "scheduled", "checked_in"),
    ),
    "application": Flavour(
        name="application",
        statuses=("draft", "submitted", "under_review", "approved", "rejected", "withdrawn"),
        initial="draft",
        actions=(
            Action("submit", ("draft",), "submitted", "Submit a draft {case}."),
            Action("start_review", ("submitted",), "under_review", "Start reviewing a submitted {case}."),
            Action(
                "approve",
                ("under_review",),
                "approved",
                "Approve a {case} under review; every document on it must be verified first.",
                requires_verified_documents=True,
            ),
            Action("reject", ("under_review",), "rejected", "Reject a {case} under review."),
            Action(
                "withdraw",
                ("draft", "submitted", "under_review"),
                "withdrawn",
                "Withdraw a {case} that has not been decided.",
            ),
        ),
        refundable=("rejected", "withdrawn"),
        editable=("draft", "submitted"),
        time_column="submitted_at",
        forward=("submit", "start_review", "approve"),
        open=("draft", "submitted", "under_review"),
    ),
    "service": Flavour(
        name="service",
        statuses=("open", "assigned", "in_progress", "resolved", "closed", "cancelled"),
        initial="open",
        actions=(
            Action("start", ("assigned",), "in_progress", "Start work on an assigned {case}."),
            Action("resolve", ("in_progress",), "resolved", "Resolve a {case} in progress."),
            Action("close", ("resolved",), "closed", "Close a resolved {case}."),
            Action("cancel", ("open", "assigned"), "cancelled", "Cancel a {case} before work starts."),
            Action("reopen", ("resolved",), "in_progress", "Reopen a resolved {case}."),
        ),
        refundable=("cancelled",),
        editable=("open", "assigned"),
        time_column="opened_at",
        forward=("start", "resolve", "close"),
        open=("open", "assigned", "in_progress"),
    ),
    "reservation": Flavour(
        name="reservation",
        statuses=("held", "confirmed", "checked_in", "checked_out", "cancelled"),
        initial="held",
        actions=(
            Action("confirm", ("held",), "confirmed", "Confirm a held {case}."),
            Action("check_in", ("confirmed",), "checked_in", "Check in a confirmed {case}."),
            Action("check_out", ("checked_in",), "checked_out", "Check out a checked-in {case}."),
            Action("cancel", ("held", "confirmed"), "cancelled", "Cancel a {case} before check-in."),
            Action(
                "reschedule",
                ("held", "confirmed"),
                "confirmed",
                "Move a {case} before check-in to a new start time.",
                needs_time=True,
            ),
        ),
        refundable=("cancelled",),
        editable=("held", "confirmed"),
        time_column="starts_at",
        forward=("confirm", "check_in", "check_out"),
        open=("held", "confirmed", "checked_in"),
    ),
}
