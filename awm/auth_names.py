"""The rule that keeps authentication data out of environments: names that look like it.

Environments model a business, never its logins: the schemas stage rejects such a table or column, and
the schemas check proves none was let through."""

from __future__ import annotations

# Whole words (of snake_case names) that mark authentication data, which environments must not model:
# "authors" is fine, "user_auth" and "password_hash" are not.
# ("coaching_sessions" and "game_tokens" are business data; "session_tokens" is not.)
AUTH_WORDS = {"password", "passwords", "passwd", "credential", "credentials", "auth", "authentication",
              "login", "logins", "otp", "mfa"}
AUTH_PAIRS = {("session", "token"), ("session", "tokens"), ("access", "token"), ("access", "tokens"),
              ("refresh", "token"), ("refresh", "tokens"), ("api", "key"), ("api", "keys")}


def looks_like_auth(name: str) -> bool:
    words = name.lower().split("_")
    return bool(AUTH_WORDS & set(words)) or any(pair in AUTH_PAIRS for pair in zip(words, words[1:]))
