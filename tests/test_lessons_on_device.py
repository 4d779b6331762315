"""experiments/lessons_on_device.py: the lesson runner used on machines where the book is not built."""

import json

from grading import ROOT, load_script

runner = load_script("experiments/lessons_on_device.py")

PAGE = """---
kernelspec:
  name: python3
---

# A page

```{code-cell} ipython3
---
mystnb:
  image:
    alt: "a figure"
---
from myst_nb import glue
x = 2
```

Some prose with `inline code` and a plain block:

```python
raise SystemExit("a plain code block is not a cell")
```

````{code-cell} ipython3
:tags: [hide-input]
y = x * 21
glue("answer", y, display=False)
glue("table", {"a": 1}, display=False)
````
"""


def test_code_cells_are_taken_in_order_without_their_options():
    assert runner.code_cells(PAGE) == [
        "from myst_nb import glue\nx = 2",
        'y = x * 21\nglue("answer", y, display=False)\nglue("table", {"a": 1}, display=False)',
    ]


def test_every_lesson_page_has_cells_the_runner_finds():
    for page in ROOT.glob("chapters/*/*.md"):
        cells = runner.code_cells(page.read_text(encoding="utf-8"))
        assert cells and all("{code-cell}" not in c and not c.startswith(("---", ":tags:")) for c in cells), page


def test_pages_run_in_a_child_from_their_folder_and_record_glued_values(tmp_path):
    (tmp_path / "data.txt").write_text("7")
    good = tmp_path / "good.md"
    good.write_text(PAGE.replace("x = 2", "x = int(open('data.txt').read()) - 5"))
    bad = tmp_path / "bad.md"
    bad.write_text(PAGE.replace("y = x * 21", "y = undefined_name"))
    out = tmp_path / "r.json"
    rows = runner.main(["--pages", str(good), str(bad), "--jobs", "2", "--timeout", "120", "--out", str(out)])
    by_page = {r["page"].split("/")[-1]: r for r in rows}
    assert by_page["good.md"]["status"] == "ok" and by_page["good.md"]["cells_run"] == 2
    assert by_page["good.md"]["glued"] == {"answer": 42, "table": "<dict>"}
    assert by_page["bad.md"]["status"] == "error" and by_page["bad.md"]["failed_cell"] == 2
    assert "NameError" in by_page["bad.md"]["error"] and by_page["bad.md"]["cells_run"] == 1
    record = json.loads(out.read_text())
    assert record["results"]["ok"] == 1 and record["results"]["total"] == 2
    assert record["command"].startswith("python experiments/lessons_on_device.py") and record["hardware"]


def test_a_page_past_its_time_limit_is_recorded_as_timeout(tmp_path):
    slow = tmp_path / "slow.md"
    slow.write_text("```{code-cell} ipython3\nimport time\ntime.sleep(30)\n```\n")
    (row,) = runner.main(["--pages", str(slow), "--timeout", "3", "--no-write"])
    assert row["status"] == "timeout"
