"""The integrations' third-party imports: one line naming the extra to install, not a traceback.

Each integration wraps its third-party imports::

    with needs_extra("web", __name__):
        from aiohttp import web

When one of them cannot be imported, importing the module raises ``MissingExtra`` (an ``ImportError``) whose
message names the extra, ``essence2.web needs the 'web' extra: pip install 'essence2[web]'``, chained to the
original error; run as ``python -m essence2.web``, that line goes to stderr and the process exits with status 1.
The extras and their requirements are listed once, in ``python/pyproject.toml``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager


class MissingExtra(ImportError):
    """An integration's dependencies are not installed; the message names the extra that brings them."""


def message(module: str, extra: str) -> str:
    return f"{module} needs the '{extra}' extra: pip install 'essence2[{extra}]'"


@contextmanager
def needs_extra(extra: str, name: str) -> Iterator[None]:
    """Turns an ImportError in the block into ``MissingExtra`` naming ``extra``, or, when the module is being run
    (``name`` is ``"__main__"``), into that one line on stderr and exit status 1."""
    try:
        yield
    except ImportError as e:
        module = name
        if name == "__main__":
            spec = getattr(sys.modules.get("__main__"), "__spec__", None)
            module = spec.name if spec is not None else f"essence2.{extra}"
        text = message(module, extra)
        if name == "__main__":
            print(text, file=sys.stderr)
            raise SystemExit(1) from None
        raise MissingExtra(text, name=e.name, path=e.path) from e
