#pragma once
// The assembly pieces of the midpoint variational integrator and its discrete adjoint (variational.hpp), on the
// assembler's graph, ghosting and component tables: the only integrator-specific element loops.
#include <vector>

#include "flexadj/assembly/assembler.hpp"

namespace flexadj::integrators {

class VariationalAssembly {
 public:
  explicit VariationalAssembly(assembly::Assembler& assembler);

  // The step q_n -> q_{n+1} from q_n = previous_q with momentum p_n = previous_momentum to q_{n+1} = next_q,
  // t = t_n, into the assembler's residual() and matrix():
  //   residual = [ -h (p_n + sum_e minus_e) + C_q(q_n, t)^T y ]   matrix = [ -h d(sum_e minus_e)/dq_{n+1}  C_q(q_n, t)^T ]
  //              [ C(q_{n+1}, t + h)                         ]            [ C_q(q_{n+1}, t + h)             0             ]
  // with minus_e of ForceElement::discrete_momenta at the midpoint and t + h/2, and y = h Lambda (owned
  // multipliers, Lambda the constraint impulse). With the assembler's transposed() the matrix is its transpose
  // (same graph). The row scale -h makes the coordinate block M + O(h^2) and y of the size of generalized-alpha's
  // beta h^2 lambda. With momentum, also p_hat = sum_e plus_e (owned coordinates). The matrix is filled if
  // with_matrix; then, given plus_multiplier mu (owned coordinates), also *plus_product += (d sum_e plus_e/dq_{n+1})^T
  // mu from the same element derivatives (the discrete adjoint's product at q_{n+1}). Collective.
  void assemble_step(const std::vector<double>& previous_q, const std::vector<double>& previous_momentum,
                     const std::vector<double>& next_q, const std::vector<double>& scaled_impulse, double t, double h,
                     bool with_matrix, std::vector<double>* momentum,
                     const std::vector<double>* plus_multiplier = nullptr, std::vector<double>* plus_product = nullptr);
  // sum_e (T_q + f)/2 at the midpoint of the step q_n = previous_q -> q_{n+1} = next_q from t (owned coordinates):
  // the factor of h in minus and plus, (minus + plus)/(2h), evaluated with h = 1 in the factor so that T_v cancels
  // at its own scale, not at h's (the step-size derivative of the discrete adjoint). Collective.
  void midpoint_force(const std::vector<double>& previous_q, const std::vector<double>& next_q, double t, double h,
                      std::vector<double>& force);
  // p = sum_e T_v(q, v) at the state's q and v: the continuous Legendre transform (owned coordinates). Collective.
  void momentum(const assembly::State& state, double t, std::vector<double>& p);
  // F = sum_e (T_q + f)(q, v, t) at the state's q and v (owned coordinates): the forces of the constrained
  // Hamiltonian equations (Maciag, Malczyk and Fraczek 2022, eq. (6b), Q = Q_ex - H_q; integrators/hamiltonian.hpp),
  // from the discrete momenta with the factor 1 in place of h at q_mid = q, v_mid = v (minus + plus = T_q + f).
  // Collective.
  void force(const assembly::State& state, double t, std::vector<double>& f);
  // out_q += (dF/dq)^T mu, out_v += (dF/dv)^T mu for force() at (q, v, t). Collective.
  void add_force_transposed(const std::vector<double>& q, const std::vector<double>& v, double t,
                            const std::vector<double>& mu, std::vector<double>& out_q, std::vector<double>& out_v);
  // gradient += mu . dF/dp for parameters and control values, as add_discrete_momenta_parameter_gradient. Collective.
  void add_force_parameter_gradient(const std::vector<double>& q, const std::vector<double>& v, double t,
                                    const std::vector<double>& mu, assembly::LocalGradient& gradient);
  // Sums over the force elements of the discrete momenta's transposed products (ForceElement::
  // add_discrete_momenta_transposed_products), owned vectors.
  // h > 0: a step from t with (first, second) = (q_n, q_{n+1}); out_first += (d minus/dq_n)^T mu_minus +
  //   (d plus/dq_n)^T mu_plus, out_second the same with q_{n+1}; control terms at t + h/2.
  // h = 0: (first, second) = (q, v), plus = T_v and minus = -T_v: out_first += (dT_v/dq)^T (mu_plus - mu_minus),
  //   out_second += M (mu_plus - mu_minus).
  // Collective.
  void add_discrete_momenta_transposed(const std::vector<double>& first, const std::vector<double>& second, double t,
                                       double h, const std::vector<double>& mu_minus,
                                       const std::vector<double>& mu_plus, std::vector<double>& out_first,
                                       std::vector<double>& out_second);
  // out += the same products with respect to one end of the step only, q_{n+1} (at_second) or q_n: half the
  // derivative directions (ForceElement::add_discrete_momenta_transposed_product_at_end). h = 0: (first, second) =
  // (q, v), out += (dT_v/dq)^T (mu_plus - mu_minus) alone (at_second false). Collective.
  void add_discrete_momenta_transposed_at_end(const std::vector<double>& first, const std::vector<double>& second,
                                              double t, double h, const std::vector<double>& mu_minus,
                                              const std::vector<double>& mu_plus, bool at_second,
                                              std::vector<double>& out);
  // gradient.parameters[offset + k] += mu_minus . d(minus)/dp_k + mu_plus . d(plus)/dp_k, controls as in
  // Assembler::add_parameter_gradient (h > 0 only: loads act through minus and plus). Collective.
  void add_discrete_momenta_parameter_gradient(const std::vector<double>& first, const std::vector<double>& second,
                                               double t, double h, const std::vector<double>& mu_minus,
                                               const std::vector<double>& mu_plus, assembly::LocalGradient& gradient);

  // The second-order adjoint's (variational_second_order_assembly.cpp), with the arguments above and the direction
  // e: the tangents first_dot, second_dot of (first, second) (h > 0: of q_n, q_{n+1}; h = 0: of q, v), p_dot and
  // u_dot from `direction` (the layout of a LocalGradient). Collective.
  // minus_dot, plus_dot = sum_e d/de minus_e, plus_e (owned coordinates; h = 0: plus_dot = d/de T_v).
  void discrete_momenta_tangent(const std::vector<double>& first, const std::vector<double>& second,
                                const std::vector<double>& first_dot, const std::vector<double>& second_dot, double t,
                                double h, const assembly::LocalGradient& direction, std::vector<double>& minus_dot,
                                std::vector<double>& plus_dot);
  // out_first, out_second += d/de of add_discrete_momenta_transposed()'s products and gradient += d/de of
  // add_discrete_momenta_parameter_gradient()'s terms (parameters; control values for h > 0), mu_minus and mu_plus
  // held.
  void add_discrete_momenta_second_order_products(const std::vector<double>& first, const std::vector<double>& second,
                                                  const std::vector<double>& first_dot,
                                                  const std::vector<double>& second_dot, double t, double h,
                                                  const assembly::LocalGradient& direction,
                                                  const std::vector<double>& mu_minus,
                                                  const std::vector<double>& mu_plus, std::vector<double>& out_first,
                                                  std::vector<double>& out_second, assembly::LocalGradient& gradient);

 private:
  // The second-order loops: first_dot, second_dot into ghosted_tangents_; visit(component, element) for each force
  // element with q_mid_, v_mid_, their tangents q_mid_dot_, v_mid_dot_ and its p_dot_ set; the two first work
  // columns exported to first, second (added to them if `add`).
  void import_tangents(const std::vector<double>& first_dot, const std::vector<double>& second_dot);
  template <class Visit>
  void visit_along(const std::vector<double>& first, const std::vector<double>& second,
                   const std::vector<double>& first_dot, const std::vector<double>& second_dot, double h,
                   const assembly::LocalGradient& direction, const Visit& visit);
  void export_two_work_columns(std::vector<double>& first, std::vector<double>& second, bool add);

  // mu_minus, mu_plus into the two columns of ghosted_momentum_mu_.
  void import_multipliers(const std::vector<double>& mu_minus, const std::vector<double>& mu_plus);
  // Imports mu_minus, mu_plus and the columns (first, second); calls visit(element, local mu_minus, local mu_plus)
  // with q_mid_, v_mid_ set for each force element.
  template <class Visit>
  void visit_discrete_momenta(const std::vector<double>& first, const std::vector<double>& second, double h,
                              const std::vector<double>& mu_minus, const std::vector<double>& mu_plus,
                              const Visit& visit);

  // At the state (q, v) = (first, second) with h = 0 (the element called with element_h and t_element), else at the
  // midpoint of the step (first, second) of size h.
  void transposed_sums(const std::vector<double>& first, const std::vector<double>& second, double h,
                       double element_h, double t_element, const std::vector<double>& mu_minus,
                       const std::vector<double>& mu_plus, std::vector<double>& out_first,
                       std::vector<double>& out_second);
  void parameter_terms(const std::vector<double>& first, const std::vector<double>& second, double h,
                       double element_h, double t_element, const std::vector<double>& mu_minus,
                       const std::vector<double>& mu_plus, assembly::LocalGradient& gradient);
  // sum_e plus (h = 0: T_v) or sum_e (minus + plus) (h > 0) at the state's q, v and time t.
  void state_sum(const assembly::State& state, double t, double h, std::vector<double>& out);

  assembly::Assembler& assembler_;
  // Work arrays sized for the largest component: no allocation in the time loop.
  std::vector<double> q_mid_, v_mid_, minus_, plus_, plus_jacobian_, previous_jacobian_, mu_plus_local_, control_mu_,
      zero_acceleration_;
  RCP<MultiVector> owned_momentum_mu_, ghosted_momentum_mu_;  // mu_minus, mu_plus of the discrete momenta
  // The second-order loops': the tangents of (first, second), a component's tangents and p_dot, and a scratch row
  // for the parameter terms of a component without wanted parameters.
  RCP<MultiVector> owned_tangents_, ghosted_tangents_;
  std::vector<double> q_mid_dot_, v_mid_dot_, p_dot_, parameter_scratch_;
};

}  // namespace flexadj::integrators
