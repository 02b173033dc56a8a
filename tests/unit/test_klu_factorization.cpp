// KluFactorization: solves with A and A^T against a dense reference, refactorization with the old pivot order
// equal to a fresh factorization to round-off, the fall-back to a fresh one when the old order no longer fits, and
// the solve restricted to the unknowns ordered last against the full solve.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "flexadj/linalg/klu_factorization.hpp"

namespace {

using flexadj::linalg::KluFactorization;

// A saddle-point matrix [K C^T; C 0] of a chain: K tridiagonal (n x n), C (m x n) with two entries per row. Its
// zero block needs pivoting. Dense, row-major.
std::vector<double> saddle_point_matrix(int n, int m, double shift, std::mt19937& random) {
  std::uniform_real_distribution<double> u(0.5, 1.5);
  const int size = n + m;
  std::vector<double> a(size * size, 0.0);
  for (int i = 0; i < n; ++i) {
    a[i * size + i] = 4.0 + shift + u(random);
    if (i + 1 < n) a[i * size + i + 1] = a[(i + 1) * size + i] = -1.0 * u(random);
  }
  for (int k = 0; k < m; ++k) {
    const int i = 2 * k, j = 2 * k + 1;
    const double ci = u(random), cj = -u(random);
    a[(n + k) * size + i] = a[i * size + n + k] = ci;
    a[(n + k) * size + j] = a[j * size + n + k] = cj;
  }
  return a;
}

// A Newton iteration's next matrix: the same pattern, values changed by about 1 %.
std::vector<double> next_newton_matrix(std::vector<double> a, std::mt19937& random) {
  std::uniform_real_distribution<double> u(-0.01, 0.01);
  for (double& value : a)
    if (value != 0.0) value *= 1.0 + u(random);
  return a;
}

// The structure of every nonzero of the first matrix (later ones have the same pattern).
KluFactorization structure_of(const std::vector<double>& a, int size) {
  std::vector<int> offsets(1, 0), columns;
  for (int i = 0; i < size; ++i) {
    for (int j = 0; j < size; ++j)
      if (a[i * size + j] != 0.0) columns.push_back(j);
    offsets.push_back(static_cast<int>(columns.size()));
  }
  return KluFactorization(offsets, columns);
}

void set_values(KluFactorization& klu, const std::vector<double>& a, int size) {
  int k = 0;
  for (int i = 0; i < size; ++i)
    for (int j = 0; j < size; ++j)
      if (a[i * size + j] != 0.0) klu.values()[k++] = a[i * size + j];
}

// max_i |(A x - b)_i| (or A^T).
double residual(const std::vector<double>& a, int size, const std::vector<double>& x, const std::vector<double>& b,
                bool transposed) {
  double largest = 0.0;
  for (int i = 0; i < size; ++i) {
    double r = -b[i];
    for (int j = 0; j < size; ++j) r += (transposed ? a[j * size + i] : a[i * size + j]) * x[j];
    largest = std::max(largest, std::abs(r));
  }
  return largest;
}

TEST(KluFactorization, SolvesWithTheMatrixAndItsTranspose) {
  std::mt19937 random(7);
  const int n = 40, m = 15, size = n + m;
  const auto a = saddle_point_matrix(n, m, 0.0, random);
  KluFactorization klu = structure_of(a, size);
  set_values(klu, a, size);
  ASSERT_TRUE(klu.factorize());
  std::vector<double> b(size);
  for (int i = 0; i < size; ++i) b[i] = std::sin(1.0 + i);
  for (bool transposed : {false, true}) {
    std::vector<double> x = b;
    klu.solve(x.data(), transposed);
    EXPECT_LT(residual(a, size, x, b, transposed), 1e-13) << (transposed ? "A^T" : "A");
  }
  // The saddle-point matrix is symmetric: a nonsymmetric one shows that the two solves are told apart.
  auto nonsymmetric = a;
  nonsymmetric[0 * size + 1] *= 3.0;
  set_values(klu, nonsymmetric, size);
  ASSERT_TRUE(klu.factorize());
  std::vector<double> x = b, y = b;
  klu.solve(x.data(), false);
  klu.solve(y.data(), true);
  EXPECT_LT(residual(nonsymmetric, size, x, b, false), 1e-13);
  EXPECT_LT(residual(nonsymmetric, size, y, b, true), 1e-13);
  EXPECT_GT(std::abs(x[0] - y[0]), 1e-6);
}

TEST(KluFactorization, RefactorizationEqualsAFreshFactorization) {
  std::mt19937 random(11);
  const int n = 60, m = 25, size = n + m;
  const auto a = saddle_point_matrix(n, m, 0.0, random);
  KluFactorization klu = structure_of(a, size);
  set_values(klu, a, size);
  ASSERT_TRUE(klu.factorize());
  const auto next = next_newton_matrix(a, random);
  set_values(klu, next, size);
  ASSERT_TRUE(klu.refactorize());
  EXPECT_TRUE(klu.last_was_refactorization());
  std::vector<double> b(size), x(size);
  for (int i = 0; i < size; ++i) b[i] = std::cos(0.3 * i);
  x = b;
  klu.solve(x.data());
  KluFactorization fresh = structure_of(next, size);
  set_values(fresh, next, size);
  ASSERT_TRUE(fresh.factorize());
  std::vector<double> reference = b;
  fresh.solve(reference.data());
  for (int i = 0; i < size; ++i) EXPECT_NEAR(x[i], reference[i], 1e-12 * (1.0 + std::abs(reference[i]))) << i;
  EXPECT_LT(residual(next, size, x, b, false), 1e-13);
  EXPECT_EQ(klu.factorizations(), 1);
  EXPECT_EQ(klu.refactorizations(), 1);
}

TEST(KluFactorization, RefactorizationFallsBackWhenAPivotVanishes) {
  // [[1, 1], [1, 0]] is factorized with pivot 1 in the first column; values [[0, 1], [1, 1]] have a zero there,
  // which the old order cannot use: refactorize() must pivot afresh and still solve.
  KluFactorization klu({0, 2, 4}, {0, 1, 0, 1});
  klu.values() = {1.0, 1.0, 1.0, 0.0};
  ASSERT_TRUE(klu.factorize());
  klu.values() = {0.0, 1.0, 1.0, 1.0};
  ASSERT_TRUE(klu.refactorize());
  EXPECT_FALSE(klu.last_was_refactorization());
  std::vector<double> x = {1.0, 2.0};  // [[0, 1], [1, 1]] x = (1, 2): x = (1, 1)
  klu.solve(x.data());
  EXPECT_NEAR(x[0], 1.0, 1e-15);
  EXPECT_NEAR(x[1], 1.0, 1e-15);
}

// The saddle-point matrix with its unknowns renumbered by `permutation` (new index of old i), nonsymmetric entries
// scaled by 1 + 0.3 sin, so that the restricted solve meets pivoting, row scaling and an unsymmetric A.
std::vector<double> renumbered(const std::vector<double>& a, int size, const std::vector<int>& permutation) {
  std::vector<double> b(a.size(), 0.0);
  for (int i = 0; i < size; ++i)
    for (int j = 0; j < size; ++j)
      if (a[i * size + j] != 0.0)
        b[permutation[i] * size + permutation[j]] = a[i * size + j] * (i < j ? 1.0 + 0.3 * std::sin(i + 2.0 * j) : 1.0);
  return b;
}

// A renumbered saddle-point matrix of n + m unknowns (above) with its permutation and its compressed rows.
struct RenumberedSaddlePoint {
  std::vector<int> permutation;
  std::vector<double> a;
  std::vector<int> offsets, columns;
};
RenumberedSaddlePoint renumbered_saddle_point(int n, int m, std::mt19937& random) {
  const int size = n + m;
  RenumberedSaddlePoint r;
  r.permutation.resize(size);
  for (int i = 0; i < size; ++i) r.permutation[i] = i;
  std::shuffle(r.permutation.begin(), r.permutation.end(), random);
  r.a = renumbered(saddle_point_matrix(n, m, 0.0, random), size, r.permutation);
  r.offsets.assign(1, 0);
  for (int i = 0; i < size; ++i) {
    for (int j = 0; j < size; ++j)
      if (r.a[i * size + j] != 0.0) r.columns.push_back(j);
    r.offsets.push_back(static_cast<int>(r.columns.size()));
  }
  return r;
}

TEST(KluFactorization, SolveOnTheLastUnknownsEqualsTheFullSolve) {
  std::mt19937 random(5);
  const int n = 60, m = 25, size = n + m;
  const auto [permutation, a, offsets, columns] = renumbered_saddle_point(n, m, random);
  // The unknowns of both ends of the chain and a multiplier or two: where an interface would couple.
  const std::vector<int> last{permutation[0], permutation[1], permutation[n - 1], permutation[n], permutation[n + 1],
                              permutation[size - 1]};
  KluFactorization klu(offsets, columns, last);
  set_values(klu, a, size);
  ASSERT_TRUE(klu.factorize());
  const int k = static_cast<int>(last.size()), count = 3;
  const auto check = [&](const std::vector<double>& matrix, const char* what) {
    std::vector<double> restricted(k * count), full(size);
    for (int c = 0; c < count; ++c)
      for (int i = 0; i < k; ++i) restricted[c * k + i] = std::cos(1.0 + i + 7.0 * c);
    const std::vector<double> rhs = restricted;
    klu.solve_last(restricted.data(), count);
    for (int c = 0; c < count; ++c) {
      std::fill(full.begin(), full.end(), 0.0);
      for (int i = 0; i < k; ++i) full[last[i]] = rhs[c * k + i];
      const std::vector<double> b = full;
      klu.solve(full.data());
      ASSERT_LT(residual(matrix, size, full, b, false), 1e-12) << what;
      for (int i = 0; i < k; ++i)
        EXPECT_NEAR(restricted[c * k + i], full[last[i]], 1e-13 * (1.0 + std::abs(full[last[i]])))
            << what << ", column " << c << ", unknown " << last[i];
    }
  };
  check(a, "factorization");
  const auto next = next_newton_matrix(a, random);  // refactorized with the old pivots
  set_values(klu, next, size);
  ASSERT_TRUE(klu.refactorize());
  EXPECT_TRUE(klu.last_was_refactorization());
  check(next, "refactorization");
}

// The two halves of a solve (solve_begin, solve_finish) against two full solves: A^-1 b on the `last` unknowns and
// A^-1 (b - c) in full, for a c that is zero outside them; with and without `last` unknowns, after a factorization
// and after a refactorization.
TEST(KluFactorization, SolveInHalvesEqualsTwoFullSolves) {
  std::mt19937 random(11);
  const int n = 60, m = 25, size = n + m;
  const auto [permutation, a, offsets, columns] = renumbered_saddle_point(n, m, random);
  for (const std::vector<int>& last : {std::vector<int>{permutation[0], permutation[2], permutation[n - 1],
                                                        permutation[n], permutation[size - 1]},
                                       std::vector<int>{}}) {
    KluFactorization klu(offsets, columns, last);
    const int k = static_cast<int>(last.size());
    const auto check = [&](const char* what) {
      std::vector<double> b(size), c_last(k), y_last(k), x(size);
      for (int i = 0; i < size; ++i) b[i] = std::sin(0.3 + 1.7 * i);
      for (int i = 0; i < k; ++i) c_last[i] = std::cos(2.0 + i);
      klu.solve_begin(b.data(), y_last.data());
      klu.solve_finish(c_last.data(), x.data());
      std::vector<double> y = b, reference = b;
      klu.solve(y.data());
      for (int i = 0; i < k; ++i) reference[last[i]] -= c_last[i];
      klu.solve(reference.data());
      for (int i = 0; i < k; ++i)
        EXPECT_NEAR(y_last[i], y[last[i]], 1e-12 * (1.0 + std::abs(y[last[i]]))) << what << ", unknown " << last[i];
      for (int i = 0; i < size; ++i)
        EXPECT_NEAR(x[i], reference[i], 1e-12 * (1.0 + std::abs(reference[i]))) << what << ", unknown " << i;
    };
    set_values(klu, a, size);
    ASSERT_TRUE(klu.factorize());
    check(k ? "factorization" : "factorization, no last unknowns");
    const auto next = next_newton_matrix(a, random);
    set_values(klu, next, size);
    ASSERT_TRUE(klu.refactorize());
    check(k ? "refactorization" : "refactorization, no last unknowns");
    std::vector<double> c_last(k);
    EXPECT_THROW(klu.solve_finish(c_last.data(), c_last.data()), std::logic_error);  // no solve_begin before
  }
}

TEST(KluFactorization, SingularMatrixIsReported) {
  KluFactorization klu({0, 2, 4}, {0, 1, 0, 1});
  klu.values() = {1.0, 2.0, 2.0, 4.0};  // rank 1
  EXPECT_FALSE(klu.factorize());
}

}  // namespace
