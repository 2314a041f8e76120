"""Free text of the sample rows, composed from what the business is about.

Notes, ticket comments, review comments, rejection and refund reasons are built from templates
filled with the environment's own labels (patient, dentist, appointment), its catalogue items and its
category pack's topics and refund reasons (packs/<category>.yaml), so a bank's refund reads "fee
charged in error", not "duplicate booking", and a category's environments hold well over 50 distinct
bodies between them.
"""

from __future__ import annotations

import random

from awm.builder.catalogue import PACKS
from awm.builder.catalogue.kinds import ITEM_KINDS
from awm.contracts import Scenario

TITLES = ("Senior", "Lead", "Junior", "Associate", "Principal")
DOC_TYPES = ("identity proof", "signed form", "invoice copy", "photo evidence", "contract", "certificate")

_GENERIC_TOPICS = ("the contact details", "the agreed price", "the requested date", "the paperwork on file")
_FLAVOUR_REFUNDS = {
    "fulfillment": ("{case} cancelled before it shipped", "{item} returned in its original condition"),
    "digital": ("{case} cancelled before it was activated", "access to {item} revoked within the refund window"),
    "appointment": ("{case} cancelled with more than 24 hours notice", "{staff} unavailable on the booked day"),
    "application": ("{case} withdrawn before a decision", "fee charged twice for one {case}"),
    "service": ("work on the {case} not completed as quoted", "{case} cancelled before the visit"),
    "reservation": ("{case} cancelled within the free cancellation window", "{case} changed by the {site}"),
}
_NOTES = (
    "Called the {party} about {topic}.",
    "{Party} asked about {topic} for the {item}.",
    "Checked {topic} before confirming the {case}.",
    "Left a voicemail for the {party} about {topic}.",
    "Emailed the {party} a summary of {topic}.",
    "{Party} confirmed {topic} in person at the {site}.",
    "Reminder: {topic} still outstanding for the {item}.",
    "Reviewed {topic} with the {staff}; nothing missing.",
    "{Party} prefers a phone call about the {item}.",
    "Updated the {case} after the {party} clarified {topic}.",
)
_TICKET_SUBJECTS = (
    "Question about {topic}",
    "Problem with my {item}",
    "Need to change {topic}",
    "Complaint about my visit to the {site}",
    "Cannot find my {case} confirmation",
    "Price of the {item}",
)
_TICKET_COMMENTS = (
    "Replied to the {party} about {topic}.",
    "Escalated to a senior {staff}.",
    "Asked the {party} for more detail on the {item}.",
    "Confirmed the fix with the {party}.",
    "Waiting for the {party} to send {topic}.",
    "Checked the {case} history for the {item}.",
)
_REVIEWS = {
    5: ("The {item} was excellent.", "Great {item}; the {staff} was very helpful.", "Would choose the {item} again."),
    4: ("Good {item}, a short wait at the {site}.", "Solid {item} for the price.", "The {item} was good overall."),
    3: (
        "The {item} was fine, nothing special.",
        "An average experience with the {item}.",
        "The {item} was as described.",
    ),
    2: (
        "The {item} did not meet my expectations.",
        "A long wait at the {site} for the {item}.",
        "The {item} felt overpriced.",
    ),
    1: ("Very disappointed with the {item}.", "Would not recommend the {item}.", "The {item} was not as promised."),
}
# The templates above that speak of a price, for items that have none: the same choice, about something they have.
_UNPRICED = {
    "Price of the {item}": "Terms of the {item}",
    "Solid {item} for the price.": "Solid {item}, well run.",
    "The {item} felt overpriced.": "The {item} felt poorly organised.",
}
_REJECTIONS = (
    "{document} is not signed",
    "{document} has expired",
    "name on the {document} does not match the {party} record",
    "{document} is missing pages",
    "scan of the {document} is unreadable",
    "{document} belongs to a different {case}",
)
_NOTIFICATIONS = (
    ("Your {case} is confirmed", "We have confirmed your {case} for the {item}."),
    ("Reminder about {topic}", "A reminder about {topic} for your {case}."),
    ("Update on your {case}", "Your {case} for the {item} has been updated."),
    ("New from the {site}", "The {site} has news about the {item}."),
    ("Action needed: {topic}", "Please check {topic} so we can continue your {case}."),
)
_LOYALTY = (
    "points for the {item}",
    "welcome bonus",
    "birthday bonus",
    "referral bonus",
    "review reward for the {item}",
)


class TextPools:
    """The free-text sources of one environment; every choice goes through the generator's seeded rng."""

    def __init__(self, scenario: Scenario, rng: random.Random):
        self.rng = rng
        self.items = list(scenario.items)
        pack = PACKS.get(scenario.category)
        self.topics = list(pack.note_topics) if pack else list(_GENERIC_TOPICS)
        self.refunds = list(pack.refund_reasons) if pack else []
        self.refunds += list(_FLAVOUR_REFUNDS[scenario.flavour])
        labels = scenario.labels
        self.words = {role: labels[role] for role in ("party", "staff", "case", "site", "document") if role in labels}
        self.words.setdefault("document", "document")
        kind = ITEM_KINDS.get(scenario.item_kind)
        self.priced = kind is None or kind.priced

    def _fill(self, template: str, item: str | None = None, **extra: str) -> str:
        values = {
            **self.words,
            "topic": self.rng.choice(self.topics),
            "item": item or self.rng.choice(self.items),
            **extra,
        }
        values["Party"] = values["party"][0].upper() + values["party"][1:]
        text = template.format(**values)
        return text[0].upper() + text[1:]

    def note(self, item: str | None = None) -> str:
        return self._fill(self.rng.choice(_NOTES), item)

    def ticket_subject(self) -> str:
        return self._fill(self._unpriced(self.rng.choice(_TICKET_SUBJECTS)))

    def _unpriced(self, template: str) -> str:
        """Where the items have no price (a savings account, a donation, a volunteer day), the same template about
        something they do have (awm/builder/catalogue/kinds.py)."""
        return _UNPRICED.get(template, template) if not self.priced else template

    def ticket_comment(self) -> str:
        return self._fill(self.rng.choice(_TICKET_COMMENTS))

    def review(self, rating: int, item: str) -> str:
        return self._fill(self._unpriced(self.rng.choice(_REVIEWS[rating])), item)

    def rejection(self, document: str) -> str:
        return self._fill(self.rng.choice(_REJECTIONS), document=document)

    def refund(self, item: str | None = None) -> str:
        return self._fill(self.rng.choice(self.refunds), item)

    def notification(self) -> tuple[str, str]:
        subject, body = self.rng.choice(_NOTIFICATIONS)
        topic = self.rng.choice(self.topics)
        item = self.rng.choice(self.items)
        return self._fill(subject, item, topic=topic), self._fill(body, item, topic=topic)

    def loyalty(self, item: str | None = None) -> str:
        return self._fill(self.rng.choice(_LOYALTY), item)
