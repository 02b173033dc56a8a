#include "flexadj/results/state_reader.hpp"

#include <Teuchos_CommHelpers.hpp>

#include "flexadj/core/checksum.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/results/hdf5_results_file.hpp"

namespace flexadj::results {

double state_checksum(const assembly::State& state) {
  std::uint32_t crc = 0;
  for (const auto* values : {&state.q, &state.v, &state.a, &state.lambda}) crc = checksum(crc, *values);
  return static_cast<double>(crc);
}

StateReader::StateReader(const std::string& path, const assembly::Assembler& assembler, bool own_file)
    : reader_(std::make_unique<ResultsReader>(path)), path_(path), comm_(assembler.comm()), check_chunks_(!own_file) {
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
  if (reader_->read_double_attribute("/", "ranks") != static_cast<double>(comm_->getSize()))
    throw InputError(path, "ranks", "the trajectory was written by another number of ranks than this run's " +
                                        std::to_string(comm_->getSize()));
}

StateReader::~StateReader() = default;

void StateReader::read(long long k, assembly::State& state) const {
  state.q = reader_->read_step(state_datasets::kCoordinates, k, coordinates_, check_chunks_);
  state.v = reader_->read_step(state_datasets::kVelocities, k, coordinates_, check_chunks_);
  state.a = reader_->read_step(state_datasets::kAccelerations, k, coordinates_, check_chunks_);
  if (!has_multipliers_)
    state.lambda.clear();
  else
    state.lambda = reader_->read_step(state_datasets::kMultipliers, k, multipliers_, check_chunks_);
  // Every rank checks its rows; all agree before any goes on (the sweep's next step is collective).
  const int rank = comm_->getRank();
  const bool intact = reader_->read_step(state_datasets::kChecksums, k, {rank}, check_chunks_).at(0) == state_checksum(state);
  int bad = intact ? comm_->getSize() : rank, first = comm_->getSize();
  Teuchos::reduceAll(*comm_, Teuchos::REDUCE_MIN, bad, Teuchos::outArg(first));
  if (first < comm_->getSize())
    throw InputError(path_, state_datasets::kChecksums,
                     "step " + std::to_string(k) + ": the values of rank " + std::to_string(first) +
                         " do not match their checksum: the file changed after it was written, or is corrupt "
                         "(refused: a trajectory that does not match is never used)");
}

}  // namespace flexadj::results
