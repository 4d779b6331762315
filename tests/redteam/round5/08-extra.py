# Red-team round 5, chapter 08: second (still blind) probe, written after the blind grading caught everything.
# Judged after grading: x6_tensor_tokens is a MISLABEL, my own error: the code still appends int(tok), so it
# returns Python ints (the variant without int() loses the points). Everything else here was caught before any change.
exec(open(__file__.rsplit("/", 1)[0] + "/08-subs.py").read())
SUBMISSIONS = []
W("x4_length_to_first_pad", {"sentence_loss": C["sentence_loss"].replace(
    "    mask = targets != PAD\n", "    mask = (targets != PAD).long().cumprod(1).bool()\n")},
  "'over its positions whose target is not PAD (wherever they are: a PAD may also stand inside a row)'")
W("x4_unstable_logsoftmax", mut("sentence_loss", "logp = torch.log_softmax(logits, dim=-1)", "logp = logits - torch.log(torch.exp(logits).sum(-1, keepdim=True))"),
  "intro: 'logits in the hundreds, where a softmax that does not subtract the row maximum overflows'")
W("x5_float64_in_float32", mut("average", "acc = torch.float64 if t.dtype == torch.float64 else torch.float32", "acc = torch.float32"),
  "'floating-point tensors become their element-wise mean, in their own dtype' (float64 weights averaged in float32)")
W("x5_extra_key_accepted", mut("average", "        if set(s.keys()) != keys:", "        if not keys <= set(s.keys()):"),
  "'states whose keys ... differ raise ValueError' (a later state with an extra key passes)")
W("x6_topk_threshold_ties", {"sample": C["sample"].replace(
    "            vals, idx = torch.topk(lp, top_k, dim=-1)\n            cut = torch.full_like(lp, float(\"-inf\"))\n            cut.scatter_(-1, idx, vals)\n            lp = cut\n",
    "            kth = torch.topk(lp, top_k, dim=-1).values[:, -1:]\n            lp = lp.masked_fill(lp < kth, float(\"-inf\"))\n")},
  "'keep the top_k largest entries of each row (the ones torch.topk returns)' (ties with the k-th value are all kept)")
W("x6_tensor_tokens", mut("sample", "draw = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()", "draw = torch.multinomial(probs, 1, generator=generator)[:, 0]"),
  "'Return one list of Python ints per sentence' (0-d tensors appended)")
W("x7_live_penalised_with_virtual_eos", mut("beam_search", "    for toks, score in live:\n        finished.append((score / length_penalty(len(toks), alpha), toks))\n",
  "    for toks, score in live:\n        finished.append((score / length_penalty(len(toks) + 1, alpha), toks))\n"),
  "'then live hypotheses are finished as they are (same scoring, no EOS)'")
W("x7_max_len_minus_one", mut("beam_search", "    for _ in range(max_len):\n", "    for _ in range(max_len - 1):\n        if max_len == 1:\n            break\n"),
  "'stop ... after max_len steps'")
W("x8_bp_before_zero_check", {"bleu": C["bleu"].replace("    logs = 0.0\n",
  "    c = sum(len(h) for h in hypotheses)\n    r = sum(len(x) for x in references)\n    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    logs = 0.0\n", 1)},
  "'if there is no hypothesis n-gram of some order at all ..., BLEU is 0' (empty hypotheses: r/c divides by zero)")
W("x8_rounded_two_decimals", mut("bleu", "    return float(100 * bp * math.exp(logs))", "    return round(100 * bp * math.exp(logs), 2)"),
  "'returning a number between 0 and 100' as sacreBLEU's corpus BLEU: rounded to 2 decimals like sacreBLEU's printout")
W("x2_warmup_float_division_int", mut("lr_at", "        return float(peak * step / warmup)", "        return peak * step // warmup if isinstance(peak, int) else peak * step / warmup"),
  "'returning a Python float on every branch, also when peak ... is given as an int'")
OK("y1_roll_then_eos_to_pad", {"decoder_io": '''
def decoder_io(targets):
    tgt_in = targets.roll(1, dims=1)
    tgt_in[:, 0] = BOS
    tgt_in[tgt_in == EOS] = PAD
    return tgt_in, targets
'''}, "'wherever tgt_out is PAD, tgt_in is PAD too' (roll wraps the last token to position 0, which BOS overwrites; EOS never stays in tgt_in)")
OK("y7_beam_heap", {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    import heapq
    live, done = [(0.0, [])], []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + t for _, t in live]).tolist()
        cands = [(s + lp[j][v], j, v) for j, (s, t) in enumerate(live) for v in range(len(lp[j]))]
        best = heapq.nlargest(k, cands, key=lambda c: c[0])
        live = []
        for s, j, v in best:
            toks = _prev[j][1] + [v] if False else None
        live_prev = None
        raise RuntimeError
'''}, "placeholder")
SUBMISSIONS.pop()
OK("y5_stack_mean", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    first = states[0]
    for s in states[1:]:
        if sorted(s) != sorted(first) or any(tuple(s[k].shape) != tuple(first[k].shape) for k in first):
            raise ValueError("mismatch")
    out = {}
    for k in first:
        last = states[-1][k]
        if torch.is_floating_point(last):
            acc = torch.float64 if last.dtype == torch.float64 else torch.float32
            out[k] = torch.stack([s[k].to(acc) for s in states]).mean(0).to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''}, "stack and mean")
