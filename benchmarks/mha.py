"""Forward+backward time of attnlab's MultiHeadAttention against torch.nn.MultiheadAttention.

Both modules get the same weights, the same input and the same causal mask, and neither returns
attention weights (PyTorch's fast path). The two are timed in alternation within one run, so
load on a shared machine hits both alike; the script prints the median time of each and their
ratio (attnlab / torch). Target: ratio <= 1.15 on a CPU.

    python benchmarks/mha.py                # B=8, T=256, D=512, H=8 on the auto device
    python benchmarks/mha.py --device cpu --batch 4 --length 128
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import torch
from torch import nn

from attnlab import causal_mask, get_device, set_seed
from attnlab.multihead import MultiHeadAttention
from attnlab.results import write_results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="auto")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--length", type=int, default=256)
    parser.add_argument("--d-model", type=int, default=512)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--out", type=Path, help="also write the measurement to this results file (JSON)")
    args = parser.parse_args()

    set_seed(0)
    device = get_device(args.device)
    theirs = nn.MultiheadAttention(args.d_model, args.heads, batch_first=True, device=device)
    ours = MultiHeadAttention(args.d_model, args.heads, device=device).load_torch_weights(theirs)
    x = torch.randn(args.batch, args.length, args.d_model, device=device, requires_grad=True)
    allowed = causal_mask(args.length, device=device)

    def step_ours():
        out, _ = ours(x, allowed=allowed)
        out.sum().backward()

    def step_theirs():
        out, _ = theirs(x, x, x, attn_mask=~allowed, need_weights=False)  # torch: True = blocked
        out.sum().backward()

    def timed(fn):
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter() - start

    for _ in range(3):
        step_ours(), step_theirs()
    t_ours, t_theirs = [], []
    for i in range(args.repeats):
        pair = [(t_ours, step_ours), (t_theirs, step_theirs)]
        for times, fn in pair if i % 2 == 0 else pair[::-1]:
            times.append(timed(fn))

    m_ours, m_theirs = statistics.median(t_ours), statistics.median(t_theirs)
    print(f"device={device} torch={torch.__version__} threads={torch.get_num_threads()} "
          f"B={args.batch} T={args.length} D={args.d_model} H={args.heads} repeats={args.repeats}")
    print(f"attnlab MultiHeadAttention   fwd+bwd median {m_ours * 1e3:8.2f} ms")
    print(f"torch nn.MultiheadAttention  fwd+bwd median {m_theirs * 1e3:8.2f} ms")
    print(f"ratio attnlab/torch = {m_ours / m_theirs:.3f}  (target <= 1.15)")
    if args.out:
        write_results(args.out, "benchmarks/mha.py", None, vars(args) | {"device": str(device), "out": str(args.out)},
                      {"attnlab_seconds": m_ours, "torch_seconds": m_theirs, "ratio": m_ours / m_theirs})


if __name__ == "__main__":
    main()
