SUBMISSIONS = [
{"name": "copy_page_cached_count", "correct": False, "cells": {
 "cache_count_without": '''
def score_products(n, cached):
    # query-key dot products of one self-attention layer over n decoding steps
    return sum(t if cached else t * t for t in range(1, n + 1))

def prefill_dot_products(prompt_len, chunk, layers, heads):
    return layers * heads * score_products(prompt_len, True)
''',
 "cache_count_with": '''
def score_products(n, cached):
    # query-key dot products of one self-attention layer over n decoding steps
    return sum(t if cached else t * t for t in range(1, n + 1))

def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    return layers * heads * score_products(prompt_len + max(new_tokens - 1, 0), True)
'''}, "why": "index.md score_products cell, cached branch, times L*H (3 changed lines per cell)"},
{"name": "copy_page_uncached_prefill", "correct": False, "cells": {
 "cache_count_without": '''
def score_products(n, cached):
    return sum(t if cached else t * t for t in range(1, n + 1))

def prefill_dot_products(prompt_len, chunk, layers, heads):
    return layers * heads * score_products(prompt_len, False)
'''}, "why": "index.md score_products, uncached branch"},
{"name": "student_loops_correct", "correct": True, "cells": {
 "cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    done, total = 0, 0
    while done < prompt_len:
        size = min(chunk, prompt_len - done)
        total += size * (done + size)
        done += size
    return layers * heads * total
''',
 "cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    keys = prompt_len
    for _ in range(new_tokens - 1):
        keys += 1
        total += layers * heads * keys
    return total
'''}, "why": "while loop over chunks, loop over steps"},
{"name": "request_counts_last_token_fed", "correct": False, "cells": {
 "cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for j in range(1, new_tokens):
        total += layers * heads * (prompt_len + j - 1)
    return total
'''}, "why": "step j's query meets only the cached keys"},
]
