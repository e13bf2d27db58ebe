#!/bin/sh
# A CI step: run the kernel under test on teval's seeded inputs and let
# teval check judge its output. Exit 0: a legal result; 1: a mismatch (or a
# wrong program or input); 2: a usage error.
#   TEVAL=path/to/teval PYTHON=python3 sh examples/ci/check_softmax.sh
set -eu
teval=${TEVAL:-teval}
python=${PYTHON:-python3}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. Inputs: seeded random data, saved as .npy for the kernel under test.
"$teval" run "$here/softmax.antares" --seed 1 --save-inputs "$work/in" -o "$work/expected"
# 2. The kernel under test.
"$python" "$here/numpy_softmax.py" "$work/in" "$work/out"
# 3. The verdict, in words and as JSON for the CI's report.
"$teval" check "$here/softmax.antares" -i input0="$work/in/input0.npy" \
  --candidate output0="$work/out/output0.npy"
"$teval" check "$here/softmax.antares" -i input0="$work/in/input0.npy" \
  --candidate output0="$work/out/output0.npy" --json > "$work/verdict.json"
"$python" -c 'import json, sys; v = json.load(open(sys.argv[1])); print(v["outputs"][0]["status"])' \
  "$work/verdict.json"
