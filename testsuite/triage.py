"""Kept for old imports: the queue now lives in `testsuite.verdicts.queue`."""

from .verdicts.queue import Pending, decide, pending_warnings

__all__ = ["Pending", "decide", "pending_warnings"]
