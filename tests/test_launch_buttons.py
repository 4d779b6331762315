"""Launch buttons (Colab, Binder, a JupyterHub) on the exercise pages open the student notebook in
the course's repository, found by ``_ext/launch_buttons.py``; without a repository there are none
(and never a link to Jupyter Book's own repository, its default). The link check fails on a broken
internal link. The builds here are of a tiny book: the real ``_config.yml``, one lesson page (a MyST
text notebook, which the theme would otherwise give launch buttons too) and one student notebook."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from bs4 import BeautifulSoup

from grading import ROOT

sys.path.insert(0, str(ROOT / "_ext"))
import launch_buttons  # noqa: E402  (the book's local Sphinx extension)

from launch_buttons import JUPYTER_BOOK_DEFAULT_URL, find_repository, normalise_repository_url  # noqa: E402

CHAPTER = "02-scaled-attention"
NOTEBOOK = f"chapters/{CHAPTER}/exercises.ipynb"
LAUNCH_HOSTS = ("colab.research.google.com", "mybinder.org", "hub.example.edu")
ENV_NAMES = ("ATTNLAB_REPOSITORY_URL", "ATTNLAB_REPOSITORY_BRANCH", "ATTNLAB_JUPYTERHUB_URL")


# --- the repository address --------------------------------------------------------------------

@pytest.mark.parametrize("remote", [
    "git@github.com:example-org/attnlab.git",
    "git@github.com:example-org/attnlab",
    "ssh://git@github.com/example-org/attnlab.git",
    "ssh://git@github.com:22/example-org/attnlab.git",
    "https://github.com/example-org/attnlab.git",
    "https://github.com/example-org/attnlab/",
    "https://x-access-token:secret123@github.com/example-org/attnlab.git",
    " https://GitHub.com/example-org/attnlab\n",
])
def test_remote_addresses_become_one_https_address(remote):
    assert normalise_repository_url(remote) == "https://github.com/example-org/attnlab"


def test_gitlab_subgroups_keep_their_path():
    assert normalise_repository_url("git@gitlab.com:uni/ml/attnlab.git") == "https://gitlab.com/uni/ml/attnlab"


@pytest.mark.parametrize("remote", ["", "/work/main", "../attnlab", "file:///srv/git/attnlab.git",
                                    "https://github.com/attnlab", "C:/courses/attnlab"])
def test_local_paths_and_incomplete_addresses_are_not_repositories(remote):
    assert normalise_repository_url(remote) is None


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A git checkout on branch fall-2026 whose origin is an ssh address; git looks no higher."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    repo = tmp_path / "course"
    repo.mkdir()
    for args in (["init", "-q", "-b", "fall-2026"], ["remote", "add", "origin", "git@github.com:org/course.git"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    return repo


def test_git_origin_and_current_branch_are_used_when_nothing_is_set(checkout):
    repo = find_repository("", "", {}, checkout)
    assert (repo.url, repo.branch) == ("https://github.com/org/course", "fall-2026")


def test_environment_comes_before_git_origin_and_config_before_both(checkout):
    env = {"ATTNLAB_REPOSITORY_URL": "https://github.com/env-org/course",
           "ATTNLAB_REPOSITORY_BRANCH": "env-branch"}
    assert find_repository("", "", env, checkout)[:2] == ("https://github.com/env-org/course", "env-branch")
    assert find_repository("", "", {"ATTNLAB_REPOSITORY_URL": env["ATTNLAB_REPOSITORY_URL"]},
                           checkout)[:2] == ("https://github.com/env-org/course", "fall-2026")
    assert find_repository("https://github.com/cfg-org/course", "cfg-branch", env,
                           checkout)[:2] == ("https://github.com/cfg-org/course", "cfg-branch")


def test_jupyter_books_default_repository_counts_as_unset(checkout, tmp_path):
    assert find_repository(JUPYTER_BOOK_DEFAULT_URL, "", {}, checkout).url == "https://github.com/org/course"
    no_git = tmp_path / "plain"
    no_git.mkdir()
    assert find_repository(JUPYTER_BOOK_DEFAULT_URL, "master", {}, no_git) is None


def test_colab_is_left_out_for_a_repository_outside_github(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_REPOSITORY_URL", "git@gitlab.com:uni/attnlab.git")
    monkeypatch.setenv("ATTNLAB_JUPYTERHUB_URL", "https://hub.example.edu")
    options = {"repository_url": "", "repository_branch": "",
               "launch_buttons": {"colab_url": "https://colab.research.google.com",
                                  "binderhub_url": "https://mybinder.org", "jupyterhub_url": ""}}
    app = SimpleNamespace(srcdir=str(tmp_path), config=SimpleNamespace(html_theme_options=options))
    launch_buttons.configure_launch_buttons(app, app.config)
    assert options["repository_url"] == "https://gitlab.com/uni/attnlab"
    assert app.attnlab_launch_buttons == {"colab_url": "", "binderhub_url": "https://mybinder.org",
                                          "jupyterhub_url": "https://hub.example.edu"}


# --- tiny book builds ----------------------------------------------------------------------------

LESSON = """\
---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  name: python3
  display_name: Python 3
---

# A lesson

```{code-cell} ipython3
print(6 * 7)
```

The exercises are on {doc}`exercises`.
"""

TOC = f"""\
format: jb-book
root: intro
chapters:
  - file: chapters/{CHAPTER}/index
    sections:
      - file: chapters/{CHAPTER}/exercises
"""


def make_tiny_book(where: Path, config: str | None = None, intro_extra: str = "") -> Path:
    book = where / "book"
    (book / "chapters" / CHAPTER).mkdir(parents=True)
    (book / "_config.yml").write_text(config or (ROOT / "_config.yml").read_text())
    shutil.copytree(ROOT / "_ext", book / "_ext", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "references.bib", book)
    shutil.copy(ROOT / NOTEBOOK, book / NOTEBOOK)
    (book / "chapters" / CHAPTER / "index.md").write_text(LESSON)
    (book / "intro.md").write_text("# A tiny book\n\nThe course's website is at "
                                   "[the example site](https://example.org/attnlab).\n" + intro_extra)
    (book / "_toc.yml").write_text(TOC)
    return book


def build(book: Path, out: Path, *jb_args: str, **env_vars: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ENV_NAMES}
    env.update(GIT_CEILING_DIRECTORIES=str(book.parent), OMP_NUM_THREADS="1", **env_vars)
    jb = shutil.which("jupyter-book", path=os.path.dirname(sys.executable)) or "jupyter-book"
    return subprocess.run([jb, "build", "-W", "--keep-going", *jb_args, "--path-output", str(out), str(book)],
                          capture_output=True, text=True, timeout=300, env=env)


def launch_links(page: Path) -> set[str]:
    soup = BeautifulSoup(page.read_text(), "html.parser")
    return {a["href"] for a in soup.find_all("a", href=True) if any(h in a["href"] for h in LAUNCH_HOSTS)}


def download_links(page: Path) -> set[str]:
    soup = BeautifulSoup(page.read_text(), "html.parser")
    return {a["href"] for a in soup.find_all("a", href=True) if "_sources/" in a["href"]}


@pytest.mark.slow
def test_exercise_page_buttons_open_the_student_notebook_on_the_branch(tmp_path):
    book = make_tiny_book(tmp_path)
    proc = build(book, tmp_path / "out", ATTNLAB_REPOSITORY_URL="git@github.com:example-org/attnlab.git",
                 ATTNLAB_REPOSITORY_BRANCH="fall-2026", ATTNLAB_JUPYTERHUB_URL="https://hub.example.edu/")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    html = tmp_path / "out" / "_build" / "html" / "chapters" / CHAPTER
    assert launch_links(html / "exercises.html") == {
        f"https://colab.research.google.com/github/example-org/attnlab/blob/fall-2026/{NOTEBOOK}",
        f"https://mybinder.org/v2/gh/example-org/attnlab/fall-2026?urlpath=lab/tree/{NOTEBOOK}",
        "https://hub.example.edu/hub/user-redirect/git-pull?repo=https%3A//github.com/example-org/attnlab"
        f"&urlpath=lab/tree/attnlab/{NOTEBOOK}&branch=fall-2026",
    }
    assert download_links(html / "exercises.html") == {f"../../_sources/{NOTEBOOK}"}
    # the lesson is a MyST text notebook: without the extension the theme gives it buttons to index.md
    lesson = html / "index.html"
    assert launch_links(lesson) == set() and "launch-buttons" not in lesson.read_text()
    assert download_links(lesson) == {f"../../_sources/chapters/{CHAPTER}/index.md"}


@pytest.mark.slow
@pytest.mark.parametrize("config", ["real", "jupyter-book-default-repository"])
def test_without_a_repository_there_are_no_launch_buttons(tmp_path, config):
    text = (ROOT / "_config.yml").read_text()
    if config != "real":  # a deployer who deleted the empty url: Jupyter Book's default comes back
        text, count = re.subn(r'(?m)^  url: "".*\n', "", text)
        assert count == 1
    book = make_tiny_book(tmp_path, config=text)
    proc = build(book, tmp_path / "out")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    html = tmp_path / "out" / "_build" / "html"
    for page in html.rglob("*.html"):
        assert launch_links(page) == set(), page
        assert "executablebooks/jupyter-book" not in page.read_text(), page
    assert download_links(html / "chapters" / CHAPTER / "exercises.html") == {f"../../_sources/{NOTEBOOK}"}
    assert proc.stdout.count("no launch buttons") == 1, "one INFO line says how to get them"


@pytest.mark.slow
def test_linkcheck_fails_on_a_broken_internal_link_and_ignores_web_links(tmp_path):
    good = make_tiny_book(tmp_path / "good")
    proc = build(good, tmp_path / "good-out", "--builder", "custom", "--custom-builder", "linkcheck")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = [json.loads(line) for line in
              (tmp_path / "good-out" / "_build" / "linkcheck" / "output.json").read_text().splitlines()]
    assert {r["uri"]: r["status"] for r in report} == {"https://example.org/attnlab": "ignored"}

    broken = make_tiny_book(tmp_path / "broken", intro_extra=f"\nSee [the lesson](chapters/{CHAPTER}/lesson.md).\n")
    proc = build(broken, tmp_path / "broken-out", "--builder", "custom", "--custom-builder", "linkcheck")
    assert proc.returncode != 0
    assert f"chapters/{CHAPTER}/lesson.md" in proc.stdout + proc.stderr
