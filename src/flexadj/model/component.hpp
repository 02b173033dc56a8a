#pragma once
// Components of a model: force elements (inertia, gravity, springs, loads) contribute to the
// dynamic residual M a - Q; constraints contribute C(q, t) = 0 and C_q^T lambda.
// A component sees only the coordinates of the bodies it connects, concatenated in the order of
// bodies(); ground contributes no coordinates. Implementations are templated kernels differentiated
// by Sacado (component_ad.hpp); the virtual interface below works on plain doubles.
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "flexadj/model/body.hpp"

namespace flexadj::functions {
class ControlSignal;
}

namespace flexadj::model {

// Which of a component's parameters the adjoint wants: bit k for parameter k (at most 32 parameters). The
// parameter partials are seeded for these only and the other gradient entries are left alone.
using ParameterMask = std::uint32_t;
constexpr ParameterMask kAllParameters = ~ParameterMask(0);

constexpr int kGround = -1;

// The assembled matrix is coefficient_q dR/dq + coefficient_v dR/dv + coefficient_a dR/da.
struct JacobianCoefficients {
  double q = 1.0, v = 0.0, a = 0.0;
};

class Component {
 public:
  Component(std::string name, std::vector<int> bodies, std::vector<BodyKind> kinds)
      : name_(std::move(name)), bodies_(std::move(bodies)), kinds_(std::move(kinds)) {
    for (BodyKind kind : kinds_) coordinate_count_ += model::coordinate_count(kind);
  }
  virtual ~Component() = default;
  virtual const char* type() const = 0;

  const std::string& name() const { return name_; }
  const std::vector<int>& bodies() const { return bodies_; }  // model body indices, kGround for ground
  const std::vector<BodyKind>& kinds() const { return kinds_; }
  int coordinate_count() const { return coordinate_count_; }
  // Offset of body slot k in the component's local coordinates.
  int local_offset(int slot) const {
    int offset = 0;
    for (int k = 0; k < slot; ++k) offset += model::coordinate_count(kinds_[k]);
    return offset;
  }

  // Named scalar parameters the kernel reads (stiffness, attachment points, ...).
  const std::vector<std::string>& parameter_names() const { return parameter_names_; }
  const std::vector<double>& parameters() const { return parameters_; }
  void set_parameter(int index, double value) { parameters_.at(index) = value; }

 protected:
  int add_parameter(const std::string& name, double value) {
    parameter_names_.push_back(name);
    parameters_.push_back(value);
    return static_cast<int>(parameters_.size()) - 1;
  }
  // Adds prefix_x, prefix_y, prefix_z; returns the index of the first.
  int add_vector_parameter(const std::string& prefix, const std::array<double, 3>& value) {
    const int first = add_parameter(prefix + "_x", value[0]);
    add_parameter(prefix + "_y", value[1]);
    add_parameter(prefix + "_z", value[2]);
    return first;
  }

 private:
  std::string name_;
  std::vector<int> bodies_;
  std::vector<BodyKind> kinds_;
  int coordinate_count_ = 0;
  std::vector<std::string> parameter_names_;
  std::vector<double> parameters_;
};

class ForceElement : public Component {
 public:
  using Component::Component;
  // r = local contribution to M a - Q.
  virtual void residual(const double* q, const double* v, const double* a, double t, double* r) const = 0;
  // r and J = c.q dr/dq + c.v dr/dv + c.a dr/da, J row-major n x n.
  virtual void residual_jacobian(const double* q, const double* v, const double* a, double t,
                                 const JacobianCoefficients& c, double* r, double* J) const = 0;
  // J alone, for an assembly that does not want r (Assembler::assemble_matrix); `scratch` holds n values. By
  // default residual_jacobian's J, with r written to scratch.
  virtual void jacobian_alone(const double* q, const double* v, const double* a, double t,
                              const JacobianCoefficients& c, double* scratch, double* J) const {
    residual_jacobian(q, v, a, t, c, scratch, J);
  }
  // r and the three Jacobians dr/dq, dr/dv, dr/da (n x n row-major each) from one evaluation: the adjoint step
  // assembles its matrix from them and keeps them for its products K^T mu, D^T mu, M^T mu
  // (Assembler::assemble_adjoint_matrix), so that the element is not evaluated a second time. dr/da is zero for an
  // element without inertia.
  virtual void residual_jacobians(const double* q, const double* v, const double* a, double t, double* r,
                                  double* dr_dq, double* dr_dv, double* dr_da) const = 0;
  // gradient[k] += mu . dr/dp_k for the wanted k (adjoint sensitivities; mu has one entry per local coordinate).
  virtual void add_parameter_gradient(const double* q, const double* v, const double* a, double t, const double* mu,
                                      double* gradient, ParameterMask wanted = kAllParameters) const = 0;
  // out_q += (dr/dq)^T mu, out_v += (dr/dv)^T mu, out_a += (dr/da)^T mu (adjoint sweeps).
  virtual void add_transposed_products(const double* q, const double* v, const double* a, double t,
                                       const double* mu, double* out_q, double* out_v, double* out_a) const = 0;
  // Second-order adjoint (Hessian-vector products, docs/adjoint.md): derivatives along a direction e of the state
  // (q_dot, v_dot, a_dot), of the parameters (p_dot, one per parameter) and of the control value (u_dot at t; read
  // only if control()). r_dot = dr/de (the tangent-linear model's residual).
  virtual void residual_tangent(const double* q, const double* v, const double* a, double t, const double* q_dot,
                                const double* v_dot, const double* a_dot, const double* p_dot, double u_dot,
                                double* r_dot) const {
    (void)q, (void)v, (void)a, (void)t, (void)q_dot, (void)v_dot, (void)a_dot, (void)p_dot, (void)u_dot, (void)r_dot;
    throw std::logic_error("'" + name() + "' (" + type() + ") has no second derivatives");
  }
  // out_q += d/de (dr/dq)^T mu, out_v += d/de (dr/dv)^T mu, out_a += d/de (dr/da)^T mu; gradient[k] += d/de mu . dr/dp_k
  // for the wanted k; returns d/de mu . dr/du (mu held fixed). One nested Sacado pass (forward over forward).
  virtual double add_second_order_products(const double* q, const double* v, const double* a, double t,
                                           const double* q_dot, const double* v_dot, const double* a_dot,
                                           const double* p_dot, double u_dot, const double* mu, double* out_q,
                                           double* out_v, double* out_a, double* gradient,
                                           ParameterMask wanted = kAllParameters) const {
    (void)q, (void)v, (void)a, (void)t, (void)q_dot, (void)v_dot, (void)a_dot, (void)p_dot, (void)u_dot, (void)mu;
    (void)out_q, (void)out_v, (void)out_a, (void)gradient, (void)wanted;
    throw std::logic_error("'" + name() + "' (" + type() + ") has no second derivatives");
  }
  // Control input: the signal this element reads (none by default) and mu . dr/du at time t.
  virtual const functions::ControlSignal* control() const { return nullptr; }
  virtual double control_sensitivity(const double* /*q*/, const double* /*v*/, const double* /*a*/, double /*t*/,
                                     const double* /*mu*/) const {
    return 0.0;
  }
  // r = the residual without its inertia terms, i.e. -f with f the applied, elastic, gravity and damping forces
  // (the whole residual of an element without inertia).
  virtual void applied_residual(const double* q, const double* v, double t, double* r) const = 0;
  // Discrete momenta of the midpoint variational integrator (integrators/variational.hpp) from the kinetic energy
  // T(q, v) and f = -applied_residual, all at q_mid = (q_n + q_{n+1})/2, v_mid = (q_{n+1} - q_n)/h, t_mid:
  //   minus = (h/2)(T_q + f) - T_v = D1 L_d + f_d^-,   plus = (h/2)(T_q + f) + T_v = D2 L_d + f_d^+
  // for L_d = h T(q_mid, v_mid), f_d^- = f_d^+ = (h/2) f (Marsden and West 2001, sec. 3.2; Schubert et al. 2024,
  // eqs. (6)-(7)). With h = 0, plus = T_v(q, v), the continuous Legendre transform. jacobian (nullable, n x n
  // row-major) = d(minus)/dq_{n+1} = 1/2 d(minus)/dq_mid + 1/h d(minus)/dv_mid; plus_jacobian (nullable, read only
  // with jacobian) = d(plus)/dq_{n+1} from the same derivative pass (the adjoint sweep's product at q_{n+1}).
  virtual void discrete_momenta(const double* q_mid, const double* v_mid, double t_mid, double h, double* minus,
                                double* plus, double* jacobian, double* plus_jacobian) const = 0;
  // Adjoint pieces of the discrete momenta (same arguments; the discrete adjoint, Schubert et al. 2024, eqs. (10)-(13)):
  // out_q += (d minus/dq_mid)^T mu_minus + (d plus/dq_mid)^T mu_plus, out_v the same with v_mid.
  virtual void add_discrete_momenta_transposed_products(const double* q_mid, const double* v_mid, double t_mid,
                                                        double h, const double* mu_minus, const double* mu_plus,
                                                        double* out_q, double* out_v) const = 0;
  // The same with respect to one end of a step (h > 0) only: out += d(mu_minus . minus + mu_plus . plus)/dq_end with
  // q_end = q_n (second = false; d/dq_n = 1/2 d/dq_mid - 1/h d/dv_mid) or q_{n+1} (second = true; + 1/h): n
  // derivative directions instead of 2n, for the sweep's products that use one end of the step. With h = 0 (q_mid,
  // v_mid the state q, v; second = false) the derivative in q alone: out += d(mu_plus . T_v - mu_minus . T_v)/dq.
  virtual void add_discrete_momenta_transposed_product_at_end(const double* q_mid, const double* v_mid, double t_mid,
                                                              double h, const double* mu_minus,
                                                              const double* mu_plus, bool second,
                                                              double* out) const = 0;
  // gradient[k] += mu_minus . d(minus)/dp_k + mu_plus . d(plus)/dp_k.
  virtual void add_discrete_momenta_parameter_gradient(const double* q_mid, const double* v_mid, double t_mid,
                                                       double h, const double* mu_minus, const double* mu_plus,
                                                       double* gradient) const = 0;
  // Second-order adjoint of the variational integrator (docs/adjoint.md, "Second-order adjoint of the variational
  // integrator"): the discrete momenta along a direction e of (q_mid, v_mid) (q_mid_dot, v_mid_dot), of the
  // parameters (p_dot) and of the control value at t_mid (u_dot, read only if control()): minus_dot, plus_dot.
  virtual void discrete_momenta_tangent(const double* q_mid, const double* v_mid, double t_mid, double h,
                                        const double* q_mid_dot, const double* v_mid_dot, const double* p_dot,
                                        double u_dot, double* minus_dot, double* plus_dot) const {
    (void)q_mid, (void)v_mid, (void)t_mid, (void)h, (void)q_mid_dot, (void)v_mid_dot, (void)p_dot, (void)u_dot;
    (void)minus_dot, (void)plus_dot;
    throw std::logic_error("'" + name() + "' (" + type() + ") has no second derivatives of its discrete momenta");
  }
  // d/de of add_discrete_momenta_transposed_products() and add_discrete_momenta_parameter_gradient() (mu_minus,
  // mu_plus held): out_q, out_v += d/de of the transposed products, gradient[k] += d/de of the parameter terms for
  // the wanted k; returns d/de (mu_minus . d minus/du + mu_plus . d plus/du). One nested Sacado pass.
  virtual double add_discrete_momenta_second_order_products(const double* q_mid, const double* v_mid, double t_mid,
                                                            double h, const double* q_mid_dot,
                                                            const double* v_mid_dot, const double* p_dot, double u_dot,
                                                            const double* mu_minus, const double* mu_plus,
                                                            double* out_q, double* out_v, double* gradient,
                                                            ParameterMask wanted = kAllParameters) const {
    (void)q_mid, (void)v_mid, (void)t_mid, (void)h, (void)q_mid_dot, (void)v_mid_dot, (void)p_dot, (void)u_dot;
    (void)mu_minus, (void)mu_plus, (void)out_q, (void)out_v, (void)gradient, (void)wanted;
    throw std::logic_error("'" + name() + "' (" + type() + ") has no second derivatives of its discrete momenta");
  }
  virtual double kinetic_energy(const double* /*q*/, const double* /*v*/) const { return 0.0; }
  virtual double potential_energy(const double* /*q*/, double /*t*/) const { return 0.0; }
  // False if the element dissipates energy or does work on the system (dampers, loads).
  virtual bool conservative() const { return true; }
  // True for applied loads, which a static solve scales by its load factor.
  virtual bool applied_load() const { return false; }
  // True if discrete_momenta() is not the midpoint rule above but the element's own discrete Lagrangian, trapezoidal
  // in time (the dual-quaternion beam): then h is a step, never the flag h = 1 of the force sums of other integrators,
  // which refuse the element.
  virtual bool trapezoidal_in_time() const { return false; }
  // True if the residual depends on t explicitly (a load given as a function of time or by a control signal).
  virtual bool time_dependent() const { return false; }
  // True if it depends on t otherwise than through control() (a load's functions of time).
  virtual bool time_dependent_besides_control() const { return time_dependent(); }
  // Stress resultants for output (beams: normal and shear forces, torsion and bending moments in the section
  // frame at the element's midpoint); resultant_count() values written by resultants().
  virtual int resultant_count() const { return 0; }
  virtual void resultants(const double* /*q*/, const double* /*v*/, double* /*out*/) const {}
  // The global point the resultants refer to (beams: the midpoint of the centreline), for output.
  virtual void section_point(const double* /*q*/, double* x) const { x[0] = x[1] = x[2] = 0.0; }
};

class Constraint : public Component {
 public:
  Constraint(std::string name, std::vector<int> bodies, std::vector<BodyKind> kinds, int equations)
      : Component(std::move(name), std::move(bodies), std::move(kinds)), equation_count_(equations) {}
  int equation_count() const { return equation_count_; }
  // True if C depends on time explicitly (prescribed motion): then no energy is conserved.
  virtual bool rheonomic() const { return false; }
  // True for a non-holonomic constraint (VelocityConstraint below): its equations hold at velocity level only.
  virtual bool velocity_level() const { return false; }

  virtual void value(const double* q, double t, double* c) const = 0;
  // c and Cq = dC/dq (equation_count x n, row-major).
  virtual void jacobian(const double* q, double t, double* c, double* Cq) const = 0;
  // Along the path q(s) = q + v s + a s^2/2 at time t + s: c, dc/ds = Cq v + Ct and
  // d2c/ds2 = Cq a + (Cq v)_q v + 2 Cqt v + Ctt, all at s = 0.
  virtual void time_derivatives(const double* q, const double* v, const double* a, double t, double* c,
                                double* c_dot, double* c_ddot) const = 0;
  // c, Cq and H = d(Cq^T lambda)/dq (n x n, row-major) from one second-order evaluation.
  virtual void jacobian_and_hessian(const double* q, const double* lambda, double t, double* c, double* Cq,
                                    double* H) const = 0;
  // The same by plain nested AD over all coordinates, without the structure jacobian_and_hessian may exploit: the
  // reference its optimised path is tested against.
  virtual void jacobian_and_hessian_reference(const double* q, const double* lambda, double t, double* c, double* Cq,
                                              double* H) const {
    jacobian_and_hessian(q, lambda, t, c, Cq, H);
  }
  // H alone.
  void multiplier_hessian(const double* q, const double* lambda, double t, double* H) const {
    std::vector<double> c(equation_count()), Cq(static_cast<std::size_t>(equation_count()) * coordinate_count());
    jacobian_and_hessian(q, lambda, t, c.data(), Cq.data(), H);
  }
  // gradient[k] += d/dp_k [ lambda . (Cq mu_r) + mu_c . c ], where c is the constraint at `level`: 0 the
  // position level C, 1 the velocity level dC/ds, 2 the acceleration level d2C/ds2 along q + v s + a s^2/2,
  // t + s (adjoint sensitivities), for the wanted k.
  virtual void add_parameter_gradient(const double* q, const double* v, const double* a, double t,
                                      const double* lambda, const double* mu_r, const double* mu_c, int level,
                                      double* gradient, ParameterMask wanted = kAllParameters) const = 0;
  // out += d(C_q^T lambda)/dq^T mu_r + C_q^T mu_c (adjoint sweeps; the first term is symmetric).
  virtual void add_transposed_products(const double* q, double t, const double* lambda, const double* mu_r,
                                       const double* mu_c, double* out) const = 0;
  // Second-order adjoint (Hessian-vector products, docs/adjoint.md), along a direction e of q, lambda and the
  // constraint's parameters (p_dot, one per parameter; nullptr: the parameters held): c_dot = C_q q_dot + C_p p_dot
  // and r_dot = d/de (C_q^T lambda) = H q_dot + C_q^T lambda_dot + d/dp (C_q^T lambda) p_dot.
  virtual void constraint_tangent(const double* q, double t, const double* lambda, const double* q_dot,
                                  const double* lambda_dot, const double* p_dot, double* c_dot, double* r_dot) const {
    (void)q, (void)t, (void)lambda, (void)q_dot, (void)lambda_dot, (void)p_dot, (void)c_dot, (void)r_dot;
    throw std::logic_error("'" + name() + "' (" + type() + ") has no second derivatives");
  }
  // out += d/de [d(C_q^T lambda)/dq^T mu_r + C_q^T mu_c] (mu held) and m_dot = d/de (C_q mu_r), along (q_dot,
  // lambda_dot, p_dot as above): third derivatives of C by one nested Sacado pass.
  virtual void add_second_order_products(const double* q, double t, const double* lambda, const double* q_dot,
                                         const double* lambda_dot, const double* p_dot, const double* mu_r,
                                         const double* mu_c, double* out, double* m_dot) const {
    (void)q, (void)t, (void)lambda, (void)q_dot, (void)lambda_dot, (void)p_dot, (void)mu_r, (void)mu_c, (void)out,
        (void)m_dot;
    throw std::logic_error("'" + name() + "' (" + type() + ") has no second derivatives");
  }
  // add_parameter_gradient() differentiated along e (q_dot, v_dot, a_dot, lambda_dot, p_dot; mu held):
  // gradient[k] += d/de [lambda . (Cq mu_r) + mu_c . c]_{,p_k} with c at `level`, for the wanted k.
  virtual void add_parameter_second_order(const double* q, const double* v, const double* a, double t,
                                          const double* lambda, const double* q_dot, const double* v_dot,
                                          const double* a_dot, const double* lambda_dot, const double* p_dot,
                                          const double* mu_r, const double* mu_c, int level, double* gradient,
                                          ParameterMask wanted = kAllParameters) const {
    (void)q, (void)v, (void)a, (void)t, (void)lambda, (void)q_dot, (void)v_dot, (void)a_dot, (void)lambda_dot;
    (void)p_dot, (void)mu_r, (void)mu_c, (void)level, (void)gradient, (void)wanted;
    throw std::logic_error("'" + name() + "' (" + type() + ") has no second derivatives");
  }
  // Jacobians of the velocity-level (level 1: dc/ds) or acceleration-level (level 2: d2c/ds2) constraint of
  // time_derivatives with respect to q and v (equation_count x n each, row-major).
  virtual void level_jacobians(const double* q, const double* v, const double* a, double t, int level, double* d_dq,
                               double* d_dv) const = 0;
  // The consistent initial state's tangent and its second-order adjoint (initial_projection_tangent.cpp), along a
  // direction (q_dot, v_dot, a_dot) of the state and p_dot of the parameters (nullptr: held): c_dot = d/de of the
  // constraint at `level` (0: C, 1: dc/ds, 2: d2c/ds2 as in time_derivatives), and out_q += d/de (d_dq^T mu_c),
  // out_v += d/de (d_dv^T mu_c) of level_jacobians (mu_c held).
  virtual void level_tangent(const double* q, const double* v, const double* a, double t, const double* q_dot,
                             const double* v_dot, const double* a_dot, const double* p_dot, int level,
                             double* c_dot) const {
    (void)q, (void)v, (void)a, (void)t, (void)q_dot, (void)v_dot, (void)a_dot, (void)p_dot, (void)level, (void)c_dot;
    throw std::logic_error("'" + name() + "' (" + type() + ") has no second derivatives");
  }
  virtual void add_level_transposed_tangent(const double* q, const double* v, const double* a, double t,
                                            const double* q_dot, const double* v_dot, const double* a_dot,
                                            const double* p_dot, int level, const double* mu_c, double* out_q,
                                            double* out_v) const {
    (void)q, (void)v, (void)a, (void)t, (void)q_dot, (void)v_dot, (void)a_dot, (void)p_dot, (void)level, (void)mu_c,
        (void)out_q, (void)out_v;
    throw std::logic_error("'" + name() + "' (" + type() + ") has no second derivatives");
  }

 private:
  int equation_count_;
};

// Non-holonomic constraints g(q, v, t) = A(q) v + b(q, t) = 0, linear in v, with constraint forces A^T lambda
// (Neimark and Fufaev 1972; Bestle and Eberhard 1992, eqs. (1)-(2): minimal velocities). Enforced at velocity level:
// there is no position-level C, and the position-level members of Constraint (value, jacobian,
// time_derivatives, jacobian_and_hessian, the symmetric add_transposed_products) throw std::logic_error.
// level_jacobians and add_parameter_gradient keep their meaning with g in place of C: levels 0 and 1 give g,
// level 2 its time derivative dg/ds along q + v s + a s^2/2, v + a s, t + s, i.e. g_q v + A a + g_t.
class VelocityConstraint : public Constraint {
 public:
  using Constraint::Constraint;
  bool velocity_level() const override { return true; }
  // g, g_q = dg/dq and A = dg/dv (equation_count x n each, row-major) and, if H is not null,
  // H = d(A^T lambda)/dq (n x n, row-major, not symmetric in general).
  virtual void velocity_jacobians(const double* q, const double* v, const double* lambda, double t, double* g,
                                  double* g_q, double* A, double* H) const = 0;
  // g and g_dot = g_q v + A a + g_t.
  virtual void velocity_time_derivative(const double* q, const double* v, const double* a, double t, double* g,
                                        double* g_dot) const = 0;
  // out_q += H^T mu_r + g_q^T mu_c, out_v += A^T mu_c (adjoint sweeps).
  virtual void add_velocity_transposed_products(const double* q, const double* v, double t, const double* lambda,
                                                const double* mu_r, const double* mu_c, double* out_q,
                                                double* out_v) const = 0;
  // Second-order adjoint (docs/adjoint.md), along a direction e of q, v, lambda and the parameters (p_dot, one per
  // parameter; nullptr: held): c_dot = d/de g and r_dot = d/de (A^T lambda) (overwritten).
  virtual void velocity_constraint_tangent(const double* q, const double* v, double t, const double* lambda,
                                           const double* q_dot, const double* v_dot, const double* lambda_dot,
                                           const double* p_dot, double* c_dot, double* r_dot) const = 0;
  // add_velocity_transposed_products differentiated along e (mu held): m_dot = d/de (A mu_r) (overwritten),
  // out_q += d/de (H^T mu_r), and the rows of mu_c: at level 0 those of g in the Newmark step (unknowns q and v),
  // out_q += d/de (g_q^T mu_c), out_v += d/de (A^T mu_c); at levels 1 and 2 those whose unknown is v or a (the
  // velocity projection, the consistent accelerations: Jacobian A), out_q += d/de (A^T mu_c).
  virtual void add_velocity_second_order_products(const double* q, const double* v, double t, const double* lambda,
                                                  const double* q_dot, const double* v_dot, const double* lambda_dot,
                                                  const double* p_dot, const double* mu_r, const double* mu_c,
                                                  int level, double* out_q, double* out_v, double* m_dot) const = 0;
};

}  // namespace flexadj::model
