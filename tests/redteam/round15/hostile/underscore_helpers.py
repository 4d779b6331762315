"""Red team round 15 (hostile): private helper names an honest student might choose that the grader flags.

    timeout 1800 python tests/redteam/round15/hostile/underscore_helpers.py 01-rnn-motivation ...

An honest notebook often has private helpers (`_softmax`, `_split_heads`, `_check`). The static scan flags a
cell that rebinds a name the locked or test cells define, hidden ones included ("redefines X, which the tests
use"), and every later test cell waits for manual review. The model answers plus one added cell after the
setup that defines ~120 plausible private helpers; prints the status, the score and the names flagged.
"""
from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(HERE))

NAMES = sorted(set("""
_softmax _stable_softmax _log_softmax _logsumexp _lse _masked_softmax _mask _causal _causal_mask _pad _padding_mask
_scores _attention _attend _attn _sdpa _scaled_dot _split_heads _merge_heads _heads _combine _project _proj _linear
_rotate _rotate_half _rope _apply_rope _freqs _inv_freq _angles _sincos _table _alibi _slopes _positions _pos
_norm _rms _rms_norm _layer_norm _ln _gelu _silu _swiglu _ffn _mlp _block _residual _dropout _init _params _weights
_check _checks _test _tests _verify _validate _assert _expect _expected _reference _ref _naive _slow _brute _loop
_shape _shapes _dims _size _dtype _device _to _as_tensor _tensor_ _float_ _zeros _ones _eye _rand _randn _seed _gen
_rng _sample _samples _draw _topk _top_k _top_p _min_p _argmax _greedy _beam _beams _score _bleu _ngrams _counts
_loss _nll _xent _cross_entropy _smooth _lr _cosine _warmup _schedule _average _avg _mean _var _std _sum _prod
_cache _kv _update _step _decode _encode _generate _pack _unpack _quantize _dequantize _bits _group _merge _partial
_helper _helpers _util _utils _tmp _debug _show _plot _print _pretty _demo _example _main _run _go
""".split()))


def cell():
    return "".join(f"def {n}(*args, **kwargs):\n    return None\n" for n in NAMES)


def main(argv):
    from added_cells import build
    from attnlab import course
    from attnlab.instructor.grading import grade

    for chapter in argv:
        with tempfile.TemporaryDirectory(prefix="rt15h-under-") as tmp:
            tmp = Path(tmp)
            path = build(chapter, tmp / "helpers.ipynb", [("setup", cell())])
            with course.scratch_course(chapter, ROOT) as (_api, scratch):
                (r,) = grade(ROOT, chapter, {"helpers": path}, f"sqlite:///{scratch / 'gradebook.db'}")
        got = sum(p.score for p in r.parts.values())
        top = sum(p.max_score for p in r.parts.values())
        text = "; ".join(r.reasons)
        flagged = sorted(set(re.findall(r"redefines (\w+), which the tests use", text)))
        other = [x for x in r.reasons if "redefines" not in x]
        print(f"{chapter}: {r.status} {got:g}/{top:g} flagged names: {flagged} {('other: ' + '; '.join(other)[:300]) if other else ''}")


if __name__ == "__main__":
    main(sys.argv[1:])
