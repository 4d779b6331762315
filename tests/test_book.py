"""The book builds from clean with warnings as errors, runs its lesson pages, offers the student
notebooks, and leaks no solution or hidden-test text."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from grading import MARKERS, ROOT, answer_cells, load, secret_lines, squash as _squash

CHAPTER_DIRS = sorted(p.parent for p in (ROOT / "solutions").glob("*/exercises.ipynb"))
def test_secret_lines_are_found_in_the_sources():
    for chapter_dir in CHAPTER_DIRS:
        assert len(secret_lines(chapter_dir.name)) >= 10, "the leak scan would have nothing to look for"


def test_student_notebooks_contain_no_solution_or_hidden_tests():
    secrets = set().union(*(secret_lines(d.name) for d in CHAPTER_DIRS))  # no chapter may show another's
    for chapter_dir in CHAPTER_DIRS:
        chapter = chapter_dir.name
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
