#!/usr/bin/env bash
# flexadj check (b) on meshes/manipulator.yaml with the shoulder's control values as the design: the first random
# direction is nearly orthogonal to the gradient (dJ.dp about 3e-2 of sum |g_i dp_i|), so its differences agree with
# dJ.dp but their error estimate misses 1e-5 |dJ.dp|. The check replaces that direction (printed) and passes, exit 0.
# Usage: test_check_directions.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"

MODEL="$HERE/../../meshes/manipulator.yaml"
expect "manipulator, u_shoulder: a cancelled direction replaced, check passed" 0 \
  "direction 1, replacement 1:" "replaced (cancellation)" "check passed" -- \
  check "$MODEL" --set "design_variables=[{control: u_shoulder}]" -q
grep "^    direction" stdout.txt | cut -c1-200
finish
