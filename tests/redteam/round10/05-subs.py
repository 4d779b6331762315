A_OK = '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n, r = divmod(prompt_len, chunk)
    full = chunk * chunk * n * (n + 1) // 2
    last = r * (n * chunk + r)
    return (full + last) * layers * heads
'''
B_OK = '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    g = max(new_tokens - 1, 0)
    gen = g * prompt_len + g * (g + 1) // 2
    return prefill_dot_products(prompt_len, chunk, layers, heads) + gen * layers * heads
'''
def A(name, correct, code, why):
    return {"name": name, "correct": correct, "cells": {"cache_count_without": code, "cache_count_with": B_OK}, "why": why}
def Bq(name, correct, code, why):
    return {"name": name, "correct": correct, "cells": {"cache_count_without": A_OK, "cache_count_with": code}, "why": why}

SUBMISSIONS = [
A("a_closed_form", True, A_OK, "closed form with divmod and //"),
A("a_loop_over_chunks", True, '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total, s = 0, 0
    while s < prompt_len:
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
        s += m
    return total * layers * heads
''', "loop over chunks (fewer than 200000)"),
A("a_range_step", True, '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    return layers * heads * sum(min(chunk, prompt_len - s) * min(s + chunk, prompt_len) for s in range(0, prompt_len, chunk))
''', "range with step over chunk starts"),
A("a_square_differences", True, '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    # each chunk [s, e) costs (e - s) * e; sum over chunk ends
    ends = list(range(chunk, prompt_len, chunk)) + ([prompt_len] if prompt_len > 0 else [])
    total, start = 0, 0
    for e in ends:
        total += (e - start) * e
        start = e
    return int(total) * int(layers) * int(heads)
''', "chunk ends"),
# wrong (a)
A("a_true_division_int", False, '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n, r = divmod(prompt_len, chunk)
    full = int(chunk * chunk * n * (n + 1) / 2)
    return (full + r * (n * chunk + r)) * layers * heads
''', "a float (any /) is no longer exact past 2**53; use //"),
A("a_ceil_float_chunks", False, '''
import math
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    for i in range(math.ceil(prompt_len / chunk)):
        s = i * chunk
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
    return total * layers * heads
''', "prompt_len / chunk is a float: wrong chunk count for huge sizes (use //)"),
A("a_int64_tensor", False, '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    starts = torch.arange(0, prompt_len, chunk, dtype=torch.int64)
    m = torch.clamp(prompt_len - starts, max=chunk)
    return int((m * (starts + m)).sum()) * layers * heads
''', "an int64 tensor is no longer exact past 2**63"),
A("a_loop_over_positions", False, '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    for i in range(prompt_len):
        end = min((i // chunk + 1) * chunk, prompt_len)
        total += end           # query i is scored against every key of the cache up to its chunk's end
    return total * layers * heads
''', "a loop over the positions of the prompt is not fine (prompts up to 2**62)"),
A("a_renamed_args", False, '''
def prefill_dot_products(prompt_len, chunk_size, layers, heads):
    n, r = divmod(prompt_len, chunk_size)
    return (chunk_size * chunk_size * n * (n + 1) // 2 + r * (n * chunk_size + r)) * layers * heads
''', "tests pass arguments by name: keep the argument names"),
A("a_numpy_int", False, '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    import numpy as np
    n, r = divmod(prompt_len, chunk)
    return int(np.int64(chunk) ** 2 * n * (n + 1) // 2 + r * (n * chunk + r)) * layers * heads
''', "uses another library (NumPy) -> scores 0; int64 overflow too"),
A("a_float_accumulator", False, '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0.0
    s = 0
    while s < prompt_len:
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
        s += m
    return int(total) * layers * heads
''', "accumulating in a float is inexact past 2**53 (exact Python int required)"),
A("a_int_division_closed", False, '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n = int(prompt_len / chunk)
    r = prompt_len - n * chunk
    return (chunk * chunk * n * (n + 1) // 2 + r * (n * chunk + r)) * layers * heads
''', "prompt_len / chunk is a float: int() of it is off for 2**62-sized prompts (use //)"),
# (b) correct
Bq("b_closed_form", True, B_OK, "g=max(N-1,0) steps, step i meets P+i keys"),
Bq("b_loop_tokens", True, '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for i in range(1, new_tokens):
        total += (prompt_len + i) * layers * heads
    return total
''', "loop over generated tokens (< 200000)"),
Bq("b_triangle_difference", True, '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    if new_tokens <= 1:
        extra = 0
    else:
        a, b = prompt_len, prompt_len + new_tokens - 1     # keys of the steps run from a+1 to b
        extra = b * (b + 1) // 2 - a * (a + 1) // 2
    return prefill_dot_products(prompt_len, chunk, layers, heads) + extra * heads * layers
''', "triangle numbers difference"),
Bq("b_no_prefill_call", True, '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total, s = 0, 0
    while s < prompt_len:
        m = min(chunk, prompt_len - s); total += m * (s + m); s += m
    for t in range(prompt_len + 1, prompt_len + new_tokens):
        total += t
    return total * layers * heads
''', "own prefill loop, then steps"),
# (b) wrong
Bq("b_gen_without_layers_heads", False, '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    gen = sum(prompt_len + i for i in range(1, new_tokens))
    return prefill_dot_products(prompt_len, chunk, layers, heads) + gen
''', "count per head and layer: the generation steps too"),
Bq("b_float_division", False, '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    g = max(new_tokens - 1, 0)
    gen = int(g * (2 * prompt_len + g + 1) / 2)
    return prefill_dot_products(prompt_len, chunk, layers, heads) + gen * layers * heads
''', "a float (any /) is not exact past 2**53"),
Bq("b_renamed_args", False, '''
def request_dot_products(prompt_len, chunk, n_new, layers, heads):
    g = max(n_new - 1, 0)
    return prefill_dot_products(prompt_len, chunk, layers, heads) + (g * prompt_len + g * (g + 1) // 2) * layers * heads
''', "keep the stubs' argument names"),
Bq("b_one_token_fed", False, '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    if new_tokens == 0:
        return total
    g = max(new_tokens - 1, 1)          # the first new token is fed at least once
    return total + (g * prompt_len + g * (g + 1) // 2) * layers * heads
''', "the last token chosen is not fed: new_tokens=1 is the prefill alone"),
Bq("b_prefill_chunk_one_probe", True, '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    # generation is a prefill of the extra positions in chunks of one
    base = prefill_dot_products(prompt_len, chunk, layers, heads)
    if new_tokens <= 1:
        return base
    return base + prefill_dot_products(prompt_len + new_tokens - 1, 1, layers, heads) - prefill_dot_products(prompt_len, 1, layers, heads)
''', "mathematically exact (a chunk of 1 at position s costs s+1); relies on prefill_dot_products being fast for 1-token chunks"),
Bq("b_tensor_sum", False, '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = torch.arange(prompt_len + 1, prompt_len + max(new_tokens, 1))
    return prefill_dot_products(prompt_len, chunk, layers, heads) + int(steps.sum()) * layers * heads
''', "int64 tensor: P near 2**62 times 200000 steps overflows"),
Bq("b_returns_float_when_big", False, '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    g = max(new_tokens - 1, 0)
    gen = g * prompt_len + g * (g + 1) / 2
    return prefill_dot_products(prompt_len, chunk, layers, heads) + int(gen) * layers * heads
''', "g*(g+1)/2 is a float; added to the exact g*P, int() of a float past 2**53 is inexact"),
A("a_empty_prompt_float", False, '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    if prompt_len == 0:
        return 0.0
    n, r = divmod(prompt_len, chunk)
    return (chunk * chunk * n * (n + 1) // 2 + r * (n * chunk + r)) * layers * heads
''', "return an exact Python int (not a float, even one of the right value); empty prompt returns 0.0"),
]
