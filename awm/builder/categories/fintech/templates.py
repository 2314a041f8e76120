"""Templates of the fintech entities' tools: budget limits, contributions to savings goals."""

from awm.builder.templates.placeholders import BUDGET_LABEL, BUDGET_TABLE, SAVINGS_GOAL_LABEL, SAVINGS_GOAL_TABLE
from awm.builder.templates.tool_prelude import get_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def set_limit_BUDGET(db, BUDGET_id, monthly_limit):
    BUDGET = get_row(db, BUDGET_TABLE, BUDGET_id)
    if BUDGET is None:
        return missing(BUDGET_LABEL, BUDGET_id)
    if refused := require_status(BUDGET, "active", BUDGET_LABEL, str(BUDGET_id)):
        return refused
    return update_row(db, BUDGET_TABLE, BUDGET_id, {"monthly_limit": round(monthly_limit, 2)})


def contribute_SAVINGS_GOAL(db, SAVINGS_GOAL_id, amount):
    SAVINGS_GOAL = get_row(db, SAVINGS_GOAL_TABLE, SAVINGS_GOAL_id)
    if SAVINGS_GOAL is None:
        return missing(SAVINGS_GOAL_LABEL, SAVINGS_GOAL_id)
    if refused := require_status(SAVINGS_GOAL, "active", SAVINGS_GOAL_LABEL, SAVINGS_GOAL["name"]):
        return refused
    saved = round(SAVINGS_GOAL["saved_amount"] + amount, 2)
    status = "achieved" if saved >= SAVINGS_GOAL["target_amount"] else "active"
    return update_row(db, SAVINGS_GOAL_TABLE, SAVINGS_GOAL_id, {"saved_amount": saved, "status": status})
