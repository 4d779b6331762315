"""Round 31 sweep, chapters 01 and 02: correct restorers. Each function part's model answer wrapped in a read of every
setting, a change, and a finally that puts back what was read (not the default); run in a plain process as
tests/cellrun.py does: `python tests/redteam/round31/01-sweep-restorers.py`. Must keep full marks (12/12, 16/16)."""
import sys
from pathlib import Path
ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))
from grading import solution_code

WRAP = '''
def {name}(*args, **kwargs):
    import torch._tensor_str as ts
    found = (torch.get_default_dtype(), torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled(),
             torch.get_float32_matmul_precision(), torch.get_num_threads(), dict(vars(ts.PRINT_OPTS)),
             torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    torch.set_default_dtype(torch.float64 if found[0] != torch.float64 else torch.float32)
    torch.set_anomaly_enabled(not found[1])
    torch.set_float32_matmul_precision("high" if found[3] != "high" else "highest")
    torch.set_num_threads(3 if found[4] != 3 else 2)
    torch.set_printoptions(precision=11)
    try:
        with torch.no_grad() if {nograd} else torch.enable_grad() if torch.is_grad_enabled() else torch.no_grad():
            return inner_{name}(*args, **kwargs)
    finally:
        torch.set_default_dtype(found[0])
        torch.set_anomaly_enabled(found[1], found[2])
        torch.set_float32_matmul_precision(found[3])
        torch.set_num_threads(found[4])
        torch.set_printoptions(**{{k: v for k, v in found[5].items() if k in ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")}})
'''

def wrapped(code, name, nograd=False):
    return code.replace(f"def {name}(", f"def inner_{name}(", 1) + "\n" + WRAP.format(name=name, nograd=nograd)

def subs(ch):
    M = solution_code(ch)
    if ch.startswith("01"):
        return {"rnn_step": wrapped(M["rnn_step"], "leaky_step_jacobian"),
                "rnn_unroll": wrapped(M["rnn_unroll"], "rnn_unroll_reverse"),
                "gradient_norms": wrapped(M["gradient_norms"], "jacobian_norms", nograd=True),
                "additive": wrapped(M["additive"], "coverage_decoder")}
    out = {"raw_scores": wrapped(M["raw_scores"], "raw_scores"),
           "softmax_backward": wrapped(M["softmax_backward"], "softmax_backward"),
           "causal_mask": wrapped(M["causal_mask"], "causal_mask", nograd=True),
           "padding_mask": wrapped(M["padding_mask"], "padding_mask", nograd=True),
           "masked_attention": wrapped(M["masked_attention"], "masked_attention"),
           "variance_experiment": wrapped(M["variance_experiment"], "dot_product_variance", nograd=True)}
    fix = M["fixed_self_attention"].replace("    def forward(self, x, lengths=None, causal=False):",
                                            "    def inner_forward(self, x, lengths=None, causal=False):", 1)
    w = WRAP.format(name="forward", nograd=False).replace("inner_forward(*args", "self.inner_forward(*args")
    w = w.replace("def forward(*args", "def forward(self, *args")
    out["fixed_self_attention"] = fix + "".join("    " + l + "\n" if l else "\n" for l in w.splitlines())
    return out

if __name__ == "__main__":
    import cellrun

    for ch in ("01-rnn-motivation", "02-scaled-attention"):
        src = ROOT / "solutions" / ch / "exercises.ipynb"
        s = subs(ch)
        nbs = {"restorers": cellrun.notebook_cells(src, s)}
        res, crashed = cellrun.run_notebooks(nbs)
        parts = res["restorers"]
        lost = {g: e[:300] for g, (sc, mx, e) in parts.items() if sc < mx}
        print(ch, "crashed", crashed, f"{sum(v[0] for v in parts.values()):g}/{sum(v[1] for v in parts.values()):g}", lost)
