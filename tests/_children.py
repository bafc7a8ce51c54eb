"""Child processes that cannot hang a test: their output read with timeouts, their exit waited
for with one (tests/test_no_hang.py holds every test to this)."""

from __future__ import annotations

import queue
import subprocess
import threading
from typing import IO, Generic, TypeVar

AnyStr = TypeVar("AnyStr", str, bytes)

#: The first lines of a Python child that must answer Ctrl-C: a child started from a shell that
#: ignores SIGINT (a background job, nohup) inherits the ignoring, and Python then keeps it, so
#: a KeyboardInterrupt the test waits for would never come.
RESTORE_SIGINT = "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"


class Lines(Generic[AnyStr]):
    """The lines of one pipe of a child, read as they come by a daemon thread and handed out
    with a timeout (a blocking ``readline`` on a child that never writes waits forever)."""

    def __init__(self, stream: IO[AnyStr]) -> None:
        self._lines: queue.Queue[AnyStr | None] = queue.Queue()
        self.seen: list[AnyStr] = []
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[AnyStr]) -> None:
        try:
            for line in stream:
                self._lines.put(line)
        except (OSError, ValueError):  # closed under us: the test is over
            pass
        self._lines.put(None)

    def next(self, timeout: float) -> AnyStr | None:
        """The next line, or None at the end of the stream; fails after `timeout` seconds."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"the child wrote no line within {timeout} s") from None
        if line is not None:
            self.seen.append(line)
        return line

    def rest(self, timeout: float) -> list[AnyStr]:
        """Every line up to the end of the stream (the child closed it or exited)."""
        lines: list[AnyStr] = []
        while (line := self.next(timeout)) is not None:
            lines.append(line)
        return lines

    def so_far(self) -> list[AnyStr]:
        """The lines already read, without waiting for more (for a failure message)."""
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return list(self.seen)
            if line is not None:
                self.seen.append(line)


def stop(process: subprocess.Popen[AnyStr], timeout: float = 30) -> None:
    """Kills `process` if it still runs and waits (bounded) for it to go."""
    if process.poll() is None:
        process.kill()
    process.wait(timeout=timeout)
