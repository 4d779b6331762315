"""What a student may see in the HTML feedback: no hidden tests, no answers.

nbgrader's feedback (``GenerateFeedback``) renders the autograded notebook as it is, and that
notebook holds the hidden tests again (autograde puts them back to run them), so the plain feedback
shows their code and the multiple-choice answers they check. Failing tests also leave tracebacks
that quote source lines around the failing one. :func:`feedback_preprocessors` replaces nbgrader's
list with one that

* reduces the traceback of every error in a test cell to ``Name: message`` and says where it was
  raised: the visible line (numbered as the student sees the cell) or "a hidden test of this part"
  (:class:`RedactTestTracebacks`, which runs first, while it can still tell hidden lines apart), and
* removes the hidden-test regions from the cells' source (nbgrader's ``ClearHiddenTests``).

The scores and the names of the failing parts stay, as does the output of the student's own cells.
"""

from __future__ import annotations

import re

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

BEGIN, END = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_CELL_FRAME = re.compile(r"(?:Cell In\s*\[[^\]]*\]|<ipython-input-[^>]*>|input In \[[^\]]*\]),\s*line (\d+)")


def visible_lines(source: str) -> dict[int, tuple[int, str]]:
    """``{line number in source: (line number once hidden tests are removed, text)}`` for the lines a
    student sees (1-based; the marker lines and the lines between them are left out)."""
    out, inside, shown = {}, False, 0
    for number, line in enumerate(source.split("\n"), start=1):
        if BEGIN in line:
            inside = True
        elif END in line:
            inside = False
        elif not inside:
            shown += 1
            out[number] = (shown, line)
    return out


def raising_line(traceback: list[str]) -> int | None:
    """The line of the test cell itself (the outermost notebook frame) at which an error was raised."""
    for entry in traceback:
        found = _CELL_FRAME.search(_ANSI.sub("", entry))
        if found:
            return int(found.group(1))
    return None


def redacted_traceback(source: str, output) -> list[str]:
    """The traceback a student gets for an error output of a test cell."""
    ename, evalue = output.get("ename", "Error"), output.get("evalue", "")
    first = f"{ename}: {evalue}" if evalue else ename
    line = raising_line(list(output.get("traceback", [])))
    if line is None:
        return [first]
    shown = visible_lines(source).get(line)
    if shown is None:
        return [first, "raised by a hidden test of this part"]
    return [first, f"raised by line {shown[0]} of this test cell: {shown[1].strip()}"]


class RedactTestTracebacks(Preprocessor):
    """Reduce the tracebacks of the errors in test cells (nbgrader grade cells that are not answer
    cells) to the exception's name and message and the visible line that raised it."""

    enabled = Bool(True).tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = redacted_traceback(cell.source, output)
        return cell, resources


def feedback_preprocessors() -> list:
    """nbgrader's feedback preprocessors with the two steps above, in the order they must run."""
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import ClearHiddenTests, GetGrades

    return [GetGrades, RedactTestTracebacks, ClearHiddenTests, CSSHTMLHeaderPreprocessor]
