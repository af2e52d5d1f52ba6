"""Sessions against a service the operator runs, and avatars downloaded from it (docs/sessions.md).

With no service configured (the default) nothing here is needed: sessions run unmetered and nothing leaves the
machine. These set the library's process-wide settings, which apply to engines created afterwards::

    import essence2.sessions as sessions

    sessions.set_service_url("https://avatars.example.com")
    sessions.set_api_secret(secret)
    path = sessions.download_avatar("grace")      # cached by sha256; a second call returns at once
    engine = essence2.Essence2(path)              # SessionRefused when the service refuses
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

from . import _native as N
from .errors import Essence2Error, SessionRefused


def _encode(value: str | os.PathLike[str] | None, what: str) -> bytes | None:
    if value is None:
        return None
    text = os.fspath(value)
    if "\0" in text:
        raise ValueError(f"{what} contains a NUL character")
    return text.encode("utf-8")


def set_service_url(url: str | None) -> None:
    """Sets the service sessions check with (``http://`` or ``https://``); ``None`` goes back to the environment
    (``ESSENCE2_SERVICE_URL``), ``""`` means no service whatever the environment says.

    Raises:
        Essence2Error: the URL is not an http or https URL (the library's reason says why).
    """
    code = N.library().be_essence2_set_service_url(_encode(url, "url"))
    if code != N.OK:
        raise Essence2Error("be_essence2_set_service_url", code, N.last_error())


def set_api_secret(secret: str | None) -> None:
    """Sets the API secret sessions use; ``None`` goes back to the environment (``ESSENCE2_API_SECRET``)."""
    N.library().be_essence2_set_api_secret(_encode(secret, "secret"))


def download_avatar(agent_code: str, directory: str | os.PathLike[str] | None = None) -> Path:
    """The path of the avatar ``agent_code`` from the configured service: checked against its sha256 and cached
    (under ``$XDG_CACHE_HOME/essence2/avatars``, or ``directory``); a cached copy comes back at once and is
    checked with the service in the background. Without the network a cached copy is returned only to a secret
    the service allowed to open it.

    Raises:
        SessionRefused: no secret, or the service refused this secret for this avatar.
        Essence2Error: no service configured, the service unreachable with nothing cached, an unknown code, a
            file that does not match its sha256, or a format newer than this library reads.
    """
    lib = N.library()
    code_bytes = _encode(agent_code, "agent_code")
    dir_bytes = _encode(directory, "directory")
    size = 4096
    while True:
        buf = ctypes.create_string_buffer(size)
        n = lib.be_essence2_download_avatar(code_bytes, dir_bytes, buf, size)
        if n < 0:
            reason = N.last_error()
            if n == -3:
                raise SessionRefused("be_essence2_download_avatar", n, N.last_refusal() or reason)
            raise Essence2Error("be_essence2_download_avatar", n, reason)
        if n < size:
            return Path(buf.value.decode("utf-8", "surrogateescape"))
        size = n + 1
