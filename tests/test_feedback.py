"""The HTML feedback a student gets reveals no hidden test and no answer, but still says what failed."""

from __future__ import annotations

import html
import re

import pytest
from nbformat.v4 import new_code_cell, new_output

from attnlab.instructor.feedback import RedactTestTracebacks, visible_lines
from grading import found_in, squash, write_submission
from instructor_course import CHAPTER, cli, copy_course

SOURCE = "x = 1\n### BEGIN HIDDEN TESTS\nassert secret_answer == 'c'\n### END HIDDEN TESTS\nassert x == 2, 'x should be 2'"


def _test_cell(line: int, ename="AssertionError", evalue=""):
    cell = new_code_cell(SOURCE, metadata={"nbgrader": {"grade": True, "solution": False, "grade_id": "t", "points": 1}})
    frame = f"\x1b[0;32mCell In[7], line {line}\x1b[0m\n  3 assert secret_answer == 'c'\n----> {line} ..."
    cell.outputs = [new_output("error", ename=ename, evalue=evalue,
                               traceback=["-" * 20, f"{ename}  Traceback (most recent call last)", frame])]
    return cell


def test_visible_lines_are_numbered_as_the_student_sees_them():
    assert visible_lines(SOURCE) == {1: (1, "x = 1"), 5: (2, "assert x == 2, 'x should be 2'")}


def test_a_hidden_test_failure_shows_no_hidden_line():
    cell, _ = RedactTestTracebacks().preprocess_cell(_test_cell(3), {}, 0)
    assert cell.outputs[0]["traceback"] == ["AssertionError", "raised by a hidden test of this part"]


def test_a_visible_test_failure_names_its_line_and_message():
    cell, _ = RedactTestTracebacks().preprocess_cell(_test_cell(5, evalue="x should be 2"), {}, 0)
    assert cell.outputs[0]["traceback"] == [
        "AssertionError: x should be 2", "raised by line 2 of this test cell: assert x == 2, 'x should be 2'"]


def test_answer_cells_keep_their_tracebacks():
    cell = _test_cell(3)
    cell.metadata["nbgrader"]["solution"] = True
    before = list(cell.outputs[0]["traceback"])
    assert RedactTestTracebacks().preprocess_cell(cell, {}, 0)[0].outputs[0]["traceback"] == before


def _visible_text(page: str) -> str:
    """The text of an HTML page as a reader sees it (tags dropped, entities decoded), squashed."""
    page = re.sub(r"<style.*?</style>|<script.*?</script>", "", page, flags=re.S)
    return squash(html.unescape(re.sub(r"<[^>]+>", "", page)))


@pytest.mark.slow
def test_feedback_hides_hidden_tests_and_explains_visible_failures(tmp_path, monkeypatch):
    from grading import secret_lines

    root = copy_course(tmp_path / "course")
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    monkeypatch.delenv("ATTNLAB_GRADEBOOK_URL", raising=False)
    assert cli("release")[0] == 0
    # answer_masking fails only its hidden test; causal_mask fails the visible test (and the hidden one)
    answers = {"mc_answers": 'answer_masking = "a"\nanswer_doubling = "a"',
               "causal_mask": "def causal_mask(t, s, offset):\n    return torch.ones(t, s, dtype=torch.bool)"}
    # the other parts are left as stubs, so that no model answer is in the page as the student's own code
    write_submission(CHAPTER, tmp_path / "download" / "carol_exercises.ipynb", answers, base="student")
    assert cli("collect", CHAPTER, str(tmp_path / "download"))[0] == 0
    status, out, err = cli("autograde", CHAPTER)
    assert status == 0, out + err
    status, out, err = cli("feedback", CHAPTER)
    assert status == 0, out + err
    page = (root / "feedback" / "carol" / CHAPTER / "exercises.html").read_text(encoding="utf-8")
    text = _visible_text(page)
    assert "HIDDEN" not in page
    leaked = found_in(secret_lines(CHAPTER), text)
    assert not leaked, leaked
    assert squash('_text(answer_masking, "answer_masking") == "d"') not in text and squash('== "d", "8a') not in text
    assert "raised by a hidden test of this part" in page
    # the visible test of causal_mask still says which line failed
    assert squash("raised by line 5 of this test cell: assert m.tolist() == [[True, True, True, False, False],") in text
