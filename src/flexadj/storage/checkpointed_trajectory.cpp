#include "flexadj/storage/checkpointed_trajectory.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <filesystem>
#include <stdexcept>

#include "flexadj/core/error.hpp"
#include "flexadj/storage/binomial_schedule.hpp"
#include "flexadj/storage/checkpoint_file.hpp"

namespace flexadj::storage {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

CheckpointedTrajectory::CheckpointedTrajectory(assembly::Assembler& assembler, StepRecomputer& run, std::size_t slots,
                                               DiskCheckpoints disk)
    : assembler_(assembler),
      run_(run),
      slots_(slots),
      disk_(std::move(disk)),
      current_(assembler.make_state()),
      served_(assembler.make_state()) {
  if (slots < 1) throw std::invalid_argument("a checkpointed trajectory needs at least one checkpoint slot");
  statistics_.slots = slots;
  statistics_.disk_interval = disk_.interval;
}

CheckpointedTrajectory::~CheckpointedTrajectory() {
  // A run ended by an error (an exception passing) keeps its files: --restart may need them.
  if (std::uncaught_exceptions() > 0) return;
  try {
    remove_disk_files();
  } catch (...) {
  }
}

void CheckpointedTrajectory::begin_recording() {
  remove_disk_files();
  start_run();
  times_.clear();  // record() takes the times
  if (disk_.interval > 0) {
    std::error_code ignored;
    std::filesystem::create_directories(disk_.folder, ignored);
    if (!std::filesystem::is_directory(disk_.folder))
      throw InputError("", "trajectory.folder", "cannot create the checkpoint folder '" + disk_.folder + "'");
  }
  planned_.clear();
  next_planned_ = 0;
  // Memory checkpoints in the last interval only (binomial_schedule(): the forward run).
  plan_memory_checkpoints(steps_ / period() * period());
}

void CheckpointedTrajectory::resume_recording(std::size_t from, assembly::State& state) {
  if (disk_.interval == 0 || from == 0 || from % disk_.interval != 0)
    throw std::logic_error("CheckpointedTrajectory::resume_recording() needs a disk checkpoint step after step 0");
  start_run();
  if (from > steps_) throw std::logic_error("CheckpointedTrajectory::resume_recording(): beyond the last step");
  times_.resize(from + 1);
  disk_steps_.clear();
  for (std::size_t n = 0; n <= from; n += disk_.interval) disk_steps_.push_back(n);
  read_disk(from, state, restart_scratch_);
  run_.load_restart_data(restart_scratch_);
  planned_.clear();
  plan_memory_checkpoints(steps_ / period() * period());
  next_planned_ = 0;
  while (next_planned_ < planned_.size() && planned_[next_planned_] < from) ++next_planned_;
  keep(from, state);
}

void CheckpointedTrajectory::resume_recorded() {
  if (disk_.interval == 0) throw std::logic_error("CheckpointedTrajectory::resume_recorded() needs a disk tier");
  start_run();
  disk_steps_.clear();
  for (std::size_t n = 0; n <= steps_; n += disk_.interval) disk_steps_.push_back(n);
  sweep_low_ = steps_ + 1;
}

void CheckpointedTrajectory::start_run() {
  checkpoints_.clear();
  statistics_ = CheckpointStatistics{};
  statistics_.slots = slots_;
  statistics_.disk_interval = disk_.interval;
  times_ = run_.recorded_step_times();
  steps_ = times_.size() - 1;
  current_valid_ = false;
}

void CheckpointedTrajectory::plan_memory_checkpoints(std::size_t from) {
  planned_.assign(1, from);
  std::uint64_t at = from, available = slots_;
  while (steps_ - at + 1 > 1 && available > 1) {
    at += optimal_split(steps_ - at + 1, available);
    planned_.push_back(at);
    --available;
  }
}

void CheckpointedTrajectory::store(std::size_t step, const assembly::State& state) {
  run_.save_restart_data(restart_scratch_);
  checkpoints_.push_back({step, state, restart_scratch_});
  ++statistics_.stores;
}

void CheckpointedTrajectory::write_disk(std::size_t step, const assembly::State& state) {
  const auto start = std::chrono::steady_clock::now();
  run_.save_restart_data(restart_scratch_);
  write_checkpoint_file(disk_.path(static_cast<long long>(step)), assembler_,
                        {disk_.run, static_cast<long long>(step), times_[step]}, state, restart_scratch_);
  disk_steps_.push_back(step);
  ++statistics_.disk_writes;
  statistics_.disk_seconds += seconds_since(start);
}

void CheckpointedTrajectory::read_disk(std::size_t step, assembly::State& state, std::vector<double>& restart_data) {
  const auto start = std::chrono::steady_clock::now();
  read_checkpoint_file(disk_.path(static_cast<long long>(step)), assembler_,
                       {disk_.run, static_cast<long long>(step), times_[step]}, state, restart_data);
  ++statistics_.disk_reads;
  statistics_.disk_seconds += seconds_since(start);
}

void CheckpointedTrajectory::remove_disk_files() {
  // Rank 0 removes what the ranks wrote together; the others only forget the list. The last step first: a run
  // killed while it removes them leaves the files of steps 0 .. k, from which --restart resumes the forward run.
  if (assembler_.comm()->getRank() == 0)
    for (auto step = disk_steps_.rbegin(); step != disk_steps_.rend(); ++step) {
      std::error_code ignored;
      std::filesystem::remove(disk_.path(static_cast<long long>(*step)), ignored);
    }
  disk_steps_.clear();
}

void CheckpointedTrajectory::record(long long step, double t, const assembly::State& state) {
  const auto n = static_cast<std::size_t>(step);
  if (n != times_.size()) throw std::logic_error("CheckpointedTrajectory::record(): steps out of order");
  times_.push_back(t);
  if (disk_.interval > 0 && n % disk_.interval == 0) write_disk(n, state);
  keep(n, state);
}

void CheckpointedTrajectory::keep(std::size_t n, const assembly::State& state) {
  if (next_planned_ < planned_.size() && planned_[next_planned_] == n) {
    store(n, state);
    ++next_planned_;
  }
  current_ = state;
  current_step_ = n;
  current_valid_ = true;
}

void CheckpointedTrajectory::end_recording() {
  if (times_.size() != steps_ + 1)
    throw std::logic_error("CheckpointedTrajectory: the run recorded does not have the step count of its recomputer");
  sweep_low_ = steps_ + 1;
}

const assembly::State& CheckpointedTrajectory::step(std::size_t n) {
  if (n >= times_.size()) throw std::out_of_range("CheckpointedTrajectory::step(): no such step");
  served_from_ = Served::Current;
  if (current_valid_ && current_step_ == n) {
    sweep_low_ = std::min(sweep_low_, n);
    return current_;
  }
  // A checkpoint (step 0 at the start of a sweep): served as it is, the stack untouched.
  const auto found = std::lower_bound(checkpoints_.begin(), checkpoints_.end(), n,
                                      [](const Checkpoint& c, std::size_t step) { return c.step < step; });
  if (found != checkpoints_.end() && found->step == n) {
    served_from_ = Served::Checkpoint;
    served_checkpoint_ = static_cast<std::size_t>(found - checkpoints_.begin());
    return found->state;
  }
  // Ahead of the sweep (more than one step below the lowest step served; step 0 at the start of a sweep) at a disk
  // checkpoint below the memory checkpoints: read from disk, the stack untouched.
  if (disk_.interval > 0 && n + 1 < sweep_low_ && n % disk_.interval == 0 &&
      (checkpoints_.empty() || n < checkpoints_.front().step)) {
    read_disk(n, served_, served_restart_);
    served_from_ = Served::Disk;
    return served_;
  }
  sweep_low_ = std::min(sweep_low_, n);
  recompute(n);
  return current_;
}

void CheckpointedTrajectory::served_restart_data(std::vector<double>& data) const {
  switch (served_from_) {
    case Served::Current: run_.save_restart_data(data); return;
    case Served::Checkpoint: data = checkpoints_.at(served_checkpoint_).restart_data; return;
    case Served::Disk: data = served_restart_; return;
  }
}

void CheckpointedTrajectory::recompute(std::size_t n) {
  while (!checkpoints_.empty() && checkpoints_.back().step > n) checkpoints_.pop_back();
  if (checkpoints_.empty()) {  // the interval's disk checkpoint becomes its memory checkpoint
    const std::size_t start = n / period() * period();
    Checkpoint bottom{start, assembler_.make_state(), {}};
    read_disk(start, bottom.state, bottom.restart_data);
    checkpoints_.push_back(std::move(bottom));
  }
  const Checkpoint& top = checkpoints_.back();
  current_ = top.state;
  current_step_ = top.step;
  current_valid_ = true;
  run_.load_restart_data(top.restart_data);
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
    run_.recompute_step(current_, times_[k], times_[k + 1] - times_[k], static_cast<long long>(k + 1));
    ++statistics_.recomputed_steps;
  }
  current_step_ = to;
}

}  // namespace flexadj::storage
