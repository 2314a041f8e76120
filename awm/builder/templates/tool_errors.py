"""The error helper of each API style (awm.builder.dialect): rendered as the prelude's `error` in an
environment of that style. Every shape keeps the structured-error contract: one key "error" holding at
least a code and a message (awm.runtime.is_error)."""


def error_plain(code, message, **details):
    return {"error": {"code": code, "message": message}}


def error_status(code, message, **details):
    status = {"not_found": 404, "conflict": 409, "invalid_state": 409, "invalid_argument": 400}.get(code, 422)
    return {"error": {"code": code.upper(), "message": message, "status": status}}


def error_detailed(code, message, **details):
    return {"error": {"code": code, "message": message, "retryable": False, "details": details}}
