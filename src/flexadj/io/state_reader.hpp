#pragma once
// The forward states in a results file, the one layout that TrajectoryOutput writes and the adjoint reads back:
//   /time [steps];  /state/q, /state/v, /state/a [steps, coordinates];  /state/lambda [steps, multipliers]
// (no /state/lambda when the model has no multipliers); attribute output_every on "/".
#include <memory>
#include <string>
#include <vector>

#include "flexadj/assembly/assembler.hpp"

namespace flexadj::io {

class ResultsReader;

namespace state_datasets {
inline constexpr const char* kCoordinates = "/state/q";
inline constexpr const char* kVelocities = "/state/v";
inline constexpr const char* kAccelerations = "/state/a";
inline constexpr const char* kMultipliers = "/state/lambda";
}  // namespace state_datasets

// Reads every stored step of a results file written with every step (output_every = 1), each rank its own rows.
class StateReader {
 public:
  // InputError (naming the file) if it is not a results file of this model's coordinates with every step.
  StateReader(const std::string& path, const assembly::Assembler& assembler);
  ~StateReader();
  const std::vector<double>& times() const { return times_; }
  // q, v, a and lambda of step k into `state` (aux is not stored).
  void read(long long k, assembly::State& state) const;

 private:
  std::unique_ptr<ResultsReader> reader_;
  std::vector<double> times_;
  std::vector<long long> coordinates_, multipliers_;
  bool has_multipliers_ = false;
};

}  // namespace flexadj::io
