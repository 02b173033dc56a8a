#pragma once
// Comparisons of hand-written element derivatives with their AD reference (test_*_hand_derivatives.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "flexadj/elements/elements.hpp"

namespace flexadj::testing {

// Uniform draws in [-1, 1] from a seeded generator, and vectors of them scaled (the tests' random states).
struct RandomDraws {
  explicit RandomDraws(unsigned seed) : generator(seed) {}
  std::mt19937 generator;
  std::uniform_real_distribution<double> uniform{-1.0, 1.0};
  std::vector<double> vector(int n, double scale) {
    std::vector<double> x(static_cast<std::size_t>(n));
    for (double& value : x) value = scale * uniform(generator);
    return x;
  }
};

inline double max_abs(const std::vector<double>& x) {
  double m = 0.0;
  for (double value : x) m = std::max(m, std::abs(value));
  return m;
}

// Entry-wise |a - b| <= 1e-12 max|b| (and exact agreement where the reference is zero throughout).
inline void expect_close(const std::vector<double>& hand, const std::vector<double>& ad, const std::string& what) {
  ASSERT_EQ(hand.size(), ad.size());
  const double tolerance = 1e-12 * max_abs(ad);
  for (std::size_t k = 0; k < ad.size(); ++k)
    EXPECT_LE(std::abs(hand[k] - ad[k]), tolerance) << what << " [" << k << "]: " << hand[k] << " vs " << ad[k];
}

// The Newton matrix (with its residual) and the adjoint's kept Jacobians dr/dq, dr/dv, dr/da (with r) of a
// hand-written element against its AD reference, at one state of n coordinates.
template <class Element>
void expect_same_jacobians(const Element& hand, const Element& ad, const double* q, const double* v, const double* a,
                           std::size_t n, const std::string& label) {
  const model::JacobianCoefficients c{1.0, 0.37, 2.5e3};
  std::vector<double> r_hand(n), r_ad(n), J_hand(n * n), J_ad(n * n);
  hand.residual_jacobian(q, v, a, 0.0, c, r_hand.data(), J_hand.data());
  ad.residual_jacobian(q, v, a, 0.0, c, r_ad.data(), J_ad.data());
  expect_close(r_hand, r_ad, label + " residual_jacobian r");
  expect_close(J_hand, J_ad, label + " residual_jacobian J");
  std::vector<double> kept[2][4];
  for (int which = 0; which < 2; ++which) {
    kept[which][0].assign(n, 0.0);
    for (int b = 1; b < 4; ++b) kept[which][b].assign(n * n, 0.0);
    (which == 0 ? hand : ad)
        .residual_jacobians(q, v, a, 0.0, kept[which][0].data(), kept[which][1].data(), kept[which][2].data(),
                            kept[which][3].data());
  }
  for (int b = 0; b < 4; ++b) expect_close(kept[0][b], kept[1][b], label + " residual_jacobians " + "rqva"[b]);
}

// The residual and the applied residual, then expect_same_jacobians().
template <class Element>
void expect_same_residuals_and_jacobians(const Element& hand, const Element& ad, const double* q, const double* v,
                                         const double* a, std::size_t n, const std::string& label) {
  std::vector<double> r_hand(n), r_ad(n);
  hand.residual(q, v, a, 0.0, r_hand.data());
  ad.residual(q, v, a, 0.0, r_ad.data());
  expect_close(r_hand, r_ad, label + " residual");
  hand.applied_residual(q, v, 0.0, r_hand.data());
  ad.applied_residual(q, v, 0.0, r_ad.data());
  expect_close(r_hand, r_ad, label + " applied_residual");
  expect_same_jacobians(hand, ad, q, v, a, n, label);
}

// The transposed products K^T mu, D^T mu, M^T mu.
template <class Element>
void expect_same_transposed_products(const Element& hand, const Element& ad, const double* q, const double* v,
                                     const double* a, const double* mu, std::size_t n, const std::string& label) {
  std::vector<double> products[2][3];
  for (int which = 0; which < 2; ++which) {
    for (auto& out : products[which]) out.assign(n, 0.0);
    (which == 0 ? hand : ad)
        .add_transposed_products(q, v, a, 0.0, mu, products[which][0].data(), products[which][1].data(),
                                 products[which][2].data());
  }
  for (int b = 0; b < 3; ++b) expect_close(products[0][b], products[1][b], label + " transposed " + "qva"[b]);
}

// mu . dr/dp of the wanted parameters, for each mask; with every parameter wanted the reference must not vanish.
template <class Element>
void expect_same_parameter_gradients(const Element& hand, const Element& ad, const double* q, const double* v,
                                     const double* a, const double* mu,
                                     std::initializer_list<model::ParameterMask> masks, const std::string& label) {
  const std::size_t np = ad.parameters().size();
  for (const model::ParameterMask mask : masks) {
    std::vector<double> g_hand(np, 0.0), g_ad(np, 0.0);
    hand.add_parameter_gradient(q, v, a, 0.0, mu, g_hand.data(), mask);
    ad.add_parameter_gradient(q, v, a, 0.0, mu, g_ad.data(), mask);
    expect_close(g_hand, g_ad, label + " parameter partials, mask " + std::to_string(mask));
    if (mask == model::kAllParameters) EXPECT_GT(max_abs(g_ad), 0.0) << label;
  }
}

// The discrete momenta (minus, plus) with their Jacobians at q^{n+1} (unless with_jacobians is false: h = 0 for the
// midpoint rule, whose Jacobians hold 1/h), the transposed products in (q_mid, v_mid) and at either end, and the
// parameter partials.
inline void expect_same_discrete_momenta(const model::ForceElement& hand, const model::ForceElement& ad,
                                         const std::vector<double>& q_mid, const std::vector<double>& v_mid,
                                         double h, const std::vector<double>& mu_minus,
                                         const std::vector<double>& mu_plus, const std::string& label,
                                         bool with_jacobians = true) {
  using Vector = std::vector<double>;
  const std::size_t n = q_mid.size();
  Vector minus[2], plus[2], jacobian[2], plus_jacobian[2];
  for (int which = 0; which < 2; ++which) {
    minus[which].assign(n, 0.0);
    plus[which].assign(n, 0.0);
    jacobian[which].assign(n * n, 0.0);
    plus_jacobian[which].assign(n * n, 0.0);
    (which == 0 ? hand : ad)
        .discrete_momenta(q_mid.data(), v_mid.data(), 0.0, h, minus[which].data(), plus[which].data(),
                          with_jacobians ? jacobian[which].data() : nullptr,
                          with_jacobians ? plus_jacobian[which].data() : nullptr);
  }
  expect_close(minus[0], minus[1], label + " minus");
  expect_close(plus[0], plus[1], label + " plus");
  if (with_jacobians) {
    expect_close(jacobian[0], jacobian[1], label + " d minus/dq^{n+1}");
    expect_close(plus_jacobian[0], plus_jacobian[1], label + " d plus/dq^{n+1}");
    // The forward Newton iterations' call, without d plus/dq^{n+1}.
    Vector newton_only(n * n, 0.0);
    hand.discrete_momenta(q_mid.data(), v_mid.data(), 0.0, h, minus[0].data(), plus[0].data(), newton_only.data(),
                          nullptr);
    expect_close(newton_only, jacobian[1], label + " d minus/dq^{n+1} alone");
  }

  Vector out_q[2], out_v[2], at_end[2][2];
  for (int which = 0; which < 2; ++which) {
    const model::ForceElement& element = which == 0 ? hand : ad;
    out_q[which].assign(n, 0.0);
    out_v[which].assign(n, 0.0);
    element.add_discrete_momenta_transposed_products(q_mid.data(), v_mid.data(), 0.0, h, mu_minus.data(),
                                                     mu_plus.data(), out_q[which].data(), out_v[which].data());
    for (int second = 0; second < (h > 0.0 ? 2 : 1); ++second) {
      at_end[which][second].assign(n, 0.0);
      element.add_discrete_momenta_transposed_product_at_end(q_mid.data(), v_mid.data(), 0.0, h, mu_minus.data(),
                                                             mu_plus.data(), second == 1,
                                                             at_end[which][second].data());
    }
  }
  expect_close(out_q[0], out_q[1], label + " transposed q_mid");
  expect_close(out_v[0], out_v[1], label + " transposed v_mid");
  for (int second = 0; second < (h > 0.0 ? 2 : 1); ++second)
    expect_close(at_end[0][second], at_end[1][second], label + " transposed at end " + std::to_string(second));

  const std::size_t np = ad.parameters().size();
  Vector g_hand(np, 0.0), g_ad(np, 0.0);
  hand.add_discrete_momenta_parameter_gradient(q_mid.data(), v_mid.data(), 0.0, h, mu_minus.data(), mu_plus.data(),
                                               g_hand.data());
  ad.add_discrete_momenta_parameter_gradient(q_mid.data(), v_mid.data(), 0.0, h, mu_minus.data(), mu_plus.data(),
                                             g_ad.data());
  expect_close(g_hand, g_ad, label + " momenta parameter partials");
  EXPECT_GT(max_abs(g_ad), 0.0) << label;
}

// The second-order products d/de (dr/dq)^T mu, d/de (dr/dv)^T mu, d/de (dr/da)^T mu and d/de mu . dr/dp (the
// wanted parameters of mask) along a direction e = (q_dot, v_dot, a_dot, p_dot), and d/de mu . dr/du.
template <class Element>
void expect_same_second_order_products(const Element& hand, const Element& ad, const double* q, const double* v,
                                       const double* a, const double* q_dot, const double* v_dot,
                                       const double* a_dot, const double* p_dot, const double* mu, std::size_t n,
                                       model::ParameterMask mask, const std::string& label) {
  const std::size_t np = ad.parameters().size();
  std::vector<double> products[2][4];
  double control[2];
  for (int which = 0; which < 2; ++which) {
    for (int b = 0; b < 3; ++b) products[which][b].assign(n, 0.0);
    products[which][3].assign(np, 0.0);
    control[which] = (which == 0 ? hand : ad)
                         .add_second_order_products(q, v, a, 0.0, q_dot, v_dot, a_dot, p_dot, 0.0, mu,
                                                    products[which][0].data(), products[which][1].data(),
                                                    products[which][2].data(), products[which][3].data(), mask);
  }
  for (int b = 0; b < 3; ++b) expect_close(products[0][b], products[1][b], label + " second-order " + "qva"[b]);
  expect_close(products[0][3], products[1][3], label + " second-order parameters, mask " + std::to_string(mask));
  EXPECT_EQ(control[0], control[1]) << label;
}

}  // namespace flexadj::testing
