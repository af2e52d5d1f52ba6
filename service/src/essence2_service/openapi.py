"""The OpenAPI 3 document of the service, served at /openapi.json (tests fuzz the service against it)."""

from __future__ import annotations

from typing import Any

from . import __version__

# Ten years: a cumulative figure above this is not a session, it is a bug or an attack.
MAX_SECONDS = 315_576_000

_ERROR_CODES = ["INVALID_SECRET", "AGENT_NOT_ENTITLED", "NOT_FOUND", "SESSION_CLOSED", "BAD_REQUEST",
                "RATE_LIMITED", "SESSION_LIMIT"]


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def _ok(description: str, schema: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}},
    }


_SECONDS = {"type": "integer", "minimum": 0, "maximum": MAX_SECONDS}
_SHA256 = {"type": "string", "pattern": "^[0-9a-fA-F]{64}$"}
# Stored strings: no control characters (C0, DEL, C1; the service also refuses the other unprintable ones, as
# Python's str.isprintable: format characters, line and paragraph separators, spaces other than U+0020).
_PRINTABLE = {
    "type": "string",
    "minLength": 1,
    "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$",
    "description": "Printable characters only: control characters are refused (422).",
}
_CODE_PARAM = {
    "name": "code",
    "in": "path",
    "required": True,
    "description": "The avatar's code; the newest version registered under it is served.",
    "schema": {"type": "string", "minLength": 1},
    "example": "grace-hopper",
}
_RATE_LIMITED = {
    "429": {
        **_error("RATE_LIMITED: too many requests for this account; retry after Retry-After seconds."),
        "headers": {"Retry-After": {"schema": {"type": "string", "pattern": "^[0-9]+$"}}},
    },
}
_AVATAR_ERRORS = {
    "401": _error("INVALID_SECRET: missing, unknown or revoked secret."),
    "404": _error("NOT_FOUND: no avatar with this code that this account may use (the same answer for a code that "
                  "does not exist and for one the account may not use, so that codes do not leak)."),
    **_RATE_LIMITED,
}
_BODY_ERRORS = {
    "400": _error("BAD_REQUEST: the body is not a JSON object, or a field is missing or has the wrong type."),
    "408": _error("BAD_REQUEST: the body did not arrive in time; the connection is closed."),
    "413": _error("BAD_REQUEST: the body is too large."),
    "422": _error("BAD_REQUEST: a field's value is out of range or inconsistent."),
}

OPENAPI: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {
        "title": "essence2 service",
        "version": __version__,
        "description": "What libessence2 sends to a service: sessions, usage reports, avatar downloads "
        "(docs/service-protocol.md). Errors have the body {\"error\": CODE, \"reason\": SENTENCE}.",
    },
    "components": {
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "description": "The API secret."}},
        "schemas": {
            "Error": {
                "type": "object",
                "required": ["error", "reason"],
                "properties": {"error": {"type": "string", "enum": _ERROR_CODES}, "reason": {"type": "string"}},
                "additionalProperties": False,
            },
            "Health": {
                "type": "object",
                "required": ["status"],
                "properties": {"status": {"type": "string", "enum": ["ok"]}},
                "additionalProperties": False,
            },
            "SessionRequest": {
                "type": "object",
                "required": ["avatar_sha256", "install_id"],
                "properties": {
                    "avatar_sha256": {**_SHA256, "description": "SHA-256 of the .imx file."},
                    "avatar_name": {"type": "string", "minLength": 1, "maxLength": 256},
                    "install_id": {**_PRINTABLE, "maxLength": 128},
                    "client": {**_PRINTABLE, "maxLength": 128},
                },
            },
            "Session": {
                "type": "object",
                "required": ["session_id", "report_interval_s", "avatar_code"],
                "properties": {
                    "session_id": {"type": "string"},
                    "report_interval_s": {"type": "integer", "minimum": 1},
                    "avatar_code": {"type": "string", "nullable": True},
                },
                "additionalProperties": False,
            },
            "UsageReport": {
                "type": "object",
                "required": ["seconds", "talking_seconds", "idle_seconds"],
                "properties": {
                    "seconds": {**_SECONDS, "description": "Cumulative; must equal talking + idle."},
                    "talking_seconds": _SECONDS,
                    "idle_seconds": _SECONDS,
                    "final": {"type": "boolean", "default": False},
                },
            },
            "Usage": {
                "type": "object",
                "required": ["session_id", "billed_seconds", "closed"],
                "properties": {
                    "session_id": {"type": "string"},
                    "billed_seconds": {"type": "integer", "minimum": 0},
                    "closed": {"type": "boolean"},
                },
                "additionalProperties": False,
            },
            "Avatar": {
                "type": "object",
                "required": ["code", "name", "sha256", "size", "format_version"],
                "properties": {
                    "code": {"type": "string"},
                    "name": {"type": "string"},
                    "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                    "size": {"type": "integer", "minimum": 0},
                    "format_version": {"type": "integer", "minimum": 1},
                },
                "additionalProperties": False,
            },
        },
    },
    "paths": {
        "/v1/health": {
            "get": {
                "operationId": "health",
                "security": [],
                "responses": {"200": _ok("The service is up.", "Health")},
            }
        },
        "/openapi.json": {
            "get": {
                "operationId": "openapi",
                "security": [],
                "responses": {
                    "200": {
                        "description": "This document.",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        },
        "/v1/sessions": {
            "post": {
                "operationId": "createSession",
                "security": [{"bearer": []}],
                "parameters": [
                    {
                        "name": "Idempotency-Key",
                        "in": "header",
                        "required": False,
                        "description": "Optional. A start sent again with a key this account already used (the "
                                       "first answer was lost) gets that session again, not a second one; the "
                                       "same key with another avatar_sha256 or install_id is refused (422).",
                        "schema": {"type": "string", "pattern": "^[\\x21-\\x7e]{1,128}$"},
                    }
                ],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SessionRequest"}}},
                },
                "responses": {
                    "201": _ok("The session is accepted.", "Session"),
                    "401": _error("INVALID_SECRET: missing, unknown or revoked secret."),
                    "403": _error("AGENT_NOT_ENTITLED: refused; nothing is recorded as billed."),
                    **_BODY_ERRORS,
                    "429": {
                        **_error("RATE_LIMITED (too many requests; Retry-After) or SESSION_LIMIT (the account "
                                 "has as many open sessions as it may)."),
                        "headers": {"Retry-After": {"schema": {"type": "string", "pattern": "^[0-9]+$"}}},
                    },
                },
            }
        },
        "/v1/sessions/{session_id}/usage": {
            "post": {
                "operationId": "reportUsage",
                "security": [{"bearer": []}],
                "parameters": [
                    {
                        "name": "session_id",
                        "in": "path",
                        "required": True,
                        "description": "The session_id returned by POST /v1/sessions.",
                        "schema": {"type": "string", "minLength": 1},
                    }
                ],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/UsageReport"}}},
                },
                "responses": {
                    "200": _ok("Recorded; the largest cumulative figures are kept.", "Usage"),
                    "401": _error("INVALID_SECRET: the secret was revoked (final for the session)."),
                    "404": _error("NOT_FOUND: no such session for this account."),
                    "409": _error("SESSION_CLOSED: a report after the final one."),
                    **_BODY_ERRORS,
                    **_RATE_LIMITED,
                },
            }
        },
        "/v1/avatars/{code}": {
            "get": {
                "operationId": "avatarMetadata",
                "security": [{"bearer": []}],
                "parameters": [_CODE_PARAM],
                "responses": {"200": _ok("The newest version of the avatar.", "Avatar"), **_AVATAR_ERRORS},
            }
        },
        "/v1/avatars/{code}/file": {
            "get": {
                "operationId": "avatarFile",
                "security": [{"bearer": []}],
                "parameters": [_CODE_PARAM],
                "responses": {
                    "200": {
                        "description": "The .imx bytes of the newest version.",
                        "headers": {
                            "ETag": {"required": True, "schema": {"type": "string", "pattern": '^"[0-9a-f]{64}"$'}},
                            "X-Essence2-Sha256": {
                                "required": True,
                                "schema": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                            },
                        },
                        "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
                    },
                    **_AVATAR_ERRORS,
                },
            }
        },
    },
}
