#pragma once
// The geometrically exact beam's parameters (their order in the element) and the adjoint's parameter partials
// mu . dr/dp written out by hand. With the strains scaling as 1/L (eps(q, L) = eps(q, 1)/L), the pairing of the
// residual of geometrically_exact_beam.cpp with mu is
//   mu . r = sum_k s_k (C_k (e_k/L - e0_k) + D_k d_k/L) - m (mu_A + mu_B)_x . g + m mu_x . a_x + 2 (G mu_e) . M
// with s_k = mu . d eps_k/dq, e_k and d_k the strain and its rate, all at L = 1; C = diag(EA, k2 GA, k3 GA, GJ,
// EI2, EI3), D = diag(chi A, eta A, eta A, eta (I2 + I3), chi I2, chi I3), chi = zeta (3 - E/G)^2 + eta (E/G)^2/3
// (Schubert et al. 2024, sec. 5); the node mass m = rho A L/2 and rotary inertia rho L/2 Jr of the lumped inertia
// (Nikravesh 1988, eqs. (11.20)-(11.24)), whose partial in the rotary inertia J_k is
// 2 (y_k alpha_k + w_k (y x w)_k), y = G(e) mu_e (node_rotary_parameter_sensitivity).
#include <array>

namespace flexadj::elements {

namespace beam_parameters {
enum : int {
  kE, kG, kRho, kArea, kI2, kI3, kJ, kShear2, kShear3, kEta, kZeta,
  kRotary1, kRotary2, kRotary3,  // area moments for the rotary inertia (default I2 + I3, I2, I3)
  kLength, kStretch0, kCurvature0 = kStretch0 + 3, kGravity = kCurvature0 + 3, kParameterCount = kGravity + 3
};
}  // namespace beam_parameters

// The state-dependent factors of mu . r (see the top of this file).
// Scalar is double, or a forward-AD type for their derivatives along a direction (second-order products).
template <class Scalar = double> struct BeamAdjointPairing {
  std::array<Scalar, 6> pairing{}, strain{}, rate{};  // s_k, e_k, d_k at L = 1
  std::array<double, 3> weight_mu{};                  // (mu_A + mu_B)_x
  Scalar mass_mu = 0.0;                               // sum over the nodes of mu_x . a_x
  std::array<Scalar, 3> rotary_mu{};                  // d(mu . r)/dJ_k of the nodes' rotary inertia J = rho L/2 Jr
};

// out[k] = d(mu . r)/dp_k for every parameter k.
template <class Scalar>
void beam_parameter_partials(const Scalar* p, const BeamAdjointPairing<Scalar>& t,
                             std::array<Scalar, beam_parameters::kParameterCount>& out) {
  using namespace beam_parameters;
  const Scalar E = p[kE], G = p[kG], A = p[kArea], I2 = p[kI2], I3 = p[kI3], L = p[kLength];
  const Scalar eta = p[kEta], zeta = p[kZeta], ratio = E / G;
  const Scalar chi = zeta * (3.0 - ratio) * (3.0 - ratio) + eta * ratio * ratio / 3.0;
  const Scalar chi_ratio = -2.0 * zeta * (3.0 - ratio) + 2.0 * eta * ratio / 3.0;  // dchi/d(E/G)
  const std::array<Scalar, 6> C{E * A, p[kShear2] * G * A, p[kShear3] * G * A, G * p[kJ], E * I2, E * I3};
  const std::array<Scalar, 6> D{chi * A, eta * A, eta * A, eta * (I2 + I3), chi * I2, chi * I3};
  std::array<Scalar, 6> c, d;  // d(mu . r)/dC_k, d(mu . r)/dD_k
  Scalar length = 0.0;         // d(mu . r)/dL of the elastic and damping terms
  for (int k = 0; k < 6; ++k) {
    const Scalar reference = k < 3 ? p[kStretch0 + k] : p[kCurvature0 + k - 3];
    c[k] = t.pairing[k] * (t.strain[k] / L - reference);
    d[k] = t.pairing[k] * t.rate[k] / L;
    length -= t.pairing[k] * (C[k] * t.strain[k] + D[k] * t.rate[k]) / (L * L);
    (k < 3 ? out[kStretch0 + k] : out[kCurvature0 + k - 3]) = -t.pairing[k] * C[k];
  }
  const Scalar on_chi = d[0] * A + d[4] * I2 + d[5] * I3;
  const Scalar weight = t.weight_mu[0] * p[kGravity] + t.weight_mu[1] * p[kGravity + 1] +
                        t.weight_mu[2] * p[kGravity + 2];
  const Scalar half_rho = 0.5 * p[kRho];
  const Scalar rotary = t.rotary_mu[0] * p[kRotary1] + t.rotary_mu[1] * p[kRotary2] + t.rotary_mu[2] * p[kRotary3];
  out[kE] = c[0] * A + c[4] * I2 + c[5] * I3 + on_chi * chi_ratio / G;
  out[kG] = (c[1] * p[kShear2] + c[2] * p[kShear3]) * A + c[3] * p[kJ] - on_chi * chi_ratio * E / (G * G);
  out[kRho] = 0.5 * A * L * (t.mass_mu - weight) + 0.5 * L * rotary;
  out[kArea] = c[0] * E + (c[1] * p[kShear2] + c[2] * p[kShear3]) * G + d[0] * chi + (d[1] + d[2]) * eta +
               half_rho * L * (t.mass_mu - weight);
  out[kI2] = c[4] * E + d[3] * eta + d[4] * chi;
  out[kI3] = c[5] * E + d[3] * eta + d[5] * chi;
  out[kJ] = c[3] * G;
  out[kShear2] = c[1] * G * A;
  out[kShear3] = c[2] * G * A;
  out[kEta] = (d[1] + d[2]) * A + d[3] * (I2 + I3) + on_chi * ratio * ratio / 3.0;
  out[kZeta] = on_chi * (3.0 - ratio) * (3.0 - ratio);
  for (int k = 0; k < 3; ++k) {
    out[kRotary1 + k] = t.rotary_mu[k] * half_rho * L;
    out[kGravity + k] = -half_rho * A * L * t.weight_mu[k];
  }
  out[kLength] = length + half_rho * A * (t.mass_mu - weight) + half_rho * rotary;
}

}  // namespace flexadj::elements
