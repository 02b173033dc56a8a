#pragma once
// XDMF description of a results file, so that ParaView opens it as a time series (scripts/paraview_check.py).
// Each point set becomes a temporal grid collection with one Uniform grid per step; geometry and attributes select
// step k of [steps, n, c] datasets in the HDF5 file. Two files, as ParaView's readers take the selection in two
// forms: NAME.xmf for its Xdmf3ReaderS/T (the readers ParaView 5.11 opens .xmf files with by default) and NAME.xmf2
// for its XDMF Reader (older; VisIt's reader), which claims the .xmf2 extension alone.
#include <mpi.h>

#include <string>
#include <vector>

namespace flexadj::results {

// The form of the step selection: "file:dataset|start:stride:count:extent" (XDMF 3) or a HyperSlab DataItem
// (XDMF 2).
enum class XdmfFlavour { xdmf3, xdmf2 };

class XdmfWriter {
 public:
  // write() is collective over comm; rank 0 writes the file.
  explicit XdmfWriter(MPI_Comm comm = MPI_COMM_WORLD);

  // A point set with positions from a [steps, points, 3] dataset. Shown as `points` vertex cells
  // (Polyvertex) unless polyline connectivity is set. Name: letters, digits, '_', '-', '.'.
  void add_point_set(const std::string& name, const std::string& position_dataset, long long points);
  // A point attribute from a [steps, points] (components 1), [steps, points, 3] or [steps, points, 9] dataset.
  void add_attribute(const std::string& point_set, const std::string& attribute_name, const std::string& dataset,
                     int components);
  // Line segments from an int64 dataset [segments, 2] of point indices (Topology "Polyline").
  void set_polyline_connectivity(const std::string& point_set, const std::string& connectivity_dataset,
                                 long long segments);
  // A cell attribute of a polyline point set: one value per segment, from a [steps, segments(, components)] dataset.
  void add_cell_attribute(const std::string& point_set, const std::string& attribute_name, const std::string& dataset,
                          int components);

  // The XML for `times.size()` steps; `h5_reference` is the file name written before ":/dataset".
  std::string xml(const std::string& h5_reference, const std::vector<double>& times,
                  XdmfFlavour flavour = XdmfFlavour::xdmf3) const;
  // Writes xml() to xmf_path (XDMF 3) and legacy_path(xmf_path) (XDMF 2), each atomically via a temporary file,
  // referring to h5_path relative to the directory of xmf_path (its basename when both are in the same
  // directory). InputError if not writable.
  void write(const std::string& xmf_path, const std::string& h5_path, const std::vector<double>& times) const;
  // The XDMF 2 file beside xmf_path: xmf_path + "2" (run.xmf -> run.xmf2).
  static std::string legacy_path(const std::string& xmf_path);

 private:
  struct Attribute {
    std::string name, dataset;
    int components;
    bool per_cell;  // one value per polyline segment, else per point
  };
  struct PointSet {
    std::string name, positions;
    long long points;
    std::vector<Attribute> attributes;
    std::string connectivity;  // empty: Polyvertex
    long long segments = 0;
  };
  PointSet& find(const std::string& point_set);

  MPI_Comm comm_;
  std::vector<PointSet> sets_;
};

}  // namespace flexadj::results
