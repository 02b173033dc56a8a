#include "flexadj/io/state_reader.hpp"

#include "flexadj/core/error.hpp"
#include "flexadj/io/hdf5_results_file.hpp"

namespace flexadj::io {

StateReader::StateReader(const std::string& path, const assembly::Assembler& assembler)
    : reader_(std::make_unique<ResultsReader>(path)) {
  const auto& dofs = assembler.dofs();
  coordinates_ = dofs.owned_coordinates();
  for (long long id : dofs.owned_multipliers()) multipliers_.push_back(id - dofs.coordinate_count());
  has_multipliers_ = dofs.multiplier_count() > 0;
  times_ = reader_->times();
  const auto q_dims = reader_->dims(state_datasets::kCoordinates);
  if (q_dims.size() != 2 || q_dims[1] != dofs.coordinate_count() ||
      q_dims[0] != static_cast<long long>(times_.size()))
    throw InputError(path, state_datasets::kCoordinates, "does not hold this model's coordinates at every stored time");
  if (static_cast<double>(reader_->read_double_attribute("/", "output_every")) != 1.0)
    throw InputError(path, "output_every", "the adjoint needs every step: write the forward run with --every 1");
}

StateReader::~StateReader() = default;

void StateReader::read(long long k, assembly::State& state) const {
  state.q = reader_->read_step(state_datasets::kCoordinates, k, coordinates_);
  state.v = reader_->read_step(state_datasets::kVelocities, k, coordinates_);
  state.a = reader_->read_step(state_datasets::kAccelerations, k, coordinates_);
  if (!has_multipliers_)
    state.lambda.clear();
  else
    state.lambda = reader_->read_step(state_datasets::kMultipliers, k, multipliers_);
}

}  // namespace flexadj::io
