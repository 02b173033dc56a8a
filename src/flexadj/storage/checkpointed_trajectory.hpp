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
#include <cstdint>
#include <vector>

#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::storage {

struct CheckpointStatistics {
  std::uint64_t slots = 0;
  std::uint64_t recomputed_steps = 0;  // forward steps taken during the backward sweep
  std::uint64_t stores = 0;            // checkpoints stored (forward run and backward sweep)
  std::uint64_t restores = 0;          // recomputations started from a checkpoint
};

class CheckpointedTrajectory final : public Trajectory {
 public:
  // slots >= 1 checkpoints (x_0 takes one). The integrator is the one whose run is recorded: it recomputes steps.
  CheckpointedTrajectory(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator, std::size_t slots);
  void begin_recording() override;
  void record(long long step, double t, const assembly::State& state) override;
  void end_recording() override;
  const std::vector<double>& step_times() const override { return times_; }
  const assembly::State& step(std::size_t n) override;
  const CheckpointStatistics& statistics() const { return statistics_; }

 private:
  struct Checkpoint {
    std::size_t step;
    assembly::State state;
    std::vector<double> restart_data;
  };
  void store(std::size_t step, const assembly::State& state);
  // Advances current_ from the top checkpoint to step n, storing checkpoints at the binomial splits.
  void recompute(std::size_t n);
  void advance(std::size_t to);  // current_ from current_step_ to `to`

  assembly::Assembler& assembler_;
  integrators::TimeIntegrator& integrator_;
  std::size_t slots_;
  std::vector<double> times_;
  std::vector<Checkpoint> checkpoints_;  // a stack, increasing steps; x_0 at the bottom
  std::vector<std::size_t> planned_;     // the forward run's checkpoint steps, in order
  std::size_t next_planned_ = 0;
  assembly::State current_;
  std::size_t current_step_ = 0;
  bool current_valid_ = false;
  std::vector<double> restart_scratch_;
  CheckpointStatistics statistics_;
};

}  // namespace flexadj::storage
