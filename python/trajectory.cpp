#include "trajectory.hpp"

namespace flexadj::python {
namespace {

namespace py = pybind11;

py::array_t<double> rows(const std::vector<double>& values, long long columns) {
  const auto count = static_cast<py::ssize_t>(columns > 0 ? values.size() / std::size_t(columns) : 0);
  py::array_t<double> array({count, static_cast<py::ssize_t>(columns)});
  std::copy(values.begin(), values.end(), array.mutable_data());
  return array;
}

}  // namespace

Trajectory::Trajectory(std::shared_ptr<Problem> problem, std::vector<double> x, const SimulatedRun& run)
    : time(static_cast<py::ssize_t>(run.time.size()), run.time.data()),
      q(rows(run.q, run.coordinates)),
      v(rows(run.v, run.coordinates)),
      coordinate_names(run.coordinate_names),
      problem_(std::move(problem)),
      x_(std::move(x)) {}

void Trajectory::write(const std::string& path, bool xdmf) {
  py::gil_scoped_release released;
  problem_->write_trajectory(x_, path, xdmf);
}

}  // namespace flexadj::python
