#pragma once
// flexadj.Trajectory: the result of Problem.simulate(x): step times and the coordinates q and velocities v of
// every step as numpy arrays (global numbering, the same on every rank), and write() to save the run as
// `flexadj simulate -o` does.
#include <pybind11/numpy.h>

#include <memory>
#include <string>
#include <vector>

#include "problem.hpp"

namespace flexadj::python {

class Trajectory {
 public:
  Trajectory(std::shared_ptr<Problem> problem, std::vector<double> x, const SimulatedRun& run);
  pybind11::array_t<double> time, q, v;  // (steps + 1,), (steps + 1, coordinates) twice
  std::vector<std::string> coordinate_names;
  const std::vector<double>& design_values() const { return x_; }
  // HDF5 (and XDMF for ParaView) at `path`; collective. Runs the model again unless its last run was this one.
  void write(const std::string& path, bool xdmf);

 private:
  std::shared_ptr<Problem> problem_;
  std::vector<double> x_;
};

}  // namespace flexadj::python
