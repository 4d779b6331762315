"""Chapter 6, Part 4: a floor under the kept probabilities (chapters 8 and 9's class in round 19), swept by the lead
developer. timeout 1800 python tests/redteam_grade.py 06-variants tests/redteam/round19/06-floor.py
"""
SUBMISSIONS = [{'cells': {'min_p_sample': 'def min_p_sample(logits, min_p, generator):\n'
                            '    probs = logits.softmax(dim=-1)\n'
                            '    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)\n'
                            '    kept = torch.where(keep, probs, torch.zeros_like(probs)).clamp(min=1e-12)\n'
                            '    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)  # multinomial '
                            'renormalises each row'},
  'correct': False,
  'name': 'p4_floor_1e_12',
  'why': 'dropped tokens keep a tiny probability (round 19, class from ch08/ch09: a floor under the probabilities '
         'handed to torch.multinomial)'},
 {'cells': {'min_p_sample': 'def min_p_sample(logits, min_p, generator):\n'
                            '    probs = logits.softmax(dim=-1)\n'
                            '    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)\n'
                            '    kept = torch.where(keep, probs, torch.zeros_like(probs)).clamp(min=1e-20)\n'
                            '    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)  # multinomial '
                            'renormalises each row'},
  'correct': False,
  'name': 'p4_floor_1e_20',
  'why': 'dropped tokens keep a tiny probability (round 19, class from ch08/ch09: a floor under the probabilities '
         'handed to torch.multinomial)'},
 {'cells': {'min_p_sample': 'def min_p_sample(logits, min_p, generator):\n'
                            '    probs = logits.softmax(dim=-1)\n'
                            '    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)\n'
                            '    kept = torch.where(keep, probs, torch.zeros_like(probs)) + 1e-12\n'
                            '    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)  # multinomial '
                            'renormalises each row'},
  'correct': False,
  'name': 'p4_eps_added_1e_12',
  'why': 'dropped tokens keep a tiny probability (round 19, class from ch08/ch09: a floor under the probabilities '
         'handed to torch.multinomial)'},
 {'cells': {'min_p_sample': 'def min_p_sample(logits, min_p, generator):\n'
                            '    probs = logits.softmax(dim=-1)\n'
                            '    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)\n'
                            "    masked = logits.masked_fill(~keep, float('-inf'))\n"
                            '    return masked.softmax(-1).multinomial(num_samples=1, generator=generator)[:, 0]'},
  'correct': True,
  'name': 'p4_masked_logits_then_multinomial',
  'why': 'dropped logits set to -inf, softmax again, Tensor.multinomial by keyword: weights exactly 0'},
 {'cells': {'min_p_sample': 'def min_p_sample(logits, min_p, generator):\n'
                            '    probs = logits.softmax(dim=-1)\n'
                            '    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)\n'
                            '    kept = torch.where(keep, probs, torch.zeros_like(probs))\n'
                            '    rows = [torch.multinomial(kept[i] / kept[i].sum(), 1, generator=generator) for i in '
                            'range(kept.shape[0])]\n'
                            '    return torch.cat(rows) if rows else torch.zeros(0, dtype=torch.int64)'},
  'correct': True,
  'name': 'p4_per_row_loop',
  'why': 'one multinomial call per row, each row renormalised by hand'}]
