#pragma once
// Sacado adaptors that turn a templated kernel into the double-valued interfaces of component.hpp.
// Include only in the .cpp files that define components: Sacado headers are heavy.
//
// Force kernels provide
//   template <class S, class P> void evaluate(const S* q, const S* v, const S* a, const P* p, double t, S* r) const;
// Kernels with inertia also provide their kinetic energy and the residual without inertia terms,
//   template <class S, class P> S kinetic(const S* q, const S* v, const P* p) const;
//   template <class S, class P> void applied(const S* q, const S* v, const P* p, double t, S* r) const;
// with evaluate() = the hand-written inertia terms (d/dt T_v - T_q) + applied(). A kernel without kinetic() has no
// inertia: its evaluate() does not depend on a and is all of its applied residual.
// Constraint kernels (constraint_ad.hpp, which includes this file) provide
//   template <class S, class P> void evaluate(const S* q, const S& t, const P* p, S* c) const;
// where p are the component's parameters. Static-length Fad types: no heap allocation per evaluation.
#include "flexadj/model/discrete_momenta_ad.hpp"

namespace flexadj::model {

// FixedLength: the element always has exactly MaxCoordinates coordinates (and at most kMaxComponentParameters
// parameters); its Fad types are then the fixed-length SFad, whose unrolled loops are faster than SLFad's.
// The discrete momenta of the variational integrator come from DiscreteMomentaAD.
template <class Derived, int MaxCoordinates, bool FixedLength = false>
class ForceElementAD : public DiscreteMomentaAD<Derived, MaxCoordinates, FixedLength> {
 public:
  using Momenta = DiscreteMomentaAD<Derived, MaxCoordinates, FixedLength>;
  using typename Momenta::Fad;
  template <int N, class Scalar = double>
  using FadOf = typename Momenta::template FadOf<N, Scalar>;
  using Momenta::Momenta;
  using Momenta::coordinate_count, Momenta::parameters;

  void residual(const double* q, const double* v, const double* a, double t, double* r) const override {
    const int n = coordinate_count();
    for (int i = 0; i < n; ++i) r[i] = 0.0;
    derived().template evaluate<double, double>(q, v, a, parameters().data(), t, r);
  }

  // One Fad evaluation: slot j carries c.q in q_j, c.v in v_j and c.a in a_j (the combined matrix of
  // Kiefer and Kennedy's TACS: alpha dR/dq + beta dR/dv + gamma dR/da). A component with exactly MaxCoordinates
  // coordinates (the common case: make_with_capacity) takes the fixed-length SFad, whose unrolled loops avoid
  // SLFad's calls to memcpy and memset for every copy and temporary.
  void residual_jacobian(const double* q, const double* v, const double* a, double t, const JacobianCoefficients& c,
                         double* r, double* J) const override {
    if (coordinate_count() == MaxCoordinates)
      residual_jacobian_as<Sacado::Fad::SFad<double, MaxCoordinates>>(q, v, a, t, c, r, J);
    else
      residual_jacobian_as<Fad>(q, v, a, t, c, r, J);
  }

  void applied_residual(const double* q, const double* v, double t, double* r) const override {
    for (int i = 0; i < coordinate_count(); ++i) r[i] = 0.0;
    this->template add_applied<double, double>(q, v, parameters().data(), t, r);
  }

  double kinetic_energy(const double* q, const double* v) const override {
    if constexpr (HasKineticEnergy<Derived>::value)
      return derived().template kinetic<double, double>(q, v, parameters().data());
    else
      return 0.0;
  }


  // The three Jacobians of residual_jacobians() (one evaluation, q, v and a in separate slots), contracted with mu.
  void add_transposed_products(const double* q, const double* v, const double* a, double t, const double* mu,
                               double* out_q, double* out_v, double* out_a) const override {
    const int n = coordinate_count();
    std::array<double, MaxCoordinates> r;
    std::array<double, 3 * MaxCoordinates * MaxCoordinates> jacobians;
    double *dr_dq = jacobians.data(), *dr_dv = dr_dq + n * n, *dr_da = dr_dv + n * n;
    residual_jacobians(q, v, a, t, r.data(), dr_dq, dr_dv, dr_da);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        out_q[j] += mu[i] * dr_dq[i * n + j];
        out_v[j] += mu[i] * dr_dv[i * n + j];
        out_a[j] += mu[i] * dr_da[i * n + j];
      }
  }

  // One evaluation with q, v and a seeded in separate slots gives all three Jacobians (fixed-length SFad when the
  // component has exactly MaxCoordinates coordinates, as in residual_jacobian); a kernel without kinetic() does not
  // depend on a (see the top of this file): its a slots are left out and dr/da is zero.
  void residual_jacobians(const double* q, const double* v, const double* a, double t, double* r, double* dr_dq,
                          double* dr_dv, double* dr_da) const override {
    constexpr int kSlotsPerCoordinate = HasKineticEnergy<Derived>::value ? 3 : 2;
    if (coordinate_count() == MaxCoordinates)
      residual_jacobians_as<Sacado::Fad::SFad<double, kSlotsPerCoordinate * MaxCoordinates>>(q, v, a, t, r, dr_dq,
                                                                                            dr_dv, dr_da);
    else
      residual_jacobians_as<FadOf<kSlotsPerCoordinate * MaxCoordinates>>(q, v, a, t, r, dr_dq, dr_dv, dr_da);
  }

  // One wanted parameter (a stiffness, a mass: the common case) takes a one-slot SFad.
  void add_parameter_gradient(const double* q, const double* v, const double* a, double t, const double* mu,
                              double* gradient, ParameterMask wanted = kAllParameters) const override {
    const int np = static_cast<int>(parameters().size());
    assert(np <= kMaxComponentParameters);
    std::array<int, kMaxComponentParameters> seeded;
    const int ns = wanted_parameters(wanted, np, seeded);
    if (ns == 0) return;
    if (ns == 1)
      add_parameter_gradient_as<Sacado::Fad::SFad<double, 1>>(q, v, a, t, mu, gradient, seeded, ns);
    else
      add_parameter_gradient_as<FadOf<kMaxComponentParameters>>(q, v, a, t, mu, gradient, seeded, ns);
  }

  // Tangent: one SFad direction e over state, parameters and control value (forward mode).
  void residual_tangent(const double* q, const double* v, const double* a, double t, const double* q_dot,
                        const double* v_dot, const double* a_dot, const double* p_dot, double u_dot,
                        double* r_dot) const override {
    using Tangent = Sacado::Fad::SFad<double, 1>;
    const int n = coordinate_count(), np = static_cast<int>(parameters().size());
    std::array<Tangent, MaxCoordinates> qf, vf, af, rf;
    std::array<Tangent, kMaxComponentParameters> pf;
    auto seeded = [](double x, double dx) {
      Tangent y(1, 0, x);
      y.fastAccessDx(0) = dx;
      return y;
    };
    // Every entry set (past n and np to zero), so that no kernel reads an indeterminate value.
    for (int i = 0; i < MaxCoordinates; ++i) {
      qf[i] = i < n ? seeded(q[i], q_dot[i]) : Tangent(0.0);
      vf[i] = i < n ? seeded(v[i], v_dot[i]) : Tangent(0.0);
      af[i] = i < n ? seeded(a[i], a_dot[i]) : Tangent(0.0);
      rf[i] = Tangent(0.0);
    }
    for (int k = 0; k < kMaxComponentParameters; ++k) pf[k] = k < np ? seeded(parameters()[k], p_dot[k]) : Tangent(0.0);
    evaluate_with_control_value(qf.data(), vf.data(), af.data(), pf.data(), seeded(control_value(t), u_dot), t,
                                rf.data());
    for (int i = 0; i < n; ++i) r_dot[i] = rf[i].dx(0);
  }

  // Forward over forward: the outer Fad's slots are q, v, (a,) the wanted parameters and u; each value carries
  // the inner direction e. The outer gradient of mu . r is ((dr/dx)^T mu, mu . dr/dp, mu . dr/du), its
  // e-derivative what is asked.
  double add_second_order_products(const double* q, const double* v, const double* a, double t, const double* q_dot,
                                   const double* v_dot, const double* a_dot, const double* p_dot, double u_dot,
                                   const double* mu, double* out_q, double* out_v, double* out_a, double* gradient,
                                   ParameterMask wanted = kAllParameters) const override {
    using Tangent = Sacado::Fad::SFad<double, 1>;
    using Outer = Sacado::Fad::SLFad<Tangent, 3 * MaxCoordinates + kMaxComponentParameters + 1>;
    constexpr bool with_inertia = HasKineticEnergy<Derived>::value;
    const int n = coordinate_count(), np = static_cast<int>(parameters().size());
    std::array<int, kMaxComponentParameters> seeded_parameters;
    const int ns = wanted_parameters(wanted, np, seeded_parameters);
    const int a_slots = with_inertia ? n : 0, first_parameter = 2 * n + a_slots, u_slot = first_parameter + ns;
    const int slots = u_slot + 1;
    auto tangent = [](double x, double dx) {
      Tangent y(1, 0, x);
      y.fastAccessDx(0) = dx;
      return y;
    };
    std::array<Outer, MaxCoordinates> qf, vf, af, rf;
    std::array<Outer, kMaxComponentParameters> pf;
    for (int i = n; i < MaxCoordinates; ++i) qf[i] = vf[i] = af[i] = rf[i] = Outer(Tangent(0.0));
    for (int i = 0; i < n; ++i) {
      qf[i] = Outer(slots, i, tangent(q[i], q_dot[i]));
      vf[i] = Outer(slots, n + i, tangent(v[i], v_dot[i]));
      af[i] = with_inertia ? Outer(slots, 2 * n + i, tangent(a[i], a_dot[i])) : Outer(tangent(a[i], a_dot[i]));
      rf[i] = Outer(slots, Tangent(0.0));
    }
    for (int k = 0; k < kMaxComponentParameters; ++k) pf[k] = Outer(k < np ? tangent(parameters()[k], p_dot[k]) : Tangent(0.0));
    for (int j = 0; j < ns; ++j)
      pf[seeded_parameters[j]] =
          Outer(slots, first_parameter + j, tangent(parameters()[seeded_parameters[j]], p_dot[seeded_parameters[j]]));
    evaluate_with_control_value(qf.data(), vf.data(), af.data(), pf.data(),
                                Outer(slots, u_slot, tangent(control_value(t), u_dot)), t, rf.data());
    Outer pairing(slots, Tangent(0.0));
    for (int i = 0; i < n; ++i) pairing += mu[i] * rf[i];
    if (!pairing.hasFastAccess()) return 0.0;
    for (int j = 0; j < n; ++j) {
      out_q[j] += pairing.fastAccessDx(j).dx(0);
      out_v[j] += pairing.fastAccessDx(n + j).dx(0);
      if (with_inertia) out_a[j] += pairing.fastAccessDx(2 * n + j).dx(0);
    }
    for (int j = 0; j < ns; ++j) gradient[seeded_parameters[j]] += pairing.fastAccessDx(first_parameter + j).dx(0);
    return pairing.fastAccessDx(u_slot).dx(0);
  }

 protected:
  // The Fad inputs of residual_jacobian: slot j carries c.q in q_j, c.v in v_j and c.a in a_j; r starts at zero.
  template <class JacobianFad>
  static void seed_combined(int n, const double* q, const double* v, const double* a, const JacobianCoefficients& c,
                            JacobianFad* qf, JacobianFad* vf, JacobianFad* af, JacobianFad* rf) {
    for (int i = 0; i < n; ++i) {
      qf[i] = JacobianFad(n, i, q[i]);
      qf[i].fastAccessDx(i) = c.q;
      vf[i] = JacobianFad(n, i, v[i]);
      vf[i].fastAccessDx(i) = c.v;
      af[i] = JacobianFad(n, i, a[i]);
      af[i].fastAccessDx(i) = c.a;
      rf[i] = JacobianFad(n, 0.0);
    }
  }

 private:
  using Momenta::control_value, Momenta::derived, Momenta::evaluate_with_control_value,
      Momenta::seeded_tangent;


  template <class JacobianFad>
  void residual_jacobian_as(const double* q, const double* v, const double* a, double t,
                            const JacobianCoefficients& c, double* r, double* J) const {
    const int n = coordinate_count();
    assert(n <= MaxCoordinates);
    std::array<JacobianFad, MaxCoordinates> qf, vf, af, rf;
    seed_combined(n, q, v, a, c, qf.data(), vf.data(), af.data(), rf.data());
    derived().template evaluate<JacobianFad, double>(qf.data(), vf.data(), af.data(), parameters().data(), t,
                                                     rf.data());
    for (int i = 0; i < n; ++i) {
      r[i] = rf[i].val();
      for (int j = 0; j < n; ++j) J[i * n + j] = rf[i].hasFastAccess() ? rf[i].fastAccessDx(j) : 0.0;
    }
  }

  template <class StateFad>
  void residual_jacobians_as(const double* q, const double* v, const double* a, double t, double* r, double* dr_dq,
                             double* dr_dv, double* dr_da) const {
    constexpr bool with_inertia = HasKineticEnergy<Derived>::value;
    const int n = coordinate_count(), slots = (with_inertia ? 3 : 2) * n;
    std::array<StateFad, MaxCoordinates> qf, vf, af, rf;
    for (int i = 0; i < n; ++i) {
      qf[i] = StateFad(slots, i, q[i]);
      vf[i] = StateFad(slots, n + i, v[i]);
      af[i] = with_inertia ? StateFad(slots, 2 * n + i, a[i]) : StateFad(a[i]);
      rf[i] = StateFad(slots, 0.0);
    }
    derived().template evaluate<StateFad, double>(qf.data(), vf.data(), af.data(), parameters().data(), t, rf.data());
    for (int i = 0; i < n; ++i) {
      r[i] = rf[i].val();
      const bool any = rf[i].hasFastAccess();
      for (int j = 0; j < n; ++j) {
        dr_dq[i * n + j] = any ? rf[i].fastAccessDx(j) : 0.0;
        dr_dv[i * n + j] = any ? rf[i].fastAccessDx(n + j) : 0.0;
        dr_da[i * n + j] = any && with_inertia ? rf[i].fastAccessDx(2 * n + j) : 0.0;
      }
    }
  }

  template <class ParameterFad>
  void add_parameter_gradient_as(const double* q, const double* v, const double* a, double t, const double* mu,
                                 double* gradient, const std::array<int, kMaxComponentParameters>& seeded,
                                 int ns) const {
    const int n = coordinate_count(), np = static_cast<int>(parameters().size());
    std::array<ParameterFad, MaxCoordinates> qf, vf, af, rf;
    std::array<ParameterFad, kMaxComponentParameters> pf;
    for (int i = 0; i < n; ++i) {
      qf[i] = q[i];
      vf[i] = v[i];
      af[i] = a[i];
      rf[i] = ParameterFad(ns, 0.0);
    }
    for (int k = 0; k < np; ++k) pf[k] = parameters()[k];
    for (int j = 0; j < ns; ++j) pf[seeded[j]] = ParameterFad(ns, j, parameters()[seeded[j]]);
    derived().template evaluate<ParameterFad, ParameterFad>(qf.data(), vf.data(), af.data(), pf.data(), t, rf.data());
    for (int i = 0; i < n; ++i)
      if (rf[i].hasFastAccess())
        for (int j = 0; j < ns; ++j) gradient[seeded[j]] += mu[i] * rf[i].fastAccessDx(j);
  }
};

}  // namespace flexadj::model
