"""Validation of generated environments beyond each stage's own checks (used by Dagster asset checks)."""
