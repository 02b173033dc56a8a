#!/usr/bin/env bash
# Reproductions of published optimisation examples with their full settings (docs/results.md): writes
# results/optimization/<case>_* (history CSV/HDF5, design values, trajectory, PNG plots) and prints the
# figures of the results table. CI runs shortened versions (tests/reproduction).
# Sections of docs/results.md that are not optimisations (studies of gradients, orders and element checks) have their
# cases too; where a figure comes from a test, the case runs that test's commands or, for a C++ test, its binary from
# build/tests (the test's printed lines are the figures).
# usage: scripts/reproduce.sh [-np N] [identification] [crane] [double_pendulum] [double_pendulum_hamiltonian]
#        [adjoint_constraint] [stabilization] [stabilization_newton_krylov] [stabilization_joint] [triple_pendulum] [beam_swing_up] [beam_every_node] [dual_quaternion_beam]
#        [dual_quaternion_beam_4_5] [beam_4_5_newton_krylov] [pendulum_studies] [oscillator_stop] [tolerance_study] [manipulator]
#        [torsional_pendulum]
#        (default: all but stabilization_joint and dual_quaternion_beam_4_5, which take hours; 1 rank)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NP=1
if [ "${1:-}" = "-np" ]; then NP="$2"; shift 2; fi
CASES=("$@")
[ ${#CASES[@]} -eq 0 ] && CASES=(identification crane double_pendulum double_pendulum_hamiltonian adjoint_constraint stabilization stabilization_newton_krylov triple_pendulum beam_swing_up
  beam_every_node dual_quaternion_beam beam_4_5_newton_krylov pendulum_studies oscillator_stop tolerance_study manipulator torsional_pendulum)
RUN="$ROOT/scripts/flexadj -np $NP"
OUT="$ROOT/results/optimization"
mkdir -p "$OUT"
PY=/usr/bin/python3
FLEXADJ="$ROOT/build/apps/flexadj"
MPIEXEC="$(command -v mpiexec || command -v mpirun)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# gtest DIR BINARY FILTER: a C++ test of build/tests/DIR on one rank, run in $OUT/DIR_BINARY (it prints its figures).
gtest() {
  mkdir -p "$OUT/$1_$2"
  (cd "$OUT/$1_$2" && "$MPIEXEC" -n 1 "$ROOT/build/tests/$1/$2" --gtest_color=no --gtest_filter="$3")
}
# clitest TEST: a command-line test of tests/ (FLEXADJ MPIEXEC WORKDIR SOURCE_DIR), its work files in $OUT.
clitest() {
  local name; name="$(basename "$1" .py)"
  mkdir -p "$OUT/$name"
  $PY "$ROOT/tests/$1" "$FLEXADJ" "$MPIEXEC" "$OUT/$name" "$ROOT" "${@:2}"
}

for case in "${CASES[@]}"; do
  case "$case" in
    identification)
      # Nachbagauer et al. 2015, sec. 5.2: measurements from the correct tensor (step 1e-3 s, as the model).
      $RUN simulate "$ROOT/meshes/hanging_rigid_body.yaml" -o "$OUT/identification_measured_run.h5" --no-xdmf -q \
        --set integrator.newton_tolerance=1e-12
      $PY "$ROOT/scripts/identification_measurements.py" "$OUT/identification_measured_run.h5" "$OUT/identification_measured.csv"
      M="$OUT/identification_measured.csv"
      $RUN optimize "$ROOT/meshes/hanging_rigid_body_identification.yaml" -o "$OUT/identification" \
        --set "controls[0].file=$M" --set "controls[1].file=$M" --set "controls[2].file=$M"
      cat "$OUT/identification_design.yaml"
      $PY "$ROOT/scripts/plot_optimization.py" "$OUT/identification" --title "inertia identification"
      # The same from independent measurements (Runge-Kutta 4, no flexadj): the error is the discretisation's.
      $PY "$ROOT/scripts/identification_reference.py" "$OUT/identification_reference.csv"
      R="$OUT/identification_reference.csv"
      $RUN optimize "$ROOT/meshes/hanging_rigid_body_identification.yaml" -o "$OUT/identification_independent" \
        --set "controls[0].file=$R" --set "controls[1].file=$R" --set "controls[2].file=$R"
      cat "$OUT/identification_independent_design.yaml"
      ;;
    crane)
      # Nachbagauer et al. 2015, sec. 5.1: from F = 0, M = 98.1 N m to J/J0 <= 1e-7.
      $RUN optimize "$ROOT/meshes/overhead_crane.yaml" -o "$OUT/crane"
      $PY "$ROOT/scripts/crane_flat_controls.py" "$OUT/crane_flat_controls.yaml"
      $PY "$ROOT/scripts/plot_optimization.py" "$OUT/crane" --reference "$OUT/crane_flat_controls.yaml" --title "overhead crane"
      ;;
    double_pendulum)
      # Maciag et al. 2022, sec. 5.1: swing-up with gamma = 0 from u = 0, then gamma = 1 from that result.
      $RUN optimize "$ROOT/meshes/double_pendulum_cart.yaml" -o "$OUT/swingup_gamma0"
      $RUN optimize "$ROOT/meshes/double_pendulum_cart.yaml" -o "$OUT/swingup_gamma1" \
        --set "optimization.start_from=$OUT/swingup_gamma0_design.yaml" \
        --set "objective=[{type: final_square, coordinate: link1.theta, target: 1.5707963267948966}, {type: final_square, coordinate: link2.theta, relative_to: link1.theta}, {type: final_square, coordinate: link1.theta, quantity: velocity}, {type: final_square, coordinate: link2.theta, relative_to: link1.theta, quantity: velocity}]"
      $PY "$ROOT/scripts/plot_optimization.py" "$OUT/swingup_gamma0" --title "double pendulum swing-up, gamma = 0"
      $PY "$ROOT/scripts/plot_optimization.py" "$OUT/swingup_gamma1" --title "double pendulum swing-up, gamma = 1"
      ;;
    double_pendulum_hamiltonian)
      # The same on the paper's constrained Hamiltonian equations (6a)/(6b) (integrator type hamiltonian).
      $RUN optimize "$ROOT/meshes/double_pendulum_cart_hamiltonian.yaml" -o "$OUT/swingup_hamiltonian_gamma0"
      $RUN optimize "$ROOT/meshes/double_pendulum_cart_hamiltonian.yaml" -o "$OUT/swingup_hamiltonian_gamma1" \
        --set "optimization.start_from=$OUT/swingup_hamiltonian_gamma0_design.yaml" \
        --set "objective=[{type: final_square, coordinate: link1.theta, target: 1.5707963267948966}, {type: final_square, coordinate: link2.theta, relative_to: link1.theta}, {type: final_square, coordinate: link1.theta, quantity: velocity}, {type: final_square, coordinate: link2.theta, relative_to: link1.theta, quantity: velocity}]"
      ;;
    stabilization)
      # Maciag et al. 2022, sec. 5.2: keep the cart at rest while the pendula fall (L-BFGS, not converged; converged:
      # stabilization_newton_krylov; docs/results.md).
      $RUN optimize "$ROOT/meshes/double_pendulum_cart_stabilization.yaml" -o "$OUT/stabilization" --max-iterations 1500
      $PY -c "import h5py; f = h5py.File('$OUT/stabilization.h5', 'r'); print('max |x_cart| = %.2f mm' % (1e3 * abs(f['state/q'][:, 0]).max()))"
      $PY "$ROOT/scripts/plot_optimization.py" "$OUT/stabilization" --title "cart stabilisation"
      # The same with exact Hessian-vector products, stopped by the gradient rule |g| <= 1e-6 |g_0|.
      $RUN optimize "$ROOT/meshes/double_pendulum_cart_stabilization.yaml" -o "$OUT/stabilization_newton_krylov_plain" \
        --method newton_krylov --max-iterations 3000 --set optimization.relative_gradient_tolerance=1e-6
      $PY -c "import h5py; f = h5py.File('$OUT/stabilization_newton_krylov_plain.h5', 'r'); print('newton_krylov: max |x_cart| = %.2f mm' % (1e3 * abs(f['state/q'][:, 0]).max()))"
      ;;
    stabilization_newton_krylov)
      # The same converged by exact Hessian-vector products, with continuation in the horizon: stage k minimises J
      # over [0, T_k] (T_k = 0.5, 1, 1.5, 2 s) from stage k - 1's controls, each stopped by |g| <= 1e-6 |g_0|
      # (tests/reproduction/test_stabilization_newton_krylov.py at the model's step 1e-3 s).
      $PY "$ROOT/tests/reproduction/test_stabilization_newton_krylov.py" "$ROOT/build/apps/flexadj" "$MPIEXEC" \
        "$OUT/stabilization_newton_krylov" "$ROOT" 1e-3
      ;;
    stabilization_joint)
      # The same on the paper's joint-coordinate formulation (docs/results.md), by continuation in the horizon:
      # stage k minimises J over [0, T_k] (T_k = 0.5, 1, 1.5 s; 150 iterations each) from stage k - 1's controls,
      # then over [0, 2] s until J changes by less than 1e-6 (relative) in one iteration.
      M="$OUT/stabilization_joint.yaml"
      sed -e 's/^  spectral_radius: 0.9$/  type: hamiltonian\n  coordinates: joint/' "$ROOT/meshes/double_pendulum_cart_stabilization.yaml" > "$M"
      START=()
      for T in 0.5 1.0 1.5 2.0; do
        STOP=(--max-iterations 150 -q); [ "$T" = 2.0 ] && STOP=(--max-iterations 3000 --set optimization.objective_tolerance=1e-6)
        $RUN optimize "$M" -o "$OUT/stabilization_joint_$T" --set integrator.end_time=$T "${START[@]}" "${STOP[@]}" \
          --no-trajectory
        START=(--set "optimization.start_from=$OUT/stabilization_joint_${T}_design.yaml")
      done
      $RUN simulate "$M" "${START[@]}" -o "$OUT/stabilization_joint.h5" --no-xdmf -q
      tail -n 1 "$OUT/stabilization_joint_2.0_history.csv"
      $PY -c "import h5py; f = h5py.File('$OUT/stabilization_joint.h5', 'r'); print('max |x_cart| = %.2f mm' % (1e3 * abs(f['state/q'][:, 0]).max()))"
      ;;
    triple_pendulum)
      # Nachbagauer et al. 2015, sec. 5.3: swing-up from F = 0 (the paper: J ~ 1.5 after 353 iterations).
      $RUN optimize "$ROOT/meshes/triple_pendulum_cart.yaml" -o "$OUT/triple_pendulum"
      $PY -c "import h5py; f = h5py.File('$OUT/triple_pendulum.h5', 'r'); n = [s.decode() for s in f['model/coordinate_names'][:]]
for c in n: print('%-12s q(T) = %+.6f  v(T) = %+.6f' % (c, f['state/q'][-1, n.index(c)], f['state/v'][-1, n.index(c)]))"
      $PY "$ROOT/scripts/plot_optimization.py" "$OUT/triple_pendulum" --title "triple pendulum swing-up"
      ;;
    beam_every_node)
      # The same beam to the paper's end configuration, every node upright and undeformed (secs. 4.4, 4.6): the model's
      # newton_krylov with the figures and the physical check of tests/reproduction/test_beam_every_node.py, then
      # Barzilai-Borwein (the paper's method) on the same target for 100 iterations.
      clitest reproduction/test_beam_every_node.py
      $RUN optimize "$ROOT/meshes/beam_swing_up_every_node.yaml" -o "$OUT/beam_every_node_bb" \
        --method barzilai_borwein --max-iterations 100
      ;;
    beam_swing_up)
      # Schubert et al. 2024, sec. 4.6 (very flexible beam): Barzilai-Borwein from u0 = 50; gradient checked at
      # the start and at the optimised design.
      $RUN optimize "$ROOT/meshes/beam_swing_up.yaml" -o "$OUT/beam_swing_up"
      $RUN check "$ROOT/meshes/beam_swing_up.yaml" -q
      # At the optimum (J ~ 1e-15) the central differences resolve only the Newton residual (exit code 4 expected,
      # docs/results.md); the same trajectory with the target moved to (0, 0.9) has an O(1) gradient.
      $RUN check "$ROOT/meshes/beam_swing_up.yaml" -q --set "optimization.start_from=$OUT/beam_swing_up_design.yaml" ||
        echo "check at the optimum: exit code $? (expected 4: the gradient is at the differences' noise level)"
      $RUN check "$ROOT/meshes/beam_swing_up.yaml" -q --set "optimization.start_from=$OUT/beam_swing_up_design.yaml" \
        --set "objective[1].target=0.9"
      # The physical check: the optimised torque with the variational integrator at h/4 (tip within 3 cm of (0, 1)).
      $RUN simulate "$ROOT/meshes/beam_swing_up.yaml" -q --no-xdmf -o "$OUT/beam_swing_up_variational.h5" \
        --set "optimization.start_from=$OUT/beam_swing_up_design.yaml" \
        --set "integrator={end_time: 0.5, step_size: 2.0833333333333333e-4, type: variational}"
      $PY -c "import h5py, math; f = h5py.File('$OUT/beam_swing_up_variational.h5', 'r'); n = [s.decode() for s in f['model/coordinate_names'][:]]
q = f['state/q'][-1]; print('variational, h/4: tip %.2f cm from (0, 1)' % (100 * math.hypot(q[n.index('beam.node5.x')], q[n.index('beam.node5.y')] - 1)))"
      $PY "$ROOT/scripts/plot_optimization.py" "$OUT/beam_swing_up" --title "very flexible beam swing-up"
      ;;
    dual_quaternion_beam)
      # Schubert et al. 2024, secs. 4.2-4.6 on the dual-quaternion beam (formulation: dual_quaternion).
      # "What the element reproduces": discrete momenta, Newton matrix, adjoint products and strain energy against
      # differences (test_dual_quaternion_beam); free flight (meshes/flying_spaghetti_dual_quaternion.yaml), the
      # convergence to the geometrically exact beam and the damped cantilever (meshes/dual_quaternion_cantilever.yaml;
      # test_dual_quaternion_beam_dynamics); gradients of every kind of design variable at np 1 and np 2
      # (verification_dual_quaternion_beam_adjoint: its np 2 runs take 2 ranks).
      gtest unit test_dual_quaternion_beam '*'
      gtest verification test_dual_quaternion_beam_dynamics '*'
      clitest verification/test_dual_quaternion_beam_adjoint.py
      # The gradient of the shipped 4.6 model (3000 steps, about 2 min).
      M="$ROOT/meshes/beam_swing_up_dual_quaternion.yaml"
      $RUN check "$M" -q
      # Example 4.6 on the dual-quaternion beam (h = 1/6000), then the optimised torque at h/2 and h/4, and on the
      # geometrically exact beam (meshes/beam_swing_up.yaml, h = 1/1200 and h/4). Both objectives are
      # 100/2 |tip(T) - (0, 1)|^2, so the tip's distance is sqrt(J/50).
      $RUN optimize "$M" -o "$OUT/dual_quaternion_beam_4_6"
      D="optimization.start_from=$OUT/dual_quaternion_beam_4_6_design.yaml"
      for H in 8.3333333333333333e-5 4.1666666666666667e-5; do
        $RUN gradient "$M" --set "$D" --set "integrator.step_size=$H" -o "$OUT/dual_quaternion_beam_4_6_h$H.csv" |
          $PY -c "import re, sys; J = float(re.search(r'^J = (\S+)', sys.stdin.read(), re.M).group(1))
print('dual-quaternion optimum, dual-quaternion beam, h = $H: tip %.3g mm from (0, 1)' % (1e3 * (J / 50) ** 0.5))"
      done
      for H in 8.333333333333333e-4 2.0833333333333333e-4; do
        $RUN gradient "$ROOT/meshes/beam_swing_up.yaml" --set "$D" --set "integrator.step_size=$H" \
          -o "$OUT/dual_quaternion_beam_4_6_exact_h$H.csv" |
          $PY -c "import re, sys; J = float(re.search(r'^J = (\S+)', sys.stdin.read(), re.M).group(1))
print('dual-quaternion optimum, geometrically exact beam, h = $H: tip %.3g cm from (0, 1)' % (1e2 * (J / 50) ** 0.5))"
      done
      $PY -c "import csv; h = list(csv.DictReader(open('$OUT/dual_quaternion_beam_4_6_history.csv')))
print('J0 = %s, J = %s, J/J0 = %.1e, %s iterations (%s forward, %s adjoint runs), %s s' % (h[0]['objective'], h[-1]['objective'],
      float(h[-1]['objective']) / float(h[0]['objective']), h[-1]['iteration'], h[-1]['forward_runs'], h[-1]['adjoint_runs'], h[-1]['seconds']))
import yaml; u = yaml.safe_load(open('$OUT/dual_quaternion_beam_4_6_design.yaml'))['design_values']['control:torque']
print('optimised torque %.0f ... %.0f N m' % (min(u), max(u)))"
      $PY "$ROOT/scripts/plot_optimization.py" "$OUT/dual_quaternion_beam_4_6" --title "very flexible beam swing-up, dual-quaternion beam"
      # Not run here: example 4.5 (hours: case dual_quaternion_beam_4_5) and the cost per space-time cell, a
      # benchmark (build/benchmarks/flexadj_benchmark_beams --formulation dual_quaternion --steps 40, JSON in
      # benchmarks/runs/).
      ;;
    dual_quaternion_beam_4_5)
      # Schubert et al. 2024, sec. 4.5 (fairly rigid beam; one-off runs of hours, not in the default list): the model
      # block of docs/results.md ("Example 4.5"), read as SI steel (E = 2.1e11, rho = 7850); the geometrically exact
      # beam at 3000 steps and the dual-quaternion beam at 60000 steps (variational, h = 1/60000), each with the
      # default search (non-monotone memory 10; the dual-quaternion run stopped at 10 iterations) and the monotone one
      # (memory 1; the dual-quaternion run to 36 iterations, which docs/results.md ran as 21 and a --restart to 36),
      # the dual-quaternion monotone search from the geometrically exact optimum (12 iterations), and each optimum
      # evaluated on the other beam.
      M="$OUT/dual_quaternion_beam_4_5.yaml"
      $PY - "$ROOT/docs/results.md" "$M" <<'PYEND'
import sys
text = open(sys.argv[1]).read()
block = text[text.index("### Example 4.5"):]
block = block[block.index("```yaml\n") + 8:]
open(sys.argv[2], "w").write(block[:block.index("```")])
PYEND
      SI=(--set beams[0].section.E=2.1e11 --set beams[0].section.rho=7850)
      DQ=(--set beams[0].formulation=dual_quaternion
          --set "integrator={type: variational, end_time: 1, step_size: 1.6666666666666667e-5}")
      MONO=(--set optimization.nonmonotone_memory=1)
      $RUN optimize "$M" "${SI[@]}" -o "$OUT/dual_quaternion_beam_4_5_exact"
      $RUN optimize "$M" "${SI[@]}" "${MONO[@]}" -o "$OUT/dual_quaternion_beam_4_5_exact_monotone"
      $RUN optimize "$M" "${SI[@]}" "${DQ[@]}" --max-iterations 10 -o "$OUT/dual_quaternion_beam_4_5_dq"
      $RUN optimize "$M" "${SI[@]}" "${DQ[@]}" "${MONO[@]}" --max-iterations 36 -o "$OUT/dual_quaternion_beam_4_5_dq_monotone"
      $RUN optimize "$M" "${SI[@]}" "${DQ[@]}" "${MONO[@]}" --max-iterations 12 -o "$OUT/dual_quaternion_beam_4_5_dq_from_exact" \
        --set "optimization.start_from=$OUT/dual_quaternion_beam_4_5_exact_monotone_design.yaml"
      $RUN gradient "$M" "${SI[@]}" --set "optimization.start_from=$OUT/dual_quaternion_beam_4_5_dq_monotone_design.yaml" \
        -o "$OUT/dual_quaternion_beam_4_5_dq_optimum_on_exact.csv"
      $RUN gradient "$M" "${SI[@]}" "${DQ[@]}" -o "$OUT/dual_quaternion_beam_4_5_exact_optimum_on_dq.csv" \
        --set "optimization.start_from=$OUT/dual_quaternion_beam_4_5_exact_monotone_design.yaml"
      for R in exact exact_monotone dq dq_monotone dq_from_exact; do
        $PY -c "import csv; h = list(csv.DictReader(open('$OUT/dual_quaternion_beam_4_5_${R}_history.csv')))
print('%-15s J0 = %s, last J = %s, %s iterations (%s forward, %s adjoint runs)' % ('$R', h[0]['objective'], h[-1]['objective'],
      h[-1]['iteration'], h[-1]['forward_runs'], h[-1]['adjoint_runs']))
import yaml; u = yaml.safe_load(open('$OUT/dual_quaternion_beam_4_5_${R}_design.yaml'))['design_values']['control:torque']
print('%-15s returned design: torque at t = 0, T/2, T: %.0f, %.0f, %.0f N m' % ('', u[0], u[50], u[100]))"
      done
      # Not printed here: the tip's distance to (0, 1) of the table (docs/results.md does not give its command).
      ;;
    beam_4_5_newton_krylov)
      # Schubert et al. 2024, sec. 4.5 on the geometrically exact beam (3000 steps) by newton_krylov, stopped by the
      # gradient rule (tests/reproduction/test_beam_4_5_newton_krylov.py; about a minute).
      clitest reproduction/test_beam_4_5_newton_krylov.py
      ;;
    pendulum_studies)
      # Schubert et al. 2024, secs. 2.3 and 3.3. The convergence studies (constrained pendulum on RATTLE and on the
      # null-space form, Figs. 2 and 4; the minimal coordinates' Fig. 2 and the paper's eqs. (16)/(18) written out):
      # tests/verification/test_variational_orders.cpp, which prints the tables' errors and orders.
      gtest verification test_variational_orders '*'
      # flexadj check on the joint-midpoint models and |J_joint_midpoint - J_RATTLE| under halving; RATTLE against
      # the null-space form (J and gradient deviation of the table) and flexadj check on the null-space models.
      clitest verification/test_joint_midpoint_variational.py
      clitest verification/test_null_space_variational.py
      # Fig. 3, swing-up in minimal coordinates: the commands of reproduction_pendulum_swing_up_minimal (J0 against
      # RK4, J, terminal angle and momentum, max |u|, the torque on RK4; one rank).
      clitest reproduction/test_pendulum_swing_up_minimal.py
      # The null-space form's swing-up.
      $RUN optimize "$ROOT/meshes/pendulum_swing_up_null_space.yaml" -o "$OUT/pendulum_swing_up_null_space"
      # Sec. 3.3, swing-up on the constrained pendulum: the commands of reproduction_pendulum_swing_up at the
      # script's rank count (the table's 2-rank column: scripts/reproduce.sh -np 2 pendulum_studies), and the check at u = 5.
      clitest reproduction/test_pendulum_swing_up.py "$NP"
      $RUN check "$ROOT/meshes/pendulum_swing_up_variational.yaml" -q
      # Remark 1: the iteration of the desired end momentum on both swing-up models, and p_N of the single
      # optimisations above (the designs of the two reproduction tests).
      $RUN optimize "$ROOT/meshes/pendulum_swing_up_minimal.yaml" -o "$OUT/pendulum_momentum_iteration_minimal" \
        --set "optimization.momentum_target_iteration={iterations: 8, tolerance: 0.05}"
      $RUN optimize "$ROOT/meshes/pendulum_swing_up_variational.yaml" -o "$OUT/pendulum_momentum_iteration_variational" \
        --set "optimization.momentum_target_iteration={iterations: 8, tolerance: 0.01}"
      for P in "pendulum_swing_up_minimal.yaml pendulum test_pendulum_swing_up_minimal" \
               "pendulum_swing_up_variational.yaml bob test_pendulum_swing_up"; do
        read -r F B T <<< "$P"
        for C in x y; do
          $RUN gradient "$ROOT/meshes/$F" --set "optimization.start_from=$OUT/$T/swing_design.yaml" \
            --set "objective=[{type: final_value, sensor: {body: $B, component: $C}, quantity: momentum}]" | grep '^J = ' |
            sed "s/^J = /$F, one optimisation: p_N,$C = /"
        done
      done
      # Not run here: the Barzilai-Borwein runs of sec. 3.3 (the bounds' settings are not given) and the cost tables
      # (scripts/benchmark_joint_coordinates.py --only-variational --counts 10,20,50 --repeats 2 --target-seconds 2).
      ;;
    oscillator_stop)
      # Bestle and Eberhard 1992, sec. 5 (implicit final time, meshes/oscillator_stopped.yaml): the discrete
      # adjoint's columns (dpsi/dc, dpsi/dz0; then dt1/dc, dt1/dz0 with the objective final_time) and the check;
      # closed form: psi = 0.5, dpsi/dc = -0.25, dpsi/dz0 = 1, t1 = pi/2, dt1/dc = -pi/4, dt1/dz0 = 0.
      M="$ROOT/meshes/oscillator_stopped.yaml"
      $RUN gradient "$M" -o "$OUT/oscillator_stop_psi.csv"
      $RUN gradient "$M" --set "objective=[{type: final_time}]" -o "$OUT/oscillator_stop_t1.csv"
      $RUN check "$M" -q
      # The continuous adjoint's columns: at the model file's h and at h/2, extrapolated = (4 g(h/2) - g(h))/3.
      for H in "" 0.0007853981633974483; do
        STEP=(); [ -n "$H" ] && STEP=(--set "integrator.step_size=$H")
        $RUN gradient "$M" --adjoint continuous "${STEP[@]}" -o "$OUT/oscillator_stop_psi_continuous$H.csv"
        $RUN gradient "$M" --adjoint continuous "${STEP[@]}" --set "objective=[{type: final_time}]" \
          -o "$OUT/oscillator_stop_t1_continuous$H.csv"
      done
      $PY - "$OUT" <<'PYEND'
import csv, math, sys
out = sys.argv[1]
exact = {"psi": {"spring.stiffness": -0.25, "initial_velocity:mass.x": 1.0},
         "t1": {"spring.stiffness": -math.pi / 4, "initial_velocity:mass.x": 0.0}}
read = lambda name: {r["name"]: float(r["gradient"]) for r in csv.DictReader(open("%s/oscillator_stop_%s.csv" % (out, name)))}
for J in ("psi", "t1"):
    d, c, c2 = read(J), read(J + "_continuous"), read(J + "_continuous0.0007853981633974483")
    for name, value in exact[J].items():
        x = (4 * c2[name] - c[name]) / 3
        print("d%s/d%-24s exact % .10f  discrete % .10f (error %.1e)  continuous % .10f (%.1e)  extrapolated % .10f (%.1e)"
              % (J, name, value, d[name], abs(d[name] - value), c[name], abs(c[name] - value), x, abs(x - value)))
PYEND
      ;;
    tolerance_study)
      # Bestle and Eberhard 1992, Figs. 3-4: the error of dpsi/dc (meshes/oscillator.yaml, -0.25 exactly) against
      # the tolerance of the error-controlled steps, for the adjoint, forward and extrapolated differences.
      $PY "$ROOT/scripts/tolerance_study.py" "$FLEXADJ" "$OUT/tolerance_study.json"
      ;;
    manipulator)
      # Five-axis manipulator (after Bestle and Eberhard 1992, sec. 5; meshes/manipulator.yaml, the project's own
      # model): the adjoint gradient, then flexadj check in groups of three design values (test (c), the extrapolated
      # differences, takes the first three values: u_shoulder[0..2] and u_roll[0..2] of the controls), then the
      # check with the model's defaults. With -np 2 the gradient is written to ..._np2.csv and compared with np 1's.
      M="$ROOT/meshes/manipulator.yaml"
      $RUN gradient "$M" -o "$OUT/manipulator_gradient_np$NP.csv"
      for DV in "[upper_arm.mass, forearm.mass, gripper.mass]" \
                "[turret.inertia_zz, elbow.point_b_x, elbow_friction.damping]" \
                "[{control: u_shoulder}]" "[{control: u_roll}]"; do
        # Only (c) gives the table's figures; with the 9 values of u_shoulder alone (b)'s first random direction has
        # a directional derivative of 1.6e-2 that its central differences do not resolve (exit code 4).
        $RUN check "$M" -q --set "design_variables=$DV" || echo "check of $DV: exit code $?"
      done
      $RUN check "$M" -q
      if [ -f "$OUT/manipulator_gradient_np1.csv" ] && [ -f "$OUT/manipulator_gradient_np2.csv" ]; then
        $PY -c "import csv; g = [[float(r['gradient']) for r in csv.DictReader(open('$OUT/manipulator_gradient_np%d.csv' % n))] for n in (1, 2)]
print('np 2 against np 1: max |difference| / max |g| = %.1e' % (max(abs(a - b) for a, b in zip(*g)) / max(abs(a) for a in g[0])))"
      fi
      # The independent check of the model: free fall without drives and friction conserves energy at O(h^2).
      gtest verification test_meshes 'Meshes.ManipulatorWithoutDrivesConservesEnergyAtSecondOrder'
      ;;
    torsional_pendulum)
      # Held and Seifried, Table 1 (meshes/torsional_pendulum_state_space.yaml, design variable l, closed form
      # dpsi/dl = -12.110969458646): the discrete adjoint of the state-space integrator and the continuous QR adjoint
      # (--adjoint continuous) at h = 2e-3, 1e-3 (the model file), 5e-4, 2.5e-4; their errors, orders and the
      # extrapolations of the table (h^2 removed: h = 5e-4, 2.5e-4; h^2 and h^3 removed: 2e-3, 1e-3, 5e-4 and 1e-3, 5e-4,
      # 2.5e-4), then flexadj check at h = 1e-3.
      M="$ROOT/meshes/torsional_pendulum_state_space.yaml"
      for A in discrete continuous; do
        for H in 2e-3 1e-3 5e-4 2.5e-4; do
          $RUN gradient "$M" --adjoint $A --set "integrator.step_size=$H" -o "$OUT/torsional_pendulum_${A}_$H.csv"
        done
      done
      $PY - "$OUT" <<'PYEND'
import csv, sys
exact = -12.110969458645705  # the closed form, eq. (39)
g = {(a, h): next(float(r["gradient"]) for r in csv.DictReader(open("%s/torsional_pendulum_%s_%s.csv" % (sys.argv[1], a, h)))
             if r["name"] == "rod.length")
     for a in ("discrete", "continuous") for h in ("2e-3", "1e-3", "5e-4", "2.5e-4")}
def h2(a, b):  # h^2 removed, b at a/2
    return (4 * b - a) / 3
def h23(a, b, c):  # h^2 and h^3 removed, steps h, h/2, h/4 (expansion c2 h^2 + c3 h^3)
    return (32 * c - 12 * b + a) / 21
for adjoint in ("discrete", "continuous"):
    print("%s adjoint:" % adjoint)
    for h in ("2e-3", "1e-3", "5e-4", "2.5e-4"):
        print("  h = %-6s dpsi/dl = %.12f  absolute error %.2e  relative %.2e" % (h, g[adjoint, h], abs(g[adjoint, h] - exact),
                                                                                  abs(g[adjoint, h] - exact) / abs(exact)))
    x = [g[adjoint, h] for h in ("2e-3", "1e-3", "5e-4", "2.5e-4")]
    for label, value in (("h^2 removed (5e-4, 2.5e-4)", h2(x[2], x[3])), ("h^2, h^3 removed (2e-3, 1e-3, 5e-4)", h23(*x[:3])),
                         ("h^2, h^3 removed (1e-3, 5e-4, 2.5e-4)", h23(*x[1:]))):
        print("  extrapolated, %-38s absolute %.1e, relative %.1e" % (label, abs(value - exact), abs(value - exact) / abs(exact)))
PYEND
      $RUN check "$M" -q
      # The tests the section's CI figures come from: the discrete and the continuous QR adjoint over h = 2e-3, 1e-3,
      # 5e-4 with extrapolation, and the minimal-coordinate (joint-space Hamiltonian) adjoints with their check.
      gtest verification test_state_space_adjoint 'StateSpaceAdjoint.HeldSeifriedTable1GradientErrorBelow1e10'
      gtest verification test_state_space_continuous_adjoint 'StateSpaceContinuousAdjoint.HeldSeifriedTable1'
      clitest verification/test_joint_coordinates.py
      # Not run here: the same model with generalized-alpha and the variational integrator at h = 1e-3 (the section
      # names their figures but not their settings), and the wall times.
      ;;
    adjoint_constraint)
      # Maciag et al. 2022, Fig. 7: the adjoint's constraint C_q xi = 0 along the sweep on the cart stabilisation at
      # u = 0, the joint-coordinate adjoint (30a)/(30b) against the redundant-coordinate one (21a)-(21c), and the
      # gradients of Fig. 6 (swinging at F = 2 N) from both continuous adjoints and the discrete one.
      M="$OUT/adjoint_constraint_model.yaml"
      grep -v spectral_radius "$ROOT/meshes/double_pendulum_cart_stabilization.yaml" > "$M"
      for H in 1e-3 5e-4; do
        $RUN gradient "$M" --set integrator.type=hamiltonian --set integrator.coordinates=joint \
          --set "integrator.step_size=$H" --adjoint continuous --adjoint-violation "$OUT/adjoint_constraint_joint_$H.csv"
        $RUN gradient "$M" --set integrator.type=hamiltonian --set "integrator.step_size=$H" --adjoint continuous \
          --continuous-form hamiltonian --adjoint-violation "$OUT/adjoint_constraint_redundant_$H.csv"
        $RUN gradient "$M" --set integrator.type=hamiltonian --set "integrator.step_size=$H" --adjoint continuous \
          --continuous-form hamiltonian_index1 --adjoint-violation "$OUT/adjoint_constraint_index1_$H.csv"
      done
      S="$ROOT/meshes/double_pendulum_cart_hamiltonian.yaml"
      for H in 1e-3 5e-4; do
        $RUN gradient "$S" --set "controls[0].value=2" --set "integrator.step_size=$H" -q \
          -o "$OUT/adjoint_constraint_fig6_discrete_$H.csv"
        $RUN gradient "$S" --set "controls[0].value=2" --set "integrator.step_size=$H" --adjoint continuous \
          --continuous-form hamiltonian -q -o "$OUT/adjoint_constraint_fig6_redundant_$H.csv"
        $RUN gradient "$S" --set "controls[0].value=2" --set "integrator.step_size=$H" --adjoint continuous \
          --continuous-form hamiltonian_index1 -q -o "$OUT/adjoint_constraint_fig6_index1_$H.csv"
        $RUN gradient "$S" --set "controls[0].value=2" --set "integrator.step_size=$H" --set integrator.coordinates=joint \
          --adjoint continuous -q -o "$OUT/adjoint_constraint_fig6_joint_$H.csv"
      done
      $PY - "$OUT" <<'PYEND'
import csv, sys
out = sys.argv[1]
def rows(name):
    return list(csv.DictReader(open("%s/adjoint_constraint_%s.csv" % (out, name))))
print("max |C_q xi| (max |xi|) per quarter of [0, 2] s, cart stabilisation at u = 0:")
for h in ["1e-3", "5e-4"]:
    for kind in ["joint", "redundant", "index1"]:
        r = rows("%s_%s" % (kind, h))
        cells = []
        for q in range(4):
            part = [x for x in r if q * 0.5 <= float(x["time"]) <= (q + 1) * 0.5]
            cells.append("%.1e (%.3g)" % (max(float(x["violation"]) for x in part), max(float(x["xi"]) for x in part)))
        print("  h = %s  %-9s  %s" % (h, kind, "  ".join(cells)))
print("dJ/dF_k at F = 2 N (Fig. 6): redundant continuous (21), its index-1 form (22), discrete (absolute), joint continuous")
for h in ["1e-3", "5e-4"]:
    kinds = ["redundant", "index1", "discrete", "joint"]
    g = {k: {r["name"]: float(r["gradient"]) for r in rows("fig6_%s_%s" % (k, h))} for k in kinds}
    for k in [0, 100, 200, 300, 399]:
        n = "control:F[%d]" % k
        print("  h = %s  %-14s %s" % (h, n, " ".join("% .6e" % g[kind][n] for kind in kinds)))
    names = [n for n in g["discrete"] if int(n.split("[")[1][:-1]) < 400]
    s = max(abs(g["discrete"][n]) for n in names)
    for kind in ["redundant", "index1", "joint"]:
        print("  h = %s  max |%s - discrete| / max |g| = %.2e" % (
            h, kind, max(abs(g[kind][n] - g["discrete"][n]) for n in names) / s))
PYEND
      ;;
    *) echo "unknown case '$case' (expected: identification, crane, double_pendulum, double_pendulum_hamiltonian, adjoint_constraint, stabilization, stabilization_newton_krylov, stabilization_joint, triple_pendulum, beam_swing_up, beam_every_node, dual_quaternion_beam, dual_quaternion_beam_4_5, beam_4_5_newton_krylov, pendulum_studies, oscillator_stop, tolerance_study, manipulator, torsional_pendulum)" >&2; exit 2 ;;
  esac
done
