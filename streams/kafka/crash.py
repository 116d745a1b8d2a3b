"""Crash-only exits: when the worker cannot go on safely, it stops at once without committing.

The supervisor (Kubernetes, the fault harness) starts it again, and what it had not committed
is redelivered. Used when producing fails, when work that must not raise raises, and when
table recovery stops making progress.
"""

from __future__ import annotations

import logging
import os
from typing import NoReturn

_log = logging.getLogger(__name__)
EXIT_WITHOUT_COMMIT = 70  # EX_SOFTWARE: the supervisor restarts us; nothing was committed


def exit_without_commit(why: str) -> NoReturn:
    """Stop at once so nothing is acked; the input is redelivered to a successor."""
    _log.critical("%s: exiting without commit so the input is redelivered", why, exc_info=True)
    logging.shutdown()
    os._exit(EXIT_WITHOUT_COMMIT)
