"""The built-in seed domains, gathered from the per-sector files."""

from __future__ import annotations

import importlib

from awm.builder.catalogue.model import DomainSeed

_FILES = ("commerce", "finance", "services", "operations", "technology")


def _load() -> dict[str, DomainSeed]:
    seeds: dict[str, DomainSeed] = {}
    for name in _FILES:
        module = importlib.import_module(f"awm.builder.catalogue.{name}")
        for seed in module.DOMAINS:
            if seed.slug in seeds:
                raise ValueError(f"duplicate built-in domain {seed.slug!r} in catalogue/{name}.py")
            seeds[seed.slug] = seed
    return seeds


DOMAIN_SEEDS: dict[str, DomainSeed] = _load()
CATEGORIES: list[str] = sorted({seed.category for seed in DOMAIN_SEEDS.values()})
