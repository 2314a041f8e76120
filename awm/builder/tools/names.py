"""The names tools get in one world, shared by the tool and the task generators."""

from __future__ import annotations

from awm.builder.world import WorldPlan


class ToolNames:
    """The names tools get in one world: shared by the tool and the task generators."""

    def __init__(self, plan: WorldPlan):
        self.plan = plan

    def get(self, role: str) -> str:
        return f"get_{self.plan[role].name}"

    def list(self, role: str) -> str:
        ent = self.plan[role]
        verb = "search" if ent.search else "list"
        return f"{verb}_{ent.plural_name}"

    def create(self, role: str) -> str:
        verb = {"line": "add", "note": "add", "address": "add", "review": "add", "ticket_comment": "add",
                "payment": "record", "notification": "send", "ticket": "open", "purchase_line": "add",
                "invoice": "issue"}.get(role, "create")
        return f"{verb}_{self.plan[role].name}"

    def delete(self, role: str) -> str:
        return f"{'remove' if role == 'line' else 'delete'}_{self.plan[role].name}"

    def action(self, role: str, verb: str) -> str:
        return f"{verb}_{self.plan[role].name}"
