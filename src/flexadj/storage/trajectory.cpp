#include "flexadj/storage/trajectory.hpp"

#include "flexadj/core/error.hpp"
#include "flexadj/io/hdf5_results_file.hpp"

namespace flexadj::storage {

Hdf5Trajectory::Hdf5Trajectory(const std::string& path, const assembly::Assembler& assembler)
    : reader_(std::make_unique<io::ResultsReader>(path)), state_(assembler.make_state()) {
  const auto& dofs = assembler.dofs();
  coordinates_ = dofs.owned_coordinates();
  for (long long id : dofs.owned_multipliers()) multipliers_.push_back(id - dofs.coordinate_count());
  times_ = reader_->times();
  const auto q_dims = reader_->dims("/state/q");
  if (q_dims.size() != 2 || q_dims[1] != dofs.coordinate_count() ||
      q_dims[0] != static_cast<long long>(times_.size()))
    throw InputError(path, "/state/q", "does not hold this model's coordinates at every stored time");
  if (static_cast<double>(reader_->read_double_attribute("/", "output_every")) != 1.0)
    throw InputError(path, "output_every", "the adjoint needs every step: write the forward run with --every 1");
}

Hdf5Trajectory::~Hdf5Trajectory() = default;

const assembly::State& Hdf5Trajectory::step(std::size_t n) {
  const long long k = static_cast<long long>(n);
  state_.q = reader_->read_step("/state/q", k, coordinates_);
  state_.v = reader_->read_step("/state/v", k, coordinates_);
  state_.a = reader_->read_step("/state/a", k, coordinates_);
  state_.lambda = reader_->read_step("/state/lambda", k, multipliers_);
  return state_;
}

}  // namespace flexadj::storage
