#include "flexadj/verification/taylor_test.hpp"

#include <cmath>
#include <cstdio>

namespace flexadj::verification {

TaylorTest taylor_test(const ObjectiveAt& objective_at, const std::vector<double>& p, double J,
                       const std::vector<double>& gradient, const std::vector<double>& dp, double step0) {
  TaylorTest test;
  test.slope = dot(gradient, dp);
  const double floor = kRoundOff * std::abs(J);
  for (int k = 0; k < kTaylorSteps; ++k) {
    const double h = step0 * std::ldexp(1.0, -k);
    test.steps.push_back(h);
    char what[64];
    std::snprintf(what, sizeof what, "Taylor test, h = %.4e", h);
    test.remainders.push_back(std::abs(objective_at(axpy(h, dp, p), what) - J - h * test.slope));
  }
  // An order counts if it is >= kRequiredOrder or the remainder has reached round-off.
  const std::vector<double>& r = test.remainders;
  test.orders.assign(kTaylorSteps, 0.0);
  test.round_off.assign(kTaylorSteps, false);
  int consecutive = 0, best = 0;
  for (int k = 0; k < kTaylorSteps; ++k) {
    test.round_off[k] = r[k] < floor;
    if (k == 0) continue;
    test.orders[k] = std::log2(r[k - 1] / r[k]);
    const bool ok = test.orders[k] >= kRequiredOrder || r[k] < floor;
    consecutive = ok ? consecutive + 1 : 0;
    best = std::max(best, consecutive);
  }
  test.passed = best >= 3;
  return test;
}

}  // namespace flexadj::verification
