#!/usr/bin/python3
"""Writes the synthetic measurements of the inertia identification (meshes/hanging_rigid_body_identification.yaml):
the velocity of the centre of mass of the body, one row per time step, from a result file of
`flexadj simulate meshes/hanging_rigid_body.yaml` (the correct tensor).

usage: identification_measurements.py RESULT.h5 OUT.csv [--body body]
"""
import argparse

import h5py


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("result")
    parser.add_argument("output")
    parser.add_argument("--body", default="body")
    args = parser.parse_args()
    with h5py.File(args.result, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["model/coordinate_names"][:]]
        columns = [names.index(args.body + "." + axis) for axis in ("x", "y", "z")]
        t = f["time"][:]
        v = f["state/v"][:, columns]
    with open(args.output, "w") as out:
        out.write("t,vx,vy,vz\n")
        for k in range(len(t)):
            out.write("%.17g,%.17g,%.17g,%.17g\n" % (t[k], v[k, 0], v[k, 1], v[k, 2]))


if __name__ == "__main__":
    main()
