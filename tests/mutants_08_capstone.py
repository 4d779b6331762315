"""Chapter 8 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently."""

CHAPTER = "08-capstone"
FULL_MARKS = 16.0


def batches(fill):
    return f"""
def batches_by_tokens(src_lengths, tgt_lengths, max_tokens):
{fill}
"""


_SORTED_GREEDY = """    order = sorted(range(len(src_lengths)), key=lambda i: (tgt_lengths[i], src_lengths[i]))
    out, cur, width = [], [], 0
    for i in order:
        longest = max(src_lengths[i], tgt_lengths[i])
        if longest > max_tokens:
            raise ValueError("too long")
        new = max(width, longest)
        if cur and {cost} > max_tokens:
            out.append(cur)
            cur, new = [], longest
        cur.append(i)
        width = new
{tail}"""


def greedy(stop_rule):
    return f"""
def greedy_decode(next_logprobs, starts, max_len):
    prefixes = [[s] for s in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        best = next_logprobs([prefixes[i] for i in live]).argmax(dim=-1).tolist()
        for i, token in zip(live, best):
            prefixes[i].append(token)
            {stop_rule}
    return [p[1:] for p in prefixes]
"""


def beam(finish, final_live="finished.append((score / length_penalty(len(tokens), alpha), tokens))"):
    return f"""
def beam_search(next_logprobs, start, k, max_len, alpha):
    live, finished = [([], 0.0)], []
    for _ in range(max_len):
        logprobs = next_logprobs([[start] + tokens for tokens, _ in live])
        scores = torch.tensor([s for _, s in live], dtype=logprobs.dtype)
        new_scores, origin, token = beam_step(scores, logprobs, min(k, logprobs.numel()))
        new_live = []
        for score, o, t in zip(new_scores.tolist(), origin.tolist(), token.tolist()):
            tokens = live[o][0] + [t]
            if t == EOS:
                {finish}
            else:
                new_live.append((tokens, score))
        live = new_live
        if not live:
            break
    for tokens, score in live:
        {final_live}
    return max(finished, key=lambda pair: pair[0])[1]
"""


def bleu(count_matches, brevity="1.0 if c >= r else math.exp(1 - r / c)", combine=None):
    combine = combine or "math.exp(sum(math.log(m / t) for m, t in zip(matches, totals)) / 4)"
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
        return 0.0
    return 100 * ({brevity}) * {combine}
"""


_CLIPPED = "sum(min(v, rr[g]) for g, v in h.items())"

MUTANTS = {
    # Part 1: the budget, the coverage, the sorting, the error
    "batches_budget_ignores_padding": ("test_batches", {"batches": batches(_SORTED_GREEDY.format(
        cost="sum(max(src_lengths[j], tgt_lengths[j]) for j in cur + [i])", tail="    return out + ([cur] if cur else [])"))}),
    "batches_drop_last_batch": ("test_batches", {"batches": batches(_SORTED_GREEDY.format(
        cost="new * (len(cur) + 1)", tail="    return out"))}),
    "batches_unsorted": ("test_batches", {"batches": batches(_SORTED_GREEDY.format(
        cost="new * (len(cur) + 1)", tail="    return out + ([cur] if cur else [])").replace(
        "sorted(range(len(src_lengths)), key=lambda i: (tgt_lengths[i], src_lengths[i]))", "range(len(src_lengths))"))}),
    "batches_only_source_lengths": ("test_batches", {"batches": batches(_SORTED_GREEDY.format(
        cost="max(width, src_lengths[i]) * (len(cur) + 1)", tail="    return out + ([cur] if cur else [])"))}),
    # Part 2
    "decoder_io_keeps_eos_in_input": ("test_decoder_io", {"decoder_io": """
def decoder_io(targets):
    tgt_in = torch.full_like(targets, PAD)
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    return tgt_in, targets
"""}),
    # Part 3
    "loss_smoothing_over_other_tokens": ("test_smoothed_loss", {"smoothed_loss": """
def smoothed_loss(logits, targets, eps):
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    others = -(logp.sum(-1) + nll) / (logits.shape[-1] - 1)
    real = targets != PAD
    return ((1 - eps) * nll + eps * others)[real].mean()
"""}),
    "loss_averages_over_padding": ("test_smoothed_loss", {"smoothed_loss": """
def smoothed_loss(logits, targets, eps):
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return ((1 - eps) * nll - eps * logp.mean(-1)).mean()
"""}),
    "loss_without_one_minus_eps": ("test_smoothed_loss", {"smoothed_loss": """
def smoothed_loss(logits, targets, eps):
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    real = targets != PAD
    return (nll - eps * logp.mean(-1))[real].mean()
"""}),
    # Part 4
    "lr_decays_as_one_over_step": ("test_lr_at", {"lr_at": """
def lr_at(step, peak, warmup):
    return peak * min(step / warmup, warmup / step)
"""}),
    # Part 5
    "greedy_never_stops_at_eos": ("test_greedy", {"greedy": greedy("done[i] = False")}),
    "greedy_drops_eos": ("test_greedy", {"greedy": greedy("done[i] = token == EOS").replace(
        "    return [p[1:] for p in prefixes]", "    return [[t for t in p[1:] if t != EOS] for p in prefixes]")}),
    # Part 6
    "beam_step_ignores_history": ("test_beam_step", {"beam_step": """
def beam_step(scores, logprobs, k):
    vocab = logprobs.shape[-1]
    _, index = logprobs.flatten().topk(k)
    return (scores[:, None] + logprobs).flatten()[index], index // vocab, index % vocab
"""}),
    "beam_step_swaps_origin_and_token": ("test_beam_step", {"beam_step": """
def beam_step(scores, logprobs, k):
    vocab = logprobs.shape[-1]
    new_scores, index = (scores[:, None] + logprobs).flatten().topk(k)
    return new_scores, index % vocab, index // vocab
"""}),
    # Part 7
    "beam_without_length_penalty": ("test_beam_search", {"beam_search": beam(
        "finished.append((score, tokens))", "finished.append((score, tokens))")}),
    "beam_penalty_ignores_eos_in_length": ("test_beam_search", {"beam_search": beam(
        "finished.append((score / length_penalty(len(tokens) - 1, alpha), tokens))")}),
    "beam_forgets_unfinished_at_max_len": ("test_beam_search", {"beam_search": beam(
        "finished.append((score / length_penalty(len(tokens), alpha), tokens))", "pass").replace(
        "    return max(finished", "    finished = finished or [(0.0, [])]\n    return max(finished")}),
    # Part 8
    "bleu_unclipped_counts": ("test_bleu", {"bleu": bleu("sum(v for g, v in h.items() if g in rr)")}),
    "bleu_no_brevity_penalty": ("test_bleu", {"bleu": bleu(_CLIPPED, brevity="1.0")}),
    "bleu_arithmetic_mean": ("test_bleu", {"bleu": bleu(
        _CLIPPED, combine="sum(m / t for m, t in zip(matches, totals)) / 4")}),
}

# Mutants graded together in one submission (one notebook run each batch). Parts 1-5 and 8 use no
# other part's function; Part 7 calls Part 6's beam_step, so no batch holds mutants of both.
MUTANT_BATCHES = [
    ["batches_budget_ignores_padding", "decoder_io_keeps_eos_in_input", "loss_smoothing_over_other_tokens",
     "lr_decays_as_one_over_step", "greedy_never_stops_at_eos", "beam_step_ignores_history", "bleu_unclipped_counts"],
    ["batches_drop_last_batch", "loss_averages_over_padding", "greedy_drops_eos", "beam_without_length_penalty",
     "bleu_no_brevity_penalty"],
    ["batches_unsorted", "loss_without_one_minus_eps", "beam_step_swaps_origin_and_token", "bleu_arithmetic_mean"],
    ["batches_only_source_lengths", "beam_penalty_ignores_eos_in_length"],
]

CORRECT_VARIANTS = {
    # batches built with a running maximum kept per side, and a different error message
    "two_sided_widths": {
        "batches": """
def batches_by_tokens(src_lengths, tgt_lengths, max_tokens):
    pairs = sorted(zip(tgt_lengths, src_lengths, range(len(src_lengths))))
    result, batch, s_max, t_max = [], [], 0, 0
    for t, s, i in pairs:
        if max(s, t) > max_tokens:
            raise ValueError("sentence too long for the batch budget")
        s2, t2 = max(s_max, s), max(t_max, t)
        if batch and (len(batch) + 1) * max(s2, t2) > max_tokens:
            result.append(batch)
            batch, s2, t2 = [], s, t
        batch.append(i)
        s_max, t_max = s2, t2
    if batch:
        result.append(batch)
    return result
""",
        "decoder_io": """
def decoder_io(targets):
    body = torch.where(targets == EOS, torch.full_like(targets, PAD), targets)
    bos = torch.full_like(targets[:, :1], BOS)
    return torch.cat([bos, body[:, :-1]], dim=1), targets.clone()
""",
        "smoothed_loss": """
import torch.nn.functional as F

def smoothed_loss(logits, targets, eps):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                           ignore_index=PAD, label_smoothing=eps)
""",
        "lr_at": """
def lr_at(step, peak, warmup):
    if step < warmup:
        return peak * step / warmup
    return peak * (warmup / step) ** 0.5
""",
        "greedy": """
def greedy_decode(next_logprobs, starts, max_len):
    outs = [[] for _ in starts]
    active = list(range(len(starts)))
    for _ in range(max_len):
        if not active:
            break
        lp = next_logprobs([[starts[i]] + outs[i] for i in active])
        for row, i in enumerate(active):
            outs[i].append(int(torch.argmax(lp[row])))
        active = [i for i in active if outs[i][-1] != EOS]
    return outs
""",
        "beam_step": """
def beam_step(scores, logprobs, k):
    total = scores.unsqueeze(1) + logprobs
    flat = total.reshape(-1)
    order = torch.argsort(flat, descending=True)[:k]
    return flat[order], torch.div(order, logprobs.shape[1], rounding_mode="floor"), order % logprobs.shape[1]
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
    return 100 * bp * math.exp(sum(logs) / 4)
""",
    },
}
