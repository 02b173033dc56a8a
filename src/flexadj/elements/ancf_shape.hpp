#pragma once
// Shape functions and quadrature shared by the ANCF elements.
//
// Cubic Hermite interpolation of a position field along an element of length L, xi = x/L in [0, 1]
// (Shabana, Computational Continuum Mechanics; Gerstmayr and Shabana 2006):
//   r(xi) = S1 r_A + L S2 r'_A + S3 r_B + L S4 r'_B,
//   S1 = 1 - 3 xi^2 + 2 xi^3, S2 = xi - 2 xi^2 + xi^3, S3 = 3 xi^2 - 2 xi^3, S4 = xi^3 - xi^2.
#include <array>
#include <cmath>

namespace flexadj::elements::ancf {

// Weights of r_A, r'_A, r_B, r'_B in r, dr/dx and d2r/dx2 at xi.
struct HermiteWeights {
  std::array<double, 4> value, first, second;
};
inline HermiteWeights hermite(double xi, double L) {
  const double x2 = xi * xi, x3 = x2 * xi;
  HermiteWeights w;
  w.value = {1.0 - 3.0 * x2 + 2.0 * x3, L * (xi - 2.0 * x2 + x3), 3.0 * x2 - 2.0 * x3, L * (x3 - x2)};
  w.first = {(-6.0 * xi + 6.0 * x2) / L, 1.0 - 4.0 * xi + 3.0 * x2, (6.0 * xi - 6.0 * x2) / L, 3.0 * x2 - 2.0 * xi};
  w.second = {(-6.0 + 12.0 * xi) / (L * L), (-4.0 + 6.0 * xi) / L, (6.0 - 12.0 * xi) / (L * L), (6.0 * xi - 2.0) / L};
  return w;
}

// Position r and slope dr/dx at xi of the centreline whose r_A, r'_A, r_B, r'_B (dim components each) start at
// `offsets` in q.
inline void hermite_centreline(const double* q, const std::array<int, 4>& offsets, int dim, double xi, double L,
                               double* position, double* slope) {
  const auto w = hermite(xi, L);
  for (int i = 0; i < dim; ++i) {
    position[i] = slope[i] = 0.0;
    for (int k = 0; k < 4; ++k) {
      position[i] += w.value[k] * q[offsets[k] + i];
      slope[i] += w.first[k] * q[offsets[k] + i];
    }
  }
}

// Coordinates q as forward-AD variables: q[i] seeded with derivative direction i of N.
template <class Inner, int N> std::array<Inner, N> seeded(const double* q) {
  std::array<Inner, N> qi;
  for (int i = 0; i < N; ++i) qi[i] = Inner(N, i, q[i]);
  return qi;
}

// Kelvin-Voigt stress resultant stiffness (e - e_0 + tau de/dt) of a strain e carrying de/dq (forward AD), with
// de/dt = de/dq . v.
template <class Inner> double viscoelastic_stress(const Inner& e, double e_0, double stiffness, double tau,
                                                  const double* v) {
  double rate = 0.0;
  for (int j = 0; j < e.size(); ++j) rate += e.fastAccessDx(j) * v[j];
  return stiffness * (e.val() - e_0 + tau * rate);
}

// rho A L times int_0^1 S_i S_j dxi (consistent mass of one coordinate direction) and int_0^1 S_i dxi, in units of
// rho A L; the slope entries carry L.
inline std::array<std::array<double, 4>, 4> hermite_mass(double L) {
  const double c = 1.0 / 420.0;
  return {{{156.0 * c, 22.0 * L * c, 54.0 * c, -13.0 * L * c},
           {22.0 * L * c, 4.0 * L * L * c, 13.0 * L * c, -3.0 * L * L * c},
           {54.0 * c, 13.0 * L * c, 156.0 * c, -22.0 * L * c},
           {-13.0 * L * c, -3.0 * L * L * c, -22.0 * L * c, 4.0 * L * L * c}}};
}
inline std::array<double, 4> hermite_load(double L) { return {0.5, L / 12.0, 0.5, -L / 12.0}; }

// Kinetic energy 1/2 v.(M v) of a constant mass matrix M, given as add_mass_times(x, r): r += M x on N coordinates.
template <int N, class S, class AddMassTimes> S half_quadratic_form(const S* v, const AddMassTimes& add_mass_times) {
  std::array<S, N> momentum;
  for (S& m : momentum) m = 0.0;
  add_mass_times(v, momentum.data());
  S energy = 0.0;
  for (int i = 0; i < N; ++i) energy += 0.5 * v[i] * momentum[i];
  return energy;
}

// 5-point Gauss-Legendre rule on [0, 1] (exact to degree 9).
constexpr int kGaussPoints = 5;
inline const std::array<double, kGaussPoints>& gauss_points() {
  static const std::array<double, kGaussPoints> xi = [] {
    const double a = std::sqrt(5.0 - 2.0 * std::sqrt(10.0 / 7.0)) / 3.0, b = std::sqrt(5.0 + 2.0 * std::sqrt(10.0 / 7.0)) / 3.0;
    return std::array<double, kGaussPoints>{0.5 * (1.0 - b), 0.5 * (1.0 - a), 0.5, 0.5 * (1.0 + a), 0.5 * (1.0 + b)};
  }();
  return xi;
}
inline const std::array<double, kGaussPoints>& gauss_weights() {
  static const std::array<double, kGaussPoints> w = [] {
    const double s = 13.0 * std::sqrt(70.0);
    const double wa = (322.0 + s) / 900.0, wb = (322.0 - s) / 900.0;
    return std::array<double, kGaussPoints>{0.5 * wb, 0.5 * wa, 0.5 * 128.0 / 225.0, 0.5 * wa, 0.5 * wb};
  }();
  return w;
}

}  // namespace flexadj::elements::ancf
