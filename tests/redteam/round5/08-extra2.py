# Red-team round 5, chapter 08: third probe (phase 2, screened locally, then graded).
# Screened against the hidden tests before grading (phase 2). Before the changes z6_topk_on_probs_float32 and
# z8_ref_length_from_hyp_pairs kept full marks (real slips, now caught); z7_float32_scores keeps full marks and is
# judged a MISLABEL: Part 7 sets no precision for the summed scores, and float32 sums change the result only on
# near-ties within float32 rounding.
exec(open(__file__.rsplit("/", 1)[0] + "/08-subs.py").read())
SUBMISSIONS = []
W("z5_running_mean_native", {"average": C["average"].replace(
    "            acc = torch.float64 if t.dtype == torch.float64 else torch.float32\n            out[k] = (sum(s[k].to(acc) for s in states) / len(states)).to(t.dtype)\n",
    "            avg = states[0][k].clone()\n            for i, s in enumerate(states[1:], start=2):\n                avg = avg + (s[k] - avg) / i\n            out[k] = avg\n")},
  "'Half-precision tensors must be as accurate as averaging in float32 or better and rounding once' (a running mean in float16 rounds at every step)")
W("z7_float32_scores", mut("beam_search", "cands.append((score + float(lp[j, v]), j, v))", "cands.append((float(torch.tensor(score, dtype=torch.float32) + lp[j, v].float()), j, v))"),
  "'scored by the sum of log-probabilities' (summed in float32: near-ties can flip)")
W("z8_unique_ngram_total", mut("bleu", "            total += sum(hg.values())", "            total += len(hg)"),
  "'divide by the total number of hypothesis n-grams' (counts distinct n-grams)")
W("z8_ref_length_from_hyp_pairs", mut("bleu", "    r = sum(len(x) for x in references)", "    r = sum(len(x) for h, x in zip(hypotheses, references) if h)"),
  "'the total reference length r' (skips references of empty hypotheses)")
W("z6_topk_on_probs_float32", {"sample": C["sample"].replace("        probs = torch.softmax(lp, dim=-1)\n", "        probs = torch.softmax(lp, dim=-1).float().double()\n")},
  "'on the float64 probabilities' (rounded through float32, then back to float64)")
