#pragma once
// The forward states in a results file, the one layout that TrajectoryOutput writes and the adjoint reads back:
//   /time [steps];  /state/q, /state/v, /state/a [steps, coordinates];  /state/lambda [steps, multipliers]
// (no /state/lambda when the model has no multipliers); attribute output_every on "/".
#include <memory>
#include <string>
#include <vector>

#include "flexadj/assembly/assembler.hpp"

namespace flexadj::results {

class ResultsReader;

namespace state_datasets {
inline constexpr const char* kCoordinates = "/state/q";
inline constexpr const char* kVelocities = "/state/v";
inline constexpr const char* kAccelerations = "/state/a";
inline constexpr const char* kMultipliers = "/state/lambda";
inline constexpr const char* kChecksums = "/state/checksum";  // [steps, ranks]
}  // namespace state_datasets

// The CRC-32 of a rank's q, v, a and lambda (in that order), as stored in /state/checksum.
double state_checksum(const assembly::State& state);

// Reads every stored step of a results file written with every step (output_every = 1), each rank its own rows,
// and checks each step against its checksum: a file written by another number of ranks, or whose values changed
// after they were written, is refused (InputError on every rank), never read as a state.
class StateReader {
 public:
  // InputError (naming the file) if it is not a results file of this model's coordinates with every step.
  // `own_file`: the file this process has just written (a trajectory between the forward run and the sweep): each
  // step is checked against its checksums, the chunk index once, and not each step's chunk record against the file
  // (a pass over the index per step in HDF5 1.10, quadratic in the steps over a sweep), which files from elsewhere
  // get before anything is read from them.
  StateReader(const std::string& path, const assembly::Assembler& assembler, bool own_file = false);
  ~StateReader();
  const std::vector<double>& times() const { return times_; }
  // q, v, a and lambda of step k into `state` (aux is not stored). Collective.
  void read(long long k, assembly::State& state) const;

 private:
  std::unique_ptr<ResultsReader> reader_;
  std::string path_;
  RCP<const Comm> comm_;
  std::vector<double> times_;
  std::vector<long long> coordinates_, multipliers_;
  bool has_multipliers_ = false;
  bool check_chunks_ = true;
};

}  // namespace flexadj::results
