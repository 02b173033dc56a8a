#pragma once
// Objectives as weighted sums of terms on the discrete trajectory, J = sum_n j_n(q_n, v_n, a_n), with the
// trapezoidal rule in time for integrals, so that J is a function of the discrete states.
#include <map>
#include <string>
#include <vector>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/objectives/objective_term.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::objectives {

class Objective {
 public:
  Objective() = default;
  explicit Objective(std::vector<ObjectiveTerm> terms) : terms_(std::move(terms)) {}
  void add(const ObjectiveTerm& term) { terms_.push_back(term); }
  const std::vector<ObjectiveTerm>& terms() const { return terms_; }

  // J of the stored trajectory (collective).
  double value(const assembly::Assembler& assembler, const std::vector<double>& times,
               const std::vector<assembly::State>& states) const;
  // J of a stored trajectory, read step by step (collective).
  double value(const assembly::Assembler& assembler, storage::Trajectory& trajectory) const;
  // J in parts, for sweeps that visit each step once in any order (a checkpointed trajectory is not read forward
  // again): local_step_value() is this rank's part of step n (the terminal terms at the last step), collective;
  // total() sums those parts in step order with the control-effort terms and over the ranks (collective). value()
  // is the same arithmetic, so both give J bit for bit alike.
  double local_step_value(const assembly::Assembler& assembler, const std::vector<double>& times, std::size_t n,
                          const assembly::State& state) const;
  double total(const assembly::Assembler& assembler, const std::vector<double>& times,
               const std::vector<double>& local_step_values) const;
  // controls[name][k] += dJ/du_k of the terms that depend on control values explicitly (control effort).
  void add_control_gradient(const model::Model& model, const std::vector<double>& times,
                            std::map<std::string, std::vector<double>>& controls) const;
  // The terminal terms S(x) at a state, summed over the ranks (collective), and their partials dq += S_q, dv += S_v
  // (owned coordinates): the end condition's H (integrators/end_condition.hpp).
  double terminal_value(const assembly::Assembler& assembler, const assembly::State& state) const;
  // This rank's part of terminal_value (collective only for relative terms, whose coordinates are summed).
  double local_terminal_value(const assembly::Assembler& assembler, const assembly::State& state) const;
  void add_terminal_partials(const assembly::Assembler& assembler, const assembly::State& state,
                             std::vector<double>& dq, std::vector<double>& dv) const;
  // The explicit dependence of J on the step times, the states held: with dt[m] = dt_m/dtheta for some scalar
  // theta (the located final step's size, or a free final time), this rank's d/dtheta of step n's part
  // (quadrature weights, the references' time, the final-time terms), and d/dtheta of the control-effort terms
  // (rank 0, else 0). Summed over the steps and the ranks, they give the partial dJ/dtheta of the discrete J.
  double local_step_time_derivative(const assembly::Assembler& assembler, const std::vector<double>& times,
                                    std::size_t n, const assembly::State& state, const std::vector<double>& dt) const;
  double control_time_derivative(const assembly::Assembler& assembler, const std::vector<double>& times,
                                 const std::vector<double>& dt) const;
  // Which derivatives add_partials gives at step n:
  //   Discrete:  dJ/dq_n, dJ/dv_n of the discrete J (trapezoidal weights; terminal terms at the last step);
  //   Integrand: h_q, h_v of the integral terms, J = int h dt + S (no quadrature weight, no terminal terms);
  //   Terminal:  S_q, S_v of the terminal terms (at whichever step is given).
  enum class Partials { Discrete, Integrand, Terminal };
  // dq += the q-derivative, dv += the v-derivative on the owned coordinates; with a gradient, also its
  // parameters += the partials in the model parameters (momentum sensors: mass and inertia), where wanted; with da,
  // da += the a-derivative (terms on accelerations: an objective with such terms throws std::logic_error without).
  void add_partials(const assembly::Assembler& assembler, const std::vector<double>& times, std::size_t n,
                    const assembly::State& state, std::vector<double>& dq, std::vector<double>& dv,
                    Partials partials = Partials::Discrete, assembly::LocalGradient* gradient = nullptr,
                    std::vector<double>* da = nullptr) const;
  // The second-order adjoint's (Hessian-vector products): dq_dot += d/de of add_partials(Discrete)'s dq along the
  // state's direction `tangent` (q_dot, v_dot, a_dot) and, for momentum sensors, which read the body's mass and
  // inertia, the parameters' direction in `along` (its wanted parameters); dv_dot and da_dot likewise (da_dot: terms
  // on accelerations), and gradient_dot's parameters += d/de of the momentum sensors' parameter partials (both
  // needed with momentum sensors); controls[name][k] += d/de of add_control_gradient's dJ/du_k along the control
  // values' direction control_dots (the control-effort terms). Second derivatives of the same kernels by nested
  // Sacado types.
  void add_partials_tangent(const assembly::Assembler& assembler, const std::vector<double>& times, std::size_t n,
                            const assembly::State& state, const assembly::State& tangent, std::vector<double>& dq_dot,
                            std::vector<double>& dv_dot, std::vector<double>* da_dot = nullptr,
                            const assembly::LocalGradient* along = nullptr,
                            assembly::LocalGradient* gradient_dot = nullptr) const;
  void add_control_gradient_tangent(const model::Model& model, const std::vector<double>& times,
                                    const std::map<std::string, std::vector<double>>& control_dots,
                                    std::map<std::string, std::vector<double>>& controls) const;
  // Gauss-Newton (docs/adjoint.md, "Gauss-Newton products"): every term here is a weighted square
  // w/2 r^2 of a residual r (tracking, final_square, penalty, control_effort); J = 1/2 sum_i rt_i^2 with the
  // weighted residuals rt = sqrt(c w) r (c: the trapezoidal weight of the step, 1 for a terminal term).
  // least_squares_refusal(): empty if every term is such a square with w >= 0, else which term is not and why
  // (e.g. "objective[2] (type final_value) is not a weighted square ...").
  std::string least_squares_refusal() const;
  // dq += sum_i c w r_q^T (r_x . x_dot) over the terms at step n, dv and da likewise (owned coordinates; da: terms
  // on accelerations): the partials of the linearised objective 1/2 sum c w (r_x x_dot)^2 with r's second
  // derivatives dropped, x_dot = (q_dot, v_dot, a_dot) of `tangent`. A momentum sensor's residual reads the body's
  // mass and inertia p as well: its r_x x_dot has r_p p_dot with the direction's wanted parameters in `along`, and
  // gradient's parameters += c w r_p^T (r_x x_dot) (both needed with momentum sensors). Collective like add_partials.
  void add_gauss_newton_partials(const assembly::Assembler& assembler, const std::vector<double>& times,
                                 std::size_t n, const assembly::State& state, const assembly::State& tangent,
                                 std::vector<double>& dq, std::vector<double>& dv, std::vector<double>* da = nullptr,
                                 const assembly::LocalGradient* along = nullptr,
                                 assembly::LocalGradient* gradient = nullptr) const;
  // residuals += the weighted residuals rt of the terms on the states at step n (this rank's terms; a relative
  // term on rank 0), and control_residuals(...) those of the control-effort terms, one per term and step; so that
  // J = 1/2 |rt|^2 over all steps (for tests against differences of the residual vector).
  void add_weighted_residuals(const assembly::Assembler& assembler, const std::vector<double>& times, std::size_t n,
                              const assembly::State& state, std::vector<double>& residuals) const;
  void add_weighted_control_residuals(const model::Model& model, const std::vector<double>& times,
                                      std::vector<double>& residuals) const;
  // Some term depends on model parameters explicitly (a momentum sensor): a gradient path must pass its
  // LocalGradient to add_partials.
  bool depends_on_parameters() const;
  // Some term is on the accelerations a_n (ObjectiveTerm::Quantity::Acceleration): the adjoint sweep passes dJ/da_n
  // to TimeIntegrator::adjoint_step_with_accelerations.
  bool on_accelerations() const;

 private:
  std::vector<ObjectiveTerm> terms_;
};

}  // namespace flexadj::objectives
