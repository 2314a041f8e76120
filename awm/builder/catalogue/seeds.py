"""Which domains there are: the built-in catalogue's, the seeds file's own definitions, and the
AWM_DOMAINS knob. Raw seeds-file reading and domain keys live below, in awm.domains."""

from __future__ import annotations

import functools
from pathlib import Path

from awm.builder.catalogue import DOMAIN_SEEDS, PACK_TEMPLATES, parse_domain
from awm.builder.catalogue.model import DomainSeed
from awm.domains import load_seeds_file, seed_entries, validate_domain_slug
from awm.errors import CatalogueError, InvalidDomainError, SeedsFileError


def builtin_domains() -> list[str]:
    """Slugs of the built-in catalogue, in catalogue order."""
    return list(DOMAIN_SEEDS)


def load_seed_domains(path: Path) -> dict[str, DomainSeed]:
    """The domains a seeds file defines in full (see `_parse_seed_domains`); read again only when the file changes."""
    stat = Path(path).stat() if Path(path).exists() else None
    return _parse_seed_domains(str(path), stat.st_mtime_ns if stat else None, stat.st_size if stat else None)


@functools.lru_cache(maxsize=8)
def _parse_seed_domains(path: str, _mtime_ns: int | None, _size: int | None) -> dict[str, DomainSeed]:
    """The domains a seeds file defines in full, validated like the catalogue's packs.

    An entry is the catalogue's domain format plus `category`, the category pack it belongs to.
    `flavour`, `roles`, `modules`, `price_range` and `item_kind` may be left out: they then come from the pack's
    first domain. One sub-business is enough (the catalogue's own domains have ten). A slug that
    is already built in is refused.
    """
    path = Path(path)
    load_seeds_file(path)  # every entry has a valid slug
    domains: dict[str, DomainSeed] = {}
    for number, entry in enumerate(seed_entries(path), 1):
        if not isinstance(entry, dict):
            continue
        where = f"seeds file {path}, entry {number}"
        slug = entry["slug"]
        if slug in DOMAIN_SEEDS:
            raise SeedsFileError(f"{where}: {slug!r} is a built-in domain; pick another slug for your own domain")
        if slug in domains:
            raise SeedsFileError(f"{where}: domain {slug!r} is defined twice")
        category = entry.get("category")
        if category not in PACK_TEMPLATES:
            raise SeedsFileError(f"{where}: domain {slug!r}: category: {category!r} is not a category pack; "
                                 f"one of {', '.join(PACK_TEMPLATES)}")
        template = PACK_TEMPLATES[category]
        # the item kind follows the template's only with its lifecycle (else the entry's own flavour decides it)
        keys = ("flavour", "roles", "modules", "price_range") + (() if "flavour" in entry else ("item_kind",))
        defaults = {key: getattr(template, key) for key in keys}
        fields = {**defaults, **{k: v for k, v in entry.items() if k != "category"}}
        try:
            domains[slug] = parse_domain(fields, category, where, min_sub_businesses=1)
        except CatalogueError as exc:
            raise SeedsFileError(str(exc)) from exc
    return domains


def resolve_domains(spec: str | None, default_count: int) -> list[str]:
    """Turn the AWM_DOMAINS knob into slugs: a number (first N built-ins) or a comma list."""
    builtins = builtin_domains()
    if spec is None or not spec.strip():
        return builtins[:default_count]
    spec = spec.strip()
    if spec.isdigit():
        count = int(spec)
        if count < 1:
            raise InvalidDomainError(f"AWM_DOMAINS={spec!r}: need at least one domain")
        if count > len(builtins):
            raise InvalidDomainError(
                f"AWM_DOMAINS={spec}: only {len(builtins)} built-in domains; "
                "list extra slugs by name to compose them from archetypes"
            )
        return builtins[:count]
    slugs = []
    for part in spec.split(","):
        slug = validate_domain_slug(part.strip())
        if slug not in slugs:
            slugs.append(slug)
    return slugs
