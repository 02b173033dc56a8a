#pragma once
// The Sacado adaptor of constraint kernels (component_ad.hpp has the force elements'): it turns
//   template <class S, class P> void evaluate(const S* q, const S& t, const P* p, S* c) const;
// into the double-valued Constraint interface of component.hpp: C, C_q, the Hessian d(C_q^T lambda)/dq, the time
// derivatives along the motion, the level Jacobians, the transposed products and the parameter partials.
// Include only in the .cpp files that define constraints: Sacado headers are heavy.
#include "flexadj/model/component_ad.hpp"

namespace flexadj::model {

// MaxNonlinear: a kernel that is affine in the translations of point masses and rigid bodies (Derived defines
// `static constexpr bool kAffineInTranslations = true`; a joint's position equations r_b + R_b s_b - r_a - R_a s_a and
// every product with them) has second derivatives only in rows or columns of its other coordinates (rotations,
// ANCF node coordinates), at most MaxNonlinear of them. Its constraint Hessian then carries the inner derivatives
// over those only: for two spatial rigid bodies 8 instead of 14 slots (the rigid chain's joint Hessians were 65 %
// of its forward step). Components with more such coordinates take the full nested path.
template <class Kernel, class = void> struct AffineInTranslations : std::false_type {};
template <class Kernel>
struct AffineInTranslations<Kernel, std::void_t<decltype(Kernel::kAffineInTranslations)>>
    : std::bool_constant<Kernel::kAffineInTranslations> {};

template <class Derived, int MaxCoordinates, int MaxEquations, int MaxNonlinear = MaxCoordinates>
class ConstraintAD : public Constraint {
 public:
  ConstraintAD(std::string name, std::vector<int> bodies, std::vector<BodyKind> kinds, int equations)
      : Constraint(std::move(name), std::move(bodies), std::move(kinds), equations) {
    check_coordinate_count(*this, MaxCoordinates);
    int local = 0;
    for (BodyKind kind : this->kinds()) {
      const bool affine_translations = kind == BodyKind::PointMass2D || kind == BodyKind::PointMass3D ||
                                       kind == BodyKind::PlanarRigid || kind == BodyKind::SpatialRigid;
      const int skipped = affine_translations ? translation_count(kind) : 0;
      for (int i = 0; i < model::coordinate_count(kind); ++i, ++local)
        if (i >= skipped) nonlinear_.push_back(local);
    }
  }
  using Fad = Sacado::Fad::SLFad<double, MaxCoordinates>;
  // Second derivatives: fixed-length SFad, whose unrolled loops are several times faster than SLFad's.
  using Fad2Inner = Sacado::Fad::SFad<double, MaxCoordinates>;
  using Fad2 = Sacado::Fad::SFad<Fad2Inner, MaxCoordinates>;
  using PathFad = Sacado::Fad::SFad<Sacado::Fad::SFad<double, 1>, 1>;

  void value(const double* q, double t, double* c) const override {
    derived().template evaluate<double, double>(q, t, parameters().data(), c);
  }

  void jacobian(const double* q, double t, double* c, double* Cq) const override {
    const int n = coordinate_count(), m = equation_count();
    std::array<Fad, MaxCoordinates> qf;
    std::array<Fad, MaxEquations> cf;
    for (int i = 0; i < n; ++i) qf[i] = Fad(n, i, q[i]);
    derived().template evaluate<Fad, double>(qf.data(), Fad(t), parameters().data(), cf.data());
    for (int k = 0; k < m; ++k) {
      c[k] = cf[k].val();
      for (int j = 0; j < n; ++j) Cq[k * n + j] = cf[k].hasFastAccess() ? cf[k].fastAccessDx(j) : 0.0;
    }
  }

  void time_derivatives(const double* q, const double* v, const double* a, double t, double* c, double* c_dot,
                        double* c_ddot) const override {
    const int n = coordinate_count(), m = equation_count();
    using Inner = Sacado::Fad::SFad<double, 1>;
    // s carries d/ds at both levels; q(s) = q + v s + a s^2/2, t(s) = t + s.
    const PathFad s(1, 0, Inner(1, 0, 0.0));
    std::array<PathFad, MaxCoordinates> qs;
    std::array<PathFad, MaxEquations> cs;
    for (int i = 0; i < n; ++i) qs[i] = q[i] + v[i] * s + 0.5 * a[i] * s * s;
    const PathFad ts = t + s;
    derived().template evaluate<PathFad, double>(qs.data(), ts, parameters().data(), cs.data());
    for (int k = 0; k < m; ++k) {
      c[k] = cs[k].val().val();
      c_dot[k] = cs[k].dx(0).val();
      c_ddot[k] = cs[k].dx(0).dx(0);
    }
  }

  void jacobian_and_hessian(const double* q, const double* lambda, double t, double* c, double* Cq,
                            double* H) const override {
    if constexpr (AffineInTranslations<Derived>::value && MaxNonlinear < MaxCoordinates) {
      if (static_cast<int>(nonlinear_.size()) <= MaxNonlinear) {
        jacobian_and_hessian_affine(q, lambda, t, c, Cq, H);
        return;
      }
    }
    jacobian_and_hessian_full(q, lambda, t, c, Cq, H);
  }

  void jacobian_and_hessian_reference(const double* q, const double* lambda, double t, double* c, double* Cq,
                                      double* H) const override {
    jacobian_and_hessian_full(q, lambda, t, c, Cq, H);
  }

  // The full nested forward AD over all coordinates.
  void jacobian_and_hessian_full(const double* q, const double* lambda, double t, double* c, double* Cq,
                                 double* H) const {
    const int n = coordinate_count(), m = equation_count();
    std::array<Fad2, MaxCoordinates> qf;
    std::array<Fad2, MaxEquations> cf;
    for (int i = 0; i < n; ++i) qf[i] = Fad2(MaxCoordinates, i, Fad2Inner(MaxCoordinates, i, q[i]));
    derived().template evaluate<Fad2, double>(qf.data(), Fad2(Fad2Inner(t)), parameters().data(), cf.data());
    for (int i = 0; i < n * n; ++i) H[i] = 0.0;
    for (int k = 0; k < m; ++k) {
      c[k] = cf[k].val().val();
      for (int i = 0; i < n; ++i) {
        const Fad2Inner& row = cf[k].fastAccessDx(i);
        Cq[k * n + i] = row.val();
        for (int j = 0; j < n; ++j) H[i * n + j] += lambda[k] * row.fastAccessDx(j);
      }
    }
  }

  // Outer Fad over all coordinates (first derivatives), inner over the nonlinear ones only: column j of
  // lambda . d2c/dq2 for j nonlinear; row i for i nonlinear by symmetry; zero where both are translations.
  void jacobian_and_hessian_affine(const double* q, const double* lambda, double t, double* c, double* Cq,
                                   double* H) const {
    using Inner = Sacado::Fad::SFad<double, MaxNonlinear>;
    using Nested = Sacado::Fad::SFad<Inner, MaxCoordinates>;
    const int n = coordinate_count(), m = equation_count(), nl = static_cast<int>(nonlinear_.size());
    std::array<Nested, MaxCoordinates> qf;
    std::array<Nested, MaxEquations> cf;
    for (int i = 0; i < n; ++i) qf[i] = Nested(MaxCoordinates, i, Inner(q[i]));
    for (int j = 0; j < nl; ++j) qf[nonlinear_[j]].val() = Inner(MaxNonlinear, j, q[nonlinear_[j]]);
    derived().template evaluate<Nested, double>(qf.data(), Nested(Inner(t)), parameters().data(), cf.data());
    for (int i = 0; i < n * n; ++i) H[i] = 0.0;
    for (int k = 0; k < m; ++k) {
      c[k] = cf[k].val().val();
      for (int i = 0; i < n; ++i) {
        const Inner& row = cf[k].fastAccessDx(i);
        Cq[k * n + i] = row.val();
        for (int j = 0; j < nl; ++j) H[i * n + nonlinear_[j]] += lambda[k] * row.fastAccessDx(j);
      }
    }
    for (int a = 0; a < nl; ++a)
      for (int i = 0; i < n; ++i)
        if (!is_nonlinear(i)) H[nonlinear_[a] * n + i] = H[i * n + nonlinear_[a]];
  }

  // lambda . (Cq mu_r) is the derivative along mu_r of lambda . c: an inner one-direction Fad carries it,
  // an outer Fad the parameters; the acceleration level carries the path parameter s instead.
  void add_parameter_gradient(const double* q, const double* v, const double* a, double t, const double* lambda,
                              const double* mu_r, const double* mu_c, int level, double* gradient,
                              ParameterMask wanted = kAllParameters) const override {
    using Inner = Sacado::Fad::SFad<double, 1>;
    using Directional = Sacado::Fad::SLFad<Inner, kMaxComponentParameters>;
    const int n = coordinate_count(), m = equation_count(), np = static_cast<int>(parameters().size());
    assert(np <= kMaxComponentParameters);
    std::array<int, kMaxComponentParameters> seeded;
    const int ns = wanted_parameters(wanted, np, seeded);
    if (ns == 0) return;
    std::array<Directional, kMaxComponentParameters> pf;
    std::array<Directional, MaxCoordinates> qf;
    std::array<Directional, MaxEquations> cf;
    for (int k = 0; k < np; ++k) pf[k] = Directional(Inner(parameters()[k]));
    for (int j = 0; j < ns; ++j) pf[seeded[j]] = Directional(ns, j, Inner(parameters()[seeded[j]]));
    // lambda . (Cq mu_r), and mu_c . c at the position level.
    const Directional epsilon(Inner(1, 0, 0.0));
    for (int i = 0; i < n; ++i) qf[i] = Directional(Inner(q[i])) + mu_r[i] * epsilon;
    derived().template evaluate<Directional, Directional>(qf.data(), Directional(Inner(t)), pf.data(), cf.data());
    for (int e = 0; e < m; ++e) {
      if (!cf[e].hasFastAccess()) continue;
      for (int j = 0; j < ns; ++j) {
        const Inner& d = cf[e].fastAccessDx(j);
        gradient[seeded[j]] += lambda[e] * d.dx(0) + (level == 0 ? mu_c[e] * d.val() : 0.0);
      }
    }
    if (level == 0) return;
    // mu_c . dc/ds or d2c/ds2 along the path q + v s + a s^2/2, t + s.
    using PathParameterFad = Sacado::Fad::SLFad<PathFad, kMaxComponentParameters>;
    std::array<PathParameterFad, kMaxComponentParameters> pp;
    std::array<PathParameterFad, MaxCoordinates> qs;
    std::array<PathParameterFad, MaxEquations> cs;
    for (int k = 0; k < np; ++k) pp[k] = PathParameterFad(PathFad(parameters()[k]));
    for (int j = 0; j < ns; ++j) pp[seeded[j]] = PathParameterFad(ns, j, PathFad(parameters()[seeded[j]]));
    const PathFad s(1, 0, Sacado::Fad::SFad<double, 1>(1, 0, 0.0));
    for (int i = 0; i < n; ++i) qs[i] = PathParameterFad(PathFad(q[i] + v[i] * s + 0.5 * a[i] * s * s));
    derived().template evaluate<PathParameterFad, PathParameterFad>(qs.data(), PathParameterFad(PathFad(t + s)),
                                                                    pp.data(), cs.data());
    for (int e = 0; e < m; ++e) {
      if (!cs[e].hasFastAccess()) continue;
      for (int j = 0; j < ns; ++j) {
        const PathFad& d = cs[e].fastAccessDx(j);
        gradient[seeded[j]] += mu_c[e] * (level == 1 ? d.dx(0).val() : d.dx(0).dx(0));
      }
    }
  }

  // Outer Fad over q, inner one-direction Fad along mu_r: c_k.dx(j).val() = dc_k/dq_j and
  // c_k.dx(j).dx(0) = (d2c_k/dq2 mu_r)_j, a Hessian-vector product at the cost of two Jacobians.
  void add_transposed_products(const double* q, double t, const double* lambda, const double* mu_r,
                               const double* mu_c, double* out) const override {
    using Inner = Sacado::Fad::SFad<double, 1>;
    using Outer = Sacado::Fad::SLFad<Inner, MaxCoordinates>;
    const int n = coordinate_count(), m = equation_count();
    std::array<Outer, MaxCoordinates> qf;
    std::array<Outer, MaxEquations> cf;
    for (int i = 0; i < n; ++i) qf[i] = Outer(n, i, Inner(1, 0, q[i]));
    for (int i = 0; i < n; ++i) qf[i].val().fastAccessDx(0) = mu_r[i];
    derived().template evaluate<Outer, double>(qf.data(), Outer(Inner(t)), parameters().data(), cf.data());
    for (int k = 0; k < m; ++k) {
      if (!cf[k].hasFastAccess()) continue;
      for (int j = 0; j < n; ++j) {
        const Inner& d = cf[k].fastAccessDx(j);
        out[j] += lambda[k] * d.dx(0) + mu_c[k] * d.val();
      }
    }
  }

  // The second-order kernels below evaluate with the parameters as doubles when they are held (p_dot == nullptr),
  // else as values of the kernel's AD type that move along e by p_dot.
  using Along = Sacado::Fad::SFad<double, 1>;
  using AlongOuter = Sacado::Fad::SLFad<Along, MaxCoordinates>;
  static Along along(double value, double derivative) {
    Along x(1, 0, value);
    x.fastAccessDx(0) = derivative;
    return x;
  }
  template <class S, class Make>
  std::array<S, kMaxComponentParameters> moving_parameters(const double* p_dot, Make make) const {
    std::array<S, kMaxComponentParameters> p;
    for (std::size_t k = 0; k < parameters().size(); ++k) p[k] = make(along(parameters()[k], p_dot[k]));
    return p;
  }

  // Outer Fad over q, each value carrying the direction e: c_k.dx(j) = dc_k/dq_j and its e-derivative.
  void constraint_tangent(const double* q, double t, const double* lambda, const double* q_dot,
                          const double* lambda_dot, const double* p_dot, double* c_dot, double* r_dot) const override {
    if (!p_dot) return constraint_tangent_with(parameters().data(), q, t, lambda, q_dot, lambda_dot, c_dot, r_dot);
    const auto p = moving_parameters<AlongOuter>(p_dot, [](const Along& x) { return AlongOuter(x); });
    constraint_tangent_with(p.data(), q, t, lambda, q_dot, lambda_dot, c_dot, r_dot);
  }
  template <class P>
  void constraint_tangent_with(const P* p, const double* q, double t, const double* lambda, const double* q_dot,
                               const double* lambda_dot, double* c_dot, double* r_dot) const {
    const int n = coordinate_count(), m = equation_count();
    std::array<AlongOuter, MaxCoordinates> qf;
    std::array<AlongOuter, MaxEquations> cf;
    for (int i = 0; i < n; ++i) qf[i] = AlongOuter(n, i, along(q[i], q_dot[i]));
    derived().template evaluate<AlongOuter, P>(qf.data(), AlongOuter(Along(t)), p, cf.data());
    for (int j = 0; j < n; ++j) r_dot[j] = 0.0;
    for (int k = 0; k < m; ++k) {
      c_dot[k] = cf[k].val().dx(0);
      if (!cf[k].hasFastAccess()) continue;
      for (int j = 0; j < n; ++j) {
        const Along& d = cf[k].fastAccessDx(j);
        r_dot[j] += lambda[k] * d.dx(0) + lambda_dot[k] * d.val();
      }
    }
  }

  // Phi = lambda . (C_q mu_r) + mu_c . c, the first term the s-derivative of lambda . c(q + s mu_r): an SFad in s
  // over an outer Fad in q over the direction e. grad_q Phi = H mu_r + C_q^T mu_c; its e-derivative with lambda(e).
  using ProductFad = Sacado::Fad::SFad<AlongOuter, 1>;
  void add_second_order_products(const double* q, double t, const double* lambda, const double* q_dot,
                                 const double* lambda_dot, const double* p_dot, const double* mu_r,
                                 const double* mu_c, double* out, double* m_dot) const override {
    if (!p_dot)
      return second_order_products_with(parameters().data(), q, t, lambda, q_dot, lambda_dot, mu_r, mu_c, out, m_dot);
    const auto p = moving_parameters<ProductFad>(p_dot, [](const Along& x) { return ProductFad(AlongOuter(x)); });
    second_order_products_with(p.data(), q, t, lambda, q_dot, lambda_dot, mu_r, mu_c, out, m_dot);
  }
  template <class P>
  void second_order_products_with(const P* p, const double* q, double t, const double* lambda, const double* q_dot,
                                  const double* lambda_dot, const double* mu_r, const double* mu_c, double* out,
                                  double* m_dot) const {
    const int n = coordinate_count(), m = equation_count();
    std::array<ProductFad, MaxCoordinates> qf;
    std::array<ProductFad, MaxEquations> cf;
    for (int i = 0; i < n; ++i) {
      qf[i] = ProductFad(1, 0, AlongOuter(n, i, along(q[i], q_dot[i])));
      qf[i].fastAccessDx(0) = AlongOuter(mu_r[i]);
    }
    derived().template evaluate<ProductFad, P>(qf.data(), ProductFad(AlongOuter(Along(t))), p, cf.data());
    AlongOuter phi(n, Along(0.0));
    for (int k = 0; k < m; ++k) {
      phi += along(lambda[k], lambda_dot[k]) * cf[k].dx(0) + mu_c[k] * cf[k].val();
      m_dot[k] = cf[k].dx(0).val().dx(0);
    }
    if (!phi.hasFastAccess()) return;
    for (int j = 0; j < n; ++j) out[j] += phi.fastAccessDx(j).dx(0);
  }

  // add_parameter_gradient's passes with every value moving along e (innermost Along): gradient[k] += the
  // e-derivative of lambda(e) . (C_q mu_r)_{,p_k} + mu_c . (c at level)_{,p_k}.
  void add_parameter_second_order(const double* q, const double* v, const double* a, double t, const double* lambda,
                                  const double* q_dot, const double* v_dot, const double* a_dot,
                                  const double* lambda_dot, const double* p_dot, const double* mu_r,
                                  const double* mu_c, int level, double* gradient,
                                  ParameterMask wanted = kAllParameters) const override {
    using Inner = Sacado::Fad::SFad<Along, 1>;
    using Directional = Sacado::Fad::SLFad<Inner, kMaxComponentParameters>;
    const int n = coordinate_count(), m = equation_count(), np = static_cast<int>(parameters().size());
    assert(np <= kMaxComponentParameters);
    std::array<int, kMaxComponentParameters> seeded;
    const int ns = wanted_parameters(wanted, np, seeded);
    if (ns == 0) return;
    static constexpr std::array<double, kMaxComponentParameters> kHeld{};
    if (!p_dot) p_dot = kHeld.data();
    std::array<Directional, kMaxComponentParameters> pf;
    std::array<Directional, MaxCoordinates> qf;
    std::array<Directional, MaxEquations> cf;
    for (int k = 0; k < np; ++k) pf[k] = Directional(Inner(along(parameters()[k], p_dot[k])));
    for (int j = 0; j < ns; ++j) pf[seeded[j]] = Directional(ns, j, Inner(along(parameters()[seeded[j]], p_dot[seeded[j]])));
    const Directional epsilon(Inner(1, 0, Along(0.0)));
    for (int i = 0; i < n; ++i) qf[i] = Directional(Inner(along(q[i], q_dot[i]))) + mu_r[i] * epsilon;
    derived().template evaluate<Directional, Directional>(qf.data(), Directional(Inner(Along(t))), pf.data(),
                                                          cf.data());
    for (int e = 0; e < m; ++e) {
      if (!cf[e].hasFastAccess()) continue;
      for (int j = 0; j < ns; ++j) {
        const Inner& d = cf[e].fastAccessDx(j);
        gradient[seeded[j]] += lambda[e] * d.dx(0).dx(0) + lambda_dot[e] * d.dx(0).val() +
                               (level == 0 ? mu_c[e] * d.val().dx(0) : 0.0);
      }
    }
    if (level == 0) return;
    using PathParameterFad = Sacado::Fad::SLFad<PathAlong, kMaxComponentParameters>;
    std::array<PathParameterFad, kMaxComponentParameters> pp;
    std::array<PathParameterFad, MaxCoordinates> qs;
    std::array<PathParameterFad, MaxEquations> cs;
    for (int k = 0; k < np; ++k) pp[k] = PathParameterFad(path_along(along(parameters()[k], p_dot[k])));
    for (int j = 0; j < ns; ++j)
      pp[seeded[j]] = PathParameterFad(ns, j, path_along(along(parameters()[seeded[j]], p_dot[seeded[j]])));
    const PathAlong s = path_parameter();
    for (int i = 0; i < n; ++i)
      qs[i] = PathParameterFad(path_along(along(q[i], q_dot[i])) + path_along(along(v[i], v_dot[i])) * s +
                               0.5 * path_along(along(a[i], a_dot[i])) * s * s);
    derived().template evaluate<PathParameterFad, PathParameterFad>(
        qs.data(), PathParameterFad(path_along(Along(t)) + s), pp.data(), cs.data());
    for (int e = 0; e < m; ++e) {
      if (!cs[e].hasFastAccess()) continue;
      for (int j = 0; j < ns; ++j) {
        const PathAlong& d = cs[e].fastAccessDx(j);
        gradient[seeded[j]] += mu_c[e] * (level == 1 ? d.dx(0).val().dx(0) : d.dx(0).dx(0).dx(0));
      }
    }
  }

  // Derivatives along the path q(s) = q + v s + a s^2/2, t(s) = t + s, of the gradient rows dc/dq(q(s), t(s)): an
  // outer Fad over q (n slots) with the path Fad inside. Since dq(s)/dv = s I, the v-derivatives need no slots of
  // their own: d/dv (dc/ds)|0 = dc/dq, d/dv (d2c/ds2)|0 = 2 d/ds (dc/dq)|0; and d/dq of the levels is d/ds or d2/ds2
  // of dc/dq. (Half the slots of seeding q and v apart: the state-space adjoint's largest kernel, docs/performance.md.
  // A fixed-length SFad here, as the force elements use, makes GCC inline less of the Hessian kernels in the same
  // translation unit: the forward step then cost 7 % more.)
  void level_jacobians(const double* q, const double* v, const double* a, double t, int level, double* d_dq,
                       double* d_dv) const override {
    using StateFad = Sacado::Fad::SLFad<PathFad, MaxCoordinates>;
    const int n = coordinate_count(), m = equation_count();
    const PathFad s(1, 0, Sacado::Fad::SFad<double, 1>(1, 0, 0.0));
    std::array<StateFad, MaxCoordinates> qs;
    std::array<StateFad, MaxEquations> cs;
    for (int i = 0; i < n; ++i) qs[i] = StateFad(n, i, PathFad(q[i])) + StateFad(v[i] * s + 0.5 * a[i] * s * s);
    derived().template evaluate<StateFad, double>(qs.data(), StateFad(PathFad(t + s)), parameters().data(), cs.data());
    for (int e = 0; e < m; ++e)
      for (int i = 0; i < n; ++i) {
        if (!cs[e].hasFastAccess()) {
          d_dq[e * n + i] = d_dv[e * n + i] = 0.0;
          continue;
        }
        const PathFad& row = cs[e].fastAccessDx(i);  // dc_e/dq_i along the path
        d_dq[e * n + i] = level == 1 ? row.dx(0).val() : row.dx(0).dx(0);
        d_dv[e * n + i] = level == 1 ? row.val().val() : 2.0 * row.dx(0).val();
      }
  }

  // The path Fad of time_derivatives over a one-direction Fad in e: q(s) = q + v s + a s^2/2 with q, v, a moving
  // along (q_dot, v_dot, a_dot).
  using PathAlong = Sacado::Fad::SFad<Sacado::Fad::SFad<Along, 1>, 1>;
  static PathAlong path_along(const Along& value) { return PathAlong(Sacado::Fad::SFad<Along, 1>(value)); }
  static PathAlong path_parameter() {
    return PathAlong(1, 0, Sacado::Fad::SFad<Along, 1>(1, 0, Along(0.0)));
  }

  void level_tangent(const double* q, const double* v, const double* a, double t, const double* q_dot,
                     const double* v_dot, const double* a_dot, const double* p_dot, int level,
                     double* c_dot) const override {
    if (!p_dot) return level_tangent_with(parameters().data(), q, v, a, t, q_dot, v_dot, a_dot, level, c_dot);
    const auto p = moving_parameters<PathAlong>(p_dot, [](const Along& x) { return path_along(x); });
    level_tangent_with(p.data(), q, v, a, t, q_dot, v_dot, a_dot, level, c_dot);
  }
  template <class P>
  void level_tangent_with(const P* p, const double* q, const double* v, const double* a, double t,
                          const double* q_dot, const double* v_dot, const double* a_dot, int level,
                          double* c_dot) const {
    const int n = coordinate_count(), m = equation_count();
    const PathAlong s = path_parameter();
    std::array<PathAlong, MaxCoordinates> qs;
    std::array<PathAlong, MaxEquations> cs;
    for (int i = 0; i < n; ++i)
      qs[i] = path_along(along(q[i], q_dot[i])) + path_along(along(v[i], v_dot[i])) * s +
              0.5 * path_along(along(a[i], a_dot[i])) * s * s;
    derived().template evaluate<PathAlong, P>(qs.data(), path_along(Along(t)) + s, p, cs.data());
    for (int k = 0; k < m; ++k)
      c_dot[k] = level == 0 ? cs[k].val().val().dx(0) : level == 1 ? cs[k].dx(0).val().dx(0) : cs[k].dx(0).dx(0).dx(0);
  }

  // level_jacobians' outer Fad over q with the path Fad in e inside (d/dv of the levels from d/dq, as there).
  using LevelStateFad = Sacado::Fad::SLFad<PathAlong, MaxCoordinates>;
  void add_level_transposed_tangent(const double* q, const double* v, const double* a, double t, const double* q_dot,
                                    const double* v_dot, const double* a_dot, const double* p_dot, int level,
                                    const double* mu_c, double* out_q, double* out_v) const override {
    if (!p_dot)
      return level_transposed_tangent_with(parameters().data(), q, v, a, t, q_dot, v_dot, a_dot, level, mu_c, out_q,
                                           out_v);
    const auto p =
        moving_parameters<LevelStateFad>(p_dot, [](const Along& x) { return LevelStateFad(path_along(x)); });
    level_transposed_tangent_with(p.data(), q, v, a, t, q_dot, v_dot, a_dot, level, mu_c, out_q, out_v);
  }
  template <class P>
  void level_transposed_tangent_with(const P* p, const double* q, const double* v, const double* a, double t,
                                     const double* q_dot, const double* v_dot, const double* a_dot, int level,
                                     const double* mu_c, double* out_q, double* out_v) const {
    const int n = coordinate_count(), m = equation_count();
    const PathAlong s = path_parameter();
    std::array<LevelStateFad, MaxCoordinates> qs;
    std::array<LevelStateFad, MaxEquations> cs;
    for (int i = 0; i < n; ++i)
      qs[i] = LevelStateFad(n, i, path_along(along(q[i], q_dot[i]))) +
              LevelStateFad(path_along(along(v[i], v_dot[i])) * s + 0.5 * path_along(along(a[i], a_dot[i])) * s * s);
    derived().template evaluate<LevelStateFad, P>(qs.data(), LevelStateFad(path_along(Along(t)) + s), p, cs.data());
    for (int e = 0; e < m; ++e) {
      if (!cs[e].hasFastAccess()) continue;
      for (int i = 0; i < n; ++i) {
        const PathAlong& row = cs[e].fastAccessDx(i);  // dc_e/dq_i along the path, each value moving along e
        const double d_dq = level == 0 ? row.val().val().dx(0) : level == 1 ? row.dx(0).val().dx(0)
                                                                            : row.dx(0).dx(0).dx(0);
        const double d_dv = level == 0 ? 0.0 : level == 1 ? row.val().val().dx(0) : 2.0 * row.dx(0).val().dx(0);
        out_q[i] += mu_c[e] * d_dq;
        out_v[i] += mu_c[e] * d_dv;
      }
    }
  }

 private:
  const Derived& derived() const { return static_cast<const Derived&>(*this); }
  bool is_nonlinear(int local) const {
    for (int j : nonlinear_)
      if (j == local) return true;
    return false;
  }
  std::vector<int> nonlinear_;  // local coordinates other than affine translations
};

}  // namespace flexadj::model
