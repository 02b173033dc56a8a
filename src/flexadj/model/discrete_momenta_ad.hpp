#pragma once
// The discrete momenta of a force kernel for the variational integrator (component.hpp's discrete_momenta and its
// derivatives: the adjoint's transposed products, the parameter gradient, the tangent and second-order products),
// by Sacado over the kernel's kinetic energy and applied forces (see component_ad.hpp for the kernel's interface).
#include "flexadj/model/force_kernel_adaptor.hpp"

namespace flexadj::model {

template <class Derived, int MaxCoordinates, bool FixedLength = false>
class DiscreteMomentaAD : public ForceKernelAdaptor<Derived, MaxCoordinates, FixedLength> {
 public:
  using Adaptor = ForceKernelAdaptor<Derived, MaxCoordinates, FixedLength>;
  using typename Adaptor::Fad;
  template <int N, class Scalar = double>
  using FadOf = typename Adaptor::template FadOf<N, Scalar>;
  using Adaptor::Adaptor;
  using Adaptor::coordinate_count, Adaptor::name, Adaptor::parameters, Adaptor::trapezoidal_in_time, Adaptor::type;

  void discrete_momenta(const double* q_mid, const double* v_mid, double t_mid, double h, double* minus, double* plus,
                        double* jacobian, double* plus_jacobian) const override {
    if (jacobian)
      discrete_momenta_as<Fad>(q_mid, v_mid, t_mid, h, minus, plus, jacobian, plus_jacobian);
    else
      discrete_momenta_as<double>(q_mid, v_mid, t_mid, h, minus, plus, nullptr, nullptr);
  }

  // The gradient of the scalar mu_minus . minus + mu_plus . plus over the 2n slots (q_mid, v_mid) (the StateFad of
  // residual_jacobians, whose a slots stay unused).
  void add_discrete_momenta_transposed_products(const double* q_mid, const double* v_mid, double t_mid, double h,
                                                const double* mu_minus, const double* mu_plus, double* out_q,
                                                double* out_v) const override {
    using StateFad = FadOf<3 * MaxCoordinates>;
    const int n = coordinate_count();
    std::array<StateFad, MaxCoordinates> q, v;
    for (int i = 0; i < n; ++i) {
      q[i] = StateFad(3 * n, i, q_mid[i]);
      v[i] = StateFad(3 * n, n + i, v_mid[i]);
    }
    const StateFad pairing = momenta_pairing<StateFad, double>(q.data(), v.data(), parameters().data(), t_mid, h,
                                                               mu_minus, mu_plus, StateFad(3 * n, 0.0));
    if (!pairing.hasFastAccess()) return;
    for (int j = 0; j < n; ++j) {
      out_q[j] += pairing.fastAccessDx(j);
      out_v[j] += pairing.fastAccessDx(n + j);
    }
  }

  // Slot j carries d/dq_end_j: 1/2 in q_mid_j and -+1/h in v_mid_j (the seeding of discrete_momenta_as); h = 0: 1 in
  // q_j, 0 in v_j.
  void add_discrete_momenta_transposed_product_at_end(const double* q_mid, const double* v_mid, double t_mid, double h,
                                                      const double* mu_minus, const double* mu_plus, bool second,
                                                      double* out) const override {
    const int n = coordinate_count();
    const double q_seed = h > 0.0 ? 0.5 : 1.0, v_seed = h > 0.0 ? (second ? 1.0 : -1.0) / h : 0.0;
    std::array<Fad, MaxCoordinates> q, v;
    for (int i = 0; i < n; ++i) {
      q[i] = Fad(n, i, q_mid[i]);
      q[i].fastAccessDx(i) = q_seed;
      v[i] = Fad(n, i, v_mid[i]);
      v[i].fastAccessDx(i) = v_seed;
    }
    const Fad pairing =
        momenta_pairing<Fad, double>(q.data(), v.data(), parameters().data(), t_mid, h, mu_minus, mu_plus, Fad(n, 0.0));
    if (!pairing.hasFastAccess()) return;
    for (int j = 0; j < n; ++j) out[j] += pairing.fastAccessDx(j);
  }

  void add_discrete_momenta_parameter_gradient(const double* q_mid, const double* v_mid, double t_mid, double h,
                                               const double* mu_minus, const double* mu_plus,
                                               double* gradient) const override {
    using ParameterFad = FadOf<kMaxComponentParameters>;
    const int n = coordinate_count(), np = static_cast<int>(parameters().size());
    assert(np <= kMaxComponentParameters);
    if (np == 0) return;
    std::array<ParameterFad, MaxCoordinates> q, v;
    std::array<ParameterFad, kMaxComponentParameters> p;
    for (int i = 0; i < n; ++i) {
      q[i] = q_mid[i];
      v[i] = v_mid[i];
    }
    for (int k = 0; k < np; ++k) p[k] = ParameterFad(np, k, parameters()[k]);
    const ParameterFad pairing = momenta_pairing<ParameterFad, ParameterFad>(q.data(), v.data(), p.data(), t_mid, h,
                                                                             mu_minus, mu_plus, ParameterFad(np, 0.0));
    if (pairing.hasFastAccess())
      for (int k = 0; k < np; ++k) gradient[k] += pairing.fastAccessDx(k);
  }

  // Forward mode along e: (q_mid, v_mid, p, u) seeded with their directions in one SFad slot.
  void discrete_momenta_tangent(const double* q_mid, const double* v_mid, double t_mid, double h,
                                const double* q_mid_dot, const double* v_mid_dot, const double* p_dot, double u_dot,
                                double* minus_dot, double* plus_dot) const override {
    refuse_own_discrete_lagrangian();
    using Tangent = Sacado::Fad::SFad<double, 1>;
    const int n = coordinate_count(), np = static_cast<int>(parameters().size());
    std::array<Tangent, MaxCoordinates> q, v;
    std::array<Tangent, kMaxComponentParameters> p;
    for (int i = 0; i < MaxCoordinates; ++i) {
      q[i] = i < n ? seeded_tangent(q_mid[i], q_mid_dot[i]) : Tangent(0.0);
      v[i] = i < n ? seeded_tangent(v_mid[i], v_mid_dot[i]) : Tangent(0.0);
    }
    for (int k = 0; k < kMaxComponentParameters; ++k)
      p[k] = k < np ? seeded_tangent(parameters()[k], p_dot[k]) : Tangent(0.0);
    const Tangent u = seeded_tangent(control_value(t_mid), u_dot);
    // minus_e and plus_e are the pairings with the unit vectors: the tangent of each from one evaluation of the
    // forces and of T's gradient (discrete_momenta_as with S = Tangent).
    std::array<Tangent, MaxCoordinates> minus, plus;
    discrete_momenta_values<Tangent, Tangent>(q.data(), v.data(), p.data(), &u, t_mid, h, minus.data(), plus.data());
    for (int i = 0; i < n; ++i) {
      minus_dot[i] = minus[i].fastAccessDx(0);
      plus_dot[i] = plus[i].fastAccessDx(0);
    }
  }

  // Forward over forward, as add_second_order_products: the outer slots are q_mid, v_mid, the wanted parameters
  // and u, each value carrying the direction e; the outer gradient of the pairing mu_minus . minus + mu_plus . plus
  // is what add_discrete_momenta_transposed_products and _parameter_gradient give, its e-derivative what is asked.
  double add_discrete_momenta_second_order_products(const double* q_mid, const double* v_mid, double t_mid, double h,
                                                    const double* q_mid_dot, const double* v_mid_dot,
                                                    const double* p_dot, double u_dot, const double* mu_minus,
                                                    const double* mu_plus, double* out_q, double* out_v,
                                                    double* gradient, ParameterMask wanted) const override {
    refuse_own_discrete_lagrangian();
    using Tangent = Sacado::Fad::SFad<double, 1>;
    using Outer = Sacado::Fad::SLFad<Tangent, 2 * MaxCoordinates + kMaxComponentParameters + 1>;
    const int n = coordinate_count(), np = static_cast<int>(parameters().size());
    std::array<int, kMaxComponentParameters> seeded_parameters;
    const int ns = wanted_parameters(wanted, np, seeded_parameters);
    const int first_parameter = 2 * n, u_slot = first_parameter + ns, slots = u_slot + 1;
    std::array<Outer, MaxCoordinates> q, v;
    std::array<Outer, kMaxComponentParameters> p;
    for (int i = 0; i < MaxCoordinates; ++i) {
      q[i] = i < n ? Outer(slots, i, seeded_tangent(q_mid[i], q_mid_dot[i])) : Outer(Tangent(0.0));
      v[i] = i < n ? Outer(slots, n + i, seeded_tangent(v_mid[i], v_mid_dot[i])) : Outer(Tangent(0.0));
    }
    for (int k = 0; k < kMaxComponentParameters; ++k)
      p[k] = Outer(k < np ? seeded_tangent(parameters()[k], p_dot[k]) : Tangent(0.0));
    for (int j = 0; j < ns; ++j) {
      const int k = seeded_parameters[j];
      p[k] = Outer(slots, first_parameter + j, seeded_tangent(parameters()[k], p_dot[k]));
    }
    const Outer u(slots, u_slot, seeded_tangent(control_value(t_mid), u_dot));
    const Outer pairing = momenta_pairing<Outer, Outer>(q.data(), v.data(), p.data(), t_mid, h, mu_minus, mu_plus,
                                                        Outer(slots, Tangent(0.0)), &u);
    if (!pairing.hasFastAccess()) return 0.0;
    for (int j = 0; j < n; ++j) {
      out_q[j] += pairing.fastAccessDx(j).fastAccessDx(0);
      out_v[j] += pairing.fastAccessDx(n + j).fastAccessDx(0);
    }
    for (int j = 0; j < ns; ++j) gradient[seeded_parameters[j]] += pairing.fastAccessDx(first_parameter + j).fastAccessDx(0);
    return pairing.fastAccessDx(u_slot).fastAccessDx(0);
  }

 protected:
  using Adaptor::control_value, Adaptor::derived,
      Adaptor::seeded_tangent;

  // The dual-quaternion beam's own discrete Lagrangian (trapezoidal_in_time) has no second derivatives here.
  void refuse_own_discrete_lagrangian() const {
    if (trapezoidal_in_time())
      throw std::logic_error("'" + name() + "' (" + type() + ") has no second derivatives of its discrete momenta");
  }

  // minus and plus of discrete_momenta() for any scalar type (S for the state, P for the parameters, u the
  // control value): minus = (h/2)(T_q - applied) - T_v, plus = (h/2)(T_q - applied) + T_v.
  template <class S, class P>
  void discrete_momenta_values(const S* q, const S* v, const P* p, const S* u, double t_mid, double h, S* minus,
                               S* plus) const {
    const int n = coordinate_count();
    std::array<S, MaxCoordinates> applied, kinetic_q, kinetic_v;
    for (int i = 0; i < n; ++i) applied[i] = kinetic_q[i] = kinetic_v[i] = S(0.0);
    if (h != 0.0) this->template add_applied_with_control<S, P>(q, v, p, *u, t_mid, applied.data());
    if constexpr (HasKineticEnergy<Derived>::value) {
      using Inner = FadOf<2 * MaxCoordinates, S>;
      std::array<Inner, MaxCoordinates> qi, vi;
      for (int i = 0; i < n; ++i) {
        qi[i] = Inner(2 * n, i, q[i]);
        vi[i] = Inner(2 * n, n + i, v[i]);
      }
      const Inner T = derived().template kinetic<Inner, P>(qi.data(), vi.data(), p);
      for (int i = 0; i < n; ++i) {
        kinetic_q[i] = T.dx(i);
        kinetic_v[i] = T.dx(n + i);
      }
    }
    for (int i = 0; i < n; ++i) {
      const S forces = 0.5 * h * (kinetic_q[i] - applied[i]);
      minus[i] = forces - kinetic_v[i];
      plus[i] = forces + kinetic_v[i];
    }
  }

  // mu_minus . minus + mu_plus . plus = (h/2) w . (T_q - applied) + d . T_v with w = mu_minus + mu_plus,
  // d = mu_plus - mu_minus: T_q . (h/2) w + T_v . d is the derivative of T along ((h/2) w, d), one Fad direction.
  // zero: 0 with the derivative size of S.
  // control: the control value as an AD variable (the second-order products), nullptr: read from the signal at t_mid.
  template <class S, class P>
  S momenta_pairing(const S* q, const S* v, const P* p, double t_mid, double h, const double* mu_minus,
                    const double* mu_plus, const S& zero, const S* control = nullptr) const {
    const int n = coordinate_count();
    S result = zero;
    if (h != 0.0) {
      std::array<S, MaxCoordinates> applied;
      for (int i = 0; i < n; ++i) applied[i] = zero;
      if (control)
        this->template add_applied_with_control<S, P>(q, v, p, *control, t_mid, applied.data());
      else
        this->template add_applied<S, P>(q, v, p, t_mid, applied.data());
      for (int i = 0; i < n; ++i) result -= (0.5 * h * (mu_minus[i] + mu_plus[i])) * applied[i];
    }
    if constexpr (HasKineticEnergy<Derived>::value) {
      using Direction = Sacado::Fad::SFad<S, 1>;
      std::array<Direction, MaxCoordinates> qd, vd;
      for (int i = 0; i < n; ++i) {
        qd[i] = Direction(1, 0, q[i]);
        qd[i].fastAccessDx(0) = S(0.5 * h * (mu_minus[i] + mu_plus[i]));
        vd[i] = Direction(1, 0, v[i]);
        vd[i].fastAccessDx(0) = S(mu_plus[i] - mu_minus[i]);
      }
      const Direction T = derived().template kinetic<Direction, P>(qd.data(), vd.data(), p);
      result += T.fastAccessDx(0);
    }
    return result;
  }

  // Outer = double: minus and plus only. Outer = Fad: slot j carries d/dq_{n+1, j}, i.e. 1/2 in q_mid_j and 1/h in
  // v_mid_j (as residual_jacobian seeds c.q and c.v). T_q and T_v come from an inner Fad over the 2n slots (q, v).
  template <class Outer>
  void discrete_momenta_as(const double* q_mid, const double* v_mid, double t_mid, double h, double* minus,
                           double* plus, double* jacobian, double* plus_jacobian) const {
    constexpr bool with_jacobian = !std::is_same_v<Outer, double>;
    const int n = coordinate_count();
    std::array<Outer, MaxCoordinates> q{}, v{}, applied{}, kinetic_q{}, kinetic_v{};
    for (int i = 0; i < n; ++i) {
      if constexpr (with_jacobian) {
        q[i] = Outer(n, i, q_mid[i]);
        q[i].fastAccessDx(i) = 0.5;
        v[i] = Outer(n, i, v_mid[i]);
        v[i].fastAccessDx(i) = 1.0 / h;
        applied[i] = Outer(n, 0.0);
      } else {
        q[i] = q_mid[i];
        v[i] = v_mid[i];
        applied[i] = 0.0;
      }
      kinetic_q[i] = kinetic_v[i] = Outer(0.0);
    }
    this->template add_applied<Outer, double>(q.data(), v.data(), parameters().data(), t_mid, applied.data());
    if constexpr (HasKineticEnergy<Derived>::value) {
      using Inner = FadOf<2 * MaxCoordinates, Outer>;
      std::array<Inner, MaxCoordinates> qi, vi;
      for (int i = 0; i < n; ++i) {
        qi[i] = Inner(2 * n, i, q[i]);
        vi[i] = Inner(2 * n, n + i, v[i]);
      }
      const Inner T = derived().template kinetic<Inner, double>(qi.data(), vi.data(), parameters().data());
      for (int i = 0; i < n; ++i) {
        kinetic_q[i] = T.dx(i);
        kinetic_v[i] = T.dx(n + i);
      }
    }
    for (int i = 0; i < n; ++i) {
      const Outer forces = 0.5 * h * (kinetic_q[i] - applied[i]);
      const Outer left = forces - kinetic_v[i];
      if constexpr (with_jacobian) {
        const Outer right = forces + kinetic_v[i];
        minus[i] = left.val();
        plus[i] = right.val();
        for (int j = 0; j < n; ++j) jacobian[i * n + j] = left.dx(j);
        if (plus_jacobian)
          for (int j = 0; j < n; ++j) plus_jacobian[i * n + j] = right.dx(j);
      } else {
        minus[i] = left;
        plus[i] = forces + kinetic_v[i];
      }
    }
  }
};

}  // namespace flexadj::model
