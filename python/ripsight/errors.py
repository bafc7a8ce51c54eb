"""The exceptions ripsight raises.

Every class derives from :class:`RipsightError` and from the built-in exception that fits, so
``except FileNotFoundError`` and ``except ValueError`` work as a Python programmer expects.
Messages are written for a model: they say what was wrong and what to do instead.
"""

from __future__ import annotations

__all__ = [
    "DeniedError",
    "EngineError",
    "InvalidArgumentError",
    "IsADirectoryPathError",
    "NotADirectoryPathError",
    "OutsideRootError",
    "PathNotFoundError",
    "PatternError",
    "RipsightError",
    "SpecialFileError",
    "UnreadableError",
]


class RipsightError(Exception):
    """Base class of every ripsight error."""

    #: A short stable name for the error class, used in tool results' metadata.
    kind = "error"


class PathNotFoundError(RipsightError, FileNotFoundError):
    """The path does not exist (the message lists close names when there are any)."""

    kind = "not_found"


class OutsideRootError(RipsightError, PermissionError):
    """The path resolves (symlinks included) to a place outside the workspace root."""

    kind = "outside_root"


class DeniedError(RipsightError, PermissionError):
    """A deny rule (secrets policy) covers the path."""

    kind = "denied"


class IsADirectoryPathError(RipsightError, IsADirectoryError):
    """A file was expected, the path is a directory."""

    kind = "is_a_directory"


class NotADirectoryPathError(RipsightError, NotADirectoryError):
    """A directory was expected, the path is a file."""

    kind = "not_a_directory"


class SpecialFileError(RipsightError, OSError):
    """A FIFO, socket or device: never opened, since reading it could block forever."""

    kind = "special_file"


class PatternError(RipsightError, ValueError):
    """A regex or glob that does not compile."""

    kind = "invalid_pattern"


class InvalidArgumentError(RipsightError, ValueError):
    """An argument out of range or of the wrong kind (negative offset, unknown sort order...)."""

    kind = "invalid_argument"


class UnreadableError(RipsightError, PermissionError):
    """The operating system refused access to the file."""

    kind = "permission_denied"


class EngineError(RipsightError, RuntimeError):
    """An I/O failure or an internal error (a Rust panic never reaches Python as anything else)."""

    kind = "engine"
