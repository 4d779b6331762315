"""Chapter 5 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently."""

CHAPTER = "05-encoder-decoder"
FULL_MARKS = 14.0


def layer_norm(stats):
    return f"""
def layer_norm(x, weight, bias, eps=1e-5):
{stats}
"""


def encoder(body):
    return "\ndef encoder_layer(x, allowed, p):\n" + body + "\n"


def decoder(body):
    return "\ndef decoder_layer(y, memory, self_allowed, memory_allowed, p):\n" + body + "\n"


def masks(body):
    return "\ndef seq2seq_masks(src, tgt, pad_id):\n    t = tgt.shape[1]\n    causal = torch.ones(t, t, dtype=torch.bool).tril()\n" + body + "\n"


def params(body):
    return ("\ndef transformer_params(vocab, d_model, d_ff, n_enc, n_dec):\n    d = d_model\n"
            "    attention = 4 * d * d + 4 * d\n    ffn = 2 * d * d_ff + d_ff + d\n    norm = 2 * d\n" + body + "\n")


MUTANTS = {
    "layer_norm_unbiased_variance": ("test_layer_norm", {"layer_norm": layer_norm(
        "    mean = x.mean(dim=-1, keepdim=True)\n    var = x.var(dim=-1, keepdim=True)\n"
        "    return (x - mean) / torch.sqrt(var + eps) * weight + bias")}),
    "layer_norm_over_wrong_axis": ("test_layer_norm", {"layer_norm": layer_norm(
        "    mean = x.mean(dim=0, keepdim=True)\n    var = x.var(dim=0, keepdim=True, unbiased=False)\n"
        "    return (x - mean) / torch.sqrt(var + eps) * weight + bias")}),
    "layer_norm_eps_outside_sqrt": ("test_layer_norm", {"layer_norm": layer_norm(
        "    mean = x.mean(dim=-1, keepdim=True)\n    var = x.var(dim=-1, keepdim=True, unbiased=False)\n"
        "    return (x - mean) / (torch.sqrt(var) + eps) * weight + bias")}),
    "feed_forward_without_relu": ("test_feed_forward", {"feed_forward": """
def feed_forward(x, ff):
    w1, b1, w2, b2 = ff
    return (x @ w1.T + b1) @ w2.T + b2
"""}),
    "encoder_pre_ln": ("test_encoder_layer", {"encoder_layer": encoder(
        "    x = x + mha(layer_norm(x, *p['norm1']), None, allowed, p['attn'])\n"
        "    return x + feed_forward(layer_norm(x, *p['norm2']), p['ff'])")}),
    "encoder_residual_added_after_norm": ("test_encoder_layer", {"encoder_layer": encoder(
        "    x = x + layer_norm(mha(x, None, allowed, p['attn']), *p['norm1'])\n"
        "    return x + layer_norm(feed_forward(x, p['ff']), *p['norm2'])")}),
    "encoder_ignores_padding": ("test_encoder_layer", {"encoder_layer": encoder(
        "    x = layer_norm(x + mha(x, None, None, p['attn']), *p['norm1'])\n"
        "    return layer_norm(x + feed_forward(x, p['ff']), *p['norm2'])")}),
    "decoder_cross_attention_keys_from_decoder": ("test_decoder_layer", {"decoder_layer": decoder(
        "    y = layer_norm(y + mha(y, None, self_allowed, p['self_attn']), *p['norm1'])\n"
        "    y = layer_norm(y + mha(y, None, None, p['cross_attn']), *p['norm2'])\n"
        "    return layer_norm(y + feed_forward(y, p['ff']), *p['norm3'])")}),
    "decoder_causal_mask_missing": ("test_decoder_layer", {"decoder_layer": decoder(
        "    y = layer_norm(y + mha(y, None, None, p['self_attn']), *p['norm1'])\n"
        "    y = layer_norm(y + mha(y, memory, memory_allowed, p['cross_attn']), *p['norm2'])\n"
        "    return layer_norm(y + feed_forward(y, p['ff']), *p['norm3'])")}),
    "decoder_source_padding_ignored": ("test_decoder_layer", {"decoder_layer": decoder(
        "    y = layer_norm(y + mha(y, None, self_allowed, p['self_attn']), *p['norm1'])\n"
        "    y = layer_norm(y + mha(y, memory, None, p['cross_attn']), *p['norm2'])\n"
        "    return layer_norm(y + feed_forward(y, p['ff']), *p['norm3'])")}),
    "masks_without_causal": ("test_masks", {"masks": masks(
        "    return (src != pad_id)[:, None, :], (tgt != pad_id)[:, None, :].expand(-1, t, -1)")}),
    "masks_padding_on_queries": ("test_masks", {"masks": masks(
        "    return (src != pad_id)[:, None, :], (tgt != pad_id)[:, :, None] & causal")}),
    "masks_source_inverted": ("test_masks", {"masks": masks(
        "    return (src == pad_id)[:, None, :], (tgt != pad_id)[:, None, :] & causal")}),
    "params_without_cross_attention": ("test_param_count", {"param_count": params(
        "    return vocab * d + n_enc * (attention + ffn + 2 * norm) + n_dec * (attention + ffn + 3 * norm) + 2 * norm")}),
    "params_without_biases": ("test_param_count", {"param_count": params(
        "    return vocab * d + n_enc * (4 * d * d + 2 * d * d_ff + 2 * norm) + n_dec * (8 * d * d + 2 * d * d_ff + 3 * norm) + 2 * norm")}),
    "params_untied_embeddings": ("test_param_count", {"param_count": params(
        "    return 3 * vocab * d + n_enc * (attention + ffn + 2 * norm) + n_dec * (2 * attention + ffn + 3 * norm) + 2 * norm")}),
    "residual_answer_post_ln": ("test_residual_question", {"mc": 'answer_residual = "a"'}),
}

DIFFERENT_BUT_CORRECT = {
    "layer_norm": """
def layer_norm(x, weight, bias, eps=1e-5):
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
    return torch.addcmul(bias, (x - mean) * torch.rsqrt(var + eps), weight)
""",
    "feed_forward": """
def feed_forward(x, ff):
    hidden = F.linear(x, ff[0], ff[1]).clamp(min=0)
    return F.linear(hidden, ff[2], ff[3])
""",
    "encoder_layer": """
def post_ln(x, sublayer, norm):
    return layer_norm(x + sublayer(x), *norm)

def encoder_layer(x, allowed, p):
    x = post_ln(x, lambda h: mha(h, None, allowed, p["attn"]), p["norm1"])
    return post_ln(x, lambda h: feed_forward(h, p["ff"]), p["norm2"])
""",
    "decoder_layer": """
def decoder_layer(y, memory, self_allowed, memory_allowed, p):
    steps = [
        (lambda h: mha(h, None, self_allowed, p["self_attn"]), "norm1"),
        (lambda h: mha(h, memory, memory_allowed, p["cross_attn"]), "norm2"),
        (lambda h: feed_forward(h, p["ff"]), "norm3"),
    ]
    for sublayer, norm in steps:
        y = layer_norm(y + sublayer(y), *p[norm])
    return y
""",
    "masks": """
def seq2seq_masks(src, tgt, pad_id):
    i = torch.arange(tgt.shape[1])
    causal = i[None, :, None] >= i[None, None, :]
    key_real = tgt.ne(pad_id).unsqueeze(1)
    return src.ne(pad_id).unsqueeze(1), torch.logical_and(causal, key_real)
""",
    "param_count": """
def transformer_params(vocab, d_model, d_ff, n_enc, n_dec):
    linear = lambda n_in, n_out: n_in * n_out + n_out
    attention = 4 * linear(d_model, d_model)
    ffn = linear(d_model, d_ff) + linear(d_ff, d_model)
    ln = 2 * d_model
    encoder = n_enc * (attention + ffn + 2 * ln) + ln
    decoder = n_dec * (2 * attention + ffn + 3 * ln) + ln
    return vocab * d_model + encoder + decoder
""",
    "mc": 'answer_residual = "b"',
}

CORRECT_VARIANTS = {"var_mean_linear_helper_functions": DIFFERENT_BUT_CORRECT}

# Mutants of independent parts graded together, one submission per batch (python tests/mutant_batches.py
# 05-encoder-decoder found them: no member breaks another member's graded test); the others alone.
MUTANT_BATCHES = [
    ["layer_norm_unbiased_variance", "feed_forward_without_relu", "masks_without_causal", "params_without_cross_attention", "residual_answer_post_ln"],
    ["layer_norm_over_wrong_axis", "masks_padding_on_queries", "params_without_biases"],
    ["layer_norm_eps_outside_sqrt", "masks_source_inverted", "params_untied_embeddings"],
    ["encoder_pre_ln", "decoder_cross_attention_keys_from_decoder"],
    ["encoder_residual_added_after_norm", "decoder_causal_mask_missing"],
    ["encoder_ignores_padding", "decoder_source_padding_ignored"],
]
