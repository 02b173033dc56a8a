"""Opens a flexadj result with ParaView's XDMF readers, prints what ParaView sees, and fails (exit 1) on any error
or warning a reader reports, or if a point set or array that flexadj writes is missing: bodies (point arrays
velocity, axis_x, axis_y, axis_z), joints (force), beams (lines, point arrays axis_x, axis_y, axis_z, velocity,
cell arrays force, moment) and beam_sections (force, moment). RUN.xmf is read with Xdmf3ReaderS and Xdmf3ReaderT
(what ParaView 5.11 opens .xmf with by default), RUN.xmf2 (written beside it) with the XDMF Reader. --expect names
the point sets the file must have; with --png it renders the last step (bodies as spheres with their axis_z as
arrows). The Xdmf3 readers print some complaints to the standard error stream, not through VTK: run it as
test_paraview.sh does, failing on any output line of the form "Skipping ...", "ERROR" or "Warning".

    pvpython scripts/paraview_check.py results/run.xmf [--expect bodies,joints,beams] [--png picture.png]
    (rendering without a display: xvfb-run -a -s "-screen 0 1024x768x24" pvpython ...; the default 8-bit
    screen of xvfb-run makes ParaView abort with "bad X server connection")
Debian: apt-get install paraview python3-paraview xvfb
"""
import os
import sys
from xml.etree import ElementTree

from paraview import servermanager
from paraview.simple import (XDMFReader, Xdmf3ReaderS, Xdmf3ReaderT, Glyph, Show, Render, SaveScreenshot, GetActiveViewOrCreate,
                             ResetCamera)
from vtkmodules.vtkCommonCore import vtkOutputWindow, vtkStringOutputWindow
from vtkmodules.vtkCommonDataModel import vtkCompositeDataSet, VTK_POLY_LINE, VTK_LINE

# What flexadj writes per point set: point arrays, cell arrays, and whether the cells are lines.
EXPECTED = {
    "bodies": (["velocity", "axis_x", "axis_y", "axis_z"], [], False),
    "joints": (["force"], [], False),
    "beams": (["axis_x", "axis_y", "axis_z", "velocity"], ["force", "moment"], True),
    "beam_sections": (["force", "moment"], [], False),
}

if len(sys.argv) < 2:
    sys.exit(__doc__)
path = os.path.abspath(sys.argv[1])
expect = sys.argv[sys.argv.index("--expect") + 1].split(",") if "--expect" in sys.argv else ["bodies"]
# Every error and warning of VTK's readers lands here while they read (pvpython's own printing too: the report is
# printed after the console is back).
console = vtkOutputWindow.GetInstance()
messages = vtkStringOutputWindow()
vtkOutputWindow.SetInstance(messages)
problems, report = [], []
last_points = {}  # reader -> point set -> the coordinates of its points at the last step


def leaves(data, name, found, unnamed):
    """The datasets of a (multi-block, multi-piece) output by block name. The Xdmf3 readers name no blocks: their
    leaves come in the order of the file's point sets, `unnamed` (the S reader as pieces of one dataset, the T reader
    as blocks)."""
    if data is None:
        return
    if data.IsA("vtkMultiBlockDataSet") or data.IsA("vtkMultiPieceDataSet"):
        for i in range(data.GetNumberOfPartitions() if data.IsA("vtkMultiPieceDataSet") else data.GetNumberOfBlocks()):
            block = data.GetPartition(i) if data.IsA("vtkMultiPieceDataSet") else data.GetBlock(i)
            meta = data.GetMetaData(i) if data.HasMetaData(i) else None
            child = meta.Get(vtkCompositeDataSet.NAME()) if meta and meta.Has(vtkCompositeDataSet.NAME()) else name
            leaves(block, child, found, unnamed)
    else:
        if not name and unnamed:
            name = unnamed.pop(0)
        found.setdefault(name, []).append(data)


legacy = path + "2"  # RUN.xmf2: the XDMF 2 form for the XDMF Reader (src/flexadj/results/xdmf_writer.hpp)
if not os.path.exists(legacy):
    sys.exit(f"{legacy} is missing: flexadj writes it beside {path}")
for label, make, file in (("Xdmf3ReaderS", lambda: Xdmf3ReaderS(FileName=[path]), path),
                          ("Xdmf3ReaderT", lambda: Xdmf3ReaderT(FileName=[path]), path),
                          ("XDMF Reader", lambda: XDMFReader(FileNames=[legacy]), legacy)):
    reader = make()
    reader.UpdatePipelineInformation()
    times = list(reader.TimestepValues) if reader.TimestepValues else [0.0]
    reader.UpdatePipeline(times[-1])
    found = {}
    output = servermanager.Fetch(reader)
    # The point sets (temporal collections) in the file's order; a file of one point set reads as that one dataset,
    # without a block name.
    top = [g.get("Name") for g in ElementTree.parse(file).getroot().iter("Grid") if g.get("CollectionType")]
    leaves(output, "", found, list(top))
    report.append(f"{label}: {file}: {len(times)} time steps from {times[0]} to {times[-1]} s")
    for name in expect:
        if name not in EXPECTED:
            sys.exit(f"unknown point set '{name}' in --expect")
        datasets = found.get(name, [])
        if not datasets:
            problems.append(f"{label}: no point set '{name}' (found {sorted(found)})")
            continue
        points = sum(d.GetNumberOfPoints() for d in datasets)
        last_points.setdefault(label, {})[name] = [d.GetPoint(i) for d in datasets for i in range(d.GetNumberOfPoints())]
        cells = [d.GetCellType(i) for d in datasets for i in range(d.GetNumberOfCells())]
        point_arrays = {d.GetPointData().GetArrayName(i) for d in datasets
                        for i in range(d.GetPointData().GetNumberOfArrays())}
        cell_arrays = {d.GetCellData().GetArrayName(i) for d in datasets
                       for i in range(d.GetCellData().GetNumberOfArrays())}
        report.append(f"  {name}: {points} points, {len(cells)} cells, point arrays {sorted(point_arrays)}, "
                      f"cell arrays {sorted(cell_arrays)}")
        want_points, want_cells, lines = EXPECTED[name]
        if points == 0:
            problems.append(f"{label}: {name}: no points")
        for array in want_points:
            if array not in point_arrays:
                problems.append(f"{label}: {name}: no point array '{array}'")
        for array in want_cells:
            if array not in cell_arrays:
                problems.append(f"{label}: {name}: no cell array '{array}'")
        if lines and (not cells or any(c not in (VTK_LINE, VTK_POLY_LINE) for c in cells)):
            problems.append(f"{label}: {name}: expected line cells, got cell types {sorted(set(cells))}")

# The three readers select the same step of the same datasets: the same points.
for label, sets in last_points.items():
    for name, points in sets.items():
        reference = last_points.get("XDMF Reader", {}).get(name)
        if reference is not None and points != reference:
            problems.append(f"{label}: {name}: other points at the last step than the XDMF Reader's")

vtkOutputWindow.SetInstance(console)
print("\n".join(report))
text = messages.GetOutput().strip()
if text:
    problems.append("the reader reported:\n" + text)

if "--png" in sys.argv and not problems:
    png = sys.argv[sys.argv.index("--png") + 1]
    reader = XDMFReader(FileNames=[path])
    reader.UpdatePipelineInformation()
    view = GetActiveViewOrCreate("RenderView")
    view.ViewTime = reader.TimestepValues[-1]
    view.ViewSize = [900, 700]
    spheres = Glyph(Input=reader, GlyphType="Sphere", ScaleArray=["POINTS", "No scale array"], ScaleFactor=0.08)
    arrows = Glyph(Input=reader, GlyphType="Arrow", OrientationArray=["POINTS", "axis_z"],
                   ScaleArray=["POINTS", "No scale array"], ScaleFactor=0.3)
    Show(spheres, view)
    Show(arrows, view)
    view.CameraPosition = [1.0, -6.0, 1.0]
    view.CameraFocalPoint = [1.0, 0.0, -1.0]
    view.CameraViewUp = [0.0, 0.0, 1.0]
    ResetCamera(view)
    Render(view)
    SaveScreenshot(png, view, ImageResolution=[900, 700])
    print(f"wrote {png}")

if problems:
    print("FAIL " + "\n     ".join(problems))
    sys.exit(1)
print(f"ok: no reader message; {', '.join(expect)} and their arrays present")
