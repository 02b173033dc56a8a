#pragma once
// The dual-quaternion beam's second derivatives written out (Schubert et al. 2024, sec. 4.3; the Lagrangian in
// dual_quaternion_lagrangian.hpp): the Jacobians of its trapezoidal discrete momenta at the step's end q^{n+1} (the
// Newton matrix), the mass matrix, and the gradients of the adjoint's pairing of the momenta with the multipliers
// (the transposed products), as bilinear products instead of forward AD.
//
// Everything is built from the bilinear product conj(a) b of dual quaternions, written as matrices:
//   conj(a) b = left(a) b = right(b) a,   y . conj(a) b = a^T pairing(y) b,
// so that the gradients of y . conj(a) b are right(b)^T y (in a) and left(a)^T y (in b), and its Hessian in (a, b)
// is the constant [[0, pairing(y)], [pairing(y)^T, 0]]. Per node b and end q of the step, with w = conj(q_b) v_b and
// y = 2 ds M~ w (T_v = left(q_b)^T y, T_q = right(v_b)^T y):
//   T_vv = 2 ds left^T M~ left,   T_vq = pairing(y)^T + 2 ds left^T M~ right,   T_qq = 2 ds right^T M~ right.
// The strains k_b = conj(q_b) s, s = (q_B - q_A)/ds, have dk_b = right(s) dq_b + left(q_b) (dq_B - dq_A)/ds, and
// y_k . k_b the Hessian in (q_b, q_B - q_A) above (the stresses y_k = 2 ds (C~ (k - k0) + D~ k_dot)). The weight's
// generalized force (2 F q_d, -2 F q_r) has the constant Jacobian [[0, 2 F], [-2 F, 0]] (F a pure quaternion).
#include <array>

#include "flexadj/elements/dual_quaternion_lagrangian.hpp"

namespace flexadj::elements::dual_quaternion {

using Matrix4 = std::array<double, 16>;                            // row-major
using Matrix8 = std::array<double, kNode * kNode>;                 // row-major, blocks (real, dual)
using Matrix16 = std::array<double, kCoordinates * kCoordinates>;  // row-major, blocks (node A, node B)

// The ends of a step of the trapezoidal momenta, q^n = q_mid - h v_mid/2 and q^{n+1} = q_mid + h v_mid/2, and the
// multipliers' weights on them, z_0 = h mu_minus/2, z_1 = h mu_plus/2 and z_v = (mu_plus - mu_minus)/2.
// S is double, or a one-direction forward-AD type (the second-order products of dual_quaternion_beam.cpp).
template <class S = double> struct StepEndsOf {
  std::array<S, kCoordinates> q[2], z[2], z_v;
  StepEndsOf(const S* q_mid, const S* v_mid, double h, const double* mu_minus, const double* mu_plus) {
    for (int i = 0; i < kCoordinates; ++i) {
      q[0][i] = q_mid[i] - 0.5 * h * v_mid[i];
      q[1][i] = q_mid[i] + 0.5 * h * v_mid[i];
      z[0][i] = 0.5 * h * mu_minus[i];
      z[1][i] = 0.5 * h * mu_plus[i];
      z_v[i] = 0.5 * (mu_plus[i] - mu_minus[i]);
    }
  }
};
using StepEnds = StepEndsOf<double>;

// Quaternions (scalar first): b -> conj(a) b, a -> conj(a) b, the pairing matrix X(y) with y . conj(a) b = a^T X b,
// and b -> a b.
inline Matrix4 conjugate_times_left(const double* a) {
  return {a[0], a[1], a[2], a[3], -a[1], a[0], a[3], -a[2], -a[2], -a[3], a[0], a[1], -a[3], a[2], -a[1], a[0]};
}
inline Matrix4 conjugate_times_right(const double* b) {
  return {b[0], b[1], b[2], b[3], b[1], -b[0], -b[3], b[2], b[2], b[3], -b[0], -b[1], b[3], -b[2], b[1], -b[0]};
}
inline Matrix4 conjugate_times_pairing(const double* y) {
  return {y[0], y[1], y[2], y[3], -y[1], y[0], -y[3], y[2], -y[2], y[3], y[0], -y[1], -y[3], -y[2], y[1], y[0]};
}
inline Matrix4 product_left(const double* a) {
  return {a[0], -a[1], -a[2], -a[3], a[1], a[0], -a[3], a[2], a[2], a[3], a[0], -a[1], a[3], -a[2], a[1], a[0]};
}

// X^T diag(w) Y of 4x4 matrices (w null: the identity).
inline Matrix4 transposed_product(const Matrix4& X, const double* w, const Matrix4& Y) {
  Matrix4 out{};
  for (int k = 0; k < 4; ++k) {
    const double wk = w ? w[k] : 1.0;
    for (int i = 0; i < 4; ++i) {
      const double a = wk * X[4 * k + i];
      for (int j = 0; j < 4; ++j) out[4 * i + j] += a * Y[4 * k + j];
    }
  }
  return out;
}
// out(row, column) += scale m, a 4x4 block of an 8x8 matrix.
inline void add_quaternion_block(const Matrix4& m, int row, int column, double scale, Matrix8& out) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) out[(row + i) * kNode + column + j] += scale * m[4 * i + j];
}
// X^T diag(w_r, w_d I) Y for dual matrices X = [[X_r, 0], [X_d, X_r]], Y = [[Y_r, 0], [Y_d, Y_r]] (the shape of
// left(a) and right(b) below): [[X_r^T w_r Y_r + w_d X_d^T Y_d, w_d X_d^T Y_r], [w_d X_r^T Y_d, w_d X_r^T Y_r]].
inline Matrix8 dual_transposed_product(const Matrix4& Xr, const Matrix4& Xd, const double* wr, double wd,
                                       const Matrix4& Yr, const Matrix4& Yd) {
  Matrix8 m{};
  add_quaternion_block(transposed_product(Xr, wr, Yr), 0, 0, 1.0, m);
  add_quaternion_block(transposed_product(Xd, nullptr, Yd), 0, 0, wd, m);
  add_quaternion_block(transposed_product(Xd, nullptr, Yr), 0, 4, wd, m);
  add_quaternion_block(transposed_product(Xr, nullptr, Yd), 4, 0, wd, m);
  add_quaternion_block(transposed_product(Xr, nullptr, Yr), 4, 4, wd, m);
  return m;
}
// Dual quaternions: y . conj(a) b = a^T pairing(y) b, pairing(y) = [[X(y_r), X(y_d)], [X(y_d), 0]].
inline Matrix8 dual_conjugate_times_pairing(const double* y) {
  Matrix8 m{};
  const Matrix4 r = conjugate_times_pairing(y), d = conjugate_times_pairing(y + 4);
  add_quaternion_block(r, 0, 0, 1.0, m);
  add_quaternion_block(d, 0, 4, 1.0, m);
  add_quaternion_block(d, 4, 0, 1.0, m);
  return m;
}
// The 8x8 matrices of conj(a) b = left(a) b = right(b) a: [[L(a_r), 0], [L(a_d), L(a_r)]], the same with R(b).
inline Matrix8 dual_conjugate_times_left(const double* a) {
  Matrix8 m{};
  const Matrix4 r = conjugate_times_left(a), d = conjugate_times_left(a + 4);
  add_quaternion_block(r, 0, 0, 1.0, m);
  add_quaternion_block(d, 4, 0, 1.0, m);
  add_quaternion_block(r, 4, 4, 1.0, m);
  return m;
}
inline Matrix8 dual_conjugate_times_right(const double* b) {
  Matrix8 m{};
  const Matrix4 r = conjugate_times_right(b), d = conjugate_times_right(b + 4);
  add_quaternion_block(r, 0, 0, 1.0, m);
  add_quaternion_block(d, 4, 0, 1.0, m);
  add_quaternion_block(r, 4, 4, 1.0, m);
  return m;
}

// out += scale A^T diag(w) B for strain Jacobians A, B (16 x 16, dual_quaternion strains by rows): a real strain
// (rows 0-3 of a node) depends on the real parts only, so its row is zero in the dual columns; rows of zero weight
// are skipped.
inline void add_strain_congruence(const Matrix16& A, const double* w, const Matrix16& B, double scale,
                                  Matrix16& out) {
  double* __restrict o = out.data();
  for (int k = 0; k < kCoordinates; ++k) {
    if (w[k] == 0.0) continue;
    const double wk = scale * w[k];
    const bool real = k % kNode < 4;
    double row[kCoordinates];
    for (int j = 0; j < kCoordinates; ++j) row[j] = B[k * kCoordinates + j];
    for (int i = 0; i < kCoordinates; ++i) {
      if (real && i % kNode >= 4) continue;
      const double a = wk * A[k * kCoordinates + i];
      double* oi = o + i * kCoordinates;
      if (real) {
        for (int j = 0; j < 4; ++j) {
          oi[j] += a * row[j];
          oi[kNode + j] += a * row[kNode + j];
        }
      } else {
        for (int j = 0; j < kCoordinates; ++j) oi[j] += a * row[j];
      }
    }
  }
}
// out(block row, block column) += scale m (transposed: m^T), an 8x8 block of a 16x16 matrix.
template <bool Transposed = false>
void add_block(const Matrix8& m, int row, int column, double scale, Matrix16& out) {
  for (int i = 0; i < kNode; ++i)
    for (int j = 0; j < kNode; ++j)
      out[(kNode * row + i) * kCoordinates + kNode * column + j] +=
          scale * (Transposed ? m[j * kNode + i] : m[i * kNode + j]);
}

// The kinetic energy's second derivatives at one end q of the step, per node (see the top of this file).
struct KineticHessian {
  Matrix8 vv[2], vq[2], qq[2];
};
// The strains k (at node A, then B) at one end of the step and their Jacobian dk/dq (16 x 16).
struct StrainDerivatives {
  Matrix16 jacobian;
  std::array<double, 2 * kNode> strains;
};

// The second derivatives of the dual-quaternion beam's discrete momenta (dual_quaternion_beam.cpp), given the
// element's Lagrangian and parameters. Scalar is double; add_pairing_partials also takes a one-direction forward-AD
// type (its derivative along a direction of the state and the parameters: the second-order products).
template <class Scalar = double> class MomentaDerivativesOf {
 public:
  MomentaDerivativesOf(const DualQuaternionLagrangian& lagrangian, const Scalar* p, bool damped)
      : lagrangian_(lagrangian), p_(p), damped_(damped), length_(p[DualQuaternionLagrangian::kLength]),
        mass_(lagrangian.mass_weights(p)) {
    const auto C = lagrangian.stiffness_weights(p), D = lagrangian.damping_weights(p);
    for (int j = 0; j < 2 * kNode; ++j) {
      stiffness_[j] = 2.0 * length_ * C[j % kNode];
      damping_[j] = 0.0;
      if (damped) damping_[j] = 2.0 * length_ * D[j % kNode];
    }
  }

  // T_vv, T_vq and (with_qq) T_qq at (q, v), per node: left(q_b) and right(v_b) have the dual shape of
  // dual_transposed_product, and M~ = diag(M~_r, rho A I).
  KineticHessian kinetic_hessian(const double* q, const double* v, bool with_vq = true, bool with_qq = true) const {
    KineticHessian k;
    std::array<double, 4> weight;
    for (int i = 0; i < 4; ++i) weight[i] = 2.0 * length_ * mass_[i];
    const double translation = 2.0 * length_ * mass_[4];
    for (int b = 0; b < 2; ++b) {
      const double *qb = q + kNode * b, *vb = v + kNode * b;
      const Matrix4 Lr = conjugate_times_left(qb), Ld = conjugate_times_left(qb + 4);
      k.vv[b] = dual_transposed_product(Lr, Ld, weight.data(), translation, Lr, Ld);
      if (!with_vq) continue;
      const Matrix4 Rr = conjugate_times_right(vb), Rd = conjugate_times_right(vb + 4);
      k.vq[b] = dual_transposed_product(Lr, Ld, weight.data(), translation, Rr, Rd);
      if (with_qq) k.qq[b] = dual_transposed_product(Rr, Rd, weight.data(), translation, Rr, Rd);
      const auto w = dual_conjugate_times(qb, vb);
      std::array<double, kNode> y;
      for (int i = 0; i < kNode; ++i) y[i] = 2.0 * length_ * mass_[i] * w[i];
      const Matrix8 pairing = dual_conjugate_times_pairing(y.data());
      for (int i = 0; i < kNode; ++i)
        for (int j = 0; j < kNode; ++j) k.vq[b][i * kNode + j] += pairing[j * kNode + i];
    }
    return k;
  }

  // The strains k_b = conj(q_b) s at one end q and their Jacobian.
  StrainDerivatives strain_derivatives(const double* q) const {
    StrainDerivatives d;
    std::array<double, kNode> slope;
    for (int i = 0; i < kNode; ++i) slope[i] = (q[kNode + i] - q[i]) / length_;
    const Matrix8 right = dual_conjugate_times_right(slope.data());
    d.jacobian.fill(0.0);
    for (int b = 0; b < 2; ++b) {
      const Matrix8 left = dual_conjugate_times_left(q + kNode * b);
      add_block(right, b, b, 1.0, d.jacobian);
      add_block(left, b, 0, -1.0 / length_, d.jacobian);
      add_block(left, b, 1, 1.0 / length_, d.jacobian);
      const auto k = dual_conjugate_times(q + kNode * b, slope.data());
      for (int i = 0; i < kNode; ++i) d.strains[kNode * b + i] = k[i];
    }
    return d;
  }

  // out += scale (the Hessian of y . k(q) + U(q)): per node b, y_b . conj(q_b) s with s = (q_B - q_A)/ds.
  void add_stress_hessian(const std::array<double, 2 * kNode>& y, double scale, Matrix16& out) const {
    for (int b = 0; b < 2; ++b) {
      const Matrix8 X = dual_conjugate_times_pairing(y.data() + kNode * b);
      const double sign = b == 0 ? -1.0 : 1.0, c = scale / length_;
      // d2/dq_b2 = sign (X + X^T)/ds; d2/dq_b dq_o = -sign X/ds (o the other node), its transpose.
      add_block(X, b, b, sign * c, out);
      add_block<true>(X, b, b, sign * c, out);
      add_block(X, b, 1 - b, -sign * c, out);
      add_block<true>(X, 1 - b, b, -sign * c, out);
    }
    const double node_weight = 0.5 * p_[DualQuaternionLagrangian::kRho] * p_[DualQuaternionLagrangian::kArea] *
                               length_;
    const double F[4] = {0.0, node_weight * p_[DualQuaternionLagrangian::kGravity],
                         node_weight * p_[DualQuaternionLagrangian::kGravity + 1],
                         node_weight * p_[DualQuaternionLagrangian::kGravity + 2]};
    const Matrix4 product = product_left(F);
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          out[(kNode * b + i) * kCoordinates + kNode * b + 4 + j] += 2.0 * scale * product[4 * i + j];
          out[(kNode * b + 4 + i) * kCoordinates + kNode * b + j] -= 2.0 * scale * product[4 * i + j];
        }
  }

  // The Jacobians of minus and plus (dual_quaternion_beam.cpp, trapezoidal_momenta) with respect to the end q^{n+1}
  // of the step (the Newton matrix), v = (q^{n+1} - q^n)/h, but for their mass terms -+(vv_0 + vv_1)/(2h)
  // (mass_mean/h). With q0 = q^n, q1 = q^{n+1}, the kinetic blocks at q_a, the strain Jacobians B_a, the internal
  // force F_a = B_a^T y_a + U_q(q_a) whose stresses y_a hold the rate (k1 - k0)/h, and H_1 the Hessian of
  // y_1 . k + U at q1 (W_C = 2 ds C~, W_D = 2 ds D~):
  //   d minus/dq1 = -(vv_0 + vv_1)/(2h) - vq_1/2 + vq_0^T/2 - B_0^T W_D B_1/2,
  //   d plus/dq1  =  (vv_0 + vv_1)/(2h) + vq_1/2 + vq_1^T/2 + h/2 qq_1 - h/2 H_1 - B_1^T (h/2 W_C + W_D/2) B_1.
  // h = 0 (q, v the state): minus = -T_v, plus = T_v, and their derivatives in q, -T_vq and T_vq. Without with_plus
  // (the forward Newton iterations) d plus/dq1 is left out, and with it T_qq, H_1 and B_1^T W_C B_1.
  struct EndJacobians {
    Matrix16 minus_second, plus_second, mass_mean;
  };
  void end_jacobians(const double* q_mid, const double* v_mid, double h, bool with_plus, EndJacobians& J) const {
    J.minus_second.fill(0.0);
    if (with_plus) J.plus_second.fill(0.0);
    J.mass_mean.fill(0.0);
    if (h == 0.0) {
      const KineticHessian k = kinetic_hessian(q_mid, v_mid, true, false);
      for (int b = 0; b < 2; ++b) {
        add_block(k.vq[b], b, b, -1.0, J.minus_second);
        if (with_plus) add_block(k.vq[b], b, b, 1.0, J.plus_second);
      }
      return;
    }
    std::array<double, kCoordinates> q[2];
    for (int i = 0; i < kCoordinates; ++i) {
      q[0][i] = q_mid[i] - 0.5 * h * v_mid[i];
      q[1][i] = q_mid[i] + 0.5 * h * v_mid[i];
    }
    const KineticHessian kinetic[2] = {kinetic_hessian(q[0].data(), v_mid, true, false),
                                       kinetic_hessian(q[1].data(), v_mid, true, with_plus)};
    for (int b = 0; b < 2; ++b) {
      for (int a = 0; a < 2; ++a) add_block(kinetic[a].vv[b], b, b, 0.5, J.mass_mean);
      add_block(kinetic[1].vq[b], b, b, -0.5, J.minus_second);
      add_block<true>(kinetic[0].vq[b], b, b, 0.5, J.minus_second);
      if (!with_plus) continue;
      add_block(kinetic[1].vq[b], b, b, 0.5, J.plus_second);
      add_block<true>(kinetic[1].vq[b], b, b, 0.5, J.plus_second);
      add_block(kinetic[1].qq[b], b, b, 0.5 * h, J.plus_second);
    }
    if (!with_plus && !damped_) return;
    const StrainDerivatives strain[2] = {strain_derivatives(q[0].data()), strain_derivatives(q[1].data())};
    if (damped_)
      add_strain_congruence(strain[0].jacobian, damping_.data(), strain[1].jacobian, -0.5, J.minus_second);
    if (!with_plus) return;
    const auto& reference = lagrangian_.reference_strains();
    std::array<double, 2 * kNode> y, weight;
    for (int j = 0; j < 2 * kNode; ++j) {
      y[j] = stiffness_[j] * (strain[1].strains[j] - reference[j]) +
             damping_[j] * (strain[1].strains[j] - strain[0].strains[j]) / h;
      weight[j] = 0.5 * h * stiffness_[j] + 0.5 * damping_[j];
    }
    add_stress_hessian(y, -0.5 * h, J.plus_second);
    add_strain_congruence(strain[1].jacobian, weight.data(), strain[1].jacobian, -1.0, J.plus_second);
  }

  // The partial derivatives of the adjoint's pairing P = mu_minus . minus + mu_plus . plus (h > 0) in q0 = q^n,
  // q1 = q^{n+1} and v, the three held independent: d0, d1, dv += them. With z0 = h/2 mu_minus, z1 = h/2 mu_plus,
  // z_v = (mu_plus - mu_minus)/2, P = sum_a [z_v . T_v(q_a, v) + z_a . T_q(q_a, v) - z_a . F_a]; per node and end
  //   z_v . T_v + z_a . T_q = y . u,  y = 2 ds M~ conj(q_a) v,  u = conj(z_a) v + conj(q_a) z_v,
  //   z_a . F_a = y_a . dk_a[z_a] + z_a . U_q,  dk[z] = conj(z_b) s + conj(q_b) s[z]  (s[z] = (z_B - z_A)/ds),
  // bilinear products throughout, whose gradients are the products with the other factor (see the top of the file);
  // y_a depends on k_a (W_C) and on k1 - k0 (W_D/h), whose gradients come back through (dk/dq)^T.
  void add_pairing_partials(const Scalar* q_mid, const Scalar* v_mid, double h, const double* mu_minus,
                            const double* mu_plus, Scalar* d0, Scalar* d1, Scalar* dv) const {
    const StepEndsOf<Scalar> ends(q_mid, v_mid, h, mu_minus, mu_plus);
    const auto& q = ends.q;
    const auto& z = ends.z;
    const auto& z_v = ends.z_v;
    std::array<Scalar, kCoordinates> strain_adjoint[2]{};
    Scalar* d[2] = {d0, d1};
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) {
        const Scalar *qb = q[a].data() + kNode * b, *vb = v_mid + kNode * b, *zb = z[a].data() + kNode * b,
                     *zvb = z_v.data() + kNode * b;
        const auto w = dual_conjugate_times(qb, vb), u1 = dual_conjugate_times(zb, vb),
                   u2 = dual_conjugate_times(qb, zvb);
        std::array<Scalar, kNode> y, yu;
        for (int i = 0; i < kNode; ++i) {
          y[i] = 2.0 * length_ * mass_[i] * w[i];
          yu[i] = 2.0 * length_ * mass_[i] * (u1[i] + u2[i]);
        }
        add_gradient_in_first(vb, yu.data(), d[a] + kNode * b);
        add_gradient_in_first(zvb, y.data(), d[a] + kNode * b);
        add_gradient_in_second(qb, yu.data(), dv + kNode * b);
        add_gradient_in_second(zb, y.data(), dv + kNode * b);
      }
    const auto k0 = lagrangian_.strains(q[0].data(), p_), k1 = lagrangian_.strains(q[1].data(), p_);
    const auto& reference = lagrangian_.reference_strains();
    const Scalar node_weight = 0.5 * p_[DualQuaternionLagrangian::kRho] * p_[DualQuaternionLagrangian::kArea] *
                               length_;
    const Scalar F[4] = {0.0, node_weight * p_[DualQuaternionLagrangian::kGravity],
                         node_weight * p_[DualQuaternionLagrangian::kGravity + 1],
                         node_weight * p_[DualQuaternionLagrangian::kGravity + 2]};
    for (int a = 0; a < 2; ++a) {
      const auto& k = a == 0 ? k0 : k1;
      const auto e = DualQuaternionLagrangian::strain_change(q[a].data(), z[a].data(), length_);
      std::array<Scalar, 2 * kNode> minus_y;  // -y_a
      for (int j = 0; j < 2 * kNode; ++j) {
        minus_y[j] = -stiffness_[j] * (k[j] - reference[j]);
        strain_adjoint[a][j] -= stiffness_[j] * e[j];
        if (damped_) {
          minus_y[j] -= damping_[j] * (k1[j] - k0[j]) / h;
          strain_adjoint[1][j] -= damping_[j] * e[j] / h;
          strain_adjoint[0][j] += damping_[j] * e[j] / h;
        }
      }
      // -y_a . dk[z_a] in q_a with y_a held: conj(q_b) s[z] and conj(z_b) s(q).
      std::array<Scalar, kNode> slope_z, on_slope{};
      const Scalar* za = z[a].data();
      for (int i = 0; i < kNode; ++i) slope_z[i] = (za[kNode + i] - za[i]) / length_;
      for (int b = 0; b < 2; ++b) {
        add_gradient_in_first(slope_z.data(), minus_y.data() + kNode * b, d[a] + kNode * b);
        add_gradient_in_second(za + kNode * b, minus_y.data() + kNode * b, on_slope.data());
      }
      for (int i = 0; i < kNode; ++i) {
        d[a][kNode + i] += on_slope[i] / length_;
        d[a][i] -= on_slope[i] / length_;
      }
      // -z_a . U_q(q_a), U_q = (2 F q_d, -2 F q_r) symmetric in q: -(2 F z_d, -2 F z_r).
      for (int b = 0; b < 2; ++b) {
        std::array<Scalar, 4> on_r{}, on_d{};
        add_product(F, za + kNode * b + 4, on_r.data());
        add_product(F, za + kNode * b, on_d.data());
        for (int i = 0; i < 4; ++i) {
          d[a][kNode * b + i] -= 2.0 * on_r[i];
          d[a][kNode * b + 4 + i] += 2.0 * on_d[i];
        }
      }
    }
    for (int a = 0; a < 2; ++a) lagrangian_.add_strain_gradient(q[a].data(), p_, strain_adjoint[a].data(), d[a]);
  }

 private:
  const DualQuaternionLagrangian& lagrangian_;
  const Scalar* p_;
  bool damped_;
  Scalar length_;
  std::array<Scalar, kNode> mass_;
  std::array<Scalar, 2 * kNode> stiffness_, damping_;  // W_C = 2 ds C~, W_D = 2 ds D~ per strain (zero undamped)
};
using DualQuaternionMomentaDerivatives = MomentaDerivativesOf<double>;

}  // namespace flexadj::elements::dual_quaternion
