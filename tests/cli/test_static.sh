#!/usr/bin/env bash
# Command-line behaviour of `flexadj static`: a good run (cantilever under a tip moment) writes its HDF5 and XDMF
# files with the beam as a polyline; bad beam input gives exit code 2 naming the file, the key and what was
# expected; a Newton failure in a load step gives exit code 3. (The numbers: tests/verification/test_beam_*.cpp.)
# Usage: test_static.sh PATH/TO/flexadj
source "$(dirname "${BASH_SOURCE[0]}")/cli_support.sh" "$1"


# L = 1, EI = 100, M = 100 pi: a half circle of radius 1/pi.
cantilever() {
  cat <<'YAML'
dimension: 3
integrator: {end_time: 1, step_size: 0.1}
static: {load_steps: 4}
sections:
  - {name: steel, E: 1.0e4, G: 5.0e3, rho: 1, A: 1, I2: 0.01, I3: 0.01, J: 0.02}
beams:
  - {name: beam, section: steel, elements: 40, line: {start: [0, 0, 0], end: [1, 0, 0]}}
joints:
  - {type: fixed, bodies: [ground, beam.start], point: [0, 0, 0]}
forces:
  - {type: load, body: beam.end, moment: [0, 0, 314.1592653589793]}
YAML
}

cantilever > good.yaml
expect "good static run" 0 "flexadj static" "load steps  4" "residuals" -- static good.yaml -o good.h5
for f in good.h5 good.xmf; do
  if [ -s "$f" ]; then passed=$((passed + 1)); echo "ok   $f written"; else failed=$((failed + 1)); echo "FAIL $f missing"; fi
done
if grep -q 'TopologyType="Polyline"' good.xmf; then passed=$((passed + 1)); echo "ok   beams as polylines"; else failed=$((failed + 1)); echo "FAIL no polyline in good.xmf"; fi
expect "load steps option" 0 "load steps  2" -- static good.yaml --load-steps 2 --no-output

cantilever | sed 's/section: steel,/section: iron,/' > unknown_section.yaml
expect "unknown section" 2 "unknown_section.yaml" "beams[0].section" "unknown section 'iron'" -- static unknown_section.yaml
cantilever | sed 's/end: \[1, 0, 0\]/end: [0, 0, 0]/' > zero_length.yaml
expect "zero-length beam" 2 "zero_length.yaml" "beams[0].line" "zero length" -- static zero_length.yaml
cantilever | sed 's/beam.start\]/beam.node41]/' > missing_node.yaml
expect "missing node" 2 "missing_node.yaml" "joints[0].bodies[1]" "beam 'beam' has no node 'node41'" -- static missing_node.yaml
cantilever | sed 's/I2: 0.01/Iy: 0.01/' > bad_key.yaml
expect "bad section key" 2 "bad_key.yaml" "sections[0].Iy" "unknown key 'Iy'" -- static bad_key.yaml
cantilever | sed 's/load_steps: 4/load_steps: 0/' > zero_steps.yaml
expect "zero load steps" 2 "zero_steps.yaml" "static.load_steps" -- static zero_steps.yaml
expect "help" 0 "usage: flexadj static" -- static --help
cantilever | sed 's/load_steps: 4}/load_steps: 1, max_newton_iterations: 2}/' > newton.yaml
expect "Newton failure" 3 "Newton iteration failed in load step 1 of 1" -- static newton.yaml -o newton.h5

finish
