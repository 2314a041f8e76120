"""Business rules written once: the checks many tool templates make, called as

    if refused := require_status(CARD, "active", CARD_LABEL, CARD["number"]):
        return refused

and written out by the renderer where they are called (awm.builder.codegen, `rule`), so a generated tools.py
holds the check itself and no call of these: they are not part of the prelude. Called directly (a template
module run as Python), each returns the refusal or None, which is what its written-out statements do.

A rule's arguments are pasted where its parameters are read, so they are plain expressions: the row, the
allowed status or statuses (a constant or a placeholder), the row's label and the name the refusal gives it
(`CARD["number"]`, `str(CARD_id)`), and optionally a `reason` appended to the refusal (", not blocked").
"""

from awm.builder.codegen import rule
from awm.builder.templates.tool_prelude import error


@rule
def require_status(row, status, label, name, reason=""):
    """Refuse (invalid_state) unless the row is in `status`: "<label> <name> is <its status><reason>"."""
    if row["status"] != status:
        return error("invalid_state", label + " " + name + " is " + row["status"] + reason)


@rule
def require_status_in(row, statuses, label, name, reason=""):
    """Refuse (invalid_state) unless the row is in one of `statuses`, in the words of `require_status`."""
    if row["status"] not in statuses:
        return error("invalid_state", label + " " + name + " is " + row["status"] + reason)
