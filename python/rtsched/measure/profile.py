"""Where the machine's overhead profile lives, and reading and writing it.

The profile (format ``rtsched-overheads/1``, made by ``rtsched calibrate``,
see ``rtsched.measure.calibrate`` and docs/calibrate.md) is one JSON file per
user: ``$RTSCHED_OVERHEADS`` if set, else
``$XDG_CACHE_HOME/rtsched/overheads.json``, else
``~/.cache/rtsched/overheads.json`` (a cache: it can be measured again).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

PROFILE_FORMAT = "rtsched-overheads/1"
PROFILE_ENV = "RTSCHED_OVERHEADS"


class ProfileError(ValueError):
    """A profile file that exists but is not a readable rtsched-overheads/1 profile."""


def default_profile_path() -> Path:
    """``$RTSCHED_OVERHEADS``, else ``$XDG_CACHE_HOME/rtsched/overheads.json`` (``~/.cache`` by default)."""
    explicit = os.environ.get(PROFILE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME")
    base = Path(cache) if cache and Path(cache).is_absolute() else Path.home() / ".cache"  # XDG: relative is invalid
    return base / "rtsched" / "overheads.json"


def load_profile(path: str | Path | None = None) -> dict | None:
    """The profile at ``path`` (default: :func:`default_profile_path`), or None if there is none.

    Raises ProfileError when the file exists but is not JSON or not a
    ``rtsched-overheads/1`` object, naming the file.
    """
    where = Path(path) if path is not None else default_profile_path()
    try:
        text = where.read_text()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ProfileError(f"{where}: {error.strerror}") from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ProfileError(f"{where}: not JSON ({error})") from error
    if not isinstance(data, dict) or data.get("format") != PROFILE_FORMAT:
        raise ProfileError(f"{where}: not an overhead profile (expected \"format\": \"{PROFILE_FORMAT}\"); "
                           "make one with `rtsched calibrate`")
    return data


def write_profile(profile: dict, path: str | Path) -> Path:
    """Write the profile (creating its folder) by replacing the file in one rename."""
    where = Path(path)
    where.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".overheads-", suffix=".json", dir=where.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(json.dumps(profile, indent=1) + "\n")
        os.replace(temporary, where)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return where
