#pragma once
// A trajectory that keeps s checkpoints in memory instead of every step and recomputes the others with the
// integrator during the backward sweep, on the binomial schedule (binomial_schedule.hpp): memory s + 1 states
// whatever the number of steps N, at the cost of p(N + 1, s) - N recomputed steps, the least possible (Griewank
// and Walther 2000). The recomputation is the forward run again, step for step (same states, times, step sizes and
// integrator restart data), so the gradient equals the one with every step stored, bit for bit.
//
// step(n) serves the backward sweep's requests n = N, N - 1, ..., 0 as revolve would: the state the last advance
// produced, a checkpoint, or a recomputation from the nearest checkpoint below n that stores new checkpoints on
// the way (checkpoints above n are dropped first: the sweep does not go up again). Requests out of that order
// (step 0 at the start of a sweep, step n - 1 during the adjoint of step n) are served too; a request above the
// sweep's position after checkpoints were dropped costs a recomputation from below.
//
// With a disk tier (DiskCheckpoints::interval m > 0) the forward run also writes the state every m steps to an
// HDF5 checkpoint file (checkpoint_file.hpp) and keeps memory checkpoints for the last interval only; the sweep
// reverses each earlier interval from its disk checkpoint (binomial_schedule.hpp, two levels). Memory then holds
// s + 1 states and the disk N / m + 1, and every step is recomputed about once for m = s.
#include <cstdint>
#include <string>
#include <vector>

#include "flexadj/storage/checkpoint_folder.hpp"
#include "flexadj/storage/step_recomputer.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::storage {

struct CheckpointStatistics {
  std::uint64_t slots = 0;
  std::uint64_t recomputed_steps = 0;  // forward steps taken during the backward sweep
  std::uint64_t stores = 0;            // checkpoints stored (forward run and backward sweep)
  std::uint64_t restores = 0;          // recomputations started from a checkpoint
  std::uint64_t disk_interval = 0;     // a disk checkpoint every this many steps (0: no disk tier)
  std::uint64_t disk_writes = 0, disk_reads = 0;
  double disk_seconds = 0.0;  // spent writing and reading disk checkpoints
};


class CheckpointedTrajectory final : public Trajectory {
 public:
  // slots >= 1 checkpoints (x_0 takes one). `run` recomputes the steps of the run recorded (its integrator).
  CheckpointedTrajectory(assembly::Assembler& assembler, StepRecomputer& run, std::size_t slots,
                         DiskCheckpoints disk = {});
  // Removes the disk checkpoints of the last run, unless it is destroyed by an exception passing (a failed run
  // keeps them for a restart).
  ~CheckpointedTrajectory() override;
  void begin_recording() override;
  void record(long long step, double t, const assembly::State& state) override;
  void end_recording() override;
  const std::vector<double>& step_times() const override { return times_; }
  const assembly::State& step(std::size_t n) override;
  const CheckpointStatistics& statistics() const { return statistics_; }
  // The restart data that goes with the state the last step() returned (the recomputer's, saved now, for the state
  // it last advanced; a checkpoint's own otherwise): what a recomputer carries beside the state at that step.
  void served_restart_data(std::vector<double>& data) const;
  const DiskCheckpoints& disk() const { return disk_; }

  // Restart (`flexadj gradient --restart`) from the files of an earlier process of the same run:
  // resume_recording() instead of begin_recording() continues the forward run from the disk checkpoint of step
  // `from` (a multiple of the disk interval): `state` and the integrator's restart data are read from it, steps
  // 0 .. from count as recorded, and record() takes from + 1, ... Collective; InputError if the file is refused.
  void resume_recording(std::size_t from, assembly::State& state);
  // resume_recorded() instead of a forward run: that process completed the forward run, whose disk checkpoints
  // the sweep reads (the last interval is recomputed from its disk checkpoint).
  void resume_recorded();

 private:
  struct Checkpoint {
    std::size_t step;
    assembly::State state;
    std::vector<double> restart_data;
  };
  void store(std::size_t step, const assembly::State& state);
  // Step n of the forward run just recorded: a memory checkpoint if planned, and the state at hand.
  void keep(std::size_t n, const assembly::State& state);
  void write_disk(std::size_t step, const assembly::State& state);
  // Reads the disk checkpoint of `step` into `checkpoint` (state, restart data).
  void read_disk(std::size_t step, assembly::State& state, std::vector<double>& restart_data);
  void remove_disk_files();
  void start_run();  // no checkpoints, statistics or state at hand; times_ and steps_ of the run
  void plan_memory_checkpoints(std::size_t from);  // planned_: the binomial splits from `from` to the last step
  std::size_t period() const { return disk_.interval > 0 ? disk_.interval : steps_ + 1; }  // one interval: memory only
  // Advances current_ from the top checkpoint to step n, storing checkpoints at the binomial splits.
  void recompute(std::size_t n);
  void advance(std::size_t to);  // current_ from current_step_ to `to`

  assembly::Assembler& assembler_;
  StepRecomputer& run_;
  std::size_t slots_;
  DiskCheckpoints disk_;
  std::size_t steps_ = 0;  // N of the run recorded
  std::vector<std::size_t> disk_steps_;  // the disk checkpoints written, increasing
  std::vector<double> times_;
  std::vector<Checkpoint> checkpoints_;  // a stack, increasing steps; x_0 at the bottom
  std::vector<std::size_t> planned_;     // the forward run's checkpoint steps, in order
  std::size_t next_planned_ = 0;
  assembly::State current_, served_;  // served_: a disk checkpoint read out of the sweep's order
  std::size_t current_step_ = 0;
  std::size_t sweep_low_ = 0;  // the lowest step the sweep has asked for (in order)
  bool current_valid_ = false;
  // Where the last step() found its state: current_, the checkpoint at this index, or the disk (served_).
  enum class Served { Current, Checkpoint, Disk } served_from_ = Served::Current;
  std::size_t served_checkpoint_ = 0;
  std::vector<double> restart_scratch_, served_restart_;
  CheckpointStatistics statistics_;
};

}  // namespace flexadj::storage
