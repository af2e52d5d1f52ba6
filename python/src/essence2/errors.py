"""Exceptions raised by the essence2 package."""

from __future__ import annotations


class Essence2Error(RuntimeError):
    """A call into libessence2 failed.

    ``code`` is the library's negative return code (see ``include/essence2.h``) and ``reason`` the sentence the
    library recorded for it (``be_essence2_last_error``), which says what went wrong and usually what to do.
    """

    def __init__(self, function: str, code: int, reason: str) -> None:
        self.function = function
        self.code = code
        self.reason = reason
        super().__init__(f"{function} failed ({code}): {reason}" if reason else f"{function} failed ({code})")


class SessionRefused(Essence2Error):
    """The session was refused by the credential check (code -3); ``reason`` gives the service's words."""


class LibraryNotFound(OSError):
    """libessence2 could not be loaded."""
