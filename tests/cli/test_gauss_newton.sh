#!/usr/bin/env bash
# optimization.method gauss_newton on the inertia identification of meshes/hanging_rigid_body_identification.yaml
# (the shipped measurements, step 1e-2 s for time; J resolved to about 1e-16 absolute there):
# - from I = diag(100, 100, 100) it stops on the gradient rule within 20 iterations at the minimum L-BFGS reaches
#   from the paper's start diag(1, 1, 1) (J equal to 1e-8 relative, every entry to 1e-5: the minimum is flat, J
#   changes by 1e-16 along a direction in which the entries change by 3e-6);
# - from the paper's start, with the model's first trust radius of 1 kg m^2, gauss_newton and newton_krylov reach
#   that minimum too, gauss_newton within 20 iterations and in fewer than newton_krylov; with ROL's looser CG rule
#   (optimization.krylov_tolerance 1e-2) in more;
# - with lower bounds on the principal moments (Lin-More; inactive at the minimum) from the paper's start it reaches
#   L-BFGS's minimum;
# - a run stopped after 3 iterations and resumed with --restart ends on the uninterrupted run's J digit for digit,
#   after as many iterations, with the same design file;
# - with the states in an HDF5 file or in checkpoints, the memory run's iterations bit for bit;
# - optimization.trust_radius not positive, krylov_tolerance not in (0, 1), and a --restart with another radius or
#   CG tolerance, exit 2;
# - krylov_tolerance with a method other than newton_krylov and gauss_newton (from --method or the file), exit 2;
# - an objective that is not a sum of squares exits 2 naming the term and the method.
# Usage: test_gauss_newton.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"

MODEL="$HERE/../../meshes/hanging_rigid_body_identification.yaml"
STEP=(--set integrator.step_size=1e-2 --no-trajectory)
# Near the minimum the first trust radius is the scale of the design (the model's 1 kg m^2 is for the paper's start).
NEAR=(--set "bodies[0].inertia=[100, 100, 100, 0, 0, 0]" --set optimization.trust_radius=100)
"$FLEXADJ" optimize "$MODEL" "${STEP[@]}" "${NEAR[@]}" --method gauss_newton -o gn > gn.txt 2>&1
"$FLEXADJ" optimize "$MODEL" "${STEP[@]}" --method lbfgs -o lb > lb.txt 2>&1
"$FLEXADJ" optimize "$MODEL" "${STEP[@]}" --method gauss_newton -o gnpaper > gnpaper.txt 2>&1
"$FLEXADJ" optimize "$MODEL" "${STEP[@]}" --method newton_krylov -o nkpaper > nkpaper.txt 2>&1
result_J() { sed -n 's/^result *J = \([^ ]*\).*/\1/p' "$1"; }
iterations() { sed -n 's/^stopped.* after \([0-9]*\) iteration(s)/\1/p' "$1"; }
for run in gn lb gnpaper nkpaper; do echo "$run: J $(result_J $run.txt) in $(iterations $run.txt) iterations"; done
# J and the six entries of the result's design file of run $1 against run $2, to relative $3 and $4.
same_result() {
  /usr/bin/python3 - "$1" "$2" "$3" "$4" "$(result_J $1.txt)" "$(result_J $2.txt)" <<'PY'
import re, sys
def read(path):
    text = open(path).read()
    return {m.group(1): float(m.group(2)) for m in re.finditer(r'"(body\.inertia_\w+)":\s*([-+0-9.eE]+)', text)}
a, b = read(sys.argv[1] + "_design.yaml"), read(sys.argv[2] + "_design.yaml")
J_tolerance, entry_tolerance, Ja, Jb = (float(x) for x in sys.argv[3:7])
worst = max(abs(a[k] - b[k]) / abs(b[k]) for k in b) if len(b) == 6 and a.keys() == b.keys() else float("inf")
print("     J %.17g against %.17g (%.1e); entries: largest relative difference %.2e" % (Ja, Jb, abs(Ja - Jb) / Jb, worst))
sys.exit(worst > entry_tolerance or abs(Ja - Jb) > J_tolerance * Jb)
PY
}
pass_if "gauss_newton stopped on the gradient rule" grep -q "^stopped.*gradient_tolerance" gn.txt
pass_if "gauss_newton within 20 iterations" test "$(iterations gn.txt)" -le 20
pass_if "lbfgs stopped at its minimum" grep -q "^stopped.*\(gradient_tolerance\|no progress\)" lb.txt
pass_if "gauss_newton at lbfgs's minimum" same_result gn lb 1e-8 1e-5
# The progress lines of gauss_newton count the products of each iteration (a CG iteration each; 1 to 6 for the 6
# design scalars per trust-region step, so at least one per line but the first and at most 7 per step); lbfgs has no
# such column.
products_ok() {
  grep -q "^ iter .* products$" gn.txt && ! grep -q "products" lb.txt &&
    awk '$1 ~ /^[0-9]+$/ && NF == 8 { lines++; if ($1 > 0 && ($8 < 1 || $8 > 14)) bad = 1; sum += $8 }
         END { printf "     %d lines, %d products\n", lines, sum; exit !(lines > 10 && !bad) }' gn.txt
}
pass_if "progress lines count the Gauss-Newton products" products_ok
pass_if "from the paper's start: gauss_newton at lbfgs's minimum" same_result gnpaper lb 1e-8 1e-5
pass_if "from the paper's start: newton_krylov at lbfgs's minimum" same_result nkpaper lb 1e-8 1e-5
pass_if "from the paper's start: gauss_newton within 20 iterations" test "$(iterations gnpaper.txt)" -le 20
pass_if "from the paper's start: fewer iterations than newton_krylov" test "$(iterations gnpaper.txt)" -lt "$(iterations nkpaper.txt)"
# The CG rule: ROL's 1e-2 |g| leaves the model's small curvatures unresolved, and the iterations creep along the flat
# valley to the same minimum.
"$FLEXADJ" optimize "$MODEL" "${STEP[@]}" --method gauss_newton --set optimization.krylov_tolerance=1e-2 -o loose \
  > loose.txt 2>&1
echo "gnpaper with krylov_tolerance 1e-2: J $(result_J loose.txt) in $(iterations loose.txt) iterations"
pass_if "krylov_tolerance 1e-2: lbfgs's minimum" same_result loose lb 1e-8 1e-5
pass_if "krylov_tolerance 1e-2: more iterations than the default 1e-4" \
  test "$(iterations loose.txt)" -gt "$(iterations gnpaper.txt)"

# With lower bounds 10 kg m^2 on the principal moments (ROL's Lin-More on the same products; not in the paper, and
# inactive at the minimum) from the paper's start: L-BFGS's minimum.
"$FLEXADJ" optimize "$MODEL" "${STEP[@]}" --method gauss_newton -o bounded \
  --set "optimization.bounds=[{variable: body.inertia_xx, lower: 10}, {variable: body.inertia_yy, lower: 10}, {variable: body.inertia_zz, lower: 10}]" > bounded.txt 2>&1
echo "bounded: J $(result_J bounded.txt) in $(iterations bounded.txt) iterations"
pass_if "with bounds: stopped on the gradient rule" grep -q "^stopped.*gradient_tolerance" bounded.txt
pass_if "with bounds: at lbfgs's minimum" same_result bounded lb 1e-8 1e-5

"$FLEXADJ" optimize "$MODEL" "${STEP[@]}" "${NEAR[@]}" --method gauss_newton --max-iterations 3 -o half > /dev/null 2>&1
"$FLEXADJ" optimize "$MODEL" "${STEP[@]}" "${NEAR[@]}" --method gauss_newton --restart -o half > half.txt 2>&1
pass_if "restart: same iterations" test -n "$(iterations gn.txt)" -a "$(iterations half.txt)" = "$(iterations gn.txt)"
pass_if "restart: same J digit for digit" test -n "$(result_J gn.txt)" -a "$(result_J half.txt)" = "$(result_J gn.txt)"
pass_if "restart: same design values" test -s half_design.yaml -a -z "$(diff <(grep -v "^#" half_design.yaml) <(grep -v "^#" gn_design.yaml))"

# optimization.trust_radius: a value that is not positive is refused naming the key; a --restart with another
# radius is refused (the optimization section differs), never continued with the changed setting.
for radius in 0 -1 abc; do
  expect "trust_radius $radius refused" 2 "optimization.trust_radius" "expected a" -- \
    optimize "$MODEL" "${STEP[@]}" --method gauss_newton --set optimization.trust_radius=$radius -o refused
done
for tolerance in 0 1 2 abc; do
  expect "krylov_tolerance $tolerance refused" 2 "optimization.krylov_tolerance" "expected a" -- \
    optimize "$MODEL" "${STEP[@]}" --method gauss_newton --set optimization.krylov_tolerance=$tolerance -o refused
done
# krylov_tolerance serves only newton_krylov and gauss_newton: with another method it is refused naming the file, the
# key and the method, whether the method is --method, the file's, or --method over a file's gauss_newton.
expect "krylov_tolerance with --method lbfgs refused" 2 "hanging_rigid_body_identification.yaml: " \
  "optimization.krylov_tolerance: " "not to method 'lbfgs' (--method)" -- \
  optimize "$MODEL" "${STEP[@]}" --method lbfgs --set optimization.krylov_tolerance=1e-2 -o refused
expect "krylov_tolerance with the file's method lbfgs refused" 2 "optimization.krylov_tolerance: " \
  "not to method 'lbfgs' (optimization.method)" -- \
  optimize "$MODEL" "${STEP[@]}" --set optimization.krylov_tolerance=1e-2 -o refused
expect "krylov_tolerance with the file's gauss_newton overridden by --method lbfgs refused" 2 \
  "optimization.krylov_tolerance: " "not to method 'lbfgs' (--method)" -- \
  optimize "$MODEL" "${STEP[@]}" --set optimization.method=gauss_newton --set optimization.krylov_tolerance=1e-2 \
  --method lbfgs -o refused
expect "krylov_tolerance with --method trust_region refused" 2 "optimization.krylov_tolerance: " \
  "not to method 'trust_region' (--method)" -- \
  optimize "$MODEL" "${STEP[@]}" --method trust_region --set optimization.krylov_tolerance=1e-2 -o refused
"$FLEXADJ" optimize "$MODEL" "${STEP[@]}" --method gauss_newton --max-iterations 2 -o radius > /dev/null 2>&1
expect "--restart with another trust_radius refused" 2 "radius_restart.txt" "--restart" "optimization differs" -- \
  optimize "$MODEL" "${STEP[@]}" --method gauss_newton --set optimization.trust_radius=5 --restart -o radius
expect "--restart with another krylov_tolerance refused" 2 "radius_restart.txt" "--restart" "optimization differs" -- \
  optimize "$MODEL" "${STEP[@]}" --method gauss_newton --set optimization.krylov_tolerance=1e-6 --restart -o radius

cat > terminal.yaml <<'YAML'
dimension: 2
integrator: {end_time: 0.5, step_size: 0.01}
bodies:
  - {name: mass, type: point_mass, mass: 1, position: [0, 0], velocity: [0.5, 0]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, mass], points: [[-1, 0], [0, 0]], stiffness: 4, free_length: 1}
objective:
  - {type: tracking, coordinate: mass.x, reference: "0.1", weight: 2}
  - {type: final_value, coordinate: mass.x}
design_variables: [spring.stiffness]
YAML
expect "not least squares" 2 "terminal.yaml" "objective" "optimization.method gauss_newton" "objective[1] (type final_value) is not a weighted square" -- optimize terminal.yaml --method gauss_newton -o refused

# The Gauss-Newton products with the states in an HDF5 file or in checkpoints: the memory run's iterations bit for bit.
for storage in memory "--trajectory hdf5" "--checkpoints 10"; do
  name=$(echo "$storage" | tr -dc 'a-z0-9')
  # shellcheck disable=SC2086
  "$FLEXADJ" optimize "$MODEL" --set integrator.step_size=1e-2 "${NEAR[@]}" --method gauss_newton --max-iterations 3 \
    -o "storage_$name" $([ "$storage" = memory ] || echo $storage) > "storage_$name.txt" 2>&1
done
for name in trajectoryhdf5 checkpoints10; do
  pass_if "storage $name: the memory run's J and design" test -n "$(result_J storage_memory.txt)" \
    -a "$(result_J storage_$name.txt)" = "$(result_J storage_memory.txt)" \
    -a -z "$(diff <(grep -v "^#" storage_"$name"_design.yaml) <(grep -v "^#" storage_memory_design.yaml))"
done
finish
