"""What `ripsight mcp` knows of its client: the negotiated protocol version and the client's
name, the workspace roots it declares (served when the server was given none), the log level
it set, the progress token of a call, and what a progress notification says.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlparse

import anyio
import anyio.to_thread
from mcp import types

from .limits import MCP_ROOTS_WAIT
from .registry import Registry
from .roots import Roots
from .workspace import Workspace

__all__ = ["ClientLog", "ClientRoots", "client_name", "progress_text", "progress_token"]

logger = logging.getLogger("ripsight.mcp")

#: The first protocol version without roots and logging (SEP-2577 deprecates them): a client on
#: it or later is never asked for its roots and never sent log messages.
_WITHOUT_ROOTS_AND_LOGGING = "2026-07-28"

#: The levels of MCP logging (RFC 5424), lowest first.
_LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def _client_params(session: Any) -> Any:
    return getattr(session, "client_params", None)


def _protocol_version(session: Any) -> str:
    """The negotiated version (SDK 2.x says it; SDK 1.x keeps the client's initialize params)."""
    version = getattr(session, "protocol_version", None)
    if isinstance(version, str):
        return version
    params = _client_params(session)
    return str(getattr(params, "protocolVersion", None) or getattr(params, "protocol_version", ""))


def _has_roots_and_logging(session: Any) -> bool:
    return _protocol_version(session) < _WITHOUT_ROOTS_AND_LOGGING


def client_name(session: Any) -> str:
    params = _client_params(session)
    info = getattr(params, "clientInfo", None) or getattr(params, "client_info", None)
    return str(getattr(info, "name", "") or "")


def progress_token(meta: Any) -> str | int | None:
    """The request's ``_meta.progressToken`` (a model in SDK 1.x, a dict in SDK 2.x)."""
    if meta is None:
        return None
    if isinstance(meta, dict):
        token = meta.get("progress_token", meta.get("progressToken"))
    else:
        token = getattr(meta, "progressToken", None)
    return token if isinstance(token, (str, int)) else None


def _quietly(call: Callable[[], Any]) -> Any:
    """`call()` without the SDK's deprecation warnings (roots and logging, SEP-2577)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def _root_path(uri: str) -> str | None:
    """The directory of a ``file://`` root, or None for another scheme."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return os.path.normpath(unquote(parsed.path)) or None


class ClientRoots:
    """The workspace roots the client declares, served when the server was given no root.

    The server asks ``roots/list`` once the client is initialized (SDK 2.x; under SDK 1.x,
    which shows a server no session outside requests, before the first request), and after the
    client's ``notifications/roots/list_changed`` the next request asks again before it runs,
    so the call sees the change.
    Each root is one `Workspace` (one warm index), opened when it appears and closed when it
    goes; a root that cannot be opened is left out with a sentence the tools add to their text.
    With no roots (a client without them, an empty list), the registry's own workspace serves.
    """

    def __init__(self, registry: Registry, open_root: Callable[[str], Workspace] | None) -> None:
        self.registry = registry
        self.open_root = open_root
        self.fallback = registry.workspace
        self.stale = open_root is not None
        self.spaces: dict[str, Workspace] = {}
        self.lock = anyio.Lock()

    def changed(self) -> None:
        self.stale = self.open_root is not None

    async def refresh(self, session: Any) -> None:
        """Asks the client for its roots when they may have changed, and serves them (while
        another request asks, waits for its answer)."""
        if not self.stale and not self.lock.locked():
            return
        async with self.lock:
            if not self.stale:
                return
            self.stale = False
            capability = types.ClientCapabilities(roots=types.RootsCapability())
            if not _has_roots_and_logging(session) or not session.check_client_capability(
                capability
            ):
                return
            try:
                with anyio.fail_after(MCP_ROOTS_WAIT):
                    answer = await _quietly(session.list_roots)
            except Exception as error:  # noqa: BLE001 - the roots we had still serve
                logger.warning("roots/list failed (%s); serving the roots we had", error)
                return
            uris = [str(root.uri) for root in answer.roots]
            await anyio.to_thread.run_sync(self._serve, uris)

    async def refresh_quietly(self, session: Any) -> None:
        """`refresh` in a background task: an error is logged, never the server's end."""
        try:
            await self.refresh(session)
        except Exception:
            logger.exception("the client's roots could not be served")

    def _serve(self, uris: list[str]) -> None:
        """Opens the new roots, swaps the registry's workspace, closes the roots that went."""
        assert self.open_root is not None
        problems: list[str] = []
        spaces: dict[str, Workspace] = {}
        for uri in uris:
            path = _root_path(uri)
            if path is None:
                problems.append(f"the root {uri} is not served: only file:// roots are")
                continue
            if path in spaces:
                continue
            workspace = self.spaces.get(path)
            if workspace is None:
                try:
                    workspace = self.open_root(path)
                except Exception as error:  # noqa: BLE001 - told to the model, never a crash
                    problems.append(f"the root {path!r} is not served: {error}".rstrip("."))
                    logger.warning("client root %s not served: %s", path, error)
                    continue
                logger.info("serving the client's root %s", path)
            spaces[path] = workspace
        gone = [ws for path, ws in self.spaces.items() if path not in spaces]
        self.spaces = spaces
        if not spaces and not problems:
            self.registry.workspace = self.fallback
        elif len(spaces) == 1 and not problems:
            self.registry.workspace = next(iter(spaces.values()))
        else:
            self.registry.workspace = Roots(spaces.values(), problems)
        for workspace in gone:
            logger.info("the client's root %s is gone; closing it", workspace.root)
            workspace.close()

    def close(self) -> None:
        for workspace in self.spaces.values():
            workspace.close()


class ClientLog:
    """``notifications/message`` to a client that set a level (``logging/setLevel``) on a
    protocol version that still has logging: the server's own lines of each call, at that
    level and above. Nothing is sent before the client sets a level."""

    def __init__(self) -> None:
        self.level: str | None = None

    def set_level(self, level: str) -> None:
        self.level = str(level)
        logger.info("the client set the log level to %s", level)

    async def send(self, session: Any, level: str, text: str, request_id: Any = None) -> None:
        if self.level is None or not _has_roots_and_logging(session):
            return
        if _LOG_LEVELS.index(level) < _LOG_LEVELS.index(self.level):
            return
        try:
            await _quietly(
                lambda: session.send_log_message(
                    level, text, logger="ripsight", related_request_id=request_id
                )
            )
        except Exception:  # a log line never fails a call
            logger.debug("a log message could not be sent", exc_info=True)


def progress_text(
    name: str,
    elapsed: float,
    workspace: Any,
    searched: int | None = None,
    approval_wait: float | None = None,
) -> str:
    """What a progress notification says: how long the call has run, that it waits for the
    person's approval (`approval_wait`: seconds since the question was sent, while it waits),
    the files its search has searched so far (`searched`, from the call's cancel token; said
    once there are some), and the index's phase."""
    text = f"{name} running for {elapsed:.1f} s"
    if approval_wait is not None:
        text = (
            f"{name} waiting for the person to approve it ({approval_wait:.1f} s since the "
            f"question was sent; {elapsed:.1f} s in all)"
        )
    if searched:
        text += f", {searched:,} files searched so far"
    spaces = list(workspace) if isinstance(workspace, Roots) else [workspace]
    statuses = [ws.index_status() for ws in spaces if ws is not None]
    building = [status for status in statuses if status.get("state") == "building"]
    if building:
        files = sum(int(status.get("files") or 0) for status in building)
        text += f"; the index is building ({files:,} files so far), searching without it"
    parsing = [status for status in statuses if status.get("symbols") == "building"]
    if parsing:
        done = sum(int(status.get("symbol_files_parsed") or 0) for status in parsing)
        total = sum(int(status.get("symbol_files_total") or 0) for status in parsing)
        text += (
            f"; the symbol index is building ({done:,} of {total:,} files parsed),"
            " references and definitions parse their candidates meanwhile"
        )
    return text
