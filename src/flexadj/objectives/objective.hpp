#pragma once
// Objectives as weighted sums of terms on the discrete trajectory, J = sum_n j_n(q_n, v_n), with the
// trapezoidal rule in time for integrals, so that J is a function of the discrete states.
#include <vector>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/functions/expression.hpp"

namespace flexadj::objectives {

struct CoordinateTerm {
  enum class Kind {
    FinalValue,   // weight * x(t_N)
    FinalSquare,  // weight/2 * (x(t_N) - target)^2
    Tracking      // weight/2 * integral of (x(t) - reference(t))^2 dt
  };
  enum class Quantity { Position, Velocity };
  Kind kind = Kind::FinalValue;
  Quantity quantity = Quantity::Position;
  long long coordinate = 0;  // global coordinate id
  double weight = 1.0;
  double target = 0.0;
  functions::Expression reference;
};

class Objective {
 public:
  void add(const CoordinateTerm& term) { terms_.push_back(term); }
  const std::vector<CoordinateTerm>& terms() const { return terms_; }

  // J of the stored trajectory (collective).
  double value(const assembly::Assembler& assembler, const std::vector<double>& times,
               const std::vector<assembly::State>& states) const;
  // dq += dJ/dq_n, dv += dJ/dv_n on the owned coordinates.
  void add_partials(const assembly::Assembler& assembler, const std::vector<double>& times, std::size_t n,
                    const assembly::State& state, std::vector<double>& dq, std::vector<double>& dv) const;

 private:
  std::vector<CoordinateTerm> terms_;
};

}  // namespace flexadj::objectives
