// The dense QR basis of Held and Seifried (linalg/qr_basis.hpp): the factors' properties ([HS] eqs. (4)-(6), (27)),
// the Sacado derivatives of Q2 and P = Q1 R1^-T against central differences of the LAPACK factors and against the
// paper's hand-derived eqs. (29) and (36).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "flexadj/core/error.hpp"
#include "flexadj/linalg/qr_basis.hpp"

namespace flexadj::linalg {
namespace {

// A fixed full-rank C^T (n x m, column-major) with entries of both signs (reflector signs of both kinds).
std::vector<double> sample_ct(std::size_t n, std::size_t m) {
  std::vector<double> ct(n * m);
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t i = 0; i < n; ++i)
      ct[i + n * j] = std::sin(1.3 * double(i + 1) + 0.7 * double(j * j + 1)) + (i == j ? 0.5 : 0.0);
  return ct;
}

double max_abs(const std::vector<double>& x) {
  double m = 0.0;
  for (double v : x) m = std::max(m, std::abs(v));
  return m;
}

class QrBasisTest : public ::testing::TestWithParam<std::pair<int, int>> {};

// C^T = Q1 R1, Q orthogonal, diag(R1) > 0, C Q2 = 0, C P = I.
TEST_P(QrBasisTest, FactorsHaveThePropertiesOfEquations4To6And27) {
  const auto [ni, mi] = GetParam();
  const std::size_t n = std::size_t(ni), m = std::size_t(mi), f = n - m;
  const std::vector<double> ct = sample_ct(n, m);
  QrBasis basis;
  basis.resize(n, m);
  basis.factor(ct);
  const auto& q = basis.q();
  const auto& r1 = basis.r1();
  const auto& p = basis.p();
  double worst = 0.0;
  for (std::size_t j = 0; j < m; ++j) {
    EXPECT_GT(r1[j + m * j], 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      double x = 0.0;
      for (std::size_t c = 0; c < m; ++c) x += q[i + n * c] * r1[c + m * j];
      worst = std::max(worst, std::abs(x - ct[i + n * j]));
    }
  }
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      double x = 0.0;
      for (std::size_t i = 0; i < n; ++i) x += q[i + n * a] * q[i + n * b];
      worst = std::max(worst, std::abs(x - (a == b ? 1.0 : 0.0)));
    }
  for (std::size_t r = 0; r < m; ++r) {
    for (std::size_t c = 0; c < f; ++c) {
      double x = 0.0;
      for (std::size_t i = 0; i < n; ++i) x += ct[i + n * r] * basis.q2()[i + n * c];
      worst = std::max(worst, std::abs(x));
    }
    for (std::size_t c = 0; c < m; ++c) {
      double x = 0.0;
      for (std::size_t i = 0; i < n; ++i) x += ct[i + n * r] * p[i + n * c];
      worst = std::max(worst, std::abs(x - (r == c ? 1.0 : 0.0)));
    }
  }
  std::printf("n = %zu, m = %zu: largest defect %.2e\n", n, m, worst);
  EXPECT_LT(worst, 1e-14 * double(n));
}

// Sacado's dQ2/dE and dP/dE (E an entry of C^T): the AD pass reproduces LAPACK's factors; its derivatives match
// central differences of those factors (sign-fixed, so the perturbed factorizations stay on one branch); dP equals
// eq. (36) and Q1^T dQ2 equals that of eq. (29) (dQ2 itself differs by a rotation inside the null space: Q2^T dQ2
// is skew for both); Q2 Q2^T, which the state equations use, has the same derivative from both.
TEST_P(QrBasisTest, SacadoDerivativesMatchDifferencesAndThePapersEquations29And36) {
  const auto [ni, mi] = GetParam();
  const std::size_t n = std::size_t(ni), m = std::size_t(mi), f = n - m;
  const std::vector<double> ct = sample_ct(n, m);
  QrBasis basis, plus, minus;
  for (QrBasis* b : {&basis, &plus, &minus}) b->resize(n, m);
  basis.factor(ct);
  basis.differentiate();
  std::printf("AD values against LAPACK: %.2e\n", basis.value_mismatch());
  EXPECT_LT(basis.value_mismatch(), 1e-14);
  const double step = 1e-6;
  double fd_q2 = 0.0, fd_p = 0.0, paper_p = 0.0, paper_q1 = 0.0, paper_projector = 0.0, skew = 0.0;
  std::vector<double> dq2_paper, dp_paper, direction(n * m);
  for (std::size_t e = 0; e < n * m; ++e) {
    std::vector<double> shifted = ct;
    shifted[e] = ct[e] + step;
    plus.factor(shifted);
    shifted[e] = ct[e] - step;
    minus.factor(shifted);
    const double* dq2 = basis.dq2(e);
    const double* dp = basis.dp(e);
    for (std::size_t k = 0; k < n * f; ++k)
      fd_q2 = std::max(fd_q2, std::abs(dq2[k] - (plus.q2()[k] - minus.q2()[k]) / (2 * step)));
    for (std::size_t k = 0; k < n * m; ++k)
      fd_p = std::max(fd_p, std::abs(dp[k] - (plus.p()[k] - minus.p()[k]) / (2 * step)));
    std::fill(direction.begin(), direction.end(), 0.0);
    direction[e] = 1.0;
    paper_derivatives(basis, ct, direction, dq2_paper, dp_paper);
    for (std::size_t k = 0; k < n * m; ++k) paper_p = std::max(paper_p, std::abs(dp[k] - dp_paper[k]));
    const double* q = basis.q().data();
    const double* q2 = basis.q2();
    for (std::size_t c = 0; c < f; ++c) {
      for (std::size_t r = 0; r < m; ++r) {  // Q1^T dQ2
        double ad = 0.0, hand = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
          ad += q[i + n * r] * dq2[i + n * c];
          hand += q[i + n * r] * dq2_paper[i + n * c];
        }
        paper_q1 = std::max(paper_q1, std::abs(ad - hand));
      }
      for (std::size_t r = 0; r < f; ++r) {  // Q2^T dQ2 + dQ2^T Q2 = 0
        double x = 0.0;
        for (std::size_t i = 0; i < n; ++i) x += q2[i + n * r] * dq2[i + n * c] + dq2[i + n * r] * q2[i + n * c];
        skew = std::max(skew, std::abs(x));
      }
    }
    for (std::size_t a = 0; a < n; ++a)  // d(Q2 Q2^T)
      for (std::size_t b = 0; b < n; ++b) {
        double ad = 0.0, hand = 0.0;
        for (std::size_t c = 0; c < f; ++c) {
          ad += dq2[a + n * c] * q2[b + n * c] + q2[a + n * c] * dq2[b + n * c];
          hand += dq2_paper[a + n * c] * q2[b + n * c] + q2[a + n * c] * dq2_paper[b + n * c];
        }
        paper_projector = std::max(paper_projector, std::abs(ad - hand));
      }
  }
  std::printf("AD against differences: dQ2 %.2e, dP %.2e; against eqs. (29), (36): dP %.2e, Q1^T dQ2 %.2e, "
              "d(Q2 Q2^T) %.2e; Q2^T dQ2 skew to %.2e\n", fd_q2, fd_p, paper_p, paper_q1, paper_projector, skew);
  EXPECT_LT(fd_q2, 1e-8);
  EXPECT_LT(fd_p, 1e-8);
  EXPECT_LT(paper_p, 1e-12);
  EXPECT_LT(paper_q1, 1e-12);
  EXPECT_LT(paper_projector, 1e-12);
  EXPECT_LT(skew, 1e-12);
}

// The torsional pendulum's C = [2 z1, 2 z2] (n = 2, m = 1), a rigid-body-sized case and a wider one.
INSTANTIATE_TEST_SUITE_P(Sizes, QrBasisTest,
                         ::testing::Values(std::make_pair(2, 1), std::make_pair(7, 4), std::make_pair(9, 3)));

TEST(QrBasis, RankDeficientJacobianIsASolverError) {
  std::vector<double> ct = sample_ct(5, 2);
  for (std::size_t i = 0; i < 5; ++i) ct[i + 5] = 2.0 * ct[i];  // second constraint row = 2 x the first
  QrBasis basis;
  basis.resize(5, 2);
  EXPECT_THROW(basis.factor(ct), SolverError);
}

}  // namespace
}  // namespace flexadj::linalg
