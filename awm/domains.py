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


MAX_SEEDS_BYTES = 16 * 2 ** 20
MAX_SEEDS_DEPTH = 32  # nesting of lists and mappings (a domain definition needs a handful)
MAX_SEEDS_VALUES = 500_000  # values once YAML aliases are expanded (a thousand full definitions need ~100,000)


def seed_entries(path: Path) -> list[object]:
    """The raw entries of a seeds file: slugs (str) and domain definitions (mappings). A file over
    MAX_SEEDS_BYTES, nested deeper than MAX_SEEDS_DEPTH, or holding more than MAX_SEEDS_VALUES values once
    its YAML aliases are expanded is refused (SeedsFileError) before anything walks it."""
    path = Path(path)
    if not path.exists():
        raise SeedsFileError(f"seeds file {path} does not exist")
    try:
        size = path.stat().st_size
        if size > MAX_SEEDS_BYTES:
            raise SeedsFileError(f"seeds file {path} is {size} bytes, more than the {MAX_SEEDS_BYTES} a seeds file "
                                 "may be")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SeedsFileError(f"seeds file {path} cannot be read: {exc}") from exc
    stripped = text.strip()
    if stripped.startswith(("[", "{")):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise SeedsFileError(f"seeds file {path} is not valid JSON: {exc}") from exc
        except RecursionError:
            raise SeedsFileError(f"seeds file {path} nests lists or objects deeper than {MAX_SEEDS_DEPTH} "
                                 "levels") from None
    elif path.suffix in (".yaml", ".yml") or re.match(r"(domains\s*:|- )", stripped):
        import yaml

        try:
            data = yaml.safe_load(stripped)
        except yaml.YAMLError as exc:
            raise SeedsFileError(f"seeds file {path} is not valid YAML: {exc}") from exc
        except RecursionError:
            raise SeedsFileError(f"seeds file {path} nests lists or mappings deeper than {MAX_SEEDS_DEPTH} "
                                 "levels") from None
    else:
        return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    _check_bounds(data, path)
    if isinstance(data, dict):
        data = data.get("domains")
    if not isinstance(data, list):
        raise SeedsFileError(f'seeds file {path}: expected a list of domains or {{"domains": [...]}}')
    return data


def _check_bounds(data: object, path: Path) -> None:
    """SeedsFileError if `data` nests deeper than MAX_SEEDS_DEPTH or holds more than MAX_SEEDS_VALUES values,
    counting each use of a YAML alias (which is how an alias bomb grows; a self-referencing one never ends)."""
    stack: list[tuple[object, int]] = [(data, 1)]
    values = 0
    while stack:
        value, depth = stack.pop()
        values += 1
        if values > MAX_SEEDS_VALUES:
            raise SeedsFileError(f"seeds file {path} holds more than {MAX_SEEDS_VALUES} values once its YAML "
                                 "aliases are expanded; write the domains out, or split the file")
        if isinstance(value, (list, dict)):
            if depth > MAX_SEEDS_DEPTH:
                raise SeedsFileError(f"seeds file {path} nests lists or mappings deeper than {MAX_SEEDS_DEPTH} "
                                     "levels (or a YAML alias refers to itself)")
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items)


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
