"""FlashAttention (chapter 7): the tiled PyTorch forward/backward and the Triton kernel."""

import math
import os

import pytest
import torch
import torch.nn.functional as F

from attnlab.flash import (
    flash_attention,
    flash_attention_backward,
    flash_attention_forward,
    naive_attention,
    score_matrix_bytes,
)
from attnlab.profiling import peak_memory_bytes

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before anything imports triton
from attnlab import flash_triton  # noqa: E402

needs_triton = pytest.mark.skipif(flash_triton.why_unavailable() is not None,
                                  reason=str(flash_triton.why_unavailable()))
# Where CUDA is present the kernel is compiled and takes GPU tensors; elsewhere it is interpreted on the CPU.
TRITON_DEVICE = "cpu" if flash_triton.INTERPRETED else "cuda"
SHAPES = [(33, 33), (37, 70), (70, 37), (1, 5), (64, 64)]  # odd lengths, T != S, length 1, exact blocks


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("t, s", SHAPES)
def test_tiled_forward_matches_sdpa(t, s, causal):
    torch.manual_seed(t * 100 + s)
    q, k, v = torch.randn(2, 3, t, 8), torch.randn(2, 3, s, 8), torch.randn(2, 3, s, 8)
    out, lse = flash_attention_forward(q, k, v, causal, block_q=16, block_k=8)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, is_causal=causal), rtol=1e-5, atol=1e-5)
    scores = q @ k.transpose(-2, -1) / math.sqrt(8)
    if causal:
        scores = scores.masked_fill(~torch.ones(t, s, dtype=torch.bool).tril(), float("-inf"))
    torch.testing.assert_close(lse, torch.logsumexp(scores, -1), rtol=1e-5, atol=1e-5)


def test_online_softmax_survives_huge_scores():
    # exp(1000) overflows float32: only a running-max rescaling gets this right
    q = torch.tensor([[[1000.0], [-1000.0]]])
    k = torch.tensor([[[1.0], [0.5], [2.0], [1.5]]])
    v = torch.arange(4.0).reshape(1, 4, 1)
    out, _ = flash_attention_forward(q, k, v, scale=1.0, block_q=1, block_k=1)
    torch.testing.assert_close(out, torch.tensor([[[2.0], [1.0]]]))


@pytest.mark.parametrize("causal", [False, True])
def test_backward_matches_naive_autograd(causal):
    torch.manual_seed(1)
    q, k, v = (torch.randn(2, 2, n, 8, dtype=torch.float64, requires_grad=True) for n in (45, 45, 45))
    grad = torch.randn(2, 2, 45, 8, dtype=torch.float64)
    ours = torch.autograd.grad(flash_attention(q, k, v, causal, None, 16, 8), (q, k, v), grad)
    ref = torch.autograd.grad(naive_attention(q, k, v, causal), (q, k, v), grad)
    for a, b in zip(ours, ref):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("causal", [False, True])
def test_gradcheck_in_float64(causal):
    torch.manual_seed(2)
    q = torch.randn(1, 1, 7, 3, dtype=torch.float64, requires_grad=True)
    k = torch.randn(1, 1, 9, 3, dtype=torch.float64, requires_grad=True)
    v = torch.randn(1, 1, 9, 2, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda q, k, v: flash_attention(q, k, v, causal, None, 3, 4), (q, k, v))


def test_backward_is_recomputation_not_saved_probabilities():
    q = torch.randn(1, 1, 10, 4, requires_grad=True)
    out = flash_attention(q, q.detach(), q.detach(), False, None, 4, 4)
    saved = out.grad_fn.saved_tensors
    assert all(x.shape[-2:] != (10, 10) for x in saved), "an n x n tensor was saved for backward"
    dq, dk, dv = flash_attention_backward(q.detach(), q.detach(), q.detach(), out.detach(),
                                          flash_attention_forward(q.detach(), q.detach(), q.detach())[1],
                                          torch.ones_like(out))
    assert dq.shape == dk.shape == dv.shape == q.shape


def test_extra_memory_grows_linearly_not_quadratically():
    peaks = {}
    for n in (512, 2048):
        q, k, v = (torch.randn(1, 1, n, 32) for _ in range(3))
        peaks[n] = (peak_memory_bytes(lambda: flash_attention_forward(q, k, v, block_q=256, block_k=256)),
                    peak_memory_bytes(lambda: naive_attention(q, k, v)))
    assert peaks[2048][1] >= score_matrix_bytes(2048, 2048)  # naive holds the score matrix
    assert peaks[2048][0] < peaks[2048][1] / 16  # the target, met here at n = 2048 already
    assert peaks[2048][0] / peaks[512][0] < 6  # 4x the length: at most ~4x the memory (slack for tiles)


def test_bad_input_gets_a_clear_error():
    with pytest.raises(ValueError, match="same width"):
        flash_attention_forward(torch.randn(3, 4), torch.randn(3, 5), torch.randn(3, 5))
    with pytest.raises(ValueError, match="at least one key"):
        flash_attention_forward(torch.randn(3, 4), torch.randn(0, 4), torch.randn(0, 4))
    with pytest.raises(ValueError, match="block"):
        flash_attention_forward(torch.randn(3, 4), torch.randn(3, 4), torch.randn(3, 4), block_q=0)


@needs_triton
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("t, s, dh", [(37, 70, 16), (20, 17, 8)])
def test_triton_kernel_matches_sdpa(t, s, dh, causal):
    torch.manual_seed(3)
    q, k, v = (torch.randn(2, n, dh).to(TRITON_DEVICE) for n in (t, s, s))
    out, lse = flash_triton.flash_attention_triton(q, k, v, causal, block_m=16, block_n=16)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, is_causal=causal), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(lse, flash_attention_forward(q, k, v, causal)[1], rtol=1e-4, atol=1e-4)


def test_compiled_triton_kernel_rejects_cpu_tensors_with_advice(monkeypatch):
    if flash_triton.why_unavailable() is not None:
        pytest.skip(str(flash_triton.why_unavailable()))
    monkeypatch.setattr(flash_triton, "INTERPRETED", False)  # as on a machine with CUDA
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    x = torch.randn(4, 16)
    with pytest.raises(ValueError, match=r"CUDA tensors.*TRITON_INTERPRET=1"):
        flash_triton.flash_attention_triton(x, x, x)
    with pytest.raises(ValueError, match="one device"):
        flash_triton.flash_attention_triton(x, x, x.to("meta"))


def test_triton_wrapper_rejects_bad_input_or_explains_absence():
    reason = flash_triton.why_unavailable()
    if reason is not None:
        with pytest.raises(RuntimeError, match="triton"):
            flash_triton.flash_attention_triton(torch.randn(4, 16), torch.randn(4, 16), torch.randn(4, 16))
        return
    x = torch.randn(4, 16, device=TRITON_DEVICE)
    with pytest.raises(ValueError, match="powers of two"):
        flash_triton.flash_attention_triton(x, x, x, block_m=24)
    with pytest.raises(TypeError, match="float16"):
        flash_triton.flash_attention_triton(*(x.double() for _ in range(3)))


@needs_triton
def test_benchmark_runs_its_cuda_comparison_code_on_cpu():
    from grading import load_script

    bench = load_script("benchmarks/flash.py")
    row = bench.triton_vs_sdpa(40, torch.device(TRITON_DEVICE), 1, 1, 16, torch.float32, repeats=1, block=16,
                               causal=True)
    assert row["max_abs_diff"] < 1e-4 and row["triton_seconds"] > 0 and row["sdpa_seconds"] > 0


def test_benchmark_reports_memory_ratio_and_slope():
    from grading import load_script

    record = load_script("benchmarks/flash.py").main(["--lengths", "512", "1024", "--block", "256", "--repeats", "1",
                                                      "--no-write"])
    assert [r["n"] for r in record["rows"]] == [512, 1024]
    assert all(r["max_abs_diff"] < 1e-4 for r in record["rows"]) and record["rows"][-1]["memory_ratio"] < 1 / 4
    assert 1.5 < record["summary"]["naive_memory_slope"] < 2.5


def test_package_works_without_triton_installed():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['triton'] = None\n"  # find_spec('triton') -> None: as if not installed
        "import torch\n"
        "from attnlab import flash_triton\n"
        "from attnlab.flash import flash_attention\n"
        "assert not flash_triton.TRITON_AVAILABLE\n"
        "assert 'pip install' in flash_triton.why_unavailable()\n"
        "x = torch.randn(5, 16)\n"
        "assert flash_attention(x, x, x).shape == (5, 16)\n"
        "try:\n"
        "    flash_triton.flash_attention_triton(x, x, x)\n"
        "except RuntimeError as err:\n"
        "    print('skipped:', err)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "skipped: triton is not installed" in result.stdout


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("causal", [False, True])
def test_on_cuda_tiled_and_triton_match_sdpa_in_float16(causal):
    torch.manual_seed(4)
    q, k, v = (torch.randn(2, 4, 1000, 64, device="cuda", dtype=torch.float16) for _ in range(3))
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    torch.testing.assert_close(flash_attention_forward(q, k, v, causal)[0], ref, rtol=2e-3, atol=2e-3)
    if flash_triton.why_unavailable() is None and not flash_triton.INTERPRETED:
        out, _ = flash_triton.flash_attention_triton(q, k, v, causal)
        torch.testing.assert_close(out, ref, rtol=2e-3, atol=2e-3)
