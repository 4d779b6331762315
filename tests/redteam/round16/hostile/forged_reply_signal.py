"""Red team round 16 (hostile, F13): what a client sees when a cell forges its own execute_reply: for the fix.

    timeout 300 python tests/redteam/round16/hostile/forged_reply_signal.py [--suppress]

--suppress: the cell also wraps the kernel's `session.send` so that the request's later messages are dropped, and
puts it back at the first message of the next request: the client then sees one reply and one idle, as from a real
kernel, and `send` is the original again before any later code runs.

A plain kernel (jupyter_client, no sandbox, no grader) runs one cell that forges "ok" + idle for its own request,
then raises, as a failing hidden check would. Prints, in order, every shell and iopub message whose parent is that
request: a real kernel sends one reply and one idle per request; the forged one is followed by the real error, a
second reply and a second idle, all after the client has taken the cell as finished. That is the signal a
grader-side check can read (drain both channels until the next request's own reply, look for a parent that
already had its reply).
"""
from __future__ import annotations

import queue

from jupyter_client.manager import start_new_kernel

SUPPRESS = '''
# drop every later message of this request (the real error, reply and idle); put send back at the first message of
# another request, i.e. before any later code (a probe) runs
real_send = k.session.send
mid = parent["header"]["msg_id"]
def send(stream, msg_or_type, content=None, parent=None, *args, **kwargs):
    p = parent or {}
    if mid in (p.get("msg_id"), p.get("header", {}).get("msg_id"), p.get("parent_header", {}).get("msg_id")):
        return {"header": {}, "content": {"status": "ok"}}  # what the kernel's own code reads of a sent message
    if not p:  # a message of no request (none is expected here): let it through, keep watching
        return real_send(stream, msg_or_type, content, parent, *args, **kwargs)
    k.session.send = real_send
    return real_send(stream, msg_or_type, content, parent, *args, **kwargs)
k.session.send = send
'''

CELL = '''
k = get_ipython().kernel
parent = k.get_parent("shell")
k.session.send(k.shell_stream, "execute_reply",
               {"status": "ok", "execution_count": k.execution_count, "user_expressions": {}, "payload": []},
               parent, ident=k._parent_ident["shell"])
k._publish_status("idle", "shell", parent)
import time; time.sleep(0.5)
raise AssertionError("the hidden check fails")
'''


def main():
    km, kc = start_new_kernel(kernel_name="python3")
    try:
        import sys
        cell = CELL.replace("import time", SUPPRESS + "import time") if "--suppress" in sys.argv else CELL
        msg_id = kc.execute(cell)
        seen = []
        first_reply = kc.get_shell_msg(timeout=30)
        seen.append(("shell", first_reply["msg_type"], first_reply["content"].get("status")))
        # what a client that stopped here (nbclient) would never read
        follow = kc.execute("1 + 1")
        for _ in range(200):
            for channel, get in (("shell", kc.get_shell_msg), ("iopub", kc.get_iopub_msg)):
                try:
                    msg = get(timeout=0.05)
                except queue.Empty:
                    continue
                if channel == "shell" and msg["parent_header"].get("msg_id") == follow:
                    seen.append(("shell", "execute_reply of the next request", msg["content"].get("status")))
                if msg["parent_header"].get("msg_id") == msg_id:
                    content = msg["content"]
                    seen.append((channel, msg["msg_type"], content.get("status") or content.get("execution_state")
                                 or content.get("ename") or ""))
        for item in seen:
            print(*item)
        replies = sum(1 for c, t, _ in seen if t == "execute_reply")
        idles = sum(1 for c, t, s in seen if t == "status" and s == "idle")
        print(f"replies for the request: {replies}; idle statuses: {idles} (a real kernel: 1 and 1)")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


if __name__ == "__main__":
    main()
