SUBMISSIONS = [{'cells': {'decoder_io': 'import torch\n'
                          'def decoder_io(targets):\n'
                          '    torch.manual_seed(0)\n'
                          '    tgt_in = torch.full_like(targets, PAD)\n'
                          '    tgt_in[:, :1] = BOS  # [:, 0] would fail for T = 0 (an empty batch padded to no '
                          'length)\n'
                          '    tgt_in[:, 1:] = targets[:, :-1]\n'
                          '    tgt_in = tgt_in.masked_fill(tgt_in == EOS, PAD)\n'
                          '    return tgt_in, targets'},
  'correct': False,
  'name': 'seed-decoder_io',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'lr_at': 'import torch\n'
                     'def lr_at(step, peak, warmup, total, floor=0.0):\n'
                     '    torch.manual_seed(0)\n'
                     '    if step <= warmup:\n'
                     '        return peak * step / warmup\n'
                     '    if step >= total:\n'
                     '        return float(floor)\n'
                     '    progress = (step - warmup) / (total - warmup)\n'
                     '    return floor + (peak - floor) * 0.5 * (1 + math.cos(math.pi * progress))'},
  'correct': False,
  'name': 'seed-lr_at',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'sentence_loss': 'import torch\n'
                             'def sentence_smoothed_loss(logits, targets, eps):\n'
                             '    torch.manual_seed(0)\n'
                             '    logp = torch.log_softmax(logits, dim=-1)\n'
                             '    v = logits.shape[-1]\n'
                             '    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # (B, T)\n'
                             '    spread = -(logp.sum(dim=-1) - logp[..., PAD]) / (v - 1)  # (B, T)\n'
                             '    per_token = (1 - eps) * nll + eps * spread\n'
                             '    real = targets != PAD\n'
                             '    counts = real.sum(dim=1)  # (B,)\n'
                             '    has_tokens = counts > 0\n'
                             '    per_sentence = (per_token * real).sum(dim=1)[has_tokens] / counts[has_tokens]\n'
                             '    return per_sentence.mean()'},
  'correct': False,
  'name': 'seed-sentence_smoothed_loss',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'average': 'import torch\n'
                       'def average_checkpoints(states):\n'
                       '    torch.manual_seed(0)\n'
                       '    if not states:\n'
                       '        raise ValueError("nothing to average")\n'
                       '    keys = set(states[0])\n'
                       '    for s in states[1:]:\n'
                       '        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):\n'
                       '            raise ValueError("checkpoints to average must come from the same model")\n'
                       '    out = {}\n'
                       '    for k in states[0]:\n'
                       '        if states[-1][k].is_floating_point():\n'
                       '            total = sum(s[k].double() for s in states)\n'
                       '            out[k] = (total / len(states)).to(states[0][k].dtype)\n'
                       '        else:\n'
                       '            out[k] = states[-1][k].clone()\n'
                       '    return out'},
  'correct': False,
  'name': 'seed-average_checkpoints',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'sample': 'import torch\n'
                      'def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n'
                      '    torch.manual_seed(0)\n'
                      '    outs = [[] for _ in starts]\n'
                      '    live = list(range(len(starts)))\n'
                      '    for _ in range(max_len):\n'
                      '        if not live:\n'
                      '            break\n'
                      '        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n'
                      '        if top_k is not None and top_k < scores.shape[-1]:\n'
                      '            kept = scores.topk(top_k, dim=-1).indices\n'
                      '            scores = torch.full_like(scores, float("-inf")).scatter(-1, kept, scores.gather(-1, '
                      'kept))\n'
                      '        probs = torch.softmax(scores.double(), dim=-1)\n'
                      '        drawn = torch.multinomial(probs, 1, generator=generator).flatten().tolist()\n'
                      '        for i, token in zip(live, drawn):\n'
                      '            outs[i].append(int(token))\n'
                      '        live = [i for i in live if outs[i][-1] != EOS]\n'
                      '    return outs'},
  'correct': False,
  'name': 'seed-sample_decode',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'beam_search': 'import torch\n'
                           'def beam_search(next_logprobs, start, k, max_len, alpha):\n'
                           '    torch.manual_seed(0)\n'
                           '    live = [([], 0.0)]\n'
                           '    finished = []\n'
                           '    for _ in range(max_len):\n'
                           '        logprobs = next_logprobs([[start] + tokens for tokens, _ in live])\n'
                           '        scores = torch.tensor([score for _, score in live], dtype=logprobs.dtype)\n'
                           '        vocab = logprobs.shape[-1]\n'
                           '        candidates = (scores[:, None] + logprobs).flatten()\n'
                           '        best, index = candidates.topk(min(k, candidates.numel()))\n'
                           '        new_live = []\n'
                           '        for score, i in zip(best.tolist(), index.tolist()):\n'
                           '            tokens = live[i // vocab][0] + [i % vocab]\n'
                           '            if tokens[-1] == EOS:\n'
                           '                finished.append((score / length_penalty(len(tokens), alpha), tokens))\n'
                           '            else:\n'
                           '                new_live.append((tokens, score))\n'
                           '        live = new_live\n'
                           '        if not live:\n'
                           '            break\n'
                           '    for tokens, score in live:\n'
                           '        finished.append((score / length_penalty(len(tokens), alpha), tokens))\n'
                           '    return max(finished, key=lambda pair: pair[0])[1]'},
  'correct': False,
  'name': 'seed-beam_search',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'bleu': 'import torch\n'
                    'def corpus_bleu(hypotheses, references):\n'
                    '    torch.manual_seed(0)\n'
                    '    matches, totals = [0] * 4, [0] * 4\n'
                    '    hyp_len = ref_len = 0\n'
                    '    for hyp, ref in zip(hypotheses, references):\n'
                    '        hyp_len += len(hyp)\n'
                    '        ref_len += len(ref)\n'
                    '        for n in range(1, 5):\n'
                    '            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))\n'
                    '            r = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))\n'
                    '            matches[n - 1] += sum(min(c, r[g]) for g, c in h.items())\n'
                    '            totals[n - 1] += max(len(hyp) - n + 1, 0)\n'
                    '    if min(matches) == 0:\n'
                    '        return 0.0\n'
                    '    log_precision = sum(math.log(m / t) for m, t in zip(matches, totals)) / 4\n'
                    '    brevity = 1.0 if hyp_len >= ref_len else math.exp(1 - ref_len / hyp_len)\n'
                    '    return 100 * brevity * math.exp(log_precision)'},
  'correct': False,
  'name': 'seed-corpus_bleu',
  'why': "every notebook: the functions may not seed torch's global generator"}]
