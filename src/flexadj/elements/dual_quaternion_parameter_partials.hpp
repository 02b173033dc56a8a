#pragma once
// The dual-quaternion beam's parameter partials of the adjoint's pairing mu_minus . minus + mu_plus . plus written out
// (Schubert et al. 2024, sec. 4; the weights in dual_quaternion_lagrangian.hpp). At a fixed length the pairing is
// linear in the weights M~, C~, D~ and in the nodes' weight force F = ds/2 rho A g:
//   pairing = sum_i (m_i M~_i + c_i C~_i + d_i D~_i) + sum_m f_m ds/2 rho A g_m,
// with the coefficients m, c, d, f from the state and the multipliers (dual_quaternion_beam.cpp). In the length ds:
// the kinetic and weight terms scale as ds, the elastic and damping forces 2 ds (dk/dq)^T (C~ (k - k0) + D~ k_dot)
// with k and dk/dq as 1/ds, so their ds-derivative is -1/ds times their part with k in place of k - k0 (coefficients
// e_i, of C~_i).
#include <array>

#include "flexadj/elements/dual_quaternion_lagrangian.hpp"

namespace flexadj::elements::dual_quaternion {

struct WeightCoefficients {
  std::array<double, kNode> mass{}, stiffness{}, stiffness_strain{}, damping{};  // m, c, e, d
  std::array<double, 3> force{};                                                  // f
};

// gradient[k] += d(pairing)/dp_k for every parameter k (DualQuaternionLagrangian's order).
inline void add_weight_parameter_partials(const DualQuaternionLagrangian& lagrangian, const double* p,
                                          const WeightCoefficients& c, double* gradient) {
  using L = DualQuaternionLagrangian;
  const double E = p[L::kE], G = p[L::kG], rho = p[L::kRho], A = p[L::kArea], I2 = p[L::kI2], I3 = p[L::kI3];
  const double eta = p[L::kEta], zeta = p[L::kZeta], ratio = E / G, length = p[L::kLength];
  const double chi = zeta * (3.0 - ratio) * (3.0 - ratio) + eta * ratio * ratio / 3.0;
  const double chi_ratio = -2.0 * zeta * (3.0 - ratio) + 2.0 * eta * ratio / 3.0;  // dchi/d(E/G)
  const double rotary_sum = p[L::kRotary1] + p[L::kRotary2] + p[L::kRotary3];
  const double node_weight = 0.5 * rho * A * length;
  const double on_weight = c.force[0] * p[L::kGravity] + c.force[1] * p[L::kGravity + 1] +
                           c.force[2] * p[L::kGravity + 2];          // d/d(node_weight)
  const double on_chi = c.damping[2] * I2 + c.damping[3] * I3 + c.damping[5] * A;
  const double on_translation = c.mass[4] + c.mass[5] + c.mass[6] + c.mass[7];  // d/d(rho A)
  const double on_shear = c.stiffness[6] * p[L::kShear2] + c.stiffness[7] * p[L::kShear3];  // d/d(G A)
  gradient[L::kE] += c.stiffness[2] * I2 + c.stiffness[3] * I3 + c.stiffness[5] * A + on_chi * chi_ratio / G;
  gradient[L::kG] += c.stiffness[1] * p[L::kJ] + on_shear * A - on_chi * chi_ratio * E / (G * G);
  gradient[L::kRho] += c.mass[0] * rotary_sum / 3.0 + c.mass[1] * p[L::kRotary1] + c.mass[2] * p[L::kRotary2] +
                       c.mass[3] * p[L::kRotary3] + on_translation * A + 0.5 * A * length * on_weight;
  gradient[L::kArea] += on_translation * rho + c.stiffness[5] * E + on_shear * G + c.damping[5] * chi +
                        (c.damping[6] + c.damping[7]) * eta + 0.5 * rho * length * on_weight;
  gradient[L::kI2] += c.stiffness[2] * E + c.damping[1] * eta + c.damping[2] * chi;
  gradient[L::kI3] += c.stiffness[3] * E + c.damping[1] * eta + c.damping[3] * chi;
  gradient[L::kJ] += c.stiffness[1] * G;
  gradient[L::kShear2] += c.stiffness[6] * G * A;
  gradient[L::kShear3] += c.stiffness[7] * G * A;
  gradient[L::kEta] += c.damping[1] * (I2 + I3) + (c.damping[6] + c.damping[7]) * A + on_chi * ratio * ratio / 3.0;
  gradient[L::kZeta] += on_chi * (3.0 - ratio) * (3.0 - ratio);
  for (int k = 0; k < 3; ++k) {
    gradient[L::kRotary1 + k] += rho * (c.mass[0] / 3.0 + c.mass[1 + k]);
    gradient[L::kGravity + k] += c.force[k] * node_weight;
  }
  // The length: (kinetic + weight - elastic with k in place of k - k0 - damping)/ds.
  const auto M = lagrangian.mass_weights(p), C = lagrangian.stiffness_weights(p), D = lagrangian.damping_weights(p);
  double scaled = on_weight * node_weight;
  for (int i = 0; i < kNode; ++i) scaled += c.mass[i] * M[i] - c.stiffness_strain[i] * C[i] - c.damping[i] * D[i];
  gradient[L::kLength] += scaled / length;
}

}  // namespace flexadj::elements::dual_quaternion
