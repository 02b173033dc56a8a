#pragma once
// What the spacetime adjoint (adjoint/spacetime_system.hpp) keeps of each adjoint step between its operator
// products: the factorization of the step's matrix and the element Jacobians of its products, both depending on
// the forward state of the step alone. A product then costs each step its triangular solves and the products with
// the kept Jacobians, not an assembly and a factorization. Steps are kept in the order they are first taken until
// the memory budget is spent; the others are assembled and factorized at every product.
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "flexadj/core/tpetra_types.hpp"
#include "flexadj/linalg/linear_solver.hpp"

namespace flexadj::storage {
class Trajectory;
}

namespace flexadj::integrators {

struct KeptAdjointStep {
  std::unique_ptr<linalg::KeptFactorization> factorization;
  std::vector<double> jacobians;  // Assembler::kept_jacobians() of the step's assembly
  std::size_t bytes() const {
    return (factorization ? factorization->bytes() : 0) + jacobians.size() * sizeof(double);
  }
};

struct KeptAdjointStatistics {
  std::size_t kept = 0;        // steps kept
  std::size_t not_kept = 0;    // adjoint steps assembled and factorized again (the budget was spent)
  std::size_t bytes = 0;       // memory of the kept steps on this rank
  std::size_t reused = 0;      // adjoint steps taken from kept ones
  std::string refusal;         // why nothing is kept (empty if the steps are kept)
};

class KeptAdjointSteps {
 public:
  // Keeps the steps of `trajectory` in at most `byte_budget` bytes on each rank of `comm` (the ranks of the
  // integrator's assembler); nullptr stops and frees them.
  void begin(const storage::Trajectory* trajectory, std::size_t byte_budget, RCP<const Comm> comm);
  bool active() const { return trajectory_ != nullptr; }
  // Step n of the trajectory if kept (and counts its reuse); nullptr otherwise.
  KeptAdjointStep* find(const storage::Trajectory& trajectory, std::size_t n);
  // Whether step n of the trajectory, just assembled and factorized, should be kept (active for this trajectory
  // and not kept yet).
  bool wants(const storage::Trajectory& trajectory, std::size_t n) const;
  // Keeps it if every rank's budget has room (collective: the same decision on every rank); over the budget the
  // step serves this adjoint step only and no further step is wanted. Returns the step to solve with.
  KeptAdjointStep* keep(std::size_t n, KeptAdjointStep step);
  // Step n was assembled and factorized again though active (the budget was spent).
  void count_taken_again(const storage::Trajectory& trajectory) {
    if (&trajectory == trajectory_) ++statistics_.not_kept;
  }
  // Nothing can be kept: why (reported in the statistics).
  void refuse(const std::string& reason);
  const KeptAdjointStatistics& statistics() const { return statistics_; }

 private:
  const storage::Trajectory* trajectory_ = nullptr;
  std::size_t budget_ = 0;
  RCP<const Comm> comm_;
  bool full_ = false;
  std::unordered_map<std::size_t, KeptAdjointStep> steps_;
  KeptAdjointStep transient_;  // the step that did not fit
  KeptAdjointStatistics statistics_;
};

}  // namespace flexadj::integrators
