#pragma once
// The Sacado adaptor of non-holonomic constraint kernels (VelocityConstraint, component.hpp): it turns
//   template <class S, class P> void evaluate(const S* q, const S* v, const S& t, const P* p, S* g) const;
// with g = A(q, p) v + b(q, t, p), linear in v, into g, g_q, A = dg/dv, H = d(A^T lambda)/dq, dg/ds along the
// motion, the level Jacobians, the transposed products and the parameter partials, and each of them differentiated
// along a direction of state and parameters (the second-order adjoint).
// Include only in the .cpp files that define constraints: Sacado headers are heavy.
#include "flexadj/model/component_ad.hpp"

namespace flexadj::model {

template <class Derived, int MaxCoordinates, int MaxEquations>
class VelocityConstraintAD : public VelocityConstraint {
 public:
  VelocityConstraintAD(std::string name, std::vector<int> bodies, std::vector<BodyKind> kinds, int equations)
      : VelocityConstraint(std::move(name), std::move(bodies), std::move(kinds), equations) {
    check_coordinate_count(*this, MaxCoordinates);
  }

  // ---- the position level does not exist
  void value(const double*, double, double*) const override { no_position_level("value"); }
  void jacobian(const double*, double, double*, double*) const override { no_position_level("jacobian"); }
  void time_derivatives(const double*, const double*, const double*, double, double*, double*,
                        double*) const override {
    no_position_level("time_derivatives");
  }
  void jacobian_and_hessian(const double*, const double*, double, double*, double*, double*) const override {
    no_position_level("jacobian_and_hessian");
  }
  void add_transposed_products(const double*, double, const double*, const double*, const double*,
                               double*) const override {
    no_position_level("add_transposed_products");
  }

  // Outer Fad over (q, v), inner Fad over q: g_k.dx(j).val() = dg_k/dq_j, g_k.dx(n + i).val() = A_ki and
  // g_k.dx(n + i).dx(j) = dA_ki/dq_j.
  void velocity_jacobians(const double* q, const double* v, const double* lambda, double t, double* g, double* g_q,
                          double* A, double* H) const override {
    using Inner = Sacado::Fad::SLFad<double, MaxCoordinates>;
    using Outer = Sacado::Fad::SLFad<Inner, 2 * MaxCoordinates>;
    const int n = coordinate_count(), m = equation_count();
    std::array<Outer, MaxCoordinates> qf, vf;
    std::array<Outer, MaxEquations> gf;
    for (int i = 0; i < n; ++i) {
      qf[i] = Outer(2 * n, i, Inner(n, i, q[i]));
      vf[i] = Outer(2 * n, n + i, Inner(v[i]));
    }
    derived().template evaluate<Outer, double>(qf.data(), vf.data(), Outer(Inner(t)), parameters().data(), gf.data());
    if (H)
      for (int i = 0; i < n * n; ++i) H[i] = 0.0;
    for (int k = 0; k < m; ++k) {
      g[k] = gf[k].val().val();
      const bool has = gf[k].hasFastAccess();
      for (int j = 0; j < n; ++j) {
        g_q[k * n + j] = has ? gf[k].fastAccessDx(j).val() : 0.0;
        A[k * n + j] = has ? gf[k].fastAccessDx(n + j).val() : 0.0;
      }
      if (!H || !has) continue;
      for (int i = 0; i < n; ++i) {
        const Inner& row = gf[k].fastAccessDx(n + i);
        if (!row.hasFastAccess()) continue;
        for (int j = 0; j < n; ++j) H[i * n + j] += lambda[k] * row.fastAccessDx(j);
      }
    }
  }

  void velocity_time_derivative(const double* q, const double* v, const double* a, double t, double* g,
                                double* g_dot) const override {
    using PathFad = Sacado::Fad::SFad<double, 1>;
    const int n = coordinate_count(), m = equation_count();
    const PathFad s(1, 0, 0.0);
    std::array<PathFad, MaxCoordinates> qs, vs;
    std::array<PathFad, MaxEquations> gs;
    for (int i = 0; i < n; ++i) {
      qs[i] = PathFad(q[i] + v[i] * s);  // the a s^2/2 term does not enter the first derivative
      vs[i] = PathFad(v[i] + a[i] * s);
    }
    const PathFad ts(t + s);
    derived().template evaluate<PathFad, double>(qs.data(), vs.data(), ts, parameters().data(), gs.data());
    for (int k = 0; k < m; ++k) {
      g[k] = gs[k].val();
      g_dot[k] = gs[k].dx(0);
    }
  }

  void add_velocity_transposed_products(const double* q, const double* v, double t, const double* lambda,
                                        const double* mu_r, const double* mu_c, double* out_q,
                                        double* out_v) const override {
    const int n = coordinate_count(), m = equation_count();
    std::array<double, MaxEquations> g;
    std::array<double, MaxEquations * MaxCoordinates> g_q, A;
    std::array<double, MaxCoordinates * MaxCoordinates> H;
    velocity_jacobians(q, v, lambda, t, g.data(), g_q.data(), A.data(), H.data());
    for (int j = 0; j < n; ++j) {
      double sum_q = 0.0, sum_v = 0.0;
      for (int i = 0; i < n; ++i) sum_q += H[i * n + j] * mu_r[i];
      for (int k = 0; k < m; ++k) {
        sum_q += g_q[k * n + j] * mu_c[k];
        sum_v += A[k * n + j] * mu_c[k];
      }
      out_q[j] += sum_q;
      out_v[j] += sum_v;
    }
  }

  // Level 0 or 1: (g_q, A); level 2: the Jacobians of dg/ds along q + v s + a s^2/2, v + a s, t + s.
  void level_jacobians(const double* q, const double* v, const double* a, double t, int level, double* d_dq,
                       double* d_dv) const override {
    const int n = coordinate_count(), m = equation_count();
    if (level < 2) {
      std::array<double, MaxEquations> g;
      velocity_jacobians(q, v, nullptr, t, g.data(), d_dq, d_dv, nullptr);
      return;
    }
    using PathFad = Sacado::Fad::SFad<double, 1>;
    using StateFad = Sacado::Fad::SLFad<PathFad, 2 * MaxCoordinates>;
    const PathFad s(1, 0, 0.0);
    std::array<StateFad, MaxCoordinates> qs, vs;
    std::array<StateFad, MaxEquations> gs;
    for (int i = 0; i < n; ++i) {
      const StateFad qi(2 * n, i, PathFad(q[i])), vi(2 * n, n + i, PathFad(v[i]));
      qs[i] = qi + vi * StateFad(s) + StateFad(PathFad(0.5 * a[i] * s * s));
      vs[i] = vi + StateFad(PathFad(a[i] * s));
    }
    const StateFad ts(PathFad(t + s));
    derived().template evaluate<StateFad, double>(qs.data(), vs.data(), ts, parameters().data(), gs.data());
    for (int k = 0; k < m; ++k)
      for (int i = 0; i < n; ++i) {
        const bool has = gs[k].hasFastAccess();
        d_dq[k * n + i] = has ? gs[k].fastAccessDx(i).dx(0) : 0.0;
        d_dv[k * n + i] = has ? gs[k].fastAccessDx(n + i).dx(0) : 0.0;
      }
  }

  // gradient[k] += d/dp_k [lambda . (A mu_r) + mu_c . (g, or dg/ds at level 2)]: an outer Fad over the wanted
  // parameters, an inner two-direction Fad along v + eps mu_r (slot 0) and the path parameter s (slot 1).
  void add_parameter_gradient(const double* q, const double* v, const double* a, double t, const double* lambda,
                              const double* mu_r, const double* mu_c, int level, double* gradient,
                              ParameterMask wanted = kAllParameters) const override {
    using Inner = Sacado::Fad::SFad<double, 2>;
    using Directional = Sacado::Fad::SLFad<Inner, kMaxComponentParameters>;
    const int n = coordinate_count(), m = equation_count(), np = static_cast<int>(parameters().size());
    std::array<int, kMaxComponentParameters> seeded;
    const int ns = wanted_parameters(wanted, np, seeded);
    if (ns == 0) return;
    std::array<Directional, kMaxComponentParameters> pf;
    std::array<Directional, MaxCoordinates> qf, vf;
    std::array<Directional, MaxEquations> gf;
    for (int k = 0; k < np; ++k) pf[k] = Directional(Inner(parameters()[k]));
    for (int j = 0; j < ns; ++j) pf[seeded[j]] = Directional(ns, j, Inner(parameters()[seeded[j]]));
    const Inner epsilon(2, 0, 0.0), s(2, 1, 0.0);
    // g is linear in v and the second-order terms in s do not enter: q + v s, v + eps mu_r + a s, t + s.
    for (int i = 0; i < n; ++i) {
      qf[i] = Directional(Inner(q[i] + v[i] * s));
      vf[i] = Directional(Inner(v[i] + mu_r[i] * epsilon + a[i] * s));
    }
    const Directional ts(Inner(t + s));
    derived().template evaluate<Directional, Directional>(qf.data(), vf.data(), ts, pf.data(), gf.data());
    for (int e = 0; e < m; ++e) {
      if (!gf[e].hasFastAccess()) continue;
      for (int j = 0; j < ns; ++j) {
        const Inner& d = gf[e].fastAccessDx(j);
        gradient[seeded[j]] += lambda[e] * d.dx(0) + mu_c[e] * (level == 2 ? d.dx(1) : d.val());
      }
    }
  }

  // ---- second-order adjoint: every value moves along the direction e (innermost Along), the middle Fad carries
  // epsilon in v + eps mu_r (slot 0: A mu_r, g being linear in v) and the path parameter s (slot 1: dg/ds along
  // q + v s, v + a s, t + s), the outer Fad (if any) the gradient over (q, v).
  using Along = Sacado::Fad::SFad<double, 1>;
  using Moving = Sacado::Fad::SFad<Along, 2>;
  using MovingState = Sacado::Fad::SLFad<Moving, 2 * MaxCoordinates>;

  void velocity_constraint_tangent(const double* q, const double* v, double t, const double* lambda,
                                   const double* q_dot, const double* v_dot, const double* lambda_dot,
                                   const double* p_dot, double* c_dot, double* r_dot) const override {
    const int n = coordinate_count(), m = equation_count();
    std::array<MovingState, MaxEquations> g;
    moving_values(q, v, nullptr, t, q_dot, v_dot, nullptr, p_dot, nullptr, true, g.data());
    for (int j = 0; j < n; ++j) r_dot[j] = 0.0;
    for (int k = 0; k < m; ++k) {
      c_dot[k] = g[k].val().val().dx(0);
      if (!g[k].hasFastAccess()) continue;
      for (int j = 0; j < n; ++j) {
        const Along& A_kj = g[k].fastAccessDx(n + j).val();
        r_dot[j] += lambda[k] * A_kj.dx(0) + lambda_dot[k] * A_kj.val();
      }
    }
  }

  // Phi = lambda . (A mu_r) + mu_c . g: the epsilon-derivative gives A mu_r, the outer Fad its gradient.
  void add_velocity_second_order_products(const double* q, const double* v, double t, const double* lambda,
                                          const double* q_dot, const double* v_dot, const double* lambda_dot,
                                          const double* p_dot, const double* mu_r, const double* mu_c, int level,
                                          double* out_q, double* out_v, double* m_dot) const override {
    const int n = coordinate_count(), m = equation_count();
    std::array<MovingState, MaxEquations> g;
    moving_values(q, v, nullptr, t, q_dot, v_dot, nullptr, p_dot, mu_r, true, g.data());
    for (int k = 0; k < m; ++k) {
      m_dot[k] = g[k].val().dx(0).dx(0);
      if (!g[k].hasFastAccess()) continue;
      for (int j = 0; j < n; ++j) {
        const Moving& d_dq = g[k].fastAccessDx(j);
        const Along& A_kj = g[k].fastAccessDx(n + j).val();
        out_q[j] += lambda[k] * d_dq.dx(0).dx(0) + lambda_dot[k] * d_dq.dx(0).val();
        if (level == 0) {
          out_q[j] += mu_c[k] * d_dq.val().dx(0);
          out_v[j] += mu_c[k] * A_kj.dx(0);
        } else {
          out_q[j] += mu_c[k] * A_kj.dx(0);
        }
      }
    }
  }

  void level_tangent(const double* q, const double* v, const double* a, double t, const double* q_dot,
                     const double* v_dot, const double* a_dot, const double* p_dot, int level,
                     double* c_dot) const override {
    std::array<MovingState, MaxEquations> g;
    moving_values(q, v, a, t, q_dot, v_dot, a_dot, p_dot, nullptr, false, g.data());
    for (int k = 0; k < equation_count(); ++k) c_dot[k] = level < 2 ? g[k].val().val().dx(0) : g[k].val().dx(1).dx(0);
  }

  void add_level_transposed_tangent(const double* q, const double* v, const double* a, double t, const double* q_dot,
                                    const double* v_dot, const double* a_dot, const double* p_dot, int level,
                                    const double* mu_c, double* out_q, double* out_v) const override {
    const int n = coordinate_count(), m = equation_count();
    std::array<MovingState, MaxEquations> g;
    moving_values(q, v, a, t, q_dot, v_dot, a_dot, p_dot, nullptr, true, g.data());
    auto moved = [level](const Moving& x) { return level < 2 ? x.val().dx(0) : x.dx(1).dx(0); };
    for (int k = 0; k < m; ++k) {
      if (!g[k].hasFastAccess()) continue;
      for (int j = 0; j < n; ++j) {
        out_q[j] += mu_c[k] * moved(g[k].fastAccessDx(j));
        out_v[j] += mu_c[k] * moved(g[k].fastAccessDx(n + j));
      }
    }
  }

  // add_parameter_gradient's pass with every value moving along e: gradient[k] += the e-derivative of
  // lambda(e) . (A mu_r)_{,p_k} + mu_c . (g, or dg/ds at level 2)_{,p_k}.
  void add_parameter_second_order(const double* q, const double* v, const double* a, double t, const double* lambda,
                                  const double* q_dot, const double* v_dot, const double* a_dot,
                                  const double* lambda_dot, const double* p_dot, const double* mu_r,
                                  const double* mu_c, int level, double* gradient,
                                  ParameterMask wanted = kAllParameters) const override {
    using Directional = Sacado::Fad::SLFad<Moving, kMaxComponentParameters>;
    const int n = coordinate_count(), m = equation_count(), np = static_cast<int>(parameters().size());
    std::array<int, kMaxComponentParameters> seeded;
    const int ns = wanted_parameters(wanted, np, seeded);
    if (ns == 0) return;
    auto p_along = [&](int k) { return Moving(along(parameters()[k], p_dot ? p_dot[k] : 0.0)); };
    std::array<Directional, kMaxComponentParameters> pf;
    std::array<Directional, MaxCoordinates> qf, vf;
    std::array<Directional, MaxEquations> gf;
    for (int k = 0; k < np; ++k) pf[k] = Directional(p_along(k));
    for (int j = 0; j < ns; ++j) pf[seeded[j]] = Directional(ns, j, p_along(seeded[j]));
    const Moving epsilon(2, 0, Along(0.0)), s(2, 1, Along(0.0));
    for (int i = 0; i < n; ++i) {
      const Moving vi = Moving(along(v[i], v_dot[i]));
      qf[i] = Directional(Moving(along(q[i], q_dot[i])) + vi * s);
      vf[i] = Directional(vi + mu_r[i] * epsilon + Moving(along(a[i], a_dot[i])) * s);
    }
    const Directional ts(Moving(Along(t)) + s);
    derived().template evaluate<Directional, Directional>(qf.data(), vf.data(), ts, pf.data(), gf.data());
    for (int e = 0; e < m; ++e) {
      if (!gf[e].hasFastAccess()) continue;
      for (int j = 0; j < ns; ++j) {
        const Moving& d = gf[e].fastAccessDx(j);
        gradient[seeded[j]] += lambda[e] * d.dx(0).dx(0) + lambda_dot[e] * d.dx(0).val() +
                               mu_c[e] * (level == 2 ? d.dx(1).dx(0) : d.val().dx(0));
      }
    }
  }

 private:
  const Derived& derived() const { return static_cast<const Derived&>(*this); }
  static Along along(double value, double derivative) {
    Along x(1, 0, value);
    x.fastAccessDx(0) = derivative;
    return x;
  }
  // g along q + v s, v + eps mu_r + a s, t + s, with q, v, a, p moving along (q_dot, v_dot, a_dot, p_dot) (nullptr:
  // zero), seeded over (q, v) (slots j and n + j) if `seeded`. The v of q + v s carries v's slot too, so that the
  // v-derivative of dg/ds is that of level_jacobians.
  void moving_values(const double* q, const double* v, const double* a, double t, const double* q_dot,
                     const double* v_dot, const double* a_dot, const double* p_dot, const double* mu_r, bool seeded,
                     MovingState* g) const {
    const int n = coordinate_count();
    const Moving epsilon(2, 0, Along(0.0)), s(2, 1, Along(0.0));
    std::array<MovingState, MaxCoordinates> qs, vs;
    for (int i = 0; i < n; ++i) {
      const Moving qi(along(q[i], q_dot[i]));
      const Moving vi = Moving(along(v[i], v_dot[i])) + (mu_r ? mu_r[i] : 0.0) * epsilon;
      const Moving ai(along(a ? a[i] : 0.0, a_dot ? a_dot[i] : 0.0));
      const MovingState Q = seeded ? MovingState(2 * n, i, qi) : MovingState(qi);
      const MovingState V = seeded ? MovingState(2 * n, n + i, vi) : MovingState(vi);
      qs[i] = Q + V * MovingState(s);
      vs[i] = V + MovingState(ai * s);
    }
    const MovingState ts(Moving(Along(t)) + s);
    if (!p_dot) {
      derived().template evaluate<MovingState, double>(qs.data(), vs.data(), ts, parameters().data(), g);
      return;
    }
    std::array<MovingState, kMaxComponentParameters> p;
    for (std::size_t k = 0; k < parameters().size(); ++k) p[k] = MovingState(Moving(along(parameters()[k], p_dot[k])));
    derived().template evaluate<MovingState, MovingState>(qs.data(), vs.data(), ts, p.data(), g);
  }
  [[noreturn]] void no_position_level(const char* member) const {
    throw std::logic_error(std::string("VelocityConstraint::") + member + ": '" + name() +
                           "' is a non-holonomic constraint without a position level");
  }
};

}  // namespace flexadj::model
