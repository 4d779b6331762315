"""Chapter 1 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently that must keep full marks.

Where a mutant stands for one of issue #22's classes of untested properties (every sequence shorter
than T, reduction order, dtype/in-place requirement, argument with a non-default value, inequality
boundary, rare algorithm rule, lying object), its comment says so."""

from grading import kept_output_buffer

CHAPTER = "01-rnn-motivation"
FULL_MARKS = 12.0


def jac(body, signature="x, h, p, leak"):
    return f"\ndef leaky_step_jacobian({signature}):\n" + body + "\n"


def reverse(body):
    return ("\ndef rnn_unroll_reverse(x, lengths, p, h0=None):\n    b, t, _ = x.shape\n"
            "    cell = lambda x_t, h: torch.tanh(x_t @ p['W_ih'].T + p['b_ih'] + h @ p['W_hh'].T + p['b_hh'])\n"
            + body + "\n")


def jacobians(body):
    return ("\ndef jacobian_norms(x, p):\n    b, t, _ = x.shape\n    d_h = p['W_hh'].shape[0]\n"
            "    h = torch.zeros(b, d_h, dtype=x.dtype)\n    states = []\n    for i in range(t):\n"
            "        h = torch.tanh(x[:, i] @ p['W_ih'].T + p['b_ih'] + h @ p['W_hh'].T + p['b_hh'])\n"
            "        states.append(h)\n    product = torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)\n"
            + body + "\n")


def decoder(query="state @ p['W_q'].T", concat="[x[:, i], context]", start="s0",
            coverage_used="coverage", dtype_line="", update="coverage = coverage + alpha"):
    return ("\ndef coverage_decoder(x, h, allowed, s0, p):\n" + dtype_line +
            "    b, t, _ = x.shape\n"
            "    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)\n"
            f"    state, states, weights = {start}, [], []\n"
            "    for i in range(t):\n"
            f"        query = {query}\n"
            "        hidden = torch.tanh(query[:, None, :] + h @ p['W_k'].T + "
            f"{coverage_used}[:, :, None] * p['w_c'])\n"
            "        alpha = torch.softmax((hidden @ p['v']).masked_fill(~allowed, float('-inf')), dim=-1)\n"
            "        context = (alpha[:, :, None] * h).sum(dim=1)\n"
            f"        state = torch.tanh(torch.cat({concat}, dim=-1) @ p['W_ih'].T + p['b_ih'] + state @ p['W_hh'].T + p['b_hh'])\n"
            "        states.append(state)\n        weights.append(alpha)\n"
            f"        {update}\n    return torch.stack(states, dim=1), torch.stack(weights, dim=1)\n")


CANDIDATE = '    candidate = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])\n'
SLOPE = '    slope = leak * (1 - candidate ** 2)\n'
MASKED_SOFTMAX = "        alpha = torch.softmax((hidden @ v).masked_fill(~allowed, float('-inf')), dim=-1)"

# Common wrong answers: name -> (the graded test that must lose points, {answer cell: code}).
# Non-contiguous input (the hidden tests pass a transposed view): .view that merges axes fails there
REVERSE_MERGES_AXES_WITH_VIEW = """
def rnn_unroll_reverse(x, lengths, p, h0=None):
    x = x.view(-1, x.shape[-1]).view(x.shape)
    b, t, _ = x.shape
    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    outputs = [None] * t
    for step in reversed(range(t)):  # from the last column to the first
        inside = (step < lengths)[:, None]  # (B, 1): is x[:, step] a real token of its sequence?
        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(inside, h_new, h)  # at the padding the state waits for the sequence's last token
        outputs[step] = h * inside
    return torch.stack(outputs, dim=1), h  # T x (B, D_h) -> (B, T, D_h)
"""

# the model answer of Part 4, for mutants that change one line of it
REVERSE = """
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    lengths = lengths.long()  # int64: a Python int compared with a uint8 or int8 tensor wraps around
    outputs = [None] * t
    for step in reversed(range(t)):  # from the last column to the first
        inside = (step < lengths)[:, None]  # (B, 1): is x[:, step] a real token of its sequence?
        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(inside, h_new, h)  # at the padding the state waits for the sequence's last token
        outputs[step] = h * inside
    return torch.stack(outputs, dim=1), h  # T x (B, D_h) -> (B, T, D_h)
"""

# Part 5's model answer rewritten to call the earlier parts' functions (round 11, refbind pass): the forward
# states from Part 4's rnn_unroll_reverse (x read backwards, every sequence full, h0 by name), and each step's
# Jacobian from Part 1's leaky_step_jacobian with every rate 1 (the Elman cell); the norms in float64 (red team 18:
# squares of float32 entries near 1e-27 underflow)
NORMS_CALLING_REVERSE = """
def frobenius_scaled(m):  # red team 19 class sweep: divided by the largest entry first (float64 squares underflow below 1e-162)
    top = m.abs().amax(dim=(1, 2), keepdim=True)
    top = torch.where(top > 0, top, torch.ones_like(top))
    return torch.linalg.matrix_norm((m / top).double()) * top[:, 0, 0].double()


def jacobian_norms(x, p):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    outputs, _ = rnn_unroll_reverse(x.flip(1), torch.full((b,), t, dtype=torch.long), p,
                                    h0=torch.zeros(b, d_h, dtype=x.dtype))
    states = outputs.flip(1)  # states[:, s] = h_s
    product = torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)
    norms = [frobenius_scaled(product).mean().to(x.dtype)]
    for s in range(t - 1, 0, -1):
        product = product @ ((1 - states[:, s] ** 2)[:, :, None] * p["W_hh"])
        norms.append(frobenius_scaled(product).mean().to(x.dtype))
    return torch.stack(norms)
"""

NORMS_CALLING_JACOBIAN = """
def frobenius_scaled(m):  # red team 19 class sweep: divided by the largest entry first (float64 squares underflow below 1e-162)
    top = m.abs().amax(dim=(1, 2), keepdim=True)
    top = torch.where(top > 0, top, torch.ones_like(top))
    return torch.linalg.matrix_norm((m / top).double()) * top[:, 0, 0].double()


def jacobian_norms(x, p):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    h = torch.zeros(b, d_h, dtype=x.dtype)
    previous = [h]  # previous[s] = h_{s-1}
    for step in range(t):
        h = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        previous.append(h)
    every = torch.ones(d_h, dtype=x.dtype)  # every rate 1: the Elman cell
    product = torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)
    norms = [frobenius_scaled(product).mean().to(x.dtype)]
    for s in range(t - 1, 0, -1):
        product = product @ leaky_step_jacobian(x[:, s], previous[s], p, every)  # J_s = d h_s / d h_{s-1}
        norms.append(frobenius_scaled(product).mean().to(x.dtype))
    return torch.stack(norms)
"""

# the coverage decoder of the lerp_flip_einsum variant; a mutant makes its coverage update in place
COVERAGE_LERP = """
def coverage_decoder(x, h, allowed, s0, p):
    b, t, _ = x.shape
    cov = x.new_zeros(b, h.shape[1])
    state = s0.clone()
    states, weights = x.new_zeros(b, t, s0.shape[1]), x.new_zeros(b, t, h.shape[1])
    for i in range(t):
        e = torch.tanh((state @ p["W_q"].T)[:, None, :] + h @ p["W_k"].T + cov.unsqueeze(-1) * p["w_c"]) @ p["v"]
        # -inf, not -1e9: with a large v every real score can lie below -1e9 (round 18 class sweep)
        alpha = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)
        context = torch.bmm(alpha.unsqueeze(1), h).squeeze(1)
        step_input = torch.cat([x[:, i], context], dim=1)
        state = torch.tanh(torch.einsum("bi,hi->bh", step_input, p["W_ih"]) + state @ p["W_hh"].T + p["b_ih"] + p["b_hh"])
        states[:, i], weights[:, i] = state, alpha
        cov = cov + alpha  # not in place: the product with w_c saved cov for its gradient (session 17 sweep)
    return states, weights
"""

MUTANTS = {
    "reverse_merges_axes_with_view": ("test_rnn_unroll", {"rnn_unroll": REVERSE_MERGES_AXES_WITH_VIEW}),
    # Part 1: the Jacobian of a leaky step, J[b, i, j] = d h'_i / d h_j
    # the Jacobian's transpose (J[b, i, j] = d h'_j / d h_i): the convention mixed up
    "jacobian_transposed": ("test_rnn_step", {"rnn_step": jac(
        CANDIDATE + SLOPE + '    return slope[:, None, :] * p["W_hh"].T + torch.diag(1 - leak)')}),
    # tanh' scales the columns of W_hh instead of its rows (diag on the wrong side)
    "slope_scales_columns": ("test_rnn_step", {"rnn_step": jac(
        CANDIDATE + SLOPE + '    return slope[:, None, :] * p["W_hh"] + torch.diag(1 - leak)')}),
    # in-place rule, values kept (red team 12): rates already in [0, 1] clamped in place change no value, but a
    # leak that autograd saved for its own backward pass (exp of a learned parameter) then cannot backpropagate
    "jacobian_clamps_rates_in_place": ("test_rnn_step", {"rnn_step": jac(
        "    with torch.no_grad():\n        leak.clamp_(0, 1)\n" + CANDIDATE + SLOPE
        + '    return slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)')}),
    # tanh' taken at the new (leaky) state h' instead of at the candidate: equal only when every rate is 1
    "slope_from_the_new_state": ("test_rnn_step", {"rnn_step": jac(
        CANDIDATE + "    new = (1 - leak) * h + leak * candidate\n    slope = leak * (1 - new ** 2)\n"
        '    return slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)')}),
    # tanh' taken at the old state h
    "slope_from_the_old_state": ("test_rnn_step", {"rnn_step": jac(
        "    slope = leak * (1 - h ** 2)\n"
        '    return slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)')}),
    # the same slip with Part 5 built on Part 1 (round 11, refbind pass): each step's Jacobian from
    # leaky_step_jacobian with every rate 1; Part 5's hidden tests bind a reference of it, so only Part 1 is lost
    "slope_from_the_old_state_with_norms_calling_it": ("test_rnn_step", {"rnn_step": jac(
        "    slope = leak * (1 - h ** 2)\n"
        '    return slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)'), "gradient_norms": NORMS_CALLING_JACOBIAN}),
    # the part of the state each unit keeps is left out: the Elman Jacobian scaled by the rates
    "jacobian_without_the_kept_part": ("test_rnn_step", {"rnn_step": jac(
        CANDIDATE + SLOPE + '    return slope[:, :, None] * p["W_hh"]')}),
    # the kept part counted as the identity, not diag(1 - leak)
    "kept_part_as_the_identity": ("test_rnn_step", {"rnn_step": jac(
        CANDIDATE + SLOPE + '    return slope[:, :, None] * p["W_hh"] + torch.eye(h.shape[1], dtype=h.dtype)')}),
    # dtype class (bfloat16): a float32 torch.eye mixed in keeps float32/float64 right but turns bfloat16 into float32
    "jacobian_float32_eye": ("test_rnn_step", {"rnn_step": jac(
        CANDIDATE + SLOPE + '    return slope[:, :, None] * p["W_hh"] + torch.eye(h.shape[1]) * (1 - leak)')}),
    # precision class: worked in float32 and cast back, so float64 inputs are off by about 1e-7
    "jacobian_in_float32": ("test_rnn_step", {"rnn_step": jac(
        "    dtype = x.dtype\n    x, h, leak = x.float(), h.float(), leak.float()\n"
        "    p = {n: w.float() for n, w in p.items()}\n" + CANDIDATE + SLOPE
        + '    return (slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)).to(dtype)')}),
    # in-place class: the function also advances the state, written into the caller's h
    "jacobian_advances_h_in_place": ("test_rnn_step", {"rnn_step": jac(
        CANDIDATE + SLOPE + '    J = slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)\n'
        "    h.mul_(1 - leak).add_(leak * candidate)  # step on, too\n    return J")}),
    # Red team 9 class, side effects on global state: a leftover torch.manual_seed resets the global generator
    "jacobian_reseeds_global_generator": ("test_rnn_step", {"rnn_step": jac(
        "    torch.manual_seed(0)  # left over from debugging\n" + CANDIDATE + SLOPE
        + '    return slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)')}),
    # Red team 6 class, state kept between calls: W_hh cached per dict, keyed on id(p)
    "jacobian_caches_weights_by_id": ("test_rnn_step", {"rnn_step": """
RECURRENT = {}


def leaky_step_jacobian(x, h, p, leak):
    w_hh = RECURRENT.setdefault(id(p), p["W_hh"].clone())  # once per parameter dict
    candidate = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ w_hh.T + p["b_hh"])
    return (leak * (1 - candidate ** 2))[:, :, None] * w_hh + torch.diag(1 - leak)
"""}),
    # Red team 9 class, a dict argument gains entries: the transposed weights stored back into p
    "jacobian_stores_transposes_in_p": ("test_rnn_step", {"rnn_step": jac(
        '    if "W_ih_T" not in p:\n        p["W_ih_T"], p["W_hh_T"] = p["W_ih"].T, p["W_hh"].T\n'
        '    candidate = torch.tanh(x @ p["W_ih_T"] + p["b_ih"] + h @ p["W_hh_T"] + p["b_hh"])\n' + SLOPE
        + '    return slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)')}),
    # red team 13, a caller's container entry replaced by an equal object: W_hh reshaped in the dict and back, a
    # view of the same memory (or a copy, for a strided W_hh) in the place of the caller's tensor; every value agrees
    "jacobian_stores_a_view_of_w_hh": ("test_rnn_step", {"rnn_step": jac(
        CANDIDATE + SLOPE + '    J = slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)\n'
        '    p["W_hh"] = p["W_hh"].reshape(-1).reshape(p["W_hh"].shape)  # flattened for a look, put back\n'
        "    return J")}),
    # dict class: p read by position (its insertion order), which the hidden tests change
    "jacobian_reads_p_by_position": ("test_rnn_step", {"rnn_step": jac(
        "    w_ih, b_ih, w_hh, b_hh = p.values()\n"
        "    candidate = torch.tanh(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh)\n" + SLOPE
        + "    return slope[:, :, None] * w_hh + torch.diag(1 - leak)", )}),
    # argument class: the rates renamed, so a call with leak= by name raises
    "jacobian_leak_renamed": ("test_rnn_step", {"rnn_step": jac(
        CANDIDATE.replace("x @", "x @") + "    slope = rates * (1 - candidate ** 2)\n"
        '    return slope[:, :, None] * p["W_hh"] + torch.diag(1 - rates)', signature="x, h, p, rates")}),
    # gradient class: autograd's Jacobian without create_graph=True, so no gradient flows through J
    "jacobian_by_autograd_without_graph": ("test_rnn_step", {"rnn_step": jac(
        "    def step(x_b, h_b):\n"
        '        return (1 - leak) * h_b + leak * torch.tanh(x_b @ p["W_ih"].T + p["b_ih"] + h_b @ p["W_hh"].T + p["b_hh"])\n'
        "    return torch.stack([torch.autograd.functional.jacobian(lambda h_b: step(x[b], h_b), h[b])\n"
        "                        for b in range(x.shape[0])])")}),
    # numerics at extremes: tanh' = 1 / cosh^2 is right (0) once cosh overflows, past about 710, but its
    # gradient is 0 * inf = NaN there
    "slope_through_cosh": ("test_rnn_step", {"rnn_step": jac(
        '    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]\n'
        "    slope = leak / torch.cosh(pre) ** 2\n"
        '    return slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)')}),
    # Red team 9 class: tanh written out with exp overflows (inf / inf = NaN) in the hundreds
    "leaky_jacobian_tanh_through_exp": ("test_rnn_step", {"rnn_step": jac(
        '    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]\n'
        "    e = torch.exp(2 * a)\n    candidate = (e - 1) / (e + 1)\n" + SLOPE
        + '    return slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)')}),
    # session 17, blind red team on the new part: autograd on a detached copy of h gives the right J and no
    # gradient with respect to h (caught by the gradient with respect to h)
    "jacobian_of_a_detached_h": ("test_rnn_step", {"rnn_step": jac(
        "    hh = h.detach().requires_grad_(True)\n"
        "    with torch.enable_grad():\n"
        '        out = (1 - leak) * hh + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])\n'
        "        rows = [torch.autograd.grad(out[:, i].sum(), hh, create_graph=True)[0] for i in range(h.shape[1])]\n"
        "    return torch.stack(rows, dim=1)")}),
    # process-wide state: torch.set_grad_enabled(True) inside leaves the grad mode on for a caller under
    # torch.no_grad() (caught by a call inside no_grad)
    "jacobian_turns_grad_mode_on": ("test_rnn_step", {"rnn_step": jac(
        "    torch.set_grad_enabled(True)\n"
        "    def f(hh):\n"
        '        return ((1 - leak) * hh + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])).sum(0)\n'
        "    return torch.autograd.functional.jacobian(f, h, create_graph=True).permute(1, 0, 2)")}),
    # Part 2: costs with projections and gates
    "cost_ratio_without_projections": ("test_cost_ratio", {"costs": "attention_over_lstm = 4096 / 512\nequal_cost_length = 1536"}),
    "cost_ratio_one_product_per_gate": ("test_cost_ratio", {"costs": (
        "attention_over_lstm = (4 * 4096 * 512 ** 2 + 2 * 4096 ** 2 * 512) / (4 * 4096 * 512 ** 2)\n"
        "equal_cost_length = 1536")}),
    # lying-object class: a float that equals every number
    "cost_ratio_lying_float": ("test_cost_ratio", {"costs": '''
class _Close(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return 0.0
    __hash__ = float.__hash__

attention_over_lstm = _Close(1.0)
equal_cost_length = 1536
'''}),
    "equal_cost_at_n_equals_d": ("test_equal_cost", {"costs": "attention_over_lstm = 2.5\nequal_cost_length = 768"}),
    # the output projection left out: 3 n d^2 + 2 n^2 d = 8 n d^2 gives n = 2.5 d
    "equal_cost_three_projections": ("test_equal_cost", {"costs": "attention_over_lstm = 2.5\nequal_cost_length = 2.5 * 768"}),
    # Part 3: which recurrence is parallel
    "parallel_answer_both": ("test_parallel_question", {"mc": 'answer_parallel = "c"'}),
    "parallel_answer_neither": ("test_parallel_question", {"mc": 'answer_parallel = "d"'}),
    "parallel_answer_elman_only": ("test_parallel_question", {"mc": 'answer_parallel = "a"'}),
    "parallel_answer_lying_str": ("test_parallel_question", {"mc": '''
class _Any(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__

answer_parallel = _Any("a")
'''}),
    # Part 4: the backward direction over a right-padded batch
    "reverse_reads_the_padding_first": ("test_rnn_unroll", {"rnn_unroll": reverse(
        "    h = torch.zeros(b, p['W_hh'].shape[0], dtype=x.dtype) if h0 is None else h0\n"
        "    outputs = [None] * t\n"
        "    for i in reversed(range(t)):\n"
        "        h = cell(x[:, i], h)\n"
        "        outputs[i] = h * (i < lengths)[:, None]\n"
        "    return torch.stack(outputs, dim=1), h")}),
    # every-sequence-shorter class: outputs lose the columns after the longest sequence
    "reverse_outputs_only_up_to_the_longest": ("test_rnn_unroll", {"rnn_unroll": reverse(
        "    h = torch.zeros(b, p['W_hh'].shape[0], dtype=x.dtype) if h0 is None else h0\n"
        "    longest = int(lengths.max())\n"
        "    outputs = [None] * longest\n"
        "    for i in reversed(range(longest)):\n"
        "        inside = (i < lengths)[:, None]\n"
        "        h = torch.where(inside, cell(x[:, i], h), h)\n"
        "        outputs[i] = h * inside\n"
        "    return torch.stack(outputs, dim=1), h")}),
    # argument class: h0 is never used
    # empty-batch class (red team 12): the loop starts at the longest sequence, and the max of an empty lengths
    # tensor raises
    "reverse_loops_from_the_longest_only": ("test_rnn_unroll", {"rnn_unroll": reverse(
        "    lengths = lengths.long()\n"
        "    h = torch.zeros(b, p['W_hh'].shape[0], dtype=x.dtype) if h0 is None else h0\n"
        "    outputs = torch.zeros(b, t, p['W_hh'].shape[0], dtype=x.dtype)\n"
        "    for i in reversed(range(int(lengths.max()))):\n"
        "        inside = (i < lengths)[:, None]\n"
        "        h = torch.where(inside, cell(x[:, i], h), h)\n"
        "        outputs[:, i] = h * inside\n"
        "    return outputs, h")}),
    "reverse_ignores_h0": ("test_rnn_unroll", {"rnn_unroll": reverse(
        "    h = torch.zeros(b, p['W_hh'].shape[0], dtype=x.dtype)\n"
        "    outputs = [None] * t\n"
        "    for i in reversed(range(t)):\n"
        "        inside = (i < lengths)[:, None]\n"
        "        h = torch.where(inside, cell(x[:, i], h), h)\n"
        "        outputs[i] = h * inside\n"
        "    return torch.stack(outputs, dim=1), h")}),
    # in-place class: the state is written into the caller's h0
    "reverse_writes_into_h0": ("test_rnn_unroll", {"rnn_unroll": reverse(
        "    h = torch.zeros(b, p['W_hh'].shape[0], dtype=x.dtype) if h0 is None else h0\n"
        "    outputs = [None] * t\n"
        "    for i in reversed(range(t)):\n"
        "        inside = (i < lengths)[:, None]\n"
        "        h[...] = torch.where(inside, cell(x[:, i], h), h)\n"
        "        outputs[i] = h * inside\n"
        "    return torch.stack(outputs, dim=1), h.clone()")}),
    # dtype class (bfloat16): a float 0/1 mask blends exactly in float32/float64 but promotes bfloat16
    "reverse_float32_mask": ("test_rnn_unroll", {"rnn_unroll": reverse(
        "    h = torch.zeros(b, p['W_hh'].shape[0], dtype=x.dtype) if h0 is None else h0\n"
        "    outputs = [None] * t\n"
        "    for i in reversed(range(t)):\n"
        "        inside = (i < lengths)[:, None].float()\n"
        "        h = inside * cell(x[:, i], h) + (1 - inside) * h\n"
        "        outputs[i] = h * inside\n"
        "    return torch.stack(outputs, dim=1), h")}),
    # Red team 6, narrow integer lengths (uint8 and int8 are allowed): lengths - 1 in uint8 turns a length 0
    # into 255, so that sequence reads 256 columns
    "reverse_last_index_wraps_in_narrow_dtype": ("test_rnn_unroll", {"rnn_unroll": reverse(
        "    h = torch.zeros(b, p['W_hh'].shape[0], dtype=x.dtype) if h0 is None else h0\n"
        "    last = (lengths - 1).long()  # the index of each sequence's last real token\n"
        "    outputs = [None] * t\n"
        "    for i in reversed(range(t)):\n"
        "        inside = (i <= last)[:, None]\n"
        "        h = torch.where(inside, cell(x[:, i], h), h)\n"
        "        outputs[i] = h * inside\n"
        "    return torch.stack(outputs, dim=1), h")}),
    # Red team 6: the earlier model answer. A Python int compared with a uint8 (int8) tensor wraps around past
    # 255 (127), so with T = 260 a sequence of length 7 also reads columns 256 to 259
    "reverse_compares_step_with_narrow_lengths": ("test_rnn_unroll", {"rnn_unroll": reverse(
        "    h = torch.zeros(b, p['W_hh'].shape[0], dtype=x.dtype) if h0 is None else h0\n"
        "    outputs = [None] * t\n"
        "    for i in reversed(range(t)):\n"
        "        inside = (i < lengths)[:, None]\n"
        "        h = torch.where(inside, cell(x[:, i], h), h)\n"
        "        outputs[i] = h * inside\n"
        "    return torch.stack(outputs, dim=1), h")}),
    # argument class (red team 8, slipped: the hidden tests passed h0 by position only): the optional
    # argument renamed, so a call with h0= by name raises. Round 11, refbind pass: Part 5 takes its forward states
    # from this function (x flipped, h0= by name, as Part 4's text allows), which raises here; Part 5's hidden
    # tests bind a reference of rnn_unroll_reverse, so only Part 4 is lost (before the binding Part 5 was too)
    "reverse_h0_renamed_with_norms_calling_it": ("test_rnn_unroll", {"gradient_norms": NORMS_CALLING_REVERSE,
                                                                     "rnn_unroll": """
def rnn_unroll_reverse(x, lengths, p, start=None):
    b, t, _ = x.shape
    cell = lambda x_t, h: torch.tanh(x_t @ p['W_ih'].T + p['b_ih'] + h @ p['W_hh'].T + p['b_hh'])
    h = torch.zeros(b, p['W_hh'].shape[0], dtype=x.dtype) if start is None else start
    outputs = [None] * t
    for i in reversed(range(t)):
        inside = (i < lengths.long())[:, None]
        h = torch.where(inside, cell(x[:, i], h), h)
        outputs[i] = torch.where(inside, h, torch.zeros((), dtype=x.dtype))
    return torch.stack(outputs, dim=1), h
"""}),
    # Part 5: Jacobian norms
    # reduction-order class: the norm of the batch-mean Jacobian, not the mean of the norms
    "jacobian_norm_of_the_batch_mean": ("test_gradient_norms", {"gradient_norms": jacobians(
        "    norms = [torch.linalg.matrix_norm(product.mean(0))]\n"
        "    for s in range(t - 1, 0, -1):\n"
        "        product = product @ ((1 - states[s] ** 2)[:, :, None] * p['W_hh'])\n"
        "        norms.append(torch.linalg.matrix_norm(product.mean(0)))\n"
        "    return torch.stack(norms)")}),
    # rare-rule class: the product taken in the other order only differs because matrices do not commute
    "jacobian_product_in_the_wrong_order": ("test_gradient_norms", {"gradient_norms": jacobians(
        "    norms = [torch.linalg.matrix_norm(product).mean()]\n"
        "    for s in range(t - 1, 0, -1):\n"
        "        product = ((1 - states[s] ** 2)[:, :, None] * p['W_hh']) @ product\n"
        "        norms.append(torch.linalg.matrix_norm(product).mean())\n"
        "    return torch.stack(norms)")}),
    # boundary class: J_s built from the previous state h_{s-1}
    "jacobian_from_the_previous_state": ("test_gradient_norms", {"gradient_norms": jacobians(
        "    norms = [torch.linalg.matrix_norm(product).mean()]\n"
        "    for s in range(t - 1, 0, -1):\n"
        "        product = product @ ((1 - states[s - 1] ** 2)[:, :, None] * p['W_hh'])\n"
        "        norms.append(torch.linalg.matrix_norm(product).mean())\n"
        "    return torch.stack(norms)")}),
    "jacobian_without_the_tanh_derivative": ("test_gradient_norms", {"gradient_norms": jacobians(
        "    norms = [torch.linalg.matrix_norm(product).mean()]\n"
        "    for s in range(t - 1, 0, -1):\n"
        "        product = product @ p['W_hh']\n"
        "        norms.append(torch.linalg.matrix_norm(product).mean())\n"
        "    return torch.stack(norms)")}),
    # dtype class (bfloat16): 1 - h^2 from a float32 torch.ones is exact enough for float64 inputs
    "jacobian_float32_ones_minus_square": ("test_gradient_norms", {"gradient_norms": jacobians(
        "    norms = [torch.linalg.matrix_norm(product).mean()]\n"
        "    for s in range(t - 1, 0, -1):\n"
        "        slope = torch.ones(d_h) - states[s] ** 2\n"
        "        product = product @ (slope[:, :, None] * p['W_hh'])\n"
        "        norms.append(torch.linalg.matrix_norm(product).mean())\n"
        "    return torch.stack(norms)")}),
    # Red team 6, state kept between calls: W_hh cached per dict, keyed on id(p)
    "jacobian_caches_recurrent_weight_by_id": ("test_gradient_norms", {"gradient_norms": "\nRECURRENT = {}\n" + jacobians(
        "    w_hh = RECURRENT.setdefault(id(p), p['W_hh'].T.contiguous()).T  # laid out once per dict\n"
        "    norms = [torch.linalg.matrix_norm(product).mean()]\n"
        "    for s in range(t - 1, 0, -1):\n"
        "        product = product @ ((1 - states[s] ** 2)[:, :, None] * w_hh)\n"
        "        norms.append(torch.linalg.matrix_norm(product).mean())\n"
        "    return torch.stack(norms)")}),
    # Part 6: an attentive decoder with coverage
    # realistic: the query is the state after this step's update (computed with the previous context),
    # as in Luong's decoder, not the previous state
    "decoder_queries_with_the_new_state": ("test_additive", {"additive": """
def coverage_decoder(x, h, allowed, s0, p):
    b, t, _ = x.shape
    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)
    state, context, states, weights = s0, torch.zeros(b, h.shape[2], dtype=x.dtype), [], []
    for i in range(t):
        state = torch.tanh(torch.cat([x[:, i], context], dim=-1) @ p['W_ih'].T + p['b_ih'] + state @ p['W_hh'].T + p['b_hh'])
        hidden = torch.tanh((state @ p['W_q'].T)[:, None, :] + h @ p['W_k'].T + coverage[:, :, None] * p['w_c'])
        alpha = torch.softmax((hidden @ p['v']).masked_fill(~allowed, float('-inf')), dim=-1)
        context = (alpha[:, :, None] * h).sum(dim=1)
        states.append(state)
        weights.append(alpha)
        coverage = coverage + alpha
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
"""}),
    # boundary class: c_t counts step t itself (an inclusive cumulative sum, t' <= t instead of t' < t)
    "coverage_counts_the_current_step": ("test_additive", {"additive": decoder(
        coverage_used="(coverage + torch.softmax((torch.tanh(query[:, None, :] + h @ p['W_k'].T + coverage[:, :, None]"
                      " * p['w_c']) @ p['v']).masked_fill(~allowed, float('-inf')), dim=-1))")}),
    # argument class: the given initial state is ignored (the decoder starts from zeros)
    "decoder_ignores_s0": ("test_additive", {"additive": decoder(start="torch.zeros_like(s0)")}),
    # round 17 clamp sweep: a defensive clamp on a value the text does not bound (inputs near 1e6 with weights near
    # 1e-6; norms below 1e-20)
    "step_clamps_the_inputs": ("test_rnn_step", {"rnn_step": jac(
        '    x = x.clamp(-1e4, 1e4)\n' + CANDIDATE + SLOPE + '    return slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)')}),
    "reverse_clamps_the_inputs": ("test_rnn_unroll", {"rnn_unroll": REVERSE.replace(
        "    b, t, _ = x.shape\n", "    x = x.clamp(-1e4, 1e4)\n    b, t, _ = x.shape\n", 1)}),
    "jacobian_norms_floored_at_1e_12": ("test_gradient_norms", {"gradient_norms": jacobians(
        "    norms = [torch.linalg.matrix_norm(product).clamp(min=1e-12).mean()]\n"
        "    for s in range(t - 1, 0, -1):\n"
        "        product = product @ ((1 - states[s] ** 2)[:, :, None] * p['W_hh'])\n"
        "        norms.append(torch.linalg.matrix_norm(product).clamp(min=1e-12).mean())\n"
        "    return torch.stack(norms)")}),
    "jacobian_norms_clamp_the_inputs": ("test_gradient_norms", {"gradient_norms": jacobians(
        "    norms = [torch.linalg.matrix_norm(product).mean()]\n"
        "    for s in range(t - 1, 0, -1):\n"
        "        product = product @ ((1 - states[s] ** 2)[:, :, None] * p['W_hh'])\n"
        "        norms.append(torch.linalg.matrix_norm(product).mean())\n"
        "    return torch.stack(norms)").replace("    b, t, _ = x.shape\n", "    x = x.clamp(-1e4, 1e4)\n    b, t, _ = x.shape\n", 1)}),
    "decoder_clamps_the_inputs": ("test_additive", {"additive": decoder(dtype_line="    x = x.clamp(-1e4, 1e4)\n")}),
    # dtype class: float32 inputs come back as float64
    "decoder_in_float64": ("test_additive", {"additive": decoder(
        dtype_line="    x, h, s0 = x.double(), h.double(), s0.double()\n    p = {n: w.double() for n, w in p.items()}\n")}),
    # D_in == D_k class: the context before x in the concatenation keeps every shape when D_in == D_k
    "decoder_context_before_input": ("test_additive", {"additive": decoder(concat="[context, x[:, i]]")}),
    # Red team 5 (slipped): non-contiguous encoder states (the hidden tests now pass transposed views to the
    # decoder too): a .view that merges the batch and source axes fails there
    "decoder_keys_with_view": ("test_additive", {"additive": decoder().replace(
        "h @ p['W_k'].T", "(h.view(-1, h.shape[-1]) @ p['W_k'].T).view(h.shape[0], h.shape[1], -1)")}),
    # Red team 6 (slipped in chapter 2), a finite stand-in for -inf: with v = -30000 every real score lies
    # below -1e4, so the padding takes the weight
    "decoder_masks_with_minus_1e4": ("test_additive", {"additive": decoder().replace(
        "masked_fill(~allowed, float('-inf'))", "masked_fill(~allowed, -1e4)")}),
    # Red team 16 (framework porter), the same class added instead of filled: Hugging Face's extended attention
    # mask, an additive -1e4 bias, keeps padding at 0 only while padding scores lie less than about 9000 above the
    # real ones; the hidden tests put them about 160000 above
    "decoder_adds_minus_1e4_bias": ("test_additive", {"additive": decoder().replace(
        ".masked_fill(~allowed, float('-inf'))", " + (~allowed).to(x.dtype) * -1e4")}),
    # red team 3, numerics at extremes: the softmax written out without subtracting the row maximum
    # overflows (inf / inf = nan) once the scores v^T tanh(...) exceed about 709 in float64
    "decoder_softmax_without_the_maximum": ("test_additive", {"additive": decoder().replace(
        "        alpha = torch.softmax((hidden @ p['v']).masked_fill(~allowed, float('-inf')), dim=-1)\n",
        "        alpha = torch.exp((hidden @ p['v']).masked_fill(~allowed, float('-inf')))\n"
        "        alpha = alpha / alpha.sum(dim=-1, keepdim=True)\n")}),
    # Red team 8, gradients: right in the forward pass, wrong gradients (a model is trained through these)
    "decoder_keys_under_no_grad": ("test_additive", {"additive": decoder().replace(
        "        hidden = torch.tanh(query[:, None, :] + h @ p['W_k'].T + ",
        "        with torch.no_grad():\n            keys = h @ p['W_k'].T\n"
        "        hidden = torch.tanh(query[:, None, :] + keys + ")}),
    # Red team 11, cost: every product rebuilt from scratch, T^2/2 matrix products per call (right values)
    "jacobian_products_rebuilt_from_scratch": ("test_gradient_norms", {"gradient_norms": jacobians(
        "    eye = product\n"
        "    norms = []\n"
        "    for k in range(t):\n"
        "        product = eye\n"
        "        for s in range(t - 1, t - 1 - k, -1):\n"
        "            product = product @ ((1 - states[s] ** 2)[:, :, None] * p['W_hh'])\n"
        "        norms.append(torch.linalg.matrix_norm(product).mean())\n"
        "    return torch.stack(norms)")}),
    # Red team 9, numerics at extremes: tanh written out with exp overflows (inf / inf = NaN) once the
    # pre-activations pass about 44 in float32 and 355 in float64, where tanh is +-1
    "jacobian_tanh_through_exp": ("test_gradient_norms", {"gradient_norms": jacobians(
        "    norms = [torch.linalg.matrix_norm(product).mean()]\n"
        "    for s in range(t - 1, 0, -1):\n"
        "        product = product @ ((1 - states[s] ** 2)[:, :, None] * p['W_hh'])\n"
        "        norms.append(torch.linalg.matrix_norm(product).mean())\n"
        "    return torch.stack(norms)").replace(
        "        h = torch.tanh(x[:, i] @ p['W_ih'].T + p['b_ih'] + h @ p['W_hh'].T + p['b_hh'])\n",
        "        a = x[:, i] @ p['W_ih'].T + p['b_ih'] + h @ p['W_hh'].T + p['b_hh']\n"
        "        h = (1 - torch.exp(-2 * a)) / (1 + torch.exp(-2 * a))\n")}),
    "decoder_tanh_through_exp": ("test_additive", {"additive": decoder().replace(
        "        hidden = torch.tanh(query[:, None, :] + h @ p['W_k'].T + coverage[:, :, None] * p['w_c'])\n",
        "        pre = query[:, None, :] + h @ p['W_k'].T + coverage[:, :, None] * p['w_c']\n"
        "        hidden = (torch.exp(2 * pre) - 1) / (torch.exp(2 * pre) + 1)\n")}),
    # Red team 9, second pass, a dict argument gains entries: the transposed weights stored back into p (views of
    # the given tensors, so they follow new values), which the hidden tests now refuse: p keeps exactly its entries
    "reverse_tanh_one_minus_reciprocal": ("test_rnn_unroll", {"rnn_unroll": REVERSE_MERGES_AXES_WITH_VIEW.replace(
        "    x = x.view(-1, x.shape[-1]).view(x.shape)\n", "    lengths = lengths.long()\n").replace(
        '        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])\n',
        '        a = (x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]).double()\n'
        "        h_new = (1 - 2 / (torch.exp(2 * a) + 1)).to(x.dtype)\n")}),
    "decoder_tanh_one_minus_reciprocal": ("test_additive", {"additive": decoder().replace(
        "        hidden = torch.tanh(query[:, None, :] + h @ p['W_k'].T + coverage[:, :, None] * p['w_c'])\n",
        "        pre = (query[:, None, :] + h @ p['W_k'].T + coverage[:, :, None] * p['w_c']).double()\n"
        "        hidden = (1 - 2 / (torch.exp(2 * pre) + 1)).to(x.dtype)\n")}),
    # Red team 9, long inputs: one recursive call per column overflows Python's stack past ~1000 steps
    "reverse_recursive_per_column": ("test_rnn_unroll", {"rnn_unroll": """
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    inside_all = lengths.long()[:, None]
    def go(step, h):  # reads column step, then the columns before it
        if step < 0:
            return [], h
        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        inside = inside_all > step
        outs, first = go(step - 1, torch.where(inside, h_new, h))
        return outs + [torch.where(inside, h_new, torch.zeros_like(h_new))], first
    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    outs, first = go(t - 1, h)
    return torch.stack(outs, dim=1), first
"""}),
    # Session 17 sweep, gradients with respect to every tensor input: a detached copy of one input gives the right
    # values and no gradient to it (the hidden tests had checked x and W_hh, h and W_q only)
    "reverse_h0_detached": ("test_rnn_unroll", {"rnn_unroll": REVERSE.replace(
        "if h0 is None else h0", "if h0 is None else h0.detach()")}),
    "reverse_input_projection_detached": ("test_rnn_unroll", {"rnn_unroll": REVERSE.replace(
        'x[:, step] @ p["W_ih"].T + p["b_ih"]', 'x[:, step] @ p["W_ih"].T.detach() + p["b_ih"].detach()')}),
    "decoder_s0_detached": ("test_additive", {"additive": decoder(start="s0.detach()")}),
    # coverage updated in place after the product with w_c saved it: right values, a backward pass that fails
    # (the correct variant lerp_flip_einsum did this until the gradient with respect to w_c was checked)
    "decoder_coverage_updated_in_place": ("test_additive", {"additive": COVERAGE_LERP.replace(
        "cov = cov + alpha  # not in place: the product with w_c saved cov for its gradient (session 17 sweep)",
        "cov += alpha")}),
    # Round 11 class sweep (class 1, a masked softmax): exp taken before the mask, the maximum over the real keys
    # only. Right values; but exp of a padding score far above every real one is inf, and torch.where's zero gradient
    # times inf is NaN (the hidden reference itself did this); caught by padding scores about 2400 above the real ones
    "decoder_exp_before_the_mask": ("test_additive", {"additive": decoder().replace(
        "        alpha = torch.softmax((hidden @ p['v']).masked_fill(~allowed, float('-inf')), dim=-1)\n",
        "        e = hidden @ p['v']\n"
        "        top = e.masked_fill(~allowed, float('-inf')).amax(dim=-1, keepdim=True)\n"
        "        ex = torch.where(allowed, torch.exp(e - top), torch.zeros_like(e))  # exp before the mask\n"
        "        alpha = ex / ex.sum(dim=-1, keepdim=True)\n")}),
    # Red team 15 (the optimiser): an early exit for the case the text names, every rate 0, returns the identity as a
    # constant. Right values, but d J / d leak is not 0 there; caught by the gradients at rates all 0 and all 1
    # red team 17 (the production engineer): the norms computed under torch.inference_mode(), which Part 5's text does
    # not forbid (only values are checked), return an inference tensor that the caller cannot change in place
    "jacobian_norms_in_inference_mode": ("test_gradient_norms", {"gradient_norms": """
def jacobian_norms(x, p):
    with torch.inference_mode():
        b, t, _ = x.shape
        d_h = p["W_hh"].shape[0]
        h = torch.zeros(b, d_h, dtype=x.dtype)
        states = []
        for step in range(t):
            h = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            states.append(h)
        product = torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)
        norms = [torch.linalg.matrix_norm(product).mean()]
        for s in range(t - 1, 0, -1):
            product = product @ ((1 - states[s] ** 2)[:, :, None] * p["W_hh"])
            norms.append(torch.linalg.matrix_norm(product).mean())
        return torch.stack(norms)
"""}),
    "jacobian_identity_shortcut_without_gradient": ("test_rnn_step", {"rnn_step": jac(
        "    if not leak.any():  # nothing leaks: the state is copied\n"
        "        return torch.eye(h.shape[1], dtype=x.dtype).expand(h.shape[0], h.shape[1], h.shape[1])\n"
        + CANDIDATE + SLOPE + '    return slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)')}),
    # Red team 15 (the mathematician, "everything has the dtype of x"): lengths converted to the dtype of x. Exact in
    # float32 and float64 at these sizes, but bfloat16 rounds 257 to 256, so that sequence skips its last token;
    # caught by a bfloat16 case with T = 262 and lengths 257 and 261
    "reverse_lengths_in_the_dtype_of_x": ("test_rnn_unroll", {"rnn_unroll": reverse(
        "    h = torch.zeros(b, p['W_hh'].shape[0], dtype=x.dtype) if h0 is None else h0\n"
        "    lengths = lengths.to(x.dtype)\n"
        "    outputs = [None] * t\n"
        "    for i in reversed(range(t)):\n"
        "        inside = (lengths > i)[:, None]\n"
        "        h = torch.where(inside, cell(x[:, i], h), h)\n"
        "        outputs[i] = h * inside\n"
        "    return torch.stack(outputs, dim=1), h")}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "leaky_step_jacobian_kept_output_buffer": ("test_rnn_step", {"rnn_step": kept_output_buffer("""def leaky_step_jacobian(x, h, p, leak):
    candidate = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])  # (B, D_h)
    # d h'_i / d h_j = (1 - leak_i) [i == j] + leak_i (1 - candidate_i^2) W_hh[i, j]
    slope = leak * (1 - candidate ** 2)  # (B, D_h): one factor per row i, tanh' written with tanh itself
    keep = torch.diag(1 - leak)  # (D_h, D_h): the part of the old state each unit keeps
    return slope[:, :, None] * p["W_hh"] + keep  # (B, D_h, 1) * (D_h, D_h) + (D_h, D_h) -> (B, D_h, D_h)

""", "leaky_step_jacobian")}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "rnn_unroll_reverse_kept_output_buffer": ("test_rnn_unroll", {"rnn_unroll": kept_output_buffer("""def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    lengths = lengths.long()  # int64: a Python int compared with a uint8 or int8 tensor wraps around
    outputs = [None] * t
    for step in reversed(range(t)):  # from the last column to the first
        inside = (step < lengths)[:, None]  # (B, 1): is x[:, step] a real token of its sequence?
        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(inside, h_new, h)  # at the padding the state waits for the sequence's last token
        outputs[step] = h * inside
    return torch.stack(outputs, dim=1), h  # T x (B, D_h) -> (B, T, D_h)

""", "rnn_unroll_reverse")}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "jacobian_norms_kept_output_buffer": ("test_gradient_norms", {"gradient_norms": kept_output_buffer("""def jacobian_norms(x, p):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    h = torch.zeros(b, d_h, dtype=x.dtype)
    states = []
    for step in range(t):
        h = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    product = torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)  # d h_{T-1} / d h_{T-1}
    norms = [torch.linalg.matrix_norm(product).mean()]
    for s in range(t - 1, 0, -1):
        step_jacobian = (1 - states[s] ** 2)[:, :, None] * p["W_hh"]  # J_s = diag(1 - h_s^2) W_hh: (B, D_h, D_h)
        product = product @ step_jacobian  # (B, D_h, D_h) @ (B, D_h, D_h)
        norms.append(torch.linalg.matrix_norm(product).mean())  # per example, then the batch mean
    return torch.stack(norms)

""", "jacobian_norms")}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "coverage_decoder_kept_output_buffer": ("test_additive", {"additive": kept_output_buffer("""def coverage_decoder(x, h, allowed, s0, p):
    b, t, _ = x.shape
    keys = h @ p["W_k"].T                                    # (B, S, A): the same at every step
    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)     # (B, S): attention received so far
    state, states, weights = s0, [], []
    for step in range(t):
        query = state @ p["W_q"].T                           # (B, A): the previous state asks
        hidden = torch.tanh(query[:, None, :] + keys + coverage[:, :, None] * p["w_c"])  # (B, S, A)
        scores = (hidden @ p["v"]).masked_fill(~allowed, float("-inf"))                # (B, S)
        alpha = torch.softmax(scores, dim=-1)                # over the source positions
        context = (alpha[:, :, None] * h).sum(dim=1)         # (B, S, 1) * (B, S, D_k) -> (B, D_k)
        step_input = torch.cat([x[:, step], context], dim=-1)  # (B, D_in + D_k), x first
        state = torch.tanh(step_input @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + p["b_hh"])
        states.append(state)
        weights.append(alpha)
        coverage = coverage + alpha                          # only later steps see this step's weights
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)

""", "coverage_decoder")}),
    # red team 18 (the type-sloppy student): the loop runs up to the longest length only, so that when every length
    # is 0 nothing is read and first is h0 itself, the caller's tensor handed back (the caller's write into first
    # changes h0; no hidden case had every length 0 with a given h0)
    "reverse_hands_back_h0_when_nothing_is_read": ("test_rnn_unroll", {"rnn_unroll": """
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    lengths = lengths.long()
    h = x.new_zeros(b, d_h) if h0 is None else h0
    outputs = x.new_zeros(b, t, d_h)
    steps = int(lengths.max()) if b > 0 else 0
    for step in range(steps - 1, -1, -1):
        inside = (step < lengths)[:, None]
        new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(inside, new, h)
        outputs[:, step] = torch.where(inside, new, torch.zeros_like(new))
    return outputs, h
"""}),
    # red team 18 (the stateful student): the keys W_k h_j cached on id(h) and id(p['W_k']): every hidden call passed
    # new tensor objects, so the same encoder states and dict given new values in place were never seen twice
    "decoder_caches_keys_by_id": ("test_additive", {"additive": decoder(
        dtype_line="    _k = (id(h), id(p['W_k']))\n    KEYS.setdefault(_k, h @ p['W_k'].T)\n").replace(
        "h @ p['W_k'].T + ", "KEYS[_k] + ").replace("\ndef coverage_decoder", "\nKEYS = {}\ndef coverage_decoder", 1)}),
    # round 18 class sweep (backward() run inside, chapter 9's class): a "quick check that the gradient flows" that
    # runs J.sum().backward() adds a gradient to the .grad of the caller's leaves; every value, and every gradient the
    # tests take with autograd.grad, stays right (the leaves' .grad is now checked to be None after the call)
    "jacobian_runs_backward_inside": ("test_rnn_step", {"rnn_step": jac(
        CANDIDATE + SLOPE + '    J = slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)\n'
        "    if J.requires_grad:\n        J.sum().backward(retain_graph=True)\n    return J")}),
    # red team 18 (the dtype generaliser): the norms as sums of squares in the dtype of x (the model answer until
    # round 18): in float32 the squares of entries near 1e-27 underflow to 0, and the norm with them
    "jacobian_norms_sum_of_squares_in_float32": ("test_gradient_norms", {"gradient_norms": jacobians(
        "    norms = [torch.linalg.matrix_norm(product).mean()]\n"
        "    for s in range(t - 1, 0, -1):\n"
        "        product = product @ ((1 - states[s] ** 2)[:, :, None] * p['W_hh'])\n"
        "        norms.append(torch.linalg.matrix_norm(product).mean())\n"
        "    return torch.stack(norms)")}),
    # red team 19 class sweep (a norm taken through squares): the norms in float64, unscaled, as the text advises for
    # float32 inputs: float64 products with entries below about 1e-162 have squares that underflow, and the norm with them
    "jacobian_norms_in_float64_unscaled": ("test_gradient_norms", {"gradient_norms": jacobians(
        "    norms = [torch.linalg.matrix_norm(product.double()).mean().to(x.dtype)]\n"
        "    for s in range(t - 1, 0, -1):\n"
        "        product = product @ ((1 - states[s] ** 2)[:, :, None] * p['W_hh'])\n"
        "        norms.append(torch.linalg.matrix_norm(product.double()).mean().to(x.dtype))\n"
        "    return torch.stack(norms)")}),
}

# Correct answers written differently: autograd's Jacobian of a whole batch, a loop over each sequence's
# real tokens, autograd Jacobians, einsum and an explicit exponential.
ADDMM_LOOPS_AUTOGRAD = {
    "rnn_step": """
def leaky_step_jacobian(x, h, p, leak):  # autograd's Jacobian of the whole batch, then the blocks of each example
    def step(h_all):
        candidate = torch.tanh(torch.addmm(p["b_ih"], x, p["W_ih"].t()) + torch.addmm(p["b_hh"], h_all, p["W_hh"].t()))
        return h_all + leak * (candidate - h_all)
    full = torch.autograd.functional.jacobian(step, h, create_graph=True)  # (B, D_h, B, D_h)
    return full.diagonal(dim1=0, dim2=2).permute(2, 0, 1)  # example b's block: [b, :, b, :]
""",
    "costs": "n, d = 4096, 512\nattention_over_lstm = (4 * d + 2 * n) / (8 * d)\nequal_cost_length = 1536.0",
    "mc": 'answer_parallel = "b"',
    "rnn_unroll": """
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    outputs = torch.zeros(b, t, d_h, dtype=x.dtype)
    first = torch.zeros(b, d_h, dtype=x.dtype) if h0 is None else h0.clone()
    for i in range(b):                          # one sequence at a time, its real tokens from the end
        h = first[i].clone()                    # one state vector (D_h,): the step on single vectors
        # (a clone: first[i] = h below writes into first, which backward would otherwise still read)
        for step in range(int(lengths[i]) - 1, -1, -1):
            h = torch.tanh(torch.mv(p["W_ih"], x[i, step]) + p["b_ih"] + torch.mv(p["W_hh"], h) + p["b_hh"])
            outputs[i, step] = h
        first[i] = h
    return outputs, first
""",
    "gradient_norms": """
def jacobian_norms(x, p):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    cell = lambda x_t, h: torch.tanh(x_t @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    out = torch.zeros(t, dtype=x.dtype)
    with torch.enable_grad():
        for i in range(b):
            # a zero probe added to every state: d h_{T-1} / d probe_s = d h_{T-1} / d h_s, so one backward pass per
            # unit of h_{T-1} gives every row of every product (a fixed number of matrix products per step)
            probes = [torch.zeros(d_h, dtype=x.dtype, requires_grad=True) for _ in range(t)]
            h = torch.zeros(d_h, dtype=x.dtype)
            for step in range(t):
                h = cell(x[i, step], h) + probes[step]
            rows = [torch.autograd.grad(h[j], probes, retain_graph=True) for j in range(d_h)]
            for k in range(t):
                jac = torch.stack([row[t - 1 - k] for row in rows])
                top = jac.abs().max()  # red team 19: scaled first, float64 squares underflow below 1e-162
                top = torch.where(top > 0, top, torch.ones_like(top))
                out[k] += ((jac / top).double().pow(2).sum().sqrt() * top.double() / b).to(x.dtype)  # float64: no underflow (red team 18)
    return out
""",
    "additive": """
def coverage_decoder(x, h, allowed, s0, p):
    b, t, d_in = x.shape
    keys = torch.einsum("ak,bsk->bsa", p["W_k"], h)
    cov = torch.zeros_like(allowed, dtype=x.dtype)
    state, states, weights = s0, [], []
    for i in range(t):
        e = torch.einsum("bsa,a->bs", torch.tanh(torch.einsum("ah,bh->ba", p["W_q"], state)[:, None] + keys
                                                    + cov[..., None] * p["w_c"]), p["v"])
        e = e - e.masked_fill(~allowed, -math.inf).amax(dim=-1, keepdim=True)
        # -inf before exp (round 11 class sweep): exp of a padding score far above the real ones is inf, and
        # torch.where after it sends 0 * inf = NaN back
        ex = e.masked_fill(~allowed, -math.inf).exp()
        alpha = ex / ex.sum(dim=-1, keepdim=True)
        context = torch.einsum("bs,bsk->bk", alpha, h)
        # the state step from Part 4's function (round 11, refbind pass): a length-1 sequence of [x_t; context_t],
        # uint8 lengths, h0 by name, p with its decoder entries too
        step_input = torch.cat([x[:, i], context], dim=-1)[:, None]
        _, state = rnn_unroll_reverse(step_input, torch.ones(b, dtype=torch.uint8), p, h0=state)
        states.append(state)
        weights.append(alpha)
        cov = cov + alpha
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
""",
}

# Part 1's closed form in float64 inside, literal numbers, the flipped batch with its leading padding
# frozen, norms by torch.linalg.norm, masking with -1e9 (every row has a real token), the decoder
# step with einsum.
LERP_FLIP = {
    "rnn_step": """
def leaky_step_jacobian(x, h, p, leak):  # the closed form, einsum, in float64 inside
    x64, h64, rate = x.double(), h.double(), leak.double()
    w_hh = p["W_hh"].double()
    pre = torch.einsum("bi,hi->bh", x64, p["W_ih"].double()) + torch.einsum("bj,hj->bh", h64, w_hh)
    slope = rate * (1 - torch.tanh(pre + p["b_ih"].double() + p["b_hh"].double()).pow(2))
    J = torch.einsum("bi,ij->bij", slope, w_hh) + torch.diag_embed((1 - rate).expand_as(h64))
    return J.to(x.dtype)
""",
    "costs": "attention_over_lstm = 2.5\nequal_cost_length = 1536",
    "mc": 'answer_parallel = "b"  # affine maps compose into affine maps',
    "rnn_unroll": """
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    flipped = x.flip(1)                         # column i holds original position t - 1 - i
    h = x.new_zeros(b, p["W_hh"].shape[0]) if h0 is None else h0
    outputs = []
    for i in range(t):
        started = (t - 1 - i < lengths.long())[:, None]  # int64: an int compared with uint8 lengths wraps
        h = torch.where(started, torch.tanh(flipped[:, i] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]), h)
        outputs.append(torch.where(started, h, torch.zeros_like(h)))
    return torch.stack(outputs, dim=1).flip(1), h
""",
    "gradient_norms": """
def jacobian_norms(x, p):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    # the forward states from Part 4's function (round 11, refbind pass): x read backwards, int16 lengths, no h0
    outputs, _ = rnn_unroll_reverse(x.flip(1), torch.full((b,), t, dtype=torch.int16), p)
    derivs = [1 - h * h for h in outputs.flip(1).unbind(1)]
    products = [torch.eye(d_h, dtype=x.dtype).repeat(b, 1, 1)]
    for s in range(t - 1, 0, -1):
        products.append(torch.einsum("bij,bj,jk->bik", products[-1], derivs[s], p["W_hh"]))
    # the norms in float64 (red team 18: squares of float32 entries near 1e-27 underflow), cast back, each product
    # divided by its largest entry first (red team 19: float64 squares underflow below 1e-162)
    tops = [torch.where(m.abs().amax(dim=(1, 2)) > 0, m.abs().amax(dim=(1, 2)), torch.ones(b, dtype=x.dtype))
            for m in products]
    return torch.stack([(torch.linalg.norm((m / top[:, None, None]).double(), ord="fro", dim=(1, 2)) * top.double()).mean()
                        for m, top in zip(products, tops)]).to(x.dtype)
""",
    "additive": COVERAGE_LERP,
}

# red team 13: the Jacobian by torch.func, whose first call registers torch's own vmap kernels (one for an
# operator the tests' references use); the grader loads them before the first student cell, so that this
# correct answer is not flagged as a change to the references' kernels
FUNC_VMAP_JACREV = {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    W_ih, b_ih, W_hh, b_hh = p["W_ih"], p["b_ih"], p["W_hh"], p["b_hh"]

    def new_state(x_b, h_b):
        return (1 - leak) * h_b + leak * torch.tanh(x_b @ W_ih.T + b_ih + h_b @ W_hh.T + b_hh)

    with torch.enable_grad():
        return torch.func.vmap(torch.func.jacrev(new_state, argnums=1))(x, h)
'''}

# round 18's correct answer (tests/redteam/round18): the whole Jacobian by torch.autograd.functional.jacobian with
# vectorize=True, whose first call under the hidden test's dispatch mode imports torch._dynamo and sympy; sympy's
# dispatch decorator reads a frame on the way (red team 24: flagged once the grader stopped importing dynamo itself)
AUTOGRAD_FUNCTIONAL_VECTORIZE = {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def f(hh):
        return (1 - leak) * hh + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
    with torch.enable_grad():
        full = torch.autograd.functional.jacobian(f, h, create_graph=True, vectorize=True)
    idx = torch.arange(h.shape[0])
    return full[idx, :, idx, :]
'''}

CORRECT_VARIANTS = {"addmm_loops_autograd": ADDMM_LOOPS_AUTOGRAD, "lerp_flip_einsum": LERP_FLIP,
                    "func_vmap_jacrev": FUNC_VMAP_JACREV, "autograd_functional_vectorize": AUTOGRAD_FUNCTIONAL_VECTORIZE}

# Mutants of independent parts graded together, one submission per batch: each member changes its own
# answer cell and, graded alone, breaks only its own graded test (the hidden tests of part 5 bind the
# reference of leaky_step_jacobian); test_exercises.py checks that each batch loses exactly its members'.
MUTANT_BATCHES = [
    [
        "reverse_merges_axes_with_view",
        "jacobian_transposed",
        "cost_ratio_without_projections",
        "parallel_answer_both",
        "jacobian_norm_of_the_batch_mean",
        "decoder_queries_with_the_new_state"
    ],
    [
        "slope_scales_columns",
        "cost_ratio_one_product_per_gate",
        "parallel_answer_neither",
        "reverse_reads_the_padding_first",
        "jacobian_product_in_the_wrong_order",
        "coverage_counts_the_current_step"
    ],
    [
        "slope_from_the_new_state",
        "cost_ratio_lying_float",
        "parallel_answer_elman_only",
        "reverse_outputs_only_up_to_the_longest",
        "jacobian_from_the_previous_state",
        "decoder_ignores_s0"
    ],
    [
        "slope_from_the_old_state",
        "equal_cost_at_n_equals_d",
        "parallel_answer_lying_str",
        "reverse_ignores_h0",
        "jacobian_without_the_tanh_derivative",
        "decoder_in_float64"
    ],
    [
        "jacobian_without_the_kept_part",
        "equal_cost_three_projections",
        "reverse_writes_into_h0",
        "jacobian_float32_ones_minus_square",
        "decoder_context_before_input"
    ],
    [
        "kept_part_as_the_identity",
        "reverse_float32_mask",
        "jacobian_caches_recurrent_weight_by_id",
        "decoder_keys_with_view"
    ],
    [
        "jacobian_float32_eye",
        "reverse_last_index_wraps_in_narrow_dtype",
        "decoder_masks_with_minus_1e4",
        "jacobian_tanh_through_exp"
    ],
    [
        "jacobian_in_float32",
        "reverse_compares_step_with_narrow_lengths",
        "decoder_softmax_without_the_maximum",
        "jacobian_norms_kept_output_buffer"  # round 15 class sweep, second pass
    ],
    [
        "jacobian_advances_h_in_place",
        "reverse_h0_renamed_with_norms_calling_it",  # round 11, refbind: no other member changes Part 5
        "decoder_keys_under_no_grad"
    ],
    [
        "jacobian_reseeds_global_generator",
        "decoder_tanh_through_exp",
        "reverse_tanh_one_minus_reciprocal",
        "jacobian_norms_sum_of_squares_in_float32"  # red team 18
    ],
    [
        "jacobian_caches_weights_by_id",
        "decoder_tanh_one_minus_reciprocal",
        "reverse_recursive_per_column",
        "jacobian_norms_floored_at_1e_12"  # round 17 clamp sweep
    ],
    # session 17 sweep: gradients with respect to every input
    ["reverse_h0_detached", "decoder_s0_detached", "jacobian_products_rebuilt_from_scratch",
     "jacobian_clamps_rates_in_place"],  # red team 12
    ["reverse_input_projection_detached", "decoder_coverage_updated_in_place",
     "slope_from_the_old_state_with_norms_calling_it"],  # round 11, refbind: the one batch without Parts 1 and 5
    ["decoder_exp_before_the_mask",  # round 11 class sweep: every batch above already has a Part 6 mutant
     "reverse_loops_from_the_longest_only",  # red team 12
     "jacobian_stores_a_view_of_w_hh",  # red team 13
     "jacobian_norms_clamp_the_inputs"],  # round 17 clamp sweep
    # red team 15: every batch above holds a Part 1 and a Part 4 mutant
    ["jacobian_identity_shortcut_without_gradient", "reverse_lengths_in_the_dtype_of_x",
     "coverage_decoder_kept_output_buffer", "jacobian_norms_in_inference_mode"],  # red team 17  # round 15 class sweep, second pass
    # round 15 class sweep, second pass: every batch above holds a Part 1 and a Part 4 mutant
    ["leaky_step_jacobian_kept_output_buffer", "rnn_unroll_reverse_kept_output_buffer",
     "decoder_adds_minus_1e4_bias",  # round 16
     "jacobian_norms_in_float64_unscaled"],  # red team 19 class sweep: no other Part 5 member
    # round 17 clamp sweep: every batch above holds a Part 1, a Part 4 and a Part 6 mutant
    ["step_clamps_the_inputs", "reverse_clamps_the_inputs", "decoder_clamps_the_inputs"],
    # red team 18: every batch above holds a Part 4 and a Part 6 mutant
    ["reverse_hands_back_h0_when_nothing_is_read", "decoder_caches_keys_by_id",
     "jacobian_runs_backward_inside"],  # round 18 class sweep: the only batch with room for a Part 1 mutant
]

# Red team 19 class sweep (tests/redteam/round19/01-sweep-verdicts.md): the two mutants that verdict file wrote out
# because every batch above held a Part 4 and a Part 6 mutant; a batch of their own (a plain process, not a notebook)
from grading import place_mutant, place_mutants, replaced as _replaced, solution_code as _solution_code  # noqa: E402

_MODEL = _solution_code(CHAPTER)
ROUND_19_SWEEP = {
    # SLIPPED p4-C-one-based-steps-in-x-dtype: steps counted from 1 and compared in the dtype of x (bfloat16 rounds
    # 259 up to 260, so the 1-based count reads one padding step)
    "reverse_steps_counted_from_one_in_the_dtype_of_x": ("test_rnn_unroll", {"rnn_unroll": _replaced(_replaced(
        _MODEL["rnn_unroll"], "    lengths = lengths.long()", "    lengths = lengths.to(x.dtype)", once=True),
        "        inside = (step < lengths)[:, None]",
        "        inside = (torch.tensor(step + 1, dtype=x.dtype) <= lengths)[:, None]", once=True)}),
    # SLIPPED p6-F-hf-additive-finfo-min: finfo(dtype).min added to the scores, so a padding score near |lowest|/2
    # stays above real ones near lowest/2
    "decoder_adds_finfo_min": ("test_additive", {"additive": _replaced(
        _MODEL["additive"],
        '        scores = (hidden @ p["v"]).masked_fill(~allowed, float("-inf"))                # (B, S)\n'
        '        alpha = torch.softmax(scores, dim=-1)                # over the source positions\n',
        '        e = hidden @ p["v"]\n'
        '        scores = e + (~allowed).to(e.dtype) * torch.finfo(e.dtype).min\n'
        '        alpha = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)\n', once=True)}),
}
MUTANTS.update(ROUND_19_SWEEP)
place_mutant(MUTANTS, MUTANT_BATCHES, "reverse_steps_counted_from_one_in_the_dtype_of_x", None)
place_mutant(MUTANTS, MUTANT_BATCHES, "decoder_adds_finfo_min", "free")

# Red team 20 (tests/redteam/round20/01-verdicts.md): the four kinds of student (shape coincidences, aliasing and
# in-place, early exits, library defaults); each closed class with a mutant, placed in a batch with room where one has
# it (else it runs alone as a plain process)
ROUND_20 = {
    # SLIPPED alias_p1_leak_data_clamp: leak.data.clamp_(0, 1) writes the values leak already holds, out of sight of
    # autograd's version counter (the saved-tensor check cannot see it); every call now watched for writes into leak
    "jacobian_clamps_rates_through_data": ("test_rnn_step", {"rnn_step": _replaced(
        _MODEL["rnn_step"], "def leaky_step_jacobian(x, h, p, leak):\n",
        "def leaky_step_jacobian(x, h, p, leak):\n    leak.data.clamp_(0, 1)  # rates are in [0, 1]\n", once=True)}),
    # SLIPPED early_p4_single_step_ignores_lengths: a T = 1 shortcut that reads the one column for every sequence,
    # length 0 included
    "reverse_single_column_ignores_lengths": ("test_rnn_unroll", {"rnn_unroll": _MODEL["rnn_unroll"].replace(
        "def rnn_unroll_reverse(x, lengths, p, h0=None):\n",
        "def rnn_unroll_reverse(x, lengths, p, h0=None):\n"
        "    if x.shape[1] == 1:  # one step: nothing to reverse\n"
        "        h = h0 if h0 is not None else x.new_zeros(x.shape[0], p['W_hh'].shape[0])\n"
        "        h = torch.tanh(x[:, 0] @ p['W_ih'].T + p['b_ih'] + h @ p['W_hh'].T + p['b_hh'])\n"
        "        return h[:, None], h\n", 1)}),
    # SLIPPED alias_p4_empty_batch_returns_h0: an empty batch hands h0 itself back as first (nothing to write into, so
    # the caller's-write check could not see it)
    "reverse_empty_batch_hands_back_h0": ("test_rnn_unroll", {"rnn_unroll": _MODEL["rnn_unroll"].replace(
        "def rnn_unroll_reverse(x, lengths, p, h0=None):\n",
        "def rnn_unroll_reverse(x, lengths, p, h0=None):\n"
        "    if x.shape[0] == 0 and h0 is not None:\n"
        "        return x.new_zeros(0, x.shape[1], p['W_hh'].shape[0]), h0\n", 1)}),
    # class of the round: every sequence empty answered with a zero expanded from one element (the caller's write is
    # refused, and _scribble passes over a broadcast view)
    "reverse_empty_sequences_expanded_zeros": ("test_rnn_unroll", {"rnn_unroll": _MODEL["rnn_unroll"].replace(
        "def rnn_unroll_reverse(x, lengths, p, h0=None):\n",
        "def rnn_unroll_reverse(x, lengths, p, h0=None):\n"
        "    if x.shape[0] > 0 and not bool((lengths > 0).any()):\n"
        "        zero = x.new_zeros(())\n"
        "        start = h0.clone() if h0 is not None else x.new_zeros(x.shape[0], p['W_hh'].shape[0])\n"
        "        return zero.expand(x.shape[0], x.shape[1], p['W_hh'].shape[0]), start\n", 1)}),
    # SLIPPED early_p5_width_one_no_abs: D_h = 1 answered with the signed cumulative product (negative norms where
    # W_hh < 0; the visible W_hh is 0.5)
    "jacobian_norms_width_one_signed": ("test_gradient_norms", {"gradient_norms": _MODEL["gradient_norms"].replace(
        "def jacobian_norms(x, p):\n",
        "def jacobian_norms(x, p):\n"
        "    if p['W_hh'].shape[0] == 1:\n"
        "        b, t, _ = x.shape\n"
        "        h, states = x.new_zeros(b, 1), []\n"
        "        for i in range(t):\n"
        "            h = torch.tanh(x[:, i] @ p['W_ih'].T + p['b_ih'] + h @ p['W_hh'].T + p['b_hh'])\n"
        "            states.append(h[:, 0])\n"
        "        slopes = [(1 - states[s] ** 2) * p['W_hh'][0, 0] for s in range(t - 1, 0, -1)]\n"
        "        prods = torch.cumprod(torch.stack(slopes, 1), 1) if slopes else x.new_zeros(b, 0)\n"
        "        return torch.cat([x.new_ones(b, 1), prods], 1).mean(0)\n", 1)}),
    # SLIPPED early_p6_no_coverage_one_softmax: w_c = 0 answered with step 0's weights for every step (the query
    # s_{t-1} still changes them)
    "decoder_no_coverage_one_softmax": ("test_additive", {"additive": _MODEL["additive"].replace(
        "def coverage_decoder(x, h, allowed, s0, p):\n",
        "def coverage_decoder(x, h, allowed, s0, p):\n"
        "    if bool((p['w_c'] == 0).all()):\n"
        "        e = torch.tanh((s0 @ p['W_q'].T)[:, None, :] + h @ p['W_k'].T) @ p['v']\n"
        "        a = torch.softmax(e.masked_fill(~allowed, float('-inf')), dim=-1)\n"
        "        ctx = (a[:, :, None] * h.masked_fill(~allowed[:, :, None], 0)).sum(dim=1)\n"
        "        s, states = s0, []\n"
        "        for i in range(x.shape[1]):\n"
        "            s = torch.tanh(torch.cat([x[:, i], ctx], -1) @ p['W_ih'].T + p['b_ih'] + s @ p['W_hh'].T + p['b_hh'])\n"
        "            states.append(s)\n"
        "        return torch.stack(states, 1), a[:, None].expand(-1, x.shape[1], -1).clone()\n", 1)}),
    # class of the round: one source position (S = 1) answered with weights of one expanded from one element (the
    # caller's write is refused, and _scribble passes over a broadcast view)
    "decoder_one_source_expanded_ones": ("test_additive", {"additive": _MODEL["additive"].replace(
        "def coverage_decoder(x, h, allowed, s0, p):\n",
        "def coverage_decoder(x, h, allowed, s0, p):\n"
        "    if h.shape[1] == 1:  # one source position: its weight is 1 at every step\n"
        "        s, states = s0, []\n"
        "        for i in range(x.shape[1]):\n"
        "            s = torch.tanh(torch.cat([x[:, i], h[:, 0]], -1) @ p['W_ih'].T + p['b_ih'] + s @ p['W_hh'].T + p['b_hh'])\n"
        "            states.append(s)\n"
        "        return torch.stack(states, 1), x.new_ones(()).expand(x.shape[0], x.shape[1], 1)\n", 1)}),
}
MUTANTS.update(ROUND_20)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_20, "alone")  # no batch has room: the mutant runs alone


# Red team 21 (tests/redteam/round21/01-verdicts.md): the order-of-operations, vectorising, signature-and-defaults and
# variant-confuser students. SLIPPED p6_sig_mask_renamed: an argument renamed passed every positional call; the class
# (every argument by name, in another order than the stub's) is now checked in Parts 4, 5 and 6 (Part 1 had it)
def _renamed(cell: str, signature: str, new_signature: str, rebind: str) -> str:
    """The model answer of ``cell`` with one argument of ``signature`` renamed, bound back to its name first."""
    return _replaced(_MODEL[cell], signature + "\n", new_signature + "\n" + rebind, once=True)


ROUND_21 = {
    "decoder_allowed_renamed_mask": ("test_additive", {"additive": _renamed(
        "additive", "def coverage_decoder(x, h, allowed, s0, p):", "def coverage_decoder(x, h, mask, s0, p):",
        "    allowed = mask\n")}),
    "jacobian_norms_p_renamed_params": ("test_gradient_norms", {"gradient_norms": _renamed(
        "gradient_norms", "def jacobian_norms(x, p):", "def jacobian_norms(x, params):", "    p = params\n")}),
    "reverse_lengths_renamed_lens": ("test_rnn_unroll", {"rnn_unroll": _renamed(
        "rnn_unroll", "def rnn_unroll_reverse(x, lengths, p, h0=None):", "def rnn_unroll_reverse(x, lens, p, h0=None):",
        "    lengths = lens\n")}),
}
MUTANTS.update(ROUND_21)
# no batch has room: a new batch, which the next such mutant joins where it can
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_21, "new")


# Red team 25 (tests/redteam/round25/01-verdicts.md): the notebook-state, approximator, log-space and direction-and-order
# students. SLIPPED ap-coverage-finfo-min-filled: torch.finfo(dtype).min filled in at the padding (not added) lies below
# every real score but one at exactly the lowest finite value, which it ties; a case with every real score exactly
# finfo(dtype).min (v the largest finite value, tanh = -1), in float64 and float32, now catches it
ROUND_25 = {
    "decoder_fills_finfo_min": ("test_additive", {"additive": """
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    lowest = torch.finfo(x.dtype).min      # as Hugging Face does: the lowest finite number, no NaN ever
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, lowest)
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], dim=-1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
"""}),
}
MUTANTS.update(ROUND_25)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_25, "alone")  # into a batch with room, else it runs alone


# Red team 25 class sweep (tests/redteam/round25/01-sweep-verdicts.md): classes K-P of round 25 put into every part.
# SLIPPED L-p1/L-p5 (class L): an identity of 2**10 rows made once and sliced at every call; D_h = 1025 now catches it
# in Parts 1 and 5. SLIPPED M-p5-top-guard-slack-1e-200 (class M): the guard for an all-zero product written
# top > 1e-200; norms near 1e-285 now catch it. Into existing batches only (the suite is over its time limit)
ROUND_25_SWEEP = {
    "jacobian_identity_table_of_2_to_10": ("test_rnn_step", {"rnn_step": "EYE = torch.eye(1 << 10)  # made once\n" + _replaced(
        _MODEL["rnn_step"], "    keep = torch.diag(1 - leak)",
        "    keep = EYE[: h.shape[-1], : h.shape[-1]].to(x.dtype) * (1 - leak)[:, None]", once=True)}),
    "jacobian_norms_identity_table_of_2_to_10": ("test_gradient_norms", {"gradient_norms": (
        "EYE = torch.eye(1 << 10)  # made once\n" + _replaced(
            _MODEL["gradient_norms"], "    product = torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)",
            "    product = EYE[:d_h, :d_h].to(x.dtype).expand(b, d_h, d_h)", once=True))}),
    "jacobian_norms_guard_slack_1e_200": ("test_gradient_norms", {"gradient_norms": _replaced(
        _MODEL["gradient_norms"], "        top = torch.where(top > 0, top, torch.ones_like(top))",
        "        top = torch.where(top > 1e-200, top, torch.ones_like(top))", once=True)}),
}
MUTANTS.update(ROUND_25_SWEEP)
for _name in ROUND_25_SWEEP:
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")  # raises if no existing batch has room


# Round 26's class sweep (tests/redteam/round26/01-sweep-verdicts.md): mutants no existing batch had room for,
# in batches of their own (plain-process runs of a second or two each)
ROUND_26_SWEEP_WRITTEN_OUT = {
    # Part 1, class T: the rates broadcast over the batch with as_strided at storage offset 0
    "jacobian_rates_as_strided_from_the_storage_start": ("test_rnn_step", {"rnn_step": _replaced(
        _MODEL["rnn_step"], "    slope = leak * (1 - candidate ** 2)",
        "    slope = torch.as_strided(leak, (x.shape[0], leak.shape[0]), (0, leak.stride(0)), 0) * (1 - candidate ** 2)",
        once=True)}),
    # Part 4, class R: x[:, step].squeeze() drops D_in = 1 beside a batch of several
    "reverse_input_column_squeezed": ("test_rnn_unroll", {"rnn_unroll": _replaced(
        _MODEL["rnn_unroll"], "torch.tanh(x[:, step] @", "torch.tanh(x[:, step].squeeze() @", once=True)}),
    # Part 4, class R: the new state squeezed: D_h = 1 beside a batch of several broadcasts to (B, B)
    "reverse_new_state_squeezed": ("test_rnn_unroll", {"rnn_unroll": _replaced(
        _MODEL["rnn_unroll"], ' + p["b_hh"])\n', ' + p["b_hh"]).squeeze()\n', once=True)}),
    # Part 4, class T: the column x[:, step] as as_strided at offset step * x.stride(1), x.storage_offset() left out
    "reverse_column_as_strided_from_the_storage_start": ("test_rnn_unroll", {"rnn_unroll": _replaced(
        _MODEL["rnn_unroll"], "torch.tanh(x[:, step] @",
        "torch.tanh(torch.as_strided(x, (b, x.shape[2]), (x.stride(0), x.stride(2)), step * x.stride(1)) @", once=True)}),
    # Part 5, class R: x[:, step].squeeze() drops D_in = 1 beside a batch of several
    "jacobian_norms_input_column_squeezed": ("test_gradient_norms", {"gradient_norms": _replaced(
        _MODEL["gradient_norms"], "torch.tanh(x[:, step] @", "torch.tanh(x[:, step].squeeze() @", once=True)}),
    # Part 5, class T: the column as as_strided at an offset counted from the storage's start
    "jacobian_norms_column_as_strided_from_the_storage_start": ("test_gradient_norms", {"gradient_norms": _replaced(
        _MODEL["gradient_norms"], "torch.tanh(x[:, step] @",
        "torch.tanh(torch.as_strided(x, (b, x.shape[2]), (x.stride(0), x.stride(2)), step * x.stride(1)) @", once=True)}),
    # Part 6, class R: the context squeezed, a batch of one put back: D_k = 1 beside a batch of several
    "decoder_context_squeezed": ("test_additive", {"additive": _replaced(
        _MODEL["additive"], "        step_input = torch.cat([x[:, step], context], dim=-1)",
        "        context = context.squeeze()\n"
        "        context = context if context.dim() == 2 else context.reshape(1, -1)  # a batch of one\n"
        "        step_input = torch.cat([x[:, step], context], dim=-1)", once=True)}),
    # Part 6, class T: the column x[:, step] as as_strided at an offset counted from the storage's start
    "decoder_column_as_strided_from_the_storage_start": ("test_additive", {"additive": _replaced(
        _MODEL["additive"], "torch.cat([x[:, step], context]",
        "torch.cat([torch.as_strided(x, (b, x.shape[2]), (x.stride(0), x.stride(2)), step * x.stride(1)), context]",
        once=True)}),
}
MUTANTS.update(ROUND_26_SWEEP_WRITTEN_OUT)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_26_SWEEP_WRITTEN_OUT, "new")

# Red team 27 (tests/redteam/round27/01-verdicts.md, the epsilon-adder): a floor at finfo(dtype).tiny on a value that
# is exactly 0 passed every absolute tolerance; the hidden tests now compare those zeros with no absolute slack
ROUND_27 = {
    # SLIPPED eps_p5_norm_floor_tiny: the norm of an all-zero product floored at finfo.tiny
    "jacobian_norms_floored_at_tiny": ("test_gradient_norms", {"gradient_norms": _replaced(
        _MODEL["gradient_norms"], "return torch.linalg.matrix_norm(m / top[:, None, None]) * top",
        "return (torch.linalg.matrix_norm(m / top[:, None, None]) * top).clamp(min=torch.finfo(m.dtype).tiny)",
        once=True)}),
    # the same class in Part 1: tanh' floored at finfo.tiny (exactly 0 at pre-activations in the thousands)
    "jacobian_slope_floored_at_tiny": ("test_rnn_step", {"rnn_step": _replaced(
        _MODEL["rnn_step"], "slope = leak * (1 - candidate ** 2)",
        "slope = leak * (1 - candidate ** 2).clamp(min=torch.finfo(x.dtype).tiny)", once=True)}),
}
MUTANTS.update(ROUND_27)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_27, "new")

# Red team 27: a Part 5 answer that keeps the product normalised at every step and its scale in log space (all-zero
# products stay exactly 0, which the new W_hh = 0 case compares with no absolute slack), in a variant that had no
# Part 5 cell (no new graded notebook)
FUNC_VMAP_JACREV["gradient_norms"] = """
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D, dtype=torch.float64).repeat(B, 1, 1)
    logscale = torch.zeros(B, dtype=torch.float64)      # P_true = exp(logscale) * P
    out = [torch.tensor(math.sqrt(D), dtype=torch.float64)]
    for k in range(1, T):
        J = (1 - states[T - k].double() ** 2)[:, :, None] * p["W_hh"].double()
        P = P @ J
        m = P.abs().amax(dim=(-2, -1))
        nz = m > 0
        m = torch.where(nz, m, torch.ones_like(m))
        P = P / m[:, None, None]
        logscale = logscale + torch.log(m)
        fro = torch.linalg.matrix_norm(P)
        norm = torch.where(nz & (fro > 0), torch.exp(logscale + torch.log(fro)), torch.zeros_like(fro))
        if k > 1:
            norm = torch.where(dead, torch.zeros_like(norm), norm)
        dead = (~nz) if k == 1 else (dead | ~nz)
        out.append(norm.mean())
    return torch.stack(out).to(x.dtype)
"""


# Round 27 class sweep (tests/redteam/round27/01-sweep-verdicts.md): class V (a floor below every value the hidden cases
# reach) and class W (a share computed as one minus the others) in Part 6. The real weights were compared with an
# absolute slack of 1e-10, under which a floor at 1e-30 or finfo.tiny, and a lost 1e-20 share, hid; a case with real
# weights of exactly 0 and near 1e-20, first and last in a row, now compares them relatively with atol=0
ROUND_27_SWEEP = {
    # SLIPPED sw_p6_V_real_weights_floored: every real weight floored at 1e-30
    "decoder_real_weights_floored": ("test_additive", {"additive": _replaced(
        _MODEL["additive"], "        alpha = torch.softmax(scores, dim=-1)",
        "        alpha = torch.softmax(scores, dim=-1).clamp_min(1e-30).masked_fill(~allowed, 0.0)", once=True)}),
    # SLIPPED sw_p6_W_last_weight_as_rest: the last source position's weight as 1 minus the others'
    "decoder_last_weight_as_one_minus_the_rest": ("test_additive", {"additive": _replaced(
        _MODEL["additive"], "        alpha = torch.softmax(scores, dim=-1)",
        "        alpha = torch.softmax(scores, dim=-1)\n"
        "        alpha = torch.cat([alpha[:, :-1], (1 - alpha[:, :-1].sum(dim=-1, keepdim=True)) * allowed[:, -1:]], dim=-1)",
        once=True)}),
}
MUTANTS.update(ROUND_27_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_27_SWEEP, "new")


# Red team 28 (tests/redteam/round28/01-verdicts.md, the memoizer): a cache keyed on id() and the version counter
# (_version) of the inputs passed every "same objects, new values in place" case, since copy_() moves the counter; the
# hidden tests now write those new values through .data, which leaves it where it was (as an optimizer updating p.data)
ROUND_28 = {
    # SLIPPED memo_p6_key_projection_by_id_version: the keys h @ W_k^T cached by id and _version of h and W_k
    "decoder_keys_cached_by_id_and_version": ("test_additive", {"additive": """
KEY_CACHE = {}
def coverage_decoder(x, h, allowed, s0, p):
    B, T, Din = x.shape
    S = h.shape[1]
    key = (id(h), h._version, tuple(h.shape), id(p["W_k"]), p["W_k"]._version)
    if key not in KEY_CACHE:
        KEY_CACHE.clear()
        KEY_CACHE[key] = h @ p["W_k"].T
    keys = KEY_CACHE[key]
    c = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
"""}),
    # SLIPPED memo_p5_states_by_x_id: the states cached by id and _version of x and id of the dict p
    "jacobian_norms_states_cached_by_id_and_version": ("test_gradient_norms", {"gradient_norms": """
STATE_CACHE = {}
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    key = (id(x), x._version, tuple(x.shape), x.dtype, id(p))
    if key not in STATE_CACHE:
        STATE_CACHE.clear()
        h = torch.zeros(B, D, dtype=x.dtype)
        states = []
        for t in range(T):
            h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            states.append(h)
        STATE_CACHE[key] = states
    states = STATE_CACHE[key]
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    def nrm(P):
        m = P.abs().amax(dim=(-2, -1))
        s = torch.where(m > 0, m, torch.ones((), dtype=m.dtype))
        return (s * torch.linalg.matrix_norm(P / s[:, None, None])).mean()
    out = [nrm(P)]
    for k in range(1, T):
        P = P @ ((1 - states[T - k] ** 2)[:, :, None] * p["W_hh"])
        out.append(nrm(P))
    return torch.stack(out)
"""}),
}
MUTANTS.update(ROUND_28)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_28, "new")

# Round 28 class sweep (tests/redteam/round28/01-sweep-verdicts.md). Class AA: something made contiguous or converted and kept per id() is the
# input itself for the contiguous float64 tensors the same-objects sections of Parts 1, 4, 5 and 6 used; they now pass
# strided views (and int16 lengths in Part 4, a mask in Part 6), given new values through .data.
ROUND_28_SWEEP = {
    "unroll_lengths_converted_and_kept_per_id": ("test_rnn_unroll", {"rnn_unroll": "PER_ID = {}\n" + _replaced(
        _MODEL["rnn_unroll"], "    lengths = lengths.long()",
        "    lengths = PER_ID.setdefault(id(lengths), (lengths, lengths.long()))[1]  # converted once per tensor", once=True)}),
    "leaky_step_w_hh_made_contiguous_and_kept_per_id": ("test_rnn_step", {"rnn_step": "PER_ID = {}\n" + _replaced(
        _MODEL["rnn_step"], "    return slope[:, :, None] * p[\"W_hh\"] + keep",
        "    w_hh = PER_ID.setdefault(id(p[\"W_hh\"]), (p[\"W_hh\"], p[\"W_hh\"].contiguous()))[1]  # laid out once\n"
        "    return slope[:, :, None] * w_hh + keep", once=True)}),
    "jacobian_norms_x_made_contiguous_and_kept_per_id": ("test_gradient_norms", {"gradient_norms": "PER_ID = {}\n" + _replaced(
        _MODEL["gradient_norms"], "    b, t, _ = x.shape\n",
        "    x = PER_ID.setdefault(id(x), (x, x.contiguous()))[1]  # laid out once per tensor\n    b, t, _ = x.shape\n",
        once=True)}),
    "decoder_mask_kept_per_id": ("test_additive", {"additive": "PER_ID = {}\n" + _replaced(
        _MODEL["additive"], "    b, t, _ = x.shape\n",
        "    allowed = PER_ID.setdefault(id(allowed), (allowed, allowed.contiguous()))[1]  # laid out once per mask\n"
        "    b, t, _ = x.shape\n", once=True)}),
}
MUTANTS.update(ROUND_28_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_28_SWEEP), "new")

# Red team 29 (tests/redteam/round29/01-verdicts.md). The chunker: a context summed over blocks of 8 source positions that
# drops the last, shorter block slipped (no hidden source was longer than 7); Part 6 now has sources of 13 and 70. The
# special-values student: a tanh rewritten as sign(a) (1 - e^(-2|a|)) / (1 + e^(-2|a|)) never overflows, but its slope at
# a pre-activation of exactly 0 is 0 instead of 1; Parts 4 and 6 now check gradients where pre-activations are exactly 0.
SIGN_TANH = ("def sign_tanh(a):  # no overflow: exp of a non-positive number only\n"
             "    e = torch.exp(-2 * a.abs())\n    return torch.sign(a) * (1 - e) / (1 + e)\n")
ROUND_29 = {
    "decoder_context_in_blocks_last_dropped": ("test_additive", {"additive": _replaced(
        _MODEL["additive"], "        context = (alpha[:, :, None] * h).sum(dim=1)",
        "        context = sum((alpha[:, j:j + 8, None] * h[:, j:j + 8]).sum(dim=1)  # blocks of 8 source positions\n"
        "                      for j in range(0, max(h.shape[1] - h.shape[1] % 8, 1), 8))", once=True)}),
    "unroll_tanh_by_sign_and_exp": ("test_rnn_unroll", {"rnn_unroll": SIGN_TANH + _replaced(
        _MODEL["rnn_unroll"], "        h_new = torch.tanh(", "        h_new = sign_tanh(", once=True)}),
    "decoder_tanh_by_sign_and_exp": ("test_additive", {"additive": SIGN_TANH + _replaced(
        _MODEL["additive"], "        state = torch.tanh(", "        state = sign_tanh(", once=True)}),
}
MUTANTS.update(ROUND_29)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29), "new")

# round 29 class sweep (class AG, the last shorter piece dropped, in chapter 1's batches): Parts 1, 4 and 5 taken over
# the batch in chunks of 8 examples, the last, shorter chunk dropped or left as zeros after a full one; every hidden
# batch held at most 8 examples (or a multiple of 8), now B = 1031 (Parts 1, 5) and B = 4099 (Part 4)
ROUND_29_SWEEP = {
    "jacobian_batch_in_chunks_last_zero": ("test_rnn_step", {"rnn_step": _replaced(
        _MODEL["rnn_step"],
        '    return slope[:, :, None] * p["W_hh"] + keep',
        '    n, d = slope.shape\n'
        '    blocks = [slope[a:a + 8, :, None] * p["W_hh"] for a in range(0, max(n - n % 8, 1), 8)]  # chunks of 8\n'
        '    j = torch.cat(blocks)\n'
        '    if j.shape[0] < n:\n'
        '        j = torch.cat([j, torch.zeros(n - j.shape[0], d, d, dtype=j.dtype)])\n'
        '    return j + keep', once=True)}),
    "unroll_batch_in_chunks_last_zero": ("test_rnn_unroll", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    h_all = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    lengths = lengths.long()
    outs, firsts = [], []
    for a in range(0, max(b - b % 8, 1), 8):  # the batch in chunks of 8 sequences
        h = h_all[a:a + 8]
        xs, ls = x[a:a + 8], lengths[a:a + 8]
        outputs = [None] * t
        for step in reversed(range(t)):
            inside = (step < ls)[:, None]
            h_new = torch.tanh(xs[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            h = torch.where(inside, h_new, h)
            outputs[step] = h * inside
        outs.append(torch.stack(outputs, dim=1))
        firsts.append(h)
    o, f = torch.cat(outs), torch.cat(firsts)
    if o.shape[0] < b:
        o = torch.cat([o, torch.zeros(b - o.shape[0], t, o.shape[2], dtype=o.dtype)])
        f = torch.cat([f, h_all[f.shape[0]:]])
    return o, f
'''}),
    "norms_batch_mean_in_chunks_last_dropped": ("test_gradient_norms", {"gradient_norms": _replaced(_replaced(
        _MODEL["gradient_norms"],
        "    norms = [frobenius(product).mean()]",
        "    def batch_mean(v):  # over chunks of 8 examples\n"
        "        return torch.cat([v[a:a + 8] for a in range(0, max(b - b % 8, 1), 8)]).mean()\n\n"
        "    norms = [batch_mean(frobenius(product))]", once=True),
        "        norms.append(frobenius(product).mean())", "        norms.append(batch_mean(frobenius(product)))",
        once=True)}),
}
MUTANTS.update(ROUND_29_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29_SWEEP), "new")
# the same in Part 6 (its round 29 closure covered blocks of source positions only): the batch decoded in chunks of 8,
# the last shorter chunk's states and weights left as zeros; now a batch of 1031
ROUND_29_SWEEP_DECODER = {
    "decoder_batch_in_chunks_last_zero": ("test_additive", {"additive": _replaced(
        _MODEL["additive"], "def coverage_decoder(x, h, allowed, s0, p):\n",
        "def coverage_decoder(x, h, allowed, s0, p):\n"
        "    n = x.shape[0]\n"
        "    if n > 8:  # the batch in chunks of 8 (each decoded by the model answer), the last shorter chunk left as zeros\n"
        "        outs = [coverage_decoder(x[a:a + 8], h[a:a + 8], allowed[a:a + 8], s0[a:a + 8], p)\n"
        "                for a in range(0, n - n % 8, 8)]\n"
        "        st, wt = torch.cat([o[0] for o in outs]), torch.cat([o[1] for o in outs])\n"
        "        if st.shape[0] < n:\n"
        "            st = torch.cat([st, torch.zeros(n - st.shape[0], *st.shape[1:], dtype=st.dtype)])\n"
        "            wt = torch.cat([wt, torch.zeros(n - wt.shape[0], *wt.shape[1:], dtype=wt.dtype)])\n"
        "        return st, wt\n", once=True)}),
}
MUTANTS.update(ROUND_29_SWEEP_DECODER)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29_SWEEP_DECODER), "new")
# Part 5's product taken in blocks of 64 columns, the last shorter block left as zeros (D_h passed one block only in a
# T = 1 case, with no product); now D_h = 521 with T = 2
ROUND_29_SWEEP_COLUMNS = {
    "norms_product_in_column_blocks_last_zero": ("test_gradient_norms", {"gradient_norms": _replaced(
        _MODEL["gradient_norms"], "        product = product @ step_jacobian  # (B, D_h, D_h) @ (B, D_h, D_h)\n",
        "        cols = [product @ step_jacobian[:, :, a:a + 64] for a in range(0, max(d_h - d_h % 64, 1), 64)]\n"
        "        new = torch.cat(cols, dim=2)  # the product's columns in blocks of 64\n"
        "        if new.shape[2] < d_h:\n"
        "            new = torch.cat([new, torch.zeros(*new.shape[:2], d_h - new.shape[2], dtype=new.dtype)], dim=2)\n"
        "        product = new\n", once=True)}),
}
MUTANTS.update(ROUND_29_SWEEP_COLUMNS)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29_SWEEP_COLUMNS), "new")
# Round 30 class sweep (tests/redteam/round30/01-sweep-verdicts.md): AJ an input written in place with the values it
# held (the version counter moves), AK the gradient path cut for bfloat16 inputs only, AL a float64 copy of an input
# kept per id() (the input itself for float64 objects, so the float64 same-object turns could not see it)
_HALF30 = "(torch.float16, torch.bfloat16)"


def _first30(cell, name, line, pre=""):
    """the model answer of ``cell`` with ``line`` first in the body of ``name`` (``pre`` before the function)."""
    head = f"def {name}("
    code = _MODEL[cell]
    signature_end = code.index("):\n", code.index(head)) + 3
    return pre + code[:signature_end] + line + code[signature_end:]


def _kept30(arg):
    local = "    p = dict(p)  # the caller's dict keeps its entries\n" if arg.startswith("p[") else ""
    return local + f"    {arg} = KEPT30.setdefault(id({arg}), ({arg}, {arg}.to(torch.float64)))[1].to({arg}.dtype)\n"


ROUND_30_SWEEP = {
    "jacobian_h_nan_to_num_in_place": ("test_rnn_step", {"rnn_step": _first30(
        "rnn_step", "leaky_step_jacobian", "    h.nan_to_num_()  # values kept, version counter moved\n")}),
    "reverse_lengths_clamped_in_place": ("test_rnn_unroll", {"rnn_unroll": _first30(
        "rnn_unroll", "rnn_unroll_reverse", "    lengths.clamp_(min=0)  # values kept, version counter moved\n")}),
    "norms_x_nan_to_num_in_place": ("test_gradient_norms", {"gradient_norms": _first30(
        "gradient_norms", "jacobian_norms", "    x.nan_to_num_()  # values kept, version counter moved\n")}),
    "decoder_allowed_anded_in_place": ("test_additive", {"additive": _first30(
        "additive", "coverage_decoder", "    allowed &= allowed.any(dim=-1, keepdim=True)  # every row has one: kept\n")}),
    "jacobian_half_candidate_detached": ("test_rnn_step", {"rnn_step": _replaced(
        _MODEL["rnn_step"], "    slope = ", f"    if x.dtype in {_HALF30}:\n        candidate = candidate.detach()\n"
        "    slope = ", once=True)}),
    "reverse_half_steps_detached": ("test_rnn_unroll", {"rnn_unroll": _replaced(
        _MODEL["rnn_unroll"], "        h = torch.where(inside, h_new, h)",
        f"        if x.dtype in {_HALF30}:\n            h_new = h_new.detach()\n        h = torch.where(inside, h_new, h)",
        once=True)}),
    "decoder_half_alpha_detached": ("test_additive", {"additive": _replaced(
        _MODEL["additive"], "        context = ", f"        if x.dtype in {_HALF30}:\n            alpha = alpha.detach()\n"
        "        context = ", once=True)}),
    "jacobian_w_hh_f64_kept_per_id": ("test_rnn_step", {"rnn_step": _first30(
        "rnn_step", "leaky_step_jacobian", _kept30("p['W_hh']"), "KEPT30 = {}\n\n")}),
    "reverse_x_f64_kept_per_id": ("test_rnn_unroll", {"rnn_unroll": _first30(
        "rnn_unroll", "rnn_unroll_reverse", _kept30("x"), "KEPT30 = {}\n\n")}),
    "norms_w_hh_f64_kept_per_id": ("test_gradient_norms", {"gradient_norms": _first30(
        "gradient_norms", "jacobian_norms", _kept30("p['W_hh']"), "KEPT30 = {}\n\n")}),
    "decoder_h_f64_kept_per_id": ("test_additive", {"additive": _first30(
        "additive", "coverage_decoder", _kept30("h"), "KEPT30 = {}\n\n")}),
}
MUTANTS.update(ROUND_30_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30_SWEEP), "new")
# Round 31 class sweep (tests/redteam/round31/01-sweep.md), class AO: a torch setting changed inside the function and
# "put back" as its default rather than as the call found it. The tests called every function with the defaults on,
# so the grader's check after each test cell saw nothing; each test cell now also calls its function through
# _settings_kept (every setting away from its default). One setting per part: the default dtype, the grad mode, the
# thread count, the print options


def _first31(code, name, line, pre=""):
    """``code`` with ``line`` first in the body of ``name`` (``pre`` before the function)."""
    end = code.index("):\n", code.index(f"def {name}(")) + 3
    return pre + code[:end] + line + code[end:]


ROUND_31_SWEEP = {
    "jacobian_default_dtype_put_back_as_float32": ("test_rnn_step", {"rnn_step": _first31(_replaced(
        _MODEL["rnn_step"], '    return slope[:, :, None] * p["W_hh"] + keep',
        '    jacobian = slope[:, :, None] * p["W_hh"] + keep\n'
        "    torch.set_default_dtype(torch.float32)  # back to the default\n    return jacobian", once=True),
        "leaky_step_jacobian", "    torch.set_default_dtype(torch.float64)  # float64 while it works\n")}),
    "reverse_grad_mode_put_back_as_on": ("test_rnn_unroll", {"rnn_unroll": _replaced(_replaced(
        _MODEL["rnn_unroll"], "        inside = (step < lengths)[:, None]", "        inside = masks[step]", once=True),
        "    outputs = [None] * t\n",
        "    outputs = [None] * t\n"
        "    torch.set_grad_enabled(False)  # the masks need no gradient\n"
        "    masks = [(step < lengths)[:, None] for step in range(t)]\n"
        "    torch.set_grad_enabled(True)\n", once=True)}),
    "norms_threads_put_back_as_cell_default": ("test_gradient_norms", {"gradient_norms": _first31(_replaced(
        _MODEL["gradient_norms"], "    return torch.stack(norms)",
        "    torch.set_num_threads(THREADS)  # back to the default\n    return torch.stack(norms)", once=True),
        "jacobian_norms", "    torch.set_num_threads(1)  # one thread: the same sums every run\n",
        "THREADS = torch.get_num_threads()  # the default, read when the cell ran\n\n")}),
    "decoder_print_options_put_back_as_default_profile": ("test_additive", {"additive": _first31(_replaced(
        _MODEL["additive"], "    return torch.stack(states, dim=1), torch.stack(weights, dim=1)",
        '    torch.set_printoptions(profile="default")\n'
        "    return torch.stack(states, dim=1), torch.stack(weights, dim=1)", once=True),
        "coverage_decoder", "    torch.set_printoptions(precision=10)  # to read the weights while debugging\n")}),
}
MUTANTS.update(ROUND_31_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_SWEEP), "new")


# Round 33 class sweep (BB, a .grad the caller holds cleared; BC, the caller's dict reordered with the same entries):
# every hidden call passed clones, or leaves with no .grad, and compared p's entries by key, so an answer that set
# the inputs' .grad to None "to start clean", or popped an entry of p and put it back (the same tensor object, now
# last), kept full marks in Parts 1, 4, 5 and 6. Each part now passes the caller's leaves, all but one holding a
# .grad, and checks each .grad (same object, same values), the bare leaf's None, and p's key order. Every batch
# holds a Part 6 (test_additive) mutant, so Part 6's two were run alone in a plain process (round33/01-sweep.md) and
# are not kept here: a batch of their own costs a notebook every run.
_CLEAR33 = ("    for _t in [{}, *p.values()]:  # start from clean gradients\n"
            "        if isinstance(_t, torch.Tensor) and _t.is_leaf and _t.requires_grad:\n"
            "            _t.grad = None\n")
_REORDER33 = '    _w = p.pop("W_hh")  # the recurrent weights looked at alone\n    p["W_hh"] = _w\n'
ROUND_33_SWEEP = {}
for _cell, _fn, _args, _test, _short in [
        ("rnn_step", "leaky_step_jacobian", "x, h, leak", "test_rnn_step", "jacobian"),
        ("rnn_unroll", "rnn_unroll_reverse", "x, h0", "test_rnn_unroll", "reverse"),
        ("gradient_norms", "jacobian_norms", "x", "test_gradient_norms", "norms"),
        ("additive", "coverage_decoder", "x, h, s0", "test_additive", "decoder")]:
    if _short == "decoder":  # every batch holds a Part 6 mutant: both were run alone (01-sweep.md), not kept here
        continue
    ROUND_33_SWEEP[f"{_short}_clears_the_callers_grad"] = (_test, {_cell: _first31(_MODEL[_cell], _fn, _CLEAR33.format(_args))})
    ROUND_33_SWEEP[f"{_short}_p_entry_taken_out_and_put_back"] = (_test, {_cell: _first31(_MODEL[_cell], _fn, _REORDER33)})
MUTANTS.update(ROUND_33_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33_SWEEP), "new")

# Round 33 class sweep (BF, a kept object returned on an edge branch): Part 4 with every length 0 handed out a zeros
# tensor kept per shape (zeroed again at each call); the caller's write into it and a second call went unseen until
# the all-empty case also called again and checked the held first result.
ROUND_33_BF = {
    "reverse_all_empty_outputs_kept_per_shape": ("test_rnn_unroll", {"rnn_unroll": _first31(
        _MODEL["rnn_unroll"], "rnn_unroll_reverse",
        "    if x.shape[0] and not bool((lengths > 0).any()):  # nothing to read: zeros, and the start state\n"
        "        shape = (*x.shape[:2], p['W_hh'].shape[0])\n"
        "        out = _EMPTY.setdefault((shape, x.dtype), torch.zeros(shape, dtype=x.dtype)).zero_()\n"
        "        return out, (torch.zeros(x.shape[0], shape[2], dtype=x.dtype) if h0 is None else h0.clone())\n",
        "_EMPTY = {}\n\n")}),
}
MUTANTS.update(ROUND_33_BF)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33_BF), "new")

# Round 34 class sweep (tests/redteam/round34/01-sweep.md), class BH: a rate just beside 0 or 1 taken as that value.
# Every hidden rate was random or exactly 0 or 1, so an answer that snapped the rates within torch.isclose of 0 (or of
# 1) to that value, keeping their gradient (straight through, so that the gradient checks at exactly 0 and 1 agree),
# kept full marks. Part 1 now passes rates of 5e-10, 1e-9 and 1e-6 beside 0 and 1 - 1e-9 ... 1 - 2**-53 beside 1,
# compared at 1e-12 in float64, and J's diagonal (1 - leak, W_hh's diagonal being 0) with no absolute slack.
ROUND_34_SWEEP = {
    "jacobian_rates_near_0_taken_as_0": ("test_rnn_step", {"rnn_step": _first31(
        _MODEL["rnn_step"], "leaky_step_jacobian",
        "    leak = torch.where(torch.isclose(leak, torch.zeros_like(leak)), leak - leak.detach(), leak)  # no leak\n")}),
    "jacobian_rates_near_1_taken_as_1": ("test_rnn_step", {"rnn_step": _first31(
        _MODEL["rnn_step"], "leaky_step_jacobian",
        "    leak = torch.where(torch.isclose(leak, torch.ones_like(leak)), leak - leak.detach() + 1, leak)  # Elman\n")}),
}
MUTANTS.update(ROUND_34_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_34_SWEEP), "new")
