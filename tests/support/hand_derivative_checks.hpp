#pragma once
// Comparisons of hand-written element derivatives with their AD reference (test_*_hand_derivatives.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace flexadj::testing {

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

}  // namespace flexadj::testing
