"""Templates of a generated verifier: `verify`, and one check per kind of task goal.

`verify` is copied as written, its CHECK_GOALS line replaced by the goals' checks, each rendered from the
template named after its goal kind (awm.builder.verifiergen). The helpers the checks call come from
awm.builder.templates.verifier_prelude.
"""

from awm.builder.templates.placeholders import (
    CHILD_FK,
    CHILD_TABLE,
    CHILDREN,
    COLUMN,
    COUNT,
    DELTA,
    EXPECT,
    PK,
    SPEC,
    TABLE,
)
from awm.builder.templates.verifier_prelude import (
    check_answer,
    check_row_deleted,
    check_row_delta,
    check_row_equals,
    check_rows_created,
)

CHECK_GOALS = None  # where the goals' checks go


def verify(initial, final, answer):
    failures = []
    CHECK_GOALS  # noqa: B018
    return {"complete": not failures, "evidence": failures or ["every goal is met"]}


def row_equals(initial, final, answer, failures):
    check_row_equals(final, TABLE, PK, EXPECT, failures)


def row_delta(initial, final, answer, failures):
    check_row_delta(initial, final, TABLE, PK, COLUMN, DELTA, failures)


def rows_created(initial, final, answer, failures):
    check_rows_created(initial, final, TABLE, EXPECT, COUNT, CHILD_TABLE, CHILD_FK, CHILDREN, failures)


def row_deleted(initial, final, answer, failures):
    check_row_deleted(final, TABLE, PK, failures)


def answer(initial, final, answer, failures):
    check_answer(answer, SPEC, failures)
