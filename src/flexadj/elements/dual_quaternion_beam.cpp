// The dual-quaternion beam element of Schubert et al. 2024, sec. 4 (the Lagrangian in dual_quaternion_lagrangian.hpp):
// the trapezoidal discrete Lagrangian in time with its discrete momenta and their adjoint products, the
// semi-discrete equations for the other integrators, the element's output.
#include <cassert>
#include <cmath>
#include <type_traits>

#include "flexadj/elements/dual_quaternion_derivatives.hpp"
#include "flexadj/elements/dual_quaternion_lagrangian.hpp"
#include "flexadj/elements/dual_quaternion_parameter_partials.hpp"
#include "flexadj/elements/elements.hpp"
#include "flexadj/model/component_ad.hpp"

namespace flexadj::elements {
namespace {

using namespace dual_quaternion;

class DualQuaternionBeam final : public model::ForceElementAD<DualQuaternionBeam, kCoordinates, /*FixedLength=*/true>,
                                 public DualQuaternionLagrangian {
 public:
  static_assert(kParameterCount <= model::kMaxComponentParameters, "too many beam parameters");

  DualQuaternionBeam(const std::string& name, std::array<int, 2> nodes, const BeamSectionData& section,
                     const DualQuaternionBeamReference& reference, const Point& gravity)
      : ForceElementAD(name, {nodes[0], nodes[1]}, {BodyKind::DualQuaternionNode, BodyKind::DualQuaternionNode}),
        DualQuaternionLagrangian(reference.strains) {
    for (const auto& [parameter, value] : section_parameters(section)) add_parameter(parameter, value);
    add_parameter("length", reference.length);
    add_vector_parameter("gravity", gravity);
    assert(static_cast<int>(parameters().size()) == kParameterCount);
  }
  const char* type() const override { return "dual_quaternion_beam"; }
  bool conservative() const override { return parameters()[kEta] == 0.0 && parameters()[kZeta] == 0.0; }
  bool trapezoidal_in_time() const override { return true; }

  bool damped() const { return parameters()[kEta] != 0.0 || parameters()[kZeta] != 0.0; }

  // ---- the semi-discrete equations (other integrators, the initial accelerations) ------------------------------
  // r = d/dt T_v - T_q + (V + U)_q + 2 ds (dk/dq)^T D~ k_dot.
  template <class S, class P> void evaluate(const S* q, const S* v, const S* a, const P* p, double t, S* r) const {
    add_kinetic_momentum_rate(q, v, a, p, r);
    std::array<S, kCoordinates> kinetic_q;
    for (auto& x : kinetic_q) x = 0.0;
    add_kinetic_gradient(q, v, p, kinetic_q.data(), static_cast<S*>(nullptr));
    for (int i = 0; i < kCoordinates; ++i) r[i] -= kinetic_q[i];
    applied(q, v, p, t, r);
  }
  template <class S, class P> void applied(const S* q, const S* v, const P* p, double, S* r) const {
    const auto k = strains(q, p);
    // Without damping the damping forces vanish, not their derivatives in eta and zeta (P an AD type).
    if (!damped() && std::is_same_v<P, double>) {
      add_internal_forces(q, k, static_cast<const std::array<S, 2 * kNode>*>(nullptr), p, r);
      return;
    }
    // k_dot = conj(v_b) slope + conj(q_b) slope_dot: the strain gradient contracted with v.
    std::array<S, 2 * kNode> rate;
    std::array<S, kNode> slope, slope_rate;
    for (int i = 0; i < kNode; ++i) {
      slope[i] = (q[kNode + i] - q[i]) / p[kLength];
      slope_rate[i] = (v[kNode + i] - v[i]) / p[kLength];
    }
    for (int b = 0; b < 2; ++b) {
      const auto first = dual_conjugate_times(v + kNode * b, slope.data());
      const auto second = dual_conjugate_times(q + kNode * b, slope_rate.data());
      for (int i = 0; i < kNode; ++i) rate[kNode * b + i] = first[i] + second[i];
    }
    add_internal_forces(q, k, &rate, p, r);
  }

  // The mass matrix alone (coefficients {0, 0, c_a}: the velocity system of the variational integrator, the
  // consistent accelerations): dr/da = d(T_v)/dv = M(q) = blockdiag(T_vv), written out
  // (dual_quaternion_derivatives.hpp), not from the whole semi-discrete residual in AD.
  void residual_jacobian(const double* q, const double* v, const double* a, double t,
                         const model::JacobianCoefficients& c, double* r, double* J) const override {
    if (c.q != 0.0 || c.v != 0.0 || plain_ad_) {
      ForceElementAD::residual_jacobian(q, v, a, t, c, r, J);
      return;
    }
    residual(q, v, a, t, r);
    mass_matrix(q, v, c.a, J);
  }
  // Without the residual: the mass matrix alone needs no strains.
  void jacobian_alone(const double* q, const double* v, const double* a, double t,
                      const model::JacobianCoefficients& c, double* scratch, double* J) const override {
    if (c.q != 0.0 || c.v != 0.0 || plain_ad_) {
      residual_jacobian(q, v, a, t, c, scratch, J);
      return;
    }
    mass_matrix(q, v, c.a, J);
  }
  // J = c_a M(q) = c_a blockdiag(T_vv).
  void mass_matrix(const double* q, const double* v, double c_a, double* J) const {
    const KineticHessian k = momenta_derivatives().kinetic_hessian(q, v, false, false);
    Matrix16 mass{};
    for (int b = 0; b < 2; ++b) add_block(k.vv[b], b, b, c_a, mass);
    for (int i = 0; i < kCoordinates * kCoordinates; ++i) J[i] = mass[i];
  }

  // ---- the trapezoidal discrete Lagrangian in time -------------------------------------------------------------
  // q^n = q_mid - h/2 v_mid, q^{n+1} = q_mid + h/2 v_mid, v = v_mid, L_q = T_q - (V + U)_q:
  //   minus = D1 L_d + f^- = h/2 L_q(q^n, v) - (T_v(q^n, v) + T_v(q^{n+1}, v))/2 + f^-,
  //   plus  = D2 L_d + f^+ = h/2 L_q(q^{n+1}, v) + (T_v(q^n, v) + T_v(q^{n+1}, v))/2 + f^+,
  // f^-/f^+ the damping forces on the corners at t_n / t_{n+1}. h = 0: plus = T_v(q, v).
  template <class S, class P> void trapezoidal_momenta(const S* q_mid, const S* v_mid, const P* p, double h, S* minus,
                                                       S* plus) const {
    std::array<S, kCoordinates> q0, q1, lq0, lq1, lv;
    for (int i = 0; i < kCoordinates; ++i) {
      q0[i] = q_mid[i] - 0.5 * h * v_mid[i];
      q1[i] = q_mid[i] + 0.5 * h * v_mid[i];
      lq0[i] = lq1[i] = lv[i] = 0.0;
    }
    add_kinetic_gradient(q0.data(), v_mid, p, h != 0.0 ? lq0.data() : nullptr, lv.data());
    add_kinetic_gradient(q1.data(), v_mid, p, h != 0.0 ? lq1.data() : nullptr, lv.data());
    for (int i = 0; i < kCoordinates; ++i) {
      minus[i] = -0.5 * lv[i];
      plus[i] = 0.5 * lv[i];
    }
    if (h == 0.0) return;
    std::array<S, kCoordinates> vq0, vq1;
    for (int i = 0; i < kCoordinates; ++i) vq0[i] = vq1[i] = 0.0;
    // f^-/+ = -h ds (dk/dq)^T D~ k_dot at q^n / q^{n+1}, k_dot = (k^{n+1} - k^n)/h: with (V + U)_q, which enters
    // with -h/2, as 2 ds (dk/dq)^T D~ k_dot.
    // Without damping the damping forces vanish, not their derivatives in eta and zeta (P an AD type).
    const bool with_damping = damped() || !std::is_same_v<P, double>;
    const auto k0 = strains(q0.data(), p), k1 = strains(q1.data(), p);
    std::array<S, 2 * kNode> rate;
    if (with_damping)
      for (int j = 0; j < 2 * kNode; ++j) rate[j] = (k1[j] - k0[j]) / h;
    const std::array<S, 2 * kNode>* damping_rate = with_damping ? &rate : nullptr;
    add_internal_forces(q0.data(), k0, damping_rate, p, vq0.data());
    add_internal_forces(q1.data(), k1, damping_rate, p, vq1.data());
    for (int i = 0; i < kCoordinates; ++i) {
      minus[i] += 0.5 * h * (lq0[i] - vq0[i]);
      plus[i] += 0.5 * h * (lq1[i] - vq1[i]);
    }
  }

  // mu_minus . minus + mu_plus . plus of the trapezoidal momenta, in the scalar type of the seeded inputs.
  template <class S, class P>
  S pairing_of(const S* q_mid, const S* v_mid, const P* p, double h, const double* mu_minus,
               const double* mu_plus) const {
    std::array<S, kCoordinates> minus, plus;
    trapezoidal_momenta<S, P>(q_mid, v_mid, p, h, minus.data(), plus.data());
    S pairing = 0.0;
    for (int i = 0; i < kCoordinates; ++i) pairing += mu_minus[i] * minus[i] + mu_plus[i] * plus[i];
    return pairing;
  }
  // Derivatives in one end of the step: slot j carries d/dq_end_j, 1/2 in q_mid_j and +-1/h in v_mid_j (h = 0: the
  // derivative in q of the state (q, v): 1 in q_j, 0 in v_j).
  using EndFad = Sacado::Fad::SFad<double, kCoordinates>;
  static void seed_end(const double* q_mid, const double* v_mid, double h, bool second, EndFad* q, EndFad* v) {
    const double q_seed = h > 0.0 ? 0.5 : 1.0, v_seed = h > 0.0 ? (second ? 1.0 : -1.0) / h : 0.0;
    for (int i = 0; i < kCoordinates; ++i) {
      q[i] = EndFad(kCoordinates, i, q_mid[i]);
      q[i].fastAccessDx(i) = q_seed;
      v[i] = EndFad(kCoordinates, i, v_mid[i]);
      v[i].fastAccessDx(i) = v_seed;
    }
  }

  void discrete_momenta(const double* q_mid, const double* v_mid, double, double h, double* minus, double* plus,
                        double* jacobian, double* plus_jacobian) const override {
    if (!jacobian || !plain_ad_) trapezoidal_momenta<double, double>(q_mid, v_mid, parameters().data(), h, minus, plus);
    if (!jacobian) return;
    if (!plain_ad_) {  // the Jacobians written out (dual_quaternion_derivatives.hpp)
      EndJacobians J;
      momenta_derivatives().end_jacobians(q_mid, v_mid, h, plus_jacobian != nullptr, J);
      const double rate = h > 0.0 ? 1.0 / h : 0.0;
      for (int k = 0; k < kCoordinates * kCoordinates; ++k) {
        jacobian[k] = J.minus_second[k] - rate * J.mass_mean[k];
        if (plus_jacobian) plus_jacobian[k] = J.plus_second[k] + rate * J.mass_mean[k];
      }
      return;
    }
    // Slot j carries d/dq^{n+1}_j: 1/2 in q_mid_j and 1/h in v_mid_j.
    std::array<EndFad, kCoordinates> q, v, m, pl;
    seed_end(q_mid, v_mid, h, true, q.data(), v.data());
    trapezoidal_momenta<EndFad, double>(q.data(), v.data(), parameters().data(), h, m.data(), pl.data());
    for (int i = 0; i < kCoordinates; ++i) {
      minus[i] = m[i].val();
      plus[i] = pl[i].val();
      for (int j = 0; j < kCoordinates; ++j) jacobian[i * kCoordinates + j] = m[i].fastAccessDx(j);
      if (plus_jacobian)
        for (int j = 0; j < kCoordinates; ++j) plus_jacobian[i * kCoordinates + j] = pl[i].fastAccessDx(j);
    }
  }

  // h = 0: minus = -T_v(q, v), plus = T_v(q, v), and the pairing z . T_v with z = mu_plus - mu_minus is
  // 2 ds sum_b y_b . conj(q_b) z_b, y_b = M~ conj(q_b) v_b: its derivatives are the bilinear products, written out
  // (the sweep needs both at every step).
  void add_kinetic_momentum_transposed(const double* q, const double* v, const double* mu_minus,
                                       const double* mu_plus, double* out_q, double* out_v) const {
    kinetic_momentum_transposed(q, v, parameters().data(), mu_minus, mu_plus, out_q, out_v);
  }
  template <class S>
  void kinetic_momentum_transposed(const S* q, const S* v, const S* p, const double* mu_minus, const double* mu_plus,
                                   S* out_q, S* out_v) const {
    const auto weights = mass_weights(p);
    const S twice_length = 2.0 * p[kLength];
    std::array<S, kNode> z;
    for (int b = 0; b < 2; ++b) {
      const S *qb = q + kNode * b, *vb = v + kNode * b;
      for (int i = 0; i < kNode; ++i) z[i] = mu_plus[kNode * b + i] - mu_minus[kNode * b + i];
      const auto w = dual_conjugate_times(qb, vb), on_z = dual_conjugate_times(qb, z.data());
      std::array<S, kNode> y, u;
      for (int i = 0; i < kNode; ++i) {
        y[i] = twice_length * weights[i] * w[i];
        u[i] = twice_length * weights[i] * on_z[i];
      }
      add_gradient_in_first(vb, u.data(), out_q + kNode * b);
      add_gradient_in_first(z.data(), y.data(), out_q + kNode * b);
      if (out_v) add_gradient_in_second(qb, u.data(), out_v + kNode * b);
    }
  }

  void add_discrete_momenta_transposed_products(const double* q_mid, const double* v_mid, double, double h,
                                                const double* mu_minus, const double* mu_plus, double* out_q,
                                                double* out_v) const override {
    if (h == 0.0 && !plain_ad_) {
      add_kinetic_momentum_transposed(q_mid, v_mid, mu_minus, mu_plus, out_q, out_v);
      return;
    }
    if (!plain_ad_) {
      // From the partials in (q^n, q^{n+1}, v) (dual_quaternion_derivatives.hpp): d/dq_mid = d0 + d1,
      // d/dv_mid = h/2 (d1 - d0) + dv.
      std::array<double, kCoordinates> d0{}, d1{}, dv{};
      momenta_derivatives().add_pairing_partials(q_mid, v_mid, h, mu_minus, mu_plus, d0.data(), d1.data(), dv.data());
      for (int j = 0; j < kCoordinates; ++j) {
        out_q[j] += d0[j] + d1[j];
        out_v[j] += 0.5 * h * (d1[j] - d0[j]) + dv[j];
      }
      return;
    }
    using Fad = Sacado::Fad::SFad<double, 2 * kCoordinates>;
    std::array<Fad, kCoordinates> q, v;
    for (int i = 0; i < kCoordinates; ++i) {
      q[i] = Fad(2 * kCoordinates, i, q_mid[i]);
      v[i] = Fad(2 * kCoordinates, kCoordinates + i, v_mid[i]);
    }
    const Fad pairing = pairing_of<Fad, double>(q.data(), v.data(), parameters().data(), h, mu_minus, mu_plus);
    if (!pairing.hasFastAccess()) return;
    for (int j = 0; j < kCoordinates; ++j) {
      out_q[j] += pairing.fastAccessDx(j);
      out_v[j] += pairing.fastAccessDx(kCoordinates + j);
    }
  }

  void add_discrete_momenta_transposed_product_at_end(const double* q_mid, const double* v_mid, double, double h,
                                                      const double* mu_minus, const double* mu_plus, bool second,
                                                      double* out) const override {
    if (h == 0.0 && !plain_ad_) {
      add_kinetic_momentum_transposed(q_mid, v_mid, mu_minus, mu_plus, out, nullptr);
      return;
    }
    if (!plain_ad_) {
      // d/dq^{n+1} = d1 + dv/h, d/dq^n = d0 - dv/h (v = (q^{n+1} - q^n)/h).
      std::array<double, kCoordinates> d0{}, d1{}, dv{};
      momenta_derivatives().add_pairing_partials(q_mid, v_mid, h, mu_minus, mu_plus, d0.data(), d1.data(), dv.data());
      for (int j = 0; j < kCoordinates; ++j) out[j] += second ? d1[j] + dv[j] / h : d0[j] - dv[j] / h;
      return;
    }
    std::array<EndFad, kCoordinates> q, v;
    seed_end(q_mid, v_mid, h, second, q.data(), v.data());
    const EndFad pairing =
        pairing_of<EndFad, double>(q.data(), v.data(), parameters().data(), h, mu_minus, mu_plus);
    if (!pairing.hasFastAccess()) return;
    for (int j = 0; j < kCoordinates; ++j) out[j] += pairing.fastAccessDx(j);
  }

  // The parameter gradient of mu_minus . minus + mu_plus . plus: linear in the weights at a fixed length, with the
  // coefficients from one pass in doubles (weight_coefficients) and the partials written out
  // (dual_quaternion_parameter_partials.hpp). The reference: forward AD over every parameter through the momenta.
  void add_discrete_momenta_parameter_gradient(const double* q_mid, const double* v_mid, double, double h,
                                               const double* mu_minus, const double* mu_plus,
                                               double* gradient) const override {
    const double* p = parameters().data();
    if (!plain_ad_) {
      add_weight_parameter_partials(*this, p, weight_coefficients(q_mid, v_mid, h, mu_minus, mu_plus), gradient);
      return;
    }
    using Fad = Sacado::Fad::SFad<double, kParameterCount>;
    std::array<Fad, kCoordinates> q, v;
    std::array<Fad, kParameterCount> pf;
    for (int i = 0; i < kCoordinates; ++i) {
      q[i] = q_mid[i];
      v[i] = v_mid[i];
    }
    for (int k = 0; k < kParameterCount; ++k) pf[k] = Fad(kParameterCount, k, p[k]);
    const Fad pairing = pairing_of<Fad, Fad>(q.data(), v.data(), pf.data(), h, mu_minus, mu_plus);
    if (pairing.hasFastAccess())
      for (int k = 0; k < kParameterCount; ++k) gradient[k] += pairing.fastAccessDx(k);
  }

  // Second-order adjoint of the variational integrator: the trapezoidal momenta along a direction e of
  // (q_mid, v_mid, p) by one-direction forward AD, and the e-derivative of their transposed products and parameter
  // partials by forward over forward AD of the pairing mu_minus . minus + mu_plus . plus (the outer slots q_mid,
  // v_mid and the wanted parameters, each value carrying e). The beam reads no control signal.
  void discrete_momenta_tangent(const double* q_mid, const double* v_mid, double, double h, const double* q_mid_dot,
                                const double* v_mid_dot, const double* p_dot, double, double* minus_dot,
                                double* plus_dot) const override {
    using Tangent = Sacado::Fad::SFad<double, 1>;
    std::array<Tangent, kCoordinates> q, v, minus, plus;
    std::array<Tangent, kParameterCount> p;
    for (int i = 0; i < kCoordinates; ++i) {
      q[i] = tangent_of(q_mid[i], q_mid_dot[i]);
      v[i] = tangent_of(v_mid[i], v_mid_dot[i]);
    }
    for (int k = 0; k < kParameterCount; ++k) p[k] = tangent_of(parameters()[k], p_dot[k]);
    trapezoidal_momenta<Tangent, Tangent>(q.data(), v.data(), p.data(), h, minus.data(), plus.data());
    for (int i = 0; i < kCoordinates; ++i) {
      minus_dot[i] = minus[i].fastAccessDx(0);
      plus_dot[i] = plus[i].fastAccessDx(0);
    }
  }

  // The state part is the derivative along e of the transposed products written out (add_pairing_partials, and
  // the kinetic pairing at h = 0) in one-direction AD; the parameter part, where parameters are wanted, a nested
  // pass whose outer slots are the wanted parameters alone.
  double add_discrete_momenta_second_order_products(const double* q_mid, const double* v_mid, double, double h,
                                                    const double* q_mid_dot, const double* v_mid_dot,
                                                    const double* p_dot, double, const double* mu_minus,
                                                    const double* mu_plus, double* out_q, double* out_v,
                                                    double* gradient, model::ParameterMask wanted) const override {
    using Tangent = Sacado::Fad::SFad<double, 1>;
    constexpr int n = kCoordinates;
    std::array<Tangent, n> q, v, d0, d1, dv;
    std::array<Tangent, kParameterCount> p;
    for (int i = 0; i < n; ++i) {
      q[i] = tangent_of(q_mid[i], q_mid_dot[i]);
      v[i] = tangent_of(v_mid[i], v_mid_dot[i]);
      d0[i] = d1[i] = dv[i] = 0.0;
    }
    for (int k = 0; k < kParameterCount; ++k) p[k] = tangent_of(parameters()[k], p_dot[k]);
    if (plain_ad_) {
      nested_second_order_products(q.data(), v.data(), p.data(), h, mu_minus, mu_plus, true, out_q, out_v, gradient,
                                   wanted);
      return 0.0;
    }
    if (h == 0.0) {
      kinetic_momentum_transposed(q.data(), v.data(), p.data(), mu_minus, mu_plus, d0.data(), dv.data());
      for (int j = 0; j < n; ++j) {
        out_q[j] += d0[j].fastAccessDx(0);
        out_v[j] += dv[j].fastAccessDx(0);
      }
    } else {
      // Damping on: its weights carry the direction's derivative even where eta = zeta = 0.
      const MomentaDerivativesOf<Tangent> derivatives(*this, p.data(), true);
      derivatives.add_pairing_partials(q.data(), v.data(), h, mu_minus, mu_plus, d0.data(), d1.data(), dv.data());
      for (int j = 0; j < n; ++j) {
        out_q[j] += d0[j].fastAccessDx(0) + d1[j].fastAccessDx(0);
        out_v[j] += 0.5 * h * (d1[j].fastAccessDx(0) - d0[j].fastAccessDx(0)) + dv[j].fastAccessDx(0);
      }
    }
    nested_second_order_products(q.data(), v.data(), p.data(), h, mu_minus, mu_plus, false, out_q, out_v, gradient,
                                 wanted);
    return 0.0;
  }

  // Forward over forward AD of the pairing mu_minus . minus + mu_plus . plus, the values carrying e (q, v, p): the
  // outer slots are q_mid and v_mid (with_state) and the wanted parameters; out_q, out_v and gradient receive the
  // e-derivatives of the outer gradient. The reference of the products above, and their parameter part.
  template <class Tangent>
  void nested_second_order_products(const Tangent* q_mid, const Tangent* v_mid, const Tangent* p_tangent, double h,
                                    const double* mu_minus, const double* mu_plus, bool with_state, double* out_q,
                                    double* out_v, double* gradient, model::ParameterMask wanted) const {
    using Outer = Sacado::Fad::SLFad<Tangent, 2 * kCoordinates + kParameterCount>;
    constexpr int n = kCoordinates;
    std::array<int, model::kMaxComponentParameters> seeded;
    const int ns = model::wanted_parameters(wanted, kParameterCount, seeded);
    const int first = with_state ? 2 * n : 0, slots = first + ns;
    if (slots == 0) return;
    std::array<Outer, kCoordinates> q, v;
    std::array<Outer, kParameterCount> p;
    for (int i = 0; i < n; ++i) {
      q[i] = with_state ? Outer(slots, i, q_mid[i]) : Outer(q_mid[i]);
      v[i] = with_state ? Outer(slots, n + i, v_mid[i]) : Outer(v_mid[i]);
    }
    for (int k = 0; k < kParameterCount; ++k) p[k] = Outer(p_tangent[k]);
    for (int j = 0; j < ns; ++j) p[seeded[j]] = Outer(slots, first + j, p_tangent[seeded[j]]);
    const Outer pairing = pairing_of<Outer, Outer>(q.data(), v.data(), p.data(), h, mu_minus, mu_plus);
    if (!pairing.hasFastAccess()) return;
    if (with_state)
      for (int j = 0; j < n; ++j) {
        out_q[j] += pairing.fastAccessDx(j).fastAccessDx(0);
        out_v[j] += pairing.fastAccessDx(n + j).fastAccessDx(0);
      }
    for (int j = 0; j < ns; ++j) gradient[seeded[j]] += pairing.fastAccessDx(first + j).fastAccessDx(0);
  }

  // The reference: every derivative by forward AD over the templated momenta and residual (tests only).
  void use_plain_ad() { plain_ad_ = true; }

  static Sacado::Fad::SFad<double, 1> tangent_of(double x, double dx) {
    Sacado::Fad::SFad<double, 1> y(1, 0, x);
    y.fastAccessDx(0) = dx;
    return y;
  }

  // d(pairing)/d(weight) at fixed length, for the trapezoidal momenta above: lv = T_v(q^n) + T_v(q^{n+1}) enters
  // with z_v = (mu_plus - mu_minus)/2, T_q(q^n) - (V + U)_q(q^n) with z_0 = h/2 mu_minus, at q^{n+1} with z_1 = h/2
  // mu_plus. A product linear in its first (second) factor contracted with z is the product with z in that factor:
  // z . d/da (y . conj(a) b) = y . conj(z) b, z . (dk/dq)^T y = y . dk[z].
  WeightCoefficients weight_coefficients(const double* q_mid, const double* v_mid, double h, const double* mu_minus,
                                         const double* mu_plus) const {
    const double length = parameters()[kLength];
    WeightCoefficients c;
    const StepEnds ends(q_mid, v_mid, h, mu_minus, mu_plus);
    const auto& q = ends.q;
    const auto& z = ends.z;
    const auto& z_v = ends.z_v;
    // Kinetic: y_i = 2 ds M~_i w_i, w = conj(q_b) v_b; T_v = grad2(q_b, y), T_q = grad1(v_b, y) (h > 0 only).
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) {
        const double *qb = q[a].data() + kNode * b, *vb = v_mid + kNode * b;
        const auto w = dual_conjugate_times(qb, vb);
        auto on_y = dual_conjugate_times(qb, z_v.data() + kNode * b);
        if (h != 0.0) {
          const auto on_q = dual_conjugate_times(z[a].data() + kNode * b, vb);
          for (int i = 0; i < kNode; ++i) on_y[i] += on_q[i];
        }
        for (int i = 0; i < kNode; ++i) c.mass[i] += 2.0 * length * w[i] * on_y[i];
      }
    if (h == 0.0) return c;
    // Internal forces, with -z: y_j = 2 ds (C~ (k_j - k0_j) + D~ k_dot_j); the weight force 2 F q_d, -2 F q_r.
    const auto k0 = strains(q[0].data(), parameters().data()), k1 = strains(q[1].data(), parameters().data());
    for (int a = 0; a < 2; ++a) {
      const auto& k = a == 0 ? k0 : k1;
      const auto dk = strain_change(q[a].data(), z[a].data(), length);
      for (int j = 0; j < 2 * kNode; ++j) {
        c.stiffness[j % kNode] -= 2.0 * length * (k[j] - reference_strains_[j]) * dk[j];
        c.stiffness_strain[j % kNode] -= 2.0 * length * k[j] * dk[j];
        c.damping[j % kNode] -= 2.0 * length * (k1[j] - k0[j]) / h * dk[j];
      }
      for (int m = 0; m < 3; ++m) {
        std::array<double, 4> e{0.0, 0.0, 0.0, 0.0};
        e[1 + m] = 1.0;
        for (int b = 0; b < 2; ++b) {
          const double *qb = q[a].data() + kNode * b, *zb = z[a].data() + kNode * b;
          std::array<double, 4> on_r{0.0, 0.0, 0.0, 0.0}, on_d{0.0, 0.0, 0.0, 0.0};
          add_product(e.data(), qb + 4, on_r.data());
          add_product(e.data(), qb, on_d.data());
          for (int i = 0; i < 4; ++i) c.force[m] -= 2.0 * zb[i] * on_r[i] - 2.0 * zb[4 + i] * on_d[i];
        }
      }
    }
    return c;
  }
  double potential_energy(const double* q, double) const override {
    return potential<double, double>(q, parameters().data());
  }

  // Normal and shear forces, torsion and bending moments in the section frame, the mean of the two corners: the
  // physical strains are 2 (k - k0), the resultants C 2 (k - k0).
  int resultant_count() const override { return 6; }
  void resultants(const double* q, const double*, double* out) const override {
    const auto C = stiffness_weights(parameters().data());
    const auto k = strains(q, parameters().data());
    for (int i = 0; i < 3; ++i) {
      double force = 0.0, moment = 0.0;
      for (int b = 0; b < 2; ++b) {
        force += C[5 + i] * (k[kNode * b + 5 + i] - reference_strains_[kNode * b + 5 + i]);
        moment += C[1 + i] * (k[kNode * b + 1 + i] - reference_strains_[kNode * b + 1 + i]);
      }
      out[i] = force;  // 2 (.)/2: twice the strain, the mean of two corners
      out[3 + i] = moment;
    }
  }
  void section_point(const double* q, double* x) const override {
    const auto a = model::dual_quaternion_position(q), b = model::dual_quaternion_position(q + kNode);
    for (int i = 0; i < 3; ++i) x[i] = 0.5 * (a[i] + b[i]);
  }

 private:
  using EndJacobians = DualQuaternionMomentaDerivatives::EndJacobians;
  DualQuaternionMomentaDerivatives momenta_derivatives() const {
    return DualQuaternionMomentaDerivatives(*this, parameters().data(), damped());
  }
  bool plain_ad_ = false;
};

}  // namespace

DualQuaternionBeamReference dual_quaternion_beam_reference(const double* q) {
  DualQuaternionBeamReference reference;
  const auto a = model::dual_quaternion_position(q), b = model::dual_quaternion_position(q + kNode);
  reference.length = std::sqrt(model::dot(model::subtract(b, a), model::subtract(b, a)));
  std::array<double, kNode> slope;
  for (int i = 0; i < kNode; ++i) slope[i] = (q[kNode + i] - q[i]) / reference.length;
  for (int node = 0; node < 2; ++node) {
    const auto k = dual_conjugate_times(q + kNode * node, slope.data());
    for (int i = 0; i < kNode; ++i) reference.strains[kNode * node + i] = k[i];
  }
  return reference;
}

std::unique_ptr<model::ForceElement> make_dual_quaternion_beam(const std::string& name, std::array<int, 2> nodes,
                                                               const BeamSectionData& section,
                                                               const DualQuaternionBeamReference& reference,
                                                               const Point& gravity) {
  return std::make_unique<DualQuaternionBeam>(name, nodes, section, reference, gravity);
}

std::unique_ptr<model::ForceElement> make_dual_quaternion_beam_plain_ad(const std::string& name,
                                                                        std::array<int, 2> nodes,
                                                                        const BeamSectionData& section,
                                                                        const DualQuaternionBeamReference& reference,
                                                                        const Point& gravity) {
  auto beam = std::make_unique<DualQuaternionBeam>(name, nodes, section, reference, gravity);
  beam->use_plain_ad();
  return beam;
}

}  // namespace flexadj::elements
