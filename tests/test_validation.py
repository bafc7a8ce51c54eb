"""Argument checking: JSON types without coercion, enums, ranges, null, unknown keys, all errors."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ripsight.tools import GLOB_SCHEMA, GREP_SCHEMA, READ_FILE_SCHEMA
from ripsight.validation import (
    ArgumentsError,
    check_arguments,
    closest_name,
    parse_arguments,
)


def test_defaults_are_filled_in():
    checked = check_arguments(GREP_SCHEMA, {"pattern": "TODO"})
    assert checked.ok
    assert checked.values == {
        "pattern": "TODO",
        "literal": False,
        "case_insensitive": False,
        "context": 0,
        "multiline": False,
        "invert_match": False,
        "include_ignored": False,
        "output_mode": "content",
        "limit": 50,
        "offset": 0,
    }


def test_string_number_is_not_an_integer():
    checked = check_arguments(GREP_SCHEMA, {"pattern": "x", "limit": "5"})
    assert checked.errors == [
        '"limit" must be an integer, got the string "5" (write it without quotes: 5).'
    ]


def test_boolean_is_not_an_integer():
    checked = check_arguments(READ_FILE_SCHEMA, {"path": "a", "offset": True})
    assert checked.errors == [
        '"offset" must be an integer, got the boolean true (a boolean is not a number).'
    ]


def test_fractional_number_is_not_an_integer_but_whole_float_is():
    checked = check_arguments(READ_FILE_SCHEMA, {"path": "a", "limit": 2.5})
    assert checked.errors == [
        '"limit" must be an integer, got the number 2.5 (use a whole number).'
    ]
    checked = check_arguments(READ_FILE_SCHEMA, {"path": "a", "limit": 20.0})
    assert checked.ok and checked.values["limit"] == 20 and type(checked.values["limit"]) is int


def test_string_boolean_is_not_a_boolean():
    checked = check_arguments(GREP_SCHEMA, {"pattern": "x", "literal": "true"})
    assert checked.errors == [
        (
            '"literal" must be a boolean (true or false), got the string "true" '
            "(write it without quotes: true)."
        )
    ]


def test_enum_with_suggestion():
    checked = check_arguments(GREP_SCHEMA, {"pattern": "x", "output_mode": "files"})
    assert checked.errors == [
        (
            '"output_mode" must be one of "content", "files_with_matches", "count", '
            '"files_without_match"; got "files" (did you mean "files_with_matches"?).'
        )
    ]


def test_ranges():
    checked = check_arguments(READ_FILE_SCHEMA, {"path": "a", "offset": 0, "limit": 5000})
    assert checked.errors == [
        '"offset" must be at least 1, got 0.',
        '"limit" must be at most 2000, got 5000.',
    ]


def test_empty_required_string():
    checked = check_arguments(GLOB_SCHEMA, {"pattern": ""})
    assert checked.errors == ['"pattern" must not be empty.']


def test_null_counts_as_absent():
    checked = check_arguments(GREP_SCHEMA, {"pattern": "x", "path": None, "limit": None})
    assert checked.ok
    assert "path" not in checked.values and checked.values["limit"] == 50
    checked = check_arguments(GREP_SCHEMA, {"pattern": None})
    assert checked.errors[0].startswith('missing required argument "pattern" (string): ')


def test_missing_required_argument_explains_it():
    checked = check_arguments(READ_FILE_SCHEMA, {})
    assert checked.errors == [
        (
            'missing required argument "path" (string): Path of the file to read, relative to the '
            'workspace root, e.g. "src/app.py".'
        )
    ]


def test_unknown_keys_are_dropped_with_the_closest_name():
    checked = check_arguments(READ_FILE_SCHEMA, {"file_path": "a.py", "start_line": 3, "zzz": 1})
    assert [(i.name, i.suggestion) for i in checked.ignored] == [
        ("file_path", "path"),
        ("start_line", "offset"),
        ("zzz", None),
    ]
    assert "file_path" not in checked.values
    assert checked.ignored[0].sentence() == (
        'ignored unknown argument "file_path" (did you mean "path"?)'
    )
    assert checked.ignored[2].sentence() == 'ignored unknown argument "zzz"'


def test_every_error_is_collected():
    checked = check_arguments(
        GREP_SCHEMA,
        {"pattern": 5, "limit": "5", "context": -1, "output_mode": "lines", "multiline": 1},
    )
    assert checked.errors == [
        '"pattern" must be a string, got the integer 5.',
        '"limit" must be an integer, got the string "5" (write it without quotes: 5).',
        '"context" must be at least 0, got -1.',
        (
            '"output_mode" must be one of "content", "files_with_matches", "count", '
            '"files_without_match"; got "lines".'
        ),
        '"multiline" must be a boolean (true or false), got the integer 1.',
    ]


def test_array_for_string():
    checked = check_arguments(READ_FILE_SCHEMA, {"path": ["a.py", "b.py"]})
    assert checked.errors == [
        (
            '"path" must be a string, got an array (pass one string; call the tool again for '
            "another value)."
        )
    ]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("file_path", "path"),
        ("filePath", "path"),
        ("directory", "path"),
        ("regex", "pattern"),
        ("include", "glob"),
        ("max_results", "limit"),
        ("-i", "case_insensitive"),
        ("context_lines", "context"),
        ("Pattern", "pattern"),
        ("pattrn", "pattern"),
        ("qqq", None),
    ],
)
def test_closest_name(name, expected):
    from ripsight.validation import ARGUMENT_ALIASES

    assert closest_name(name, GREP_SCHEMA["properties"], ARGUMENT_ALIASES) == expected


def test_parse_arguments_accepts_mappings_empty_text_and_double_encoding():
    assert parse_arguments({"a": 1}) == ({"a": 1}, [])
    assert parse_arguments("") == ({}, [])
    assert parse_arguments("  \n") == ({}, [])
    value, notes = parse_arguments(orjson.dumps('{"pattern": "x"}').decode())
    assert value == {"pattern": "x"} and notes


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"pattern": "TO',
            (
                "The arguments are not valid JSON: unexpected end of data at line 1, column 16 "
                "(character 15): the text ends inside a string (the closing quote is missing), "
                'with 1 bracket still open (missing `}`), after `{"pattern": "TO`; it looks cut '
                "off. Nothing was run. Send the arguments again as one complete JSON object, for "
                'example {"pattern": "TODO"}.'
            ),
        ),
        (
            '{"path": "a.py", "offset": 3,, "limit": 5}',
            (
                "The arguments are not valid JSON: unexpected character, expected a string key at "
                'line 1, column 30 (character 29): the text up to there is `{"path": "a.py", '
                '"offset": 3,` and it continues with `, "limit": 5}`. Nothing was run. Send the '
                'arguments again as one complete JSON object, for example {"pattern": "TODO"}.'
            ),
        ),
        (
            "{'pattern': 'x'}",
            (
                "The arguments are not valid JSON: unexpected character, expected a string key at "
                "line 1, column 2 (character 1): the text up to there is `{` and it continues with "
                "`'pattern': 'x'}`. Nothing was run. Send the arguments again as one complete JSON "
                'object, for example {"pattern": "TODO"}.'
            ),
        ),
        (
            '{\n  "path": "a",\n  "limit": 10\n',
            (
                "The arguments are not valid JSON: unexpected end of data at line 4, column 1 "
                "(character 31): the text ends with 1 bracket still open (missing `}`), after "
                '`{\\n  "path": "a",\\n  "limit": 10\\n`; it looks cut off. Nothing was run. Send '
                'the arguments again as one complete JSON object, for example {"pattern": "TODO"}.'
            ),
        ),
    ],
)
def test_malformed_json_says_where_it_broke(text, message):
    with pytest.raises(ArgumentsError) as caught:
        parse_arguments(text)
    assert str(caught.value) == message
    assert caught.value.kind == "malformed_json"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("[1, 2]", "an array"),
        ('"grep"', 'the string "grep"'),
        ("42", "the integer 42"),
        ("null", "null"),
        ("true", "the boolean true"),
    ],
)
def test_arguments_must_be_an_object(text, kind):
    with pytest.raises(ArgumentsError) as caught:
        parse_arguments(text)
    assert str(caught.value) == (
        f"The arguments must be a JSON object, got {kind}. Send them as one JSON object with "
        'named fields, for example {"pattern": "TODO"}.'
    )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(), children, max_size=3)
    ),
    max_leaves=8,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.text(max_size=12) | st.sampled_from(list(GREP_SCHEMA["properties"])),
        json_values,
        max_size=6,
    )
)
def test_checker_never_raises_and_reports_each_bad_key(arguments):
    checked = check_arguments(GREP_SCHEMA, arguments)
    assert set(checked.values) <= set(GREP_SCHEMA["properties"])
    for ignored in checked.ignored:
        assert ignored.name not in GREP_SCHEMA["properties"]
    if checked.ok:
        assert isinstance(checked.values["pattern"], str)
