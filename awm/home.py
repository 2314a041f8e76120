"""Where artifacts live: AWM_HOME, default ./.awm. Below the store and the domains, which both need it."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_HOME = ".awm"


def default_home() -> Path:
    return Path(os.environ.get("AWM_HOME") or DEFAULT_HOME).resolve()
