"""The AST emitter: each substitution and folding rule on small templates, and its errors."""

import ast

import pytest

from awm.builder.codegen import (
    Expr,
    Ident,
    Repeat,
    TemplateError,
    render_function,
    render_function_source,
    render_module,
    signature,
)
from awm.builder.templates import tool_prelude
from tests.awm.builder import codegen_samples as samples

GLOBALS = frozenset({"error"})


def render(name, **bindings):
    return ast.unparse(render_function(samples, name, bindings, GLOBALS))


def test_constants_and_identifiers_are_substituted_and_the_docstring_dropped():
    source = render("select_THING", TABLE="patients", THING=Ident("patient"))
    assert source == ("def select_patient(db, patient_id):\n"
                      "    patient = db.one('SELECT * FROM patients WHERE id = ?', [patient_id])\n"
                      "    return patient")


def test_constant_concatenations_fold_even_after_a_variable():
    source = render("message", VERB="refund", LABEL="order")
    assert ("error('invalid_state', 'cannot refund order ' + name + ' because it is order closed')"
            in source)


def test_static_ifs_keep_only_the_branch_taken():
    assert "rows.append(2)\n    rows.append(3)" in render("optional", FLAG=False)
    taken = render("optional", FLAG=True)
    assert "rows.append(1)" in taken and "append(2)" not in taken and "append(3)" not in taken
    assert "if" not in taken


def test_a_repeat_binding_unrolls_its_loop_once_per_item():
    source = render("unrolled", TABLE="t", ITEMS=Repeat(({"KEY": "lines"}, {"KEY": "notes"})))
    assert "for" not in source
    assert "row['lines'] = db.query('SELECT * FROM t', [])\n    row['notes']" in source
    assert "for" not in render("unrolled", TABLE="t", ITEMS=Repeat(())) and "row = {}\n    return row" in \
        render("unrolled", TABLE="t", ITEMS=Repeat(()))


def test_an_expression_binding_is_parsed_and_a_bad_one_is_named():
    assert "return {'review_comment': comment}" in render("with_expression", EXTRA=Expr('{"review_comment": comment}'))
    with pytest.raises(TemplateError, match=r"EXTRA: '\{oops' is not a Python expression"):
        render("with_expression", EXTRA=Expr("{oops"))


def test_an_unbound_placeholder_names_itself():
    with pytest.raises(TemplateError, match=r"codegen_samples\.unbound: unbound placeholder\(s\) MISSING_TABLE"):
        render("unbound")


def test_an_unknown_template_and_an_unbindable_value_are_named():
    with pytest.raises(TemplateError, match="has no function nothing_here"):
        render("nothing_here")
    with pytest.raises(TemplateError, match="placeholder TABLE: cannot bind a set"):
        render("select_THING", TABLE={"a"}, THING=Ident("x"))


def test_name_signature_and_docstring_come_from_the_declaration():
    function = render_function(samples, "select_THING", {"TABLE": "t", "THING": Ident("x")}, GLOBALS,
                               name="get_x", args=signature([("x_id", True, None), ("limit", False, 20)]),
                               docstring="Get one x.")
    source = ast.unparse(function)
    assert source.startswith('def get_x(db, x_id, limit=20):\n    """Get one x."""\n')


def test_rendered_sources_are_memoised_on_the_bindings_the_template_uses():
    args = (("thing_id", True, None),)
    first = render_function_source(samples, "select_THING", {"TABLE": "t", "THING": Ident("thing"), "OTHER": 1},
                                   GLOBALS, "get_thing", args, "Doc.")
    again = render_function_source(samples, "select_THING", {"TABLE": "t", "THING": Ident("thing"), "OTHER": 2},
                                   GLOBALS, "get_thing", args, "Doc.")
    other = render_function_source(samples, "select_THING", {"TABLE": "u", "THING": Ident("thing")},
                                   GLOBALS, "get_thing", args, "Doc.")
    assert first is again and "FROM u" in other


def test_a_prelude_renders_without_its_docstring_and_imports():
    source = ast.unparse(render_module(tool_prelude, {"REFERENCE_NOW_ISO": "2030-01-01T00:00:00"}))
    assert source.startswith("REFERENCE_NOW = '2030-01-01T00:00:00'\nTODAY = REFERENCE_NOW[:10]")
    assert "import" not in source and "def transition(" in source


def test_a_rule_call_is_written_out_as_the_rule_with_its_arguments_in_place():
    bindings = {"TABLE": "things", "LABEL": "thing", "ITEMS": ("open", "held"), "THING": Ident("thing")}
    by_rule, by_hand = render("guarded", **bindings), render("guarded_by_hand", **bindings)
    assert by_rule == by_hand.replace("def guarded_by_hand(", "def guarded(")
    assert "require_status" not in by_rule and "refused" not in by_rule
    assert "'thing ' + str(thing_id) + ' is ' + other['status'] + ', not open'" in by_rule  # the reason appended
    assert "' is ' + thing['status'])" in by_rule  # an empty reason left out, not `+ ''`


def test_a_walrus_on_a_function_that_is_no_rule_stays_a_call():
    source = ast.unparse(render_function(samples, "checked_by_a_function", {}, GLOBALS | {"select_THING"}))
    assert "if (refused := select_THING(db, THING_id)):\n        return refused" in source


def test_a_rule_called_wrongly_or_written_wrongly_is_named():
    with pytest.raises(TemplateError, match=r"rule awm\.builder\.templates\.tool_rules\.require_status called in "
                                            r"tests\.awm\.builder\.codegen_samples: missing argument\(s\) label, name"):
        render("misusing_a_rule")
    with pytest.raises(TemplateError, match=r"rule tests\.awm\.builder\.codegen_samples\.assigning_rule: a rule "
                                            r"assigns no name"):
        render("calling_a_bad_rule")
