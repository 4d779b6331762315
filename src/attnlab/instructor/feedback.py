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

The scores and the names of the failing parts stay. Whatever student code printed or displayed is
made safe by :class:`SafeOutputs` (run before the hidden regions are removed):

* every output is truncated (``output_chars`` per output, ``cell_chars`` per cell);
* only plain text, HTML, PNG and JPEG survive: HTML goes through the ``nh3`` sanitiser (no scripts,
  no ``on*=`` handlers, no ``javascript:`` URLs), SVG becomes an ``<img>`` (which runs no script),
  Markdown and LaTeX become plain text, anything else (JavaScript, widgets, PDF ...) is dropped;
* an output that quotes a line of a hidden test (:func:`hidden_test_lines`, found by :func:`leaks`)
  is replaced by a notice, for instance an ``AssertionError`` whose message is the calling test's
  source, or a print of ``In[-1]``;
* a test cell keeps only its errors, the message cut to ``error_chars`` (:func:`bounded_error`), and a
  notice in place of what student code printed or displayed while it ran: that code runs while the
  test's source is in the kernel, so an *encoded* copy, which no scan recognises, would land there
  (red team 16, F12). The student's own cells keep their outputs.

:func:`clean_graded_notebook` applies the same cleaning (every output kept, with its traceback) to the
autograded notebook that nbgrader's formgrader renders, unsanitised, into the instructor's browser.

The notebook's own metadata, cell tags and attachments are dropped and student-written Markdown is
sanitised too, since nbconvert's template puts them into the page. :func:`unsafe_html` and
:func:`leaks` are then run on the finished page before it is written (:func:`attnlab.instructor.
workflow.feedback`).
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

from nbconvert.preprocessors import Preprocessor
from nbformat import from_dict
from traitlets import Bool, Int, List, Unicode

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


# a test cell's own lines as the grader's gate runs them (guard.test_cell_gate): compiled under these names, with
# the cell's line numbers; the cell's frame itself is then the gate's one line (red team 17: every error was
# reported at line 1)
_GATE_FRAME = re.compile(r"<attnlab (?:visible|hidden) lines of [^>]*>:(\d+)")


def raising_line(traceback: list[str]) -> int | None:
    """The line of the test cell itself (the outermost notebook frame) at which an error was raised."""
    for entry in traceback:
        found = _GATE_FRAME.search(_ANSI.sub("", entry))
        if found:
            return int(found.group(1))
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


def _is_test_cell(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and bool(meta.get("grade")) and not meta.get("solution")


# --------------------------------------------------------------------------- hidden-test lines

MIN_LINE = 16  # squashed characters: shorter hidden lines (`x = f(3)`, `assert ok`) are too generic to count


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _unescape_python(text: str) -> str:
    """``repr``/JSON escapes undone, as a hidden line would appear in a printed list or dict."""
    return (text.replace("\\\\", "\0").replace("\\n", "\n").replace("\\t", "\t").replace("\\'", "'")
            .replace('\\"', '"').replace("\0", "\\"))


def haystack(text: str) -> str:
    """``text`` as the leak scan compares it: ANSI codes removed, HTML entities (twice) and Python
    escapes decoded, whitespace removed; both the plain and the escape-decoded forms."""
    plain = html.unescape(html.unescape(_ANSI.sub("", text)))
    return squash(plain) + "\0" + squash(_unescape_python(plain))


def hidden_test_lines(source_nb: dict, visible_text: str = "") -> list[str]:
    """The distinctive lines of the hidden tests of a source notebook (``### BEGIN/END HIDDEN TESTS``),
    squashed: not shorter than :data:`MIN_LINE`, not comments, and not in ``visible_text`` (the student
    notebook, where a line shared with a visible test is no secret)."""
    visible = haystack(visible_text)
    lines = []
    for cell in source_nb.get("cells", []):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        inside = False
        for line in source.split("\n"):
            if BEGIN in line:
                inside = True
            elif END in line:
                inside = False
            elif inside:
                squashed = squash(html.unescape(line))
                if len(squashed) >= MIN_LINE and not squashed.startswith("#") and squashed not in visible:
                    lines.append(squashed)
    return sorted(set(lines))


def chapter_hidden_lines(root: Path, chapter: str) -> list[str]:
    """:func:`hidden_test_lines` of ``solutions/<chapter>``, less the lines of the released notebook."""
    source = json.loads((Path(root) / "solutions" / chapter / "exercises.ipynb").read_text(encoding="utf-8"))
    visible = ""
    for released in (Path(root) / "chapters" / chapter / "exercises.ipynb", Path(root) / "release" / chapter / "exercises.ipynb"):
        if released.is_file():
            nb = json.loads(released.read_text(encoding="utf-8"))
            visible += "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in nb["cells"])
    return hidden_test_lines(source, visible)


def locked_markdown_ids(root: Path, chapter: str) -> list[str]:
    """The grade ids of the locked Markdown cells of ``solutions/<chapter>`` (the course's own prose)."""
    source = json.loads((Path(root) / "solutions" / chapter / "exercises.ipynb").read_text(encoding="utf-8"))
    return sorted(c["metadata"]["nbgrader"]["grade_id"] for c in source["cells"] if c["cell_type"] == "markdown"
                  and c.get("metadata", {}).get("nbgrader", {}).get("locked") and c["metadata"]["nbgrader"].get("grade_id"))


def leaks(text: str, lines: list[str]) -> list[str]:
    """The hidden-test ``lines`` found in ``text`` (raw, or as HTML with its tags removed)."""
    if not lines or not text:
        return []
    hay = haystack(text) + "\0" + haystack(re.sub(r"<[^>]*>", "", text))
    return [line for line in lines if line in hay]


def own_lines(nb) -> str:
    """What the student wrote: the sources of the answer cells and of cells nbgrader does not manage."""
    parts = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") or not (meta.get("grade") or meta.get("locked")):
            parts.append(cell.source)
    return haystack("\n".join(parts))


# --------------------------------------------------------------------------- safe outputs

_BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")
# bounded: on a long Markdown cell of "![" an unbounded alternative ran in quadratic time (42 s for 200 KB)
ATTACHED_IMAGE = re.compile(r"!\[([^\[\]\n]{0,200})\]\(\s{0,20}<?attachment:[^)\n]{0,500}\)")
SAFE_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
REMOVED: dict[str, list[str]] = {}  # student -> what SafeOutputs removed or shortened, for the summary
LEAK_NOTICE = "[This output is not shown in the feedback: it contained text of a hidden test.]"
NO_OUTPUT_NOTICE = "[Outputs are not shown in this feedback.]"
TEST_OUTPUT_NOTICE = "[What your code printed or displayed while this test ran is not shown in the feedback.]"


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else value if isinstance(value, str) else json.dumps(value)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n[... {len(text) - limit} more characters not shown]"


def clean_html(fragment: str) -> str:
    """Student HTML as the page may show it: sanitised by ``nh3`` (scripts, styles and their content,
    event handlers, ``javascript:``/``data:`` URLs, iframes and forms removed)."""
    import nh3

    return nh3.clean(fragment)


class SafeOutputs(Preprocessor):
    """Outputs that are short, inert and quote no hidden test; see the module's docstring."""

    enabled = Bool(True).tag(config=True)
    hidden_lines = List(Unicode(), help="squashed hidden-test lines of the chapter").tag(config=True)
    trusted_markdown = List(Unicode(), help="grade ids of the released notebook's locked Markdown cells, shown "
                            "unsanitised (nbgrader restored their text); every other Markdown cell is sanitised").tag(config=True)
    output_chars = Int(10_000, help="characters kept of one output").tag(config=True)
    cell_chars = Int(30_000, help="characters kept of all outputs of one cell").tag(config=True)
    image_chars = Int(2_000_000, help="base64 characters kept of one image").tag(config=True)
    student_outputs = Bool(True, help="show what student code printed or displayed (sanitised); when False, "
                           "only the name of each test cell's error and the visible line that raised it").tag(config=True)
    test_outputs = Bool(False, help="show what student code printed or displayed while a test cell ran; when False "
                        "(the default), a test cell shows only its error, bounded, and a notice: code a test calls runs "
                        "while the test's source is in the kernel, so its output is where a copied test would land"
                        ).tag(config=True)
    error_chars = Int(300, help="characters kept of the message of a test cell's error").tag(config=True)
    instructor = Bool(False, help="clean a notebook for the instructor (nbgrader's formgrader): every output kept, "
                      "sanitised, with its traceback; pasted PNG/JPEG images kept; no hidden-test scan").tag(config=True)

    def preprocess(self, nb, resources):
        student = resources.get("nbgrader", {}).get("student", "")
        self._log = [] if self.instructor else REMOVED.setdefault(student, [])
        own = own_lines(nb)
        self._lines = [line for line in self.hidden_lines if line not in own]
        self._trusted, seen = set(), set()
        for cell in nb.cells:  # a locked cell of the assignment, claimed by one cell only
            gid = (cell.metadata.get("nbgrader") or {}).get("grade_id")
            if cell.cell_type == "markdown" and (cell.metadata.get("nbgrader") or {}).get("locked") and gid in self.trusted_markdown:
                (self._trusted.discard if gid in seen else self._trusted.add)(gid)
                seen.add(gid)
        keep = {k: nb.metadata[k] for k in ("kernelspec", "language_info") if k in nb.metadata}
        nb.metadata = from_dict(json.loads(json.dumps(keep, default=str)))
        for index, cell in enumerate(nb.cells):
            self._cell(cell, index)
        return nb, resources

    def _where(self, cell, index) -> str:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        return f"cell {gid}" if gid else f"cell {index + 1}"

    def _cell(self, cell, index):
        meta = cell.metadata.get("nbgrader")
        cell.metadata = from_dict({"nbgrader": meta} if meta else {})
        if meta and "grade_id" in meta and not SAFE_ID.match(str(meta["grade_id"])):
            meta["grade_id"] = f"cell-{index + 1}"
        if "id" in cell and not SAFE_ID.match(str(cell.id)):
            cell.id = f"cell-{index + 1}"
        attachments = cell.pop("attachments", None)
        if self.instructor and attachments and cell.cell_type == "markdown":
            kept = _safe_attachments(attachments)
            if kept:
                cell.attachments = from_dict(kept)
            attachments = {name: value for name, value in attachments.items() if name not in kept}
        if attachments and cell.cell_type == "markdown":
            # a pasted image (what Jupyter writes for a screenshot): its data is dropped, and nbconvert refuses a
            # page whose Markdown names a missing attachment, so the reference goes too
            cell.source = ATTACHED_IMAGE.sub(lambda m: f"[image not shown: {m.group(1) or 'attachment'}]", cell.source)
            cell.source = cell.source.replace("attachment:", "#attachment-")
        if cell.cell_type == "raw":
            cell.cell_type, cell.source = "markdown", "<pre>" + html.escape(cell.source) + "</pre>"
        elif cell.cell_type == "markdown" and (meta or {}).get("grade_id") not in self._trusted:
            cell.source = clean_html(cell.source)  # student-written Markdown may carry raw HTML
            if not markdown_is_inert(cell.source, cell.get("attachments")):
                # Markdown's own links and images (`[a](javascript:...)`, a reference definition) are not HTML for
                # nh3: the cell is shown as text when nbconvert would render a live URL or attribute from it
                cell.source = "<pre>" + html.escape(cell.source) + "</pre>"
                self._log.append(f"{self._where(cell, index)}: Markdown with a script link shown as text")
        if cell.cell_type != "code":
            return
        if _is_test_cell(cell) and self.student_outputs and not (self.test_outputs or self.instructor):
            self._test_cell(cell, index)
            return
        if not self.student_outputs:
            kept = [o for o in cell.get("outputs", []) if _is_test_cell(cell) and o.get("output_type") == "error"]
            if len(kept) < len(cell.get("outputs", [])):
                kept.append(_notice(NO_OUTPUT_NOTICE))
            for output in kept:
                if output.get("output_type") == "error":  # the name, and the visible line: no student text
                    output["evalue"] = ""
                    output["traceback"] = [str(output.get("ename", "Error"))[:200],
                                           *[line for line in output.get("traceback", [])[1:2] if line.startswith("raised by")]]
            cell.outputs = kept
            return
        outputs, left = [], self.cell_chars
        for output in cell.get("outputs", []):
            if left <= 0:
                outputs.append(_notice(f"[further output of this cell is not shown: more than {self.cell_chars} characters]"))
                self._log.append(f"{self._where(cell, index)}: output beyond {self.cell_chars} characters not shown")
                break
            if self._lines and leaks(_output_text(output), self._lines):
                outputs.append(_notice(LEAK_NOTICE))
                self._log.append(f"{self._where(cell, index)}: an output quoted a hidden test and was removed")
                continue
            safe, size = self._safe(output, min(self.output_chars, left))
            if safe is not None:
                outputs.append(safe)
            left -= size
        cell.outputs = outputs
        if not isinstance(cell.get("execution_count"), int):
            cell.execution_count = None

    def _test_cell(self, cell, index):
        """A test cell's outputs for the student: its errors (name, message cut to ``error_chars``, the line that
        raised it) and a notice in place of whatever student code printed or displayed while the test ran."""
        outputs, dropped = [], 0
        for output in cell.get("outputs", []):
            if output.get("output_type") != "error":
                dropped += 1
            elif self._lines and leaks(_output_text(output), self._lines):
                outputs.append(_notice(LEAK_NOTICE))
                self._log.append(f"{self._where(cell, index)}: an output quoted a hidden test and was removed")
            else:
                outputs.append(bounded_error(output, self.error_chars))
        if dropped:
            outputs.append(_notice(TEST_OUTPUT_NOTICE))
        cell.outputs = outputs
        if not isinstance(cell.get("execution_count"), int):
            cell.execution_count = None

    def _safe(self, output, limit):
        """A sanitised copy of ``output`` and the characters it keeps, or (None, 0) to drop it."""
        from nbformat.v4 import new_output

        kind = output.get("output_type")
        if kind == "stream":
            name = output.get("name") if output.get("name") in ("stdout", "stderr") else "stdout"
            raw = _text(output.get("text", ""))
            return new_output("stream", name=name, text=_clip(raw, limit)), min(len(raw), limit)
        if kind == "error":
            ename, evalue = _clip(str(output.get("ename", "Error")), 200), _clip(str(output.get("evalue", "")), limit)
            lines, size = [], len(evalue)
            for line in output.get("traceback", []) or []:
                line = _clip(str(line), max(limit - size, 0))
                size += len(line)
                lines.append(line)
                if size >= limit:
                    break
            return new_output("error", ename=ename, evalue=evalue, traceback=lines), size
        if kind not in ("execute_result", "display_data"):
            return None, 0
        data, size = {}, 0
        raw = output.get("data", {}) or {}
        if isinstance(raw.get("text/html"), (str, list)):
            fragment = clean_html(_clip(_text(raw["text/html"]), limit))
            data["text/html"], size = fragment, len(fragment)
        elif isinstance(raw.get("image/svg+xml"), (str, list)):
            svg = _text(raw["image/svg+xml"])
            if len(svg) <= self.image_chars:
                encoded = base64.b64encode(svg.encode("utf-8")).decode("ascii")
                data["text/html"] = f'<img src="data:image/svg+xml;base64,{encoded}" alt="SVG image">'
            else:
                data["text/plain"] = "[an SVG image too large for the feedback]"
        for mime in ("image/png", "image/jpeg"):
            value = raw.get(mime)
            if isinstance(value, str) and len(value) <= self.image_chars and _BASE64.match(value):
                try:
                    base64.b64decode(re.sub(r"\s+", "", value), validate=True)
                except (binascii.Error, ValueError):
                    continue
                data[mime] = re.sub(r"\s+", "", value)
            elif value is not None:
                data["text/plain"] = "[an image too large for the feedback]"
        for mime in ("text/plain", "text/markdown", "text/latex"):
            if "text/plain" not in data and isinstance(raw.get(mime), (str, list)):
                data["text/plain"] = _clip(_text(raw[mime]), limit)
                size += len(data["text/plain"])
        if not data:
            return None, 0
        if kind == "execute_result":
            count = output.get("execution_count")
            return new_output("execute_result", data=data, execution_count=count if isinstance(count, int) else None), size
        return new_output("display_data", data=data), size


def bounded_error(output, limit: int):
    """A test cell's error as the student sees it: ``Name: message`` with the name cut to 80 characters and the
    message to ``limit``, and the "raised by" line of :class:`RedactTestTracebacks`; nothing else of the traceback."""
    from nbformat.v4 import new_output

    ename, evalue = _clip(str(output.get("ename", "Error")), 80), _clip(str(output.get("evalue", "")), limit)
    first = f"{ename}: {evalue}" if evalue else ename
    where = [line for line in (output.get("traceback") or [])[1:2] if isinstance(line, str) and line.startswith("raised by")]
    return new_output("error", ename=ename, evalue=evalue, traceback=[first, *where])


def markdown_is_inert(source: str, attachments=None) -> bool:
    """Whether Markdown renders (as nbconvert's ``markdown2html`` renders a cell) to HTML that :func:`unsafe_html`
    finds nothing in."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    try:
        rendered = MarkdownWithMath(renderer=IPythonRenderer(escape=False, attachments=dict(attachments or {}))).render(source)
    except Exception:  # nbconvert would fail on it too (a missing attachment): shown as text
        return False
    return not unsafe_html("<body>" + rendered + "</body>")


def _safe_attachments(attachments) -> dict:
    """The pasted PNG and JPEG images of a Markdown cell (valid base64), for the instructor's copy."""
    kept = {}
    for name, bundle in (attachments or {}).items():
        if not isinstance(name, str) or not isinstance(bundle, dict):
            continue
        for mime in ("image/png", "image/jpeg"):
            value = bundle.get(mime)
            if isinstance(value, str) and _BASE64.match(value):
                try:
                    base64.b64decode(re.sub(r"\s+", "", value), validate=True)
                except (binascii.Error, ValueError):
                    continue
                kept[name] = {mime: re.sub(r"\s+", "", value)}
                break
    return kept


def clean_graded_notebook(nb, trusted_markdown=(), output_chars: int = 1_000_000):
    """The autograded notebook made safe for nbgrader's formgrader, which renders it into the instructor's
    browser unsanitised (red team 16, F4): every output of every code cell and every Markdown or raw cell the
    course did not write is cleaned as :class:`SafeOutputs` cleans them for the feedback (JavaScript, widget and
    other rich outputs dropped, HTML through ``nh3``, SVG as an ``<img>``, raw cells as text, notebook metadata
    and cell metadata other than nbgrader's dropped). Sources of code cells, nbgrader's metadata, the course's
    locked Markdown (``trusted_markdown``) and full tracebacks stay; nothing is scanned for hidden tests."""
    step = SafeOutputs(instructor=True, trusted_markdown=list(trusted_markdown), output_chars=output_chars,
                       cell_chars=output_chars, image_chars=max(output_chars, 2_000_000))
    nb, _ = step.preprocess(nb, {})
    return nb


def _notice(text: str):
    from nbformat.v4 import new_output

    return new_output("stream", name="stderr", text=text + "\n")


def _output_text(output) -> str:
    """All the text an output carries, whatever its kind, for the leak scan."""
    parts = [_text(output.get("text", "")), str(output.get("ename", "")), str(output.get("evalue", ""))]
    parts += [str(line) for line in output.get("traceback", []) or []]
    for mime, value in (output.get("data", {}) or {}).items():
        if mime not in ("image/png", "image/jpeg"):
            parts.append(_text(value))
    parts.append(json.dumps(output.get("metadata", {}), default=str))
    return "\n".join(parts)


class ClearHiddenTestRegions(Preprocessor):
    """Remove the hidden-test regions of the test cells (nbgrader's ``ClearHiddenTests``, but only in
    test cells: a student's own cell may contain the marker text and is left as it is)."""

    enabled = Bool(True).tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        if _is_test_cell(cell):
            cell.source = "\n".join(line for _, line in visible_lines(cell.source).values())
        return cell, resources


# --------------------------------------------------------------------------- the finished page

_URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "data", "poster", "srcset", "background"}
_BAD_TAGS = {"iframe", "object", "embed", "base", "form", "frame", "frameset", "applet", "meta", "link"}


class _PageCheck(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.in_body, self.problems = False, []

    def handle_starttag(self, tag, attrs):
        if tag == "body":
            self.in_body = True
        if self.in_body and tag == "script":
            self.problems.append("a <script> element in the page's body")
        if self.in_body and tag in _BAD_TAGS:
            self.problems.append(f"a <{tag}> element in the page's body")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"an event-handler attribute {name}= on <{tag}>")
            if name in _URL_ATTRS and value:
                url = re.sub(r"[\x00-\x20]+", "", value).lower()
                if url.startswith(("javascript:", "vbscript:")) or (url.startswith("data:") and not url.startswith("data:image/")):
                    self.problems.append(f"a {url.split(':')[0]}: URL in {name}= of <{tag}>")

    handle_startendtag = handle_starttag


def unsafe_html(page: str) -> list[str]:
    """What in a finished feedback page could run code in a browser (empty for a safe page): scripts,
    frames, forms or ``<meta>``/``<link>`` in the body, ``on*=`` attributes, ``javascript:`` URLs."""
    check = _PageCheck()
    check.feed(page)
    check.close()
    return list(dict.fromkeys(check.problems))


def feedback_preprocessors() -> list:
    """nbgrader's feedback preprocessors with the steps above, in the order they must run: tracebacks
    are reduced and outputs scanned while the hidden regions are still there to tell lines apart."""
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import GetGrades

    return [GetGrades, RedactTestTracebacks, SafeOutputs, ClearHiddenTestRegions, CSSHTMLHeaderPreprocessor]
