"""The body helpers of the nested API style (awm.builder.dialect, bodies: nested), rendered after the prelude in
an environment of that style. A tool taking an object argument (contact={"email": ..., "phone": ...}) opens with
a prologue the builder renders (awm.builder.tools.body_prologue): `body_error` refuses a body that is not an
object, has a field the tool does not know, or misses or mistypes one, naming the field by its path
(contact.email); `body_value` then gives each field to the template under the name it already uses."""

from awm.builder.templates.tool_prelude import error


def body_error(body, path, fields):
    if body is None:
        body = {}
    if not isinstance(body, dict):
        return error("invalid_argument", path + " must be an object", argument=path)
    known = [field[0] for field in fields]
    for name in body:
        if name not in known:
            return error("invalid_argument", path + "." + str(name) + " is not a field of " + path
                         + " (fields: " + ", ".join(known) + ")", argument=path + "." + str(name))
    for name, kind, required in fields:
        value = body.get(name)
        if value is None:
            if required:
                return error("invalid_argument", path + "." + name + " is required", argument=path + "." + name)
        elif not body_fits(value, kind):
            return error("invalid_argument", path + "." + name + " must be " + kind, argument=path + "." + name)
    return None


def body_fits(value, kind):
    if isinstance(value, bool):
        return kind == "boolean"
    if kind == "integer":
        return isinstance(value, int)
    if kind == "number":
        return isinstance(value, (int, float))
    if kind == "string":
        return isinstance(value, str)
    return kind != "boolean"


def body_value(body, name, default):
    value = body.get(name) if isinstance(body, dict) else None
    return default if value is None else value
