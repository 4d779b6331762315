# Red-team round 5, chapter 09: third probe (phase 2, screened locally, then graded).
exec(open(__file__.rsplit("/", 1)[0] + "/09-subs.py").read())
SUBMISSIONS = []
W("z6_theta_float32", mut("rope_llama3", "    i = torch.arange(half, dtype=torch.float64)\n", "    i = torch.arange(half, dtype=torch.float32)\n"),
  "'within 1e-10 of the exact values for float64 (at any position up to 131 071)' (frequencies in float32)")
W("z8_history_last_prompt_token", mut("generate_with_cache", "    history = prompt.clone()\n", "    history = prompt[:, -1:].clone()\n"),
  "'every token id that occurs in that row's prompt' (only the last prompt token)")
OK("y7_scale_before_product", {"ragged_cached_attention": C["ragged_cached_attention"].replace(
    "        s = q[b] @ k.transpose(-1, -2) / math.sqrt(Dh)      # (H, T, n)\n",
    "        s = (q[b] / math.sqrt(Dh)) @ k.transpose(-1, -2)\n")}, "q / sqrt(Dh) before the product")
W("z2_float64_in_float32", {"fused_swiglu": C["fused_swiglu"].replace("    g = x @ wg.T\n    u = x @ wu.T\n",
  "    dt = x.dtype\n    x, wg, wu, w_down = x.float(), wg.float(), wu.float(), w_down.float()\n    g = x @ wg.T\n    u = x @ wu.T\n").replace("    return h @ w_down.T\n", "    return (h @ w_down.T).to(dt)\n")},
  "(text after red team 5) 'compute float64 inputs in float64'. Before the change the text allowed it ('convert to float32 (or float64) and back') and the tests refused it: a REFUSED correct answer, fixed in the text")
W("z7_float64_in_float32", {"ragged_cached_attention": C["ragged_cached_attention"].replace(
    "        s = q[b] @ k.transpose(-1, -2) / math.sqrt(Dh)      # (H, T, n)\n",
    "        s = q[b].float() @ k.float().transpose(-1, -2) / math.sqrt(Dh)\n").replace(
    "        out[b] = torch.softmax(s, dim=-1) @ v\n", "        out[b] = (torch.softmax(s, dim=-1) @ v.float()).to(q.dtype)\n")},
  "(text after red team 5) 'Compute in the dtype of q (float32 or float64)'. Before the change the text did not say so, and float32 arithmetic for float64 inputs failed only 3 of 180 values of one case")
