#pragma once
// What the gradient checks share: J as a function of the design scalars, and vectors along which they perturb them.
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace flexadj::verification {

// J at design values x (collective); `what` names the run for progress lines.
using ObjectiveAt = std::function<double(const std::vector<double>& x, const std::string& what)>;

// p + h d.
inline std::vector<double> axpy(double h, const std::vector<double>& d, const std::vector<double>& p) {
  std::vector<double> x(p);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += h * d[i];
  return x;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

inline double relative_difference(double a, double b) {
  const double scale = std::max(std::abs(a), std::abs(b));
  return scale > 0.0 ? std::abs(a - b) / scale : 0.0;
}

// A random direction over all design scalars, entry i uniform in [-1, 1] max(1, |p_i|) (the same on all
// ranks: every rank draws from the same seed).
inline std::vector<double> random_direction(std::mt19937_64& random, const std::vector<double>& p) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> d(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) d[i] = uniform(random) * std::max(1.0, std::abs(p[i]));
  return d;
}

}  // namespace flexadj::verification
