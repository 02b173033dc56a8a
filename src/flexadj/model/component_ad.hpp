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
#include <Sacado_No_Kokkos.hpp>

#include <array>
#include <cassert>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "flexadj/functions/control_signal.hpp"
#include "flexadj/model/component.hpp"

namespace flexadj::model {

// Largest number of parameters of a component (a spatial joint has 19).
constexpr int kMaxComponentParameters = 24;
static_assert(kMaxComponentParameters <= 32, "ParameterMask has 32 bits");

// The indices of the wanted parameters among the first `count`; returns how many.
inline int wanted_parameters(ParameterMask wanted, int count, std::array<int, kMaxComponentParameters>& indices) {
  int found = 0;
  for (int k = 0; k < count; ++k)
    if ((wanted >> k) & 1u) indices[found++] = k;
  return found;
}

// The kernels' static-size AD types hold MaxCoordinates local coordinates: refuse a component on more.
inline void check_coordinate_count(const Component& c, int max_coordinates) {
  if (c.coordinate_count() > max_coordinates)
    throw std::invalid_argument("'" + c.name() + "' connects bodies with " + std::to_string(c.coordinate_count()) +
                                " coordinates in all; this kind of component supports at most " +
                                std::to_string(max_coordinates));
}

// A kernel's AD types are sized by its MaxCoordinates. make(std::integral_constant<int, N>) with the first N of the
// capacities that holds `coordinates`: a spring between two planar point masses (4 coordinates) then works on Fad
// types of 4 derivatives instead of the 14 of two spatial rigid bodies, without unused slots to copy and clear.
template <int First, int... Rest, class Make>
auto make_with_capacity(int coordinates, Make&& make) {
  if constexpr (sizeof...(Rest) == 0) {
    return make(std::integral_constant<int, First>{});
  } else {
    if (coordinates <= First) return make(std::integral_constant<int, First>{});
    return make_with_capacity<Rest...>(coordinates, std::forward<Make>(make));
  }
}

// True if Kernel defines kinetic() (detection idiom).
template <class Kernel, class = void> struct HasKineticEnergy : std::false_type {};
template <class Kernel>
struct HasKineticEnergy<Kernel, std::void_t<decltype(std::declval<const Kernel&>().template kinetic<double, double>(
                                    std::declval<const double*>(), std::declval<const double*>(),
                                    std::declval<const double*>()))>> : std::true_type {};

// True if Kernel takes its control value as an argument, evaluate_controlled(q, v, a, p, u, t, r) (a load with a
// control signal): the second-order products then differentiate in u as well.
template <class Kernel, class = void> struct HasControlledKernel : std::false_type {};
template <class Kernel>
struct HasControlledKernel<Kernel, std::void_t<decltype(std::declval<const Kernel&>().template evaluate_controlled<double, double>(
                                       std::declval<const double*>(), std::declval<const double*>(),
                                       std::declval<const double*>(), std::declval<const double*>(),
                                       std::declval<const double&>(), 0.0, std::declval<double*>()))>>
    : std::true_type {};

// FixedLength: the element always has exactly MaxCoordinates coordinates (and at most kMaxComponentParameters
// parameters); its Fad types are then the fixed-length SFad, whose unrolled loops are faster than SLFad's.
template <class Derived, int MaxCoordinates, bool FixedLength = false>
class ForceElementAD : public ForceElement {
 public:
  ForceElementAD(std::string name, std::vector<int> bodies, std::vector<BodyKind> kinds)
      : ForceElement(std::move(name), std::move(bodies), std::move(kinds)) {
    check_coordinate_count(*this, MaxCoordinates);
    if (FixedLength && coordinate_count() != MaxCoordinates)
      throw std::invalid_argument("'" + this->name() + "' needs exactly " + std::to_string(MaxCoordinates) +
                                  " coordinates");
  }
  template <int N, class Scalar = double>
  using FadOf = std::conditional_t<FixedLength, Sacado::Fad::SFad<Scalar, N>, Sacado::Fad::SLFad<Scalar, N>>;
  using Fad = FadOf<MaxCoordinates>;

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
    add_applied<double, double>(q, v, parameters().data(), t, r);
  }

  double kinetic_energy(const double* q, const double* v) const override {
    if constexpr (HasKineticEnergy<Derived>::value)
      return derived().template kinetic<double, double>(q, v, parameters().data());
    else
      return 0.0;
  }

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
  const Derived& derived() const { return static_cast<const Derived&>(*this); }

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

  // The control value u(t) of the element's signal (0 without one).
  double control_value(double t) const { return control() ? control()->value(t) : 0.0; }
  // The kernel with the control value given (of the AD type S), for the second-order products.
  template <class S, class P>
  void evaluate_with_control_value(const S* q, const S* v, const S* a, const P* p, const S& u, double t, S* r) const {
    if constexpr (HasControlledKernel<Derived>::value)
      derived().template evaluate_controlled<S, P>(q, v, a, p, u, t, r);
    else
      derived().template evaluate<S, P>(q, v, a, p, t, r);
  }

  // r += the residual without inertia terms.
  template <class S, class P> void add_applied(const S* q, const S* v, const P* p, double t, S* r) const {
    if constexpr (HasKineticEnergy<Derived>::value) {
      derived().template applied<S, P>(q, v, p, t, r);
    } else {
      std::array<S, MaxCoordinates> no_acceleration;
      for (int i = 0; i < coordinate_count(); ++i) no_acceleration[i] = S(0.0);
      derived().template evaluate<S, P>(q, v, no_acceleration.data(), p, t, r);
    }
  }

  // add_applied with the control value u given (of the AD type S): a controlled kernel (a load, without inertia)
  // through evaluate_controlled.
  template <class S, class P>
  void add_applied_with_control(const S* q, const S* v, const P* p, const S& u, double t, S* r) const {
    if constexpr (HasControlledKernel<Derived>::value && !HasKineticEnergy<Derived>::value) {
      std::array<S, MaxCoordinates> no_acceleration;
      for (int i = 0; i < coordinate_count(); ++i) no_acceleration[i] = S(0.0);
      derived().template evaluate_controlled<S, P>(q, v, no_acceleration.data(), p, u, t, r);
    } else {
      add_applied<S, P>(q, v, p, t, r);
    }
  }

  static Sacado::Fad::SFad<double, 1> seeded_tangent(double x, double dx) {
    Sacado::Fad::SFad<double, 1> y(1, 0, x);
    y.fastAccessDx(0) = dx;
    return y;
  }

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
    if (h != 0.0) add_applied_with_control<S, P>(q, v, p, *u, t_mid, applied.data());
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
        add_applied_with_control<S, P>(q, v, p, *control, t_mid, applied.data());
      else
        add_applied<S, P>(q, v, p, t_mid, applied.data());
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
    add_applied<Outer, double>(q.data(), v.data(), parameters().data(), t_mid, applied.data());
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
