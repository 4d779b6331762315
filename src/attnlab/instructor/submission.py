"""A submission's nbgrader metadata: what was changed, in plain words, and a repair before grading.

nbgrader identifies each part of a notebook by the ``nbgrader`` metadata of its cells (``grade_id``,
``points``, ``grade``/``solution``/``locked``, ``checksum``). A student can change that metadata by
accident (copying a cell copies its ``grade_id``) or on purpose (``points: 100``), and nbgrader then
stops with messages such as "Inconsistent checksums for cell …" or ``KeyError: 'grade_id'``, or
quietly skips the answer cell. :func:`metadata_problems` says what differs from the released
notebook; :func:`repair_metadata` gives every cell back the metadata the released notebook has for it
(matched by cell id first, then by ``grade_id``), and :func:`released_order` puts the cells back in the
released order (with deleted cells restored), so that nbgrader grades the notebook as released.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

FLAGS = ("grade", "solution", "locked", "task")


def _meta(cell) -> dict | None:
    meta = (cell.get("metadata") or {}).get("nbgrader")
    return meta if isinstance(meta, dict) else None


def _managed(meta: dict | None) -> bool:
    return bool(meta) and any(meta.get(flag) for flag in FLAGS)


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _first_line(source: str) -> str:
    return next((line.strip() for line in source.splitlines() if line.strip()), "")


def _label(cell, index: int) -> str:
    first = _first_line(_source(cell))
    return f"cell {index + 1}" + (f" ({first[:40]!r})" if first else "")


def _reference(source_nb) -> tuple[dict[str, tuple[int, dict]], dict[str, str]]:
    """``({grade_id: (index, cell)}, {cell id: grade_id})`` of the nbgrader cells of the released notebook."""
    by_gid, by_id = {}, {}
    for index, cell in enumerate(source_nb.get("cells", [])):
        meta = _meta(cell)
        if _managed(meta) and meta.get("grade_id"):
            by_gid.setdefault(meta["grade_id"], (index, cell))
            if cell.get("id"):
                by_id[cell["id"]] = meta["grade_id"]
    return by_gid, by_id


def _kind(meta: dict) -> str:
    if meta.get("solution") and meta.get("grade"):
        return "a manually graded answer cell"
    if meta.get("solution"):
        return "an answer cell"
    if meta.get("grade"):
        return "a test cell"
    if meta.get("task"):
        return "a task cell"
    return "a locked cell" if meta.get("locked") else "an ordinary cell"


def _assign(submitted_nb, by_gid, by_id) -> dict[int, str]:
    """Which released cell each submitted cell stands for: ``{cell index: grade_id}``. A cell id names its
    cell first; then a ``grade_id`` claimed by no other cell; each released cell is matched once."""
    cells = submitted_nb.get("cells", [])
    taken: dict[str, int] = {}
    for index, cell in enumerate(cells):
        gid = by_id.get(cell.get("id"))
        if gid and gid not in taken:
            taken[gid] = index
    for index, cell in enumerate(cells):
        meta = _meta(cell)
        gid = meta.get("grade_id") if meta else None
        if index not in taken.values() and isinstance(gid, str) and gid in by_gid and gid not in taken:
            taken[gid] = index
    return {index: gid for gid, index in taken.items()}


def metadata_problems(submitted_nb, source_nb) -> list[str]:
    """How the nbgrader metadata of ``submitted_nb`` differs from the released ``source_nb``, one plain
    sentence each (empty when nothing was changed). Cells deleted altogether are not listed here
    (nbgrader puts test cells back, and the grader notes them)."""
    by_gid, by_id = _reference(source_nb)
    cells = submitted_nb.get("cells", [])
    assigned = _assign(submitted_nb, by_gid, by_id)
    problems = []
    claims: dict[str, list[int]] = {}
    for index, cell in enumerate(cells):
        meta = _meta(cell)
        if _managed(meta) and isinstance(meta.get("grade_id"), str):
            claims.setdefault(meta["grade_id"], []).append(index)
    for gid, indices in claims.items():
        if len(indices) > 1:
            where = ", ".join(str(i + 1) for i in indices)
            problems.append(f"{len(indices)} cells (cells {where}) carry the grade id {gid!r} (a copied cell?)")
    for index, cell in enumerate(cells):
        meta = _meta(cell)
        want = assigned.get(index)
        if want is None:
            if _managed(meta):
                gid = meta.get("grade_id")
                if not gid:
                    problems.append(f"{_label(cell, index)} is marked as {_kind(meta)} but has no grade id")
                elif gid not in by_gid:
                    problems.append(f"{_label(cell, index)} has the grade id {gid!r}, which the assignment does not have")
            elif isinstance(cell.get("metadata"), dict) and "nbgrader" in cell["metadata"]:
                # not a dict, or a dict of no released cell (a schema nbgrader does not know): nbgrader stops on it
                problems.append(f"{_label(cell, index)} carries nbgrader metadata that stands for no cell of the assignment")
            continue
        ref = _meta(by_gid[want][1])
        if not _managed(meta):
            problems.append(f"cell {want} lost its nbgrader metadata (it is {_kind(ref)} of the assignment)")
            continue
        gid = meta.get("grade_id")
        if not gid:
            problems.append(f"cell {want} has no grade id")
        elif gid != want:
            problems.append(f"cell {want} was renamed to {gid!r}")
        if ref.get("grade") and meta.get("points") != ref.get("points"):
            problems.append(f"cell {want}: points changed from {ref.get('points')!r} to {meta.get('points')!r}")
        if [bool(meta.get(f)) for f in FLAGS] != [bool(ref.get(f)) for f in FLAGS]:
            problems.append(f"cell {want} is marked as {_kind(meta)}; the assignment has it as {_kind(ref)}")
        if "checksum" in ref and "checksum" in meta and meta["checksum"] != ref["checksum"]:
            problems.append(f"cell {want}: its nbgrader checksum was changed")
        reference_cell = by_gid[want][1]
        if cell.get("cell_type") != reference_cell.get("cell_type"):
            problems.append(f"cell {want} was turned into a {cell.get('cell_type')} cell "
                            f"(the assignment's is {reference_cell.get('cell_type')}; it was graded as one)")
    return problems


def repair_metadata(submitted_nb, source_nb) -> tuple[dict, list[str]]:
    """A copy of ``submitted_nb`` in which every cell has the nbgrader metadata that the released
    ``source_nb`` has for it, and the notes that say what was wrong and what was done (no notes: the
    metadata was intact, and the copy is equal to the original). A cell that stands for no released
    cell loses its nbgrader metadata: its code still runs, as an ordinary cell."""
    problems = metadata_problems(submitted_nb, source_nb)
    if not problems:
        return submitted_nb, []
    by_gid, by_id = _reference(source_nb)
    nb = copy.deepcopy(submitted_nb)
    assigned = _assign(nb, by_gid, by_id)
    demoted = 0
    for index, cell in enumerate(nb.get("cells", [])):
        gid = assigned.get(index)
        metadata = cell.setdefault("metadata", {})
        if gid is not None:
            metadata["nbgrader"] = copy.deepcopy(_meta(by_gid[gid][1]))
            _restore_cell_type(cell, by_gid[gid][1].get("cell_type"))
            for key in ("editable", "deletable"):
                if key in (by_gid[gid][1].get("metadata") or {}):
                    metadata[key] = by_gid[gid][1]["metadata"][key]
        elif "nbgrader" in metadata:  # any nbgrader metadata on a cell of no released cell: nbgrader stops on it
            del metadata["nbgrader"]
            demoted += 1
    action = "the nbgrader metadata of every cell was restored from the released notebook before grading"
    if demoted:
        action += f" ({demoted} extra cell{'s' if demoted > 1 else ''} graded as ordinary code)"
    return nb, [f"changed nbgrader metadata: {p}" for p in problems] + [action]


def _restore_cell_type(cell: dict, released: str | None) -> None:
    """Give ``cell`` the released cell's type, in place: an answer or test cell the student turned into Markdown
    or raw text is code again (nbgrader would turn it back when it runs the notebook, after the static scan and
    the library rule had skipped it as prose: red team 16, F3), keeping its text; and the other way round."""
    if released not in ("code", "markdown", "raw") or cell.get("cell_type") == released:
        return
    cell["cell_type"] = released
    if released == "code":
        cell.pop("attachments", None)  # nbformat allows attachments on Markdown and raw cells only
        cell["outputs"], cell["execution_count"] = [], None
    else:
        cell.pop("outputs", None)
        cell.pop("execution_count", None)


NO_MATCH = ("no cell of the notebook matches a cell of the released one (no cell ids and no nbgrader metadata: "
            "a tool such as jupytext or nbstripout saved it); ask the student to copy their answers into a fresh "
            "copy of the released notebook and submit that")


def released_order(submitted_nb, source_nb) -> tuple[dict, list[str]]:
    """A copy of ``submitted_nb`` (whose metadata :func:`repair_metadata` has restored) with its cells in the
    released order, and the notes that say what was done (none: the order was the released one).

    Every released cell comes in its place: the student's answer cells, and the released notebook's own
    copy of a cell that was deleted (nbgrader itself puts back only the cells that carry points, so a
    deleted setup or helpers cell would fail every part, and a moved one would run after the student's
    code). A cell the student added stays right after the answer cell it followed; one added before the
    first answer goes just before the first answer, after the notebook's setup."""
    by_gid, by_id = _reference(source_nb)
    cells = submitted_nb.get("cells", [])
    assigned = _assign(submitted_nb, by_gid, by_id)
    if cells and by_gid and not assigned:
        return submitted_nb, [NO_MATCH]  # every answer would be read as an added cell
    order = [gid for gid, _ in sorted(by_gid.items(), key=lambda item: item[1][0])]
    answers = [gid for gid in order if (_meta(by_gid[gid][1]) or {}).get("solution")]
    placed: dict[str, dict] = {}
    added: dict[str | None, list[dict]] = {}
    anchor = None
    for index, cell in enumerate(cells):
        gid = assigned.get(index)
        if gid is None:
            added.setdefault(anchor, []).append(cell)
            continue
        placed[gid] = cell
        if gid in answers:
            anchor = gid
    out, notes = [], []
    for gid in order:
        if answers and gid == answers[0]:
            out += added.pop(None, [])
        if gid in placed:
            out.append(placed[gid])
        else:
            out.append(copy.deepcopy(by_gid[gid][1]))
            what = "answer cell" if gid in answers else "cell"
            notes.append(f"{what} {gid} was deleted; the released one was put back")
        out += added.pop(gid, [])
    out += added.pop(None, [])
    was = [assigned[i] for i in range(len(cells)) if i in assigned]
    if was != [gid for gid in order if gid in placed]:
        notes.append("the cells were not in the released order (moved cells); they were graded in the released order")
    elif answers and answers[0] in placed:
        # a cell added among the notebook's own setup cells would run before the tests' helpers are defined, and
        # could change what they capture (red team 15); it runs just before the first answer instead. Cells added
        # later keep their places
        first = next(i for i, c in enumerate(cells) if c is placed[answers[0]])
        early = [i for i in range(first) if i not in assigned]
        setup = [i for i in range(first) if i in assigned]
        moved = [cells[i] for i in setup + early] + cells[first:]
        if early and early != list(range(len(setup), first)):
            nb = copy.deepcopy(submitted_nb)
            nb["cells"] = copy.deepcopy(moved)
            return nb, ["cells added before the first answer were run just before it, after the notebook's setup cells"]
    if not notes:
        return submitted_nb, []
    nb = copy.deepcopy(submitted_nb)
    nb["cells"] = out
    return nb, notes


# IPython magics that run a program, install packages or set up the session: a notebook written in Colab, VS
# Code or on a laptop often starts with `!pip install torch`, `%load_ext autoreload` or `%config
# InlineBackend.figure_format = "retina"`. They are not run when graded (the grading kernel has the course's
# packages and no network); run, they would start a program or hook IPython from the student's code, which
# the tamper guard flags, and a whole notebook would wait for review over a line that changes no answer.
SHELL_LINE_MAGICS = frozenset({
    "pip", "conda", "mamba", "micromamba", "uv", "system", "sx", "sc",
    "load_ext", "reload_ext", "unload_ext", "autoreload", "aimport", "config", "cd", "env", "set_env", "alias",
    "unalias", "bookmark", "dhist", "pushd", "popd", "colors", "xmode", "autocall", "automagic", "doctest_mode",
    "ls", "ll", "lf", "lk", "lx", "ldir", "mkdir", "rmdir", "rm", "cp", "mv", "cat", "less", "more", "man",
    "clear", "rep", "debug", "pdb"})
SHELL_CELL_MAGICS = frozenset({"bash", "sh", "script", "system", "!", "sx", "perl", "ruby", "python", "python2",
                               "python3", "pypy", "pip",
                               # display only: a note in HTML or LaTeX grades nothing
                               "html", "markdown", "latex", "javascript", "js", "svg"})
NOT_RUN = "pass  # not run when graded: "


def _shell_call(node) -> str | None:
    """``"line"`` or ``"cell"`` if ``node`` is IPython's form of a shell or package-install magic with literal
    arguments (``get_ipython().system('pip install torch')``), else None."""
    import ast

    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    owner = node.func.value
    if not (isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "get_ipython"
            and not owner.args and not owner.keywords):
        return None
    if node.keywords or not node.args or not all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                                 for a in node.args):
        return None
    attr, name = node.func.attr, node.args[0].value
    if attr in ("system", "getoutput"):
        return "line"
    if attr == "run_line_magic" and name in SHELL_LINE_MAGICS:
        return "line"
    if attr == "run_cell_magic" and name in SHELL_CELL_MAGICS:
        return "cell"
    return None


def unrun_shell(source: str) -> tuple[str, list[str]]:
    """``(source, lines)``: the cell with each statement that runs a shell command or installs packages
    (``!pip install torch``, ``%pip install numpy``, ``!nvidia-smi``; a ``%%bash`` cell as a whole) turned
    into ``pass`` with the line kept as a comment, and those lines. A shell command whose output is assigned
    to names on a line of its own (``files = !ls``, ``out = %sx nvidia-smi``) assigns an empty list instead, as
    a command that printed nothing would. Anything else is left as it is: a shell call deeper inside an
    expression (``n = len(!ls)`` is not Python) still runs, and the tamper guard sees it."""
    import ast

    from .guard import IPYTHON_WORK_LIMIT, ipython_work

    if ipython_work(source) > IPYTHON_WORK_LIMIT:
        return source, []  # too costly to transform; the static scan flags such a cell for review
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        python = TransformerManager().transform_cell(source)
        tree = ast.parse(python)
    except Exception:  # no IPython, or a cell that does not parse: it runs (or fails) as it is
        return source, []
    hits = [node for node in ast.walk(tree)
            if (isinstance(node, ast.Expr) and _shell_call(node.value))
            or (isinstance(node, ast.Assign) and _shell_call(node.value) == "line")]
    if not hits:
        return source, []
    lines = source.splitlines()
    if len(tree.body) == 1 and _shell_call(hits[0].value) == "cell":
        first = lines[0].strip()
        return "\n".join([NOT_RUN + first] + ["# " + line for line in lines[1:]]) + "\n", [first]
    if len(python.splitlines()) != len(lines):
        return source, []  # IPython changed the number of lines: they cannot be matched one to one
    done = []
    for node in hits:
        i = node.lineno - 1
        text = lines[i].strip()
        if node.end_lineno != node.lineno or not (isinstance(node, ast.Assign) or text.startswith(("!", "%"))):
            continue
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        if isinstance(node, ast.Assign):  # the targets as IPython wrote them, then an empty output
            targets = python.splitlines()[i].encode("utf-8")[: node.value.col_offset].decode("utf-8")
            lines[i] = targets + "[]" + NOT_RUN[len("pass"):] + text
        else:
            lines[i] = indent + NOT_RUN + text
        done.append(text)
    new = "\n".join(lines) + ("\n" if source.endswith("\n") else "")
    try:
        ast.parse(TransformerManager().transform_cell(new))
    except Exception:
        return source, []
    return new, done


def unrun_shell_cells(nb) -> tuple[dict, list[str]]:
    """A copy of ``nb`` whose student cells (answer cells and cells nbgrader does not manage) run no shell
    command (see :func:`unrun_shell`), and the notes that say which lines were not run."""
    notes, out = [], None
    for index, cell in enumerate(nb.get("cells", [])):
        meta = _meta(cell)
        if cell.get("cell_type") != "code" or (_managed(meta) and not meta.get("solution")):
            continue
        source = _source(cell)
        new, done = unrun_shell(source)
        if not done:
            continue
        if out is None:
            out = copy.deepcopy(nb)
        out["cells"][index]["source"] = new
        name = meta.get("grade_id") if meta and meta.get("solution") else None
        where = f"answer cell {name}" if name else f"a cell the student added ({_first_line(source)[:40]!r})"
        notes += [f"{where}: {text!r} was not run: the grader runs the answers with the course's packages, without shell "
                  "commands or IPython set-up"
                  for text in done]
    return (nb if out is None else out), notes


_REFERENCES: dict[str, dict] = {}


def repair_file(path: Path, *references: Path) -> list[str]:
    """Repair the notebook at ``path`` in place against the first of ``references`` that exists (the
    released notebook, else the source) and return the notes; the file is rewritten only if needed.
    For a copy of a submission in the grader's scratch course: the submitted file is never touched."""
    reference = next((Path(r) for r in references if Path(r).is_file()), None)
    if reference is None:
        return []
    key = f"{reference}:{reference.stat().st_mtime_ns}"
    if key not in _REFERENCES:
        _REFERENCES[key] = json.loads(reference.read_text(encoding="utf-8"))
    try:
        raw = Path(path).read_bytes()
        submitted = json.loads(raw.decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return []  # the grader's own checks explain an unreadable notebook
    converted = []
    if raw.startswith(b"\xef\xbb\xbf"):  # Windows editors may save one; nbformat refuses it
        converted.append("the notebook began with a byte-order mark; it was removed before grading")
    if isinstance(submitted, dict) and submitted.get("nbformat") == 3:
        # an old file (or one saved as format 3 on purpose): converted first, so that the repair applies to it too
        import nbformat

        try:
            submitted = json.loads(nbformat.writes(nbformat.convert(nbformat.from_dict(submitted), 4)))
        except Exception:  # nbformat's own errors: the grader's checks explain an unreadable notebook
            return []
        converted = ["the notebook was saved in nbformat 3; it was converted to nbformat 4 before grading"]
    if not isinstance(submitted, dict) or not isinstance(submitted.get("cells"), list):
        return []
    repaired, notes = repair_metadata(submitted, _REFERENCES[key])
    notes = converted + notes
    repaired, moved = released_order(repaired, _REFERENCES[key])
    notes += moved
    if NO_MATCH not in moved:
        repaired, shell = unrun_shell_cells(repaired)
        notes += shell
    # the saved outputs go: nbgrader clears them anyway, after parsing and validating each one (slow by the thousand)
    outputs = False
    for cell in repaired.get("cells", []):
        if isinstance(cell, dict) and cell.get("outputs"):
            cell["outputs"], outputs = [], True
    if notes or outputs:
        tmp = Path(path).with_suffix(".repair.tmp")
        tmp.write_text(json.dumps(repaired, indent=1, ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)
    return notes
