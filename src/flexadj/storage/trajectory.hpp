#pragma once
// Where the backward sweep gets the forward states from (PETSc's TSTrajectory plays this role there): in
// memory, or read back step by step from the HDF5 result file of the forward run. The adjoint asks only
// for step(n) and never knows which.
#include <memory>
#include <string>
#include <vector>

#include "flexadj/assembly/assembler.hpp"

namespace flexadj::io {
class ResultsReader;
}

namespace flexadj::storage {

class Trajectory {
 public:
  virtual ~Trajectory() = default;
  virtual const std::vector<double>& step_times() const = 0;
  // The state of this rank at step n (q, v, a, lambda); valid until the next call.
  virtual const assembly::State& step(std::size_t n) = 0;
  std::size_t step_count() const { return step_times().size(); }
};

// All states in memory.
struct MemoryTrajectory final : Trajectory {
  std::vector<double> times;
  std::vector<assembly::State> states;
  const std::vector<double>& step_times() const override { return times; }
  const assembly::State& step(std::size_t n) override { return states.at(n); }
};

// States read from a result file written with every step (io::TrajectoryOutput, output.every = 1); each
// rank reads the rows it owns.
class Hdf5Trajectory final : public Trajectory {
 public:
  Hdf5Trajectory(const std::string& path, const assembly::Assembler& assembler);
  ~Hdf5Trajectory() override;
  const std::vector<double>& step_times() const override { return times_; }
  const assembly::State& step(std::size_t n) override;

 private:
  std::unique_ptr<io::ResultsReader> reader_;
  std::vector<double> times_;
  std::vector<long long> coordinates_, multipliers_;
  assembly::State state_;
};

}  // namespace flexadj::storage
