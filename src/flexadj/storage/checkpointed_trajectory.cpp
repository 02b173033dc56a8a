#include "flexadj/storage/checkpointed_trajectory.hpp"

#include <algorithm>
#include <stdexcept>

#include "flexadj/storage/binomial_schedule.hpp"

namespace flexadj::storage {

CheckpointedTrajectory::CheckpointedTrajectory(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                                               std::size_t slots)
    : assembler_(assembler), integrator_(integrator), slots_(slots), current_(assembler.make_state()) {
  if (slots < 1) throw std::invalid_argument("a checkpointed trajectory needs at least one checkpoint slot");
  statistics_.slots = slots;
}

void CheckpointedTrajectory::begin_recording() {
  times_.clear();
  checkpoints_.clear();
  statistics_ = CheckpointStatistics{};
  statistics_.slots = slots_;
  current_valid_ = false;
  // The forward run's checkpoints: the binomial splits of the whole run (BinomialSchedule's first advance).
  planned_.assign(1, 0);
  const std::uint64_t last = static_cast<std::uint64_t>(integrator_.settings().step_count());
  std::uint64_t at = 0, available = slots_;
  while (last - at + 1 > 1 && available > 1) {
    at += optimal_split(last - at + 1, available);
    planned_.push_back(at);
    --available;
  }
  next_planned_ = 0;
}

void CheckpointedTrajectory::store(std::size_t step, const assembly::State& state) {
  integrator_.save_restart_data(restart_scratch_);
  checkpoints_.push_back({step, state, restart_scratch_});
  ++statistics_.stores;
}

void CheckpointedTrajectory::record(long long step, double t, const assembly::State& state) {
  const auto n = static_cast<std::size_t>(step);
  if (n != times_.size()) throw std::logic_error("CheckpointedTrajectory::record(): steps out of order");
  times_.push_back(t);
  if (next_planned_ < planned_.size() && planned_[next_planned_] == n) {
    store(n, state);
    ++next_planned_;
  }
  current_ = state;
  current_step_ = n;
  current_valid_ = true;
}

void CheckpointedTrajectory::end_recording() {
  if (times_.size() != static_cast<std::size_t>(integrator_.settings().step_count()) + 1)
    throw std::logic_error("CheckpointedTrajectory: the run recorded does not have the integrator's step count");
}

const assembly::State& CheckpointedTrajectory::step(std::size_t n) {
  if (n >= times_.size()) throw std::out_of_range("CheckpointedTrajectory::step(): no such step");
  if (current_valid_ && current_step_ == n) return current_;
  // A checkpoint (step 0 at the start of a sweep): served as it is, the stack untouched.
  const auto found = std::lower_bound(checkpoints_.begin(), checkpoints_.end(), n,
                                      [](const Checkpoint& c, std::size_t step) { return c.step < step; });
  if (found != checkpoints_.end() && found->step == n) return found->state;
  recompute(n);
  return current_;
}

void CheckpointedTrajectory::recompute(std::size_t n) {
  while (checkpoints_.back().step > n) checkpoints_.pop_back();  // x_0 at the bottom is never above n
  const Checkpoint& top = checkpoints_.back();
  current_ = top.state;
  current_step_ = top.step;
  current_valid_ = true;
  integrator_.load_restart_data(top.restart_data);
  ++statistics_.restores;
  // Forward steps need the forward matrices (the sweep has the assembler in transposed mode).
  const assembly::ScopedTransposedAssembly forward_assembly(assembler_, false);
  std::uint64_t available = slots_ - checkpoints_.size() + 1;  // the slot of the top checkpoint included
  while (n - current_step_ + 1 > 1 && available > 1) {
    advance(current_step_ + optimal_split(n - current_step_ + 1, available));
    store(current_step_, current_);
    --available;
  }
  advance(n);
}

void CheckpointedTrajectory::advance(std::size_t to) {
  for (std::size_t k = current_step_; k < to; ++k) {
    integrator_.step(current_, times_[k], times_[k + 1] - times_[k], static_cast<long long>(k + 1));
    ++statistics_.recomputed_steps;
  }
  current_step_ = to;
}

}  // namespace flexadj::storage
