"""The configuration file of `ripsight mcp --config FILE`: TOML whose keys are the server's
repeatable flags, each a list of strings, added to the flags given on the command line.

    # ripsight.toml
    ask = ["private/**", "*.pdf"]    # calls reaching these paths need a person's approval
    deny = ["*.sqlite"]              # never listed, searched or read (beside the defaults)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # the [mcp] extra installs tomli there
    import tomli as tomllib

__all__ = ["CONFIG_KEYS", "ConfigError", "read_config"]

#: Each key of the file, with the flag it adds to.
CONFIG_KEYS: dict[str, str] = {"ask": "--ask", "deny": "--deny"}


class ConfigError(ValueError):
    """A configuration file that cannot be read or says something the server does not take."""


def read_config(path: str) -> dict[str, list[str]]:
    """The lists the file at `path` sets, by key; raises `ConfigError` saying what is wrong."""
    try:
        data: dict[str, Any] = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path} is not valid TOML: {error}") from None
    unknown = sorted(set(data) - set(CONFIG_KEYS))
    if unknown:
        raise ConfigError(
            f"{path}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; the "
            f"file takes {', '.join(CONFIG_KEYS)}"
        )
    lists: dict[str, list[str]] = {}
    for key, value in data.items():
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f'{path}: {key} must be a list of strings, such as {key} = ["*.pdf"]')
        lists[key] = list(value)
    return lists
