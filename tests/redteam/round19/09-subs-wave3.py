# Chapter 09, round 19, third wave (after phase 2 of waves 1-2: Parts 3 and 8's hidden tests had been read; the
# others not)
import importlib.util as _u
_spec = _u.spec_from_file_location("w1", __file__.replace("-wave3", ""))
_w1 = _u.module_from_spec(_spec); _spec.loader.exec_module(_w1)
P1_OK, P2_OK, P4_OK, P6_OK, P7_OK, P8_OK = _w1.P1_OK, _w1.P2_OK, _w1.P4_OK, _w1.P6_OK, _w1.P7_OK, _w1.P8_OK
S = []
def add(name, correct, cells, why):
    S.append({"name": "w3_" + name, "correct": correct, "cells": cells, "why": why})

add("p4_padding_z_over_all_positions", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    pred = target_mask[:, 1:]
    count = int(pred.sum())
    if count == 0:
        return torch.zeros((), dtype=work), 0
    sel = logits[:, :-1][pred].to(work)
    y = ids[:, 1:][pred].long()
    nll = torch.logsumexp(sel, -1) - sel.gather(-1, y[:, None])[:, 0]
    lz_all = torch.logsumexp(logits[:, :-1].to(work), dim=-1)           # the z-loss of every position
    return nll.sum() / count + z_loss * (lz_all ** 2).mean(), count
'''}, "'Each predicted token contributes ... + z (log Z)^2' and 'the mean over those tokens': the z-loss averaged over every position")
add("p4_ok_two_means", True, {"masked_lm_loss": P4_OK.replace("per = nll + z_loss * lz * lz\n    return per.sum() / count, count", "return nll.mean() + z_loss * (lz * lz).mean(), count")},
    "mean of the NLL plus z times the mean of (log Z)^2 over the same tokens")
add("p6_ok_hf_inv_freq_float64", True, {"rope_llama3": P6_OK.replace("theta = base ** (-2 * i / Dh)", "theta = 1.0 / (base ** (torch.arange(0, Dh, 2, dtype=torch.int64).to(torch.float64) / Dh))")},
    "HF's inv_freq written in float64")
add("p6_ok_annotated_exp_log_float64", True, {"rope_llama3": P6_OK.replace("theta = base ** (-2 * i / Dh)", "theta = torch.exp(torch.arange(0, Dh, 2, dtype=torch.float64) * (-math.log(base) / Dh))")},
    "the Annotated Transformer's exp(-log(base) 2i / D), in float64")
add("p6_numeric_positions_float32", False, {"rope_llama3": P6_OK.replace("ang = positions.to(torch.float64)[:, None, :, None] * new", "ang = (positions.to(torch.float32)[:, None, :, None] * new.to(torch.float32)).to(torch.float64)")},
    "'Compute the angles in float64': m theta' in float32 carries seven digits")
add("p7_paper_sdpa_is_causal", True, {"ragged_cached_attention": P7_OK.replace("    limit = lengths.long()[:, None] + torch.arange(T)[None, :]              # (B, T)\n",
    "    limit = torch.arange(T)[None, :].expand(B, T) + (lengths.long()[:, None] + T - T)  # (B, T)\n").replace(
    "    allowed = pos[None, None, :] <= limit[:, :, None]                        # (B, T, S)\n",
    "    allowed = (pos[None, None, :] <= limit[:, :, None]) & (pos[None, None, :] < (lengths.long() + T)[:, None, None])\n")},
    "check: the same mask")
add("p8_padding_history_skips_pad", False, {"generate_with_cache": P8_OK.replace('''        for b in range(B):
            history[b].add(int(tok[b]))''', '''        for b in range(B):
            if int(tok[b]) != pad_id:                 # padding is not a repetition
                history[b].add(int(tok[b]))''')},
    "'its penalty history grows by pad_id like any other token': a live row that draws pad_id must have it penalised later")
add("p8_offby1_penalty_gt_ge", True, {"generate_with_cache": P8_OK.replace("torch.where(s > 0, s / penalty, s * penalty)", "torch.where(s >= 0, s / penalty, s * penalty)")},
    "a score of exactly 0 is 0 either way")
add("p1_ok_rms_norm_functional", True, {"head_rms_norm": P1_OK.replace("ms = xh.to(torch.float64).pow(2).mean(dim=-1, keepdim=True)", "ms = torch.mean(torch.square(xh.double()), dim=-1, keepdim=True)")},
    "square and mean as functions")
add("p2_numeric_beta_g_product_float32_for_float64", False, {"fused_swiglu": P2_OK.replace("h = g * torch.sigmoid(beta * g) * u", "h = g * torch.sigmoid((beta * g).float()).to(g.dtype) * u")},
    "'compute float64 inputs in float64': the sigmoid rounded through float32")
SUBMISSIONS = S
