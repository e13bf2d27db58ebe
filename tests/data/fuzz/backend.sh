#!/bin/sh
# A stand-in for another compiler in the tests of `teval fuzz --backend-cmd`:
# it runs teval itself on the case, then misbehaves as MODE says.
#   backend.sh TEVAL MODE PROGRAM INPUTS OUTDIR ENTRY
# MODE: ok, crash (SIGSEGV), hang, hog (holds 900 MiB), exit (status 3), missing (writes
# nothing), garbage (an output that is not .npy), negate-first (the first
# element of float outputs negated when nonzero: a wrong value), fma (the
# JIT free to add in any order and to fuse multiply-adds: legal only where
# fused multiply-adds are), decline-tile (exits 77, declining, on Tile
# programs; runs the others), decline-not-float32 (declines an Antares
# program with a tensor of another dtype, read from teval lower --json),
# exit-dump (an error, then a dump of the program longer than the tail a
# campaign keeps, and status 1, as MLIR's tools print the failing op).
set -u
teval=$1 mode=$2
# from-env: the mode is $BACKEND_MODE's (an adapter reading its environment).
[ "$mode" = from-env ] && mode=$BACKEND_MODE
mode=$mode program=$3 inputs=$4 outdir=$5 entry=$6
case $mode in
crash) kill -SEGV $$ ;;
hang) exec sleep 1000 ;;
exit) echo "backend: cannot compile this" >&2; exit 3 ;;
exit-dump)
  echo "backend: error: cannot lower this program" >&2
  for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do cat "$program" >&2; done
  exit 1 ;;
decline-tile) case $program in *.tile) echo "backend: no Tile support" >&2; exit 77 ;; esac ;;
decline-not-float32)
  if "$teval" lower --json "$program" | grep -o '"dtype": "[a-z0-9]*", "shape"' | grep -vq float32; then
    echo "backend: float32 only" >&2; exit 77
  fi ;;
hog) exec /usr/bin/python3 -c 'import time; x = bytearray(900 << 20); time.sleep(30)' ;;
esac
set -- run "$program" -o "$outdir"
[ -n "$entry" ] && set -- "$@" --entry "$entry"
[ "$mode" = fma ] && set -- "$@" --engine jit --order any --fma
for f in "$inputs"/*.npy; do
  [ -e "$f" ] || continue
  name=$(basename "$f" .npy)
  set -- "$@" -i "$name=$f"
done
"$teval" "$@" >/dev/null || exit $?
case $mode in
missing) rm -f "$outdir"/*.npy ;;
garbage) for f in "$outdir"/*.npy; do echo garbage >"$f"; done ;;
negate-first)
  /usr/bin/python3 - "$outdir" <<'PY'
import glob, sys
import numpy as np
for path in glob.glob(sys.argv[1] + "/*.npy"):
    a = np.load(path)
    if a.dtype.kind == "f" and a.size and a.flat[0] != 0 and np.isfinite(a.flat[0]):
        a.flat[0] = -a.flat[0]
        np.save(path, a)
PY
  ;;
esac
exit 0
