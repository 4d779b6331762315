GEN = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    logits, cache = step(prompt, None)
    seen = prompt.clone()
    finished = torch.zeros(prompt.shape[0], dtype=torch.bool)
    chosen = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        occurs = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, seen, True)
        penalised = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(occurs, penalised, scores)
        if temperature == 0:
            token = {GREEDY}
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            token = {DRAW}
        token = torch.where(finished, torch.full_like(token, pad_id), token)
        chosen.append(token)
        finished = finished | (token == eos_id)
        seen = torch.cat([seen, token[:, None]], dim=1)
        if bool(finished.all()) or i + 1 == max_new_tokens:
            break
        logits, cache = step(token[:, None], cache)
    return torch.stack(chosen, dim=1)
'''
MULT = "torch.multinomial(probs, 1, generator=generator)[:, 0]"
ARG = "scores.argmax(dim=-1)"
def gen(greedy=ARG, draw=MULT):
    return {"generate_with_cache": GEN.replace("{GREEDY}", greedy).replace("{DRAW}", draw)}
SUBMISSIONS = [
    {"name": "s1_greedy_on_softmax", "correct": False, "cells": gen(greedy="torch.softmax(scores, dim=-1).argmax(dim=-1)"),
     "why": "S1: greedy argmax taken on softmax's probabilities (near ties round to equal)"},
    {"name": "s1_greedy_on_log_softmax", "correct": False, "cells": gen(greedy="torch.log_softmax(scores, dim=-1).argmax(dim=-1)"),
     "why": "S1: greedy argmax taken on log-probabilities"},
    {"name": "s1_greedy_on_float16_scores", "correct": False, "cells": gen(greedy="scores.half().argmax(dim=-1)"),
     "why": "S1: greedy argmax on a float16 copy"},
    {"name": "s1_draw_softmax_before_temperature", "correct": False,
     "cells": gen(draw="torch.multinomial(torch.softmax(scores, dim=-1) ** (1 / temperature) / (torch.softmax(scores, dim=-1) ** (1 / temperature)).sum(-1, keepdim=True), 1, generator=generator)[:, 0]"),
     "why": "S1: the temperature applied to probabilities (p ** (1/T) renormalised), the same in reals"},
    {"name": "s3_gumbel_max_same_distribution", "correct": False,
     "cells": gen(draw="(probs.log() - torch.log(-torch.log(torch.rand(probs.shape, generator=generator, dtype=probs.dtype)))).argmax(dim=-1)"),
     "why": "S3: Gumbel-max with the generator: the same distribution, other draws (text fixes torch.multinomial)"},
    {"name": "s3_inverse_cdf_same_distribution", "correct": False,
     "cells": gen(draw="torch.searchsorted(probs.cumsum(-1), torch.rand(probs.shape[0], 1, generator=generator), right=True)[:, 0].clamp(max=probs.shape[-1] - 1)"),
     "why": "S3: inverse-CDF sampling, the same distribution, other draws"},
]
SUBMISSIONS.append({"name": "model", "correct": True, "cells": {}, "why": "model answer"})
