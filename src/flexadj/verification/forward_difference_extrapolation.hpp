#pragma once
// Forward differences extrapolated to step zero with adaptive order and an error estimate (test (c) of `flexadj
// check`, extrapolated_difference.hpp). Bestle and Eberhard (1992) take D_i = (J(p + h_i e) - J(p))/h_i at h_i =
// h_0/(i + 1) and extrapolate the polynomial through (h_i, D_i) to h = 0 by Aitken-Neville. E_k, the extrapolant
// through points 0..k, removes the error terms h^1 .. h^k of D; its error is estimated by e_k = |E_k - E_{k-1}| (the
// difference of the last two extrapolants), and the round-off of J is amplified by the extrapolation weights: E_k =
// sum_i c_i D_i with the Lagrange weights c_i = prod_{m != i} h_m / (h_m - h_i) at 0, so with J accurate to eps |J|
// the floor is noise_k = 2 eps |J| sum_i |c_i| / h_i. The order is adaptive: points are added while e_k still falls,
// and the k with the smallest e_k + noise_k is taken.
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace flexadj::verification {

struct Extrapolant {
  double value = 0.0;     // E_k
  double estimate = 0.0;  // e_k = |E_k - E_{k-1}| (infinite for k = 0: one point estimates nothing)
  double noise = 0.0;     // noise_k
  int order = 0;          // k
};

class ForwardDifferenceExtrapolation {
 public:
  // accuracy: eps, the relative accuracy of J; magnitude: |J|.
  ForwardDifferenceExtrapolation(double accuracy, double magnitude) : accuracy_(accuracy), magnitude_(magnitude) {}

  // Adds the point (h, D); returns E_k of all points so far, its estimate and floor.
  const Extrapolant& add(double h, double difference) {
    h_.push_back(h);
    T_.push_back(difference);
    // Aitken-Neville in place: T_[i] becomes the value at 0 of the polynomial through points i..k.
    const std::size_t k = h_.size() - 1;
    for (std::size_t i = k; i-- > 0;) T_[i] = T_[i + 1] + (T_[i + 1] - T_[i]) * h_[k] / (h_[i] - h_[k]);
    Extrapolant e;
    e.order = static_cast<int>(k);
    e.value = T_[0];
    e.estimate = k == 0 ? std::numeric_limits<double>::infinity() : std::abs(e.value - extrapolants_.back().value);
    double weights = 0.0;
    for (std::size_t i = 0; i <= k; ++i) {
      double c = 1.0;
      for (std::size_t m = 0; m <= k; ++m)
        if (m != i) c *= h_[m] / (h_[m] - h_[i]);
      weights += std::abs(c) / h_[i];
    }
    e.noise = 2.0 * accuracy_ * magnitude_ * weights;
    extrapolants_.push_back(e);
    return extrapolants_.back();
  }

  // True while another point may still help: fewer than three points, or the last estimate fell and stands above
  // the round-off floor.
  bool improving() const {
    const std::size_t n = extrapolants_.size();
    if (n < 3) return true;
    const Extrapolant& last = extrapolants_[n - 1];
    return last.estimate < extrapolants_[n - 2].estimate && last.estimate > last.noise;
  }

  // The extrapolant with the smallest e_k + noise_k (k >= 1).
  Extrapolant best() const {
    Extrapolant chosen;
    double smallest = std::numeric_limits<double>::infinity();
    for (std::size_t k = 1; k < extrapolants_.size(); ++k)
      if (extrapolants_[k].estimate + extrapolants_[k].noise < smallest) {
        smallest = extrapolants_[k].estimate + extrapolants_[k].noise;
        chosen = extrapolants_[k];
      }
    return chosen;
  }

  const std::vector<Extrapolant>& extrapolants() const { return extrapolants_; }

 private:
  double accuracy_, magnitude_;
  std::vector<double> h_, T_;
  std::vector<Extrapolant> extrapolants_;
};

}  // namespace flexadj::verification
