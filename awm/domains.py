"""Domain keys: validation, the built-in catalogue, and the editable seeds file."""

from __future__ import annotations

import functools
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from awm.errors import CatalogueError, InvalidDomainError, SeedsFileError
from awm.home import default_home

if TYPE_CHECKING:
    from awm.builder.catalogue.model import DomainSeed

SEEDS_FILE_ENV = "AWM_SEEDS_FILE"

SLUG_PATTERN = re.compile(r"[a-z][a-z0-9_]{1,40}")
ENV_ID_PATTERN = re.compile(r"[a-z][a-z0-9_]{1,40}__\d{2,3}")


def validate_domain_slug(slug: object) -> str:
    """Return `slug` if it is a valid domain key, else raise InvalidDomainError.

    Domain keys become Dagster partition keys and URL path segments, so they are
    restricted to lowercase letters, digits and underscores (2 to 41 chars,
    starting with a letter). `|` and `,` would break multi-partition keys.
    """
    if not isinstance(slug, str) or not SLUG_PATTERN.fullmatch(slug) or "__" in slug:
        raise InvalidDomainError(
            f"invalid domain slug {slug!r}: use 2-41 lowercase letters, digits or single "
            "underscores, starting with a letter (for example 'dental_clinic')"
        )
    return slug


def env_id_for(domain: str, slot: int) -> str:
    """The corpus-unique, URL-safe id of scenario `slot` of `domain`."""
    validate_domain_slug(domain)
    if not 0 <= slot < 1000:
        raise ValueError(f"slot {slot} out of range 0..999")
    return f"{domain}__{slot:02d}"


def split_env_id(env_id: str) -> tuple[str, int]:
    if not isinstance(env_id, str) or not ENV_ID_PATTERN.fullmatch(env_id):
        raise InvalidDomainError(f"invalid environment id {env_id!r}: expected '<domain>__<NN>'")
    domain, slot = env_id.rsplit("__", 1)
    return domain, int(slot)


def builtin_domains() -> list[str]:
    """Slugs of the built-in catalogue, in catalogue order."""
    from awm.builder.catalogue import DOMAIN_SEEDS

    return list(DOMAIN_SEEDS)


def seeds_file_path() -> Path:
    """The editable seeds file: $AWM_SEEDS_FILE, else $AWM_HOME/seeds.txt."""
    explicit = os.environ.get(SEEDS_FILE_ENV)
    if explicit:
        return Path(explicit)
    return default_home() / "seeds.txt"


def _seed_entries(path: Path) -> list[object]:
    """The raw entries of a seeds file: slugs (str) and domain definitions (mappings)."""
    path = Path(path)
    if not path.exists():
        raise SeedsFileError(f"seeds file {path} does not exist")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SeedsFileError(f"seeds file {path} cannot be read: {exc}") from exc
    stripped = text.strip()
    if stripped.startswith(("[", "{")):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise SeedsFileError(f"seeds file {path} is not valid JSON: {exc}") from exc
    elif path.suffix in (".yaml", ".yml") or re.match(r"(domains\s*:|- )", stripped):
        import yaml

        try:
            data = yaml.safe_load(stripped)
        except yaml.YAMLError as exc:
            raise SeedsFileError(f"seeds file {path} is not valid YAML: {exc}") from exc
    else:
        return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    if isinstance(data, dict):
        data = data.get("domains")
    if not isinstance(data, list):
        raise SeedsFileError(f'seeds file {path}: expected a list of domains or {{"domains": [...]}}')
    return data


def load_seeds_file(path: Path) -> list[str]:
    """The domain slugs a seeds file names, in order, without repeats.

    Forms: one slug a line ('#' starts a comment); a JSON list or {"domains": [...]}; or YAML
    (`domains:` then a list). In JSON and YAML an entry is a slug or a full domain definition in the
    catalogue's format (see `load_seed_domains`).
    """
    slugs: list[str] = []
    for number, entry in enumerate(_seed_entries(path), 1):
        value = entry.get("slug") if isinstance(entry, dict) else entry
        try:
            slug = validate_domain_slug(value)
        except InvalidDomainError as exc:
            raise SeedsFileError(f"seeds file {path}, entry {number}: {exc}") from exc
        if slug not in slugs:
            slugs.append(slug)
    return slugs


def load_seed_domains(path: Path) -> dict[str, DomainSeed]:
    """The domains a seeds file defines in full (see `_parse_seed_domains`); read again only when the file changes."""
    stat = Path(path).stat() if Path(path).exists() else None
    return _parse_seed_domains(str(path), stat.st_mtime_ns if stat else None, stat.st_size if stat else None)


@functools.lru_cache(maxsize=8)
def _parse_seed_domains(path: str, _mtime_ns: int | None, _size: int | None) -> dict[str, DomainSeed]:
    """The domains a seeds file defines in full, validated like the catalogue's packs.

    An entry is the catalogue's domain format plus `category`, the category pack it belongs to.
    `flavour`, `roles`, `modules` and `price_range` may be left out: they then come from the pack's
    first domain. One sub-business is enough (the catalogue's own domains have ten). A slug that
    is already built in is refused.
    """
    from awm.builder.catalogue import DOMAIN_SEEDS, PACK_TEMPLATES, parse_domain

    path = Path(path)
    load_seeds_file(path)  # every entry has a valid slug
    domains: dict[str, DomainSeed] = {}
    for number, entry in enumerate(_seed_entries(path), 1):
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
        defaults = {key: getattr(template, key) for key in ("flavour", "roles", "modules", "price_range")}
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
