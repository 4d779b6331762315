"""Launch buttons (Colab, Binder, a JupyterHub) on the exercise pages, for the repository the site
is built from; loaded by ``_config.yml`` (``sphinx: local_extensions``).

sphinx-book-theme builds the buttons from ``repository_url``, ``repository_branch`` and
``launch_buttons`` in ``html_theme_options``. The course has no fixed public repository, so at
``config-inited`` this extension decides which one the buttons open, in this order:

1. ``repository: url`` in ``_config.yml``, unless it is Jupyter Book's default (its own repository);
2. the environment: ``ATTNLAB_REPOSITORY_URL``;
3. the ``origin`` remote of the git checkout being built (an ssh address is turned into https).

The branch is ``repository: branch``, else ``ATTNLAB_REPOSITORY_BRANCH``, else the checkout's
current branch, else ``main``. The JupyterHub is ``launch_buttons: jupyterhub_url``, else
``ATTNLAB_JUPYTERHUB_URL``. With no repository the site has no launch buttons (the download
button stays) and the build says once, as an INFO line, how to get them.

The buttons appear only on pages whose source is an ``.ipynb`` (the student notebooks): the lessons
are MyST Markdown files, which Colab cannot open.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

from sphinx.util import logging

logger = logging.getLogger(__name__)

JUPYTER_BOOK_DEFAULT_URL = "https://github.com/executablebooks/jupyter-book"
# the hosts sphinx-book-theme knows how to build links for (it fails the build on any other)
KNOWN_HOSTS = ("github", "gitlab", "bitbucket")
HOW_TO_ENABLE = (
    "attnlab: no launch buttons (Colab, Binder, JupyterHub) on the exercise pages: the repository "
    "of the course is not known. Set repository: url in _config.yml, or ATTNLAB_REPOSITORY_URL "
    "(and ATTNLAB_REPOSITORY_BRANCH, ATTNLAB_JUPYTERHUB_URL), or build from a checkout whose "
    "'origin' remote is on GitHub, GitLab or Bitbucket."
)


class Repository(NamedTuple):
    url: str  # https://host/org/repo, no credentials, no .git
    branch: str
    found_in: str  # where the URL came from, for the log


def normalise_repository_url(url: str | None) -> str | None:
    """The https address of a git remote, or None when it is not one on a web host.

    ``git@github.com:org/repo.git`` and ``ssh://git@github.com/org/repo.git`` become
    ``https://github.com/org/repo``; user names, tokens, ports (of ssh), ``.git`` and trailing
    slashes are dropped. A local path or ``file://`` address gives None.
    """
    url = (url or "").strip()
    scp_like = re.fullmatch(r"(?:[^@/:]+@)?([A-Za-z0-9.-]+\.[A-Za-z]{2,}):(?!//)/?(.+)", url)
    if scp_like:
        host, path = scp_like.groups()
        scheme = "https"
    else:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https", "ssh", "git", "git+ssh") or not parts.hostname:
            return None
        host, path = parts.hostname, parts.path
        scheme = "http" if parts.scheme == "http" else "https"
        if scheme == "http" and parts.port:
            host = f"{host}:{parts.port}"
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")]
    if path.count("/") < 1 or not all(path.split("/")):
        return None  # needs at least org/repo
    return f"{scheme}://{host.lower()}/{path}"


def _git(srcdir: str | Path, *args: str) -> str:
    try:
        proc = subprocess.run(["git", *args], cwd=srcdir, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def find_repository(configured_url: str | None, configured_branch: str | None,
                    environ: dict | os._Environ, srcdir: str | Path) -> Repository | None:
    """The repository the launch buttons open, or None (see the module docstring for the order)."""
    configured_url = (configured_url or "").strip()
    if configured_url and configured_url.rstrip("/") != JUPYTER_BOOK_DEFAULT_URL:
        raw, found_in = configured_url, "_config.yml repository: url"
    elif environ.get("ATTNLAB_REPOSITORY_URL", "").strip():
        raw, found_in = environ["ATTNLAB_REPOSITORY_URL"], "ATTNLAB_REPOSITORY_URL"
    else:
        raw, found_in = _git(srcdir, "remote", "get-url", "origin"), "the git remote 'origin'"
    url = normalise_repository_url(raw)
    if url is None:
        if raw:
            logger.info(f"attnlab: {found_in} ({_without_credentials(raw)}) is not the web address "
                        "of a git repository")
        return None
    if not any(name in urlsplit(url).hostname for name in KNOWN_HOSTS):
        logger.info(f"attnlab: launch buttons need a repository on GitHub, GitLab or Bitbucket, not {url}")
        return None
    branch = ((configured_branch or "").strip() or environ.get("ATTNLAB_REPOSITORY_BRANCH", "").strip()
              or _git(srcdir, "branch", "--show-current") or "main")
    return Repository(url, branch, found_in)


def _without_credentials(url: str) -> str:
    return re.sub(r"//[^/@]*@", "//", url)


def configure_launch_buttons(app, config) -> None:
    """``config-inited``: fill in the theme's repository and launch options, or remove them."""
    options = config.html_theme_options
    launch = dict(options.get("launch_buttons") or {})
    repo = find_repository(options.get("repository_url"), options.get("repository_branch"),
                           os.environ, app.srcdir)
    if repo is None:
        # never leave Jupyter Book's default (its own repository) for the theme to link to
        options.pop("repository_url", None)
        options["launch_buttons"] = {}
        app.attnlab_launch_buttons = {}
        logger.info(HOW_TO_ENABLE)
        return
    options["repository_url"] = repo.url
    options["repository_branch"] = repo.branch
    launch["jupyterhub_url"] = (launch.get("jupyterhub_url") or "").strip() or \
        os.environ.get("ATTNLAB_JUPYTERHUB_URL", "").strip()
    if launch.get("colab_url") and urlsplit(repo.url).hostname != "github.com":
        launch["colab_url"] = ""  # Colab opens notebooks from GitHub only
    options["launch_buttons"] = app.attnlab_launch_buttons = launch
    made = [name for name, key in (("Colab", "colab_url"), ("Binder", "binderhub_url"),
                                   ("JupyterHub", "jupyterhub_url")) if launch.get(key)]
    logger.info(f"attnlab: launch buttons ({', '.join(made) or 'none configured'}) open "
                f"{repo.url} on branch {repo.branch} (from {repo.found_in})")


def launch_buttons_on_notebook_pages_only(app, pagename, templatename, context, doctree) -> None:
    """``html-page-context``, before the theme's handler (priority 501): the theme reads the launch
    options for each page; a page whose source is not an .ipynb gets none."""
    is_notebook = pagename in app.env.all_docs and str(app.env.doc2path(pagename)).endswith(".ipynb")
    app.config.html_theme_options["launch_buttons"] = (
        getattr(app, "attnlab_launch_buttons", {}) if is_notebook else {})


def setup(app):
    app.connect("config-inited", configure_launch_buttons)
    app.connect("html-page-context", launch_buttons_on_notebook_pages_only, priority=500)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
