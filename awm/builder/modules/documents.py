"""Documents attached to cases and their review."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake
from awm.builder.texts import DOC_TYPES

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

MODULE = "documents"
ROLES = ("document",)


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The document tables, named in the domain's words."""
    ents: dict[str, Entity] = {}
    ents["document"] = Entity(
        "document",
        L["document"],
        [
            pk_col(),
            fk_col(L, "case"),
            Col("doc_type", "TEXT"),
            Col("filename", "TEXT"),
            Col("status", "TEXT", enum=("submitted", "verified", "rejected")),
            Col("uploaded_at", "TEXT"),
            Col("review_comment", "TEXT", nullable=True),
        ],
        f"Documents attached to {plural(L['case'])}.",
        filters=(f"{snake(L['case'])}_id", "status"),
    )
    return ents


def fill_documents(gen: RowGen) -> None:
    fl = gen.plan.flavour
    for case in gen.rows["case"]:
        status = case["status"]
        if status == fl.initial and fl.name != "application":
            continue
        for _ in range(gen.rng.choice((1, 2, 2, 3))):
            if status in ("approved", "completed", "closed", "delivered", "checked_out"):
                doc_status = "verified"
            else:
                doc_status = gen.rng.choices(("submitted", "verified", "rejected"), (5, 4, 1))[0]
            doc_type = gen.rng.choice(DOC_TYPES)
            gen.add(
                "document",
                {
                    gen.fk("case"): case["id"],
                    "doc_type": doc_type,
                    "filename": f"{case['code'].lower()}-{doc_type.replace(' ', '-')}.pdf",
                    "status": doc_status,
                    "uploaded_at": case["created_at"],
                    "review_comment": gen.texts.rejection(doc_type) if doc_status == "rejected" else None,
                },
            )


FILL = {"document": fill_documents}
