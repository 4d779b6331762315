# Round 29 class sweep, chapter 8 (classes AF, AG, AH, AI). Each variant is the model answer with the smallest change
# that makes the class's mistake; "correct": True marks probes the text allows. AF is closed in Part 4 (README.md).

LOSS = '''
def sentence_smoothed_loss(logits, targets, eps):
    v = logits.shape[-1]
    {lse}
    logp = logits - lse[..., None]
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    spread = -(logp[..., :PAD].sum(dim=-1) + logp[..., PAD + 1:].sum(dim=-1)) / (v - 1)
    per_token = (1 - eps) * nll + eps * spread
    real = targets != PAD
    counts = real.sum(dim=1)
    has_tokens = counts > 0
    per_sentence = (per_token * real).sum(dim=1)[has_tokens] / counts[has_tokens]
    return per_sentence.mean()
'''
LSE_CHUNKS = '''m = logits.amax(dim=-1)
    stop = {stop}
    s = sum(torch.exp(logits[..., a:a + {c}] - m[..., None]).sum(dim=-1) for a in range(0, stop, {c}))
    lse = m + torch.log(s)'''

LOSS_ROWS = '''
def sentence_smoothed_loss(logits, targets, eps):
    b, t, v = logits.shape
    flat, tf = logits.reshape(b * t, v), targets.reshape(b * t)
    n = b * t
    pieces = []
    for a in range(0, {stop}, {c}):  # rows of B*T in chunks of {c}: a (B*T, V) log_softmax at once may not fit
        logp = torch.log_softmax(flat[a:a + {c}], dim=-1)
        nll = -logp.gather(-1, tf[a:a + {c}].long().unsqueeze(-1)).squeeze(-1)
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
'''

AVERAGE = '''
def average_checkpoints(states):
    if not states:
        raise ValueError("nothing to average")
    keys = set(states[0])
    for s in states[1:]:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("checkpoints to average must come from the same model")
    out = {{}}
    for k in states[0]:
        if states[-1][k].is_floating_point():
            flats = [s[k].reshape(-1) for s in states]
            n = flats[0].numel()
            mean = torch.zeros(n, dtype=torch.float64)
            for a in range(0, {stop}, {c}):  # in chunks of {c} entries: no float64 copy of a whole big tensor
                mean[a:a + {c}] = sum(f[a:a + {c}].double() for f in flats) / len(states)
            out[k] = mean.reshape(states[0][k].shape).to(states[0][k].dtype)
        else:
            out[k] = states[-1][k].clone()
    return out
'''

SAMPLE = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    live = list(range(len(starts)))
    for _ in range(max_len):
        if not live:
            break
        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            kept = scores.topk(top_k, dim=-1).indices
            scores = torch.full_like(scores, float("-inf")).scatter(-1, kept, scores.gather(-1, kept))
        scores = scores.double()
        {softmax}
        drawn = torch.multinomial(probs, 1, generator=generator).flatten().tolist()
        for i, token in zip(live, drawn):
            outs[i].append(int(token))
        live = [i for i in live if outs[i][-1] != EOS]
    return outs
'''
SHIFT0 = '''e = torch.exp(scores - scores.amax(dim=-1, keepdim=True).clamp(min=0))  # max(0, row max) as the shift
        probs = e / e.sum(dim=-1, keepdim=True)'''
ONLINE = '''v = scores.shape[-1]
        m = torch.full((scores.shape[0], 1), {init}, dtype=scores.dtype)
        l = torch.zeros(scores.shape[0], 1, dtype=scores.dtype)
        for a in range(0, v, 64):  # the normaliser over pieces of 64 ids
            piece = scores[:, a:a + 64]
            m_new = torch.maximum(m, piece.amax(dim=-1, keepdim=True))
            l = l * torch.exp(m - m_new) + torch.exp(piece - m_new).sum(dim=-1, keepdim=True)
            m = m_new
        probs = torch.exp(scores - m) / l'''

BLEU = '''
def corpus_bleu(hypotheses, references):
    matches, totals = [0] * 4, [0] * 4
    hyp_len = ref_len = 0
    pairs = list(zip(hypotheses, references))
    for a in range(0, {stop}, {c}):  # the corpus in batches of {c} sentences
        for hyp, ref in pairs[a:a + {c}]:
            hyp_len += len(hyp)
            ref_len += len(ref)
            for n in range(1, 5):
                h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
                r = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
                matches[n - 1] += sum(min(c, r[g]) for g, c in h.items())
                totals[n - 1] += max(len(hyp) - n + 1, 0)
    if min(matches) == 0:
        return 0.0
    log_precision = sum(math.log(m / t) for m, t in zip(matches, totals)) / 4
    brevity = 1.0 if hyp_len >= ref_len else math.exp(1 - ref_len / hyp_len)
    return 100 * brevity * math.exp(log_precision)
'''

SUBMISSIONS = [
    {"name": "AF-p6-shift-floored-at-0", "correct": False, "cells": {"sample": SAMPLE.format(softmax=SHIFT0)},
     "why": "log-probabilities over a tiny temperature: every row far below 0, exp(score - 0) = 0, 0/0"},
    {"name": "AF-p6-online-softmax-max-from-0", "correct": False,
     "cells": {"sample": SAMPLE.format(softmax=ONLINE.format(init="0.0"))},
     "why": "the normaliser over pieces of 64 ids with its running maximum started at 0"},
    {"name": "AF-p6-online-softmax-max-from-minus-inf", "correct": True,
     "cells": {"sample": SAMPLE.format(softmax=ONLINE.format(init='float("-inf")'))},
     "why": "the same started at -inf (every row has a finite entry)"},
    {"name": "AG-p4-lse-vocab-chunks-1024-last-dropped", "correct": False,
     "cells": {"sentence_loss": LOSS.format(lse=LSE_CHUNKS.format(c=1024, stop="max(v - v % 1024, 1)"))},
     "why": "the normaliser summed over vocabulary chunks of 1024, the last shorter chunk dropped"},
    {"name": "AG-p4-lse-vocab-chunks-4096-last-dropped", "correct": False,
     "cells": {"sentence_loss": LOSS.format(lse=LSE_CHUNKS.format(c=4096, stop="max(v - v % 4096, 1)"))},
     "why": "the normaliser summed over vocabulary chunks of 4096, the last shorter chunk dropped"},
    {"name": "AG-p4-lse-vocab-chunks-4096-correct", "correct": True,
     "cells": {"sentence_loss": LOSS.format(lse=LSE_CHUNKS.format(c=4096, stop="v"))},
     "why": "every chunk read"},
    {"name": "AG-p4-row-chunks-1024-last-zero", "correct": False,
     "cells": {"sentence_loss": LOSS_ROWS.format(c=1024, stop="max(n - n % 1024, 1)")},
     "why": "the B*T rows in chunks of 1024, the last shorter chunk's losses left as zeros"},
    {"name": "AG-p4-row-chunks-64-last-zero", "correct": False,
     "cells": {"sentence_loss": LOSS_ROWS.format(c=64, stop="max(n - n % 64, 1)")},
     "why": "the B*T rows in chunks of 64, the last shorter chunk's losses left as zeros"},
    {"name": "AG-p4-row-chunks-8-last-zero", "correct": False,
     "cells": {"sentence_loss": LOSS_ROWS.format(c=8, stop="max(n - n % 8, 1)")},
     "why": "the B*T rows in chunks of 8, the last shorter chunk's losses left as zeros"},
    {"name": "AG-p4-row-chunks-8-correct", "correct": True,
     "cells": {"sentence_loss": LOSS_ROWS.format(c=8, stop="n")},
     "why": "every chunk read"},
    {"name": "AG-p5-entry-chunks-4096-last-zero", "correct": False,
     "cells": {"average": AVERAGE.format(c=4096, stop="max(n - n % 4096, 1)")},
     "why": "the mean in chunks of 4096 entries, the last shorter chunk left as zeros"},
    {"name": "AG-p5-entry-chunks-64-last-zero", "correct": False,
     "cells": {"average": AVERAGE.format(c=64, stop="max(n - n % 64, 1)")},
     "why": "the mean in chunks of 64 entries, the last shorter chunk left as zeros"},
    {"name": "AG-p5-entry-chunks-64-correct", "correct": True,
     "cells": {"average": AVERAGE.format(c=64, stop="n")},
     "why": "every chunk read"},
    {"name": "AG-p8-corpus-batches-1000-last-dropped", "correct": False,
     "cells": {"bleu": BLEU.format(c=1000, stop="max(len(pairs) - len(pairs) % 1000, 1)")},
     "why": "the corpus in batches of 1000 sentences, the last shorter batch dropped"},
    {"name": "AG-p8-corpus-batches-8-last-dropped", "correct": False,
     "cells": {"bleu": BLEU.format(c=8, stop="max(len(pairs) - len(pairs) % 8, 1)")},
     "why": "the corpus in batches of 8 sentences, the last shorter batch dropped"},
    {"name": "AG-p8-corpus-batches-8-correct", "correct": True,
     "cells": {"bleu": BLEU.format(c=8, stop="len(pairs)")},
     "why": "every batch read"},
]

# second pass: the sentences (B) of Part 4 in chunks
SUBMISSIONS += [
    {"name": "AG-p4-sentence-chunks-8-last-dropped", "correct": False,
     "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    b, t, v = logits.shape
    losses = []
    for a in range(0, max(b - b % 8, 1), 8):  # sentences in chunks of 8
        logp = torch.log_softmax(logits[a:a + 8], dim=-1)
        tg = targets[a:a + 8]
        nll = -logp.gather(-1, tg.long().unsqueeze(-1)).squeeze(-1)
        spread = -(logp[..., :PAD].sum(dim=-1) + logp[..., PAD + 1:].sum(dim=-1)) / (v - 1)
        per_token = (1 - eps) * nll + eps * spread
        real = tg != PAD
        counts = real.sum(dim=1)
        keep = counts > 0
        losses.append(torch.where(real, per_token, torch.zeros((), dtype=per_token.dtype)).sum(dim=1)[keep] / counts[keep])
    return torch.cat(losses).mean()
'''}, "why": "the sentences in chunks of 8, the last shorter chunk dropped"},
]

# correct answers written otherwise, on the new large cases
SUBMISSIONS += [
    {"name": "AG-p4-per-sentence-loop-correct", "correct": True, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    v = logits.shape[-1]
    losses = []
    for b in range(logits.shape[0]):
        real = targets[b] != PAD
        if not bool(real.any()):
            continue
        logp = torch.log_softmax(logits[b][real], dim=-1)
        y = targets[b][real].long()
        nll = -logp[torch.arange(len(y)), y]
        others = logp[:, :PAD].sum(dim=-1) + logp[:, PAD + 1:].sum(dim=-1)
        losses.append(((1 - eps) * nll - eps * others / (v - 1)).mean())
    return torch.stack(losses).mean()
'''}, "why": "one sentence at a time, its real positions selected"},
    {"name": "AG-p5-stack-mean-correct", "correct": True, "cells": {"average": '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("empty")
    names = set(states[0])
    for s in states:
        if set(s) != names or any(s[k].shape != states[0][k].shape for k in names):
            raise ValueError("different models")
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            out[k] = torch.stack([s[k].to(torch.float64) for s in states]).mean(dim=0).to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''}, "why": "torch.stack(...).mean(0) in float64"},
    {"name": "AG-p8-counter-intersection-correct", "correct": True, "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, total = [0] * 4, [0] * 4
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    for hyp, ref in zip(hypotheses, references):
        for n in range(1, 5):
            h = Counter(zip(*[hyp[i:] for i in range(n)]))
            x = Counter(zip(*[ref[i:] for i in range(n)]))
            clipped[n - 1] += sum((h & x).values())
            total[n - 1] += sum(h.values())
    if 0 in clipped or 0 in total:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(clipped, total)) / 4))
'''}, "why": "n-grams by zip, clipping by Counter intersection"},
]

# third pass: Part 6's softmax normaliser and Part 7's candidates over pieces of the vocabulary
NORM_PIECES = '''v = scores.shape[-1]
        m = scores.amax(dim=-1, keepdim=True)
        l = sum(torch.exp(scores[:, a:a + {c}] - m).sum(dim=-1, keepdim=True) for a in range(0, {stop}, {c}))
        probs = torch.exp(scores - m) / l'''
BEAM = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        logprobs = next_logprobs([[start] + tokens for tokens, _ in live])
        scores = torch.tensor([score for _, score in live], dtype=logprobs.dtype)
        vocab = logprobs.shape[-1]
        candidates = (scores[:, None] + logprobs)
        # the best k of each piece of {c} ids first, then the best k of those
        vals, idx = [], []
        for a in range(0, {stop}, {c}):
            piece = candidates[:, a:a + {c}].flatten()
            bv, bi = piece.topk(min(k, piece.numel()))
            w = min({c}, vocab - a)
            vals.append(bv)
            idx.append((bi // w) * vocab + a + bi % w)
        vals, idx = torch.cat(vals), torch.cat(idx)
        best, pos = vals.topk(min(k, vals.numel()))
        index = idx[pos]
        new_live = []
        for score, i in zip(best.tolist(), index.tolist()):
            tokens = live[i // vocab][0] + [i % vocab]
            if tokens[-1] == EOS:
                finished.append((score / length_penalty(len(tokens), alpha), tokens))
            else:
                new_live.append((tokens, score))
        live = new_live
        if not live:
            break
    for tokens, score in live:
        finished.append((score / length_penalty(len(tokens), alpha), tokens))
    return max(finished, key=lambda pair: pair[0])[1]
'''
SUBMISSIONS += [
    {"name": "AG-p6-normaliser-pieces-64-last-dropped", "correct": False,
     "cells": {"sample": SAMPLE.format(softmax=NORM_PIECES.format(c=64, stop="max(v - v % 64, 1)"))},
     "why": "the softmax normaliser over pieces of 64 ids, the last shorter piece dropped"},
    {"name": "AG-p6-normaliser-pieces-8-last-dropped", "correct": False,
     "cells": {"sample": SAMPLE.format(softmax=NORM_PIECES.format(c=8, stop="max(v - v % 8, 1)"))},
     "why": "the softmax normaliser over pieces of 8 ids, the last shorter piece dropped"},
    {"name": "AG-p6-normaliser-pieces-64-correct", "correct": True,
     "cells": {"sample": SAMPLE.format(softmax=NORM_PIECES.format(c=64, stop="v"))},
     "why": "every piece read"},
    {"name": "AG-p7-candidates-pieces-8-last-dropped", "correct": False,
     "cells": {"beam_search": BEAM.format(c=8, stop="max(vocab - vocab % 8, 1)")},
     "why": "the candidates' top k taken per piece of 8 ids, the last shorter piece never read"},
    {"name": "AG-p7-candidates-pieces-64-last-dropped", "correct": False,
     "cells": {"beam_search": BEAM.format(c=64, stop="max(vocab - vocab % 64, 1)")},
     "why": "the candidates' top k taken per piece of 64 ids, the last shorter piece never read"},
    {"name": "AG-p7-candidates-pieces-8-correct", "correct": True,
     "cells": {"beam_search": BEAM.format(c=8, stop="vocab")},
     "why": "every piece read"},
]

# fourth pass: Part 1's rows in chunks
SUBMISSIONS += [
    {"name": "AG-p1-row-chunks-8-last-pad", "correct": False, "cells": {"decoder_io": '''
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
'''}, "why": "rows in chunks of 8, the last shorter chunk left as PAD"},
]

# fifth pass: Part 6's top_k cut taken per piece of the vocabulary
SUBMISSIONS += [
    {"name": "AG-p6-topk-per-piece-64-last-dropped", "correct": False, "cells": {"sample": SAMPLE.format(
        softmax="probs = torch.softmax(scores, dim=-1)").replace('''        if top_k is not None and top_k < scores.shape[-1]:
            kept = scores.topk(top_k, dim=-1).indices
''', '''        if top_k is not None and top_k < scores.shape[-1]:
            v = scores.shape[-1]
            vals, idx = [], []
            for a in range(0, max(v - v % 64, 1), 64):  # each piece of 64 ids' top_k first
                bv, bi = scores[:, a:a + 64].topk(min(top_k, scores[:, a:a + 64].shape[-1]), dim=-1)
                vals.append(bv)
                idx.append(bi + a)
            vals, idx = torch.cat(vals, dim=-1), torch.cat(idx, dim=-1)
            kept = idx.gather(-1, vals.topk(min(top_k, vals.shape[-1]), dim=-1).indices)
''')}, "why": "the top_k cut taken per piece of 64 ids, the last shorter piece never read"},
]
