#pragma once
// The forward trajectory between the forward run and the backward sweep (PETSc's TSTrajectory plays this role
// there). The forward run records every step; the adjoint asks for step(n) in decreasing n and never knows where
// the states come from: memory, or an HDF5 file written during the forward run and read back step by step.
// Checkpointed recomputation (checkpointed_trajectory.hpp: binomial checkpoints, steps recomputed by the
// integrator) is the third implementation of the same interface.
#include <memory>
#include <string>
#include <vector>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/results/trajectory_output.hpp"
#include "flexadj/storage/step_recomputer.hpp"

namespace flexadj::results {
class StateReader;
}

namespace flexadj::storage {

class Trajectory {
 public:
  virtual ~Trajectory() = default;
  // The forward run: begin_recording() forgets any earlier run, record() takes the steps 0, 1, ... in order,
  // end_recording() makes them readable. Collective.
  virtual void begin_recording() = 0;
  virtual void record(long long step, double t, const assembly::State& state) = 0;
  virtual void end_recording() {}

  virtual const std::vector<double>& step_times() const = 0;
  // The state of this rank at step n (q, v, a, lambda; aux only in memory: no adjoint reads it); valid until the next call. Collective for HDF5.
  virtual const assembly::State& step(std::size_t n) = 0;
  std::size_t step_count() const { return step_times().size(); }
};

// All states in memory.
class MemoryTrajectory final : public Trajectory {
 public:
  void begin_recording() override;
  void record(long long step, double t, const assembly::State& state) override;
  const std::vector<double>& step_times() const override { return times_; }
  const assembly::State& step(std::size_t n) override { return states_.at(n); }

 private:
  std::vector<double> times_;
  std::vector<assembly::State> states_;
};

// Every step written to an HDF5 results file during the forward run (results::TrajectoryOutput, the layout of
// results/state_reader.hpp) and read back by each rank for its own rows. The file is kept after the run.
class Hdf5Trajectory final : public Trajectory {
 public:
  // `run`: what the file says of the run recorded (its attributes).
  Hdf5Trajectory(const std::string& path, assembly::Assembler& assembler, const results::RunDescription& run);
  ~Hdf5Trajectory() override;
  void begin_recording() override;
  void record(long long step, double t, const assembly::State& state) override;
  void end_recording() override;
  const std::vector<double>& step_times() const override;
  const assembly::State& step(std::size_t n) override;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  assembly::Assembler& assembler_;
  results::RunDescription run_;
  std::unique_ptr<results::TrajectoryOutput> output_;  // while recording
  std::unique_ptr<results::StateReader> reader_;       // after end_recording()
  assembly::State state_;
};

struct TrajectoryOptions {
  std::string storage = "memory";  // memory | hdf5 | checkpoints
  std::string path;                // hdf5: the file the forward run writes (kept)
  std::size_t checkpoints = 0;     // checkpoints: slots in memory; 0: default_checkpoints(N)
  std::size_t disk_interval = 0;   // checkpoints: a disk checkpoint every this many steps (0: memory only)
  std::string folder;              // checkpoints with disk_interval: where the checkpoint files go
  std::string run;                 // the run's identity, written into every disk checkpoint and checked on reading
};

// The disk interval m for at most d disk checkpoints over N steps: floor(N / d) + 1 (files at 0, m, 2m, ...).
std::size_t disk_interval_for(long long steps, std::size_t disk_checkpoints);

// The least number of checkpoints with which a run of N steps is reversed recomputing each step at most twice
// (repetition number 2: about N recomputed steps, memory about sqrt(2 N) states).
std::size_t default_checkpoints(long long steps);

// The trajectory of `options` for the runs of `run` (which recomputes steps for checkpoints; the integrator).
// std::invalid_argument for an unknown storage.
std::unique_ptr<Trajectory> make_trajectory(const TrajectoryOptions& options, assembly::Assembler& assembler,
                                            StepRecomputer& run);

}  // namespace flexadj::storage
