# Round 30 class sweep, chapter 02 (classes AJ-AN of tests/redteam/round30/BRIEF-SWEEP.md): the model answer of each
# part with one class's mistake put in; "correct": True only where the text allows the answer.
# AM does not apply: no part of this chapter says that a function raises.
from grading import solution_code

MODEL = solution_code("02-scaled-attention")
P1 = MODEL["raw_scores"]
P2 = MODEL["softmax_backward"]
P3 = MODEL["causal_mask"]
P4 = MODEL["padding_mask"]
P5 = MODEL["masked_attention"]
P6 = MODEL["variance_experiment"]
P7 = MODEL["fixed_self_attention"]
HALF = "(torch.float16, torch.bfloat16)"


def first_line(code, name, line, pre="", indent="    "):
    """``line`` (each of its lines indented by ``indent``) put before the body of ``name`` (one-line signature)."""
    head, sep, body = code.partition(f"def {name}(")
    signature, colon, body = body.partition("):\n")
    if name == "forward":  # the body starts with the solution marker
        marker, nl, body = body.partition("\n")
        body = marker + nl + body
        first, nl, rest = body.partition("\n")
        return pre + head + sep + signature + colon + first + nl + "".join(indent + l + "\n" for l in line.splitlines()) + rest
    return pre + head + sep + signature + colon + "".join(indent + l + "\n" for l in line.splitlines()) + body


def kept64(arg):
    """AL: a float64 conversion of ``arg`` kept per id() (for a float64 input, the input itself), cast back."""
    return f"{arg} = KEPT.setdefault(id({arg}), ({arg}, {arg}.to(torch.float64)))[1].to({arg}.dtype)", "KEPT = {}\n\n"


def sub(name, cell, code, why, correct=False):
    return {"name": name, "correct": correct, "cells": {cell: code}, "why": why}


F = "forward"
SUBMISSIONS = [
    # AJ: an input written in place with the values it held
    sub("sw_p1_AJ_q_nan_to_num_", "raw_scores", first_line(P1, "raw_scores", "q.nan_to_num_()"),
        "AJ: q written in place with its own values; intro: functions must not change the tensors they are given"),
    sub("sw_p1_AJ_k_nan_to_num_", "raw_scores", first_line(P1, "raw_scores", "k.nan_to_num_()"),
        "AJ: k written in place with its own values"),
    sub("sw_p2_AJ_weights_clamp_", "softmax_backward", first_line(P2, "softmax_backward", "weights.clamp_(0, 1)"),
        "AJ: weights clamped in place (values kept); the text says the tests check that no write happened"),
    sub("sw_p2_AJ_grad_nan_to_num_", "softmax_backward",
        first_line(P2, "softmax_backward", "grad_weights.nan_to_num_()"), "AJ: grad_weights written in place"),
    sub("sw_p4_AJ_lengths_clamp_", "padding_mask", first_line(P4, "padding_mask", "lengths.clamp_(min=0)"),
        "AJ: lengths clamped in place (values kept)"),
    sub("sw_p5_AJ_q_nan_to_num_", "masked_attention", first_line(P5, "masked_attention", "q.nan_to_num_()"),
        "AJ: q written in place with its own values"),
    sub("sw_p5_AJ_v_nan_to_num_", "masked_attention", first_line(P5, "masked_attention", "v.nan_to_num_()"),
        "AJ: v written in place with its own values"),
    sub("sw_p7_AJ_x_nan_to_num_", "fixed_self_attention", first_line(P7, F, "x.nan_to_num_()", indent="        "),
        "AJ: x written in place with its own values"),
    sub("sw_p7_AJ_lengths_clamp_", "fixed_self_attention",
        first_line(P7, F, "if lengths is not None:\n    lengths.clamp_(min=0)", indent="        "),
        "AJ: lengths clamped in place (values kept)"),
    # AK: the gradient path cut for half precision only
    sub("sw_p1_AK_half_dots_detached", "raw_scores",
        P1.replace("    return (-(", f"    if q.dtype in {HALF}:\n        dots = dots.detach()\n    return (-("),
        "AK: the product term detached for half inputs only; gradients must flow to q and k"),
    sub("sw_p5_AK_half_e_detached", "masked_attention",
        P5.replace("    total = ", f"    if q.dtype in {HALF}:\n        e = e.detach()\n    total = "),
        "AK: the exponentials detached for bfloat16 inputs only; gradients must flow"),
    sub("sw_p7_AK_half_scores_detached", "fixed_self_attention",
        P7.replace("        allowed = torch.ones(",
                   f"        if x.dtype in {HALF}:\n            scores = scores.detach()\n        allowed = torch.ones("),
        "AK: the scores detached for bfloat16 layers only; gradients must flow to x and the layer"),
    # AL: a converted copy of an input kept per id()
    sub("sw_p1_AL_q_f64_kept_per_id", "raw_scores", first_line(P1, "raw_scores", *kept64("q")),
        "AL: a float64 copy of q kept per id()"),
    sub("sw_p1_AL_k_f64_kept_per_id", "raw_scores", first_line(P1, "raw_scores", *kept64("k")),
        "AL: a float64 copy of k kept per id()"),
    sub("sw_p2_AL_weights_f64_kept_per_id", "softmax_backward", first_line(P2, "softmax_backward", *kept64("weights")),
        "AL: a float64 copy of weights kept per id()"),
    sub("sw_p2_AL_grad_f64_kept_per_id", "softmax_backward",
        first_line(P2, "softmax_backward", *kept64("grad_weights")), "AL: a float64 copy of grad_weights kept per id()"),
    sub("sw_p4_AL_lengths_long_kept_per_id", "padding_mask",
        first_line(P4, "padding_mask", "lengths = KEPT.setdefault(id(lengths), (lengths, lengths.long()))[1]",
                   "KEPT = {}\n\n"), "AL: an int64 copy of lengths kept per id()"),
    sub("sw_p5_AL_q_f64_kept_per_id", "masked_attention", first_line(P5, "masked_attention", *kept64("q")),
        "AL: a float64 copy of q kept per id()"),
    sub("sw_p5_AL_v_f64_kept_per_id", "masked_attention", first_line(P5, "masked_attention", *kept64("v")),
        "AL: a float64 copy of v kept per id()"),
    sub("sw_p7_AL_x_f64_kept_per_id", "fixed_self_attention",
        first_line(P7, F, kept64("x")[0], pre="KEPT = {}\n\n", indent="        "),
        "AL: a float64 copy of x kept per id()"),
    # AN: a value at an included limit refused
    sub("sw_p2_AN_weight_1_refused", "softmax_backward",
        first_line(P2, "softmax_backward", "assert bool((weights < 1).all()), 'weights below 1'"),
        "AN: weights in [0, 1] (a weight of 1 is named), 1 refused"),
    sub("sw_p3_AN_offset_end_refused", "causal_mask",
        first_line(P3, "causal_mask", "assert 0 <= offset < s - t, 'offset in [0, s - t)'"),
        "AN: 0 <= offset <= s - t, s - t included, refused"),
    sub("sw_p3_AN_offset_0_refused", "causal_mask",
        first_line(P3, "causal_mask", "assert 0 < offset <= s - t, 'offset in (0, s - t]'"),
        "AN: 0 <= offset <= s - t, 0 included, refused"),
    sub("sw_p3_AN_t_1_refused", "causal_mask", first_line(P3, "causal_mask", "assert t > 1, 't > 1'"),
        "AN: t >= 1, 1 included, refused"),
    sub("sw_p4_AN_length_s_refused", "padding_mask",
        first_line(P4, "padding_mask", "assert bool((lengths.long() < s).all()), 'lengths < s'"),
        "AN: 0 <= lengths[b] <= s, s included, refused"),
    sub("sw_p4_AN_length_0_refused", "padding_mask",
        first_line(P4, "padding_mask", "assert bool((lengths.long() > 0).all()), 'lengths > 0'"),
        "AN: 0 <= lengths[b] <= s, 0 included, refused"),
    sub("sw_p5_AN_S_1_refused", "masked_attention",
        first_line(P5, "masked_attention", "assert k.shape[-2] > 1, 'S > 1'"), "AN: S >= 1, 1 included, refused"),
    sub("sw_p5_AN_T_1_refused", "masked_attention",
        first_line(P5, "masked_attention", "assert q.shape[-2] > 1, 'T > 1'"), "AN: T >= 1, 1 included, refused"),
    sub("sw_p6_AN_n_2_refused", "variance_experiment",
        first_line(P6, "dot_product_variance", "assert n > 2, 'n > 2'"), "AN: n as small as 2, 2 refused"),
    sub("sw_p6_AN_d_k_1_refused", "variance_experiment",
        first_line(P6, "dot_product_variance", "assert d_k > 1, 'd_k > 1'"), "AN: pairs of width 1 refused"),
    sub("sw_p7_AN_length_T_refused", "fixed_self_attention",
        first_line(P7, F, "if lengths is not None:\n    assert bool((lengths.long() < x.shape[1]).all()), 'lengths < T'",
                   indent="        "), "AN: 0 <= lengths[b] <= T, T included, refused"),
    sub("sw_p7_AN_length_0_refused", "fixed_self_attention",
        first_line(P7, F, "if lengths is not None:\n    assert bool((lengths.long() > 0).all()), 'lengths > 0'",
                   indent="        "), "AN: 0 <= lengths[b] <= T, 0 included, refused"),
]
