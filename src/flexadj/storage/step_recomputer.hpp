#pragma once
// What a checkpointed trajectory (checkpointed_trajectory.hpp) needs of the run it records: its step times, the
// data a step carries besides the state, and each step again. integrators::TimeIntegrator is one; storage/ knows
// only this interface.
#include <vector>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/results/trajectory_output.hpp"

namespace flexadj::storage {

class StepRecomputer {
 public:
  virtual ~StepRecomputer() = default;
  // t_0 .. t_N of the run being recorded (its last step N: the size less one).
  virtual std::vector<double> recorded_step_times() const = 0;
  // What a step carries to the next outside the state, saved with each checkpoint and loaded before recomputing
  // from it, so that the recomputed steps equal the recorded ones bit for bit.
  virtual void save_restart_data(std::vector<double>& data) const = 0;
  virtual void load_restart_data(const std::vector<double>& data) = 0;
  // Step n (index n, from t to t + h) again, as the recorded run took it.
  virtual void recompute_step(assembly::State& state, double t, double h, long long n) = 0;
  // What a trajectory file of the run says of it (an HDF5 trajectory's attributes).
  virtual results::RunDescription run_description() const = 0;
};

}  // namespace flexadj::storage
