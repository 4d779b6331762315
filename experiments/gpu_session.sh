#!/usr/bin/env bash
# Every check the course needs a CUDA machine for, as one script with a bounded run time (about 8 min
# on one H200). It needs only the machine's own Python with PyTorch (and Triton, tokenizers, sacrebleu,
# tqdm, matplotlib, pytest): the package is used from src/ without installing it.
#
#   ATTNLAB_DATA=/path/to/data bash experiments/gpu_session.sh OUTDIR
#
# ATTNLAB_DATA must hold multi30k/ (the six .gz files of Multi30k task 1; see DESIGN.md) for the
# capstone runs to use real data. Everything is written under OUTDIR: session.log (all output) and
# results.tgz (the results files, the training logs and the test logs).
#
# Quiet first (timings): the FlashAttention benchmark, the multi-head attention and capstone
# throughput benchmarks. Then, side by side (correctness, not timing): two capstone trainings on
# Multi30k, the tests and every lesson page's code on the GPU.
set -u
out=${1:?usage: bash experiments/gpu_session.sh OUTDIR}
mkdir -p "$out/work"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 MPLBACKEND=Agg
py=${PYTHON:-python3}
# DRY_RUN=1: the same steps on the CPU with tiny sizes, to check the script itself before a lease
if [ "${DRY_RUN:-0}" = 1 ]; then
  dev=cpu flash_args="--lengths 256 512 --no-write" mha_args="--repeats 3" small="--batch 2 --length 64"
  cap_args="--minutes 0.15 --snapshot-minutes 0.05 --limit 40 --beam 2" bench_args="--steps 4"
  lesson_args="--pages chapters/02-scaled-attention/index.md chapters/07-hardware/flash.md" res="$out/work/results"
else
  dev=cuda flash_args="" mha_args="" small="--batch 32 --length 1024" bench_args="" lesson_args="" res=experiments/results
  cap_args="--minutes ${CAPSTONE_MINUTES:-3} --snapshot-minutes 0.5"
fi
mkdir -p "$res"
log="$out/session.log"
step() { echo "=== $(date -u +%H:%M:%S) $*" | tee -a "$log"; }
started=$(date +%s)

step "machine"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  $py -c "import torch, sys; print('python', sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(0))"
  $py -c "import triton; print('triton', triton.__version__)"
  $py -c "import tokenizers, sacrebleu; print('tokenizers', tokenizers.__version__, 'sacrebleu', sacrebleu.__version__)"
  ls "${ATTNLAB_DATA:-/nonexistent}/multi30k" 2>&1 | head -8; nproc; } 2>&1 | tee -a "$log"

step "FlashAttention benchmark (writes experiments/results/flash_cuda.json)"
timeout 200 $py benchmarks/flash.py --device $dev $flash_args 2>&1 | tee -a "$log"
step "multi-head attention benchmark"
timeout 60 $py benchmarks/mha.py --device $dev $mha_args --out "$res/bench_mha_$dev.json" 2>&1 | tee -a "$log"
timeout 60 $py benchmarks/mha.py --device $dev $mha_args $small --out "$res/bench_mha_${dev}_long.json" 2>&1 | tee -a "$log"
step "capstone training throughput benchmark"
timeout 90 $py benchmarks/capstone.py --device $dev $bench_args --out "$res/bench_capstone_$dev.json" 2>&1 | tee -a "$log"

step "side by side: two capstone trainings, the tests, the lessons"
timeout 330 $py experiments/capstone.py --device $dev --corpus multi30k $cap_args \
  --curve-every 1 --run "$out/work/run-base" --out "$res/capstone_gpu.json" > "$out/work/capstone_gpu.log" 2>&1 &
base=$!
timeout 330 $py experiments/capstone.py --device $dev --corpus multi30k $cap_args \
  --curve-every 1 --run "$out/work/run-wide" \
  --d-model 512 --num-heads 8 --d-ff 2048 --dropout 0.3 --peak-lr 0.0007 \
  --out "$res/capstone_gpu_wide.json" > "$out/work/capstone_gpu_wide.log" 2>&1 &
wide=$!
# the lessons as the site builds them: on the embedded corpus, not Multi30k
timeout 280 env -u ATTNLAB_DATA $py experiments/lessons_on_device.py --jobs 4 --timeout 240 $lesson_args \
  --out "$res/lessons_$dev.json" > "$out/work/lessons.log" 2>&1 &
lessons=$!
timeout 60 $py -m pytest -p no:cacheprovider -o addopts="" -o filterwarnings="" -n 0 -m gpu -rA \
  tests/test_flash.py tests/test_device.py > "$out/work/pytest_gpu.log" 2>&1
tail -20 "$out/work/pytest_gpu.log" | tee -a "$log"
timeout 240 $py -m pytest -p no:cacheprovider -o addopts="" -o filterwarnings="" -n 4 --dist loadgroup -m "not slow" -rfE \
  tests --ignore=tests/test_book.py --ignore=tests/test_site_browser.py > "$out/work/pytest_not_slow.log" 2>&1
tail -40 "$out/work/pytest_not_slow.log" | tee -a "$log"
wait $lessons; echo "lessons exit $?" | tee -a "$log"; tail -20 "$out/work/lessons.log" | tee -a "$log"
wait $base; echo "capstone base exit $?" | tee -a "$log"; tail -4 "$out/work/capstone_gpu.log" | tee -a "$log"
wait $wide; echo "capstone wide exit $?" | tee -a "$log"; tail -4 "$out/work/capstone_gpu_wide.log" | tee -a "$log"

step "packing results ($(( $(date +%s) - started )) s so far)"
for run in run-base run-wide; do
  [ -d "$out/work/$run" ] && find "$out/work/$run" -name '*.pt' -delete
done
cp experiments/results/*cuda*.json "$res"/capstone_gpu*.json "$res"/lessons_*.json "$res"/bench_*.json "$out/work/" 2>/dev/null
tar -czf "$out/results.tgz" -C "$out" work && rm -rf "$out/work"
ls -l "$out" | tee -a "$log"
step "done in $(( $(date +%s) - started )) s"
