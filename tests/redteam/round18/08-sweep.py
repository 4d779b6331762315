SUBMISSIONS = [{'cells': {'sentence_loss': 'def sentence_smoothed_loss(logits, targets, eps):\n'
                             '    if not logits.requires_grad:\n'
                             '        logits.requires_grad_()\n'
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
  'kind': 'A',
  'name': 'A-p4-requires-grad-on-logits',
  'why': "switches requires_grad on in the caller's logits so that the loss can be differentiated; intro: must not change the tensors given"},
 {'cells': {'average': 'def average_checkpoints(states):\n'
                       '    if not states:\n'
                       '        raise ValueError("nothing to average")\n'
                       '    keys = set(states[0])\n'
                       '    for s in states[1:]:\n'
                       '        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):\n'
                       '            raise ValueError("checkpoints to average must come from the same model")\n'
                       '    out = {}\n'
                       '    for k in states[0]:\n'
                       '        if states[-1][k].is_floating_point():\n'
                       '            for s in states:\n'
                       '                s[k].requires_grad_()\n'
                       '            total = sum(s[k].double() for s in states)\n'
                       '            out[k] = (total / len(states)).to(states[0][k].dtype)\n'
                       '        else:\n'
                       '            out[k] = states[-1][k].clone()\n'
                       '    return out'},
  'correct': False,
  'kind': 'A',
  'name': 'A-p5-requires-grad-on-entries',
  'why': "switches requires_grad on in the caller's floating-point entries; text: do not change the given tensors"},
 {'cells': {'decoder_io': 'IO_CACHE = {}\n'
                          'def decoder_io(targets):\n'
                          '    key = id(targets)\n'
                          '    if key not in IO_CACHE:\n'
                          '        IO_CACHE[key] = decoder_io_impl(targets)[0]\n'
                          '    return IO_CACHE[key].clone(), targets\n'
                          '\n'
                          'def decoder_io_impl(targets):\n'
                          '    tgt_in = torch.full_like(targets, PAD)\n'
                          '    tgt_in[:, :1] = BOS  # [:, 0] would fail for T = 0 (an empty batch padded to no length)\n'
                          '    tgt_in[:, 1:] = targets[:, :-1]\n'
                          '    tgt_in = tgt_in.masked_fill(tgt_in == EOS, PAD)\n'
                          '    return tgt_in, targets'},
  'correct': False,
  'kind': 'B',
  'name': 'B-p1-cached-by-id',
  'why': 'keeps tgt_in per id(targets), cloned; a caller who writes new targets into the same tensor gets the old tgt_in'},
 {'cells': {'sentence_loss': 'MASKS = {}\n'
                             'def sentence_smoothed_loss(logits, targets, eps):\n'
                             '    logp = torch.log_softmax(logits, dim=-1)\n'
                             '    v = logits.shape[-1]\n'
                             '    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # (B, T)\n'
                             '    spread = -(logp.sum(dim=-1) - logp[..., PAD]) / (v - 1)  # (B, T)\n'
                             '    per_token = (1 - eps) * nll + eps * spread\n'
                             '    if id(targets) not in MASKS:\n'
                             '        MASKS[id(targets)] = targets != PAD\n'
                             '    real = MASKS[id(targets)]\n'
                             '    counts = real.sum(dim=1)  # (B,)\n'
                             '    has_tokens = counts > 0\n'
                             '    per_sentence = (per_token * real).sum(dim=1)[has_tokens] / counts[has_tokens]\n'
                             '    return per_sentence.mean()'},
  'correct': False,
  'kind': 'B',
  'name': 'B-p4-mask-cached-by-id',
  'why': 'keeps the PAD mask and counts per id(targets)'},
 {'cells': {'average': 'AVG_CACHE = {}\n'
                       'def average_checkpoints(states):\n'
                       '    key = tuple(id(s) for s in states)\n'
                       '    if key not in AVG_CACHE:\n'
                       '        AVG_CACHE[key] = average_impl(states)\n'
                       '    return {k: v.clone() for k, v in AVG_CACHE[key].items()}\n'
                       '\n'
                       'def average_impl(states):\n'
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
  'kind': 'B',
  'name': 'B-p5-cached-by-id',
  'why': 'keeps the average per the ids of the state dicts, returns clones; the owner keeps writing into its tensors'},
 {'cells': {'sample': 'MEMO = {}\n'
                      'def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n'
                      '    model = next_logprobs\n'
                      '    def next_logprobs(prefixes):\n'
                      '        missing = [p for p in prefixes if (id(model), tuple(p)) not in MEMO]\n'
                      '        if missing:\n'
                      '            for p, row in zip(missing, model(missing)):\n'
                      '                MEMO[(id(model), tuple(p))] = row\n'
                      '        return torch.stack([MEMO[(id(model), tuple(p))] for p in prefixes])\n'
                      '    outs = [[] for _ in starts]\n'
                      '    live = list(range(len(starts)))\n'
                      '    for _ in range(max_len):\n'
                      '        if not live:\n'
                      '            break\n'
                      '        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n'
                      '        if top_k is not None and top_k < scores.shape[-1]:\n'
                      '            kept = scores.topk(top_k, dim=-1).indices\n'
                      '            scores = torch.full_like(scores, float("-inf")).scatter(-1, kept, scores.gather(-1, kept))\n'
                      '        probs = torch.softmax(scores.double(), dim=-1)\n'
                      '        drawn = torch.multinomial(probs, 1, generator=generator).flatten().tolist()\n'
                      '        for i, token in zip(live, drawn):\n'
                      '            outs[i].append(int(token))\n'
                      '        live = [i for i in live if outs[i][-1] != EOS]\n'
                      '    return outs'},
  'correct': False,
  'kind': 'B',
  'name': 'B-p6-model-memo-by-id',
  'why': 'memoises next_logprobs per (id(next_logprobs), prefix) across calls; text: ask next_logprobs once at every step'},
 {'cells': {'beam_search': 'MEMO = {}\n'
                           'def beam_search(next_logprobs, start, k, max_len, alpha):\n'
                           '    model = next_logprobs\n'
                           '    def next_logprobs(prefixes):\n'
                           '        missing = [p for p in prefixes if (id(model), tuple(p)) not in MEMO]\n'
                           '        if missing:\n'
                           '            for p, row in zip(missing, model(missing)):\n'
                           '                MEMO[(id(model), tuple(p))] = row\n'
                           '        return torch.stack([MEMO[(id(model), tuple(p))] for p in prefixes])\n'
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
  'kind': 'B',
  'name': 'B-p7-model-memo-by-id',
  'why': 'memoises next_logprobs per (id(next_logprobs), prefix) across calls'},
 {'cells': {'bleu': 'BLEU_CACHE = {}\n'
                    'def corpus_bleu(hypotheses, references):\n'
                    '    key = (id(hypotheses), id(references))\n'
                    '    if key not in BLEU_CACHE:\n'
                    '        BLEU_CACHE[key] = bleu_impl(hypotheses, references)\n'
                    '    return BLEU_CACHE[key]\n'
                    '\n'
                    'def bleu_impl(hypotheses, references):\n'
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
  'kind': 'B',
  'name': 'B-p8-cached-by-id',
  'why': 'keeps the BLEU per (id(hypotheses), id(references)); lists changed in place and passed again get the old score'},
 {'cells': {'beam_search': 'def beam_search(next_logprobs, start, k, max_len, alpha):\n'
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
                           '    best_score, best = -1e9, []\n'
                           '    for score, tokens in finished:\n'
                           '        if score > best_score:\n'
                           '            best_score, best = score, tokens\n'
                           '    return best'},
  'correct': False,
  'kind': 'C',
  'name': 'C-p7-best-starts-at-neg1e9',
  'why': 'the best final score starts at -1e9 instead of -inf; text: log-probabilities of any size, clamp nothing'},
 {'cells': {'sentence_loss': 'def sentence_smoothed_loss(logits, targets, eps):\n'
                             '    logp = torch.log_softmax(logits, dim=-1)\n'
                             '    v = logits.shape[-1]\n'
                             '    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # (B, T)\n'
                             '    spread = -(logp.sum(dim=-1) - logp[..., PAD]) / (v - 1)  # (B, T)\n'
                             '    per_token = (1 - eps) * nll + eps * spread\n'
                             '    real = targets != PAD\n'
                             '    counts = real.sum(dim=1)  # (B,)\n'
                             '    has_tokens = counts > 0\n'
                             '    per_sentence = (per_token * real).sum(dim=1)[has_tokens] / counts[has_tokens]\n'
                             '    loss = per_sentence.mean()\n'
                             '    if loss.requires_grad:\n'
                             '        loss.backward(retain_graph=True)\n'
                             '    return loss'},
  'correct': False,
  'kind': 'F',
  'name': 'F-p4-backward-inside',
  'why': "runs loss.backward() inside; text: loss.backward() (the caller's) must leave the exact gradient in logits.grad"}]
