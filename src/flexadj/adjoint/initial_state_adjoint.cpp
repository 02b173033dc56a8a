#include "flexadj/adjoint/initial_state_adjoint.hpp"

#include <Teuchos_CommHelpers.hpp>

namespace flexadj::adjoint {
namespace {

// Sum over ranks of a vector in global numbering filled from owned entries.
std::vector<double> to_global(const std::vector<double>& owned, const std::vector<long long>& ids, long long size,
                              const Comm& comm) {
  std::vector<double> local(size, 0.0), global(size, 0.0);
  for (std::size_t i = 0; i < ids.size(); ++i) local[ids[i]] = owned[i];
  Teuchos::reduceAll(comm, Teuchos::REDUCE_SUM, static_cast<int>(size), local.data(), global.data());
  return global;
}

}  // namespace

LocalGradient::LocalGradient(const model::Model& model, const ParameterSpace& space)
    : parameters(space.size(), 0.0) {
  for (const auto& [name, signal] : model.controls()) controls[name].assign(signal->size(), 0.0);
}

void add_initial_projection_adjoint(assembly::Assembler& assembler, const integrators::InitialProjection& projection,
                                    linalg::LinearSolver& solver, const assembly::State& initial_state, double t0,
                                    const ParameterSpace& parameters, std::vector<double>& dJ_dq,
                                    std::vector<double>& dJ_dv, LocalGradient& local) {
  using assembly::ConstraintLevel;
  const std::size_t n = assembler.dofs().owned_coordinates().size(), m = assembler.dofs().owned_multipliers().size();
  Vector rhs(assembler.system_map()), solution(assembler.system_map()), mu(assembler.system_map());
  std::vector<double> rho(n), sigma(m), y_k(n), y_d(n), y_m(n);
  assembly::State projected = initial_state;
  // Solves the transposed projection system of `level` for the right-hand side [-derivative; 0].
  auto solve_projection = [&](ConstraintLevel level, const std::vector<double>& multipliers,
                              const std::vector<double>& target, const std::vector<double>& derivative) {
    projected.lambda = multipliers;
    const model::JacobianCoefficients coefficients{level == ConstraintLevel::Position ? 1.0 : 0.0, 0.0, 0.0};
    assembler.assemble(projected, t0, level, 1.0, &coefficients, &target);
    solver.update();
    {
      auto values = rhs.getDataNonConst(0);
      for (std::size_t i = 0; i < n; ++i) values[i] = -derivative[i];
      for (std::size_t k = 0; k < m; ++k) values[n + k] = 0.0;
    }
    solver.solve(rhs, solution);
    const auto x = solution.getData(0);
    for (std::size_t i = 0; i < n; ++i) rho[i] = x[i];
    for (std::size_t k = 0; k < m; ++k) sigma[k] = x[n + k];
    auto values = mu.getDataNonConst(0);
    for (std::size_t i = 0; i < n + m; ++i) values[i] = x[i];
  };
  // Velocities first: with v0 - v_given + C_q^T nu' = 0, C_q v0 + C_t = 0 and multipliers (rho_v, sigma_v),
  //   [I C_q^T; C_q 0] [rho_v; sigma_v] = [-dJ/dv0; 0],  dJ/dv_given = -rho_v,
  //   dJ/dq0 += d(C_q^T nu')/dq^T rho_v + (d(C_q v0 + C_t)/dq)^T sigma_v.
  solve_projection(ConstraintLevel::Velocity, projection.velocity_multipliers, projection.given_v, dJ_dv);
  for (std::size_t i = 0; i < n; ++i) dJ_dv[i] = -rho[i];
  assembler.adjoint_products(projected, t0, rho, {}, true, y_k, y_d, y_m);
  for (std::size_t i = 0; i < n; ++i) dJ_dq[i] += y_k[i];
  std::fill(y_d.begin(), y_d.end(), 0.0);
  assembler.add_constraint_level_transposed(projected, t0, ConstraintLevel::Velocity, sigma, dJ_dq, y_d);
  assembler.add_parameter_gradient(projected, t0, mu, ConstraintLevel::Velocity, true, parameters.gradient_force_offsets(),
                                   parameters.gradient_constraint_offsets(), local.parameters, local.controls);
  // Positions: q0 - q_given + C_q^T nu = 0, C(q0) = 0: [I + d(C_q^T nu)/dq, C_q^T; C_q 0] [rho; sigma] =
  // [-dJ/dq0; 0], dJ/dq_given = -rho.
  solve_projection(ConstraintLevel::Position, projection.position_multipliers, projection.given_q, dJ_dq);
  for (std::size_t i = 0; i < n; ++i) dJ_dq[i] = -rho[i];
  assembler.add_parameter_gradient(projected, t0, mu, ConstraintLevel::Position, true, parameters.gradient_force_offsets(),
                                   parameters.gradient_constraint_offsets(), local.parameters, local.controls);
}

Gradient reduce_gradient(const assembly::Assembler& assembler, const objectives::Objective& objective,
                         const std::vector<double>& times, double objective_value, const LocalGradient& local,
                         const std::vector<double>& dJ_dq, const std::vector<double>& dJ_dv) {
  const Comm& comm = *assembler.comm();
  const auto& dofs = assembler.dofs();
  Gradient gradient;
  gradient.objective = objective_value;
  gradient.parameters.assign(local.parameters.size(), 0.0);
  if (!local.parameters.empty())
    Teuchos::reduceAll(comm, Teuchos::REDUCE_SUM, static_cast<int>(local.parameters.size()), local.parameters.data(),
                       gradient.parameters.data());
  for (const auto& [name, values] : local.controls) {
    auto& total = gradient.controls[name];
    total.assign(values.size(), 0.0);
    if (!values.empty())
      Teuchos::reduceAll(comm, Teuchos::REDUCE_SUM, static_cast<int>(values.size()), values.data(), total.data());
  }
  objective.add_control_gradient(assembler.model(), times, gradient.controls);
  gradient.initial_coordinates = to_global(dJ_dq, dofs.owned_coordinates(), dofs.coordinate_count(), comm);
  gradient.initial_velocities = to_global(dJ_dv, dofs.owned_coordinates(), dofs.coordinate_count(), comm);
  return gradient;
}

}  // namespace flexadj::adjoint
