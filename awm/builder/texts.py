"""Free-text values of the sample rows: staff titles, document types, note lines, ticket subjects."""

from __future__ import annotations

TITLES = ("Senior", "Lead", "Junior", "Associate", "Principal")
DOC_TYPES = ("identity proof", "signed form", "invoice copy", "photo evidence", "contract", "certificate")
NOTE_LINES = (
    "Called to confirm the details.",
    "Asked for an update by email.",
    "Priority handling requested.",
    "Details double-checked with the file.",
    "Follow-up scheduled for next week.",
    "Left a voicemail about timing.",
)
TICKET_SUBJECTS = (
    "billing question",
    "cannot access online portal",
    "request for paperwork copy",
    "complaint about wait time",
    "change of contact details",
    "question about pricing",
    "damaged item received",
    "feedback on recent visit",
)
