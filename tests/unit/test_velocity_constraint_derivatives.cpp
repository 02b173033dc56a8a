// The Sacado adaptor of non-holonomic constraints (model/velocity_constraint_ad.hpp) on the knife edge: g_q, A =
// dg/dv, H = d(A^T lambda)/dq, the time derivative dg/ds along q + v s, v + a s, t + s and its Jacobians, the
// transposed products and the parameter partials, each against central differences of g (fd_check.hpp); g linear
// in v; the position-level members refuse. The second-order kernels (each first-order one differentiated along a
// direction of q, v, a, lambda and the parameters) against central differences of the first-order ones, for the
// planar and the spatial knife edge.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <stdexcept>
#include <vector>

#include "flexadj/constraints/constraints.hpp"
#include "flexadj/constraints/spatial_knife_edge.hpp"
#include "fd_check.hpp"

namespace flexadj::testing {
namespace {

using Vector = std::vector<double>;

// Central differences of f (m values) with respect to x (n values), step h: m x n row-major.
Vector differences(const std::function<Vector(const Vector&)>& f, const Vector& x, double h) {
  const std::size_t n = x.size(), m = f(x).size();
  Vector D(m * n);
  for (std::size_t j = 0; j < n; ++j) {
    Vector xp = x, xm = x;
    xp[j] += h;
    xm[j] -= h;
    const Vector fp = f(xp), fm = f(xm);
    for (std::size_t i = 0; i < m; ++i) D[i * n + j] = (fp[i] - fm[i]) / (2.0 * h);
  }
  return D;
}

struct Edge {
  std::unique_ptr<model::Constraint> owner =
      constraints::make_knife_edge("edge", 0, {-0.3, 0.1, 0.0}, {0.8, 0.6, 0.0});
  const model::VelocityConstraint& c = dynamic_cast<const model::VelocityConstraint&>(*owner);
  Vector q{0.2, -0.1, 0.7}, v{0.5, -0.4, 1.3}, a{0.3, 0.9, -0.6};
  double lambda = 1.7, t = 0.2;
  double g(const Vector& qx, const Vector& vx) const {
    double value, g_q[3], A[3];
    c.velocity_jacobians(qx.data(), vx.data(), &lambda, t, &value, g_q, A, nullptr);
    return value;
  }
};

constexpr double kStep = 1e-6;

TEST(VelocityConstraintDerivatives, KnifeEdgeJacobiansAndHessianMatchCentralDifferences) {
  const Edge e;
  double g, g_q[3], A[3], H[9];
  e.c.velocity_jacobians(e.q.data(), e.v.data(), &e.lambda, e.t, &g, g_q, A, H);
  const Vector G{g};
  EXPECT_TRUE(jacobian_matches_central_differences(
      "g_q", Vector(g_q, g_q + 3), differences([&](const Vector& q) { return Vector{e.g(q, e.v)}; }, e.q, kStep), 3,
      kStep, std::abs(g)));
  EXPECT_TRUE(jacobian_matches_central_differences(
      "A", Vector(A, A + 3), differences([&](const Vector& v) { return Vector{e.g(e.q, v)}; }, e.v, kStep), 3, kStep,
      std::abs(g)));
  // g is linear in v: g(v) = A v + g(0).
  const double b = e.g(e.q, {0.0, 0.0, 0.0});
  EXPECT_NEAR(g, A[0] * e.v[0] + A[1] * e.v[1] + A[2] * e.v[2] + b, 1e-15);
  // H_ij = d(A^T lambda)_i / dq_j.
  auto force = [&](const Vector& q) {
    double value, gq[3], Aq[3];
    e.c.velocity_jacobians(q.data(), e.v.data(), nullptr, e.t, &value, gq, Aq, nullptr);
    return Vector{e.lambda * Aq[0], e.lambda * Aq[1], e.lambda * Aq[2]};
  };
  EXPECT_TRUE(jacobian_matches_central_differences("H", Vector(H, H + 9), differences(force, e.q, kStep), 3, kStep,
                                                   e.lambda, kRoundOffAccuracy, 1e-6, 1.0, 2));
}

TEST(VelocityConstraintDerivatives, KnifeEdgeTimeDerivativeAndItsJacobiansMatchCentralDifferences) {
  const Edge e;
  auto along = [&](double s) {
    Vector q(3), v(3);
    for (int i = 0; i < 3; ++i) {
      q[i] = e.q[i] + e.v[i] * s + 0.5 * e.a[i] * s * s;
      v[i] = e.v[i] + e.a[i] * s;
    }
    return e.g(q, v);
  };
  double g, g_dot;
  e.c.velocity_time_derivative(e.q.data(), e.v.data(), e.a.data(), e.t, &g, &g_dot);
  EXPECT_TRUE(matches_central_difference("dg/ds", g_dot, {(along(kStep) - along(-kStep)) / (2 * kStep), kStep}, g,
                                         kRoundOffAccuracy));
  // Level 2: the Jacobians of dg/ds in q and v.
  double d_dq[3], d_dv[3];
  e.c.level_jacobians(e.q.data(), e.v.data(), e.a.data(), e.t, 2, d_dq, d_dv);
  auto rate = [&](const Vector& q, const Vector& v) {
    double value, derivative;
    e.c.velocity_time_derivative(q.data(), v.data(), e.a.data(), e.t, &value, &derivative);
    return Vector{derivative};
  };
  EXPECT_TRUE(jacobian_matches_central_differences(
      "d(dg/ds)/dq", Vector(d_dq, d_dq + 3), differences([&](const Vector& q) { return rate(q, e.v); }, e.q, kStep), 3,
      kStep, std::abs(g_dot)));
  EXPECT_TRUE(jacobian_matches_central_differences(
      "d(dg/ds)/dv", Vector(d_dv, d_dv + 3), differences([&](const Vector& v) { return rate(e.q, v); }, e.v, kStep), 3,
      kStep, std::abs(g_dot)));
}

TEST(VelocityConstraintDerivatives, KnifeEdgeProductsAndParameterPartialsMatchCentralDifferences) {
  Edge e;
  const Vector mu_r{0.4, -1.1, 0.6};
  const double mu_c = -0.8;
  double g, g_q[3], A[3], H[9];
  e.c.velocity_jacobians(e.q.data(), e.v.data(), &e.lambda, e.t, &g, g_q, A, H);
  double out_q[3] = {0, 0, 0}, out_v[3] = {0, 0, 0};
  e.c.add_velocity_transposed_products(e.q.data(), e.v.data(), e.t, &e.lambda, mu_r.data(), &mu_c, out_q, out_v);
  for (int j = 0; j < 3; ++j) {
    double expected = g_q[j] * mu_c;
    for (int i = 0; i < 3; ++i) expected += H[i * 3 + j] * mu_r[i];
    EXPECT_NEAR(out_q[j], expected, 1e-14);
    EXPECT_NEAR(out_v[j], A[j] * mu_c, 1e-14);
  }
  // d/dp [lambda (A mu_r) + mu_c g] (levels 0, 1) and with dg/ds (level 2), against differences in each parameter.
  auto objective = [&](int level) {
    double value, gq[3], Av[3], g_dot;
    e.c.velocity_jacobians(e.q.data(), e.v.data(), nullptr, e.t, &value, gq, Av, nullptr);
    e.c.velocity_time_derivative(e.q.data(), e.v.data(), e.a.data(), e.t, &value, &g_dot);
    return e.lambda * (Av[0] * mu_r[0] + Av[1] * mu_r[1] + Av[2] * mu_r[2]) + mu_c * (level == 2 ? g_dot : value);
  };
  auto* edge = e.owner.get();
  for (int level : {1, 2}) {
    Vector gradient(edge->parameters().size(), 0.0);
    e.c.add_parameter_gradient(e.q.data(), e.v.data(), e.a.data(), e.t, &e.lambda, mu_r.data(), &mu_c, level,
                               gradient.data());
    for (std::size_t k = 0; k < gradient.size(); ++k) {
      const double p = edge->parameters()[k];
      edge->set_parameter(int(k), p + kStep);
      const double plus = objective(level);
      edge->set_parameter(int(k), p - kStep);
      const double minus = objective(level);
      edge->set_parameter(int(k), p);
      if (k == 2 || k == 5) {  // point_z, direction_z: not read by the planar edge
        EXPECT_EQ(gradient[k], 0.0);
        continue;
      }
      EXPECT_TRUE(matches_central_difference(edge->parameter_names()[k] + " at level " + std::to_string(level),
                                             gradient[k], {(plus - minus) / (2 * kStep), kStep}, objective(level),
                                             kRoundOffAccuracy));
    }
  }
}

// Every second-order kernel against central differences of the first-order quantities it differentiates, with q,
// v, a, lambda and the parameters moved together along e (step 1e-5): g, A^T lambda, the transposed products
// (level 0: H^T mu_r + g_q^T mu_c and A^T mu_c; levels 1, 2: H^T mu_r + A^T mu_c), A mu_r, the level's value and its
// transposed Jacobians, and the parameter gradient.
void check_second_order_kernels(model::Constraint& owner, const Vector& q, const Vector& v, const Vector& a) {
  const auto& c = dynamic_cast<const model::VelocityConstraint&>(owner);
  const std::size_t n = q.size(), np = owner.parameters().size();
  const Vector p0 = owner.parameters();
  Vector q_dot(n), v_dot(n), a_dot(n), mu_r(n), p_dot(np);
  for (std::size_t i = 0; i < n; ++i) {
    q_dot[i] = 0.3 - 0.17 * double(i);
    v_dot[i] = -0.6 + 0.23 * double(i);
    a_dot[i] = 0.4 * std::cos(double(i));
    mu_r[i] = 0.9 * std::sin(1.0 + double(i));
  }
  for (std::size_t k = 0; k < np; ++k) p_dot[k] = 0.5 * std::cos(2.0 + double(k));
  const double lambda = 1.3, lambda_dot = -0.7, mu_c = 0.8, t = 0.25;
  auto first_order = [&](double step, int level) {
    Vector x(n), y(n), z(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = q[i] + step * q_dot[i];
      y[i] = v[i] + step * v_dot[i];
      z[i] = a[i] + step * a_dot[i];
    }
    for (std::size_t k = 0; k < np; ++k) owner.set_parameter(int(k), p0[k] + step * p_dot[k]);
    const double l = lambda + step * lambda_dot;
    double g, g_dot;
    Vector g_q(n), A(n), H(n * n), force(n), out_q(n, 0.0), out_v(n, 0.0), d_dq(n), d_dv(n), gradient(np, 0.0);
    c.velocity_jacobians(x.data(), y.data(), &l, t, &g, g_q.data(), A.data(), H.data());
    c.velocity_time_derivative(x.data(), y.data(), z.data(), t, &g, &g_dot);
    double a_mu = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      force[i] = A[i] * l;
      a_mu += A[i] * mu_r[i];
    }
    c.add_velocity_transposed_products(x.data(), y.data(), t, &l, mu_r.data(), &mu_c, out_q.data(), out_v.data());
    if (level > 0)  // the rows whose unknown is v or a: A^T mu_c with the q rows
      for (std::size_t i = 0; i < n; ++i) {
        out_q[i] += out_v[i] - g_q[i] * mu_c;
        out_v[i] = 0.0;
      }
    c.level_jacobians(x.data(), y.data(), z.data(), t, level, d_dq.data(), d_dv.data());
    for (std::size_t i = 0; i < n; ++i) {
      d_dq[i] *= mu_c;
      d_dv[i] *= mu_c;
    }
    c.add_parameter_gradient(x.data(), y.data(), z.data(), t, &l, mu_r.data(), &mu_c, level, gradient.data());
    for (std::size_t k = 0; k < np; ++k) owner.set_parameter(int(k), p0[k]);
    Vector all{g, level == 2 ? g_dot : g, a_mu};
    for (const Vector* part : {&force, &out_q, &out_v, &d_dq, &d_dv, &gradient})
      all.insert(all.end(), part->begin(), part->end());
    return all;
  };
  const double h = 1e-5;
  for (int level = 0; level <= 2; ++level) {
    const Vector plus = first_order(h, level), minus = first_order(-h, level), at = first_order(0.0, level);
    Vector fd(at.size());
    for (std::size_t i = 0; i < at.size(); ++i) fd[i] = (plus[i] - minus[i]) / (2.0 * h);
    double g_dot, level_dot, m_dot;
    Vector r_dot(n), out_q(n, 0.0), out_v(n, 0.0), level_q(n, 0.0), level_v(n, 0.0), gradient(np, 0.0);
    c.velocity_constraint_tangent(q.data(), v.data(), t, &lambda, q_dot.data(), v_dot.data(), &lambda_dot,
                                  p_dot.data(), &g_dot, r_dot.data());
    c.level_tangent(q.data(), v.data(), a.data(), t, q_dot.data(), v_dot.data(), a_dot.data(), p_dot.data(), level,
                    &level_dot);
    c.add_velocity_second_order_products(q.data(), v.data(), t, &lambda, q_dot.data(), v_dot.data(), &lambda_dot,
                                         p_dot.data(), mu_r.data(), &mu_c, level, out_q.data(), out_v.data(), &m_dot);
    c.add_level_transposed_tangent(q.data(), v.data(), a.data(), t, q_dot.data(), v_dot.data(), a_dot.data(),
                                   p_dot.data(), level, &mu_c, level_q.data(), level_v.data());
    c.add_parameter_second_order(q.data(), v.data(), a.data(), t, &lambda, q_dot.data(), v_dot.data(), a_dot.data(),
                                 &lambda_dot, p_dot.data(), mu_r.data(), &mu_c, level, gradient.data());
    Vector analytic{g_dot, level_dot, m_dot};
    for (const Vector* part : {&r_dot, &out_q, &out_v, &level_q, &level_v, &gradient})
      analytic.insert(analytic.end(), part->begin(), part->end());
    const std::string label = std::string(owner.name()) + ", level " + std::to_string(level) +
                              ": [g, level value, A mu_r, A^T lambda, transposed products q, v, level rows q, v, "
                              "parameter gradient] along (q, v, a, lambda, p)";
    double floor = 0.0;
    for (double value : at) floor = std::max(floor, std::abs(value));
    EXPECT_TRUE(jacobian_matches_central_differences(label, analytic, fd, 1, h, floor, kRoundOffAccuracy, 1e-6));
  }
  // Held parameters (p_dot = nullptr) give the same as a zero direction.
  const Vector zero(np, 0.0);
  double g1, g2;
  Vector r1(n), r2(n);
  c.velocity_constraint_tangent(q.data(), v.data(), t, &lambda, q_dot.data(), v_dot.data(), &lambda_dot, nullptr, &g1,
                                r1.data());
  c.velocity_constraint_tangent(q.data(), v.data(), t, &lambda, q_dot.data(), v_dot.data(), &lambda_dot, zero.data(),
                                &g2, r2.data());
  EXPECT_EQ(g1, g2);
  EXPECT_EQ(r1, r2);
}

TEST(VelocityConstraintDerivatives, SecondOrderKernelsMatchCentralDifferencesOfFirstOrder) {
  Edge e;
  check_second_order_kernels(*e.owner, e.q, e.v, e.a);
  // Spatial: position, Euler parameters near unit length but not on it, and their rates.
  auto spatial = constraints::make_spatial_knife_edge("spatial", 0, {0.2, -0.4, 0.1}, {0.3, 0.9, -0.2});
  check_second_order_kernels(*spatial, {0.1, -0.3, 0.2, 0.93, 0.2, -0.25, 0.17},
                             {0.4, 0.2, -0.5, 0.05, -0.3, 0.2, 0.35}, {-0.2, 0.6, 0.1, 0.3, -0.1, 0.4, -0.25});
}

TEST(VelocityConstraintDerivatives, PositionLevelMembersRefuse) {
  const Edge e;
  double c, Cq[3];
  EXPECT_THROW(e.c.jacobian(e.q.data(), e.t, &c, Cq), std::logic_error);
  EXPECT_THROW(e.c.value(e.q.data(), e.t, &c), std::logic_error);
  EXPECT_TRUE(e.c.velocity_level());
}

}  // namespace
}  // namespace flexadj::testing
