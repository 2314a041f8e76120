"""The Dagster layer: partitions, one module per stage asset, jobs, sensors, definitions."""
