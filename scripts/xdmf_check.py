"""Reads a flexadj result's XDMF files without ParaView (XML and h5py) and fails (exit 1) on anything a reader would
trip on: RUN.xmf (XDMF 3 hyperslab shorthand "file:/path|start:stride:count:dims") and RUN.xmf2 (XDMF 2 HyperSlab
items), each resolved to the HDF5 datasets it names. Checked per point set and step: the dataset exists, the slab
lies inside it and has the item's dimensions, the values are finite; the topology's element count and connectivity
(indices inside the geometry's points); node arrays have one row per point, cell arrays one per element; the times
increase and equal the file's /time. The two files must give the same arrays at every step. --expect names the point
sets and arrays (as in scripts/paraview_check.py) the file must have.

    python3 scripts/xdmf_check.py results/run.xmf [--expect bodies,joints,beams]
Debian: apt-get install python3-h5py python3-numpy
"""
import os
import sys
from xml.etree import ElementTree

import h5py
import numpy

EXPECTED = {  # point arrays, cell arrays, topology
    "bodies": (["velocity", "axis_x", "axis_y", "axis_z"], [], "Polyvertex"),
    "joints": (["force"], [], "Polyvertex"),
    "beams": (["axis_x", "axis_y", "axis_z", "velocity"], ["force", "moment"], "Polyline"),
    "beam_sections": (["force", "moment"], [], "Polyvertex"),
}
XI = "{http://www.w3.org/2001/XInclude}include"
problems = []


def numbers(text, kind=float):
    return [kind(x) for x in text.split()]


def read_item(item, folder):
    """The array of a DataItem (XML, HDF, HDF with the |slab shorthand, or an XDMF 2 HyperSlab)."""
    dims = numbers(item.get("Dimensions"), int)
    if item.get("ItemType") == "HyperSlab":
        slab, source = list(item)
        start, stride, count = numpy.array(numbers(slab.text, int)).reshape(3, -1)
        data = read_item(source, folder)
        index = tuple(slice(a, a + s * c, s) for a, s, c in zip(start, stride, count))
        if any(a + s * (c - 1) >= n for a, s, c, n in zip(start, stride, count, data.shape)):
            raise ValueError(f"hyperslab {start}/{stride}/{count} outside {data.shape}")
        data = data[index]
    elif item.get("Format") == "XML":
        data = numpy.array(numbers(item.text, int if item.get("NumberType") == "Int" else float))
    elif item.get("Format") == "HDF":
        reference, _, shorthand = item.text.strip().partition("|")
        name, _, path = reference.partition(":")
        with h5py.File(os.path.join(folder, name), "r") as f:
            if path not in f:
                raise ValueError(f"{name} has no dataset {path}")
            data = f[path][()]
        if shorthand:
            start, stride, count, whole = (numbers(x, int) for x in shorthand.split(":"))
            if list(data.shape) != whole:
                raise ValueError(f"{path}: shape {data.shape}, the item says {whole}")
            if any(a + s * (c - 1) >= n for a, s, c, n in zip(start, stride, count, data.shape)):
                raise ValueError(f"{path}: slab {start}/{stride}/{count} outside {data.shape}")
            data = data[tuple(slice(a, a + s * c, s) for a, s, c in zip(start, stride, count))]
    else:
        raise ValueError(f"unknown DataItem format {item.get('Format')}")
    if int(numpy.prod(data.shape)) != int(numpy.prod(dims)):
        raise ValueError(f"{item.text.strip()[:60]}: {data.shape} values, the item says {dims}")
    data = data.reshape(dims)
    if data.dtype.kind == "f" and not numpy.all(numpy.isfinite(data)):
        raise ValueError(f"{item.text.strip()[:60]}: values not finite")
    return data


def read(path):
    """{point set: [(time, {"points", "topology", name: array})]} of one XDMF file."""
    folder = os.path.dirname(os.path.abspath(path))
    domain = ElementTree.parse(path).getroot().find("Domain")
    sets = {}
    for collection in domain.findall("Grid"):
        name = collection.get("Name")
        steps, first_topology = [], None
        for grid in collection.findall("Grid"):
            where = f"{path}: {name}, step {len(steps)}"
            try:
                topology = grid.find("Topology")
                if topology is None and grid.find(XI) is not None:
                    topology = first_topology
                if topology is None:
                    raise ValueError("no topology")
                first_topology = first_topology if first_topology is not None else topology
                step = {"time": float(grid.find("Time").get("Value")), "kind": topology.get("TopologyType")}
                elements = int(topology.get("NumberOfElements"))
                connectivity = read_item(topology.find("DataItem"), folder).reshape(elements, -1)
                points = read_item(grid.find("Geometry").find("DataItem"), folder).reshape(-1, 3)
                if connectivity.min() < 0 or connectivity.max() >= len(points):
                    raise ValueError(f"connectivity {connectivity.min()}..{connectivity.max()} for {len(points)} points")
                step["points"], step["topology"] = points, connectivity
                for attribute in grid.findall("Attribute"):
                    values = read_item(attribute.find("DataItem"), folder)
                    rows = len(points) if attribute.get("Center") == "Node" else elements
                    values = values.reshape(rows, -1)
                    step[(attribute.get("Center"), attribute.get("Name"))] = values
                steps.append(step)
            except (ValueError, KeyError, AttributeError, OSError) as error:
                problems.append(f"{where}: {error}")
        sets[name] = steps
    return sets


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    expect = sys.argv[sys.argv.index("--expect") + 1].split(",") if "--expect" in sys.argv else ["bodies"]
    with h5py.File(os.path.splitext(path)[0] + ".h5", "r") as f:
        times = f["time"][()]
    files = {path: read(path), path + "2": read(path + "2")}
    for name_of, sets in files.items():
        for name in expect:
            if name not in sets or not sets[name]:
                problems.append(f"{name_of}: no point set {name}")
                continue
            point, cell, kind = EXPECTED[name]
            steps = sets[name]
            for array in point:
                if ("Node", array) not in steps[0]:
                    problems.append(f"{name_of}: {name} lacks the point array {array}")
            for array in cell:
                if ("Cell", array) not in steps[0]:
                    problems.append(f"{name_of}: {name} lacks the cell array {array}")
            if steps[0]["kind"] != kind:
                problems.append(f"{name_of}: {name} is {steps[0]['kind']}, expected {kind}")
            step_times = numpy.array([s["time"] for s in steps])
            if len(step_times) != len(times) or numpy.max(numpy.abs(step_times - times)) > 1e-12 * max(1, times[-1]):
                problems.append(f"{name_of}: {name}: times {step_times[:3]}... are not the file's /time {times[:3]}...")
            print(f"{name_of}: {name}: {len(steps)} steps, {len(steps[0]['points'])} points, "
                  f"{len(steps[0]['topology'])} {steps[0]['kind']} cells, arrays "
                  f"{sorted(k[1] + '(' + k[0] + ')' for k in steps[0] if isinstance(k, tuple))}")
    # Both files give the same arrays at every step.
    a, b = files[path], files[path + "2"]
    for name in expect:
        for n, (x, y) in enumerate(zip(a.get(name, []), b.get(name, []))):
            for key in x:
                if key in ("time", "kind"):
                    continue
                if key not in y or not numpy.array_equal(x[key], y[key]):
                    problems.append(f"{name}, step {n}: {key} differs between {path} and {path}2")
    for problem in problems:
        print("problem:", problem)
    sys.exit(1 if problems else 0)


main()
