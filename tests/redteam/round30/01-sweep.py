# Round 30 class sweep, chapter 01 (classes AJ-AN of tests/redteam/round30/BRIEF-SWEEP.md): the model answer of each
# part with one class's mistake put in; "correct": True only where the text allows the answer.
# AM does not apply: no part of this chapter says that a function raises.
from grading import solution_code

MODEL = solution_code("01-rnn-motivation")
P1 = MODEL["rnn_step"]
P4 = MODEL["rnn_unroll"]
P5 = MODEL["gradient_norms"]
P6 = MODEL["additive"]
HALF = "(torch.float16, torch.bfloat16)"


def first_line(code, name, line, pre=""):
    """``line`` put before the body of ``name`` (one-line signature); ``pre`` before the function."""
    head, sep, body = code.partition(f"def {name}(")
    signature, colon, body = body.partition("):\n")
    return pre + head + sep + signature + colon + line + body


def kept64(name, arg):
    """AL: a float64 conversion of ``arg`` kept per id() (for a float64 input, the input itself), cast back."""
    local = "    p = dict(p)  # a copy of the caller's dict: its entries stay\n" if arg.startswith("p[") else ""
    return (local + f"    {arg} = kept_{name}.setdefault(id({arg}), ({arg}, {arg}.to(torch.float64)))[1].to({arg}.dtype)\n",
            f"kept_{name} = {{}}\n\n")


def sub(name, cell, code, why, correct=False):
    return {"name": name, "correct": correct, "cells": {cell: code}, "why": why}


SUBMISSIONS = [
    # AJ: an input written in place with the values it held
    sub("sw_p1_AJ_leak_clamp_", "rnn_step", first_line(P1, "leaky_step_jacobian", "    leak.clamp_(0, 1)\n"),
        "AJ: leak written in place (values kept); the text says do not write into leak"),
    sub("sw_p1_AJ_h_nan_to_num_", "rnn_step", first_line(P1, "leaky_step_jacobian", "    h.nan_to_num_()\n"),
        "AJ: h written in place with its own values; intro: functions must not change the tensors they are given"),
    sub("sw_p1_AJ_W_hh_nan_to_num_", "rnn_step",
        first_line(P1, "leaky_step_jacobian", "    p['W_hh'].nan_to_num_()\n"),
        "AJ: a weight of p written in place with its own values"),
    sub("sw_p4_AJ_lengths_clamp_", "rnn_unroll", first_line(P4, "rnn_unroll_reverse", "    lengths.clamp_(min=0)\n"),
        "AJ: lengths clamped in place (values kept)"),
    sub("sw_p4_AJ_x_nan_to_num_", "rnn_unroll", first_line(P4, "rnn_unroll_reverse", "    x.nan_to_num_()\n"),
        "AJ: x written in place with its own values"),
    sub("sw_p4_AJ_h0_nan_to_num_", "rnn_unroll",
        first_line(P4, "rnn_unroll_reverse", "    if h0 is not None:\n        h0.nan_to_num_()\n"),
        "AJ: h0 written in place with its own values"),
    sub("sw_p5_AJ_x_nan_to_num_", "gradient_norms", first_line(P5, "jacobian_norms", "    x.nan_to_num_()\n"),
        "AJ: x written in place with its own values"),
    sub("sw_p5_AJ_W_hh_nan_to_num_", "gradient_norms",
        first_line(P5, "jacobian_norms", "    p['W_hh'].nan_to_num_()\n"),
        "AJ: a weight of p written in place with its own values"),
    sub("sw_p6_AJ_allowed_and_", "additive",
        first_line(P6, "coverage_decoder", "    allowed &= allowed.any(dim=-1, keepdim=True)\n"),
        "AJ: allowed and-ed in place with a condition that holds (every row has a real token)"),
    sub("sw_p6_AJ_s0_nan_to_num_", "additive", first_line(P6, "coverage_decoder", "    s0.nan_to_num_()\n"),
        "AJ: s0 written in place with its own values"),
    sub("sw_p6_AJ_h_nan_to_num_", "additive", first_line(P6, "coverage_decoder", "    h.nan_to_num_()\n"),
        "AJ: h written in place with its own values"),
    # AK: the gradient path cut for half precision only
    sub("sw_p1_AK_half_candidate_detached", "rnn_step",
        P1.replace("    slope = ", f"    if x.dtype in {HALF}:\n        candidate = candidate.detach()\n    slope = "),
        "AK: the tanh term detached for half inputs only; gradients must flow through J"),
    sub("sw_p4_AK_half_step_no_grad", "rnn_unroll",
        P4.replace("        h = torch.where(inside, h_new, h)",
                   f"        if x.dtype in {HALF}:\n            h_new = h_new.detach()\n        h = torch.where(inside, h_new, h)"),
        "AK: each step detached for half inputs only; gradients must flow"),
    sub("sw_p6_AK_half_alpha_detached", "additive",
        P6.replace("        context = ", f"        if x.dtype in {HALF}:\n            alpha = alpha.detach()\n        context = "),
        "AK: the weights detached for half inputs only; gradients must flow"),
    # AL: a converted copy of an input kept per id()
    sub("sw_p1_AL_W_hh_f64_kept_per_id", "rnn_step",
        first_line(P1, "leaky_step_jacobian", *kept64("p1", "p['W_hh']")), "AL: a float64 copy of W_hh kept per id()"),
    sub("sw_p1_AL_leak_f64_kept_per_id", "rnn_step",
        first_line(P1, "leaky_step_jacobian", *kept64("p1", "leak")), "AL: a float64 copy of leak kept per id()"),
    sub("sw_p4_AL_x_f64_kept_per_id", "rnn_unroll",
        first_line(P4, "rnn_unroll_reverse", *kept64("p4", "x")), "AL: a float64 copy of x kept per id()"),
    sub("sw_p4_AL_W_hh_f64_kept_per_id", "rnn_unroll",
        first_line(P4, "rnn_unroll_reverse", *kept64("p4", "p['W_hh']")), "AL: a float64 copy of W_hh kept per id()"),
    sub("sw_p5_AL_x_f64_kept_per_id", "gradient_norms",
        first_line(P5, "jacobian_norms", *kept64("p5", "x")), "AL: a float64 copy of x kept per id()"),
    sub("sw_p5_AL_W_hh_f64_kept_per_id", "gradient_norms",
        first_line(P5, "jacobian_norms", *kept64("p5", "p['W_hh']")), "AL: a float64 copy of W_hh kept per id()"),
    sub("sw_p6_AL_h_f64_kept_per_id", "additive",
        first_line(P6, "coverage_decoder", *kept64("p6", "h")), "AL: a float64 copy of h kept per id()"),
    sub("sw_p6_AL_W_k_f64_kept_per_id", "additive",
        first_line(P6, "coverage_decoder", *kept64("p6", "p['W_k']")), "AL: a float64 copy of W_k kept per id()"),
    # AN: a value at an included limit refused
    sub("sw_p1_AN_leak_1_refused", "rnn_step",
        first_line(P1, "leaky_step_jacobian", "    assert bool(((leak >= 0) & (leak < 1)).all()), 'rates in [0, 1)'\n"),
        "AN: lambda_i in [0, 1], 1 included, refused"),
    sub("sw_p1_AN_leak_0_refused", "rnn_step",
        first_line(P1, "leaky_step_jacobian", "    assert bool(((leak > 0) & (leak <= 1)).all()), 'rates in (0, 1]'\n"),
        "AN: lambda_i in [0, 1], 0 included, refused"),
    sub("sw_p4_AN_length_T_refused", "rnn_unroll",
        first_line(P4, "rnn_unroll_reverse", "    assert bool((lengths.long() < x.shape[1]).all()), 'lengths < T'\n"),
        "AN: 0 <= lengths[b] <= T, T included, refused"),
    sub("sw_p4_AN_length_0_refused", "rnn_unroll",
        first_line(P4, "rnn_unroll_reverse", "    assert bool((lengths.long() > 0).all()), 'lengths > 0'\n"),
        "AN: 0 <= lengths[b] <= T, 0 included, refused"),
    sub("sw_p4_AN_T_1_refused", "rnn_unroll",
        first_line(P4, "rnn_unroll_reverse", "    assert x.shape[1] > 1, 'T > 1'\n"),
        "AN: T >= 1, 1 included, refused"),
    sub("sw_p5_AN_T_1_refused", "gradient_norms",
        first_line(P5, "jacobian_norms", "    assert x.shape[1] > 1, 'T > 1'\n"),
        "AN: any T (entry 0 is the identity's norm), T = 1 refused"),
    sub("sw_p5_AN_B_1_refused", "gradient_norms",
        first_line(P5, "jacobian_norms", "    assert x.shape[0] > 1, 'B > 1'\n"),
        "AN: B >= 1, 1 included, refused"),
    sub("sw_p6_AN_full_rows_refused", "additive",
        first_line(P6, "coverage_decoder", "    assert not bool(allowed.all()), 'some padding'\n"),
        "AN: every row has at least one real token; rows with no padding (the other end) refused"),
]
