#include "flexadj/integrators/registry.hpp"

#include <algorithm>
#include <stdexcept>

#include "flexadj/integrators/generalized_alpha.hpp"
#include "flexadj/integrators/hamiltonian.hpp"
#include "flexadj/integrators/joint_hamiltonian.hpp"
#include "flexadj/integrators/joint_midpoint_variational.hpp"
#include "flexadj/integrators/null_space_variational.hpp"
#include "flexadj/integrators/state_space.hpp"
#include "flexadj/integrators/variational.hpp"

namespace flexadj::integrators {
namespace {

template <class Integrator>
IntegratorFactory factory() {
  return [](assembly::Assembler& assembler, const IntegratorSettings& settings,
            const linalg::LinearSolverOptions& options) -> std::unique_ptr<TimeIntegrator> {
    return std::make_unique<Integrator>(assembler, settings, options);
  };
}

IntegratorFactory generalized_alpha_factory(GeneralizedAlpha::Variant variant) {
  return [variant](assembly::Assembler& assembler, const IntegratorSettings& settings,
                   const linalg::LinearSolverOptions& options) -> std::unique_ptr<TimeIntegrator> {
    return std::make_unique<GeneralizedAlpha>(assembler, settings, options, variant);
  };
}

// Capabilities of the families below.
IntegratorCapabilities damped_implicit(double min_spectral_radius) {  // generalized-alpha, HHT
  IntegratorCapabilities c;
  c.continuous_adjoint = ContinuousAdjoint::Dae;
  c.non_holonomic = c.error_controlled_steps = c.spectral_radius = c.second_order_adjoint = true;
  c.min_spectral_radius = min_spectral_radius;
  return c;
}
IntegratorCapabilities variational(bool joint_coordinates, bool trapezoidal) {
  IntegratorCapabilities c;
  c.multiple_ranks = c.final_time = c.second_order_adjoint = !joint_coordinates;
  c.trapezoidal_lagrangians = trapezoidal;
  c.no_spectral_radius_reason = "it has no numerical damping by construction";
  return c;
}
IntegratorCapabilities explicit_heun(ContinuousAdjoint adjoint, bool joint_coordinates) {
  IntegratorCapabilities c;
  c.continuous_adjoint = adjoint;
  c.multiple_ranks = !joint_coordinates;
  c.no_spectral_radius_reason = "an explicit Runge-Kutta method without parameters";
  return c;
}

IntegratorCapabilities hamiltonian_absolute() {
  IntegratorCapabilities c = explicit_heun(ContinuousAdjoint::Dae, false);
  c.hamiltonian_continuous_adjoint = true;
  return c;
}

}  // namespace

const std::vector<IntegratorKind>& integrator_kinds() {
  using GA = GeneralizedAlpha;
  static const std::vector<IntegratorKind> kinds = {
      {"generalized_alpha", "absolute", "generalized-alpha", generalized_alpha_factory(GA::Variant::ChungHulbert),
       damped_implicit(0.0)},
      {"hht", "absolute", "HHT", generalized_alpha_factory(GA::Variant::Hht), damped_implicit(0.5)},
      {"variational", "absolute", "midpoint variational integrator (RATTLE)", factory<Variational>(),
       variational(false, true)},
      {"variational", "joint", "midpoint variational integrator (null-space form, joint coordinates)",
       factory<NullSpaceVariational>(), variational(true, false)},
      {"variational", "joint_midpoint", "midpoint variational integrator (midpoint rule in joint coordinates)",
       factory<JointMidpointVariational>(), variational(true, false)},
      {"state_space", "absolute", "state-space form, Heun with projection", factory<StateSpace>(),
       explicit_heun(ContinuousAdjoint::StateSpaceOde, false)},
      {"hamiltonian", "absolute", "constrained Hamiltonian equations (absolute coordinates, Heun with projection)",
       factory<Hamiltonian>(), hamiltonian_absolute()},
      {"hamiltonian", "joint", "constrained Hamiltonian equations (joint coordinates, Heun)",
       factory<JointHamiltonian>(), explicit_heun(ContinuousAdjoint::JointSpaceOde, true)},
  };
  return kinds;
}

namespace {

std::vector<std::string> distinct(std::string IntegratorKind::*field) {
  std::vector<std::string> values;
  for (const IntegratorKind& kind : integrator_kinds()) {
    bool seen = false;
    for (const std::string& v : values) seen = seen || v == kind.*field;
    if (!seen) values.push_back(kind.*field);
  }
  return values;
}

}  // namespace

std::vector<std::string> integrator_types() { return distinct(&IntegratorKind::type); }

std::vector<std::string> integrator_coordinates() { return distinct(&IntegratorKind::coordinates); }

const IntegratorKind* find_integrator_kind(const std::string& type, const std::string& coordinates) {
  for (const IntegratorKind& kind : integrator_kinds())
    if (kind.type == type && kind.coordinates == coordinates) return &kind;
  return nullptr;
}

bool takes_joint_coordinates(const std::string& type) {
  for (const IntegratorKind& kind : integrator_kinds())
    if (kind.type == type && kind.joint_coordinates()) return true;
  return false;
}

std::string coordinates_of(const IntegratorSettings& settings) {
  return settings.joint_midpoint ? "joint_midpoint" : settings.joint_coordinates ? "joint" : "absolute";
}

void set_coordinates(IntegratorSettings& settings, const std::string& coordinates) {
  settings.joint_coordinates = coordinates != "absolute";
  settings.joint_midpoint = coordinates == "joint_midpoint";
}

const IntegratorKind& integrator_kind(const IntegratorSettings& settings) {
  const IntegratorKind* kind = find_integrator_kind(settings.scheme, coordinates_of(settings));
  if (!kind)
    throw std::invalid_argument("no integrator of type '" + settings.scheme + "' with coordinates " +
                                coordinates_of(settings));
  return *kind;
}

std::string types_with(const std::function<bool(const IntegratorKind&)>& capability, const std::string& conjunction) {
  std::vector<std::string> types;
  for (const IntegratorKind& kind : integrator_kinds()) {
    if (!capability(kind)) continue;
    bool seen = false;
    for (const std::string& t : types) seen = seen || t == kind.type;
    if (!seen) types.push_back(kind.type);
  }
  std::sort(types.begin(), types.end());
  std::string text;
  for (std::size_t i = 0; i < types.size(); ++i)
    text += (i == 0 ? "" : i + 1 == types.size() ? " " + conjunction + " " : ", ") + types[i];
  return text;
}

}  // namespace flexadj::integrators
