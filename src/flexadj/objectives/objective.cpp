#include "flexadj/objectives/objective.hpp"

#include <Sacado_No_Kokkos.hpp>
#include <Teuchos_CommHelpers.hpp>

#include <algorithm>

#include "flexadj/functions/control_signal.hpp"
#include "flexadj/model/body.hpp"
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

// The sensor value of a term from its body's coordinates q and velocities v (model/body.hpp kinematics).
template <class S>
S sensor_value(const ObjectiveTerm& term, model::BodyKind kind, const S* q, const S* v) {
  model::Vec3<S> x;
  switch (term.quantity) {
    case ObjectiveTerm::Quantity::Position: x = model::point_position(kind, q, term.sensor_point); break;
    case ObjectiveTerm::Quantity::Velocity: x = model::point_velocity(kind, q, v, term.sensor_point); break;
    case ObjectiveTerm::Quantity::AngularVelocity: x = model::angular_velocity(kind, q, v); break;
    case ObjectiveTerm::Quantity::Direction: x = model::multiply(model::body_rotation(kind, q), term.sensor_point); break;
  }
  return x[term.sensor_component];
}

constexpr int kMaxBodyCoordinates = 7;
using SensorFad = Sacado::Fad::SFad<double, 2 * kMaxBodyCoordinates>;

// Local index of the first coordinate of the sensor's body, -1 if another rank owns the body (a body's
// coordinates are owned by one rank, DofMap).
int sensor_offset(const assembly::Assembler& assembler, const ObjectiveTerm& term) {
  return owned_index(assembler, assembler.model().body_offset(term.sensor_body));
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
  if (term.sensor_body >= 0) {
    const int first = sensor_offset(assembler, term);
    if (first < 0) return false;
    x = sensor_value(term, assembler.model().body(term.sensor_body).kind, state.q.data() + first,
                     state.v.data() + first);
    return true;
  }
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
    void begin_recording() override {}
    void record(long long, double, const assembly::State&) override {}
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
                             const assembly::State& state, std::vector<double>& dq, std::vector<double>& dv,
                             Partials partials) const {
  const std::size_t last = times.size() - 1;
  const bool terminal = partials == Partials::Terminal || (partials == Partials::Discrete && n == last);
  const double integral_weight =
      partials == Partials::Discrete ? quadrature_weight(times, n) : partials == Partials::Integrand ? 1.0 : 0.0;
  for (const auto& term : terms_) {
    if (term.kind == ObjectiveTerm::Kind::ControlEffort) continue;
    double x = 0.0;
    if (!term_value(assembler, term, state, x)) continue;
    const bool position = term.quantity == ObjectiveTerm::Quantity::Position;
    double derivative = 0.0;
    switch (term.kind) {
      case ObjectiveTerm::Kind::FinalValue: derivative = terminal ? term.weight : 0.0; break;
      case ObjectiveTerm::Kind::FinalSquare: derivative = terminal ? term.weight * (x - term.target) : 0.0; break;
      case ObjectiveTerm::Kind::Tracking:
        derivative = term.weight * integral_weight * (x - term.reference_at(times[n]));
        break;
      case ObjectiveTerm::Kind::Penalty: derivative = term.weight * integral_weight * excess(term, x); break;
      case ObjectiveTerm::Kind::ControlEffort: break;
    }
    if (term.sensor_body >= 0) {
      // Chain rule through the body kinematics: one Sacado pass with q and v seeded.
      const int first = sensor_offset(assembler, term);
      const model::BodyKind kind = assembler.model().body(term.sensor_body).kind;
      const int nb = model::coordinate_count(kind);
      std::array<SensorFad, kMaxBodyCoordinates> qf, vf;
      for (int k = 0; k < nb; ++k) {
        qf[k] = SensorFad(2 * nb, k, state.q[first + k]);
        vf[k] = SensorFad(2 * nb, nb + k, state.v[first + k]);
      }
      const SensorFad value = sensor_value(term, kind, qf.data(), vf.data());
      for (int k = 0; k < nb; ++k) {
        dq[first + k] += derivative * value.dx(k);
        dv[first + k] += derivative * value.dx(nb + k);
      }
      continue;
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
