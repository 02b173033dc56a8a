#pragma once
// The constraints of an optimisation on the discrete trajectory as one vector c of values: one per final-value,
// control-effort and final-time constraint, N + 1 per path constraint (steps 0 .. N), in the order of the model file.
// The forward run gives c (begin, observe each step, finish); the products J_c^T lambda come from the discrete
// adjoint of the single objective sum_i lambda_i c_i (weighted()), one backward sweep whatever the number of values.
#include <vector>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/objectives/constraint_term.hpp"
#include "flexadj/objectives/objective.hpp"

namespace flexadj::objectives {

class ConstraintSet {
 public:
  // steps: N, the number of steps of every forward run (fixed: a path constraint has N + 1 values).
  ConstraintSet(std::vector<ConstraintTerm> terms, long long steps);
  const std::vector<ConstraintTerm>& terms() const { return terms_; }
  std::size_t size() const { return size_; }
  std::size_t offset(std::size_t i) const { return offsets_[i]; }
  std::size_t count(std::size_t i) const { return terms_[i].path() ? steps_ + 1 : 1; }
  // Lower and upper bound of every value (equal bounds for an equality).
  std::vector<double> lower() const;
  std::vector<double> upper() const;

  // c during a forward run: begin(), observe(n) for every step n = 0 .. N in order, finish() with the last step's
  // time and state (collective). No allocation after the first run.
  void begin();
  void observe(const assembly::Assembler& assembler, std::size_t n, const assembly::State& state);
  void finish(const assembly::Assembler& assembler, const std::vector<double>& times, const assembly::State& last);
  const std::vector<double>& values() const { return values_; }

  // sum_i lambda_i c_i as an objective (lambda: size() multipliers): its discrete adjoint gives J_c^T lambda.
  Objective weighted(const std::vector<double>& lambda) const;
  // The largest violation of a bound, max_i max(c_i - upper_i, lower_i - c_i, 0) (0: feasible).
  double violation(const std::vector<double>& c) const;

 private:
  std::vector<ConstraintTerm> terms_;
  std::vector<Objective> measured_;  // each constraint's quantity as an objective of weight 1
  std::vector<std::size_t> offsets_;
  std::size_t steps_ = 0, size_ = 0;
  std::vector<double> local_, values_;
};

}  // namespace flexadj::objectives
