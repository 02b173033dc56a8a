#pragma once
// The adjoint's parameter partials mu . dr/dp of the ANCF elements written out by hand.
//
// Gradient-deficient element (ancf_cable.cpp). Its residual (Berzeri and Shabana 2000; Gerstmayr and Shabana 2006) is
//   r = rho A M a + sum_g w_g [EA (eps - eps_0 + tau deps/dt) deps/dq + EI sum_c (kappa_c - kappa_0c
//       + tau dkappa_c/dt) dkappa_c/dq] - rho A f g,
// M = L int S^T S dxi and f = L int S^T dxi (ancf_shape.hpp), w_g the Gauss weight times L, and it is linear in EA,
// EI, tau, rho A and g. With the pairings s_e = mu . de/dq and the rates de/dt = v . de/dq at each Gauss point,
//   mu . r = E A (a + tau a') + E I (b + tau b') + rho A (m - w . g),
// a = sum_g w_g s_eps (eps - eps_0), a' = sum_g w_g s_eps deps/dt, b and b' the same over the curvature
// components, m = mu . M a, w = f^T mu (per direction): every partial is these sums with its parameter factored out.
//
// Fully parameterised element (ancf_beam.cpp, Shabana and Yakoub 2001, with the structural strains of Nachbagauer,
// Gruber and Gerstmayr 2013): r = M(rho A, rho I2, rho I3) a + sum_m c_m C_m (e_m - e_0m + tau de_m/dt) de_m/dq
// - rho A f g, c_m the quadrature weight and C_m one of seven stiffnesses EA (axial strain and the cross-section
// stretches), GJ, EI2, EI3 (the curvatures), k2 GA, k3 GA (the shears) and GA (the cross-section shear). With
// X_j = sum over the strains of stiffness j of c_m s_m (e_m - e_0m) and X'_j the same with the rates,
//   mu . r = sum_j C_j (X_j + tau X'_j) + rho A (m - w . g) + rho I3 m_2 + rho I2 m_3,
// m, m_2, m_3 the pairings mu . M a of the centreline and of the directors d2 = r_y, d3 = r_z (whose inertias are
// rho I3 and rho I2 times L/6 [[2, 1], [1, 2]]).
#include <array>

namespace flexadj::elements {

namespace ancf_cable_parameters {
enum : int { kE, kRho, kArea, kI, kDampingTime, kGravity, kParameterCount = kGravity + 3 };
}  // namespace ancf_cable_parameters

// The state-dependent factors of mu . r (see the top of this file).
struct AncfCablePairing {
  double axial = 0.0, axial_rate = 0.0;      // a, a'
  double bending = 0.0, bending_rate = 0.0;  // b, b'
  double mass_mu = 0.0;                      // m = mu . M a
  std::array<double, 3> weight_mu{};         // w = f^T mu, per direction (zero past the element's dimension)
};

// out[k] = d(mu . r)/dp_k for every parameter k of the gradient-deficient element.
inline void ancf_cable_parameter_partials(const double* p, const AncfCablePairing& t,
                                          std::array<double, ancf_cable_parameters::kParameterCount>& out) {
  using namespace ancf_cable_parameters;
  const double E = p[kE], A = p[kArea], I = p[kI], tau = p[kDampingTime], rho = p[kRho];
  const double axial = t.axial + tau * t.axial_rate, bending = t.bending + tau * t.bending_rate;
  const double inertia = t.mass_mu - (t.weight_mu[0] * p[kGravity] + t.weight_mu[1] * p[kGravity + 1] +
                                      t.weight_mu[2] * p[kGravity + 2]);
  out[kE] = A * axial + I * bending;
  out[kRho] = A * inertia;
  out[kArea] = E * axial + rho * inertia;
  out[kI] = E * bending;
  out[kDampingTime] = E * (A * t.axial_rate + I * t.bending_rate);
  for (int i = 0; i < 3; ++i) out[kGravity + i] = -rho * A * t.weight_mu[i];
}

namespace ancf_full_parameters {
enum : int { kE, kG, kRho, kArea, kI2, kI3, kJ, kShear2, kShear3, kDampingTime, kGravity, kParameterCount = kGravity + 3 };
// The seven stiffnesses C_j of the strains.
enum Stiffness : int { kAxial, kTorsion, kBending2, kBending3, kShearing2, kShearing3, kSectionShear, kStiffnessCount };
}  // namespace ancf_full_parameters

// The state-dependent factors of mu . r of the fully parameterised element (see the top of this file).
struct AncfFullPairing {
  std::array<double, ancf_full_parameters::kStiffnessCount> strain{}, rate{};  // X_j, X'_j
  double mass_mu = 0.0, director2_mu = 0.0, director3_mu = 0.0;                // m, m_2, m_3
  std::array<double, 3> weight_mu{};                                          // w = f^T mu
};

// out[k] = d(mu . r)/dp_k for every parameter k of the fully parameterised element.
inline void ancf_full_parameter_partials(const double* p, const AncfFullPairing& t,
                                         std::array<double, ancf_full_parameters::kParameterCount>& out) {
  using namespace ancf_full_parameters;
  const double E = p[kE], G = p[kG], A = p[kArea], tau = p[kDampingTime], rho = p[kRho];
  const double k2 = p[kShear2], k3 = p[kShear3];
  std::array<double, kStiffnessCount> y;  // X_j + tau X'_j
  for (int j = 0; j < kStiffnessCount; ++j) y[j] = t.strain[j] + tau * t.rate[j];
  const std::array<double, kStiffnessCount> C{E * A, G * p[kJ], E * p[kI2], E * p[kI3], k2 * G * A, k3 * G * A, G * A};
  const double centreline = t.mass_mu - (t.weight_mu[0] * p[kGravity] + t.weight_mu[1] * p[kGravity + 1] +
                                         t.weight_mu[2] * p[kGravity + 2]);
  const double shear = k2 * y[kShearing2] + k3 * y[kShearing3] + y[kSectionShear];
  out[kE] = A * y[kAxial] + p[kI2] * y[kBending2] + p[kI3] * y[kBending3];
  out[kG] = p[kJ] * y[kTorsion] + A * shear;
  out[kRho] = A * centreline + p[kI3] * t.director2_mu + p[kI2] * t.director3_mu;
  out[kArea] = E * y[kAxial] + G * shear + rho * centreline;
  out[kI2] = E * y[kBending2] + rho * t.director3_mu;
  out[kI3] = E * y[kBending3] + rho * t.director2_mu;
  out[kJ] = G * y[kTorsion];
  out[kShear2] = G * A * y[kShearing2];
  out[kShear3] = G * A * y[kShearing3];
  out[kDampingTime] = 0.0;
  for (int j = 0; j < kStiffnessCount; ++j) out[kDampingTime] += C[j] * t.rate[j];
  for (int i = 0; i < 3; ++i) out[kGravity + i] = -rho * A * t.weight_mu[i];
}

}  // namespace flexadj::elements
