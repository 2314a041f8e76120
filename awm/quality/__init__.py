"""Quality checks of generated environments, as plain functions (no Dagster).

One module per stage (scenarios, tasks, schemas, databases, tools) returns Findings that name the
environment, check, task, tool, table, column and row; `gates` is what each stage calls on its own
output (a bad environment is failed where it is made); `mutations` builds the wrong trajectories the
verification stage uses to test verifiers. The Dagster asset checks (checks/) run the same functions.
"""
