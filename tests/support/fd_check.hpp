#pragma once
// Derivatives against central differences, judged against the differences' own noise.
//
// A central difference D = (f(x + h) - f(x - h)) / (2 h) of a function computed to relative accuracy eps has a
// rounding (and solver) error of up to eps |f| / h: each of the two values is off by up to eps |f|. That is the
// noise floor of D:
//     noise = eps |f| / h.
// A derivative d is accepted if |d - D| <= rel_tol |D| + noise. The truncation error of D (h^2 |f'''| / 6) is
// not in the floor: a test chooses h so that it stays below rel_tol |D|.
// Before that, |D| must exceed 1e4 noise (the resolution R = |D| / noise): the floor is then at most 1e-4 |D|, so a
// derivative 1e-3 wrong fails (at R = 11 one 9 % wrong passed). A difference nearer the floor cannot judge d to that
// accuracy; the check then fails with "below the noise floor" (take a larger step, with Richardson extrapolation,
// richardson_difference(), where the truncation grows). A derivative that is zero by symmetry is asserted as such in
// the test, not through this check.
//
// eps, the relative accuracy of f:
//  - kSimulationAccuracy = 1e-13, J of a run of generalized-alpha or HHT. Measured: the scatter of J about a cubic
//    fit through 7 values at spacings of 1e-9, 1e-7 and 1e-5 (relative) in a parameter is 1e-15 .. 1.2e-14 |J|
//    (RMS) on the oscillator, the spinning body, the crane and the geometrically exact beam, with Newton
//    tolerances 1e-10 and 1e-12 alike: Newton converges quadratically past its tolerance, so round-off, not the
//    tolerance, limits J. 1e-13 leaves a factor 8 over the largest RMS for the largest deviation.
//  - kVariationalAccuracy = 1e-12, J of a run of the variational integrator: measured scatter 3e-14 .. 9e-14 |J|
//    (RMS) on the spinning body (its Newton works on the momenta and the velocities come from a second solve).
//  - kRoundOffAccuracy = 1e-14, a closed-form function of one element (no solver): a few hundred operations.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace flexadj::testing {

inline constexpr double kSimulationAccuracy = 1e-13;
inline constexpr double kVariationalAccuracy = 1e-12;
inline constexpr double kRoundOffAccuracy = 1e-14;
// |D| must exceed this multiple of the noise floor to be compared at all.
inline constexpr double kResolvedMultiple = 1e4;

// A central difference and the (absolute) step it was taken with; noise_factor: the floor's multiple for a
// combination of differences (1.5 for richardson_difference()).
struct CentralDifference {
  double value = 0.0;
  double step = 0.0;
  double noise_factor = 1.0;
};

// Richardson extrapolation of central differences at steps h and 2h: (4 D(h) - D(2h)) / 3, truncation O(h^4); its
// noise is (4/3 + 1/6) eps |f| / h = 1.5 x that of D(h).
inline CentralDifference richardson_difference(const CentralDifference& h, const CentralDifference& two_h) {
  return {(4.0 * h.value - two_h.value) / 3.0, h.step, 1.5 * h.noise_factor};
}

// Absolute step for a relative step s on a value x: s |x|, or s when x is zero (then x has no scale of its own).
inline double relative_step(double x, double s) { return x != 0.0 ? s * std::abs(x) : s; }

inline bool on_rank_zero() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank == 0;
}

// |derivative - difference| <= relative_tolerance |difference| + noise, noise = accuracy |magnitude| / step, after
// |difference| > 1e4 noise. `magnitude` is the size of the differenced function (|J| for an objective). Prints one
// line per check (rank 0) with the figures.
inline ::testing::AssertionResult matches_central_difference(const std::string& name, double derivative,
                                                             double difference, double step, double magnitude,
                                                             double accuracy = kSimulationAccuracy,
                                                             double relative_tolerance = 1e-6,
                                                             double noise_factor = 1.0) {
  const double noise = noise_factor * accuracy * std::abs(magnitude) / step;
  const double error = std::abs(derivative - difference);
  const double allowed = relative_tolerance * std::abs(difference) + noise;
  const double resolution = std::abs(difference) / noise;
  if (on_rank_zero())
    std::printf("FD %-40s d % .10e  D % .10e  |d-D|/|D| %.2e  noise %.2e  |D|/noise %.1e\n", name.c_str(), derivative,
                difference, error / std::abs(difference), noise, resolution);
  std::ostringstream figures;
  figures.precision(10);
  figures << name << ": derivative " << derivative << ", central difference " << difference << " (step " << step
          << "), noise floor " << noise << " (accuracy " << accuracy << " x |f| " << std::abs(magnitude)
          << " / step), |difference| / noise " << resolution;
  if (!(resolution > kResolvedMultiple))
    return ::testing::AssertionFailure() << figures.str() << ": the difference is below the noise floor (needs more than "
                                         << kResolvedMultiple << " x noise); choose a larger step or a model in which the "
                                         << "derivative is larger, or assert a zero by symmetry explicitly";
  if (!(error <= allowed))
    return ::testing::AssertionFailure() << figures.str() << ": |derivative - difference| " << error << " > "
                                         << relative_tolerance << " |difference| + noise = " << allowed
                                         << " (ratio derivative / difference " << derivative / difference << ")";
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult matches_central_difference(const std::string& name, double derivative,
                                                             const CentralDifference& difference, double magnitude,
                                                             double accuracy = kSimulationAccuracy,
                                                             double relative_tolerance = 1e-6) {
  return matches_central_difference(name, derivative, difference.value, difference.step, magnitude, accuracy,
                                    relative_tolerance, difference.noise_factor);
}

// A Jacobian (rows x columns, row-major) against central differences of a vector function f, all columns with
// step `step`, f's entries of size up to `magnitude`; `scale` multiplies the noise when the differences are a
// combination of several (sum of |coefficients|). Every entry: |d - D| <= relative_tolerance |D| + noise, as
// above. Structural zeros are normal in a Jacobian, so entries below 1e4 noise are not rejected; they are held to
// the noise floor itself (d may differ from D by at most noise + relative_tolerance |D|, so a d that FD sees as
// zero must be below the floor too). The check fails if fewer than `minimum_resolved` entries are resolved.
inline ::testing::AssertionResult jacobian_matches_central_differences(
    const std::string& name, const std::vector<double>& derivative, const std::vector<double>& difference,
    std::size_t columns, double step, double magnitude, double accuracy = kRoundOffAccuracy,
    double relative_tolerance = 1e-6, double scale = 1.0, std::size_t minimum_resolved = 1) {
  if (derivative.size() != difference.size() || columns == 0 || derivative.size() % columns != 0)
    return ::testing::AssertionFailure() << name << ": sizes " << derivative.size() << " and " << difference.size();
  const double noise = scale * accuracy * std::abs(magnitude) / step;
  std::size_t resolved = 0, worst = 0;
  double worst_excess = -INFINITY, worst_relative = 0.0;
  for (std::size_t k = 0; k < derivative.size(); ++k) {
    const double error = std::abs(derivative[k] - difference[k]);
    const double allowed = relative_tolerance * std::abs(difference[k]) + noise;
    if (std::abs(difference[k]) > kResolvedMultiple * noise) {
      ++resolved;
      worst_relative = std::max(worst_relative, error / std::abs(difference[k]));
    }
    const double excess = std::isnan(error) ? INFINITY : error / allowed;
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = k;
    }
  }
  if (on_rank_zero())
    std::printf("FD %-40s %zu of %zu entries resolved (noise %.2e), largest relative error of those %.2e\n",
                name.c_str(), resolved, derivative.size(), noise, worst_relative);
  if (resolved < minimum_resolved)
    return ::testing::AssertionFailure() << name << ": " << resolved << " entries above 1e4 x the noise floor " << noise
                                         << ", fewer than " << minimum_resolved;
  if (worst_excess > 1.0) {
    std::ostringstream out;
    out.precision(10);
    out << name << ": entry (" << worst / columns << ", " << worst % columns << ") derivative " << derivative[worst]
        << ", central difference " << difference[worst] << ", noise floor " << noise << " (step " << step
        << ", |f| " << magnitude << "); error " << worst_excess << " x the allowed "
        << relative_tolerance << " |D| + noise";
    return ::testing::AssertionFailure() << out.str();
  }
  return ::testing::AssertionSuccess();
}

}  // namespace flexadj::testing
