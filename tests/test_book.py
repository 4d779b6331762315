"""The book builds from clean with warnings as errors, runs its lesson pages, offers the student
notebooks, and leaks no solution or hidden-test text."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from bs4 import BeautifulSoup

from grading import ROOT, answer_cells, load

CHAPTER_DIRS = sorted(p.parent for p in (ROOT / "solutions").glob("*/exercises.ipynb"))
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
ANSWER = re.compile(r"^\w+=(\"\w\"|'\w'|[\d_.*+/()]+)$")


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def secret_lines(chapter: str) -> set[str]:
    """Lines of the model answers and hidden tests that appear nowhere a student may see them:
    not in the student notebook and not in the published package source."""
    source = load(ROOT / "solutions" / chapter / "exercises.ipynb")
    student = _squash(json.dumps(load(ROOT / "chapters" / chapter / "exercises.ipynb")["cells"]))
    public = _squash("".join(p.read_text() for p in (ROOT / "src" / "attnlab").glob("*.py")))
    secrets = set()
    for cell in source["cells"]:
        inside = None
        for line in "".join(cell["source"]).splitlines():
            stripped = line.strip()
            if stripped in ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS"):
                inside = stripped
                continue
            if stripped in ("### END SOLUTION", "### END HIDDEN TESTS"):
                inside = None
                continue
            squashed = _squash(line)
            # long lines, or short answers such as `answer_masking = "c"` / `crossover_length = 1536`;
            # short generic code (`with torch.no_grad():`) may appear anywhere and is not a leak
            distinctive = len(squashed) >= 24 or ANSWER.match(squashed)
            if inside and distinctive and not squashed.startswith("#"):
                if squashed not in public and json.dumps(line.strip())[1:-1].replace(" ", "") not in student:
                    secrets.add(squashed)
    return secrets


@pytest.fixture(scope="module")
def built_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("book")
    jb = shutil.which("jupyter-book", path=os.path.dirname(sys.executable)) or "jupyter-book"
    proc = subprocess.run(
        [jb, "build", "--all", "-W", "--keep-going", "--path-output", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, f"book build failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}"
    return out / "_build" / "html"


def test_secret_lines_are_found_in_the_sources():
    for chapter_dir in CHAPTER_DIRS:
        assert len(secret_lines(chapter_dir.name)) >= 10, "the leak scan would have nothing to look for"


def test_student_notebooks_contain_no_solution_or_hidden_tests():
    for chapter_dir in CHAPTER_DIRS:
        chapter = chapter_dir.name
        secrets = secret_lines(chapter)
        for path in (ROOT / "chapters" / chapter).rglob("*"):
            if not path.is_file():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for marker in MARKERS:
                assert marker not in text, f"{path} contains {marker!r}"
            squashed = _squash(text.replace("\\n", "\n").replace('\\"', '"'))
            leaked = [s for s in secrets if s in squashed]
            assert not leaked, f"{path} contains solution text: {leaked[:3]}"


def test_student_notebook_answer_cells_are_stubs():
    for chapter_dir in CHAPTER_DIRS:
        nb = load(ROOT / "chapters" / chapter_dir.name / "exercises.ipynb")
        for gid, cell in answer_cells(nb).items():
            assert "raise NotImplementedError()" in "".join(cell["source"]), gid


@pytest.mark.slow
def test_book_builds_from_clean_with_warnings_as_errors(built_site):
    assert (built_site / "index.html").is_file()
    assert (built_site / "intro.html").is_file()


@pytest.mark.slow
def test_lesson_page_shows_executed_figures_and_numbers(built_site):
    page = BeautifulSoup((built_site / "chapters/02-scaled-attention/index.html").read_text(), "html.parser")
    images = [img["src"] for img in page.find_all("img") if "_images/" in img.get("src", "")]
    assert len(images) >= 5, images
    for src in images:
        assert (built_site / "chapters/02-scaled-attention" / src).resolve().is_file(), src
    text = page.get_text(" ")
    assert "largest absolute difference" in text  # an executed cell's printed output
    match = re.search(r"measured variance of the raw dot product is\s+(\d+)", text)
    assert match and 800 < int(match.group(1)) < 1250, "the glued variance at d_k = 1024"
    assert "NotImplementedError" not in text


@pytest.mark.slow
@pytest.mark.parametrize("chapter", [d.name for d in CHAPTER_DIRS])
def test_every_lesson_runs_and_offers_its_student_notebook(built_site, chapter):
    html = (built_site / "chapters" / chapter / "index.html").read_text()
    page = BeautifulSoup(html, "html.parser")
    images = [img["src"] for img in page.find_all("img") if "_images/" in img.get("src", "")]
    assert len(images) >= 1, f"{chapter}: executed figures expected, found {images}"
    assert "Traceback" not in page.get_text(" ")
    links = re.findall(r'href="([^"]*_downloads/[^"]*exercises\.ipynb)"', html)
    assert links, "the lesson links the student notebook for download"
    downloaded = (built_site / "chapters" / chapter / links[0]).resolve()
    assert downloaded.read_bytes() == (ROOT / "chapters" / chapter / "exercises.ipynb").read_bytes()
    exercise_page = (built_site / "chapters" / chapter / "exercises.html").read_text()
    assert "Part 2" in exercise_page and "exercises.ipynb" in exercise_page
    assert not (built_site / "solutions").exists()


@pytest.mark.slow
def test_built_html_contains_no_solution_or_hidden_test_text(built_site):
    secrets = set().union(*(secret_lines(d.name) for d in CHAPTER_DIRS))
    for path in built_site.rglob("*"):
        if path.suffix not in (".html", ".ipynb", ".md", ".txt", ".js", ".py") or not path.is_file():
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        for marker in MARKERS:
            assert marker not in raw, f"{path} contains {marker!r}"
        text = BeautifulSoup(raw, "html.parser").get_text("") if path.suffix == ".html" else raw
        squashed = _squash(text.replace("\\n", "\n").replace('\\"', '"'))
        leaked = [s for s in secrets if s in squashed]
        assert not leaked, f"{path} contains solution text: {leaked[:3]}"
