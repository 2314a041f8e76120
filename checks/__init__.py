"""Dagster asset checks, one module per concern."""
