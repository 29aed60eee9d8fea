"""pydantic's validation errors (a 422's `errors[].message`) in the request's language.

pydantic words its messages in English only. In English the API keeps them exactly as pydantic says
them (app.http.problems); in every other language each error `type` a request can meet here (JSON bodies,
path, query and header parameters) is said in our own words from the catalogs, its limits taken from
the error's `ctx`. A type not listed gets a general message, never pydantic's English.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.i18n import N_, _, fill, ngettext

# Types whose message needs nothing from the error's context.
_PLAIN = {
    "missing": N_("Field required"),
    "extra_forbidden": N_("Extra inputs are not permitted"),
    "json_type": N_("JSON input should be string, bytes or bytearray"),
    "model_type": N_("Input should be an object"),
    "model_attributes_type": N_("Input should be an object"),
    "dict_type": N_("Input should be an object"),
    "list_type": N_("Input should be a list"),
    "tuple_type": N_("Input should be a list"),
    "set_type": N_("Input should be a list"),
    "iterable_type": N_("Input should be a list"),
    "string_type": N_("Input should be a valid string"),
    "string_unicode": N_("Input should be a valid string, unable to parse raw data as a unicode string"),
    "string_not_ascii": N_("String should contain only ASCII characters"),
    "int_type": N_("Input should be a valid integer"),
    "int_parsing": N_("Input should be a valid integer, unable to parse string as an integer"),
    "int_parsing_size": N_("Unable to parse input string as an integer, exceeded maximum size"),
    "int_from_float": N_("Input should be a valid integer, got a number with a fractional part"),
    "float_type": N_("Input should be a valid number"),
    "float_parsing": N_("Input should be a valid number, unable to parse string as a number"),
    "finite_number": N_("Input should be a finite number"),
    "bool_type": N_("Input should be a valid boolean"),
    "bool_parsing": N_("Input should be a valid boolean, unable to interpret input"),
    "none_required": N_("Input should be null"),
    "datetime_type": N_("Input should be a valid date and time"),
    "datetime_parsing": N_("Input should be a valid date and time"),
    "datetime_from_date_parsing": N_("Input should be a valid date and time"),
    "datetime_object_invalid": N_("Input should be a valid date and time"),
    "date_type": N_("Input should be a valid date"),
    "date_parsing": N_("Input should be a valid date"),
    "timezone_aware": N_("Input should have timezone info"),
    "timezone_naive": N_("Input should not have timezone info"),
    "recursion_loop": N_("Input is nested too deeply"),
    "recursion_depth_exceeded": N_("Input is nested too deeply"),
}

# Types with a limit: the message, and the name of the limit in the error's context.
_BOUND = {
    "greater_than": (N_("Input should be greater than {limit}"), "gt"),
    "greater_than_equal": (N_("Input should be greater than or equal to {limit}"), "ge"),
    "less_than": (N_("Input should be less than {limit}"), "lt"),
    "less_than_equal": (N_("Input should be less than or equal to {limit}"), "le"),
    "multiple_of": (N_("Input should be a multiple of {limit}"), "multiple_of"),
}

GENERAL = N_("This value is not valid")


def _string_too_short(ctx: dict[str, Any]) -> str:
    n = int(ctx["min_length"])
    return fill(
        ngettext("String should have at least {n} character", "String should have at least {n} characters", n), n=n
    )


def _string_too_long(ctx: dict[str, Any]) -> str:
    n = int(ctx["max_length"])
    return fill(
        ngettext("String should have at most {n} character", "String should have at most {n} characters", n), n=n
    )


def _too_short(ctx: dict[str, Any]) -> str:
    n = int(ctx["min_length"])
    return fill(
        ngettext("Should have at least {n} item, not {actual}", "Should have at least {n} items, not {actual}", n),
        n=n,
        actual=ctx.get("actual_length", "?"),
    )


def _too_long(ctx: dict[str, Any]) -> str:
    n = int(ctx["max_length"])
    return fill(
        ngettext("Should have at most {n} item, not {actual}", "Should have at most {n} items, not {actual}", n),
        n=n,
        actual=ctx.get("actual_length", "?"),
    )


def _pattern(ctx: dict[str, Any]) -> str:
    return _("String should match pattern “{pattern}”").format(pattern=ctx["pattern"])


def _one_of(ctx: dict[str, Any]) -> str:
    # pydantic joins the allowed values as "'a', 'b' or 'c'": its "or" is English, so only the values
    # are kept, listed with commas.
    expected = str(ctx["expected"])
    head, sep, last = expected.rpartition(" or ")
    values = f"{head}, {last}" if sep else expected
    return _("Input should be one of: {values}").format(values=values)


def _value_error(ctx: dict[str, Any]) -> str:
    # Raised by our own validators (app.schemas), which say it in the request's language already.
    return str(ctx["error"])


_WITH_CONTEXT: dict[str, Callable[[dict[str, Any]], str]] = {
    "string_too_short": _string_too_short,
    "string_too_long": _string_too_long,
    "too_short": _too_short,
    "too_long": _too_long,
    "string_pattern_mismatch": _pattern,
    "enum": _one_of,
    "literal_error": _one_of,
    "value_error": _value_error,
}


def message(error: dict[str, Any]) -> str:
    """One of pydantic's errors (an item of `RequestValidationError.errors()`) in the request's language."""
    kind = error.get("type", "")
    ctx = error.get("ctx") or {}
    try:
        if kind in _PLAIN:
            return _(_PLAIN[kind])
        if kind in _BOUND:
            text, limit = _BOUND[kind]
            return _(text).format(limit=ctx[limit])
        if kind in _WITH_CONTEXT:
            return _WITH_CONTEXT[kind](ctx)
    except (KeyError, TypeError, ValueError):  # a context without what we expected: say it generally
        pass
    return _(GENERAL)
