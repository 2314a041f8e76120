"""Quality checks of generated environments, as plain functions (no Dagster).

One module per stage (scenarios, tasks, schemas, databases, tools, verification_reports) returns
Findings that name the environment, check, task, tool, table, column and row; `gates` is what each stage
calls on its own output (a bad environment is failed where it is made); `mutations` builds the wrong
trajectories and `proofs` runs every proof of a task for the verification stage; `partitions` splits a
domain's environments by where they stand at a stage. The Dagster asset checks (checks/) run the same
functions and only shape their results into metadata.
"""
