#include "flexadj/objectives/objective.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <algorithm>

namespace flexadj::objectives {
namespace {

// Local index of an owned coordinate, -1 if another rank owns it.
int owned_index(const assembly::Assembler& assembler, long long coordinate) {
  const auto& owned = assembler.dofs().owned_coordinates();
  const auto it = std::lower_bound(owned.begin(), owned.end(), coordinate);
  return it != owned.end() && *it == coordinate ? static_cast<int>(it - owned.begin()) : -1;
}

// Trapezoidal weight of step n.
double quadrature_weight(const std::vector<double>& times, std::size_t n) {
  const std::size_t last = times.size() - 1;
  if (last == 0) return 0.0;
  const double left = n > 0 ? times[n] - times[n - 1] : 0.0;
  const double right = n < last ? times[n + 1] - times[n] : 0.0;
  return 0.5 * (left + right);
}

}  // namespace

double Objective::value(const assembly::Assembler& assembler, const std::vector<double>& times,
                        const std::vector<assembly::State>& states) const {
  // A view of the vectors as a trajectory, without copying the states.
  struct View final : storage::Trajectory {
    const std::vector<double>& times;
    const std::vector<assembly::State>& states;
    View(const std::vector<double>& t, const std::vector<assembly::State>& s) : times(t), states(s) {}
    const std::vector<double>& step_times() const override { return times; }
    const assembly::State& step(std::size_t n) override { return states.at(n); }
  } view(times, states);
  return value(assembler, view);
}

double Objective::value(const assembly::Assembler& assembler, storage::Trajectory& trajectory) const {
  // J = sum_n j_n with j_n = the partial-derivative terms integrated: evaluate each step's contribution.
  const auto& times = trajectory.step_times();
  const std::size_t last = times.size() - 1;
  double local = 0.0;
  for (std::size_t n = 0; n <= last; ++n) {
    const assembly::State& state = trajectory.step(n);
    for (const auto& term : terms_) {
      const int i = owned_index(assembler, term.coordinate);
      if (i < 0) continue;
      const double x = term.quantity == CoordinateTerm::Quantity::Position ? state.q[i] : state.v[i];
      switch (term.kind) {
        case CoordinateTerm::Kind::FinalValue:
          if (n == last) local += term.weight * x;
          break;
        case CoordinateTerm::Kind::FinalSquare:
          if (n == last) local += 0.5 * term.weight * (x - term.target) * (x - term.target);
          break;
        case CoordinateTerm::Kind::Tracking: {
          const double e = x - term.reference(times[n]);
          local += 0.5 * term.weight * quadrature_weight(times, n) * e * e;
          break;
        }
      }
    }
  }
  double global = 0.0;
  Teuchos::reduceAll(*assembler.comm(), Teuchos::REDUCE_SUM, local, Teuchos::outArg(global));
  return global;
}

void Objective::add_partials(const assembly::Assembler& assembler, const std::vector<double>& times, std::size_t n,
                             const assembly::State& state, std::vector<double>& dq, std::vector<double>& dv) const {
  const std::size_t last = times.size() - 1;
  for (const auto& term : terms_) {
    const int i = owned_index(assembler, term.coordinate);
    if (i < 0) continue;
    const bool position = term.quantity == CoordinateTerm::Quantity::Position;
    const double x = position ? state.q[i] : state.v[i];
    double derivative = 0.0;
    switch (term.kind) {
      case CoordinateTerm::Kind::FinalValue: derivative = n == last ? term.weight : 0.0; break;
      case CoordinateTerm::Kind::FinalSquare: derivative = n == last ? term.weight * (x - term.target) : 0.0; break;
      case CoordinateTerm::Kind::Tracking:
        derivative = term.weight * quadrature_weight(times, n) * (x - term.reference(times[n]));
        break;
    }
    (position ? dq : dv)[i] += derivative;
  }
}

}  // namespace flexadj::objectives
