"""Chapter 8 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently.

The model answer calls no other part's function; answers that do are graded with references of the earlier
functions (Parts 4, 7 and 8), so mutants of different parts can share a submission. Both correct variants
call earlier parts in ways the texts allow (Part 4 calls Part 1, Part 7 Part 6, Part 8 Part 5)."""

from grading import (KEPT_PER_ID, cached_by_id_and_version, chain, from_storage_start,
                     kept_output_buffer, place_mutant, place_mutants, replaced as _replaced, solution_code)

CHAPTER = "08-capstone"
FULL_MARKS = 17.0


def lr(body):
    return "\ndef lr_at(step, peak, warmup, total, floor=0.0):\n" + body + "\n"


_COSINE = "floor + (peak - floor) * 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))"


def loss(body):
    return ("\ndef sentence_smoothed_loss(logits, targets, eps):\n"
            "    logp = torch.log_softmax(logits, dim=-1)\n"
            "    v = logits.shape[-1]\n"
            "    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)\n"
            "    spread = -(logp.sum(dim=-1) - logp[..., PAD]) / (v - 1)\n"
            "    real = targets != PAD\n" + body + "\n")


_PER_SENTENCE = ("    counts = real.sum(dim=1)\n    keep = counts > 0\n"
                 "    return ((per_token * real).sum(dim=1)[keep] / counts[keep]).mean()")


def average(body, check="    if not states:\n        raise ValueError('empty')\n"
                        "    for s in states[1:]:\n        if set(s) != set(states[0]) or any(s[k].shape != states[0][k].shape for k in s):\n"
                        "            raise ValueError('different models')\n"):
    return "\ndef average_checkpoints(states):\n" + check + "    out = {}\n    for k in states[0]:\n" + body + "\n    return out\n"


def sample(step, prologue=""):
    return f"""
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
{prologue}    outs = [[] for _ in starts]
    live = list(range(len(starts)))
    for _ in range(max_len):
        if not live:
            break
{step}
        for i, token in zip(live, drawn):
            outs[i].append(int(token))
        live = [i for i in live if outs[i][-1] != EOS]
    return outs
"""


def _topk_scores(scale="/ temperature", extra=0):
    return (f"        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) {scale}\n"
            "        if top_k is not None and top_k < scores.shape[-1]:\n"
            f"            kept = scores.topk(min(top_k + {extra}, scores.shape[-1]), dim=-1).indices\n"
            "            scores = torch.full_like(scores, float('-inf')).scatter(-1, kept, scores.gather(-1, kept))\n")


_DRAW = "        drawn = torch.multinomial(torch.softmax(scores, dim=-1), 1, generator=generator).flatten().tolist()"


def beam(finish="finished.append((score / length_penalty(len(tokens), alpha), tokens))",
         final_live="finished.append((score / length_penalty(len(tokens), alpha), tokens))", token="int(i) % vocab",
         width="min(k, candidates.numel())", keep="new_live.append((tokens, score))"):
    """The rule of Part 7; ``token`` is how the token id is read from the flat index ``i`` (a tensor)."""
    return f"""
def beam_search(next_logprobs, start, k, max_len, alpha):
    live, finished = [([], 0.0)], []
    for _ in range(max_len):
        logprobs = next_logprobs([[start] + tokens for tokens, _ in live])
        scores = torch.tensor([s for _, s in live], dtype=logprobs.dtype)
        vocab = logprobs.shape[-1]
        candidates = (scores[:, None] + logprobs).flatten()
        best, index = candidates.topk({width})
        new_live = []
        for score, i in zip(best.tolist(), index):
            tokens = live[int(i) // vocab][0] + [{token}]
            if tokens[-1] == EOS:
                {finish}
            elif len(new_live) < k:
                {keep}
        live = new_live
        if not live:
            break
    for tokens, score in live:
        {final_live}
    return max(finished, key=lambda pair: pair[0])[1]
"""



def bleu(count_matches="sum(min(v, rr[g]) for g, v in h.items())", brevity="1.0 if c >= r else math.exp(1 - r / c)",
         combine="math.exp(sum(math.log(m / t) for m, t in zip(matches, totals)) / 4)", zero="0.0"):
    return f"""
def corpus_bleu(hypotheses, references):
    matches, totals, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rr = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            matches[n - 1] += {count_matches}
            totals[n - 1] += max(len(hyp) - n + 1, 0)
    if min(matches) == 0:
        return {zero}
    return 100 * ({brevity}) * {combine}
"""


MUTANTS = {
    # ---- Part 1, teacher forcing
    "decoder_io_keeps_eos_in_input": ("test_decoder_io", {"decoder_io": """
def decoder_io(targets):
    tgt_in = torch.full_like(targets, PAD)
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    return tgt_in, targets
"""}),
    # ids past a narrow dtype's range (red team 4's class): the shifted ids built in 16 bits, as if every
    # vocabulary were as small as the capstone's 8,000 ids
    "decoder_io_int16_ids": ("test_decoder_io", {"decoder_io": """
def decoder_io(targets):
    tgt_in = torch.full(targets.shape, PAD, dtype=torch.int16)  # token ids fit in 16 bits
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[tgt_in == EOS] = PAD
    return tgt_in.to(targets.dtype), targets
"""}),
    # dtype kept: torch.full makes int64 whatever the input's dtype
    "decoder_io_always_int64": ("test_decoder_io", {"decoder_io": """
def decoder_io(targets):
    tgt_in = torch.full(targets.shape, PAD)
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    return tgt_in.masked_fill(tgt_in == EOS, PAD), targets
"""}),
    # in-place rule: shifts the caller's tensor and returns a copy as tgt_out
    "decoder_io_shifts_targets_in_place": ("test_decoder_io", {"decoder_io": """
def decoder_io(targets):
    out = targets.clone()
    targets[:, 1:] = out[:, :-1]
    targets[:, 0] = BOS
    targets.masked_fill_(targets == EOS, PAD)
    return targets, out
"""}),
    # ---- Part 2, warm-up and cosine
    # the floor argument ignored
    "lr_ignores_floor": ("test_lr_at", {"lr_at": lr(
        "    if step <= warmup:\n        return peak * step / warmup\n    if step >= total:\n        return 0.0\n"
        "    return peak * 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))")}),
    # red team (held-out style, kept full marks): the floor only from one step after `total` on, so the cosine
    # goes on one step too far and rises again
    "lr_floor_one_step_late": ("test_lr_at", {"lr_at": lr(
        "    if step <= warmup:\n        return peak * step / warmup\n    if step > total + 1:\n"
        "        return floor\n    return " + _COSINE)}),
    # warmup = 0 divides by zero
    "lr_warmup_zero_divides": ("test_lr_at", {"lr_at": lr(
        "    rising = peak * step / warmup\n    if step <= warmup:\n        return rising\n    if step >= total:\n"
        "        return floor\n    return " + _COSINE)}),
    # ---- Part 3, the smallest smoothed loss
    "min_loss_zero": ("test_min_loss", {"min_loss": "min_smoothed_loss = 0.0"}),
    # the right token's share eps / V forgotten
    "min_loss_right_token_share_forgotten": ("test_min_loss", {"min_loss":
        "min_smoothed_loss = -0.9 * math.log(0.9) - 0.1 * math.log(0.1 / 7999)"}),
    # in bits
    "min_loss_in_bits": ("test_min_loss", {"min_loss":
        "_a, _b = 0.9 + 0.1 / 8000, 0.1 / 8000\nmin_smoothed_loss = -_a * math.log2(_a) - 7999 * _b * math.log2(_b)"}),
    # a float subclass equal to everything
    "min_loss_lying_float": ("test_min_loss", {"min_loss": """
class _Anything(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
    __hash__ = float.__hash__

min_smoothed_loss = _Anything(0.0)
"""}),
    # ---- Part 4, sentence-level loss
    # the lesson's smoothing: eps over all V tokens, PAD included
    "loss_smooths_over_all_tokens": ("test_sentence_loss", {"sentence_loss": loss(
        "    per_token = (1 - eps) * nll - eps * logp.mean(dim=-1)\n" + _PER_SENTENCE)}),
    # in-place rule: logits stabilised in place
    "loss_shifts_logits_in_place": ("test_sentence_loss", {"sentence_loss": """
def sentence_smoothed_loss(logits, targets, eps):
    logits -= logits.amax(dim=-1, keepdim=True)
    logp = logits - logits.exp().sum(dim=-1, keepdim=True).log()
    v = logits.shape[-1]
    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    spread = -(logp.sum(dim=-1) - logp[..., PAD]) / (v - 1)
    real = targets != PAD
    per_token = (1 - eps) * nll + eps * spread
    counts = real.sum(dim=1)
    keep = counts > 0
    return ((per_token * real).sum(dim=1)[keep] / counts[keep]).mean()
"""}),
    # ---- Part 5, checkpoint averaging
    # float16 summed in float16: overflows to inf
    "average_half_sum_overflows": ("test_average", {"average": average(
        "        if states[-1][k].is_floating_point():\n            out[k] = sum(s[k] for s in states) / len(states)\n"
        "        else:\n            out[k] = states[-1][k].clone()")}),
    # ---- Part 6, sampling
    # red team (kept full marks): float32 probabilities, which draw the same tokens almost always
    "sample_probabilities_in_float32": ("test_sample", {"sample": sample(_topk_scores() +
        "        drawn = torch.multinomial(torch.softmax(scores.float(), dim=-1), 1, generator=generator).flatten().tolist()")}),
    # red team 5 (kept full marks): the probabilities rounded through float32 and cast back to float64, which pass
    # the dtype check and draw the same tokens almost always; the values given to torch.multinomial are compared now
    "sample_probabilities_through_float32": ("test_sample", {"sample": sample(_topk_scores() +
        "        drawn = torch.multinomial(torch.softmax(scores, dim=-1).float().double(), 1, generator=generator).flatten().tolist()")}),
    # its own generator, seeded once: equal seeds agree, but the given seed is not used
    "sample_own_seeded_generator": ("test_sample", {"sample": sample(_topk_scores() + _DRAW,
        prologue="    generator = torch.Generator().manual_seed(0)\n")}),
    # rare rule: draws for the finished sentences too, which shifts every later draw
    "sample_draws_for_finished": ("test_sample", {"sample": sample(
        "        scores = next_logprobs([[starts[i]] + outs[i] for i in range(len(starts))]) / temperature\n"
        "        if top_k is not None and top_k < scores.shape[-1]:\n"
        "            kept = scores.topk(top_k, dim=-1).indices\n"
        "            scores = torch.full_like(scores, float('-inf')).scatter(-1, kept, scores.gather(-1, kept))\n"
        "        everyone = torch.multinomial(torch.softmax(scores, dim=-1), 1, generator=generator).flatten().tolist()\n"
        "        drawn = [everyone[i] for i in live]")}),
    # generator untouched where nothing is drawn (red team 4's class): a fixed batch of B rows drawn at every step,
    # the finished sentences' uniform rows after the live ones, so the live rows still draw the numbers of the rule
    "sample_fixed_batch_draws": ("test_sample", {"sample": sample(
        _topk_scores() +
        "        probs = torch.softmax(scores.double(), dim=-1)\n"
        "        idle = torch.full((len(starts) - len(live), probs.shape[-1]), 1 / probs.shape[-1], dtype=probs.dtype)\n"
        "        drawn = torch.multinomial(torch.cat([probs, idle]), 1, generator=generator).flatten().tolist()[:len(live)]")}),
    # the same class, where only the generator's state shows it: one stray draw after the loop (say, left from
    # checking what the generator gives), with every token right
    "sample_stray_draw_after_loop": ("test_sample", {"sample": sample(
        _topk_scores() + "        drawn = torch.multinomial(torch.softmax(scores.double(), dim=-1), 1, generator=generator)"
        ".flatten().tolist()").replace(
        "    return outs\n", "    torch.multinomial(torch.ones(2, dtype=torch.float64), 1, generator=generator)\n    return outs\n")}),
    # red team (kept full marks): top-k by a threshold at the k-th value keeps every tied entry, not the k of topk
    "sample_top_k_keeps_ties": ("test_sample", {"sample": sample(
        "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n"
        "        if top_k is not None:\n"
        "            kth = torch.topk(scores, top_k, dim=-1).values[:, -1:]\n"
        "            scores = scores.masked_fill(scores < kth, float('-inf'))\n" + _DRAW)}),
    # caught in the blind round, kept for their classes: one row's padding used for every row; an answer rounded
    "decoder_io_first_row_padding": ("test_decoder_io", {"decoder_io": """
def decoder_io(targets):
    tgt_in = torch.roll(targets, 1, dims=1)
    tgt_in[:, 0] = BOS
    n = int((targets[0] != PAD).sum())
    tgt_in[:, n:] = PAD
    return tgt_in, targets
"""}),
    "min_loss_rounded_to_four_places": ("test_min_loss", {"min_loss": """
eps, V = 0.1, 8000
right, other = 1 - eps + eps / V, eps / V
min_smoothed_loss = round(-(right * math.log(right) + (V - 1) * other * math.log(other)), 4)
"""}),
    # ---- Part 7, beam search
    # rare rule: the beam refilled to k live hypotheses from 2k candidates (the lesson's rule)
    "beam_refilled_to_k": ("test_beam_search", {"beam_search": beam(width="min(2 * k, candidates.numel())").replace(
        "            if tokens[-1] == EOS:\n", "            if tokens[-1] == EOS and rank < k:\n").replace(
        "        for score, i in zip(best.tolist(), index):\n", "        for rank, (score, i) in enumerate(zip(best.tolist(), index)):\n").replace(
        "            elif len(new_live) < k:\n", "            elif tokens[-1] != EOS and len(new_live) < k:\n")}),
    "beam_without_length_penalty": ("test_beam_search", {"beam_search": beam(
        finish="finished.append((score, tokens))", final_live="finished.append((score, tokens))")}),
    "beam_forgets_unfinished_at_max_len": ("test_beam_search", {"beam_search": beam(final_live="pass").replace(
        "    return max(finished", "    finished = finished or [(0.0, [])]\n    return max(finished")}),
    # ---- Part 8, BLEU
    "bleu_unclipped_counts": ("test_bleu", {"bleu": bleu(count_matches="sum(v for g, v in h.items() if g in rr)")}),
    "bleu_no_brevity_penalty": ("test_bleu", {"bleu": bleu(brevity="1.0")}),
    # ---- red team round 2 (held-out style; each kept full marks before its hidden check was added)
    # Part 1: .view on the targets breaks on a transposed (non-contiguous) tensor
    "decoder_io_view_breaks_on_transposed": ("test_decoder_io", {"decoder_io": """
def decoder_io(targets):
    B, T = targets.shape
    flat = targets.view(B * T)
    shifted = torch.cat([flat.new_tensor([BOS]), flat[:-1]]).view(B, T).clone()
    shifted[:, 0] = BOS
    shifted[targets == PAD] = PAD
    return shifted, targets.clone()
"""}),
    # Part 2: floor returned as given, so floor=0 gives the int 0 after total
    "lr_int_floor_returned": ("test_lr_at", {"lr_at": lr(
        "    if step <= warmup:\n        return float(peak * step / warmup)\n    if step >= total:\n        return floor\n"
        "    return float(" + _COSINE + ")")}),
    # Part 4: log(softmax) underflows to -inf for large logits
    "loss_log_of_softmax": ("test_sentence_loss", {"sentence_loss": loss(
        "    per_token = (1 - eps) * nll + eps * spread\n" + _PER_SENTENCE).replace(
        "logp = torch.log_softmax(logits, dim=-1)", "logp = torch.log(torch.softmax(logits, dim=-1))")}),
    # Part 4: the loss must train (stated since this session): the right value, added up in Python floats
    # and wrapped in a new tensor, so loss.backward() cannot reach the logits
    "loss_through_python_floats": ("test_sentence_loss", {"sentence_loss": """
def sentence_smoothed_loss(logits, targets, eps):
    logp = torch.log_softmax(logits, dim=-1)
    v = logits.shape[-1]
    losses = []
    for b in range(targets.shape[0]):
        terms = [float(-(1 - eps) * logp[b, t, targets[b, t]] - eps * (logp[b, t].sum() - logp[b, t, PAD]) / (v - 1))
                 for t in range(targets.shape[1]) if int(targets[b, t]) != PAD]
        if terms:
            losses.append(sum(terms) / len(terms))
    return torch.tensor(sum(losses) / len(losses), dtype=logits.dtype)
"""}),
    # Part 4: ids past a narrow dtype's range (red team 4's class): the targets kept in 16 bits, which holds the
    # capstone's 8,000 ids but wraps the ids of a larger vocabulary
    "loss_targets_in_int16": ("test_sentence_loss", {"sentence_loss": """
def sentence_smoothed_loss(logits, targets, eps):
    ids = targets.to(torch.int16)  # small ids: a quarter of the memory
    logp = torch.log_softmax(logits, dim=-1)
    v = logits.shape[-1]
    nll = -logp.gather(-1, ids.long().unsqueeze(-1)).squeeze(-1)
    spread = -(logp.sum(dim=-1) - logp[..., PAD]) / (v - 1)
    per_token = (1 - eps) * nll + eps * spread
    real = ids != PAD
""" + _PER_SENTENCE + """
"""}),
    # Part 4: .view breaks on transposed logits and targets
    "loss_view_breaks_on_transposed": ("test_sentence_loss", {"sentence_loss": """
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    logp = torch.log_softmax(logits.view(B * T, V), dim=-1)
    flat = targets.view(B * T).long()
    right = logp[torch.arange(B * T), flat]
    per_token = -(1 - eps) * right - eps / (V - 1) * logp[:, 1:].sum(-1)
    real = (flat != PAD).to(per_token.dtype)
    count = real.view(B, T).sum(1)
    per_sentence = (per_token * real).view(B, T).sum(1) / count.clamp(min=1)
    return per_sentence[count > 0].mean()
"""}),
    # Part 4: PADs assumed to trail: the first n positions of a row of n real targets
    "loss_prefix_until_first_pad": ("test_sentence_loss", {"sentence_loss": loss(
        "    per_token = (1 - eps) * nll + eps * spread\n    losses = []\n"
        "    for b in range(targets.shape[0]):\n        n = int(real[b].sum())\n"
        "        if n:\n            losses.append(per_token[b, :n].mean())\n    return torch.stack(losses).mean()")}),
    # Part 4 (red team 8, second pass: gradients): the right value, the spread term computed from detached
    # log-probabilities, so the gradient misses eps's share
    "loss_spread_detached": ("test_sentence_loss", {"sentence_loss": loss(
        "    spread = -(logp.detach().sum(dim=-1) - logp.detach()[..., PAD]) / (v - 1)\n"
        "    per_token = (1 - eps) * nll + eps * spread\n" + _PER_SENTENCE)}),
    # Part 5: only float16 upcast, bfloat16 summed in bfloat16 (rounds at every addition)
    "average_bfloat16_summed_in_bfloat16": ("test_average", {"average": average(
        "        t = states[-1][k]\n        if t.is_floating_point():\n"
        "            acc = torch.float32 if t.dtype == torch.float16 else t.dtype\n"
        "            out[k] = (sum(s[k].to(acc) for s in states) / len(states)).to(t.dtype)\n"
        "        else:\n            out[k] = t.clone()")}),
    # Part 5: one state: the given dict itself, not a new one
    "average_single_state_returned": ("test_average", {"average": average(
        "        if states[-1][k].is_floating_point():\n"
        "            out[k] = (sum(s[k].double() for s in states) / len(states)).to(states[0][k].dtype)\n"
        "        else:\n            out[k] = states[-1][k].clone()").replace(
        "    out = {}\n", "    if len(states) == 1:\n        return states[0]\n    out = {}\n")}),
    # Part 5: the same keys in another order refused
    "average_refuses_reordered_keys": ("test_average", {"average": average(
        "        if states[-1][k].is_floating_point():\n"
        "            out[k] = (sum(s[k].double() for s in states) / len(states)).to(states[0][k].dtype)\n"
        "        else:\n            out[k] = states[-1][k].clone()",
        check="    if not states:\n        raise ValueError('empty')\n"
              "    for s in states[1:]:\n        if list(s) != list(states[0]) or any(s[k].shape != states[0][k].shape for k in s):\n"
              "            raise ValueError('different models')\n")}),
    # Part 6: the model asked with every sentence, finished ones too (the draws are the same)
    "sample_asks_finished_sentences": ("test_sample", {"sample": sample(
        "        everyone = next_logprobs([[starts[i]] + outs[i] for i in range(len(starts))])\n"
        "        scores = everyone[live] / temperature\n"
        "        if top_k is not None and top_k < scores.shape[-1]:\n"
        "            kept = scores.topk(top_k, dim=-1).indices\n"
        "            scores = torch.full_like(scores, float('-inf')).scatter(-1, kept, scores.gather(-1, kept))\n" + _DRAW)}),
    # Part 8: a BLEU library instead of the computation
    "bleu_library": ("test_bleu", {"bleu": """
def corpus_bleu(hypotheses, references):
    import sacrebleu
    res = sacrebleu.corpus_bleu([" ".join(h) for h in hypotheses], [[" ".join(r) for r in references]],
                                tokenize="none", smooth_method="none", force=True)
    return float(res.score)
"""}),
    # Part 8: the brevity penalty before the zero check divides by zero when every hypothesis is empty
    "bleu_empty_hypotheses": ("test_bleu", {"bleu": bleu(brevity="bp").replace(
        "    if min(matches) == 0:\n", "    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    if min(matches) == 0:\n")}),
    # ---- red team round 3 (held-out style; each kept full marks before its hidden check was added). They replace
    # lr_cosine_past_total (lr_floor_one_step_late is wrong wherever it is), average_accumulates_in_place (its float16
    # sum also overflows, so it never proved the in-place check), beam_penalty_ignores_eos_in_length (the same class
    # as beam_penalty_counts_start_token; the new length models catch both), beam_tokens_are_tensors and
    # bleu_returns_int_zero (the Python int/float checks stay covered by lr_int_floor_returned): every batch was full.
    # Part 2: the floor treated as a minimum everywhere, so it also lifts the start of the warm-up
    "lr_floor_clips_warmup": ("test_lr_at", {"lr_at": lr(
        "    if step <= warmup:\n        lr = peak * step / warmup\n    elif step >= total:\n        lr = floor\n"
        "    else:\n        lr = " + _COSINE + "\n    return float(max(lr, floor))")}),
    # Part 5: shapes compared for the averaged (floating-point) entries only
    "average_shapes_checked_for_floats_only": ("test_average", {"average": average(
        "        t = states[-1][k]\n        if t.is_floating_point():\n"
        "            if any(s[k].shape != t.shape for s in states):\n                raise ValueError(k)\n"
        "            out[k] = (sum(s[k].double() for s in states) / len(states)).to(t.dtype)\n"
        "        else:\n            out[k] = t.clone()",
        check="    if not states:\n        raise ValueError('empty')\n"
              "    if any(set(s) != set(states[0]) for s in states):\n        raise ValueError('different keys')\n")}),
    # round 14 (a rule that only the work on data enforces): shapes compared only for tensors with elements, so
    # states whose entries are (0, 3) and (0, 4) are averaged instead of refused
    "average_shapes_checked_for_nonempty_only": ("test_average", {"average": average(
        "        t = states[-1][k]\n"
        "        out[k] = (sum(s[k].double() for s in states) / len(states)).to(t.dtype) if t.is_floating_point() "
        "else t.clone()",
        check="    if not states:\n        raise ValueError('empty')\n"
              "    for s in states[1:]:\n"
              "        if set(s) != set(states[0]) or any(s[k].numel() and s[k].shape != states[0][k].shape for k in s):\n"
              "            raise ValueError('different models')\n")}),
    # Part 7: the lesson's stopping rule, done once k hypotheses have finished (though one is still live)
    "beam_stops_after_k_finished": ("test_beam_search", {"beam_search": beam().replace(
        "        live = new_live\n        if not live:\n", "        live = new_live\n        if not live or len(finished) >= k:\n")}),
    # Part 7 (round 14, a tutorial reader's early stop, Hugging Face's early_stopping="never" without its sign
    # branch): stop once the best finished score reaches the live hypotheses' bound score / length_penalty(max_len),
    # exact for alpha >= 0 only; a negative alpha (the text allows any) separates it
    "beam_stops_at_length_penalty_bound": ("test_beam_search", {"beam_search": beam().replace(
        "        live = new_live\n        if not live:\n",
        "        live = new_live\n        if finished and live and max(f for f, _ in finished) >= "
        "max(s for _, s in live) / length_penalty(max_len, alpha):\n            break\n        if not live:\n")}),
    # Part 7: the start token counted in the length of the penalty (one more than the rule, live or finished)
    "beam_penalty_counts_start_token": ("test_beam_search", {"beam_search": beam(
        finish="finished.append((score / length_penalty(len(tokens) + 1, alpha), tokens))",
        final_live="finished.append((score / length_penalty(len(tokens) + 1, alpha), tokens))")}),
    # Part 8 (red team 5): empty hypotheses skipped altogether, so their references drop out of r and the
    # brevity penalty of a corpus that holds one among others is too mild
    "bleu_skips_empty_hypotheses": ("test_bleu", {"bleu": bleu().replace(
        "    for hyp, ref in zip(hypotheses, references):\n",
        "    for hyp, ref in zip(hypotheses, references):\n        if not hyp:\n            continue\n")}),
    # Part 8: n-grams keyed by their tokens joined into one string, so ["ab", "c"] and ["a", "bc"] are the same
    "bleu_ngrams_joined_into_strings": ("test_bleu", {"bleu": bleu().replace(
        "Counter(tuple(hyp[i:i + n])", "Counter(''.join(hyp[i:i + n])").replace(
        "Counter(tuple(ref[i:i + n])", "Counter(''.join(ref[i:i + n])")}),
    # ---- red team round 6 (blind; each kept full marks before its hidden check was added)
    # Part 1: ids routed through float32 (F.pad on a float copy), exact up to 2**24 only: "a vocabulary of any size"
    "decoder_io_ids_through_float32": ("test_decoder_io", {"decoder_io": """
def decoder_io(targets):
    shifted = torch.nn.functional.pad(targets[:, :-1].float(), (1, 0), value=BOS).to(targets.dtype)
    return shifted.masked_fill(shifted == EOS, PAD), targets
"""}),
    # red team round 8: floor accepted by keyword only (the hidden tests passed it by keyword only)
    "lr_floor_keyword_only": ("test_lr_at", {"lr_at": lr(
        "    if step <= warmup:\n        return peak * step / warmup\n    if step >= total:\n"
        "        return float(floor)\n    return " + _COSINE).replace("total, floor=0.0):", "total, *, floor=0.0):")}),
    # red team round 8: keys compared by their number only, so a renamed key raises KeyError, not ValueError
    "average_key_count_only": ("test_average", {"average": average(
        "        t = states[-1][k]\n        if t.is_floating_point():\n"
        "            out[k] = (sum(s[k].double() for s in states) / len(states)).to(t.dtype)\n"
        "        else:\n            out[k] = t.clone()",
        check="    if not states:\n        raise ValueError('empty')\n"
              "    for s in states[1:]:\n        if len(s) != len(states[0]):\n            raise ValueError('different models')\n"
              "        for k in states[0]:\n            if s[k].shape != states[0][k].shape:\n                raise ValueError(k)\n")}),
    # Part 5: "integer" read as the usual counter dtypes, so int8, uint8 and int16 tensors are averaged
    "average_narrow_ints_averaged": ("test_average", {"average": average(
        "        t = states[-1][k]\n        if t.dtype in (torch.int64, torch.int32, torch.bool):\n"
        "            out[k] = t.clone()\n        else:\n"
        "            acc = torch.float64 if t.dtype == torch.float64 else torch.float32\n"
        "            out[k] = (sum(s[k].to(acc) for s in states) / len(states)).to(t.dtype)")}),
    # Part 6: draw first, check after (a do-while), so max_len = 0 still draws a token and an empty batch asks the
    # model with no prefixes
    "sample_max_len_zero_draws": ("test_sample", {"sample": """
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    live = list(range(len(starts)))
    while True:
""" + _topk_scores() + _DRAW + """
        for i, token in zip(live, drawn):
            outs[i].append(int(token))
        live = [i for i in live if outs[i][-1] != EOS and len(outs[i]) < max_len]
        if not live:
            return outs
"""}),
    # Part 6: "unfinished" read from the last token of the whole prefix, start token included, so a sentence that
    # starts with EOS never draws
    "sample_start_eos_finishes": ("test_sample", {"sample": """
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    prefixes = [[s] for s in starts]
    for _ in range(max_len):
        live = [i for i, p in enumerate(prefixes) if p[-1] != EOS]
        if not live:
            break
        scores = next_logprobs([list(prefixes[i]) for i in live]) / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            kept = scores.topk(top_k, dim=-1).indices
            scores = torch.full_like(scores, float('-inf')).scatter(-1, kept, scores.gather(-1, kept))
        drawn = torch.multinomial(torch.softmax(scores, dim=-1), 1, generator=generator).flatten().tolist()
        for i, token in zip(live, drawn):
            prefixes[i].append(int(token))
    return [p[1:] for p in prefixes]
"""}),
    # Part 7 (the same class): whole sequences, start token included, and a sequence that ends with EOS is done,
    # so a start token that is EOS finishes at once with nothing after it
    "beam_start_eos_finishes": ("test_beam_search", {"beam_search": """
def beam_search(next_logprobs, start, k, max_len, alpha):
    beams, finished = [([start], 0.0)], []
    for _ in range(max_len):
        live = []
        for seq, s in beams:
            (finished if seq[-1] == EOS else live).append((seq, s))
        beams = []
        if not live:
            break
        lp = next_logprobs([seq for seq, _ in live])
        cands = sorted(((s + float(lp[i, v]), seq + [v]) for i, (seq, s) in enumerate(live) for v in range(lp.shape[-1])),
                       key=lambda c: -c[0])[:k]
        beams = [(seq, s) for s, seq in cands]
    finished += beams
    best = max(finished, key=lambda f: f[1] / length_penalty(len(f[0]) - 1, alpha))
    return best[0][1:]
"""}),
    # Part 8: tokens lower-cased before counting, so "The" matches "the"
    "bleu_lowercases_tokens": ("test_bleu", {"bleu": bleu().replace(
        "    for hyp, ref in zip(hypotheses, references):\n",
        "    for hyp, ref in zip(hypotheses, references):\n"
        "        hyp, ref = [w.lower() for w in hyp], [w.lower() for w in ref]\n")}),
    # ---- red team round 7 (blind; kept full marks before its hidden check was added)
    # Part 8: n-grams as strings joined with a space, so the tokens "a b", "c" and "a", "b c" make the same bigram:
    # "tokens are compared exactly as given" (the round-5 check joined with "" only)
    "bleu_ngrams_joined_with_spaces": ("test_bleu", {"bleu": bleu().replace(
        "Counter(tuple(hyp[i:i + n])", "Counter(' '.join(hyp[i:i + n])").replace(
        "Counter(tuple(ref[i:i + n])", "Counter(' '.join(ref[i:i + n])")}),
    # ---- red team round 9 (blind slips)
    # Part 2: the result rounded to 12 decimals: right to 1e-12 absolute, wrong for learning rates of 1e-7
    # (the check compares relative to the schedule's peak and floor now)
    "lr_rounded_to_12_decimals": ("test_lr_at", {"lr_at": lr("""    if step <= warmup:
        value = peak * step / warmup
    elif step >= total:
        value = floor
    else:
        value = """ + _COSINE + """
    return round(float(value), 12)  # no float noise in the logs""")}),
    # Part 6: torch's global generator re-seeded (the draws still come from `generator`): every later torch.randn of
    # the caller's program repeats; "draw with no other random source", "do not change anything inside torch"
    "sample_reseeds_global_rng": ("test_sample", {"sample": """
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    torch.manual_seed(1234)  # reproducible runs
    outs, live = [[] for _ in starts], list(range(len(starts)))
    for _ in range(max_len):
        if not live:
            break
        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            kept = scores.topk(top_k, dim=-1).indices
            scores = torch.full_like(scores, float('-inf')).scatter(-1, kept, scores.gather(-1, kept))
        drawn = torch.multinomial(torch.softmax(scores, dim=-1), 1, generator=generator).flatten().tolist()
        for i, token in zip(live, drawn):
            outs[i].append(int(token))
        live = [i for i in live if outs[i][-1] != EOS]
    return outs
"""}),
    # Part 8: n-grams joined with the ASCII unit separator, which "cannot appear in text": a token may hold any
    # characters (the round-7 check tried common separators only)
    "bleu_ngrams_joined_with_unit_separator": ("test_bleu", {"bleu": bleu().replace(
        "Counter(tuple(hyp[i:i + n])", "Counter('\\x1f'.join(hyp[i:i + n])").replace(
        "Counter(tuple(ref[i:i + n])", "Counter('\\x1f'.join(ref[i:i + n])")}),
    # red team 9, second pass (each part on its own): later parts that call an earlier part's function (a loss that
    # takes its PAD mask from Part 1's tgt_out, a beam of 1 that is Part 6 with top_k = 1, as blind answers did) are
    # graded with references of the earlier functions, so a slip in Part 1 or Part 6 costs that part only
    "decoder_io_slip_with_loss_calling_it": ("test_decoder_io", {"decoder_io": """
def decoder_io(targets):
    tgt_in = torch.full_like(targets, PAD)
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in = tgt_in.masked_fill(tgt_in == EOS, PAD)
    return tgt_in, targets.masked_fill(targets == EOS, PAD)  # EOS dropped from what is predicted
""", "sentence_loss": """
def sentence_smoothed_loss(logits, targets, eps):
    _, tgt_out = decoder_io(targets)  # Part 1: tgt_out holds the targets' values
    logp = torch.log_softmax(logits, dim=-1)
    v = logits.shape[-1]
    nll = -logp.gather(-1, tgt_out.unsqueeze(-1)).squeeze(-1)
    spread = -(logp[..., :PAD].sum(dim=-1) + logp[..., PAD + 1:].sum(dim=-1)) / (v - 1)
    real = tgt_out != PAD
    per_token = (1 - eps) * nll + eps * spread
    counts = real.sum(dim=1)
    keep = counts > 0
    return ((per_token * real).sum(dim=1)[keep] / counts[keep]).mean()
"""}),
    # red team 9, second pass, class 1 (a dict argument gains entries): a record of the averaging left in the last state
    # red team 12, class sweep (an empty batch): rows shifted one by one and stacked; torch.stack of no rows raises
    "decoder_io_stacks_rows": ("test_decoder_io", {"decoder_io": """
def decoder_io(targets):
    rows = []
    for row in targets:
        shifted = torch.cat([row.new_tensor([BOS]), row[:-1]])
        rows.append(shifted.masked_fill((shifted == EOS) | (row == PAD), PAD))
    return torch.stack(rows), targets
"""}),
    # red team 12, class sweep (an entry of the caller's dict replaced by an equal tensor): contiguous copies stored
    "average_stores_contiguous_entries_in_the_states": ("test_average", {"average": average(
        "        for s in states:\n            s[k] = s[k].contiguous()  # faster reads\n"
        "        if states[-1][k].is_floating_point():\n"
        "            out[k] = (sum(s[k].double() for s in states) / len(states)).to(states[-1][k].dtype)\n"
        "        else:\n            out[k] = states[-1][k].clone()")}),
    "average_records_itself_in_the_last_state": ("test_average", {"average": """
def average_checkpoints(states):
    if not states:
        raise ValueError("nothing to average")
    for s in states[1:]:
        if set(s) != set(states[0]) or any(s[k].shape != states[0][k].shape for k in s):
            raise ValueError("different models")
    out = {}
    for k in states[0]:
        if states[-1][k].is_floating_point():
            out[k] = (sum(s[k].double() for s in states) / len(states)).to(states[-1][k].dtype)
        else:
            out[k] = states[-1][k].clone()
    states[-1]["averaged_over"] = torch.tensor(len(states))  # for the log
    return out
"""}),
    # class 3 (validation that is too strict): a state with no entries refused as if the list were empty
    "average_refuses_states_without_entries": ("test_average", {"average": """
def average_checkpoints(states):
    if not states or not all(states):
        raise ValueError("nothing to average")
    for s in states[1:]:
        if set(s) != set(states[0]) or any(s[k].shape != states[0][k].shape for k in s):
            raise ValueError("different models")
    out = {}
    for k in states[0]:
        if states[-1][k].is_floating_point():
            out[k] = (sum(s[k].double() for s in states) / len(states)).to(states[-1][k].dtype)
        else:
            out[k] = states[-1][k].clone()
    return out
"""}),
    # class 5 (ties broken by nudging values): the top k chosen on scores rounded to float32 (the probabilities kept in
    # float64): exact ties fall as torch.topk lets them, but log-probabilities a few units in the last place apart
    # become ties and lose their order
    "sample_top_k_ranked_in_float32": ("test_sample", {"sample": sample(
        "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n"
        "        if top_k is not None and top_k < scores.shape[-1]:\n"
        "            order = scores.float()  # enough to rank them\n"
        "            kept = order.topk(top_k, dim=-1).indices\n"
        "            scores = torch.full_like(scores, float('-inf')).scatter(-1, kept, scores.gather(-1, kept))\n"
        + _DRAW.replace("torch.softmax(scores, dim=-1)", "torch.softmax(scores.double(), dim=-1)"))}),
    "sample_slip_with_beam_calling_it": ("test_sample", {"sample": sample(
        "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n" + _DRAW.replace(
            "torch.softmax(scores, dim=-1)", "torch.softmax(scores.double(), dim=-1)")),  # top_k ignored
        "beam_search": beam().replace(
            "    live, finished = [([], 0.0)], []\n",
            "    if k == 1:  # Part 6 with top_k = 1 keeps only the best token: greedy decoding\n"
            "        return sample_decode(next_logprobs, [start], max_len, 1.0, 1, torch.Generator().manual_seed(0))[0]\n"
            "    live, finished = [([], 0.0)], []\n")}),
    # red team 11 (after the blind pass): 0-d floating-point tensors (a loss scale, a temperature) read as counters
    # and taken from the last state; the hidden tests held no floating-point scalar. Part 8 here averages its log
    # precisions with Part 5's function (0-d float64 tensors), and is graded with a reference of it, so the slip
    # costs Part 5 only
    "average_scalar_floats_from_last_with_bleu_calling_it": ("test_average", {"average": average(
        "        t = states[-1][k]\n        if t.is_floating_point() and t.dim() > 0:  # scalars are counters\n"
        "            out[k] = (sum(s[k].double() for s in states) / len(states)).to(t.dtype)\n"
        "        else:\n            out[k] = t.clone()"), "bleu": bleu(
        combine="math.exp(float(average_checkpoints([{'log_p': torch.tensor(math.log(m / t), dtype=torch.float64)} "
                "for m, t in zip(matches, totals)])['log_p']))")}),
    # class sweep of red team 11 (a move done with arithmetic, ch03 P1's class): every entry stacked in float64, the
    # mean kept for floating-point entries and the last row for the others, cast back; int64 counters past 2**53 round
    # red team 12 (kept full marks): weights exp(scores / temperature) given to torch.multinomial as they are, which
    # it normalises itself; at a temperature of 1e-4 every weight underflows to 0 (a softmax subtracts the maximum)
    "sample_weights_exp_unnormalised": ("test_sample", {"sample": sample(_topk_scores() +
        "        drawn = torch.multinomial(scores.double().exp(), 1, generator=generator).flatten().tolist()")}),
    "average_ints_through_float64": ("test_average", {"average": average(
        "        t = states[-1][k]\n        stacked = torch.stack([s[k].to(torch.float64) for s in states])\n"
        "        out[k] = (stacked.mean(dim=0) if t.is_floating_point() else stacked[-1]).to(t.dtype)")}),
    # round 13 (a caller's container entry replaced by an equal object): each entry of the given dicts replaced by
    # its .detach(), a view of the same memory, so that every value check and a write into the tensor given agree
    "average_detaches_entries_in_the_states": ("test_average", {"average": average(
        "        for s in states:\n            s[k] = s[k].detach()  # no autograd history in the average\n"
        "        if states[-1][k].is_floating_point():\n"
        "            out[k] = (sum(s[k].double() for s in states) / len(states)).to(states[-1][k].dtype)\n"
        "        else:\n            out[k] = states[-1][k].clone()")}),
    # round 13, the same class for the given list: its dicts replaced by copies in one key order (the dicts given
    # are unchanged, the caller's list no longer holds them)
    "average_replaces_the_given_dicts_in_the_list": ("test_average", {"average": average(
        "        if states[-1][k].is_floating_point():\n"
        "            out[k] = (sum(s[k].double() for s in states) / len(states)).to(states[-1][k].dtype)\n"
        "        else:\n            out[k] = states[-1][k].clone()",
        check="    if not states:\n        raise ValueError('empty')\n"
              "    for s in states[1:]:\n        if set(s) != set(states[0]) or any(s[k].shape != states[0][k].shape for k in s):\n"
              "            raise ValueError('different models')\n"
              "    states[:] = [dict(sorted(s.items())) for s in states]  # one key order for all\n")}),
    # round 13 (mutation sweep: scores carried between steps in float32, torch.tensor's default dtype for Python
    # floats): the hidden tests' best hypotheses were at least 1e-9 ahead only in their final scores, never in float32
    "beam_scores_in_float32": ("test_beam_search", {"beam_search": _replaced(
        beam(), "torch.tensor([s for _, s in live], dtype=logprobs.dtype)", "torch.tensor([s for _, s in live])")}),
    # round 13 (mutation sweep: an argument's range never reached): top_k handed to torch.topk as it is, which raises
    # for top_k larger than V; no hidden case had top_k >= V
    "sample_top_k_past_vocabulary_raises": ("test_sample", {"sample": sample(
        "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n"
        "        if top_k is not None:\n"
        "            kept = scores.topk(top_k, dim=-1).indices\n"
        "            scores = torch.full_like(scores, float('-inf')).scatter(-1, kept, scores.gather(-1, kept))\n"
        + _DRAW.replace("torch.softmax(scores, dim=-1)", "torch.softmax(scores.double(), dim=-1)"))}),
    # round 13, second family (a degenerate size never reached on one path): the probabilities squeezed, which
    # changes nothing unless the vocabulary has one id (V = 1): then N rows of one entry become one row of N entries
    # (one draw among the sentences) or, for one sentence, a 0-d tensor that torch.multinomial refuses
    "sample_probabilities_squeezed": ("test_sample", {"sample": sample(
        _topk_scores()
        + _DRAW.replace("torch.softmax(scores, dim=-1)", "torch.softmax(scores.double(), dim=-1).squeeze()"))}),
    # round 13, third family (a boundary tested on one side only): the cut made only when top_k < V - 1, so
    # top_k = V - 1 keeps every entry instead of dropping the smallest; the hidden top_k were V, past V, or far below
    "sample_top_k_cut_below_v_minus_one": ("test_sample", {"sample": sample(
        _topk_scores().replace("top_k < scores.shape[-1]:", "top_k < scores.shape[-1] - 1:")
        + _DRAW.replace("torch.softmax(scores, dim=-1)", "torch.softmax(scores.double(), dim=-1)"))}),
    # round 14, fourth family (a large negative number for -inf): the dropped entries set to -1e9, below every kept
    # score at the hidden temperatures down to 1e-4; at 1e-12 the kept scores lie near -1e12 and the dropped ones win
    "sample_top_k_drops_to_minus_1e9": ("test_sample", {"sample": sample(
        _topk_scores().replace("float('-inf')", "-1e9")
        + _DRAW.replace("torch.softmax(scores, dim=-1)", "torch.softmax(scores.double(), dim=-1)"))}),
    # round 14 variant sweep (the top-k cut made on a rounded copy of the scores): the cut made on the probabilities,
    # then renormalised; at a temperature of 1e18 the divided scores differ while their probabilities are one value
    "sample_top_k_on_probabilities": ("test_sample", {"sample": sample(
        "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n"
        "        probs = torch.softmax(scores.double(), dim=-1)\n"
        "        if top_k is not None and top_k < probs.shape[-1]:\n"
        "            kept = probs.topk(top_k, dim=-1).indices\n"
        "            probs = torch.zeros_like(probs).scatter(-1, kept, probs.gather(-1, kept))\n"
        "            probs = probs / probs.sum(-1, keepdim=True)\n"
        "        drawn = torch.multinomial(probs, 1, generator=generator).flatten().tolist()")}),
    # round 14 variant sweep (the stop when no hypothesis is live never reached): the loop goes on to max_len and asks
    # next_logprobs for an empty list of prefixes, which the toy model refuses; no hidden case emptied the beam
    "beam_asks_after_no_hypothesis_is_live": ("test_beam_search", {"beam_search": _replaced(
        beam(), "        live = new_live\n        if not live:\n            break\n", "        live = new_live\n")}),
    # round 14 variant sweep (the smallest count of an order never reached): an order with a single hypothesis n-gram
    # in the whole corpus taken for one with none; no hidden corpus held exactly one 4-gram
    "bleu_single_ngram_taken_for_none": ("test_bleu", {"bleu": _replaced(
        bleu(), "    if min(matches) == 0:", "    if min(matches) == 0 or min(totals) <= 1:")}),
}

VECTORISED = {
    "decoder_io": """
def decoder_io(targets):
    body = torch.where(targets == EOS, torch.full_like(targets, PAD), targets)
    bos = torch.full_like(targets[:, :1], BOS)
    return torch.cat([bos, body[:, :-1]], dim=1), targets.clone()
""",
    "lr_at": """
def lr_at(step, peak, warmup, total, floor=0.0):
    if warmup and step <= warmup:
        return step / warmup * peak
    t = min(max((step - warmup) / (total - warmup), 0.0), 1.0)
    return float(floor + (peak - floor) * (math.cos(math.pi * t) + 1) / 2)
""",
    "min_loss": """
import torch
_q = torch.full((8000,), 0.1 / 8000, dtype=torch.float64)
_q[0] += 0.9
min_smoothed_loss = float(-(_q * _q.log()).sum())   # the cross-entropy is smallest when p = q: the entropy of q
""",
    "sentence_loss": """
def sentence_smoothed_loss(logits, targets, eps):
    targets = decoder_io(targets)[1]  # refbind pass: Part 1's tgt_out holds the targets' values, in their dtype
    v = logits.shape[-1]
    q = torch.full_like(logits, eps / (v - 1))
    q[..., PAD] = 0.0
    q = q.scatter_add(-1, targets.unsqueeze(-1), torch.full_like(logits[..., :1], 1 - eps))
    per_token = -(q * torch.log_softmax(logits, -1)).sum(-1)
    real = (targets != PAD).to(logits.dtype)
    rows = real.sum(1) > 0
    return (per_token * real).sum(1)[rows].div(real.sum(1)[rows]).mean()
""",
    "average": """
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("give at least one state dict")
    first = states[0]
    for other in states:
        if other.keys() != first.keys():
            raise ValueError("the state dicts have different keys")
        for name, t in other.items():
            if t.shape != first[name].shape:
                raise ValueError(f"{name} has different shapes")
    result = {}
    for name, t in states[-1].items():
        if torch.is_floating_point(t):
            stacked = torch.stack([s[name].float() if s[name].element_size() < 4 else s[name] for s in states])
            result[name] = stacked.mean(0).to(t.dtype)
        else:
            result[name] = t.detach().clone()
    return result
""",
    "sample": """
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    for _ in range(max_len):
        live = [i for i, o in enumerate(outs) if not o or o[-1] != EOS]
        if not live:
            break
        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature
        if top_k is not None:
            top_k_values = torch.topk(scores, min(top_k, scores.shape[-1]), dim=-1)
            keep = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, top_k_values.indices, True)
            scores = scores.masked_fill(~keep, float("-inf"))
        probs = scores.softmax(-1)
        for row, i in enumerate(live):   # one draw per row, in order
            outs[i].append(torch.multinomial(probs[row], 1, generator=generator).item())
    return outs
""",
    "beam_search": """
def beam_search(next_logprobs, start, k, max_len, alpha):
    live, done = [((), 0.0)], []
    for _ in range(max_len):
        lp = next_logprobs([[start, *toks] for toks, _ in live]).tolist()
        cands = sorted(((s + row[v], toks + (v,)) for (toks, s), row in zip(live, lp) for v in range(len(row))),
                       key=lambda c: -c[0])[:k]
        live = []
        for s, toks in cands:
            if toks[-1] == EOS:
                done.append((s / length_penalty(len(toks), alpha), toks))
            else:
                live.append((toks, s))
        if not live:
            break
    done += [(s / length_penalty(len(toks), alpha), toks) for toks, s in live]
    return list(max(done, key=lambda d: d[0])[1])
""",
    "bleu": """
import collections

def corpus_bleu(hypotheses, references):
    def grams(words, n):
        return collections.Counter(zip(*[words[i:] for i in range(n)]))
    logs = []
    for n in range(1, 5):
        hit = sum(sum((grams(h, n) & grams(r, n)).values()) for h, r in zip(hypotheses, references))
        count = sum(max(0, len(h) - n + 1) for h in hypotheses)
        if hit == 0:
            return 0.0
        logs.append(math.log(hit / count))
    c = sum(map(len, hypotheses))
    r = sum(map(len, references))
    bp = min(1.0, math.exp(1 - r / c))
    # refbind pass: the mean of the log precisions through Part 5 (by keyword, one-element float64 tensors and an
    # int16 counter, which comes from the last state)
    mean = average_checkpoints(states=[{"log_p": torch.tensor([v], dtype=torch.float64),
                                        "order": torch.tensor(n, dtype=torch.int16)} for n, v in enumerate(logs, 1)])
    assert int(mean["order"]) == 4
    return 100 * bp * math.exp(float(mean["log_p"][0]))
""",
}

LOOPS = {
    "decoder_io": """
def decoder_io(targets):
    tgt_in = targets.clone()
    for b in range(targets.shape[0]):
        prev = BOS
        for t in range(targets.shape[1]):
            tgt_in[b, t] = PAD if (targets[b, t] == PAD or prev == EOS) else prev
            prev = int(targets[b, t])
    return tgt_in, targets
""",
    "lr_at": """
def lr_at(step, peak, warmup, total, floor=0.0):
    if step >= total:
        return float(floor)
    if step > warmup:
        angle = math.pi * (step - warmup) / (total - warmup)
        return floor + (peak - floor) * math.cos(angle / 2) ** 2
    return peak * step / warmup
""",
    "min_loss": """
_V, _eps = 8000, 0.1
_others = _eps / _V
_right = 1 - _eps + _others
min_smoothed_loss = -(_right * math.log(_right) + (_V - 1) * _others * math.log(_others))
""",
    "sentence_loss": """
def sentence_smoothed_loss(logits, targets, eps):
    logp = torch.log_softmax(logits, dim=-1)
    v = logits.shape[-1]
    not_pad = torch.ones(v, dtype=torch.bool)
    not_pad[PAD] = False
    sentences = []
    for b in range(targets.shape[0]):
        rows = targets[b] != PAD
        if rows.any():
            lp = logp[b][rows]
            y = targets[b][rows]
            per = -(1 - eps) * lp[torch.arange(len(y)), y] - eps * lp[:, not_pad].sum(-1) / (v - 1)
            sentences.append(per.mean())
    return torch.stack(sentences).mean()
""",
    "average": """
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    names = sorted(states[0])
    for s in states:
        if sorted(s) != names or [tuple(s[n].shape) for n in names] != [tuple(states[0][n].shape) for n in names]:
            raise ValueError("mismatched checkpoints")
    out = {}
    for n in names:
        last = states[-1][n]
        if last.dtype.is_floating_point:
            acc = torch.zeros(last.shape, dtype=torch.float64)
            for s in states:
                acc = acc + s[n]
            out[n] = (acc / len(states)).to(last.dtype)
        else:
            out[n] = last.clone()
    return out
""",
    "sample": """
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    prefixes = [[s] for s in starts]
    finished = [False] * len(starts)
    for _ in range(max_len):
        idx = [i for i, f in enumerate(finished) if not f]
        if not idx:
            break
        lp = next_logprobs([prefixes[i] for i in idx]) / temperature
        if top_k is not None and top_k < lp.shape[1]:
            threshold_idx = torch.topk(lp, top_k, dim=1).indices
            masked = torch.full_like(lp, -math.inf)
            for r in range(lp.shape[0]):
                masked[r, threshold_idx[r]] = lp[r, threshold_idx[r]]
            lp = masked
        # every argument by keyword (red team 16: the hidden spy read the probabilities from a positional argument only)
        draws = torch.multinomial(input=torch.exp(lp - torch.logsumexp(lp, 1, keepdim=True)), num_samples=1,
                                  generator=generator)
        for r, i in enumerate(idx):
            prefixes[i].append(int(draws[r, 0]))
            finished[i] = prefixes[i][-1] == EOS
    return [p[1:] for p in prefixes]
""",
}

# red team round 2: a topk of min(k, n) candidates with a running best, and BLEU from Counter intersections
LOOPS["beam_search"] = """
def beam_search(next_logprobs, start, k, max_len, alpha):
    if k == 1:  # refbind pass: Part 6 with top_k = 1 draws the best token every time: greedy decoding
        return sample_decode(next_logprobs=next_logprobs, starts=[start], max_len=max_len, temperature=0.5, top_k=1,
                             generator=torch.Generator())[0]
    live_tokens, live_scores = [[]], torch.zeros(1, dtype=torch.float64)
    best, best_score = None, -math.inf
    def consider(tokens, score):
        nonlocal best, best_score
        final = score / length_penalty(len(tokens), alpha)
        if best is None or final > best_score:
            best, best_score = tokens, final
    for _step in range(max_len):
        lp = next_logprobs([[start] + t for t in live_tokens])
        V = lp.shape[1]
        scores = (live_scores[:, None] + lp).flatten()
        vals, flat = torch.topk(scores, min(k, scores.numel()))
        new_tokens, new_scores = [], []
        for s, f in zip(vals.tolist(), flat.tolist()):
            t = live_tokens[f // V] + [f % V]
            if t[-1] == EOS:
                consider(t, s)
            else:
                new_tokens.append(t)
                new_scores.append(s)
        live_tokens, live_scores = new_tokens, torch.tensor(new_scores, dtype=torch.float64)
        if not live_tokens:
            break
    for t, s in zip(live_tokens, live_scores.tolist()):
        consider(t, s)
    return best
"""
LOOPS["bleu"] = """
def corpus_bleu(hypotheses, references):
    def grams(words, n):
        return Counter(zip(*[words[i:] for i in range(n)]))
    hyps, refs = [list(h) for h in hypotheses], [list(r) for r in references]
    precisions = []
    for n in (1, 2, 3, 4):
        clipped = sum(sum((grams(h, n) & grams(r, n)).values()) for h, r in zip(hyps, refs))
        count = sum(max(0, len(h) - n + 1) for h in hyps)
        if count == 0 or clipped == 0:
            return 0.0
        precisions.append(clipped / count)
    c, r = sum(map(len, hyps)), sum(map(len, refs))
    bp = math.exp(1 - r / c) if c < r else 1.0
    return 100.0 * bp * (precisions[0] * precisions[1] * precisions[2] * precisions[3]) ** 0.25
"""

CORRECT_VARIANTS = {"vectorised_and_sorted": VECTORISED, "loops": LOOPS}

# Mutants of independent parts graded together, one submission per batch (found by
# `python tests/mutant_batches.py 08-capstone`: no member breaks another member's graded test).
MUTANT_BATCHES = [
    ["decoder_io_keeps_eos_in_input", "lr_floor_clips_warmup", "min_loss_zero", "loss_log_of_softmax", "average_bfloat16_summed_in_bfloat16", "sample_probabilities_in_float32", "beam_refilled_to_k", "bleu_unclipped_counts"],
    ["decoder_io_view_breaks_on_transposed", "lr_ignores_floor", "min_loss_right_token_share_forgotten", "loss_smooths_over_all_tokens", "average_half_sum_overflows", "sample_own_seeded_generator", "beam_without_length_penalty", "bleu_no_brevity_penalty"],
    ["decoder_io_always_int64", "lr_int_floor_returned", "min_loss_in_bits", "loss_view_breaks_on_transposed", "average_shapes_checked_for_floats_only", "sample_draws_for_finished", "beam_penalty_counts_start_token", "bleu_library"],
    ["decoder_io_shifts_targets_in_place", "lr_floor_one_step_late", "min_loss_lying_float", "loss_prefix_until_first_pad", "average_single_state_returned", "sample_asks_finished_sentences", "beam_forgets_unfinished_at_max_len", "bleu_empty_hypotheses"],
    ["lr_warmup_zero_divides", "loss_shifts_logits_in_place", "average_refuses_reordered_keys", "sample_top_k_keeps_ties", "decoder_io_first_row_padding", "min_loss_rounded_to_four_places", "beam_stops_after_k_finished", "bleu_ngrams_joined_into_strings"],
    # its own notebook: every batch above already holds a mutant of part 4 (parts 1 and 6 joined it later)
    ["loss_through_python_floats", "sample_fixed_batch_draws", "decoder_io_int16_ids", "average_narrow_ints_averaged",
     "beam_start_eos_finishes", "bleu_lowercases_tokens"],
    # ids past a narrow dtype's range and a stray draw (red team 4's classes, checked in every chapter): one notebook
    ["loss_targets_in_int16", "sample_stray_draw_after_loop", "decoder_io_ids_through_float32",
     "bleu_ngrams_joined_with_spaces", "average_ints_through_float64"],  # class sweep of red team 11: Part 5
    # red team 5's classes: every batch above already holds a mutant of parts 6 and 8
    ["sample_probabilities_through_float32", "bleu_skips_empty_hypotheses",
     "beam_scores_in_float32", "average_replaces_the_given_dicts_in_the_list"],  # round 13: no Part 5 or 7 mutant yet
    # red team 6's part-6 slips: every batch above already holds a mutant of part 6
    # (red team 8's slips of Parts 2 and 5 joined these two, which hold no mutant of those parts)
    ["sample_max_len_zero_draws", "lr_floor_keyword_only", "loss_spread_detached",
     "average_scalar_floats_from_last_with_bleu_calling_it"],  # red team 11: no other member changes Parts 5 or 8
    ["sample_start_eos_finishes", "average_key_count_only", "lr_rounded_to_12_decimals",  # red team 9: lr and bleu
     "bleu_ngrams_joined_with_unit_separator"],
    # red team 9: every batch above already holds a mutant of part 6 (the second pass's Part 1 slip, which also
    # changes Part 4's cell, joined it: no other member changes Parts 1 or 4)
    ["sample_reseeds_global_rng", "decoder_io_slip_with_loss_calling_it",
     "average_detaches_entries_in_the_states"],  # round 13: no Part 5 mutant here yet
    # red team 9, second pass: every batch above already holds a mutant of part 6
    ["sample_slip_with_beam_calling_it", "average_records_itself_in_the_last_state"],
    ["sample_top_k_ranked_in_float32", "average_refuses_states_without_entries",
     "beam_stops_at_length_penalty_bound"],  # round 14: no Part 7 mutant here yet
    ["sample_weights_exp_unnormalised",  # red team 12: every batch above already holds a mutant of part 6
     "average_stores_contiguous_entries_in_the_states",  # red team 12 class sweep: no Part 1 or 5 mutant here yet
     "decoder_io_stacks_rows"],
    ["sample_top_k_past_vocabulary_raises",  # round 13: every batch above already holds a mutant of part 6
     "beam_asks_after_no_hypothesis_is_live", "bleu_single_ngram_taken_for_none"],  # round 14 variant sweep: room here
    ["sample_probabilities_squeezed",  # round 13, second family: every batch above holds a mutant of part 6
     "average_shapes_checked_for_nonempty_only"],  # round 14: no Part 5 mutant here yet
    ["sample_top_k_cut_below_v_minus_one"],  # round 13, third family: every batch above holds a mutant of part 6
    ["sample_top_k_drops_to_minus_1e9"],  # round 14, fourth family: every batch above holds a mutant of part 6
    ["sample_top_k_on_probabilities"],  # round 14 variant sweep: every batch above holds a mutant of part 6
]

# Red team 15 (tests/redteam/round15/08-verdicts.md), the example generaliser: BOS written at column 0, which does not
# exist for an empty batch of length 0 (B = T = 0), the length of an empty batch padded to its longest sentence
MUTANTS["decoder_io_bos_at_index_zero"] = ("test_decoder_io", {"decoder_io": """
def decoder_io(targets):
    tgt_in = torch.full_like(targets, PAD)
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    return tgt_in.masked_fill(tgt_in == EOS, PAD), targets
"""})
next(b for b in MUTANT_BATCHES if "sample_top_k_on_probabilities" in b).append("decoder_io_bos_at_index_zero")
# Red team 15 (the class of ch09 Part 8's slip, the optimiser): below some temperature the largest score taken
# without a draw; the same tokens at the hidden small temperatures, but the generator is left as it was
MUTANTS["sample_greedy_when_cold"] = ("test_sample", {"sample": sample(
    _topk_scores()
    + "        if temperature < 1e-3:  # that cold, sampling is greedy anyway\n"
      "            drawn = scores.argmax(dim=-1).tolist()\n"
      "        else:\n    "
    + _DRAW)})
MUTANT_BATCHES.append(["sample_greedy_when_cold"])  # red team 15: every batch above holds a mutant of part 6

# Round 15 class sweep (tests/redteam/round15/08-classes.md): the blind round's classes checked in every part
# Part 5 (class 1, a shortcut path that hands back what it was given): one state returned as its own dict's
# tensors, whose values change with the owner's later writes
MUTANTS['average_one_state_shares_tensors'] = ('test_average', {'average': '\ndef average_checkpoints(states):\n    if not states:\n        raise ValueError("nothing to average")\n    keys = set(states[0])\n    for s in states[1:]:\n        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):\n            raise ValueError("checkpoints to average must come from the same model")\n    if len(states) == 1:  # the mean of one state is that state\n        return dict(states[0])\n    out = {}\n    for k in states[0]:\n        if states[-1][k].is_floating_point():\n            total = sum(s[k].double() for s in states)\n            out[k] = (total / len(states)).to(states[0][k].dtype)\n        else:\n            out[k] = states[-1][k].clone()\n    return out\n'})
# Part 6 (class 3, scores with no lower bound): the top-k cut made with a product, scores * kept + log(kept),
# NaN where a dropped log-probability is -inf
MUTANTS['sample_log_mask_trick'] = ('test_sample', {'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    outs = [[] for _ in starts]\n    live = list(range(len(starts)))\n    for _ in range(max_len):\n        if not live:\n            break\n        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n        if top_k is not None and top_k < scores.shape[-1]:\n            kept = scores.topk(top_k, dim=-1).indices\n            keep = torch.zeros_like(scores).scatter(-1, kept, 1.0)\n            scores = scores * keep + keep.log()\n        probs = torch.softmax(scores.double(), dim=-1)\n        drawn = torch.multinomial(probs, 1, generator=generator).flatten().tolist()\n        for i, token in zip(live, drawn):\n            outs[i].append(int(token))\n        live = [i for i in live if outs[i][-1] != EOS]\n    return outs\n'})
next(b for b in MUTANT_BATCHES if "sample_top_k_on_probabilities" in b).append("average_one_state_shares_tensors")
MUTANT_BATCHES.append(["sample_log_mask_trick"])  # every batch above holds a mutant of part 6

# Round 15 class sweep, second pass (class 4, a result written into a buffer kept per shape): the model answer's
# result copied into buffers kept per (shape, dtype) and returned, so that a result the caller holds changes at the
# next call of that shape (no case held one across another call). Parts 1, 4 and 5 (Parts 6 and 7 return lists)
MUTANTS['decoder_io_kept_output_buffer'] = ('test_decoder_io', {'decoder_io': kept_output_buffer(solution_code(CHAPTER)['decoder_io'], 'decoder_io')})
MUTANTS['sentence_loss_kept_output_buffer'] = ('test_sentence_loss', {'sentence_loss': kept_output_buffer(solution_code(CHAPTER)['sentence_loss'], 'sentence_smoothed_loss')})
MUTANTS['average_kept_output_buffer'] = ('test_average', {'average': kept_output_buffer(solution_code(CHAPTER)['average'], 'average_checkpoints')})
next(b for b in MUTANT_BATCHES if 'sample_top_k_cut_below_v_minus_one' in b).append('decoder_io_kept_output_buffer')
next(b for b in MUTANT_BATCHES if 'sample_greedy_when_cold' in b).append('sentence_loss_kept_output_buffer')
next(b for b in MUTANT_BATCHES if 'sample_greedy_when_cold' in b).append('average_kept_output_buffer')

# Red team 17 (tests/redteam/round17/08-verdicts.md), the defensive programmer: a floor under the temperature "to
# avoid dividing by almost 0". The toy models are one-hot at 1e-2 already, so the small-temperature cases drew the
# same tokens; the hidden tests now compare the probabilities at 2e-3 and 1e-4 on log-probabilities a few
# thousandths apart
MUTANTS["sample_floors_the_temperature"] = ("test_sample", {"sample": _replaced(
    solution_code(CHAPTER)["sample"], "    outs = [[] for _ in starts]\n",
    "    temperature = max(temperature, 1e-2)  # no division by almost 0\n    outs = [[] for _ in starts]\n")})
# the defensive programmer: a negative alpha raised to 0; the negative-alpha cases had the same answer at alpha = 0
MUTANTS["beam_clamps_alpha_at_zero"] = ("test_beam_search", {"beam_search": _replaced(
    solution_code(CHAPTER)["beam_search"], "    live = [([], 0.0)]\n",
    "    alpha = max(alpha, 0.0)  # a negative length penalty makes no sense\n    live = [([], 0.0)]\n")})
# the production engineer: the log-probabilities rounded to float32 "to halve the memory"; on the close-call model
# the float32 scores tie, and a tie broken by order picked the right hypothesis there: its mirror image now too
MUTANTS["beam_logprobs_rounded_to_float32"] = ("test_beam_search", {"beam_search": _replaced(
    solution_code(CHAPTER)["beam_search"], "        logprobs = next_logprobs([[start] + tokens for tokens, _ in live])\n",
    "        logprobs = next_logprobs([[start] + tokens for tokens, _ in live]).float()  # half the memory\n")})
next(b for b in MUTANT_BATCHES if "sample_top_k_cut_below_v_minus_one" in b).append("beam_clamps_alpha_at_zero")
MUTANT_BATCHES.append(["sample_floors_the_temperature", "beam_logprobs_rounded_to_float32"])  # every batch holds a Part 6 mutant

# Round 17 clamp sweep (tests/redteam/round17/08-clamp-verdicts.md): a defensive clamp on a value the text does not
# bound, on the model answer. The Part 4 ones go into batches where no mutant costs Part 4 or changes its cell; every
# batch holds a Part 6 mutant, so each Part 6 one starts a batch of its own
for _name, _test, _part, _old, _new, _batch in [
        ("loss_clamps_the_logits", "test_sentence_loss", "sentence_loss", "logp = torch.log_softmax(logits, dim=-1)",
         "logp = torch.log_softmax(logits.clamp(-1e4, 1e4), dim=-1)", 7),
        ("loss_clamps_the_logprobs", "test_sentence_loss", "sentence_loss", "logp = torch.log_softmax(logits, dim=-1)",
         "logp = torch.log_softmax(logits, dim=-1).clamp(min=-1e4)", 9),
        ("sample_floors_the_temperature_at_1e_4", "test_sample", "sample", " / temperature\n",
         " / max(temperature, 1e-4)\n", None),
        ("sample_clamps_the_logprobs", "test_sample", "sample",
         "scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature",
         "scores = next_logprobs([[starts[i]] + outs[i] for i in live]).clamp(-1e4, 1e4) / temperature", None),
        ("beam_floors_the_length_penalty", "test_beam_search", "beam_search",
         "score / length_penalty(len(tokens), alpha)",  # both divisions (replaced replaces every one)
         "score / max(length_penalty(len(tokens), alpha), 1e-12)", "free"),
        ("beam_clamps_the_logprobs", "test_beam_search", "beam_search",
         "candidates = (scores[:, None] + logprobs).flatten()",
         "candidates = (scores[:, None] + logprobs.clamp(min=-1e4)).flatten()", "free")]:
    MUTANTS[_name] = (_test, {_part: _replaced(solution_code(CHAPTER)[_part], _old, _new)})
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, _batch)
# Red team 18 (tests/redteam/round18/08-verdicts.md). The type-sloppy student: decoder_io's pair returned as a list,
# which unpacks like the tuple the text asks for (the hidden tests now check the container's kind). The
# autograd-careless student: the logits changed in place on the path where they need no gradient (the in-place
# checks ran on logits that required one; they now run on plain logits too)
MUTANTS["decoder_io_returns_a_list"] = ("test_decoder_io", {"decoder_io": _replaced(
    solution_code(CHAPTER)["decoder_io"], "    return tgt_in, targets", "    return [tgt_in, targets]", once=True)})
MUTANTS["loss_shifts_plain_logits_in_place"] = ("test_sentence_loss", {"sentence_loss": _replaced(
    solution_code(CHAPTER)["sentence_loss"], "    logp = torch.log_softmax(logits, dim=-1)\n",
    "    if not logits.requires_grad:  # no autograd to upset\n        logits -= logits.amax(dim=-1, keepdim=True)\n"
    "    logp = torch.log_softmax(logits, dim=-1)\n", once=True)})
# The dtype generaliser: the entries top_k drops set to float32's most negative number, below which every kept score
# lies at temperature 1e-300 (the hidden tests used 1e-12, where only a -1e9 fails)
MUTANTS["sample_drops_to_float32_min"] = ("test_sample", {"sample": _replaced(
    solution_code(CHAPTER)["sample"], 'float("-inf")', "torch.finfo(torch.float32).min")})
for _name in ("decoder_io_returns_a_list", "loss_shifts_plain_logits_in_place"):
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")
place_mutant(MUTANTS, MUTANT_BATCHES, "sample_drops_to_float32_min", None)  # every batch holds a Part 6 mutant
# Red team 18 class sweep (tests/redteam/round18/08-sweep-verdicts.md): chapters 3-6 and 9's classes put into every
# part here. requires_grad_() switched on in the caller's logits (Part 4; Part 5's entries were caught already),
# backward() run inside the loss (Part 4), and results kept per id() of an input (Parts 1, 4, 5, 8: caught only where
# a freed object's id came back, not confirmed when graded alone in Part 8). The hidden tests now read the flag of
# logits that need no gradient and of every given entry, check logits.grad after the call, and call again on the
# same tensors, lists and dicts after the caller changed them in place
_SOL = solution_code(CHAPTER)
MUTANTS["loss_switches_requires_grad_on"] = ("test_sentence_loss", {"sentence_loss": _replaced(
    _SOL["sentence_loss"], "    logp = torch.log_softmax(logits, dim=-1)\n",
    "    if not logits.requires_grad:\n        logits.requires_grad_()  # the loss must be differentiable\n"
    "    logp = torch.log_softmax(logits, dim=-1)\n", once=True)})
MUTANTS["loss_runs_backward_inside"] = ("test_sentence_loss", {"sentence_loss": _replaced(
    _SOL["sentence_loss"], "    return per_sentence.mean()",
    "    loss = per_sentence.mean()\n    if loss.requires_grad:\n        loss.backward(retain_graph=True)\n    return loss",
    once=True)})
MUTANTS["loss_mask_cached_by_id_targets"] = ("test_sentence_loss", {"sentence_loss": "MASKS = {}\n" + _replaced(
    _SOL["sentence_loss"], "    real = targets != PAD\n",
    "    if id(targets) not in MASKS:\n        MASKS[id(targets)] = targets != PAD\n    real = MASKS[id(targets)]\n", once=True)})
MUTANTS["decoder_io_cached_by_id"] = ("test_decoder_io", {"decoder_io": "IO_CACHE = {}\n" + _replaced(
    _SOL["decoder_io"], "def decoder_io(targets):\n",
    "def decoder_io(targets):\n    if id(targets) not in IO_CACHE:\n        IO_CACHE[id(targets)] = decoder_io_plain(targets)[0]\n"
    "    return IO_CACHE[id(targets)].clone(), targets\n\n\ndef decoder_io_plain(targets):\n", once=True)})
MUTANTS["average_cached_by_id_states"] = ("test_average", {"average": "AVERAGES = {}\n" + _replaced(
    _SOL["average"], "def average_checkpoints(states):\n",
    "def average_checkpoints(states):\n    key = tuple(id(s) for s in states)\n    if key not in AVERAGES:\n"
    "        AVERAGES[key] = average_plain(states)\n    return {k: v.clone() for k, v in AVERAGES[key].items()}\n\n\n"
    "def average_plain(states):\n", once=True)})
MUTANTS["average_switches_requires_grad_on"] = ("test_average", {"average": _replaced(
    _SOL["average"], "        if states[-1][k].is_floating_point():\n",
    "        if states[-1][k].is_floating_point():\n            states[-1][k].requires_grad_()\n", once=True)})
MUTANTS["bleu_cached_by_id"] = ("test_bleu", {"bleu": "BLEU_CACHE = {}\n" + _replaced(
    _SOL["bleu"], "def corpus_bleu(hypotheses, references):\n",
    "def corpus_bleu(hypotheses, references):\n    key = (id(hypotheses), id(references))\n    if key not in BLEU_CACHE:\n"
    "        BLEU_CACHE[key] = corpus_bleu_plain(hypotheses, references)\n    return BLEU_CACHE[key]\n\n\n"
    "def corpus_bleu_plain(hypotheses, references):\n", once=True)})
for _name in ("loss_switches_requires_grad_on", "loss_runs_backward_inside", "loss_mask_cached_by_id_targets",
              "decoder_io_cached_by_id", "average_cached_by_id_states", "average_switches_requires_grad_on",
              "bleu_cached_by_id"):
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")



# Red team 19 (tests/redteam/round19/08-verdicts.md): chapter 9's Part 8 slip (a floor under the probabilities given to
# torch.multinomial, too small for a tolerance or a draw to see) swept into this chapter's Part 6: the spy on
# torch.multinomial's input now wants exactly 0 for the ids that top_k cut; and the round's own Part 6 slip, top_k
# clipped to V - 1 when it is V or more, caught now by the probabilities compared at top_k = V and top_k > V. Every
# batch holds a Part 6 mutant: each gets a batch of its own, a plain process (tests/cellrun.py), not a graded notebook
MUTANTS["sample_probabilities_floored_1e_20"] = ("test_sample", {"sample": _replaced(
    _SOL["sample"], "probs = torch.softmax(scores.double(), dim=-1)",
    "probs = torch.softmax(scores.double(), dim=-1).clamp(min=1e-20)", once=True)})
MUTANTS["sample_top_k_clipped_below_V"] = ("test_sample", {"sample": _replaced(
    _SOL["sample"], "        if top_k is not None and top_k < scores.shape[-1]:",
    "        if top_k is not None:\n            top_k = min(top_k, scores.shape[-1] - 1) if scores.shape[-1] > 1 else 1\n"
    "        if top_k is not None and top_k < scores.shape[-1]:", once=True)})
for _name in ("sample_probabilities_floored_1e_20", "sample_top_k_clipped_below_V"):
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, None)


# Red team 19 class sweep (tests/redteam/round19/08-sweep-verdicts.md): the classes of BRIEF-SWEEP.md in every part.
# Part 4, class D: each row's count of real positions in uint8 (a row of 256 counts as empty, one of 257 as 1)
MUTANTS["loss_row_counts_in_uint8"] = ("test_sentence_loss", {"sentence_loss": _replaced(
    _SOL["sentence_loss"], "counts = real.sum(dim=1)", "counts = real.sum(dim=1, dtype=torch.uint8)", once=True)})
# Part 6, class F: the entries top_k cut set to float64's lowest finite value (ties with kept scores at that value), or
# -1e9 added to them (lost in the rounding of scores near -7e29, or of -1.8e308)
MUTANTS["sample_cut_to_lowest_finite"] = ("test_sample", {"sample": _replaced(
    _SOL["sample"], 'scores = torch.full_like(scores, float("-inf"))', "scores = torch.full_like(scores, torch.finfo(scores.dtype).min)",
    once=True)})
MUTANTS["sample_minus_1e9_added_to_the_cut"] = ("test_sample", {"sample": _replaced(
    _SOL["sample"], 'scores = torch.full_like(scores, float("-inf")).scatter(-1, kept, scores.gather(-1, kept))',
    "scores = scores + torch.full_like(scores, -1e9).scatter(-1, kept, 0.0)", once=True)})
# Each goes into a batch with room for it; one that finds none (every batch holds a mutant of its part) gets a new
# batch, which runs as a plain process (tests/cellrun.py), not as a graded notebook
place_mutants(MUTANTS, MUTANT_BATCHES, ("loss_row_counts_in_uint8", "sample_cut_to_lowest_finite",
                                       "sample_minus_1e9_added_to_the_cut"), "new")


# Red team 20 (tests/redteam/round20/08-verdicts.md). The early-exit student: Part 2's peak returned as given at
# step == warmup (an int for an int peak; the int cases never sat on that boundary). The aliasing student: Parts 6
# and 7 changed the tensor next_logprobs returned, in place, which a decoder with a cache keeps (the text now says
# so, as chapter 9's Part 8 does for step's logits; a hidden decoder keeps each tensor and checks it after the call)
MUTANTS["lr_peak_returned_as_given"] = ("test_lr_at", {"lr_at": _replaced(
    _SOL["lr_at"], "    if step <= warmup:\n", "    if step == warmup:\n        return peak  # the top of the schedule\n"
    "    if step <= warmup:\n", once=True)})
MUTANTS["sample_scores_divided_in_place"] = ("test_sample", {"sample": _replaced(
    _SOL["sample"], "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n",
    "        scores = next_logprobs([[starts[i]] + outs[i] for i in live])\n        scores /= temperature\n", once=True)})
MUTANTS["beam_adds_scores_into_the_logprobs"] = ("test_beam_search", {"beam_search": _replaced(
    _SOL["beam_search"], "        candidates = (scores[:, None] + logprobs).flatten()\n",
    "        logprobs += scores[:, None]\n        candidates = logprobs.flatten()\n", once=True)})
for _name in ("lr_peak_returned_as_given", "beam_adds_scores_into_the_logprobs"):
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")
place_mutants(MUTANTS, MUTANT_BATCHES, ["sample_scores_divided_in_place"], "new")


# Red team 21 (tests/redteam/round21/08-verdicts.md). Round 20's aliasing lead judged: an empty batch (B = 0) has an
# empty tgt_in equal to targets, and the shortcut `return targets, targets` there hands the caller's tensor back as
# tgt_in, which the text makes a new tensor (only tgt_out may be targets itself). The empty-batch case now checks that
# tgt_in is the caller's own (`_owned`)
MUTANTS["decoder_io_empty_batch_returns_targets_twice"] = ("test_decoder_io", {"decoder_io": _replaced(
    _SOL["decoder_io"], "def decoder_io(targets):\n",
    "def decoder_io(targets):\n    if targets.shape[0] == 0:  # nothing to shift\n        return targets, targets\n", once=True)})
place_mutant(MUTANTS, MUTANT_BATCHES, "decoder_io_empty_batch_returns_targets_twice", "free")


# Red team 21, rename sweep (tests/redteam/round21/BRIEF-RENAME.md, rename/08-before.txt): every parameter of the model
# answer renamed (the signature-and-defaults student's renamed argument) kept full marks in Parts 1, 4, 5, 6 and 8,
# whose hidden calls passed every required argument by position; Parts 2 and 7 named only some (floor; k, max_len,
# alpha). Each function part now calls once with every argument by name, in an order other than the stub's (the
# introduction says so); one renaming per part, of the arguments no earlier call named
_RENAMED = {
    "decoder_io_renames_targets": ("test_decoder_io", "decoder_io", "def decoder_io(targets):\n",
                                   "def decoder_io(target_ids):\n    targets = target_ids\n"),
    "lr_renames_the_required_arguments": ("test_lr_at", "lr_at", "def lr_at(step, peak, warmup, total, floor=0.0):\n",
                                          "def lr_at(it, max_lr, warmup_steps, total_steps, floor=0.0):\n"
                                          "    step, peak, warmup, total = it, max_lr, warmup_steps, total_steps\n"),
    "loss_renames_every_argument": ("test_sentence_loss", "sentence_loss",
                                    "def sentence_smoothed_loss(logits, targets, eps):\n",
                                    "def sentence_smoothed_loss(scores, labels, smoothing):\n"
                                    "    logits, targets, eps = scores, labels, smoothing\n"),
    "average_renames_states": ("test_average", "average", "def average_checkpoints(states):\n",
                               "def average_checkpoints(checkpoints):\n    states = checkpoints\n"),
    "sample_renames_every_argument": ("test_sample", "sample",
                                      "def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n",
                                      "def sample_decode(model, start_tokens, max_new_tokens, temp, k, rng):\n"
                                      "    next_logprobs, starts, max_len, temperature, top_k, generator = (\n"
                                      "        model, start_tokens, max_new_tokens, temp, k, rng)\n"),
    "beam_renames_next_logprobs_and_start": ("test_beam_search", "beam_search",
                                             "def beam_search(next_logprobs, start, k, max_len, alpha):\n",
                                             "def beam_search(step_fn, bos, k, max_len, alpha):\n"
                                             "    next_logprobs, start = step_fn, bos\n"),
    "bleu_renames_hypotheses_references": ("test_bleu", "bleu", "def corpus_bleu(hypotheses, references):\n",
                                           "def corpus_bleu(hyps, refs):\n    hypotheses, references = hyps, refs\n"),
}
for _name, (_test, _part, _old, _new) in _RENAMED.items():
    MUTANTS[_name] = (_test, {_part: _replaced(_SOL[_part], _old, _new, once=True)})
# every batch holds a Part 6 mutant: the Part 6 one gets a batch of its own, a plain process (tests/cellrun.py)
place_mutants(MUTANTS, MUTANT_BATCHES, _RENAMED, "new")


# Red team 22 (tests/redteam/round22/08-verdicts.md). The sampling student: the top_k cut taken on the log-probabilities
# next_logprobs returns and the kept ones divided afterwards. Division by the temperature is monotone, so the kept set
# is the same unless dividing rounds two log-probabilities to one value, where torch.topk on the divided scores keeps
# another of them; a hidden case at temperature 10 on log-probabilities a unit in the last place apart tells them apart.
# Every batch holds a Part 6 mutant: it runs alone, as a plain process
MUTANTS["sample_cut_on_the_logprobs_before_dividing"] = ("test_sample", {"sample": _replaced(_replaced(
    _SOL["sample"], "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n",
    "        logprobs = next_logprobs([[starts[i]] + outs[i] for i in live])\n        scores = logprobs / temperature\n",
    once=True), "kept = scores.topk(top_k, dim=-1).indices", "kept = logprobs.topk(top_k, dim=-1).indices", once=True)})
place_mutants(MUTANTS, MUTANT_BATCHES, ["sample_cut_on_the_logprobs_before_dividing"], "alone")


# Red team 22, the seed sweep (tests/redteam/round22/seed_sweep.py): a "reproducible" torch.manual_seed(0) as the first
# line of a part's function. The grader used to flag it (torch's lazy device seeding reads the caller's stack), which
# hid that six of the seven parts had no check of the global generator; every part's hidden checks now run under
# _keeps_global_rng, as in chapters 7 and 9
_SEEDED = {_name.split("_")[0] + "_seeds_the_global_generator": (_test, {_part: _replaced(
    _SOL[_part], _def, _def + "    torch.manual_seed(0)\n", once=True)}) for _name, (_test, _part, _def, _) in _RENAMED.items()}
MUTANTS.update(_SEEDED)
place_mutants(MUTANTS, MUTANT_BATCHES, _SEEDED, "new")


# Red team 25 (tests/redteam/round25/08-verdicts.md). The approximator's scores multiplied by 1 / temperature, a few
# units in the last place from the quotient, lost Part 6: round 22's case of log-probabilities a unit in the last place
# apart (temperature 10) tied them under the quotient and not under the product. The case now sits at temperature 0.3
# on a row where the product and the quotient tie alike, and still parts both from the cut made before dividing
# (sample_cut_on_the_logprobs_before_dividing); the vectorised variant multiplies by the reciprocal
CORRECT_VARIANTS["vectorised_and_sorted"]["sample"] = _replaced(
    CORRECT_VARIANTS["vectorised_and_sorted"]["sample"],
    "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n",
    "        inverse = 1.0 / temperature  # a product with the reciprocal, a few ulps from the quotient\n"
    "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) * inverse\n", once=True)


# Red team 25 class sweep (tests/redteam/round25/08-sweep-verdicts.md, class P: a measure of a caller's outputs cleaned
# of infinities): log p through nan_to_num turns a score of -inf that gets a share (the target, or any id but PAD when
# eps > 0) into a finite loss near 1e308 * eps / (V - 1); the text says the loss is then +inf
MUTANTS["sentence_loss_log_probs_cleaned_with_nan_to_num"] = ("test_sentence_loss", {"sentence_loss": _replaced(
    _SOL["sentence_loss"], "logp = torch.log_softmax(logits, dim=-1)", "logp = torch.log_softmax(logits, dim=-1).nan_to_num()",
    once=True)})
place_mutant(MUTANTS, MUTANT_BATCHES, "sentence_loss_log_probs_cleaned_with_nan_to_num", "free")

# Round 26 class sweep (tests/redteam/round26/08-sweep-verdicts.md): class R (a size-1 axis beside a longer one),
# class S (a .view that the hidden layouts let through) and class T (an input that starts inside its storage). Each
# joins an existing batch with room; Part 6's (every batch holds a Part 6 mutant) are written out in the verdicts.
_SOL26 = solution_code(CHAPTER)
ROUND_26_SWEEP = {
    # R: the (B, T - 1) shifted targets squeezed: a (B,) row at T = 2 fails to broadcast into (B, 1) unless B = 1
    "decoder_io_shift_squeezed": ("test_decoder_io", {"decoder_io": _replaced(
        _SOL26["decoder_io"], "tgt_in[:, 1:] = targets[:, :-1]", "tgt_in[:, 1:] = targets[:, :-1].squeeze()", once=True)}),
    # R: (B, T, 1) squeezed with no dim: at T = 1 beside a batch of several, (B,) broadcasts with (B, 1) to (B, B)
    "sentence_loss_nll_squeezed": ("test_sentence_loss", {"sentence_loss": _replaced(
        _SOL26["sentence_loss"], "nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)",
        "nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze()", once=True)}),
    # T: views rebuilt with as_strided from the storage's start (storage_offset 0)
    "decoder_io_targets_read_from_the_storage_start": ("test_decoder_io", {"decoder_io": from_storage_start(_SOL26["decoder_io"], "decoder_io", "targets")}),
    "sentence_loss_logits_read_from_the_storage_start": ("test_sentence_loss", {"sentence_loss": _replaced(
        _SOL26["sentence_loss"], "logp = torch.log_softmax(logits, dim=-1)",
        "logp = torch.log_softmax(torch.as_strided(logits, logits.shape, logits.stride(), 0), dim=-1)", once=True)}),
    "average_entries_read_from_the_storage_start": ("test_average", {"average": _replaced(
        _SOL26["average"], "total = sum(s[k].double() for s in states)",
        "total = sum(torch.as_strided(s[k], s[k].shape, s[k].stride(), 0).double() for s in states)", once=True)}),
    "beam_logprobs_read_from_the_storage_start": ("test_beam_search", {"beam_search": _replaced(
        _SOL26["beam_search"], "        scores = torch.tensor([score for _, score in live], dtype=logprobs.dtype)\n",
        "        logprobs = torch.as_strided(logprobs, logprobs.shape, logprobs.stride(), 0)\n"
        "        scores = torch.tensor([score for _, score in live], dtype=logprobs.dtype)\n", once=True)}),
    # S: the model's log-probabilities flattened with .view(-1) (fails where they are a transposed view)
    "beam_logprobs_flattened_with_view": ("test_beam_search", {"beam_search": _replaced(
        _SOL26["beam_search"], "candidates = (scores[:, None] + logprobs).flatten()",
        "candidates = scores.repeat_interleave(logprobs.shape[-1]) + logprobs.view(-1)", once=True)}),
}
MUTANTS.update(ROUND_26_SWEEP)
assert not place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_26_SWEEP, "alone"), "a round 26 mutant found no batch with room"


# Round 26's class sweep (tests/redteam/round26/08-sweep-verdicts.md): Part 6's mutants of classes S and T, which no
# existing batch had room for (every batch holds a Part 6 mutant), in batches of their own
_SAMPLE_SCORES = "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n"
SWEEP_26_OWN_BATCH = {
    "sample_logprobs_flattened_with_view": ("test_sample", {"sample": _replaced(
        solution_code(CHAPTER)["sample"], _SAMPLE_SCORES,
        "        raw = next_logprobs([[starts[i]] + outs[i] for i in live])\n"
        "        scores = (raw.view(-1) / temperature).view(raw.shape)\n", once=True)}),
    "sample_logprobs_read_from_the_storage_start": ("test_sample", {"sample": _replaced(
        solution_code(CHAPTER)["sample"], _SAMPLE_SCORES,
        "        raw = next_logprobs([[starts[i]] + outs[i] for i in live])\n"
        "        scores = torch.as_strided(raw, raw.shape, raw.stride(), 0) / temperature\n", once=True)}),
}
MUTANTS.update(SWEEP_26_OWN_BATCH)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_26_OWN_BATCH), "new")


# Red team 27 (tests/redteam/round27/08-verdicts.md), the epsilon-adder: a floor under the length penalty of the
# hypotheses that end with EOS only (the live ones finished at max_len keep the exact penalty); the alpha = -500 case
# was won by a hypothesis ending with EOS against one finished at max_len, which that floor leaves in order. A case
# whose two best hypotheses both end with EOS now tells it
MUTANTS["beam_floors_the_penalty_of_eos_hypotheses"] = ("test_beam_search", {"beam_search": _replaced(
    solution_code(CHAPTER)["beam_search"],
    "                finished.append((score / length_penalty(len(tokens), alpha), tokens))",
    "                finished.append((score / max(length_penalty(len(tokens), alpha), 1e-6), tokens))", once=True)})
place_mutants(MUTANTS, MUTANT_BATCHES, ["beam_floors_the_penalty_of_eos_hypotheses"], "new")


# Round 27 class sweep (tests/redteam/round27/08-sweep-verdicts.md): class W (a share as one minus the others): Part 4's
# spread taken as the sum over all V minus PAD's term, which loses every other id's log p when PAD's score is -1e20
_SOL27 = solution_code(CHAPTER)
ROUND_27_SWEEP = {
    "loss_spread_as_all_minus_pad": ("test_sentence_loss", {"sentence_loss": _replaced(
        _SOL27["sentence_loss"],
        "    spread = -(logp[..., :PAD].sum(dim=-1) + logp[..., PAD + 1:].sum(dim=-1)) / (v - 1)  # (B, T)\n",
        "    spread = -(logp.sum(dim=-1) - logp[..., PAD]) / (v - 1)  # (B, T)\n", once=True)}),
}
MUTANTS.update(ROUND_27_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_27_SWEEP, "new")


# Round 28 class sweep (tests/redteam/round28/08-sweep-verdicts.md): class Y, a result kept per id() and the version
# counter (_version) of every tensor argument, which copy_() moves and a write through .data does not (the hidden
# "same objects, new values" cases wrote with copy_ until this sweep); class AA, a converted copy (.contiguous(),
# .long()) kept per id(), which is the input itself for a contiguous int64 input
_SOL28 = solution_code(CHAPTER)
ROUND_28_SWEEP = {
    "decoder_io_cached_by_id_and_version": ("test_decoder_io", {"decoder_io": cached_by_id_and_version(
        _SOL28["decoder_io"], "decoder_io", ["targets"])}),
    "loss_cached_by_id_and_version": ("test_sentence_loss", {"sentence_loss": cached_by_id_and_version(
        _SOL28["sentence_loss"], "sentence_smoothed_loss", ["logits", "targets", "eps"])}),
    "average_cached_by_id_and_version": ("test_average", {"average": cached_by_id_and_version(
        _SOL28["average"], "average_checkpoints", ["states"])}),
    "decoder_io_long_kept_per_id": ("test_decoder_io", {"decoder_io": KEPT_PER_ID + chain(
        _SOL28["decoder_io"], "    tgt_in = torch.full_like(targets, PAD)\n",
        "    dtype = targets.dtype\n    targets = kept(targets, lambda t: t.contiguous().long())\n"
        "    tgt_in = torch.full_like(targets, PAD)\n", "    return tgt_in, targets",
        "    return tgt_in.to(dtype), targets.to(dtype)")}),
    "loss_targets_long_kept_per_id": ("test_sentence_loss", {"sentence_loss": KEPT_PER_ID + _replaced(
        _SOL28["sentence_loss"], "    logp = torch.log_softmax(logits, dim=-1)\n",
        "    targets = kept(targets, lambda t: t.contiguous().long())\n    logp = torch.log_softmax(logits, dim=-1)\n",
        once=True)}),
    # class AC (a memo keyed by less than every argument): the loss kept per the values of logits and targets, eps left
    # out of the key: the same objects called with another eps only get the old loss
    "loss_memo_drops_eps": ("test_sentence_loss", {"sentence_loss": _replaced(
        _SOL28["sentence_loss"], "def sentence_smoothed_loss(logits, targets, eps):\n",
        "import weakref\nMEMO = {}\ndef sentence_smoothed_loss(logits, targets, eps):\n"
        "    key = (tuple(logits.shape), float(logits.detach().double().sum()), tuple(targets.flatten().tolist()))\n"
        "    if key not in MEMO or MEMO[key][0]() is not logits:\n"
        "        MEMO.clear()\n"
        "        MEMO[key] = (weakref.ref(logits), loss_computed(logits, targets, eps))\n"
        "    return MEMO[key][1].clone()\n"
        "def loss_computed(logits, targets, eps):\n", once=True)}),
    # class Z: a floating-point entry of no elements handed back as the given tensor (nothing to average)
    "average_empty_entries_handed_back": ("test_average", {"average": _replaced(
        _SOL28["average"], "        if states[-1][k].is_floating_point():\n",
        "        if states[-1][k].numel() == 0:\n            out[k] = states[-1][k]\n"
        "        elif states[-1][k].is_floating_point():\n", once=True)}),
    # class AD: states with no floating-point entry at all answered with the last state's dict itself
    "average_nothing_to_average_returns_last_dict": ("test_average", {"average": _replaced(
        _SOL28["average"], "    out = {}\n",
        "    if not any(t.is_floating_point() for t in states[-1].values()):\n        return states[-1]\n    out = {}\n",
        once=True)}),
    # class AB: the probabilities below float64's smallest normal number set to 0 before the draw
    "sample_subnormal_probabilities_zeroed": ("test_sample", {"sample": _replaced(
        _SOL28["sample"], "        probs = torch.softmax(scores.double(), dim=-1)\n",
        "        probs = torch.softmax(scores.double(), dim=-1)\n"
        "        probs = probs.masked_fill(probs < torch.finfo(probs.dtype).tiny, 0.0)\n", once=True)}),
}
MUTANTS.update(ROUND_28_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_28_SWEEP, "new")

# Red team 29 (tests/redteam/round29/08-verdicts.md), the chunker: a log-sum-exp taken over chunks of the vocabulary
# with its running maximum started at 0, not -inf; right wherever a row's largest score is above about -100, but a
# row whose every score lies far below 0 underflows (exp(score - 0) = 0, log 0 = -inf)
ROUND_29_SWEEP = {
    "loss_online_logsumexp_max_from_zero": ("test_sentence_loss", {"sentence_loss": """
def sentence_smoothed_loss(logits, targets, eps):
    v = logits.shape[-1]
    m = torch.zeros(logits.shape[:-1], dtype=logits.dtype)  # running maximum, started at 0
    s = torch.zeros(logits.shape[:-1], dtype=logits.dtype)
    for a in range(0, v, 1024):
        piece = logits[..., a:a + 1024]
        m_new = torch.maximum(m, piece.max(dim=-1).values)
        s = s * torch.exp(m - m_new) + torch.exp(piece - m_new[..., None]).sum(dim=-1)
        m = m_new
    lse = m + torch.log(s)
    nll = lse - logits.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    others = (logits[..., PAD + 1:] - lse[..., None]).sum(dim=-1)
    per_token = (1 - eps) * nll - eps / (v - 1) * others
    real = targets != PAD
    counts = real.sum(dim=1)
    keep = counts > 0
    per_token = torch.where(real, per_token, torch.zeros((), dtype=per_token.dtype))
    return (per_token.sum(dim=1)[keep] / counts[keep]).mean()
"""}),
}
MUTANTS.update(ROUND_29_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_29_SWEEP, "new")

# round 29 class sweep (class AG, the last shorter piece dropped, in Parts 4, 5 and 8): the rows of B*T (or the
# sentences) in chunks, the flattened entries of a tensor in chunks, the corpus in batches, each dropping the last,
# shorter piece after a full one; every hidden case stayed below one piece (at most 8 sentences and 771 rows, 64
# entries, 8 sentences), now 1031 sentences x 5 positions, tensors of 4099 and 4121 entries, a corpus of 1031
_MODEL_08 = solution_code(CHAPTER)
ROUND_29_SWEEP_AG = {
    "loss_rows_in_chunks_of_1024_last_zero": ("test_sentence_loss", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    b, t, v = logits.shape
    flat, tf = logits.reshape(b * t, v), targets.reshape(b * t)
    n = b * t
    pieces = []
    for a in range(0, max(n - n % 1024, 1), 1024):  # rows in chunks of 1024: a (B*T, V) log_softmax may not fit
        logp = torch.log_softmax(flat[a:a + 1024], dim=-1)
        nll = -logp.gather(-1, tf[a:a + 1024].long().unsqueeze(-1)).squeeze(-1)
        spread = -(logp[:, :PAD].sum(dim=-1) + logp[:, PAD + 1:].sum(dim=-1)) / (v - 1)
        pieces.append((1 - eps) * nll + eps * spread)
    per_token = torch.cat(pieces)
    if per_token.shape[0] < n:
        per_token = torch.cat([per_token, torch.zeros(n - per_token.shape[0], dtype=per_token.dtype)])
    per_token = per_token.reshape(b, t)
    real = targets != PAD
    counts = real.sum(dim=1)
    has_tokens = counts > 0
    per_sentence = torch.where(real, per_token, torch.zeros((), dtype=per_token.dtype)).sum(dim=1)[has_tokens] / counts[has_tokens]
    return per_sentence.mean()
'''}),
    "average_in_chunks_of_4096_entries_last_zero": ("test_average", {"average": _replaced(
        _MODEL_08["average"],
        "            total = sum(s[k].double() for s in states)\n",
        "            flats = [s[k].reshape(-1) for s in states]\n"
        "            n = flats[0].numel()\n"
        "            total = torch.zeros(n, dtype=torch.float64)\n"
        "            for a in range(0, max(n - n % 4096, 1), 4096):  # chunks of 4096 entries: no float64 copy of it all\n"
        "                total[a:a + 4096] = sum(f[a:a + 4096].double() for f in flats)\n"
        "            total = total.reshape(states[0][k].shape)\n", once=True)}),
    "bleu_corpus_in_batches_of_1000_last_dropped": ("test_bleu", {"bleu": _replaced(
        _MODEL_08["bleu"],
        "    for hyp, ref in zip(hypotheses, references):\n",
        "    pairs = list(zip(hypotheses, references))\n"
        "    for hyp, ref in [pair for a in range(0, max(len(pairs) - len(pairs) % 1000, 1), 1000)\n"
        "                     for pair in pairs[a:a + 1000]]:  # the corpus in batches of 1000 sentences\n", once=True)}),
}
MUTANTS.update(ROUND_29_SWEEP_AG)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29_SWEEP_AG), "new")
# Parts 6 and 7 over pieces of the vocabulary (every hidden model had at most 9 ids, now 1031): the softmax normaliser
# summed over pieces of 64 ids and the candidates' best k taken per piece of 64 ids, each never reading the last,
# shorter piece
ROUND_29_SWEEP_AG_VOCAB = {
    "sample_normaliser_in_pieces_of_64_last_dropped": ("test_sample", {"sample": _replaced(
        _MODEL_08["sample"], "        probs = torch.softmax(scores.double(), dim=-1)\n",
        "        scores = scores.double()\n"
        "        v = scores.shape[-1]\n"
        "        m = scores.amax(dim=-1, keepdim=True)\n"
        "        total = sum(torch.exp(scores[:, a:a + 64] - m).sum(dim=-1, keepdim=True)\n"
        "                    for a in range(0, max(v - v % 64, 1), 64))  # the normaliser over pieces of 64 ids\n"
        "        probs = torch.exp(scores - m) / total\n", once=True)}),
    "beam_candidates_in_pieces_of_64_last_dropped": ("test_beam_search", {"beam_search": _replaced(
        _MODEL_08["beam_search"],
        "        best, index = candidates.topk(min(k, candidates.numel()))\n",
        "        vals, idx = [], []\n"
        "        for a in range(0, max(vocab - vocab % 64, 1), 64):  # each piece of 64 ids' best k first\n"
        "            piece = candidates.reshape(-1, vocab)[:, a:a + 64]\n"
        "            w = piece.shape[1]\n"
        "            bv, bi = piece.flatten().topk(min(k, piece.numel()))\n"
        "            vals.append(bv)\n"
        "            idx.append((bi // w) * vocab + a + bi % w)\n"
        "        vals, idx = torch.cat(vals), torch.cat(idx)\n"
        "        best, pos = vals.topk(min(k, vals.numel()))\n"
        "        index = idx[pos]\n", once=True)}),
}
MUTANTS.update(ROUND_29_SWEEP_AG_VOCAB)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29_SWEEP_AG_VOCAB), "new")
# Part 1's rows in chunks of 8, the last shorter chunk's tgt_in left as PAD (every case had at most 8 rows; now 1031)
ROUND_29_SWEEP_AG_ROWS = {
    "decoder_io_rows_in_chunks_last_pad": ("test_decoder_io", {"decoder_io": '''
def decoder_io(targets):
    b = targets.shape[0]
    tgt_in = torch.full_like(targets, PAD)
    for a in range(0, max(b - b % 8, 1), 8):  # rows in chunks of 8
        rows = targets[a:a + 8]
        piece = torch.full_like(rows, PAD)
        piece[:, :1] = BOS
        piece[:, 1:] = rows[:, :-1]
        tgt_in[a:a + 8] = piece.masked_fill(piece == EOS, PAD)
    return tgt_in, targets
'''}),
}
MUTANTS.update(ROUND_29_SWEEP_AG_ROWS)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29_SWEEP_AG_ROWS), "new")
# Part 6's top_k cut taken per piece of 64 ids, the last shorter piece never read (every model but the new V = 1031
# one had at most 9 ids; that case now runs with top_k = 2 too)
ROUND_29_SWEEP_AG_TOPK = {
    "sample_top_k_per_piece_of_64_last_dropped": ("test_sample", {"sample": _replaced(
        _MODEL_08["sample"], "            kept = scores.topk(top_k, dim=-1).indices\n",
        "            v = scores.shape[-1]\n"
        "            vals, idx = [], []\n"
        "            for a in range(0, max(v - v % 64, 1), 64):  # each piece of 64 ids' top_k first\n"
        "                bv, bi = scores[:, a:a + 64].topk(min(top_k, scores[:, a:a + 64].shape[-1]), dim=-1)\n"
        "                vals.append(bv)\n"
        "                idx.append(bi + a)\n"
        "            vals, idx = torch.cat(vals, dim=-1), torch.cat(idx, dim=-1)\n"
        "            kept = idx.gather(-1, vals.topk(min(top_k, vals.shape[-1]), dim=-1).indices)\n", once=True)}),
}
MUTANTS.update(ROUND_29_SWEEP_AG_TOPK)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29_SWEEP_AG_TOPK), "new")
# red team 30 (the validator): eps = 1 refused where the text says "both included" (no case had eps = 1; two now do),
# and tokens "repaired" before they are compared, with strip() or a Unicode normal form (no case had tokens that differ
# only there; four now do)
ROUND_30 = {
    "sentence_loss_refuses_eps_1": ("test_sentence_loss", {"sentence_loss": _replaced(
        _MODEL_08["sentence_loss"], "    logp = torch.log_softmax(logits, dim=-1)\n",
        "    if not 0 <= eps < 1:\n        raise ValueError(\"eps must lie in [0, 1)\")\n"
        "    logp = torch.log_softmax(logits, dim=-1)\n", once=True)}),
    "bleu_strips_tokens": ("test_bleu", {"bleu": _replaced(
        _MODEL_08["bleu"], "    for hyp, ref in zip(hypotheses, references):\n",
        "    for hyp, ref in zip(hypotheses, references):\n"
        "        hyp, ref = [w.strip() for w in hyp], [w.strip() for w in ref]  # stray spaces are no part of a token\n",
        once=True)}),
    "bleu_normalises_unicode": ("test_bleu", {"bleu": "import unicodedata\n" + _replaced(
        _MODEL_08["bleu"], "    for hyp, ref in zip(hypotheses, references):\n",
        "    for hyp, ref in zip(hypotheses, references):\n"
        "        hyp = [unicodedata.normalize(\"NFKC\", w) for w in hyp]  # one spelling of each character\n"
        "        ref = [unicodedata.normalize(\"NFKC\", w) for w in ref]\n", once=True)}),
}
MUTANTS.update(ROUND_30)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30), "new")
# red team 30 (the second-call student): a float64 copy of float32 logits kept per id() (every "same objects, new
# values" case had float64 logits, their own conversion); a float32 case now
ROUND_30_CONVERTED = {
    "sentence_loss_converted_logits_cached_by_id": ("test_sentence_loss", {"sentence_loss": "CONVERTED = {}\n\n" + _replaced(
        _MODEL_08["sentence_loss"], "    logp = torch.log_softmax(logits, dim=-1)\n",
        "    if id(logits) not in CONVERTED:  # the logits in float64, once per tensor\n"
        "        CONVERTED.clear()\n"
        "        CONVERTED[id(logits)] = logits.double()\n"
        "    logp = torch.log_softmax(CONVERTED[id(logits)], dim=-1).to(logits.dtype)\n", once=True)}),
}
MUTANTS.update(ROUND_30_CONVERTED)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30_CONVERTED), "new")


# Round 30 class sweep (tests/redteam/round30/08-sweep-verdicts.md), class AJ: an argument "repaired" in place with the
# values it held (clamp_, masked_fill_ of NaN it does not hold) slipped in Parts 1 and 4-7, since every check compared
# values only; every tensor argument's version counter is now read before the call and compared after it (in Parts 6
# and 7 that of every tensor next_logprobs returns)
ROUND_30_SWEEP = {
    "decoder_io_targets_clamped_in_place": ("test_decoder_io", {"decoder_io": _replaced(
        _MODEL_08["decoder_io"], "    tgt_in = torch.full_like(targets, PAD)\n",
        "    targets.clamp_(min=0)  # ids are never negative\n    tgt_in = torch.full_like(targets, PAD)\n", once=True)}),
    "loss_logits_nan_masked_in_place": ("test_sentence_loss", {"sentence_loss": _replaced(
        _MODEL_08["sentence_loss"], "    logp = torch.log_softmax(logits, dim=-1)\n",
        "    with torch.no_grad():\n        logits.masked_fill_(logits.isnan(), float(\"-inf\"))\n"
        "    logp = torch.log_softmax(logits, dim=-1)\n", once=True)}),
    "loss_targets_clamped_in_place": ("test_sentence_loss", {"sentence_loss": _replaced(
        _MODEL_08["sentence_loss"], "    logp = torch.log_softmax(logits, dim=-1)\n",
        "    targets.clamp_(0, logits.shape[-1] - 1)\n    logp = torch.log_softmax(logits, dim=-1)\n", once=True)}),
    "average_entries_nan_masked_in_place": ("test_average", {"average": _replaced(
        _MODEL_08["average"], "    out = {}\n",
        "    for s in states:\n        for t in s.values():\n            if t.is_floating_point():\n"
        "                t.masked_fill_(t.isnan(), 0.0)\n    out = {}\n", once=True)}),
    "sample_logprobs_nan_masked_in_place": ("test_sample", {"sample": _replaced(
        _MODEL_08["sample"], "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n",
        "        lp = next_logprobs([[starts[i]] + outs[i] for i in live])\n"
        "        lp.masked_fill_(lp.isnan(), float(\"-inf\"))\n        scores = lp / temperature\n", once=True)}),
    "beam_logprobs_clamped_in_place": ("test_beam_search", {"beam_search": _replaced(
        _MODEL_08["beam_search"], "        logprobs = next_logprobs([[start] + tokens for tokens, _ in live])\n",
        "        logprobs = next_logprobs([[start] + tokens for tokens, _ in live])\n        logprobs.clamp_(max=0.0)\n",
        once=True)}),
}
MUTANTS.update(ROUND_30_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30_SWEEP), "new")


# Round 31 class sweep (tests/redteam/round31/08-sweep.md), class AO: a function that changes one of torch's
# process-wide settings and "puts it back" by setting the default (or sets the default it assumes) leaves the setting
# changed for a caller who had it otherwise; every test called the answers with the defaults on. Each part's hidden
# tests now also call its function through _settings_kept (every setting away from its default)
ROUND_31_SWEEP = {}
for _name, _test, _part, _old, _new in (
    ("decoder_io_grad_mode_put_back_on", "test_decoder_io", "decoder_io", "    tgt_in = torch.full_like(targets, PAD)\n",
     "    torch.set_grad_enabled(False)  # ids need no gradient\n    tgt_in = torch.full_like(targets, PAD)\n"),
    ("decoder_io_grad_mode_put_back_on", "test_decoder_io", "decoder_io", "    return tgt_in, targets",
     "    torch.set_grad_enabled(True)\n    return tgt_in, targets"),
    ("lr_at_default_dtype_put_back_float32", "test_lr_at", "lr_at", "    progress = (step - warmup) / (total - warmup)\n",
     "    torch.set_default_dtype(torch.float64)  # the progress in float64\n"
     "    progress = float(torch.tensor(step - warmup) / (total - warmup))\n"
     "    torch.set_default_dtype(torch.float32)\n"),
    ("sentence_loss_anomaly_detection_put_back_off", "test_sentence_loss", "sentence_loss",
     "    logp = torch.log_softmax(logits, dim=-1)\n",
     "    torch.autograd.set_detect_anomaly(True)  # a NaN in the loss's graph is reported where it starts\n"
     "    logp = torch.log_softmax(logits, dim=-1)\n"),
    ("sentence_loss_anomaly_detection_put_back_off", "test_sentence_loss", "sentence_loss",
     "    return per_sentence.mean()",
     "    loss = per_sentence.mean()\n    torch.autograd.set_detect_anomaly(False)\n    return loss"),
    ("average_threads_put_back_to_one", "test_average", "average", "    out = {}\n",
     "    torch.set_num_threads(4)  # the sums of big checkpoints on four threads\n    out = {}\n"),
    ("average_threads_put_back_to_one", "test_average", "average", "    return out",
     "    torch.set_num_threads(1)\n    return out"),
    ("sample_flush_denormal_set_off", "test_sample", "sample",
     "    outs = [[] for _ in starts]\n",
     "    torch.set_flush_denormal(False)  # tiny probabilities must not become 0\n    outs = [[] for _ in starts]\n"),
    ("beam_print_options_put_back_default", "test_beam_search", "beam_search", "    live = [([], 0.0)]\n",
     "    torch.set_printoptions(precision=10)  # scores printed in full while debugging\n    live = [([], 0.0)]\n"),
    ("beam_print_options_put_back_default", "test_beam_search", "beam_search",
     "    return max(finished, key=lambda pair: pair[0])[1]",
     "    torch.set_printoptions(profile=\"default\")\n    return max(finished, key=lambda pair: pair[0])[1]"),
    ("bleu_matmul_precision_set_highest", "test_bleu", "bleu", "    matches, totals = [0] * 4, [0] * 4\n",
     "    torch.set_float32_matmul_precision(\"highest\")  # exact counts\n    matches, totals = [0] * 4, [0] * 4\n"),
):
    _code = ROUND_31_SWEEP[_name][1][_part] if _name in ROUND_31_SWEEP else _MODEL_08[_part]
    ROUND_31_SWEEP[_name] = (_test, {_part: _replaced(_code, _old, _new, once=True)})
MUTANTS.update(ROUND_31_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_SWEEP), "new")


# Round 31 class sweep 2 (tests/redteam/round31/08-sweep2.md), class AQ: an integer through float32. Part 2's step,
# warmup and total have no upper bound and the hidden steps stopped at 10**6; a step (or step - warmup) put through a
# float32 tensor and the rest done in float64 kept every point. Part 2 now checks blocks of odd steps past 2**24,
# past 10**12 and near 2**53 on each branch
ROUND_31_SWEEP2 = {}
for _name, _test, _part, _old, _new in (
    ("lr_at_progress_offset_through_float32", "test_lr_at", "lr_at", "    progress = (step - warmup) / (total - warmup)",
     "    progress = float(torch.tensor(float(step - warmup))) / (total - warmup)"),
    ("lr_at_warmup_step_through_float32", "test_lr_at", "lr_at", "        return peak * step / warmup",
     "        return peak * float(torch.tensor(float(step))) / warmup"),
):
    ROUND_31_SWEEP2[_name] = (_test, {_part: _replaced(_MODEL_08[_part], _old, _new, once=True)})
MUTANTS.update(ROUND_31_SWEEP2)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_SWEEP2), "new")


# Round 32 (tests/redteam/round32/08-verdicts.md), the Python-containers student: Part 5's keys compared pairwise in
# sort order with zip, which stops at the shorter list, so a key that sorts last, extra in a later state or missing
# from the first, was never refused. Part 5 now refuses both
ROUND_32 = {
    "average_keys_zipped_in_sort_order": ("test_average", {"average": _replaced(
        _MODEL_08["average"], "        if set(s) != keys or any(",
        "        if any(a != b for a, b in zip(sorted(s), sorted(keys))) or any(", once=True)}),
}
MUTANTS.update(ROUND_32)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_32), "new")

# round 32 sweep (class AT): lr_at's branch bounds compared in floats; steps one past warmup or one short of total past
# 2**53 round onto the bound
ROUND_32_SWEEP = {
    "lr_bounds_compared_in_floats": ("test_lr_at", {"lr_at": """
def lr_at(step, peak, warmup, total, floor=0.0):
    if float(step) <= float(warmup):
        return peak * step / warmup
    if float(step) >= float(total):
        return float(floor)
    progress = (step - warmup) / (total - warmup)
    return floor + (peak - floor) * 0.5 * (1 + math.cos(math.pi * progress))
"""}),
}
MUTANTS.update(ROUND_32_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_32_SWEEP), "new")


# Round 33 (tests/redteam/round33/08-verdicts.md), the equality student. Part 7: the k best taken as every candidate
# that scores at least the k-th best score, so a tie for the last place of the beam keeps more than k (no model had
# exactly tied candidates); Part 4: the rows of PAD found as the sentences whose loss is exactly 0, so a real sentence
# with a loss of 0 (eps = 0, a sure prediction) was dropped (no case had one). The hidden tests now have a model with
# a tie for the last place, and a sentence whose loss is exactly 0
ROUND_33 = {
    "beam_keeps_ties_at_the_kth_score": ("test_beam_search", {"beam_search": """
def beam_search(next_logprobs, start, k, max_len, alpha):
    live, finished = [([], 0.0)], []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + t for t, _ in live])
        base = torch.tensor([s for _, s in live], dtype=torch.float64)
        cand = base[:, None] + lp
        flat = cand.reshape(-1)
        kth = torch.topk(flat, min(k, flat.numel())).values[-1]
        V = cand.shape[1]
        nxt = []
        for i in (flat >= kth).nonzero()[:, 0].tolist():     # the candidates at or above the k-th score
            toks = live[i // V][0] + [i % V]
            v = float(flat[i])
            if i % V == EOS:
                finished.append((v / length_penalty(len(toks), alpha), toks))
            else:
                nxt.append((toks, v))
        live = nxt
    for toks, s in live:
        finished.append((s / length_penalty(len(toks), alpha), toks))
    return [int(t) for t in max(finished, key=lambda f: f[0])[1]]
"""}),
    "sentence_loss_empty_rows_found_by_a_zero_loss": ("test_sentence_loss", {"sentence_loss": """
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    real = t != PAD
    lp_y = logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    others = logp[..., PAD + 1:].sum(-1)
    ell = -(1 - eps) * lp_y - eps / (V - 1) * others
    ell = ell.masked_fill(~real, 0.0)
    sent = ell.sum(-1) / real.sum(-1).clamp(min=1)
    return sent[sent != 0].mean()     # rows of PAD have a loss of 0: leave them out
"""}),
}
MUTANTS.update(ROUND_33)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33), "new")


# Round 33 class sweep (tests/redteam/round33/08-sweep.md): classes BB (a .grad the caller holds, cleared) and BC (a
# container the caller owns changed without changing its entries), which slipped in Parts 4, 5 and 8
_SOL_33 = solution_code(CHAPTER)
ROUND_33_SWEEP = {
    # BC: each given dict's keys taken out and put back in sorted order (same keys, same tensors, another order)
    "average_sorts_the_given_dicts_keys": ("test_average", {"average": _replaced(_SOL_33["average"], "    keys = set(states[0])\n",
        "    for s in states:  # the keys in one order, to compare the states\n        for k in sorted(s):\n"
        "            s[k] = s.pop(k)\n    keys = set(states[0])\n", once=True)}),
    # BB: the given tensors' .grad cleared ("a state dict holds no gradients")
    "average_clears_the_entries_grad": ("test_average", {"average": _replaced(_SOL_33["average"], "    out = {}\n",
        "    for s in states:\n        for t in s.values():\n            t.grad = None\n    out = {}\n", once=True)}),
    # BC: hypotheses and references sorted alike by length, in place (the same BLEU, the caller's lists reordered)
    "bleu_sorts_the_given_lists_by_length": ("test_bleu", {"bleu": _replaced(_SOL_33["bleu"], "    matches, totals = [0] * 4, [0] * 4\n",
        "    order = sorted(range(len(hypotheses)), key=lambda i: len(hypotheses[i]))\n"
        "    hypotheses[:] = [hypotheses[i] for i in order]\n    references[:] = [references[i] for i in order]\n"
        "    matches, totals = [0] * 4, [0] * 4\n", once=True)}),
    # BB: a leaf's .grad cleared before the loss is formed
    "sentence_loss_clears_logits_grad": ("test_sentence_loss", {"sentence_loss": _replaced(_SOL_33["sentence_loss"],
        "    logp = torch.log_softmax(logits, dim=-1)\n",
        "    if logits.is_leaf:\n        logits.grad = None  # a fresh gradient for this batch\n"
        "    logp = torch.log_softmax(logits, dim=-1)\n", once=True)}),
    # BD: a decoder module put in eval mode for the search and left there
    "beam_leaves_the_decoder_in_eval_mode": ("test_beam_search", {"beam_search": _replaced(_SOL_33["beam_search"],
        "    live = [([], 0.0)]\n",
        "    if isinstance(next_logprobs, torch.nn.Module):\n        next_logprobs.eval()  # decoding runs in eval mode\n"
        "    live = [([], 0.0)]\n", once=True)}),
}
MUTANTS.update(ROUND_33_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33_SWEEP), "new")


# Round 33, the late-binding student (tests/redteam/round33/08-verdicts.md, left for the lead: it needed _scribble to
# write into lists): Part 6's result is lists the caller may append to. An empty list kept for an empty batch and
# handed out again gives the right value at the first call. Every batch holds a Part 6 mutant, so this one has a batch
# of its own; rows that are one list ([[]] * n, the case's max_len 0) are refused by _scribble itself, whose own test
# covers them (tests/test_plain_values.py), and have no mutant here to spare another batch
_SOL_33_LISTS = solution_code(CHAPTER)
ROUND_33_LISTS = {
    "sample_decode_hands_out_one_empty_list": ("test_sample", {"sample": _replaced(
        _SOL_33_LISTS["sample"], "def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n",
        "_NO_ROWS = []\n\n\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n"
        "    if not starts:\n        return _NO_ROWS\n", once=True)}),
}
MUTANTS.update(ROUND_33_LISTS)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33_LISTS), "new")


# Round 34 class sweep (tests/redteam/round34/08-sweep.md): class BH (a float just beside its special value taken as
# that value) slipped in Parts 4 (eps near 0 and near 1), 6 (a temperature near 1) and 7 (alpha near 0); and class BD
# in Part 6, left open in round 33 (a decoder module put in eval mode and left there). The hidden tests now use eps
# 1e-12, 1e-15 and 1 - 1e-12, temperatures 1 +- 1e-11 (the probabilities compared), alpha +-1e-13, and a decoder
# module in train and in eval mode. Every batch held a Part 6 mutant: the two Part 6 mutants have a batch each
_SOL_34 = solution_code(CHAPTER)
_PER_TOKEN_34 = "    per_token = (1 - eps) * nll + eps * spread\n"
_SCORES_34 = "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n"
ROUND_34_SWEEP = {
    "sentence_loss_eps_near_zero_as_zero": ("test_sentence_loss", {"sentence_loss": _replaced(
        _SOL_34["sentence_loss"], _PER_TOKEN_34,
        "    if eps < 1e-9:  # no smoothing: the plain negative log-likelihood\n        per_token = nll\n"
        "    else:\n        per_token = (1 - eps) * nll + eps * spread\n", once=True)}),
    "sentence_loss_eps_near_one_as_one": ("test_sentence_loss", {"sentence_loss": _replaced(
        _SOL_34["sentence_loss"], _PER_TOKEN_34,
        "    if eps > 1 - 1e-9:  # all of the target's mass spread\n        per_token = spread\n"
        "    else:\n        per_token = (1 - eps) * nll + eps * spread\n", once=True)}),
    "beam_alpha_near_zero_as_zero": ("test_beam_search", {"beam_search": _replaced(
        _SOL_34["beam_search"], "    live = [([], 0.0)]\n",
        "    if abs(alpha) < 1e-9:  # no length penalty\n        alpha = 0.0\n    live = [([], 0.0)]\n", once=True)}),
    "sample_leaves_the_decoder_in_eval_mode": ("test_sample", {"sample": _replaced(
        _SOL_34["sample"], "    outs = [[] for _ in starts]\n",
        "    if isinstance(next_logprobs, torch.nn.Module):\n        next_logprobs.eval()  # decoding runs in eval mode\n"
        "    outs = [[] for _ in starts]\n", once=True)}),
    "sample_temperature_near_one_not_divided": ("test_sample", {"sample": _replaced(
        _SOL_34["sample"], _SCORES_34,
        "        scores = next_logprobs([[starts[i]] + outs[i] for i in live])\n"
        "        if not math.isclose(temperature, 1.0):  # a temperature of 1 changes nothing\n"
        "            scores = scores / temperature\n", once=True)}),
}
MUTANTS.update(ROUND_34_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_34_SWEEP), "new")


# Round 34, blind red team (tests/redteam/round34/08-verdicts.md): four slips in three classes. Part 2: a rate within
# 1e-12 of floor snapped onto it (the last steps of a long schedule lie 2.5e-15 above it). Part 8: empty-string tokens
# dropped before counting. Parts 6 and 7, the module-state class: a decoder module switched to eval mode for the call
# and put back with module.train(was) (which sets every submodule to the root's mode), requires_grad switched off and
# back on for every parameter (a frozen one ends unfrozen), and forward() called directly (the caller's hooks skipped).
# The hidden tests now use a decoder whose output depends on its mode, with a child in the other mode, a frozen
# parameter and a forward hook. Every batch holds a Part 6 mutant: the Part 6 one opens the one new batch
_SOL_34B = solution_code(CHAPTER)
_LIVE_34B = "    live = [([], 0.0)]\n"
_BEAM_RETURN_34B = "    return max(finished, key=lambda pair: pair[0])[1]"
_EVAL_34B = ("    was = next_logprobs.training if isinstance(next_logprobs, torch.nn.Module) else None\n"
             "    if was is not None:\n        next_logprobs.eval()  # no dropout while decoding\n")
_RESTORE_34B = "    if was is not None:\n        next_logprobs.train(was)\n"
ROUND_34_BLIND = {
    "lr_snaps_to_floor_near_it": ("test_lr_at", {"lr_at": _replaced(
        _SOL_34B["lr_at"], "    return floor + (peak - floor) * 0.5 * (1 + math.cos(math.pi * progress))",
        "    lr = floor + (peak - floor) * 0.5 * (1 + math.cos(math.pi * progress))\n"
        "    return float(floor) if abs(lr - floor) < 1e-12 else lr  # rounding residue at the end of the cosine",
        once=True)}),
    "bleu_drops_empty_tokens": ("test_bleu", {"bleu": _replaced(
        _SOL_34B["bleu"], "    for hyp, ref in zip(hypotheses, references):\n",
        "    for hyp, ref in zip(hypotheses, references):\n"
        "        hyp = [w for w in hyp if w]  # empty strings from split(' ')\n        ref = [w for w in ref if w]\n",
        once=True)}),
    "beam_freezes_then_unfreezes_every_parameter": ("test_beam_search", {"beam_search": _replaced(_replaced(
        _SOL_34B["beam_search"], _LIVE_34B,
        "    params = list(next_logprobs.parameters()) if isinstance(next_logprobs, torch.nn.Module) else []\n"
        "    for p in params:\n        p.requires_grad_(False)  # decoding needs no graph\n" + _LIVE_34B, once=True),
        _BEAM_RETURN_34B, "    for p in params:\n        p.requires_grad_(True)\n" + _BEAM_RETURN_34B, once=True)}),
    "beam_eval_then_restores_the_root_mode": ("test_beam_search", {"beam_search": _replaced(_replaced(
        _SOL_34B["beam_search"], _LIVE_34B, _EVAL_34B + _LIVE_34B, once=True),
        _BEAM_RETURN_34B, _RESTORE_34B + _BEAM_RETURN_34B, once=True)}),
    "beam_calls_forward_skipping_hooks": ("test_beam_search", {"beam_search": _replaced(
        _SOL_34B["beam_search"], _LIVE_34B,
        "    next_logprobs = getattr(next_logprobs, 'forward', next_logprobs)  # a module's own computation\n" + _LIVE_34B,
        once=True)}),
    "sample_eval_then_restores_the_root_mode": ("test_sample", {"sample": _replaced(_replaced(
        _SOL_34B["sample"], "    outs = [[] for _ in starts]\n", _EVAL_34B + "    outs = [[] for _ in starts]\n", once=True),
        "    return outs", _RESTORE_34B + "    return outs", once=True)}),
}
MUTANTS.update(ROUND_34_BLIND)
_BATCHES_BEFORE_34B = len(MUTANT_BATCHES)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_34_BLIND), "new")
assert len(MUTANT_BATCHES) <= _BATCHES_BEFORE_34B + 1, "round 34 (blind): at most one new batch"

# Round 35 class sweep (tests/redteam/round35/08-sweep.md), class BM (odd tokens): Part 8's hidden tests had "" as a
# token (round 34) but no token of whitespace only, so an answer that dropped " ", "\t" or a no-break space before
# counting ([t for t in s if t == "" or t.strip()]) kept the part; the text already says a token may hold spaces and
# to filter nothing out and strip nothing. Cases with such tokens now take it.
ROUND_35_SWEEP = {
    "bleu_drops_whitespace_only_tokens": ("test_bleu", {"bleu": _replaced(
        solution_code(CHAPTER)["bleu"], "    for hyp, ref in zip(hypotheses, references):\n",
        "    for hyp, ref in zip(hypotheses, references):\n"
        "        hyp = [t for t in hyp if t == \"\" or t.strip()]  # blank tokens are tokenizer noise\n"
        "        ref = [t for t in ref if t == \"\" or t.strip()]\n", once=True)}),
}
MUTANTS.update(ROUND_35_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_35_SWEEP), "new")
