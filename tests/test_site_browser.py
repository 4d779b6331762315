"""The built site in a real browser (headless Chromium driven by Playwright).

Every page opens without console errors, its math is rendered, its figures load and have alt
text, its headings go in order, and its internal links resolve; search finds "softmax";
screenshots of the home page, a lesson and an exercise page are kept in test-artifacts/.

Needs Debian's `chromium`, Playwright from PyPI (the `test` extra) and a local MathJax 3
(`npm install --prefix .cache/mathjax mathjax@3`, or ATTNLAB_MATHJAX_DIR): offline, the site's
MathJax cannot come from its CDN, so requests for it are answered from the local copy. Without
them the tests skip, unless ATTNLAB_REQUIRE_BROWSER=1 (as in .ci/run), where they fail.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import os
import re
import shutil
import socketserver
import threading
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest

from grading import ROOT

MATHJAX = Path(os.environ.get("ATTNLAB_MATHJAX_DIR", ROOT / ".cache/mathjax/node_modules/mathjax/es5"))
ARTIFACTS = ROOT / "test-artifacts"
# sphinx-thebe, which Jupyter Book 1 always loads, registers its inline configuration twice;
# the browser reports the second declaration. It is harmless and outside this project.
KNOWN_UPSTREAM_ERRORS = ("Identifier 'THEBE_JS_URL' has already been declared",)

pytestmark = pytest.mark.slow


def _missing() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (pip install -e '.[test]')"
    if not shutil.which("chromium"):
        return "chromium is not installed (apt-get install chromium)"
    if not (MATHJAX / "tex-mml-chtml.js").is_file():
        return f"no local MathJax at {MATHJAX} (npm install --prefix .cache/mathjax mathjax@3)"
    return None


@pytest.fixture(scope="module")
def browser_site(built_site):
    reason = _missing()
    if reason:
        if os.environ.get("ATTNLAB_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(built_site))
    handler.log_message = lambda *args: None
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"),
                                    args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield browser, base, built_site
        browser.close()
    server.shutdown()


def open_page(browser, base, path):
    """Open a page; return (page, console errors, failed local requests, external requests)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors, failed, external = [], [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.url.startswith(base) and r.status >= 400 else None)

    def route(request_route):
        url = request_route.request.url
        if url.startswith(base):
            return request_route.continue_()
        if "/mathjax@3/es5/" in url:
            local = MATHJAX / url.split("/es5/", 1)[1].split("?")[0]
            if local.is_file():
                return request_route.fulfill(path=str(local))
        external.append(url)
        return request_route.abort()

    page.route("**/*", route)
    page.goto(base + path, wait_until="load")
    return page, errors, failed, external


def pages(site: Path) -> list[str]:
    skip = {"genindex.html", "search.html", "index.html"}  # index.html only redirects
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if p.name not in skip and not p.relative_to(site).parts[0].startswith("_"))


def test_site_has_the_expected_pages(browser_site):
    _, _, site = browser_site
    found = pages(site)
    assert "intro.html" in found and "glossary.html" in found
    assert sum(p.endswith("/exercises.html") for p in found) >= 5


def test_every_page_loads_cleanly_with_math_figures_and_links(browser_site):
    browser, base, site = browser_site
    problems = []
    for path in pages(site):
        page, errors, failed, external = open_page(browser, base, path)
        source = (site / path).read_text(encoding="utf-8")
        if "tex-mml-chtml" in source and re.search(r"\\\(|\\\[|\$\$", source):
            page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30000)
            page.evaluate("() => MathJax.startup.promise")
            if page.locator("mjx-container").count() == 0:
                problems.append(f"{path}: math not rendered")
            if page.locator("mjx-merror").count():
                problems.append(f"{path}: MathJax error in a formula")
        images = page.evaluate("() => Array.from(document.querySelectorAll('main img')).map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0, i.getAttribute('alt') || ''])")
        for src, loaded, alt in images:
            if not loaded:
                problems.append(f"{path}: image {src} did not load")
            if not alt or alt.endswith(".png") or len(alt) < 15:
                problems.append(f"{path}: image {src} has no alt text")
        levels = page.evaluate("() => Array.from(document.querySelectorAll('main h1, main h2, main h3, main h4')).map(h => +h.tagName[1])")
        if levels and levels[0] != 1:
            problems.append(f"{path}: first heading is h{levels[0]}")
        for before, after in zip(levels, levels[1:]):
            if after > before + 1:
                problems.append(f"{path}: heading h{after} follows h{before}")
        for href in page.evaluate("() => Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'))"):
            target = urlparse(urljoin(base + path, href))
            if target.scheme not in ("http", "https") or f"{target.scheme}://{target.netloc}/" != base:
                continue
            local = site / target.path.lstrip("/")
            if target.path.endswith("/"):
                local = local / "index.html"
            if not local.exists():
                problems.append(f"{path}: broken link {href}")
        real_errors = [e for e in errors if not any(k in e for k in KNOWN_UPSTREAM_ERRORS)]
        problems += [f"{path}: console error: {e}" for e in real_errors]
        problems += [f"{path}: failed request {f}" for f in failed]
        problems += [f"{path}: request outside the site {u}" for u in external if "mathjax" not in u]
        page.close()
    assert not problems, "\n".join(problems[:40])


def test_search_finds_softmax(browser_site):
    browser, base, _ = browser_site
    page, errors, *_ = open_page(browser, base, "search.html?q=softmax")
    page.wait_for_selector("#search-results li", timeout=30000)
    hits = page.evaluate("() => Array.from(document.querySelectorAll('#search-results li a')).map(a => a.getAttribute('href'))")
    assert any("02-scaled-attention" in h for h in hits), hits


def test_screenshots_of_home_lesson_and_exercise_pages(browser_site):
    browser, base, _ = browser_site
    ARTIFACTS.mkdir(exist_ok=True)
    for name, path in [("home", "intro.html"), ("lesson", "chapters/02-scaled-attention/index.html"),
                       ("exercise", "chapters/02-scaled-attention/exercises.html")]:
        page, *_ = open_page(browser, base, path)
        page.wait_for_timeout(500)
        shot = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000, f"{shot} looks empty"
        page.close()


def test_home_page_shows_the_chapter_map(browser_site):
    browser, base, _ = browser_site
    page, *_ = open_page(browser, base, "intro.html")
    rows = page.evaluate("() => Array.from(document.querySelectorAll('main table tr')).map(r => r.innerText)")
    chapter_rows = [r for r in rows if "min" in r]
    assert len(chapter_rows) >= 5, rows
    links = page.evaluate("() => Array.from(document.querySelectorAll('main table a')).map(a => a.getAttribute('href'))")
    assert any("02-scaled-attention/index.html" in h for h in links), links
