#pragma once
// The adjoint's parameter partials mu . dr/dp of the gradient-deficient ANCF element (ancf_cable.cpp) written out by
// hand. Its residual (Berzeri and Shabana 2000; Gerstmayr and Shabana 2006) is
//   r = rho A M a + sum_g w_g [EA (eps - eps_0 + tau deps/dt) deps/dq + EI sum_c (kappa_c - kappa_0c
//       + tau dkappa_c/dt) dkappa_c/dq] - rho A f g,
// M = L int S^T S dxi and f = L int S^T dxi (ancf_shape.hpp), w_g the Gauss weight times L, and it is linear in EA,
// EI, tau, rho A and g. With the pairings s_e = mu . de/dq and the rates de/dt = v . de/dq at each Gauss point,
//   mu . r = E A (a + tau a') + E I (b + tau b') + rho A (m - w . g),
// a = sum_g w_g s_eps (eps - eps_0), a' = sum_g w_g s_eps deps/dt, b and b' the same over the curvature
// components, m = mu . M a, w = f^T mu (per direction): every partial is these sums with its parameter factored out.
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

}  // namespace flexadj::elements
