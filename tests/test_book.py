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

from grading import MARKERS, ROOT, answer_cells, found_in, load, secret_lines, squash as _squash

CHAPTER_DIRS = sorted(p.parent for p in (ROOT / "solutions").glob("*/exercises.ipynb"))
def test_secret_lines_are_found_in_the_sources():
    for chapter_dir in CHAPTER_DIRS:
        assert len(secret_lines(chapter_dir.name)) >= 10, "the leak scan would have nothing to look for"


def test_the_leak_scan_finds_exactly_what_a_plain_scan_finds():
    """``found_in`` (the n-gram prefilter the leak scans use) against ``[s for s in lines if s in text]``."""
    import random

    rng = random.Random(0)
    alphabet = "ab(x)=_."
    text = "".join(rng.choice(alphabet) for _ in range(20_000))
    lines = {text[i:i + n] for i, n in ((rng.randrange(19_000), rng.randrange(1, 60)) for _ in range(300))}
    lines |= {"".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 40))) for _ in range(300)}
    lines |= {text[:30], text[-30:], text[-12:], text[-5:], text, text + "a"}
    # its first, middle and last 12 characters all occur in the text, the whole line does not
    part = text[100:112] + text[200:212] + text[300:312]
    lines.add(part)
    assert part not in text
    expected = sorted(s for s in lines if s in text)
    assert found_in(lines, text) == expected
    assert len(expected) > 300 and part not in expected
    for gram in (1, 5, 12, 40):
        assert found_in(lines, text, gram) == expected
    assert found_in(lines, "") == [] and found_in([], text) == []


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
            leaked = found_in(secrets, squashed)
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
    for page in built_site.rglob("*.html"):  # Jupyter Book's default repository is its own
        assert "executablebooks/jupyter-book" not in page.read_text(), f"{page} links Jupyter Book's repository"


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
    assert f'href="../../_sources/chapters/{chapter}/exercises.ipynb"' in exercise_page, "the download button"
    assert not (built_site / "solutions").exists()


@pytest.mark.slow
def test_linkcheck_finds_no_broken_internal_link(built_site):
    """``jupyter-book build --builder linkcheck``, run as a custom builder so that its report goes to
    _build/linkcheck and not into the site, in the output folder of the ``built_site`` build: it reuses
    that build's environment and execution cache, so no lesson runs again. Web links are ignored
    (_config.yml ``linkcheck_ignore``: the tests run offline). With -W, a Markdown link to a missing
    page, file or anchor fails it (MyST's ``myst.xref_missing``, tests/test_launch_buttons.py)."""
    out = built_site.parent.parent
    jb = shutil.which("jupyter-book", path=os.path.dirname(sys.executable)) or "jupyter-book"
    proc = subprocess.run([jb, "build", "-W", "--keep-going", "--builder", "custom", "--custom-builder", "linkcheck",
                           "--path-output", str(out), str(ROOT)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"link check failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}"
    assert "Executed notebook" not in proc.stdout, "the lessons ran again instead of coming from the cache"
    report = [json.loads(line) for line in (out / "_build/linkcheck/output.json").read_text().splitlines()]
    assert not [r for r in report if r["status"] == "broken"]
    assert any(r["status"] == "ignored" for r in report), "the check saw the book's web links"


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
        leaked = found_in(secrets, squashed)
        assert not leaked, f"{path} contains solution text: {leaked[:3]}"
