#pragma once
// The dual-quaternion beam of Schubert et al. 2024, sec. 4 (Simo's rod on SE(3) in unit dual quaternions,
// discretised as in Leitz, Sato Martin de Almagro and Leyendecker 2021): one element per space interval [a, a+1]
// between two DualQuaternionNode nodes q = (q_r, q_d), eight ambient coordinates each.
//
// Ambient Lagrangian density (Schubert et al. 2024, eq. (32); RECON, the equation is lost from the text: rebuilt from
// M~ and C~ as the text defines them), with conj(q) dq/dt = (omega, v)/2 and conj(q) dq/ds = (K, Gamma + e1)/2 in
// the section frame on the unit conditions:
//   L = 2 M~(conj(q) q_t, conj(q) q_t) - 2 C~(conj(q) q_s - k0, conj(q) q_s - k0) - U_ext(q),
//   M~ = diag(alpha1, rho J1, rho J2, rho J3 | alpha2, rho A, rho A, rho A),
//   C~ = diag(alpha3, G J, E I2, E I3 | alpha4, E A, k2 G A, k3 G A),
// k0 the value of conj(q) q_s in the stress-free reference. alpha1 = rho (J1 + J2 + J3)/3 and alpha2 = rho A (they
// only weigh the scalar parts, zero on the unit conditions; non-zero keeps the ambient mass matrix regular),
// alpha3 = alpha4 = 0 (the text: any alpha gives the same continuous dynamics). U_ext: weight rho A g.
//
// Trapezoidal rule in space and time (sec. 4.3): q_s = (q_{a+1} - q_a)/ds on the space edges, q_t = (q^{n+1} -
// q^n)/dt on the time edges, the density at each corner of the rectangle with weight dt ds/4. In space this is the
// element Lagrangian L_e(q, v) = ds/2 sum over the two nodes; in time L_d = dt/2 (L_e(q^n, v) + L_e(q^{n+1}, v)),
// whose D1 and D2 discrete_momenta() returns in place of the midpoint rule of ForceElementAD.
//
// Kelvin-Voigt damping (sec. 4.3; RECON, the force's equation is lost): the virtual work -4 (D~ k_t) . dk per length,
// k = conj(q) q_s, D~ = diag(0, eta (I2 + I3), chi I2, chi I3 | 0, chi A, eta A, eta A), chi = zeta (3 - E/G)^2 +
// eta (E/G)^2/3, with the strain rate at a corner (k^{n+1} - k^n)/dt of its space edge, on the four corners.
//
// Every derivative below is written out (the products are bilinear), and so are the second derivatives of the discrete
// momenta (dual_quaternion_derivatives.hpp) and their parameter partials (dual_quaternion_parameter_partials.hpp);
// forward AD over these templated expressions is the tests' reference. Of the semi-discrete equations of L_e the
// variational integrator needs only the mass matrix (written out too); their other Jacobians stay in AD.
//
// This header holds the element's Lagrangian and its written-out derivatives (the element, its discrete momenta
// in time and its adjoint products are in dual_quaternion_beam.cpp).
#include <array>

#include "flexadj/model/body.hpp"

namespace flexadj::elements::dual_quaternion {

constexpr int kNode = 8, kCoordinates = 16;

// conj(a) b of quaternions (scalar first).
template <class A, class B, class S> void conjugate_times(const A* a, const B* b, S* out) {
  out[0] = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  out[1] = a[0] * b[1] - b[0] * a[1] - (a[2] * b[3] - a[3] * b[2]);
  out[2] = a[0] * b[2] - b[0] * a[2] - (a[3] * b[1] - a[1] * b[3]);
  out[3] = a[0] * b[3] - b[0] * a[3] - (a[1] * b[2] - a[2] * b[1]);
}
// out += a b.
template <class A, class B, class S> void add_product(const A* a, const B* b, S* out) {
  out[0] += a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  out[1] += a[0] * b[1] + b[0] * a[1] + (a[2] * b[3] - a[3] * b[2]);
  out[2] += a[0] * b[2] + b[0] * a[2] + (a[3] * b[1] - a[1] * b[3]);
  out[3] += a[0] * b[3] + b[0] * a[3] + (a[1] * b[2] - a[2] * b[1]);
}
// out += a conj(b).
template <class A, class B, class S> void add_times_conjugate(const A* a, const B* b, S* out) {
  out[0] += a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  out[1] += -a[0] * b[1] + b[0] * a[1] - (a[2] * b[3] - a[3] * b[2]);
  out[2] += -a[0] * b[2] + b[0] * a[2] - (a[3] * b[1] - a[1] * b[3]);
  out[3] += -a[0] * b[3] + b[0] * a[3] - (a[1] * b[2] - a[2] * b[1]);
}

// Dual quaternions as 8 values (real part, dual part): conj(a) b = conj(a_r) b_r + eps (conj(a_r) b_d + conj(a_d) b_r).
template <class S> std::array<S, kNode> dual_conjugate_times(const S* a, const S* b) {
  std::array<S, kNode> out;
  conjugate_times(a, b, out.data());
  conjugate_times(a, b + 4, out.data() + 4);
  std::array<S, 4> second;
  conjugate_times(a + 4, b, second.data());
  for (int i = 0; i < 4; ++i) out[4 + i] += second[i];
  return out;
}
// The gradients of y . conj(a) b: out += d/db = (a_r y_r + a_d y_d, a_r y_d) (with respect to b) ...
template <class S, class Y> void add_gradient_in_second(const S* a, const Y* y, S* out) {
  add_product(a, y, out);
  add_product(a + 4, y + 4, out);
  add_product(a, y + 4, out + 4);
}
// ... and out += d/da = (b_r conj(y_r) + b_d conj(y_d), b_r conj(y_d)) (with respect to a).
template <class S, class Y> void add_gradient_in_first(const S* b, const Y* y, S* out) {
  add_times_conjugate(b, y, out);
  add_times_conjugate(b + 4, y + 4, out);
  add_times_conjugate(b, y + 4, out + 4);
}

// The element Lagrangian L_e(q, v) = T - V - U of one space interval and its derivatives, in the scalar types S
// of the coordinates and P of the parameters p (the enum's order), with the strains k0 of the stress-free reference.
class DualQuaternionLagrangian {
 public:
  enum : int {
    kE, kG, kRho, kArea, kI2, kI3, kJ, kShear2, kShear3, kEta, kZeta, kRotary1, kRotary2, kRotary3, kLength,
    kGravity, kParameterCount = kGravity + 3
  };

  explicit DualQuaternionLagrangian(const std::array<double, 2 * kNode>& reference_strains)
      : reference_strains_(reference_strains) {}

  // k0: the strains conj(q_b) q_s of the stress-free reference at the two nodes.
  const std::array<double, 2 * kNode>& reference_strains() const { return reference_strains_; }

  template <class P> std::array<P, kNode> mass_weights(const P* p) const {
    const P rho = p[kRho], mass = rho * p[kArea];
    return {rho * (p[kRotary1] + p[kRotary2] + p[kRotary3]) / 3.0, rho * p[kRotary1], rho * p[kRotary2],
            rho * p[kRotary3], mass, mass, mass, mass};
  }
  template <class P> std::array<P, kNode> stiffness_weights(const P* p) const {
    const P E = p[kE], G = p[kG], A = p[kArea];
    return {P(0.0), G * p[kJ], E * p[kI2], E * p[kI3], P(0.0), E * A, p[kShear2] * G * A, p[kShear3] * G * A};
  }
  template <class P> std::array<P, kNode> damping_weights(const P* p) const {
    const P ratio = p[kE] / p[kG];
    const P chi = p[kZeta] * (3.0 - ratio) * (3.0 - ratio) + p[kEta] * ratio * ratio / 3.0;
    const P A = p[kArea], I2 = p[kI2], I3 = p[kI3];
    return {P(0.0), p[kEta] * (I2 + I3), chi * I2, chi * I3, P(0.0), chi * A, p[kEta] * A, p[kEta] * A};
  }

  // T = ds/2 sum_b 2 w_b . M~ w_b = ds sum_b w_b . M~ w_b, w_b = conj(q_b) v_b.
  template <class S, class P> S kinetic(const S* q, const S* v, const P* p) const {
    const auto weights = mass_weights(p);
    S energy = 0.0;
    for (int b = 0; b < 2; ++b) {
      const auto w = dual_conjugate_times(q + kNode * b, v + kNode * b);
      for (int i = 0; i < kNode; ++i) energy += weights[i] * w[i] * w[i];
    }
    return p[kLength] * energy;
  }
  // out_q += T_q, out_v += T_v (either may be null).
  template <class S, class P> void add_kinetic_gradient(const S* q, const S* v, const P* p, S* out_q, S* out_v) const {
    const auto weights = mass_weights(p);
    for (int b = 0; b < 2; ++b) {
      const S *qb = q + kNode * b, *vb = v + kNode * b;
      const auto w = dual_conjugate_times(qb, vb);
      std::array<S, kNode> y;
      for (int i = 0; i < kNode; ++i) y[i] = 2.0 * p[kLength] * weights[i] * w[i];
      if (out_q) add_gradient_in_first(vb, y.data(), out_q + kNode * b);
      if (out_v) add_gradient_in_second(qb, y.data(), out_v + kNode * b);
    }
  }
  // out += d/dt T_v along (q_dot, v_dot) = (v, a): 2 ds (grad2(v_b, M~ w_b) + grad2(q_b, M~ w_dot_b)).
  template <class S, class P> void add_kinetic_momentum_rate(const S* q, const S* v, const S* a, const P* p,
                                                             S* out) const {
    const auto weights = mass_weights(p);
    for (int b = 0; b < 2; ++b) {
      const S *qb = q + kNode * b, *vb = v + kNode * b, *ab = a + kNode * b;
      const auto w = dual_conjugate_times(qb, vb);
      const auto w_vv = dual_conjugate_times(vb, vb);
      const auto w_qa = dual_conjugate_times(qb, ab);
      std::array<S, kNode> y, y_dot;
      for (int i = 0; i < kNode; ++i) {
        y[i] = 2.0 * p[kLength] * weights[i] * w[i];
        y_dot[i] = 2.0 * p[kLength] * weights[i] * (w_vv[i] + w_qa[i]);
      }
      add_gradient_in_second(vb, y.data(), out + kNode * b);
      add_gradient_in_second(qb, y_dot.data(), out + kNode * b);
    }
  }

  // The strain measures k_b = conj(q_b) (q_B - q_A)/ds at the two nodes (corners) b = A, B.
  template <class S, class P> std::array<S, 2 * kNode> strains(const S* q, const P* p) const {
    std::array<S, kNode> slope;
    for (int i = 0; i < kNode; ++i) slope[i] = (q[kNode + i] - q[i]) / p[kLength];
    std::array<S, 2 * kNode> k;
    for (int b = 0; b < 2; ++b) {
      const auto kb = dual_conjugate_times(q + kNode * b, slope.data());
      for (int i = 0; i < kNode; ++i) k[kNode * b + i] = kb[i];
    }
    return k;
  }
  // out += sum_b (dk_b/dq)^T y_b.
  template <class S, class P, class Y> void add_strain_gradient(const S* q, const P* p, const Y* y, S* out) const {
    std::array<S, kNode> slope, on_slope;
    for (int i = 0; i < kNode; ++i) {
      slope[i] = (q[kNode + i] - q[i]) / p[kLength];
      on_slope[i] = 0.0;
    }
    for (int b = 0; b < 2; ++b) {
      add_gradient_in_first(slope.data(), y + kNode * b, out + kNode * b);
      add_gradient_in_second(q + kNode * b, y + kNode * b, on_slope.data());
    }
    for (int i = 0; i < kNode; ++i) {
      out[kNode + i] += on_slope[i] / p[kLength];
      out[i] -= on_slope[i] / p[kLength];
    }
  }
  // V + U = ds sum_b (k_b - k0_b) . C~ (k_b - k0_b) - ds/2 rho A g . (x_A + x_B).
  template <class S, class P> S potential(const S* q, const P* p) const {
    const auto C = stiffness_weights(p);
    const auto k = strains(q, p);
    S energy = 0.0;
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < kNode; ++i) {
        const S e = k[kNode * b + i] - reference_strains_[kNode * b + i];
        energy += C[i] * e * e;
      }
    energy *= p[kLength];
    const P node_weight = 0.5 * p[kRho] * p[kArea] * p[kLength];
    for (int b = 0; b < 2; ++b) {
      const auto x = model::dual_quaternion_position(q + kNode * b);
      for (int i = 0; i < 3; ++i) energy -= node_weight * p[kGravity + i] * x[i];
    }
    return energy;
  }
  // out += (V + U)_q + 2 ds (dk/dq)^T D~ k_dot, given the strains k = strains(q) and the strain rate k_dot (null: no
  // damping): the elastic and the damping stresses contracted with dk/dq in one pass.
  template <class S, class P>
  void add_internal_forces(const S* q, const std::array<S, 2 * kNode>& k, const std::array<S, 2 * kNode>* rate,
                           const P* p, S* out) const {
    const auto C = stiffness_weights(p);
    std::array<S, 2 * kNode> y;
    for (int j = 0; j < 2 * kNode; ++j) y[j] = C[j % kNode] * (k[j] - reference_strains_[j]);
    if (rate) {
      const auto D = damping_weights(p);
      for (int j = 0; j < 2 * kNode; ++j) y[j] += D[j % kNode] * (*rate)[j];
    }
    for (auto& x : y) x *= 2.0 * p[kLength];
    add_strain_gradient(q, p, y.data(), out);
    // U = -F . x_b per node with F = ds/2 rho A g: U_{q_r} = 2 F q_d, U_{q_d} = -2 F q_r (F a pure quaternion).
    const P node_weight = 0.5 * p[kRho] * p[kArea] * p[kLength];
    const std::array<P, 4> F{P(0.0), node_weight * p[kGravity], node_weight * p[kGravity + 1],
                             node_weight * p[kGravity + 2]};
    for (int b = 0; b < 2; ++b) {
      std::array<S, 4> on_r, on_d;
      for (int i = 0; i < 4; ++i) on_r[i] = on_d[i] = 0.0;
      add_product(F.data(), q + kNode * b + 4, on_r.data());
      add_product(F.data(), q + kNode * b, on_d.data());
      for (int i = 0; i < 4; ++i) {
        out[kNode * b + i] += 2.0 * on_r[i];
        out[kNode * b + 4 + i] -= 2.0 * on_d[i];
      }
    }
  }

  // dk[z] = conj(z_b) slope + conj(q_b) (z_B - z_A)/ds: the strains' derivative at q along z (they are bilinear).
  template <class S> static std::array<S, 2 * kNode> strain_change(const S* q, const S* z, const S& length) {
    std::array<S, kNode> slope, slope_change;
    for (int i = 0; i < kNode; ++i) {
      slope[i] = (q[kNode + i] - q[i]) / length;
      slope_change[i] = (z[kNode + i] - z[i]) / length;
    }
    std::array<S, 2 * kNode> dk;
    for (int b = 0; b < 2; ++b) {
      const auto first = dual_conjugate_times(z + kNode * b, slope.data());
      const auto second = dual_conjugate_times(q + kNode * b, slope_change.data());
      for (int i = 0; i < kNode; ++i) dk[kNode * b + i] = first[i] + second[i];
    }
    return dk;
  }

 protected:
  std::array<double, 2 * kNode> reference_strains_;
};

}  // namespace flexadj::elements::dual_quaternion
