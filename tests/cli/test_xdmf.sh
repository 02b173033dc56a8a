#!/usr/bin/env bash
# The XDMF files flexadj writes, read without ParaView (scripts/xdmf_check.py: the XML and the HDF5 datasets it names,
# by h5py): a rigid model, a beam model, an ANCF model and a model without joints, RUN.xmf and RUN.xmf2, every point
# set and array, the slabs inside their datasets, the times those of the file, both files the same arrays. The
# checker fails on a broken file (a wrong slab, a missing dataset, an element count). ParaView itself: cli_paraview.
# Usage: test_xdmf.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MESHES="$HERE/../../meshes"
CHECK="/usr/bin/python3 $HERE/../../scripts/xdmf_check.py"
cat > free_body.yaml <<'YAML'
dimension: 3
gravity: [0, 0, -9.81]
integrator: {end_time: 0.05, step_size: 0.01}
bodies:
  - {name: brick, type: rigid_body, mass: 2, inertia: [0.1, 0.2, 0.3, 0, 0, 0], position: [0, 0, 1]}
YAML
reads() {  # reads NAME MODEL POINT_SETS
  expect "$1: simulate" 0 "summary" -- simulate "$2" -o "$1.h5" --set integrator.end_time=0.02
  pass_if "$1: $1.xmf and $1.xmf2 read with $3" bash -c "$CHECK '$1.xmf' --expect '$3' > '$1.check.txt' 2>&1 ||
    { sed 's/^/     | /' '$1.check.txt'; false; }"
}
reads rigid "$MESHES/double_pendulum_cart.yaml" bodies,joints
reads beam "$MESHES/beam_swing_up.yaml" bodies,joints,beams,beam_sections
reads ancf "$MESHES/ancf_pendulum.yaml" bodies,joints,beams,beam_sections
reads no_joints free_body.yaml bodies
# Broken files fail: a slab past the end, a dataset that is not there, an element count off by one, a missing file.
fails() {  # fails NAME SED_EXPRESSION TEXT: the beam's files edited by SED fail, naming TEXT
  cp beam.h5 broken.h5; sed "$2" beam.xmf > broken.xmf; sed "$2" beam.xmf2 > broken.xmf2
  $CHECK broken.xmf --expect bodies,joints,beams,beam_sections > broken.txt 2>&1
  local code=$?
  pass_if "broken ($1): exit 1 naming '$3'" bash -c "[ $code = 1 ] && grep -qF -- '$3' broken.txt"
}
fails "slab past the end" 's/position|24 0 0/position|25 0 0/; s/beam.h5/broken.h5/g' "outside"
fails "no such dataset" 's|/joints/force|/joints/forces|; s/beam.h5/broken.h5/g' "has no dataset /joints/forces"
fails "element count" 's/NumberOfElements="5" NodesPerElement="2"/NumberOfElements="4" NodesPerElement="2"/; s/beam.h5/broken.h5/g' \
  "beams, step 0"
fails "a missing HDF5 file" 's/beam.h5/gone.h5/g' "gone.h5"
finish
