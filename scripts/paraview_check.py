"""Opens a flexadj result (.xmf) with ParaView's XDMF reader, prints what ParaView sees and, with --png,
renders the last step (bodies as spheres with their axis_z as arrows, joints as points).

    pvpython scripts/paraview_check.py results/run.xmf [--png picture.png]
    (rendering without a display: xvfb-run -a -s "-screen 0 1024x768x24" pvpython ...; the default 8-bit
    screen of xvfb-run makes ParaView abort with "bad X server connection")
Debian: apt-get install paraview python3-paraview xvfb
"""
import os
import sys

from paraview.simple import (XDMFReader, ExtractBlock, Glyph, Show, Render, SaveScreenshot, GetActiveViewOrCreate,
                             ResetCamera)

if len(sys.argv) < 2:
    sys.exit(__doc__)
path = os.path.abspath(sys.argv[1])
reader = XDMFReader(FileNames=[path])
reader.UpdatePipelineInformation()
times = reader.TimestepValues
reader.UpdatePipeline(times[-1])
info = reader.GetDataInformation()
arrays = [reader.PointData.GetArray(i).GetName() for i in range(len(reader.PointData))]
print(f"{path}: {len(times)} time steps from {times[0]} to {times[-1]} s, {info.GetNumberOfPoints()} points, "
      f"point arrays {arrays}")
if info.GetNumberOfPoints() == 0:
    sys.exit("ParaView read no points")

if "--png" in sys.argv:
    png = sys.argv[sys.argv.index("--png") + 1]
    view = GetActiveViewOrCreate("RenderView")
    view.ViewTime = times[-1]
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
