#!/usr/bin/env bash
# ParaView opens what flexadj writes: the XDMF files of a rigid model, a beam model, an ANCF model and a
# model without joints open in ParaView's three XDMF readers (RUN.xmf in Xdmf3ReaderS and Xdmf3ReaderT, RUN.xmf2 in
# the XDMF Reader) without any error or warning, with every point set and array (beams as lines with their cell
# arrays) and the same points. Runs scripts/paraview_check.py under pvpython; skipped (exit 77)
# without ParaView (Debian: apt-get install paraview python3-paraview); cli_xdmf reads the same files without it.
# Usage: test_paraview.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v pvpython > /dev/null; then
  echo "cli_paraview skipped: pvpython is not installed (Debian: apt-get install paraview python3-paraview)"
  exit 77
fi
source "$HERE/cli_support.sh" "$1"
MESHES="$HERE/../../meshes"
CHECK="$HERE/../../scripts/paraview_check.py"
cat > free_body.yaml <<'YAML'
dimension: 3
gravity: [0, 0, -9.81]
integrator: {end_time: 0.05, step_size: 0.01}
bodies:
  - {name: brick, type: rigid_body, mass: 2, inertia: [0.1, 0.2, 0.3, 0, 0, 0], position: [0, 0, 1]}
YAML
# opens NAME MODEL POINT_SETS: simulates MODEL for 0.02 s and checks its XDMF file in ParaView.
opens() {
  expect "$1: simulate" 0 "summary" -- simulate "$2" -o "$1.h5" --set integrator.end_time=0.02
  pass_if "$1: ParaView opens $1.xmf with $3 and no message" \
    bash -c "pvpython '$CHECK' '$PWD/$1.xmf' --expect '$3' > '$1.paraview.txt' 2>&1 &&
             ! grep -E 'Skipping|ERROR|ERR\||Warning|warning' '$1.paraview.txt' ||
             { sed 's/^/     | /' '$1.paraview.txt'; false; }"
}
opens rigid "$MESHES/double_pendulum_cart.yaml" bodies,joints
opens beam "$MESHES/beam_swing_up.yaml" bodies,joints,beams,beam_sections
opens ancf "$MESHES/ancf_pendulum.yaml" bodies,joints,beams,beam_sections
opens no_joints free_body.yaml bodies
finish
