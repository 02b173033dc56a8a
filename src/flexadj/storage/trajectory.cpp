#include "flexadj/storage/trajectory.hpp"

#include <stdexcept>

#include "flexadj/results/state_reader.hpp"
#include "flexadj/storage/binomial_schedule.hpp"
#include "flexadj/storage/checkpointed_trajectory.hpp"
#include "flexadj/results/trajectory_output.hpp"

namespace flexadj::storage {

void MemoryTrajectory::begin_recording() {
  times_.clear();
  states_.clear();
}

void MemoryTrajectory::record(long long, double t, const assembly::State& state) {
  times_.push_back(t);
  states_.push_back(state);
}

Hdf5Trajectory::Hdf5Trajectory(const std::string& path, assembly::Assembler& assembler,
                               const results::RunDescription& run)
    : path_(path), assembler_(assembler), run_(run), state_(assembler.make_state()) {}

Hdf5Trajectory::~Hdf5Trajectory() = default;

void Hdf5Trajectory::begin_recording() {
  reader_.reset();  // closes the file before it is written again
  output_ = std::make_unique<results::TrajectoryOutput>(assembler_, run_, path_, 1, false);
}

void Hdf5Trajectory::record(long long step, double t, const assembly::State& state) {
  if (!output_) throw std::logic_error("Hdf5Trajectory::record() outside begin_recording()/end_recording()");
  output_->observe(step, t, state);
}

void Hdf5Trajectory::end_recording() {
  if (!output_) return;
  output_->finish();
  output_.reset();
  reader_ = std::make_unique<results::StateReader>(path_, assembler_, true);  // the file just written
}

const std::vector<double>& Hdf5Trajectory::step_times() const {
  if (!reader_) throw std::logic_error("Hdf5Trajectory read before end_recording()");
  return reader_->times();
}

const assembly::State& Hdf5Trajectory::step(std::size_t n) {
  if (!reader_) throw std::logic_error("Hdf5Trajectory read before end_recording()");
  reader_->read(static_cast<long long>(n), state_);
  return state_;
}

std::size_t default_checkpoints(long long steps) {
  std::size_t slots = 1;
  while (binomial_reach(slots, 2) < static_cast<std::uint64_t>(steps) + 1) ++slots;
  return slots;
}

std::size_t disk_interval_for(long long steps, std::size_t disk_checkpoints) {
  if (disk_checkpoints < 1) throw std::invalid_argument("disk_interval_for: no disk checkpoint");
  return static_cast<std::size_t>(steps) / disk_checkpoints + 1;
}

std::unique_ptr<Trajectory> make_trajectory(const TrajectoryOptions& options, assembly::Assembler& assembler,
                                            StepRecomputer& run) {
  if (options.storage == "memory") return std::make_unique<MemoryTrajectory>();
  if (options.storage == "hdf5") return std::make_unique<Hdf5Trajectory>(options.path, assembler, run.run_description());
  const auto steps = static_cast<long long>(run.recorded_step_times().size()) - 1;
  if (options.storage == "checkpoints")
    return std::make_unique<CheckpointedTrajectory>(
        assembler, run, options.checkpoints > 0 ? options.checkpoints : default_checkpoints(steps),
        DiskCheckpoints{options.disk_interval, options.folder, options.run});
  throw std::invalid_argument("trajectory storage: expected memory, hdf5 or checkpoints, got '" + options.storage +
                              "'");
}

}  // namespace flexadj::storage
