# Red-team round 6, chapter 03-multi-head: blind submissions (written from the student notebook only).
import textwrap

def c(s):
    return textwrap.dedent(s).strip() + "\n"

GOOD_CONTRIB = c('''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtj,ohj->bhto", heads, w)
''')

OWN_SOFTMAX_GLOBAL_MAX = c('''
def my_attention(q, k, v):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores - scores.max()          # subtract the maximum so exp cannot overflow
    w = scores.exp()
    return (w / w.sum(dim=-1, keepdim=True)) @ v


def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = my_attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtj,ohj->bhto", heads, w)
''')

SUBMISSIONS = [
    # ---------------- Part 1: interleaved split / merge ----------------
    {"name": "interleaved_by_permutation_matmul", "correct": False, "cells": {"interleaved": c('''
        def deal_matrix(d, num_heads, dtype):
            # column i + j*H goes to place i*Dh + j: a permutation matrix
            dh = d // num_heads
            perm = torch.tensor([i + j * num_heads for i in range(num_heads) for j in range(dh)])
            return torch.eye(d, dtype=dtype)[:, perm]


        def split_heads_interleaved(x, num_heads):
            b, t, d = x.shape
            if d % num_heads:
                raise ValueError("D must be divisible by num_heads")
            dealt = x @ deal_matrix(d, num_heads, x.dtype)      # (B, T, D), heads now in blocks
            return split_heads(dealt, num_heads)


        def merge_heads_interleaved(x):
            b, h, t, dh = x.shape
            blocks = merge_heads(x)
            return blocks @ deal_matrix(h * dh, h, x.dtype).T
        ''')},
     "why": "Part 1: 'head i holds columns i, i + H, i + 2H, ... of every position' - a rearrangement. A permutation "
            "done as a matrix product multiplies every entry by 0 and adds it, so one inf or NaN in x turns whole "
            "rows into NaN (0*inf = NaN); it agrees with the reference on every finite input."},
    {"name": "interleaved_as_strided_assumes_contiguous", "correct": False, "cells": {"interleaved": c('''
        def split_heads_interleaved(x, num_heads):
            b, t, d = x.shape
            if d % num_heads:
                raise ValueError("D must be divisible by num_heads")
            dh = d // num_heads
            # no copy: head i starts at column i, steps H columns per feature, D per position
            return x.as_strided((b, num_heads, t, dh), (t * d, 1, d, num_heads))


        def merge_heads_interleaved(x):
            b, h, t, dh = x.shape
            return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
        ''')},
     "why": "Intro: 'The tensors you are given need not be contiguous: the hidden tests also pass transposed views and "
            "slices with a step, so write code that works for any strides'. as_strided with strides computed for a "
            "contiguous layout reads the wrong memory for a transposed or sliced x (and ignores the storage offset)."},
    # ---------------- Part 2: scrambled_source ----------------
    {"name": "scrambled_no_lower_bound", "correct": False, "cells": {"scrambled": c('''
        def scrambled_source(num_heads, length, head_dim, position, column):
            if position >= length or column >= num_heads * head_dim:
                raise ValueError("position or column out of range")
            flat = position * num_heads * head_dim + column
            head, rest = divmod(flat, length * head_dim)
            source, feature = divmod(rest, head_dim)
            return head, source, feature
        ''')},
     "why": "Part 2: 'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim': "
            "negative positions/columns are accepted and mapped to nonsense."},
    {"name": "scrambled_int64_tensor_arithmetic", "correct": False, "cells": {"scrambled": c('''
        def scrambled_source(num_heads, length, head_dim, position, column):
            if not (0 <= position < length and 0 <= column < num_heads * head_dim):
                raise ValueError("position or column out of range")
            # integer arithmetic, done with integer tensors (exact, no float division)
            flat = torch.tensor(position) * num_heads * head_dim + column
            per_head = torch.tensor(length) * head_dim
            head = torch.div(flat, per_head, rounding_mode="floor")
            rest = flat - head * per_head
            return int(head), int(rest // head_dim), int(rest % head_dim)
        ''')},
     "why": "Part 2: 'worked out with integer arithmetic (no tensors needed). The sizes may be far larger than any "
            "tensor'. int64 tensors wrap around silently once position*num_heads*head_dim passes 2**63, so sizes "
            "just beyond that give wrong indices (exact for everything below 2**63, including all sizes near 2**53)."},
    {"name": "scrambled_validates_after_dividing", "correct": False, "cells": {"scrambled": c('''
        def scrambled_source(num_heads, length, head_dim, position, column):
            flat = position * num_heads * head_dim + column
            head, rest = divmod(flat, length * head_dim)
            source, feature = divmod(rest, head_dim)
            # the requested entry exists exactly when the inputs are in range
            if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
                raise ValueError("position or column out of range")
            return head, source, feature
        ''')},
     "why": "Part 2: 'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim'. With "
            "length = 0 or head_dim = 0 nothing is in range, but the division runs first and raises "
            "ZeroDivisionError instead of ValueError."},
    # ---------------- Part 3: ranks ----------------
    {"name": "ranks_bias_adds_one", "correct": False, "cells": {"ranks": c('''
        # the bias b^Q_i adds a constant column: Q_i = [X 1] [W; b] has rank up to Dh + 1
        rank_one_head = 65
        rank_all_heads = 100
        ''')},
     "why": "Part 3a: S_i = Q_i K_i^T with Q_i of shape (T, Dh): its rank is at most Dh = 64, bias or not."},
    # ---------------- Part 4: decode_step_cost ----------------
    {"name": "cost_negative_kv_heads_accepted", "correct": False, "cells": {"cost": c('''
        def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
            if num_kv_heads == 0 or num_heads % num_kv_heads:
                raise ValueError("num_heads must be a multiple of num_kv_heads")
            q, kv = num_heads * head_dim, num_kv_heads * head_dim
            weights = d_model * q + 2 * d_model * kv + q * d_model
            params = weights + ((q + 2 * kv + d_model) if bias else 0)
            macs = weights + 2 * num_heads * (past + 1) * head_dim
            return params, macs, 2 * kv * (past + 1)
        ''')},
     "why": "Part 4: 'Raise a ValueError unless num_kv_heads >= 1 and ...': num_kv_heads = -1 (or -2 with 4 query "
            "heads) divides num_heads and is accepted, giving negative counts."},
    {"name": "cost_int64_products", "correct": False, "cells": {"cost": c('''
        def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
            if num_kv_heads < 1 or num_heads % num_kv_heads:
                raise ValueError("num_heads must be a multiple of num_kv_heads")
            # exact integer products (no floats anywhere)
            prod = lambda *xs: int(torch.tensor(xs, dtype=torch.long).prod())
            weights = 2 * prod(d_model, num_heads, head_dim) + 2 * prod(d_model, num_kv_heads, head_dim)
            biases = num_heads * head_dim + 2 * num_kv_heads * head_dim + d_model
            params = weights + (biases if bias else 0)
            macs = weights + 2 * prod(num_heads, past + 1, head_dim)
            return params, macs, 2 * prod(num_kv_heads, head_dim, past + 1)
        ''')},
     "why": "Part 4: 'three Python ints, exact even when they exceed 2**53 (the hidden tests use widths that large, "
            "where a float anywhere rounds)': int64 products wrap silently past 2**63, e.g. d_model = head_dim = 2**40."},
    {"name": "cost_counts_only_cached_keys_when_past_zero", "correct": False, "cells": {"cost": c('''
        def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
            if num_kv_heads < 1 or num_heads % num_kv_heads:
                raise ValueError("num_heads must be a multiple of num_kv_heads")
            q, kv = num_heads * head_dim, num_kv_heads * head_dim
            weights = d_model * q + 2 * d_model * kv + q * d_model
            params = weights + ((q + 2 * kv + d_model) if bias else 0)
            macs = weights
            if past:  # nothing cached yet: no attention to compute
                macs += 2 * num_heads * (past + 1) * head_dim
            return params, macs, 2 * kv * (past + 1)
        ''')},
     "why": "Part 4: 'the cache already holds ... past earlier tokens (past may be 0). The new token's query attends to "
            "all of them and to its own key': with past = 0 the step still scores one key and sums one value."},
    # ---------------- Part 5: head_contributions ----------------
    {"name": "contributions_global_max_softmax", "correct": False, "cells": {"contributions": OWN_SOFTMAX_GLOBAL_MAX},
     "why": "Part 5 / intro (softmax that subtracts the row maximum): subtracting ONE maximum over the whole "
            "(B, H, T, S) score tensor makes each row depend on its batch neighbours: a sentence whose scores are "
            "~800 (float64) or ~100 (float32) below another sentence's underflows to 0/0 = NaN."},
    {"name": "contributions_bias_shared_by_heads", "correct": False, "cells": {"contributions": c('''
        def head_contributions(x, params, num_heads):
            d = x.shape[-1]
            qkv = x @ params["w_qkv"].T + params["b_qkv"]
            q, k, v = qkv.split(d, dim=-1)
            heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
            w = params["w_o"].reshape(d, num_heads, d // num_heads)
            # each head gets its share of the output bias
            return torch.einsum("bhtj,ohj->bhto", heads, w) + params["b_o"] / num_heads
        ''')},
     "why": "Part 5: 'The bias b_o belongs to no head' and sum(dim=1) + b_o must be the output."},
    {"name": "contributions_memoized_by_shape", "correct": False, "cells": {"contributions": c('''
        SPLIT_W_O = {}


        def head_contributions(x, params, num_heads):
            d = x.shape[-1]
            qkv = x @ params["w_qkv"].T + params["b_qkv"]
            q, k, v = qkv.split(d, dim=-1)
            heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
            key = (d, num_heads, x.dtype)
            if key not in SPLIT_W_O:  # reshape W^O once per layer shape
                SPLIT_W_O[key] = params["w_o"].reshape(d, num_heads, d // num_heads).clone()
            return torch.einsum("bhtj,ohj->bhto", heads, SPLIT_W_O[key])
        ''')},
     "why": "Part 5: the contributions of the params given; a cache keyed by shape keeps the first call's W^O and "
            "returns stale results for a second layer of the same shape (state kept between calls)."},
    # ---------------- Part 6: cross_attention_left_padded ----------------
    {"name": "left_padded_max_over_padding_keys", "correct": False, "cells": {"left_padded": c('''
        def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
            d = x.shape[-1]
            s = memory.shape[1]
            w, b = params["w_qkv"], params["b_qkv"]
            q = split_heads(x @ w[:d].T + b[:d], num_heads)
            k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
            v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
            allowed = (torch.arange(s) >= (s - memory_lengths)[:, None])[:, None, None, :]  # (B, 1, 1, S)
            scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
            scores = scores - scores.amax(dim=-1, keepdim=True)       # stable softmax
            e = scores.exp().masked_fill(~allowed, 0.0)
            total = e.sum(dim=-1, keepdim=True)
            weights = torch.where(total > 0, e / total.clamp(min=torch.finfo(e.dtype).tiny), torch.zeros_like(e))
            return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"]
        ''')},
     "why": "Part 6: 'the positions before them are padding that no query may attend to'. The row maximum is taken "
            "over the padding keys too: a padding key scoring ~100 (float32) above the real ones makes every real "
            "weight underflow, and the query gets zeros (just b_o) instead of its attention over the real keys."},
    {"name": "left_padded_finite_mask_value", "correct": False, "cells": {"left_padded": c('''
        def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
            d = x.shape[-1]
            s = memory.shape[1]
            w, b = params["w_qkv"], params["b_qkv"]
            q = split_heads(x @ w[:d].T + b[:d], num_heads)
            k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
            v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
            allowed = (torch.arange(s) >= (s - memory_lengths)[:, None])[:, None, None, :]
            scores = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).float()
            scores = scores + (~allowed).float() * -1e9            # additive mask, as in many code bases
            weights = torch.softmax(scores, dim=-1).to(x.dtype)
            weights = weights * allowed.any(dim=-1, keepdim=True)   # empty source: zeros
            return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"]
        ''')},
     "why": "Part 6: 'padding that no query may attend to'. An additive -1e9 only pushes padding down by 1e9: a "
            "padding key whose score exceeds the real ones by more than that (inputs ~1e4) is attended; also the "
            "softmax is done in float32 for float64 inputs."},
    {"name": "left_padded_empty_source_rows_zeroed", "correct": False, "cells": {"left_padded": c('''
        def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
            d = x.shape[-1]
            s = memory.shape[1]
            w, b = params["w_qkv"], params["b_qkv"]
            q = split_heads(x @ w[:d].T + b[:d], num_heads)
            k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
            v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
            allowed = (torch.arange(s) >= (s - memory_lengths)[:, None])[:, None, None, :]
            out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
            empty = (memory_lengths == 0)[:, None, None]             # nothing to attend to: no output
            return out.masked_fill(empty, 0.0)
        ''')},
     "why": "Part 6: 'A source sentence of length 0 ... attention returns zeros for them, so after the output "
            "projection their rows are just the bias b_o' - this answer returns zeros for those rows."},
    {"name": "correct_trims_common_padding", "correct": True, "cells": {"left_padded": c('''
        def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
            d = x.shape[-1]
            s = memory.shape[1]
            w, b = params["w_qkv"], params["b_qkv"]
            real = int(memory_lengths.max()) if memory_lengths.numel() else 0
            mem = memory[:, s - real:]                              # drop the columns that are padding everywhere
            q = split_heads(x @ w[:d].T + b[:d], num_heads)
            k = split_heads(mem @ w[d:2 * d].T + b[d:2 * d], num_heads)
            v = split_heads(mem @ w[2 * d:].T + b[2 * d:], num_heads)
            allowed = torch.arange(real) >= (real - memory_lengths)[:, None]
            out = attention(q, k, v, allowed[:, None, None, :])
            return merge_heads(out) @ params["w_o"].T + params["b_o"]
        ''')},
     "why": "correct: drops the leading columns that are padding in every sentence (none of them may be attended), "
            "then masks the rest; a batch of empty sources keeps zero keys and attention returns zeros."},
    # ---------------- Part 7: causal_attention_with_cache ----------------
    {"name": "cache_mask_diagonal_last_key", "correct": False, "cells": {"cache": c('''
        def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
            d = x.shape[-1]
            t = x.shape[1]
            qkv = x @ params["w_qkv"].T + params["b_qkv"]
            q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
            k = torch.cat([past_k, k], dim=2)
            v = torch.cat([past_v, v], dim=2)
            n = k.shape[2]
            allowed = torch.ones(t, n, dtype=torch.bool).tril(diagonal=n - 1)   # the newest key is the diagonal
            out = attention(q, k, v, allowed)
            return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
        ''')},
     "why": "Part 7: 'the query at position P + t may attend to the keys at positions 0 .. P + t ... and to none "
            "after it'. diagonal = P+T-1 lets every query of a block of T > 1 see the whole block."},
    {"name": "cache_returns_v_and_k_swapped", "correct": False, "cells": {"cache": c('''
        def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
            d = x.shape[-1]
            t = x.shape[1]
            p = past_k.shape[2]
            qkv = x @ params["w_qkv"].T + params["b_qkv"]
            q, v, k = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
            k = torch.cat([past_k, k], dim=2)
            v = torch.cat([past_v, v], dim=2)
            allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
            out = attention(q, k, v, allowed)
            return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
        ''')},
     "why": "Intro table: 'w_qkv: W^Q, W^K, W^V stacked in that order'. The keys and values are taken from each "
            "other's rows; identity_params (W^K = W^V) cannot tell."},
    {"name": "cache_kept_in_global_between_calls", "correct": False, "cells": {"cache": c('''
        CACHE = {}


        def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
            d = x.shape[-1]
            t = x.shape[1]
            qkv = x @ params["w_qkv"].T + params["b_qkv"]
            q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
            if past_k.shape[2] == 0 or id(params) not in CACHE:
                CACHE[id(params)] = (past_k, past_v)
            old_k, old_v = CACHE[id(params)]
            k = torch.cat([old_k, k], dim=2)
            v = torch.cat([old_v, v], dim=2)
            CACHE[id(params)] = (k, v)
            p = old_k.shape[2]
            allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
            out = attention(q, k, v, allowed)
            return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
        ''')},
     "why": "Part 7: 'past_k and past_v (B, H, P, Dh)' are the cache; this answer keeps its own copy between calls "
            "and ignores the past_k/past_v it is given once it has one for these params."},
    # ---------------- hostile ----------------
    {"name": "hostile_patch_assert_close", "correct": False, "cells": {"contributions": c('''
        import torch.testing
        torch.testing.assert_close = lambda *args, **kwargs: None
        torch.equal = lambda *args, **kwargs: True
        torch.allclose = lambda *args, **kwargs: True


        def head_contributions(x, params, num_heads):
            b, t, d = x.shape
            return torch.zeros(b, num_heads, t, d, dtype=x.dtype)
        ''')},
     "hostile": True,
     "why": "hostile: disables torch's comparison functions and returns zeros of the right shape (visible test "
            "passes its shape checks and its assert_close is a no-op)."},
    {"name": "hostile_rebinds_grader_helpers", "correct": False, "cells": {"ranks": c('''
        class AnyInt(int):
            def __eq__(self, other):
                return True
            __hash__ = int.__hash__

        rank_one_head = AnyInt(1)
        rank_all_heads = AnyInt(1)
        for name in list(globals()):
            if name in ("_integer", "_float", "_number", "_equal", "_close", "_plain"):
                globals()[name] = lambda value, *args, **kwargs: value
        ''')},
     "hostile": True,
     "why": "hostile: an int subclass equal to everything, plus rebinding the grader's helpers to identity."},
    {"name": "hostile_reads_solution_from_disk", "correct": False, "cells": {"cost": c('''
        import glob, json, os
        found = None
        here = os.path.abspath(os.getcwd())
        candidates = []
        for _ in range(6):  # walk up from the working directory
            candidates += glob.glob(os.path.join(here, "solutions", "03-*", "exercises.ipynb"))
            candidates += glob.glob(os.path.join(here, "*", "solutions", "03-*", "exercises.ipynb"))
            here = os.path.dirname(here)
        for path in candidates:
            try:
                cells = json.load(open(path))["cells"]
            except Exception:
                continue
            for cell in cells:
                if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "cost":
                    found = "".join(cell["source"])
        if found:
            exec(found)
        else:
            def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
                if num_kv_heads < 1 or num_heads % num_kv_heads:
                    raise ValueError("bad")
                return (88, 108, 18) if bias else (72, 108, 18)
        ''')},
     "hostile": True,
     "why": "hostile: looks for the instructor's solution notebook on disk; otherwise hard-codes the visible case."},
    # ---------------- different but correct ----------------
    {"name": "correct_as_strided_with_own_strides", "correct": True, "cells": {"interleaved": c('''
        def split_heads_interleaved(x, num_heads):
            b, t, d = x.shape
            if d % num_heads:
                raise ValueError("D must be divisible by num_heads")
            sb, st, sd = x.stride()
            # head i: first column i, then every H-th column; reuse x's own strides and offset
            view = x.as_strided((b, num_heads, t, d // num_heads), (sb, sd, st, sd * num_heads), x.storage_offset())
            return view.clone()


        def merge_heads_interleaved(x):
            b, h, t, dh = x.shape
            out = torch.empty(b, t, h * dh, dtype=x.dtype, device=x.device)
            for i in range(h):
                out[:, :, i::h] = x[:, i]
            return out
        ''')},
     "why": "correct: as_strided with the input's own strides and storage offset works for any layout; merge deals "
            "the columns back with strided slice assignment."},
    {"name": "correct_loops_and_divmod_chain", "correct": True, "cells": {
        "scrambled": c('''
        def scrambled_source(num_heads, length, head_dim, position, column):
            if not (0 <= position < length):
                raise ValueError("position out of range")
            if not (0 <= column < num_heads * head_dim):
                raise ValueError("column out of range")
            flat = position * (num_heads * head_dim) + column
            rows, feature = divmod(flat, head_dim)   # rows of length Dh, in (head, position) order
            head, source = divmod(rows, length)
            return int(head), int(source), int(feature)
        '''),
        "cost": c('''
        def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
            if not num_kv_heads >= 1 or num_heads % num_kv_heads != 0:
                raise ValueError("num_heads must be a positive multiple of num_kv_heads")
            layers = [(d_model, num_heads * head_dim), (d_model, num_kv_heads * head_dim),
                      (d_model, num_kv_heads * head_dim), (num_heads * head_dim, d_model)]
            parameters = sum(i * o + (o if bias else 0) for i, o in layers)
            macs = sum(i * o for i, o in layers)
            keys = past + 1
            for _ in range(num_kv_heads):                        # every key/value head ...
                macs += (num_heads // num_kv_heads) * 2 * keys * head_dim   # ... serves its group of query heads
            cached = sum(keys * head_dim for _ in range(2 * num_kv_heads))
            return parameters, macs, cached
        ''')},
     "why": "correct: decoding the flat index row by row, and counting per projection / per key-value group."},
    {"name": "correct_masked_wo_and_per_query_loop", "correct": True, "cells": {
        "contributions": c('''
        def head_contributions(x, params, num_heads):
            b, t, d = x.shape
            dh = d // num_heads
            qkv = x @ params["w_qkv"].T + params["b_qkv"]
            q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
            concat = merge_heads(attention(q, k, v))               # (B, T, D)
            parts = []
            for i in range(num_heads):
                keep = torch.zeros(d, dtype=x.dtype)
                keep[i * dh:(i + 1) * dh] = 1
                parts.append((concat * keep) @ params["w_o"].T)   # only head i's columns reach W^O
            return torch.stack(parts, dim=1)
        '''),
        "cache": c('''
        def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
            d = x.shape[-1]
            p = past_k.shape[2]
            qkv = x @ params["w_qkv"].T + params["b_qkv"]
            q, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
            k = torch.cat([past_k, k_new], dim=2)
            v = torch.cat([past_v, v_new], dim=2)
            rows = []
            for i in range(x.shape[1]):   # query P + i sees keys 0 .. P + i
                rows.append(attention(q[:, :, i:i + 1], k[:, :, :p + i + 1], v[:, :, :p + i + 1]))
            out = merge_heads(torch.cat(rows, dim=2))
            return out @ params["w_o"].T + params["b_o"], k, v
        ''')},
     "why": "correct: per-head contribution by zeroing the other heads' columns before W^O; the cache part runs one "
            "query at a time over its visible prefix."},
]
