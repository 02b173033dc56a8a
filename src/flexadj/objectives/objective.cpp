#include "flexadj/objectives/objective.hpp"
#include "flexadj/objectives/terminal_rate.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "flexadj/functions/control_signal.hpp"
#include "flexadj/model/model.hpp"
#include "flexadj/objectives/term_kernels.hpp"

namespace flexadj::objectives {
namespace {

// A sensor's body: q, v (, inertia or a).
constexpr int kMaxInputs =
    2 * kernels::kMaxBodyCoordinates + std::max(kernels::kInertiaInputs, kernels::kMaxBodyCoordinates);
using TermFad = Sacado::Fad::SFad<double, kMaxInputs>;
using ControlFad = Sacado::Fad::SFad<double, 1>;

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

// The inputs of a term's kernel (kernels::measured_quantity) at a state, with where each lives on this rank.
struct TermInputs {
  int count = 0;
  model::BodyKind body_kind = model::BodyKind::Ground;
  std::array<double, kMaxInputs> values{};
  enum class Level { Position, Velocity, Acceleration };  // which of q, v, a the input is (where its partial goes)
  std::array<int, kMaxInputs> owned{};       // local index of the input's coordinate, -1 on another rank
  std::array<Level, kMaxInputs> level{};
  int first_parameter = kMaxInputs;           // inputs from here on are the inertia parameters of a momentum sensor
};

// The term's inputs on this rank; false if this rank has no part in it. A sensor's body and a coordinate belong to
// one rank; the two coordinates of a relative term may live on different ranks, so their values are summed over the
// ranks (collective then) and every rank takes part.
bool gather_inputs(const assembly::Assembler& assembler, const ObjectiveTerm& term, const assembly::State& state,
                   TermInputs& in) {
  using Level = TermInputs::Level;
  if (term.sensor_body >= 0) {
    const int first = owned_index(assembler, assembler.model().body_offset(term.sensor_body));
    if (first < 0) return false;
    in.body_kind = assembler.model().body(term.sensor_body).kind;
    const int nb = model::coordinate_count(in.body_kind);
    in.count = 2 * nb;
    in.first_parameter = kMaxInputs;
    for (int k = 0; k < nb; ++k) {
      in.values[k] = state.q[first + k];
      in.values[nb + k] = state.v[first + k];
      in.owned[k] = in.owned[nb + k] = first + k;
      in.level[k] = Level::Position;
      in.level[nb + k] = Level::Velocity;
    }
    if (term.on_acceleration()) {  // the point's acceleration reads a as well
      for (int k = 0; k < nb; ++k) {
        in.values[2 * nb + k] = state.a[first + k];
        in.owned[2 * nb + k] = first + k;
        in.level[2 * nb + k] = Level::Acceleration;
      }
      in.count = 3 * nb;
    }
    if (term.on_momentum()) {  // the current mass and inertia (design variables change them)
      if (term.inertia_element < 0)
        throw std::logic_error("objective: a momentum sensor without its body's inertia element (inertia_element)");
      const auto& parameters = assembler.model().force_elements()[term.inertia_element]->parameters();
      in.first_parameter = in.count;
      for (int k = 0; k < kernels::kInertiaInputs; ++k) {
        in.values[in.count + k] = parameters[k];
        in.owned[in.count + k] = -1;
        in.level[in.count + k] = Level::Position;  // not a state: owned is -1
      }
      in.count += kernels::kInertiaInputs;
    }
    return true;
  }
  const long long coordinates[2] = {term.coordinate, term.relative_to};
  in.count = term.relative_to < 0 ? 1 : 2;
  in.first_parameter = kMaxInputs;
  const Level level = term.quantity == ObjectiveTerm::Quantity::Velocity       ? Level::Velocity
                      : term.quantity == ObjectiveTerm::Quantity::Acceleration ? Level::Acceleration
                                                                               : Level::Position;
  const std::vector<double>& values =
      level == Level::Velocity ? state.v : level == Level::Acceleration ? state.a : state.q;
  for (int k = 0; k < in.count; ++k) {
    const int i = owned_index(assembler, coordinates[k]);
    in.owned[k] = i;
    in.level[k] = level;
    in.values[k] = i < 0 ? 0.0 : values[i];
  }
  if (in.count == 1) return in.owned[0] >= 0;
  std::array<double, 2> sum{};
  Teuchos::reduceAll(*assembler.comm(), Teuchos::REDUCE_SUM, 2, in.values.data(), sum.data());
  in.values[0] = sum[0];
  in.values[1] = sum[1];
  return true;
}

// Where the partial of an input goes: dq, dv or da by its level (da is given wherever a term is on accelerations).
std::vector<double>& level_part(TermInputs::Level level, std::vector<double>& dq, std::vector<double>& dv,
                                std::vector<double>* da) {
  if (level == TermInputs::Level::Acceleration) {
    if (!da) throw std::logic_error("Objective: a term on accelerations, and no dJ/da to put its partial in");
    return *da;
  }
  return level == TermInputs::Level::Velocity ? dv : dq;
}

// A momentum sensor's mass and inertia inputs (from inputs.first_parameter on): their direction is the design's
// in `along`, where wanted (mask), else zero (held). Returns the parameters' offset in the gradient, -1 for other
// terms or none wanted.
int momentum_parameter_directions(const ObjectiveTerm& term, const TermInputs& inputs,
                                  const assembly::LocalGradient* along, TermInputs& directions,
                                  model::ParameterMask& mask) {
  const int offset = term.on_momentum() ? along->force_offsets[term.inertia_element] : -1;
  mask = offset >= 0 ? along->force_masks[term.inertia_element] : 0;
  for (int k = inputs.first_parameter; k < inputs.count; ++k) {
    const int parameter = k - inputs.first_parameter;
    const bool wanted = mask & (model::ParameterMask(1) << parameter);
    directions.values[k] = wanted ? along->parameters[offset + parameter] : 0.0;
  }
  return offset;
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
  const auto& times = trajectory.step_times();
  std::vector<double> parts(times.size());
  for (std::size_t n = 0; n < times.size(); ++n) parts[n] = local_step_value(assembler, times, n, trajectory.step(n));
  return total(assembler, times, parts);
}

double Objective::local_step_value(const assembly::Assembler& assembler, const std::vector<double>& times,
                                   std::size_t n, const assembly::State& state) const {
  // J = sum_n w_n h(x_n, t_n) + S(x_N) (kernels::integrand, kernels::terminal).
  const std::size_t last = times.size() - 1;
  const bool root = assembler.comm()->getRank() == 0;
  const double weight = quadrature_weight(times, n);
  double local = 0.0;
  TermInputs inputs;
  for (const auto& term : terms_) {
    if (term.kind == ObjectiveTerm::Kind::FinalTime && n == last && root) local += term.weight * times[n];
    if (!term.on_states()) continue;
    if (!gather_inputs(assembler, term, state, inputs)) continue;
    // A relative term is known on every rank: count it on rank 0.
    if (term.relative_to >= 0 && !root) continue;
    const double x = kernels::measured_quantity(term, inputs.body_kind, inputs.values.data());
    local += weight * kernels::integrand(term, x, times[n]) + kernels::step_term(term, x, n);
    if (n == last) local += kernels::terminal(term, x);
  }
  return local;
}

double Objective::total(const assembly::Assembler& assembler, const std::vector<double>& times,
                        const std::vector<double>& local_step_values) const {
  const std::size_t last = times.size() - 1;
  double local = 0.0;
  for (double part : local_step_values) local += part;
  // Control effort: computed on rank 0 only (it does not depend on the distributed states).
  if (assembler.comm()->getRank() == 0)
    for (const auto& term : terms_) {
      if (term.kind != ObjectiveTerm::Kind::ControlEffort) continue;
      const auto signal = assembler.model().find_control(term.control);
      for (std::size_t n = 0; n <= last; ++n)
        local += quadrature_weight(times, n) * kernels::integrand(term, signal->value(times[n]), times[n]);
    }
  double global = 0.0;
  Teuchos::reduceAll(*assembler.comm(), Teuchos::REDUCE_SUM, local, Teuchos::outArg(global));
  return global;
}

void Objective::add_partials(const assembly::Assembler& assembler, const std::vector<double>& times, std::size_t n,
                             const assembly::State& state, std::vector<double>& dq, std::vector<double>& dv,
                             Partials partials, assembly::LocalGradient* gradient, std::vector<double>* da) const {
  if (!da && on_accelerations())
    throw std::logic_error("Objective::add_partials: a term on accelerations, and no dJ/da to put its partial in");
  const std::size_t last = times.size() - 1;
  const bool with_terminal = partials == Partials::Terminal || (partials == Partials::Discrete && n == last);
  const double integral_weight =
      partials == Partials::Discrete ? quadrature_weight(times, n) : partials == Partials::Integrand ? 1.0 : 0.0;
  TermInputs inputs;
  std::array<TermFad, kMaxInputs> seeded;
  for (const auto& term : terms_) {
    if (!term.on_states()) continue;
    // A StepSum is a sum over the steps of the discrete trajectory: it has no integrand or terminal form.
    if (term.kind == ObjectiveTerm::Kind::StepSum && partials != Partials::Discrete)
      throw std::logic_error("Objective::add_partials: a step sum (path constraint) needs the discrete adjoint");
    if (!gather_inputs(assembler, term, state, inputs)) continue;
    // One forward-AD pass over the kernel: d(w h + S)/d(inputs).
    for (int k = 0; k < inputs.count; ++k) seeded[k] = TermFad(inputs.count, k, inputs.values[k]);
    const TermFad x = kernels::measured_quantity(term, inputs.body_kind, seeded.data());
    TermFad j = integral_weight * kernels::integrand(term, x, times[n]);
    if (partials == Partials::Discrete) j += kernels::step_term(term, x, n);
    if (with_terminal) j += kernels::terminal(term, x);
    for (int k = 0; k < inputs.count; ++k)
      if (inputs.owned[k] >= 0) {
        level_part(inputs.level[k], dq, dv, da)[inputs.owned[k]] += j.dx(k);
      }
    // dJ/d(mass, inertia) of a momentum sensor, where the design wants them (the body's rank only).
    const int offset = gradient && term.on_momentum() ? gradient->force_offsets[term.inertia_element] : -1;
    if (offset < 0) continue;
    const model::ParameterMask mask = gradient->force_masks[term.inertia_element];
    for (int k = 0; k < kernels::kInertiaInputs; ++k)
      if (mask & (model::ParameterMask(1) << k))
        gradient->parameters[offset + k] += j.dx(inputs.first_parameter + k);
  }
}

void Objective::add_partials_tangent(const assembly::Assembler& assembler, const std::vector<double>& times,
                                     std::size_t n, const assembly::State& state, const assembly::State& tangent,
                                     std::vector<double>& dq_dot, std::vector<double>& dv_dot,
                                     std::vector<double>* da_dot, const assembly::LocalGradient* along,
                                     assembly::LocalGradient* gradient_dot) const {
  using Nested = Sacado::Fad::SFad<ControlFad, kMaxInputs>;  // outer: the inputs; inner: the direction e
  const std::size_t last = times.size() - 1;
  const double weight = quadrature_weight(times, n);
  TermInputs inputs, directions;
  std::array<Nested, kMaxInputs> seeded;
  for (const auto& term : terms_) {
    if (!term.on_states()) continue;
    if (term.on_momentum() && !(along && gradient_dot))
      throw std::logic_error("Objective::add_partials_tangent: a momentum sensor, and no parameter direction");
    if (term.on_acceleration() && !da_dot)
      throw std::logic_error("Objective::add_partials_tangent: a term on accelerations, and no da_dot");
    const bool here = gather_inputs(assembler, term, state, inputs);
    gather_inputs(assembler, term, tangent, directions);  // the same collectives as the line above
    if (!here) continue;
    model::ParameterMask mask = 0;
    const int offset = momentum_parameter_directions(term, inputs, along, directions, mask);
    for (int k = 0; k < inputs.count; ++k) {
      ControlFad value(1, 0, inputs.values[k]);
      value.fastAccessDx(0) = directions.values[k];
      seeded[k] = Nested(inputs.count, k, value);
    }
    const Nested x = kernels::measured_quantity(term, inputs.body_kind, seeded.data());
    Nested j = weight * kernels::integrand(term, x, times[n]);
    j += kernels::step_term(term, x, n);
    if (n == last) j += kernels::terminal(term, x);
    for (int k = 0; k < inputs.count; ++k)
      if (inputs.owned[k] >= 0) level_part(inputs.level[k], dq_dot, dv_dot, da_dot)[inputs.owned[k]] += j.dx(k).dx(0);
    for (int k = 0; offset >= 0 && k < kernels::kInertiaInputs; ++k)
      if (mask & (model::ParameterMask(1) << k))
        gradient_dot->parameters[offset + k] += j.dx(inputs.first_parameter + k).dx(0);
  }
}

void Objective::add_control_gradient_tangent(const model::Model& model, const std::vector<double>& times,
                                             const std::map<std::string, std::vector<double>>& control_dots,
                                             std::map<std::string, std::vector<double>>& controls) const {
  using Nested = Sacado::Fad::SFad<ControlFad, 1>;
  for (const auto& term : terms_) {
    if (term.kind != ObjectiveTerm::Kind::ControlEffort) continue;
    const auto signal = model.find_control(term.control);
    const std::vector<double>& u_dot = control_dots.at(term.control);
    auto& gradient = controls.at(term.control);
    for (std::size_t n = 0; n < times.size(); ++n) {
      const auto w = signal->weights(times[n]);
      ControlFad u(1, 0, signal->value(times[n]));
      u.fastAccessDx(0) = w.w0 * u_dot[w.k0] + w.w1 * u_dot[w.k1];
      const double d = (quadrature_weight(times, n) * kernels::integrand(term, Nested(1, 0, u), times[n])).dx(0).dx(0);
      gradient[w.k0] += w.w0 * d;
      gradient[w.k1] += w.w1 * d;
    }
  }
}

std::string Objective::least_squares_refusal() const {
  static const char* const kTypes[] = {"final_value", "final_square", "tracking", "penalty", "control_effort",
                                       "final_time"};
  for (std::size_t i = 0; i < terms_.size(); ++i) {
    const ObjectiveTerm& term = terms_[i];
    const std::string which =
        "objective[" + std::to_string(i) + "] (type " + kTypes[static_cast<int>(term.kind)] + ")";
    if (!kernels::least_squares(term))
      return which + " is not a weighted square w/2 r^2 of a residual (tracking, final_square, penalty and "
                     "control_effort are)";
    if (!(term.weight >= 0.0)) return which + " has a negative weight " + std::to_string(term.weight);
  }
  return {};
}

void Objective::add_gauss_newton_partials(const assembly::Assembler& assembler, const std::vector<double>& times,
                                          std::size_t n, const assembly::State& state,
                                          const assembly::State& tangent, std::vector<double>& dq,
                                          std::vector<double>& dv, std::vector<double>* da,
                                          const assembly::LocalGradient* along,
                                          assembly::LocalGradient* gradient) const {
  // Term w/2 r(x(s))^2 with inputs s: the Gauss-Newton part of its Hessian is c w r_s^T r_s, so the product with
  // s_dot is c w r_s (r_s . s_dot) (c: the trapezoidal weight, 1 for the terminal term at the last step).
  const std::size_t last = times.size() - 1;
  const double weight = quadrature_weight(times, n);
  TermInputs inputs, directions;
  std::array<TermFad, kMaxInputs> seeded;
  for (const auto& term : terms_) {
    if (!term.on_states()) continue;
    if (!kernels::least_squares(term) || (term.on_momentum() && !(along && gradient)) ||
        (term.on_acceleration() && !da))
      throw std::logic_error("Objective::add_gauss_newton_partials: a term that is not a weighted square of q, v, a");
    const bool here = gather_inputs(assembler, term, state, inputs);
    gather_inputs(assembler, term, tangent, directions);  // the same collectives as the line above
    if (!here) continue;
    model::ParameterMask mask = 0;
    const int offset = momentum_parameter_directions(term, inputs, along, directions, mask);
    const bool terminal = term.kind == ObjectiveTerm::Kind::FinalSquare;
    if (terminal && n != last) continue;
    const double c = terminal ? 1.0 : weight;
    for (int k = 0; k < inputs.count; ++k) seeded[k] = TermFad(inputs.count, k, inputs.values[k]);
    const TermFad r = kernels::residual(term, kernels::measured_quantity(term, inputs.body_kind, seeded.data()),
                                        times[n]);
    double r_dot = 0.0;  // J_r s_dot
    for (int k = 0; k < inputs.count; ++k) r_dot += r.dx(k) * directions.values[k];
    for (int k = 0; k < inputs.count; ++k)
      if (inputs.owned[k] >= 0)
        level_part(inputs.level[k], dq, dv, da)[inputs.owned[k]] += c * term.weight * r.dx(k) * r_dot;
    for (int k = 0; offset >= 0 && k < kernels::kInertiaInputs; ++k)
      if (mask & (model::ParameterMask(1) << k))
        gradient->parameters[offset + k] += c * term.weight * r.dx(inputs.first_parameter + k) * r_dot;
  }
}

void Objective::add_weighted_residuals(const assembly::Assembler& assembler, const std::vector<double>& times,
                                       std::size_t n, const assembly::State& state,
                                       std::vector<double>& residuals) const {
  const std::size_t last = times.size() - 1;
  const bool root = assembler.comm()->getRank() == 0;
  TermInputs inputs;
  for (const auto& term : terms_) {
    if (!term.on_states() || !kernels::least_squares(term)) continue;
    if (!gather_inputs(assembler, term, state, inputs)) continue;
    if (term.relative_to >= 0 && !root) continue;
    const bool terminal = term.kind == ObjectiveTerm::Kind::FinalSquare;
    if (terminal && n != last) continue;
    const double c = terminal ? 1.0 : quadrature_weight(times, n);
    const double x = kernels::measured_quantity(term, inputs.body_kind, inputs.values.data());
    residuals.push_back(std::sqrt(c * term.weight) * kernels::residual(term, x, times[n]));
  }
}

void Objective::add_weighted_control_residuals(const model::Model& model, const std::vector<double>& times,
                                               std::vector<double>& residuals) const {
  for (const auto& term : terms_) {
    if (term.kind != ObjectiveTerm::Kind::ControlEffort) continue;
    const auto signal = model.find_control(term.control);
    for (std::size_t n = 0; n < times.size(); ++n)
      residuals.push_back(std::sqrt(quadrature_weight(times, n) * term.weight) * signal->value(times[n]));
  }
}

bool Objective::on_accelerations() const {
  return std::any_of(terms_.begin(), terms_.end(), [](const ObjectiveTerm& t) { return t.on_acceleration(); });
}

bool Objective::depends_on_parameters() const {
  return std::any_of(terms_.begin(), terms_.end(), [](const ObjectiveTerm& t) { return t.on_momentum(); });
}

void Objective::add_control_gradient(const model::Model& model, const std::vector<double>& times,
                                     std::map<std::string, std::vector<double>>& controls) const {
  for (const auto& term : terms_) {
    if (term.kind != ObjectiveTerm::Kind::ControlEffort) continue;
    const auto signal = model.find_control(term.control);
    auto& gradient = controls.at(term.control);
    for (std::size_t n = 0; n < times.size(); ++n) {
      // d(w_n h(u))/du by the same kernel, then onto the signal's values by its interpolation weights.
      const ControlFad u(1, 0, signal->value(times[n]));
      const double d = (quadrature_weight(times, n) * kernels::integrand(term, u, times[n])).dx(0);
      const auto w = signal->weights(times[n]);
      gradient[w.k0] += w.w0 * d;
      gradient[w.k1] += w.w1 * d;
    }
  }
}

double Objective::terminal_value(const assembly::Assembler& assembler, const assembly::State& state) const {
  const double local = local_terminal_value(assembler, state);
  double global = 0.0;
  Teuchos::reduceAll(*assembler.comm(), Teuchos::REDUCE_SUM, local, Teuchos::outArg(global));
  return global;
}

double Objective::local_terminal_value(const assembly::Assembler& assembler, const assembly::State& state) const {
  const bool root = assembler.comm()->getRank() == 0;
  double local = 0.0;
  TermInputs inputs;
  for (const auto& term : terms_) {
    if (!term.on_states() || !gather_inputs(assembler, term, state, inputs)) continue;
    if (term.relative_to >= 0 && !root) continue;
    local += kernels::terminal(term, kernels::measured_quantity(term, inputs.body_kind, inputs.values.data()));
  }
  return local;
}

void Objective::add_terminal_partials(const assembly::Assembler& assembler, const assembly::State& state,
                                      std::vector<double>& dq, std::vector<double>& dv) const {
  static const std::vector<double> kOneTime{0.0};  // the terminal partials read no time
  add_partials(assembler, kOneTime, 0, state, dq, dv, Partials::Terminal);
}

double Objective::local_step_time_derivative(const assembly::Assembler& assembler, const std::vector<double>& times,
                                             std::size_t n, const assembly::State& state,
                                             const std::vector<double>& dt) const {
  // d/dtheta [w_n h(x_n, t_n)] with the states held: w_n = (t_{n+1} - t_{n-1})/2 (one-sided at the ends), so
  // dw_n = (dt_{n+1} - dt_{n-1})/2; the final-time term weight * dt_N.
  const std::size_t last = times.size() - 1;
  const bool root = assembler.comm()->getRank() == 0;
  const double dw = last == 0 ? 0.0 : 0.5 * ((n < last ? dt[n + 1] : dt[n]) - (n > 0 ? dt[n - 1] : dt[n]));
  const double weight = quadrature_weight(times, n);
  double local = 0.0;
  TermInputs inputs;
  for (const auto& term : terms_) {
    if (term.kind == ObjectiveTerm::Kind::FinalTime && n == last && root) local += term.weight * dt[n];
    if (!term.on_states() || !gather_inputs(assembler, term, state, inputs)) continue;
    if (term.relative_to >= 0 && !root) continue;
    const double x = kernels::measured_quantity(term, inputs.body_kind, inputs.values.data());
    const ControlFad t(1, 0, times[n]);
    const ControlFad h = kernels::integrand(term, ControlFad(x), t);
    local += dw * h.val() + weight * h.dx(0) * dt[n];
  }
  return local;
}

double local_integrand_value(const Objective& objective, const assembly::Assembler& assembler, double t,
                             const assembly::State& state) {
  const bool root = assembler.comm()->getRank() == 0;
  double local = 0.0;
  TermInputs inputs;
  for (const auto& term : objective.terms()) {
    if (term.kind == ObjectiveTerm::Kind::ControlEffort && root)
      local += kernels::integrand(term, assembler.model().find_control(term.control)->value(t), t);
    if (!term.on_states() || !gather_inputs(assembler, term, state, inputs)) continue;
    if (term.relative_to >= 0 && !root) continue;
    local += kernels::integrand(term, kernels::measured_quantity(term, inputs.body_kind, inputs.values.data()), t);
  }
  return local;
}

double final_time_weight(const Objective& objective) {
  double weight = 0.0;
  for (const auto& term : objective.terms())
    if (term.kind == ObjectiveTerm::Kind::FinalTime) weight += term.weight;
  return weight;
}

double Objective::control_time_derivative(const assembly::Assembler& assembler, const std::vector<double>& times,
                                          const std::vector<double>& dt) const {
  if (assembler.comm()->getRank() != 0) return 0.0;
  const std::size_t last = times.size() - 1;
  double sum = 0.0;
  for (const auto& term : terms_) {
    if (term.kind != ObjectiveTerm::Kind::ControlEffort || last == 0) continue;
    const auto signal = assembler.model().find_control(term.control);
    for (std::size_t n = 0; n <= last; ++n) {
      const double dw = 0.5 * ((n < last ? dt[n + 1] : dt[n]) - (n > 0 ? dt[n - 1] : dt[n]));
      const ControlFad t(1, 0, times[n]);
      const ControlFad h = kernels::integrand(term, signal->value(t), t);
      sum += dw * h.val() + quadrature_weight(times, n) * h.dx(0) * dt[n];
    }
  }
  return sum;
}

}  // namespace flexadj::objectives
