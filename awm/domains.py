"""Domain keys: validation, the built-in catalogue, and the editable seeds file."""

from __future__ import annotations

import json
import re
from pathlib import Path

from awm.errors import InvalidDomainError, SeedsFileError

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


def load_seeds_file(path: Path) -> list[str]:
    """Read the editable seeds file: a JSON list of slugs, or {"domains": [...]}, or one slug a line.

    Lines starting with '#' are comments in the plain-text form.
    """
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
        if isinstance(data, dict):
            data = data.get("domains")
        if not isinstance(data, list):
            raise SeedsFileError(f'seeds file {path}: expected a JSON list of slugs or {{"domains": [...]}}')
        entries = data
    else:
        entries = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    slugs: list[str] = []
    for lineno, entry in enumerate(entries, 1):
        try:
            slug = validate_domain_slug(entry)
        except InvalidDomainError as exc:
            raise SeedsFileError(f"seeds file {path}, entry {lineno}: {exc}") from exc
        if slug not in slugs:
            slugs.append(slug)
    return slugs


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
