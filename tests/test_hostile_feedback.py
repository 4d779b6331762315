"""Feedback that leaks nothing (issue 17, point 3): student outputs are truncated and made inert, and
no text of a hidden test reaches the page, whatever student code printed, raised or displayed.

The fast tests run the feedback preprocessors on notebooks built here; the slow ones grade a small
hostile batch of chapter 2 once (module fixture) and write its feedback with `attnlab-course feedback`.
"""

from __future__ import annotations

import ast
import json
import re

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from attnlab import course
from attnlab.instructor import feedback as fb
from grading import ROOT, found_in, secret_lines, solution_code, squash, write_submission
from instructor_course import CHAPTER, cli, copy_course

HOSTILE_HTML = ('<script>alert(1)</script><img src="x" onerror="alert(2)"><a href="javascript:alert(3)">link</a>'
                '<b>bold</b><iframe src="javascript:alert(4)"></iframe><form action="javascript:alert(5)"></form>')
HOSTILE_SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(6)</script><circle r="5" onload="alert(7)"/></svg>'


def _test_cell(source, gid="test_part", outputs=()):
    cell = new_code_cell(source, metadata={"nbgrader": {"grade": True, "solution": False, "locked": True,
                                                        "grade_id": gid, "points": 1}})
    cell.outputs = list(outputs)
    return cell


def _answer_cell(source, gid="part", outputs=()):
    cell = new_code_cell(source, metadata={"nbgrader": {"grade": False, "solution": True, "locked": False, "grade_id": gid}})
    cell.outputs = list(outputs)
    return cell


def _run(nb, hidden_lines, **traits):
    """The feedback preprocessors that need no gradebook, in their order; returns the notebook."""
    resources = {"nbgrader": {"student": "s"}}
    nb, resources = fb.RedactTestTracebacks().preprocess(nb, resources)
    nb, resources = fb.SafeOutputs(hidden_lines=hidden_lines, **traits).preprocess(nb, resources)
    nb, resources = fb.ClearHiddenTestRegions().preprocess(nb, resources)
    return nb


def _html(nb) -> str:
    from nbconvert import HTMLExporter

    return HTMLExporter(template_name="classic").from_notebook_node(nb)[0]


def _source_nb(chapter: str = CHAPTER):
    return json.loads((ROOT / "solutions" / chapter / "exercises.ipynb").read_text(encoding="utf-8"))


def _hidden_cells(chapter: str = CHAPTER) -> list[str]:
    return ["".join(c["source"]) for c in _source_nb(chapter)["cells"] if fb.BEGIN in "".join(c["source"])]


def _hidden_secrets() -> set[str]:
    """The test suite's secret lines (tests/grading.py) that belong to hidden tests, not model answers:
    a student's own code may well equal a model answer (a hidden reference that forms its sum as the answer does,
    `total = e.sum(dim=-1, keepdim=True)`, is the student's line too), and lines shorter than the feedback's
    ``MIN_LINE`` (`s = 2 ** 20 + 3`) are too generic to be anyone's secret."""
    hidden = {squash(line) for cell in _hidden_cells() for line in cell.split("\n")}
    answers = squash("\n".join(solution_code(CHAPTER).values()))
    return {s for s in secret_lines(CHAPTER) if s in hidden and s not in answers and len(s) >= fb.MIN_LINE}


def _no_secret(text: str) -> list[str]:
    """The hidden-test lines that ``text`` shows, raw, with Python escapes undone, or as a page's text."""
    import html

    flat = squash(text) + squash(fb._unescape_python(text)) + squash(html.unescape(re.sub(r"<[^>]+>", "", text)))
    return found_in(_hidden_secrets(), flat)


# --------------------------------------------------------------------------- pure functions

def test_hidden_test_lines_skip_short_comment_and_visible_lines():
    source = new_notebook(cells=[_test_cell(
        "x = f(3)\n### BEGIN HIDDEN TESTS\nassert ok\n# compare with the reference on random inputs\n"
        "assert _close(scores(q, k), reference_scores(q, k))\nassert shape_of(result) == (2, 3, 4)\n"
        "### END HIDDEN TESTS")])
    lines = fb.hidden_test_lines(source, visible_text="assert shape_of(result) == (2, 3, 4)")
    assert lines == ["assert_close(scores(q,k),reference_scores(q,k))"]


def test_chapter_hidden_lines_cover_the_secret_lines_of_the_test_suite():
    lines = fb.chapter_hidden_lines(ROOT, CHAPTER)
    secrets = _hidden_secrets()
    assert secrets and secrets <= set(lines)


@pytest.mark.parametrize("chapter", course.chapters(ROOT))
def test_no_hidden_line_of_any_chapter_is_shown_by_a_student_notebook(chapter):
    """The feedback hides a chapter's hidden lines except those its student notebook shows anyway (a line shared with
    a visible test). The notebook is read squashed, across its lines: a line of the grading_helpers cell, which every
    student notebook holds, that ends as a hidden test's line begins made both one string (the helpers' round-30 sweep
    did: 'f"the reference for {what}", weights=w)' of chapters 2 and 6), and the feedback then showed that hidden line
    while the leak scans counted it as leaked. Every hidden line the test suite counts as secret (tests/grading.py),
    long enough for the feedback to look for, is one the feedback hides."""
    hidden = {squash(line) for cell in _hidden_cells(chapter) for line in cell.split("\n")}
    secrets = {s for s in secret_lines(chapter) if s in hidden and len(s) >= fb.MIN_LINE}
    assert secrets - set(fb.chapter_hidden_lines(ROOT, chapter)) == set()


@pytest.mark.parametrize("dress", [
    lambda s: s,                                        # raised as an AssertionError's message
    lambda s: repr(s),                                  # printed inside a list or a dict
    lambda s: json.dumps(s),                            # as JSON
    lambda s: __import__("html").escape(s),             # as HTML text
    lambda s: "".join(f"<span>{c}</span>" for c in s),  # as highlighted HTML
    lambda s: "\x1b[0;31m" + s.replace(" ", "\x1b[0m ") + "\x1b[0m",  # with ANSI colours
])
def test_leaks_finds_a_hidden_test_however_it_is_dressed(dress):
    lines = fb.chapter_hidden_lines(ROOT, CHAPTER)
    cell = max(_hidden_cells(), key=len)
    assert fb.leaks(dress(cell), lines)
    assert fb.leaks(dress("print('hello')\nx = 1"), lines) == []


def test_the_caller_source_in_an_assertion_leaves_no_hidden_line():
    """The red team's attack: a student function raises AssertionError(inspect.getsource(caller)), so
    the test cell's error carries the whole test with its hidden part."""
    lines = fb.chapter_hidden_lines(ROOT, CHAPTER)
    cells = []
    for index, source in enumerate(_hidden_cells()):
        frame = f"Cell In[{index + 3}], line 1"
        error = new_output("error", ename="AssertionError", evalue=source, traceback=[frame, source])
        cells.append(_test_cell(source, gid=f"test_{index}", outputs=[error]))
        cells.append(_answer_cell("print(In[-1])", gid=f"later_{index}",
                                  outputs=[new_output("stream", name="stdout", text=source)]))
    nb = _run(new_notebook(cells=cells), lines)
    page = _html(nb)
    assert _no_secret(page) == []
    assert page.count(fb.LEAK_NOTICE) == 2 * len(_hidden_cells())
    assert fb.REMOVED["s"] and all("quoted a hidden test" in n for n in fb.REMOVED["s"])


def _hostile_outputs() -> list:
    """One output of every kind a student could make live in a page: HTML, SVG, Markdown, JavaScript, a widget,
    an image with a hostile size, a script in a stream, HTML as a result."""
    return [
        new_output("display_data", data={"text/html": HOSTILE_HTML, "text/plain": "x"}),
        new_output("display_data", data={"image/svg+xml": HOSTILE_SVG}),
        new_output("display_data", data={"text/markdown": "[click](javascript:alert(8)) <img src=y onerror=alert(9)>"}),
        new_output("display_data", data={"application/javascript": "alert(10)", "text/plain": "<Javascript>"}),
        new_output("display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": "x"}}),
        new_output("display_data", data={"image/png": "iVBORw0KGgo="}, metadata={"image/png": {"width": '1 onload=alert(11)'}}),
        new_output("stream", name="stdout", text="<script>alert(12)</script>"),
        new_output("execute_result", data={"text/html": '<div onclick="alert(13)">table</div>'}, execution_count=1),
    ]


def test_student_outputs_are_inert():
    outputs = _hostile_outputs()
    cells = [_answer_cell("show()", outputs=outputs),
             new_markdown_cell('My notes <script>alert(14)</script><img src=z onerror="alert(15)">'),
             nbformat.v4.new_raw_cell("<script>alert(16)</script>")]
    cells[0].metadata["tags"] = ['"><script>alert(17)</script>']
    nb = new_notebook(cells=cells, metadata={"widgets": {"application/vnd.jupyter.widget-state+json": {"x": "</script><script>alert(18)"}}})
    nb.cells[0].outputs[-1]["execution_count"] = '1 onmouseover="alert(20)"'  # not a number, as nbformat requires
    page = _html(_run(nb, []))
    assert fb.unsafe_html(page) == []
    assert not re.search(r"alert\(\d+\)</script>|<script>alert", page), re.findall(r".{40}alert\(\d+\).{20}", page)
    assert "<b>bold</b>" in page and 'src="data:image/svg+xml;base64,' in page and "iVBORw0KGgo=" in page
    assert "&lt;script&gt;alert(12)" in page  # what the student printed, shown as text


def test_a_pasted_image_leaves_a_page_with_a_note_in_its_place():
    """Jupyter stores a screenshot pasted into Markdown as an attachment; the page drops the data, and with
    it the reference, which nbconvert would refuse as a missing attachment (no page for that student)."""
    notes = new_markdown_cell("My derivation:\n\n![image.png](attachment:image.png) and <img src=\"attachment:b.png\">")
    notes["attachments"] = {"image.png": {"image/png": "iVBORw0KGgo="}, "b.png": {"image/png": "iVBORw0KGgo="}}
    page = _html(_run(new_notebook(cells=[notes, _answer_cell("x = 1")]), []))
    assert "[image not shown: image.png]" in page and "attachment:" not in page and "iVBORw0KGgo=" not in page


def test_outputs_are_truncated_per_output_and_per_cell():
    cell = _answer_cell("flood()", outputs=[new_output("stream", name="stdout", text="y" * 50_000) for _ in range(10)])
    nb = _run(new_notebook(cells=[cell]), [], output_chars=1000, cell_chars=2500)
    texts = [o.get("text", "") for o in nb.cells[0].outputs]
    assert texts[0].startswith("y" * 1000) and "[... 49000 more characters not shown]" in texts[0]
    assert len(texts) == 4 and "further output of this cell is not shown: more than 2500 characters" in texts[-1]
    assert sum(t.count("y") for t in texts) == 2500


def test_unsafe_html_names_what_could_run():
    page = ("<html><head><script src='mathjax.js'></script></head><body><p>ok</p><img src=x onerror=alert(1)>"
            "<a href=' java\tscript:alert(2)'>a</a><script>alert(3)</script><iframe></iframe>"
            "<img src='data:text/html;base64,AAAA'></body></html>")
    assert fb.unsafe_html(page) == ["an event-handler attribute onerror= on <img>", "a javascript: URL in href= of <a>",
                                    "a <script> element in the page's body", "a <iframe> element in the page's body",
                                    "a data: URL in src= of <img>"]
    assert fb.unsafe_html("<html><head><script>MathJax = {}</script></head><body><img src='data:image/png;base64,AA'>"
                          "</body></html>") == []


def test_marker_text_in_a_student_cell_does_not_break_feedback():
    student = _answer_cell("# ### BEGIN HIDDEN TESTS\nx = 1  # no end marker")
    test = _test_cell("assert x == 1\n### BEGIN HIDDEN TESTS\nassert secret_value_of_the_test == 42\n### END HIDDEN TESTS")
    nb = _run(new_notebook(cells=[student, test]), [])
    assert nb.cells[0].source == "# ### BEGIN HIDDEN TESTS\nx = 1  # no end marker"
    assert nb.cells[1].source == "assert x == 1"


def test_lines_the_student_wrote_are_not_treated_as_leaks():
    secret = "assert _close(scores(q, k), reference_scores(q, k))"
    lines = [squash(secret)]
    cell = _answer_cell(f"# I guessed the test:\n# {secret}\nprint('{secret}')",
                        outputs=[new_output("stream", name="stdout", text=secret)])
    nb = _run(new_notebook(cells=[cell]), lines)
    assert nb.cells[0].outputs[0]["text"] == secret


# --------------------------------------------------------------------------- end to end (slow)

def _function_cell() -> tuple[str, list[str]]:
    """The first answer cell of the chapter that defines functions, and their names."""
    for gid, code in solution_code(CHAPTER).items():
        names = [n.name for n in ast.parse(code).body if isinstance(n, ast.FunctionDef)]
        if names:
            return gid, names
    raise AssertionError(f"no answer cell of {CHAPTER} defines a function")


LEAKY = """
import inspect as _inspect
def _leaky(_f):
    def _wrapper(*args, **kwargs):
        raise AssertionError(_inspect.getsource(_inspect.currentframe().f_back))
    return _wrapper
{wraps}
"""


def _hostile_submissions(tmp_path) -> dict[str, tuple[dict, object]]:
    gid, names = _function_cell()
    model = solution_code(CHAPTER)
    answer_ids = list(model)
    last = answer_ids[-1]
    leaky = LEAKY.format(wraps="\n".join(f"{n} = _leaky({n})" for n in names))
    display = ("from IPython.display import display, HTML, SVG, Markdown, Javascript\n"
               f"display(HTML({HOSTILE_HTML!r}))\ndisplay(SVG({HOSTILE_SVG!r}))\n"
               "display(Markdown('[click](javascript:alert(8)) <img src=y onerror=alert(9)>'))\n"
               "display(Javascript('alert(10)'))\nprint('<script>alert(12)</script>')\nprint('z' * 200_000)\n")

    def markdown_cell(nb):
        nb["cells"].insert(1, {"cell_type": "markdown", "metadata": {}, "id": "added-by-student",
                               "source": "<script>alert(14)</script><img src=z onerror='alert(15)'>"})
        nb["metadata"]["title"] = "</title><script>alert(19)</script>"

    return {
        "leaky": ({gid: model[gid] + "\n" + leaky}, None),
        "printer": ({last: model[last] + "\nprint('\\n'.join(In))\nprint(repr('\\n'.join(In)))\n"
                     # every entry of code made from text (cells, anything compiled under a "<...>" name): where a
                     # test's source would be; the library files linecache holds are public (and their generic lines,
                     # `def __init__(self):`, match hidden lines of the same text)
                     "import linecache\nprint([v for k, v in linecache.cache.items() if k.startswith('<') or "
                     "'/ipykernel_' in k])"}, None),
        "display": ({answer_ids[0]: model[answer_ids[0]] + "\n" + display}, markdown_cell),
        "marker": ({answer_ids[0]: "### BEGIN HIDDEN TESTS\n" + model[answer_ids[0]]}, None),
        "honest": ({}, None),
    }


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("feedback")
    root = copy_course(tmp / "course")
    mp = pytest.MonkeyPatch()
    mp.setenv("ATTNLAB_COURSE_ROOT", str(root))
    mp.delenv("ATTNLAB_GRADEBOOK_URL", raising=False)
    try:
        assert cli("release")[0] == 0
        for student, (answers, edit) in _hostile_submissions(tmp).items():
            path = write_submission(CHAPTER, tmp / "download" / f"{student}_exercises.ipynb", answers)
            if edit:
                nb = json.loads(path.read_text(encoding="utf-8"))
                edit(nb)
                path.write_text(json.dumps(nb), encoding="utf-8")
        run = {"collect": cli("collect", CHAPTER, str(tmp / "download"))}
        run["autograde"] = cli("autograde", CHAPTER, "--workers", "2", "--output-bytes", "2000000")
        run["feedback_none"] = cli("feedback", CHAPTER, "--outputs", "none", "--student", "printer")
        none_page = (root / "feedback" / "printer" / CHAPTER / "exercises.html").read_text(encoding="utf-8")
        run["feedback"] = cli("feedback", CHAPTER)
        yield {"root": root, "run": run, "none_page": none_page}
    finally:
        mp.undo()


def _page(graded, student) -> str:
    return (graded["root"] / "feedback" / student / CHAPTER / "exercises.html").read_text(encoding="utf-8")


def _autograded_outputs(graded, student) -> str:
    nb = json.loads((graded["root"] / "autograded" / student / CHAPTER / "exercises.ipynb").read_text(encoding="utf-8"))
    return "\n".join(fb._output_text(o) for c in nb["cells"] for o in c.get("outputs", []))


@pytest.mark.slow
def test_feedback_exits_0_and_writes_every_page(graded):
    status, out, err = graded["run"]["feedback"]
    assert status == 0, out + err
    assert "feedback written for 5 students" in out, out
    for student in _hostile_submissions(graded["root"]):
        assert (graded["root"] / "feedback" / student / CHAPTER / "exercises.html").is_file(), out
    assert not list(graded["root"].glob(".feedback-staging-*"))


@pytest.mark.slow
@pytest.mark.parametrize("student", ["leaky", "printer"])
def test_hidden_tests_quoted_by_student_code_are_left_out(graded, student):
    page = _page(graded, student)
    assert _no_secret(page) == []
    assert "HIDDEN TESTS" not in page
    # hidden lines the student's own cells hold (a reference written as the answer is) are the student's to show
    graded_nb = nbformat.reads((graded["root"] / "autograded" / student / CHAPTER / "exercises.ipynb").read_text(
        encoding="utf-8"), as_version=4)
    own = fb.own_lines(graded_nb)
    lines = [line for line in fb.chapter_hidden_lines(graded["root"], CHAPTER) if line not in own]
    quoted = bool(fb.leaks(_autograded_outputs(graded, student), lines))
    # where the grading kernel let the attack through, the page says what it left out, and so does the summary
    assert (fb.LEAK_NOTICE in page) == quoted
    assert ("an output quoted a hidden test and was removed" in graded["run"]["feedback"][1]) >= quoted
    if student == "printer":  # only the student's cells are in IPython's history, none of the tests' in linecache
        assert not quoted, "print(In) or linecache in a graded kernel shows the test cells run before it"


@pytest.mark.slow
def test_displayed_html_svg_markdown_and_javascript_are_inert(graded):
    page = _page(graded, "display")
    assert fb.unsafe_html(page) == []
    assert not re.search(r"<script>alert|alert\(\d+\)</script>", page)
    assert "<b>bold</b>" in page and "&lt;script&gt;alert(12)" in page
    assert len(page) < 400_000  # the 200 000 printed characters are cut to 10 000


@pytest.mark.slow
def test_marker_text_in_student_code_gets_feedback(graded):
    page = _page(graded, "marker")
    assert _no_secret(page) == []
    assert "marker: feedback/marker/" in graded["run"]["feedback"][1]


@pytest.mark.slow
def test_an_honest_student_sees_the_scores_and_no_notice(graded):
    page = _page(graded, "honest")
    assert fb.LEAK_NOTICE not in page and _no_secret(page) == [] and fb.unsafe_html(page) == []
    assert "Score:" in page


def test_feedback_before_release_is_a_command_failure(tmp_path, monkeypatch):
    root = copy_course(tmp_path / "course")
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    monkeypatch.delenv("ATTNLAB_GRADEBOOK_URL", raising=False)
    status, _, err = cli("feedback", CHAPTER)
    assert status == 1 and f"the gradebook has no assignment {CHAPTER}: run `attnlab-course release {CHAPTER}`" in err


def test_outputs_none_shows_no_text_of_student_code():
    """`--outputs none`: an encoded copy of a hidden test (which no text scan can recognise) cannot reach
    the page either, since nothing student code printed or raised is shown."""
    import base64

    # the start of the longest hidden cell, short enough that its encoding fits in one output
    # (10,000 characters), so that the last check below sees it whole when outputs are shown
    encoded = base64.b64encode(max(_hidden_cells(), key=len)[:6000].encode()).decode()
    error = new_output("error", ename="ValueError", evalue=encoded,
                       traceback=["---", "ValueError Traceback", "Cell In[4], line 1\n----> 1 check(x)"])
    test = _test_cell("check(x)\n### BEGIN HIDDEN TESTS\nassert secret_value_of_the_test == 42\n### END HIDDEN TESTS",
                      outputs=[new_output("stream", name="stdout", text=encoded), error])
    answer = _answer_cell("print(data)", outputs=[new_output("stream", name="stdout", text=encoded)])
    nb = _run(new_notebook(cells=[answer, test]), fb.chapter_hidden_lines(ROOT, CHAPTER), student_outputs=False)
    page = _html(nb)
    assert encoded not in page and encoded[:40] not in page
    assert [o["output_type"] for o in nb.cells[1].outputs] == ["error", "stream"]
    assert nb.cells[1].outputs[0]["traceback"] == ["ValueError", "raised by line 1 of this test cell: check(x)"]
    assert nb.cells[0].outputs[0]["text"] == fb.NO_OUTPUT_NOTICE + "\n"
    # with outputs shown, the encoded copy gets through: what the guide names as the limit of the scan
    shown = _html(_run(new_notebook(cells=[_answer_cell("print(data)", outputs=[new_output(
        "stream", name="stdout", text=encoded)])]), fb.chapter_hidden_lines(ROOT, CHAPTER)))
    assert encoded in shown


@pytest.mark.slow
def test_outputs_none_writes_pages_without_student_output(graded):
    status, out, err = graded["run"]["feedback_none"]
    assert status == 0 and "printer: feedback/printer/" in out, out + err
    page = graded["none_page"]
    assert fb.NO_OUTPUT_NOTICE in page and fb.LEAK_NOTICE not in page and _no_secret(page) == []


def test_only_the_courses_own_locked_markdown_is_left_unsanitised():
    prose = "Compute $a < b$ for <em>every</em> row."
    script = "<script>alert(21)</script>"

    def locked(source, gid):
        return new_markdown_cell(source, metadata={"nbgrader": {"grade": False, "solution": False, "locked": True,
                                                                "grade_id": gid}})
    cells = [locked(prose, "p1"), locked(script, "fake"), locked(script, "p2"), locked(script, "p2")]
    resources = {"nbgrader": {"student": "s"}}
    nb, _ = fb.SafeOutputs(trusted_markdown=["p1", "p2"]).preprocess(new_notebook(cells=cells), resources)
    assert nb.cells[0].source == prose  # the course's prose, as nbgrader restored it
    assert [c.source for c in nb.cells[1:]] == ["", "", ""]  # a fake locked cell, and two cells claiming one id
    released = json.loads((ROOT / "chapters" / CHAPTER / "exercises.ipynb").read_text(encoding="utf-8"))
    prose_ids = {c["metadata"]["nbgrader"]["grade_id"] for c in released["cells"] if c["cell_type"] == "markdown"
                 and c["metadata"].get("nbgrader", {}).get("locked")}
    assert prose_ids and set(fb.locked_markdown_ids(ROOT, CHAPTER)) == prose_ids


# --------------------------------------------------------------------------- test cells' outputs (red team 16, F12)

def test_a_test_cell_shows_its_bounded_error_and_nothing_student_code_printed():
    """Code a test cell calls runs while the test's source is in the kernel; an encoded copy it prints, displays
    or raises is what no text scan recognises. A test cell shows only its error (name, message cut to
    ``error_chars``, the visible line that raised it); the student's own cells keep their outputs."""
    import base64

    encoded = base64.b64encode(max(_hidden_cells(), key=len)[:6000].encode()).decode()
    frame = "Cell In[4], line 1\n----> 1 check(x)"
    spy = _test_cell("check(x)\n### BEGIN HIDDEN TESTS\nassert secret_value_of_the_test == 42\n### END HIDDEN TESTS",
                     gid="test_spy", outputs=[
                         new_output("stream", name="stdout", text="EXFIL<" + encoded + ">"),
                         new_output("display_data", data={"text/plain": encoded, "text/html": f"<p>{encoded}</p>"}),
                         new_output("error", ename="ValueError", evalue=encoded, traceback=["---", "ValueError", frame])])
    honest = _test_cell("assert x == 2, 'x should be 2, not 1'", gid="test_honest", outputs=[
        new_output("error", ename="AssertionError", evalue="x should be 2, not 1",
                   traceback=["---", "AssertionError", "Cell In[5], line 1\n----> 1 assert x == 2"])])
    answer = _answer_cell("print(x)", outputs=[new_output("stream", name="stdout", text="my own output: 1\n")])
    nb = _run(new_notebook(cells=[answer, spy, honest]), fb.chapter_hidden_lines(ROOT, CHAPTER))
    page = _html(nb)
    assert encoded[300:360] not in page and encoded[-60:] not in page and "EXFIL" not in page
    error, notice = nb.cells[1].outputs
    assert error["traceback"][0].startswith("ValueError: " + encoded[:300] + "\n[... ")
    assert len(error["evalue"]) < 350 and error["traceback"][1:] == ["raised by line 1 of this test cell: check(x)"]
    assert notice["text"] == fb.TEST_OUTPUT_NOTICE + "\n"
    assert nb.cells[2].outputs[0]["traceback"] == [  # an honest failing visible test: its whole message
        "AssertionError: x should be 2, not 1", "raised by line 1 of this test cell: assert x == 2, 'x should be 2, not 1'"]
    assert nb.cells[0].outputs[0]["text"] == "my own output: 1\n"
    printed = new_output("stream", name="stdout", text="EXFIL<" + encoded + ">")
    shown = _run(new_notebook(cells=[_test_cell("check(x)", outputs=[printed])]), [], test_outputs=True)
    assert encoded in _html(shown)  # what the old default showed


# --------------------------------------------------------------------------- the formgrader (red team 16, F4)

def _formgrade_page(nb) -> str:
    """The notebook as nbgrader's formgrader renders it for manual grading (SubmissionHandler.get)."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers
    from traitlets.config import Config

    config = Config()
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    resources = {"assignment_id": CHAPTER, "notebook_id": "exercises", "submission_id": "x", "index": 0, "total": 1,
                 "base_url": "", "student": "s", "last_name": None, "first_name": None, "notebook_path": "x.ipynb"}
    return HTMLExporter(config=config).from_notebook_node(nb, resources=resources)[0]


def _formgrade_own_problems() -> list[str]:
    """What :func:`unsafe_html` finds in the formgrader's page around an empty notebook (its own scripts)."""
    return fb.unsafe_html(_formgrade_page(new_notebook()))


def test_the_graded_notebook_is_inert_in_the_formgrader_and_keeps_the_graders_cells():
    test_source = "check(x)\n### BEGIN HIDDEN TESTS\nassert secret_value_of_the_test == 42\n### END HIDDEN TESTS"
    traceback = ["-" * 20, "\x1b[31mValueError\x1b[0m  Traceback", "Cell In[4], line 1\n----> 1 check(x)", "ValueError: no"]
    outputs = _hostile_outputs()
    test = _test_cell(test_source, gid="test_part", outputs=[
        new_output("display_data", data={"text/html": "<img src=q onerror=alert(22)>"}),
        new_output("error", ename="ValueError", evalue="no", traceback=traceback)])
    test.metadata["nbgrader"].update(checksum="abc", cell_type="code")
    prose = new_markdown_cell("Compute $a < b$ for <em>every</em> row.",
                              metadata={"nbgrader": {"grade": False, "solution": False, "locked": True, "grade_id": "prose"}})
    notes = new_markdown_cell('My notes <script>alert(14)</script><img src=z onerror="alert(15)"> [a](javascript:alert(23))'
                              '<iframe src="x"></iframe><form action="javascript:alert(24)"></form>\n\n![shot](attachment:s.png)')
    notes["attachments"] = {"s.png": {"image/png": "iVBORw0KGgo="}, "t.svg": {"image/svg+xml": HOSTILE_SVG}}
    answer = _answer_cell("show()", outputs=outputs)
    answer.metadata["tags"] = ['"><script>alert(17)</script>']
    cells = [prose, answer, notes, nbformat.v4.new_raw_cell("<script>alert(16)</script>"), test]
    state = {"state": {"m": {"state": {"value": "<img src=w onerror=alert(18)>"}}}, "version_major": 2, "version_minor": 0}
    nb = new_notebook(cells=cells, metadata={"widgets": {"application/vnd.jupyter.widget-state+json": state},
                                             "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    before = _formgrade_page(nbformat.from_dict(json.loads(json.dumps(nb))))
    assert set(fb.unsafe_html(before)) > set(_formgrade_own_problems())  # what red team 16's F4 found
    graded = fb.clean_graded_notebook(nb, ["prose"])
    page = _formgrade_page(graded)
    assert fb.unsafe_html(page) == _formgrade_own_problems()
    assert not re.search(r"alert\(\d+\)</script>|<script>alert|<[^<>]*\sonerror=|=\s*[\"']?javascript:", page)
    assert "<b>bold</b>" in page and 'src="data:image/svg+xml;base64,' in page and "&lt;script&gt;alert(12)" in page
    # the grader's cells and the instructor's view of them: sources, nbgrader metadata, whole tracebacks
    assert graded.cells[4].source == test_source and graded.cells[4].metadata["nbgrader"]["checksum"] == "abc"
    assert graded.cells[4].outputs[-1]["traceback"] == traceback
    assert graded.cells[0].source == prose.source and graded.cells[1].source == "show()"
    assert graded.cells[2].attachments == {"s.png": {"image/png": "iVBORw0KGgo="}}
    assert "data:image/png;base64,iVBORw0KGgo=" in page  # the pasted screenshot stays for the instructor


@pytest.mark.slow
def test_the_formgrader_shows_no_live_student_html(graded):
    """The reproduction of red team 16's F4 on the `display` student (HTML, SVG, JavaScript, raw HTML in an
    added Markdown cell): the autograded notebook the formgrader renders runs nothing of the student's."""
    nb = nbformat.read(graded["root"] / "autograded" / "display" / CHAPTER / "exercises.ipynb", as_version=4)
    page = _formgrade_page(nb)
    assert fb.unsafe_html(page) == _formgrade_own_problems()
    assert not re.search(r"<script>alert|alert\(\d+\)</script>", page) and "<b>bold</b>" in page
    assert fb.BEGIN in page  # the instructor still sees the hidden tests, as nbgrader ran them
