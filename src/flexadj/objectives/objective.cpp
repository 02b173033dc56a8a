#include "flexadj/objectives/objective.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <algorithm>

#include "flexadj/functions/control_signal.hpp"
#include "flexadj/model/model.hpp"

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

// C1 exterior penalty: the excess beyond the bounds (0 inside).
double excess(const ObjectiveTerm& term, double x) {
  if (x > term.upper) return x - term.upper;
  if (x < term.lower) return x - term.lower;
  return 0.0;
}

// x of a term at this state on every rank: the owned coordinate, or, for a relative term whose two
// coordinates may live on different ranks, the difference summed over the ranks (collective then).
// Returns false if this rank neither owns the coordinate nor the term is relative.
bool term_value(const assembly::Assembler& assembler, const ObjectiveTerm& term, const assembly::State& state,
                double& x) {
  const bool position = term.quantity == ObjectiveTerm::Quantity::Position;
  const auto entry = [&](long long coordinate) {
    const int i = owned_index(assembler, coordinate);
    return i < 0 ? 0.0 : (position ? state.q[i] : state.v[i]);
  };
  if (term.relative_to < 0) {
    const int i = owned_index(assembler, term.coordinate);
    if (i < 0) return false;
    x = position ? state.q[i] : state.v[i];
    return true;
  }
  const double local = entry(term.coordinate) - entry(term.relative_to);
  Teuchos::reduceAll(*assembler.comm(), Teuchos::REDUCE_SUM, local, Teuchos::outArg(x));
  return true;
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
      if (term.kind == ObjectiveTerm::Kind::ControlEffort) continue;
      double x = 0.0;
      if (!term_value(assembler, term, state, x)) continue;
      // A relative term is known on every rank: count it on rank 0.
      if (term.relative_to >= 0 && assembler.comm()->getRank() != 0) continue;
      switch (term.kind) {
        case ObjectiveTerm::Kind::FinalValue:
          if (n == last) local += term.weight * x;
          break;
        case ObjectiveTerm::Kind::FinalSquare:
          if (n == last) local += 0.5 * term.weight * (x - term.target) * (x - term.target);
          break;
        case ObjectiveTerm::Kind::Tracking: {
          const double e = x - term.reference_at(times[n]);
          local += 0.5 * term.weight * quadrature_weight(times, n) * e * e;
          break;
        }
        case ObjectiveTerm::Kind::Penalty: {
          const double e = excess(term, x);
          local += 0.5 * term.weight * quadrature_weight(times, n) * e * e;
          break;
        }
        case ObjectiveTerm::Kind::ControlEffort: break;
      }
    }
  }
  // Control effort: computed on rank 0 only (it does not depend on the distributed states).
  if (assembler.comm()->getRank() == 0)
    for (const auto& term : terms_) {
      if (term.kind != ObjectiveTerm::Kind::ControlEffort) continue;
      const auto signal = assembler.model().find_control(term.control);
      for (std::size_t n = 0; n <= last; ++n) {
        const double u = signal->value(times[n]);
        local += 0.5 * term.weight * quadrature_weight(times, n) * u * u;
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
    if (term.kind == ObjectiveTerm::Kind::ControlEffort) continue;
    double x = 0.0;
    if (!term_value(assembler, term, state, x)) continue;
    const bool position = term.quantity == ObjectiveTerm::Quantity::Position;
    double derivative = 0.0;
    switch (term.kind) {
      case ObjectiveTerm::Kind::FinalValue: derivative = n == last ? term.weight : 0.0; break;
      case ObjectiveTerm::Kind::FinalSquare: derivative = n == last ? term.weight * (x - term.target) : 0.0; break;
      case ObjectiveTerm::Kind::Tracking:
        derivative = term.weight * quadrature_weight(times, n) * (x - term.reference_at(times[n]));
        break;
      case ObjectiveTerm::Kind::Penalty: derivative = term.weight * quadrature_weight(times, n) * excess(term, x); break;
      case ObjectiveTerm::Kind::ControlEffort: break;
    }
    std::vector<double>& target = position ? dq : dv;
    const int i = owned_index(assembler, term.coordinate);
    if (i >= 0) target[i] += derivative;
    if (term.relative_to >= 0) {
      const int j = owned_index(assembler, term.relative_to);
      if (j >= 0) target[j] -= derivative;
    }
  }
}

void Objective::add_control_gradient(const model::Model& model, const std::vector<double>& times,
                                     std::map<std::string, std::vector<double>>& controls) const {
  for (const auto& term : terms_) {
    if (term.kind != ObjectiveTerm::Kind::ControlEffort) continue;
    const auto signal = model.find_control(term.control);
    auto& gradient = controls.at(term.control);
    for (std::size_t n = 0; n < times.size(); ++n) {
      const double d = term.weight * quadrature_weight(times, n) * signal->value(times[n]);
      const auto w = signal->weights(times[n]);
      gradient[w.k0] += w.w0 * d;
      gradient[w.k1] += w.w1 * d;
    }
  }
}

}  // namespace flexadj::objectives
