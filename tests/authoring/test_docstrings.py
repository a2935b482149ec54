"""Docstrings: the description and each parameter's text, in Google, NumPy and reST style."""

from __future__ import annotations

from graphrt.authoring.docstrings import parse_docstring

GOOGLE = """Adds two numbers.

    Works on ints and floats.

    Args:
        a (int): the first number,
            which may be negative.
        b: the second number.
        **extra: ignored.

    Returns:
        The sum.
    """

NUMPY = """Adds two numbers.

    Parameters
    ----------
    a, b : float
        The numbers.
    scale : float, optional
        What to multiply by.

    Returns
    -------
    float
        The scaled sum.
    """

REST = """Adds two numbers.

    :param int a: the first number,
        which may be negative.
    :param b: the second number.
    :type b: int
    :returns: the sum.
    :raises ValueError: never.
    """


def test_google_style_gives_description_parameters_and_returns() -> None:
    doc = parse_docstring(GOOGLE)
    assert (doc.style, doc.description, doc.returns, doc.problems) == (
        "google", "Adds two numbers.\n\nWorks on ints and floats.", "The sum.", [])
    assert doc.params == {"a": "the first number, which may be negative.", "b": "the second number.", "extra": "ignored."}


def test_numpy_style_gives_each_name_of_a_shared_entry_the_text() -> None:
    doc = parse_docstring(NUMPY)
    assert (doc.style, doc.description, doc.returns) == ("numpy", "Adds two numbers.", "The scaled sum.")
    assert doc.params == {"a": "The numbers.", "b": "The numbers.", "scale": "What to multiply by."}


def test_rest_style_reads_param_fields_and_skips_type_fields() -> None:
    doc = parse_docstring(REST)
    assert (doc.style, doc.description, doc.returns) == ("rest", "Adds two numbers.", "the sum.")
    assert doc.params == {"a": "the first number, which may be negative.", "b": "the second number."}


def test_a_plain_docstring_is_all_description() -> None:
    doc = parse_docstring("Says hello.\n\n    Twice, if asked.")
    assert (doc.description, doc.params, doc.problems) == ("Says hello.\n\nTwice, if asked.", {}, [])


def test_no_docstring_is_empty() -> None:
    assert parse_docstring(None).description == ""


def test_an_unreadable_google_entry_is_a_problem_not_a_guess() -> None:
    doc = parse_docstring("""Greets.

    Args:
        name: who.
        the volume to use
    """)
    assert doc.params == {"name": "who."}
    assert doc.problems == ["cannot read 'the volume to use' under 'Args:' (expected 'name: description')"]


def test_an_unreadable_numpy_entry_is_a_problem() -> None:
    doc = parse_docstring("""Greets.

    Parameters
    ----------
    the name : str
        who.
    """)
    assert doc.problems == [
        "cannot read 'the name : str' under 'Parameters' (expected 'name : type')",
        "cannot read 'who.' under 'Parameters' (expected 'name : type')",
    ]


def test_a_rest_param_without_a_name_is_a_problem() -> None:
    assert parse_docstring("Greets.\n\n:param: who").problems == [
        "cannot read ':param: who' (expected ':param name: description')"
    ]
