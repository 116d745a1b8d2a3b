"""``make mutants`` runs the tests that execute a mutated line, found by the statement it is in."""

from __future__ import annotations

from mutation import select  # not its names: pytest would collect ``tests_for``

SOURCE = """\
def secrets(env):
    found = []
    for name, value in env.items():
        if (
            name.endswith("_TOKEN")
            and len(value) >= 8
        ):
            found.append(value)
    return found
"""


def test_a_mutated_if_line_of_a_multi_line_condition_finds_the_tests_of_its_condition() -> None:
    """Python 3.12+ records the condition's lines, not the ``if (`` line a mutant changes."""
    by_line = {"5": ["test_env"], "6": ["test_env"], "8": ["test_env", "test_found"]}
    mutated = SOURCE.replace("        if (", "        if not (")
    [line] = select.changed_lines(SOURCE, mutated)
    assert line == 4 and str(line) not in by_line
    assert select.statement_lines(SOURCE, line) == {4, 5, 6, 7}  # the header, not the body
    assert select.tests_for(select.statement_lines(SOURCE, line), by_line, []) == ["test_env"]


def test_a_simple_statement_is_its_own_lines() -> None:
    assert select.statement_lines(SOURCE, 2) == {2}
    assert select.statement_lines(SOURCE, 9) == {9}
