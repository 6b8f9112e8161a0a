"""The local worker pool of a sweep: interruptible, and robust to a worker that dies.

``concurrent.futures.ProcessPoolExecutor`` hung on Ctrl-C (``shutdown`` waits for the
running tasks, sometimes forever), left its workers orphaned on SIGTERM and turned one
worker killed by the OOM killer into a ``BrokenProcessPool`` for every remaining run. This
pool keeps one pipe per worker and watches the pipes and the process sentinels together:

- a worker that dies is replaced and the run it held is retried (``RETRIES`` times; a run
  that kills its worker every time is reported as that run's failure);
- SIGINT and SIGTERM stop dispatching, kill the workers (they hold no state worth keeping:
  each finished run is already recorded by the caller) and raise ``SweepInterrupted``; a
  second signal exits at once. Workers ignore SIGINT (a terminal's Ctrl-C reaches the whole
  process group; the parent decides) and die with the parent (``PR_SET_PDEATHSIG``) even
  when it is killed with SIGKILL.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from multiprocessing import get_context
from multiprocessing.connection import Connection, wait
from typing import Any

# fork: workers start in milliseconds and inherit the parent's modules (and any test
# double of the run function); spawn where fork is unsafe or missing.
START_METHOD = "fork" if os.name == "posix" and os.uname().sysname == "Linux" else "spawn"

# A run is attempted at most 1 + RETRIES times when its worker dies under it.
RETRIES = 2

EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}


class SweepInterrupted(KeyboardInterrupt):
    """A sweep stopped by SIGINT or SIGTERM. Every run finished before the signal is kept
    (in the results store, if any); ``exit_code`` is the shell's 128 + signal number."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code

    def __str__(self) -> str:
        return str(self.args[0])


class _Signalled(BaseException):
    def __init__(self, signum: int):
        self.signum = signum


def _die_with_parent() -> None:
    """Linux: SIGKILL this worker when its parent dies, however the parent dies."""
    if os.uname().sysname != "Linux":
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)


def _worker(conn: Connection, resolve: Callable[[], Callable[..., Any]]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()
    fn = resolve()
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        idx, args = task
        try:
            reply: tuple[int, Any] = (idx, fn(*args))
        except Exception as e:
            reply = (idx, e)
        try:
            conn.send(reply)
        except Exception as e:  # an unpicklable result or exception
            conn.send((idx, RuntimeError(f"{type(e).__name__}: {e}")))


class _Worker:
    def __init__(self, ctx, resolve: Callable[[], Callable[..., Any]]):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, resolve), daemon=True)
        self.proc.start()
        child.close()
        self.task: int | None = None

    def kill(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.proc.kill()

    def reap(self, timeout: float) -> None:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            self.proc.join(timeout)
        self.conn.close()


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """For the body: SIGINT/SIGTERM raise ``_Signalled`` in the main thread (where Python
    runs signal handlers), and a second one, once the first is being handled, exits at once
    with its code. Elsewhere than the main thread nothing is installed, and a signal the
    process ignores stays ignored (a sweep started as a background job of a non-interactive
    shell has SIGINT ignored, so that a Ctrl-C meant for the foreground does not stop it,
    and the Unix convention keeps it so)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def first(signum, _frame):
        for s in old:
            signal.signal(s, second)
        raise _Signalled(signum)

    def second(signum, _frame):
        os._exit(EXIT_CODES.get(signal.Signals(signum), 128 + signum))

    old = {s: signal.getsignal(s) for s in EXIT_CODES}
    old = {s: h for s, h in old.items() if h is not signal.SIG_IGN}
    for s in old:
        signal.signal(s, first)
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def run_tasks(
    resolve: Callable[[], Callable[..., Any]],
    tasks: Sequence[tuple],
    workers: int,
    on_result: Callable[[int, Any], None],
) -> None:
    """Calls ``resolve()(*tasks[i])`` for every i in ``workers`` processes and, in this
    process, ``on_result(i, value or exception)`` as each finishes (in completion order).

    ``resolve`` runs in the worker and returns the function (looked up there, so a module
    attribute replaced before the pool starts is honoured). Raises ``_Signalled`` on
    SIGINT/SIGTERM (inside ``signals_raise``) after killing every worker."""
    ctx = get_context(START_METHOD)
    todo = list(range(len(tasks)))
    todo.reverse()  # pop() from the end: tasks start in their order
    attempts = [0] * len(tasks)
    pool: list[_Worker] = []
    try:
        for _ in range(min(workers, len(tasks))):
            pool.append(_Worker(ctx, resolve))
        while todo or any(w.task is not None for w in pool):
            for i, w in enumerate(pool):
                if w.task is None and todo:
                    if not w.proc.is_alive():  # died while idle: nothing to retry
                        w.reap(0.1)
                        pool[i] = w = _Worker(ctx, resolve)
                    w.task = todo.pop()
                    attempts[w.task] += 1
                    # A failed send means the worker just died: its sentinel fires below
                    # and the task is retried.
                    with contextlib.suppress(OSError):
                        w.conn.send((w.task, tasks[w.task]))
            busy = [w for w in pool if w.task is not None]
            ready = wait([w.conn for w in busy] + [w.proc.sentinel for w in busy])
            for w in busy:
                if w.conn in ready:
                    try:
                        idx, value = w.conn.recv()
                    except (EOFError, OSError):
                        ready.append(w.proc.sentinel)  # died while replying
                    else:
                        w.task = None
                        on_result(idx, value)
                        continue
                if w.proc.sentinel in ready and w.task is not None:
                    idx, w.task = w.task, None
                    w.reap(1.0)
                    code = w.proc.exitcode
                    how = f"signal {-code}" if code is not None and code < 0 else f"exit {code}"
                    pool[pool.index(w)] = _Worker(ctx, resolve)
                    if attempts[idx] > RETRIES:
                        on_result(
                            idx,
                            RuntimeError(
                                f"worker process died ({how}) running this scenario, "
                                f"{attempts[idx]} times"
                            ),
                        )
                    else:
                        todo.append(idx)
        for w in pool:
            with contextlib.suppress(OSError):
                w.conn.send(None)
        for w in pool:
            w.reap(5.0)
            if w.proc.is_alive():
                w.kill()
                w.reap(1.0)
    except BaseException:
        for w in pool:
            w.kill()
        for w in pool:
            w.reap(1.0)
        raise


class ClusterUnreachable(ConnectionError):
    """No Dask scheduler answered at a sweep's cluster address (nothing was run)."""


__all__ = ["ClusterUnreachable", "SweepInterrupted", "run_tasks", "signals_raise"]
