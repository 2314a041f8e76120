"""Intents: the things people ask a business to do or tell them, each with its goals and its phrasings.

Importing this package registers every intent (awm.builder.intents.INTENTS, by name)."""

from awm.builder.intents import (  # noqa: F401  -- importing them registers every intent
    entities,
    errands,
    goals,
    lifecycle,
    modules,
    partial,
    people,
    preferences,
    standing,
    sweeps,
    tallies,
    turns,
)
from awm.builder.intents.base import INTENTS, SHAPES, Intent, Plan, World

__all__ = ["INTENTS", "SHAPES", "Intent", "Plan", "World"]
