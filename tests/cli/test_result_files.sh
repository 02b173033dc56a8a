#!/usr/bin/env bash
# Result files: a model without multipliers (no joints, no spatial rigid bodies) must work with every command that
# writes or reads states, at np 1 and np 2 (it used to fail with '/state/lambda: bad field definition'); a full
# disk is an output error (exit 3) on every rank, not a crash or a hang; long paths work, and a file name too long
# for the file system is refused before anything is written.
# Usage: test_result_files.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MPIRUN="mpirun --oversubscribe -np 2"

# Two point masses on springs under gravity, held sideways by two more springs (so that the static problem is
# regular); the objective is the second mass's final height.
cat > springs.yaml <<'YAML'
dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 0.2, step_size: 1e-3}
bodies:
  - {name: first, type: point_mass, mass: 1, position: [0, -1]}
  - {name: second, type: point_mass, mass: 2, position: [0, -2]}
forces:
  - {name: upper, type: spring_damper, bodies: [ground, first], points: [[0, 0], [0, -1]], stiffness: 100, damping: 1}
  - {name: lower, type: spring_damper, bodies: [first, second], points: [[0, -1], [0, -2]], stiffness: 50}
  - {name: side1, type: spring_damper, bodies: [ground, first], points: [[1, -1], [0, -1]], stiffness: 10}
  - {name: side2, type: spring_damper, bodies: [ground, second], points: [[1, -2], [0, -2]], stiffness: 10}
objective:
  - {type: final_value, coordinate: second.y}
optimization: {max_iterations: 2}
YAML

no_multipliers() { h5ls -r "$1" | grep -q "/state/q" && ! h5ls -r "$1" | grep -q "/state/lambda"; }

expect "simulate" 0 "summary" -- simulate springs.yaml -o springs.h5
pass_if "result file has /state/q and no /state/lambda" no_multipliers springs.h5
pass_if "XDMF files written (.xmf for the Xdmf3 readers, .xmf2 for the XDMF Reader)" test -s springs.xmf -a -s springs.xmf2
expect "--no-xdmf" 0 "summary" -- simulate springs.yaml -o plain.h5 --no-xdmf
pass_if "--no-xdmf writes neither XDMF file" test -s plain.h5 -a ! -e plain.xmf -a ! -e plain.xmf2
# XDMF refers to datasets as "file:dataset|selection": a name with ':' or '|' is refused before anything is
# written, unless no XDMF file is wanted.
expect "':' in the output name" 2 "a:b.h5" "':' or '|'" "--no-xdmf" -- simulate springs.yaml -o a:b.h5
pass_if "nothing written for the refused name" test ! -e a:b.h5
expect "':' in the output name with --no-xdmf" 0 "summary" -- simulate springs.yaml -o a:b.h5 --no-xdmf
expect "static" 0 "load step" -- static springs.yaml -o springs_static.h5
expect "gradient in memory" 0 "upper.stiffness" -- gradient springs.yaml -o memory.csv
expect "gradient through an HDF5 trajectory" 0 "upper.stiffness" -- gradient springs.yaml --trajectory hdf5 \
  --trajectory-file springs.trajectory.h5 -o file.csv
pass_if "HDF5 trajectory gives the memory gradient byte for byte" cmp -s memory.csv file.csv
expect "check" 0 "Taylor" -- check springs.yaml
expect "optimize writes its final trajectory" 0 "" -- optimize springs.yaml -o opt
pass_if "optimize's trajectory has no /state/lambda" no_multipliers opt.h5

# np 2: each rank writes its rows; the gradient equals np 1's.
if $MPIRUN "$FLEXADJ" simulate springs.yaml -o springs_np2.h5 -q >stdout.txt 2>stderr.txt; then
  passed=$((passed + 1)); echo "ok   simulate at np 2"
else
  failed=$((failed + 1)); echo "FAIL simulate at np 2"; sed 's/^/     | /' stderr.txt
fi
pass_if "np 2 result file has no /state/lambda" no_multipliers springs_np2.h5
if $MPIRUN "$FLEXADJ" gradient springs.yaml --trajectory hdf5 --trajectory-file np2.trajectory.h5 -o np2.csv -q \
  >stdout.txt 2>stderr.txt; then
  passed=$((passed + 1)); echo "ok   gradient through an HDF5 trajectory at np 2"
else
  failed=$((failed + 1)); echo "FAIL gradient at np 2"; sed 's/^/     | /' stderr.txt
fi
same_gradient() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import csv, sys
a = {r["name"]: float(r["gradient"]) for r in csv.DictReader(open(sys.argv[1]))}
b = {r["name"]: float(r["gradient"]) for r in csv.DictReader(open(sys.argv[2]))}
scale = max(abs(v) for v in a.values())
sys.exit(0 if a.keys() == b.keys() and max(abs(a[k] - b[k]) for k in a) <= 1e-12 * scale else 1)
PY
}
pass_if "np 2 gradient equals np 1 (1e-12 relative)" same_gradient memory.csv np2.csv

# A full disk (/dev/full accepts no data): exit 3 naming the file, at np 1 and np 2 (it crashed, or hung at np 2).
expect "full disk" 3 "output failed" "/dev/full" "disk full" -- simulate springs.yaml -o /dev/full
timeout 120 $MPIRUN "$FLEXADJ" simulate springs.yaml -o /dev/full >stdout.txt 2>stderr.txt
code=$?
if [ "$code" -eq 3 ] && grep -q "output failed" stderr.txt; then
  passed=$((passed + 1)); echo "ok   full disk at np 2: exit 3"
else
  failed=$((failed + 1)); echo "FAIL full disk at np 2: exit $code"; tail -5 stderr.txt | sed 's/^/     | /'
fi
expect "summary on a full disk" 3 "summary file failed" -- simulate springs.yaml -o summary_run.h5 --summary /dev/full
expect "gradient CSV on a full disk" 3 "CSV file failed" -- gradient springs.yaml -o /dev/full
# A path of 240 characters (Open MPI's shared-file-pointer component aborted on it) and a file name that is too long.
deep="$(printf 'd/%.0s' $(seq 1 120))"
mkdir -p "$deep"
expect "240-character path" 0 "summary" -- simulate springs.yaml -o "$deep/out.h5"
pass_if "results under the long path" test -s "$deep/out.h5"
long_name="$(printf 'a%.0s' $(seq 1 250)).h5"
expect "file name too long" 2 "file name is too long" -- simulate springs.yaml -o "$long_name"
# An output that is the model file is refused before anything is written (exit 2), the model untouched.
cp springs.yaml springs_copy.yaml
ln -sf springs.yaml springs_link.h5
expect "simulate -o MODEL refused" 2 "springs.yaml" "-o" "model file" -- simulate springs.yaml -o springs.yaml
expect "simulate -o a link to MODEL refused" 2 "-o" "model file" -- simulate springs.yaml -o springs_link.h5
expect "simulate --summary MODEL refused" 2 "--summary" "model file" -- simulate springs.yaml --summary springs.yaml
expect "static -o MODEL refused" 2 "-o" "model file" -- static springs.yaml -o springs.yaml
expect "gradient -o MODEL refused" 2 "-o" "model file" -- gradient springs.yaml -o springs.yaml
expect "gradient --h5 MODEL refused" 2 "--h5" "model file" -- gradient springs.yaml --h5 springs.yaml
expect "gradient --trajectory-file MODEL refused" 2 "--trajectory-file" "model file" -- gradient springs.yaml \
  --trajectory-file springs.yaml
pass_if "the model file is unchanged" cmp -s springs.yaml springs_copy.yaml
finish
