"""Domain keys: validation, environment ids, and the seeds file's raw entries.

What the entries mean (the built-in catalogue, full domain definitions, the AWM_DOMAINS knob) is
the catalogue's business: awm.builder.catalogue.seeds. This module stays below the builder.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from awm.errors import InvalidDomainError, SeedsFileError
from awm.home import default_home

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


def seeds_file_path() -> Path:
    """The editable seeds file: $AWM_SEEDS_FILE, else $AWM_HOME/seeds.txt."""
    explicit = os.environ.get(SEEDS_FILE_ENV)
    if explicit:
        return Path(explicit)
    return default_home() / "seeds.txt"


def seed_entries(path: Path) -> list[object]:
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
    for number, entry in enumerate(seed_entries(path), 1):
        value = entry.get("slug") if isinstance(entry, dict) else entry
        try:
            slug = validate_domain_slug(value)
        except InvalidDomainError as exc:
            raise SeedsFileError(f"seeds file {path}, entry {number}: {exc}") from exc
        if slug not in slugs:
            slugs.append(slug)
    return slugs
