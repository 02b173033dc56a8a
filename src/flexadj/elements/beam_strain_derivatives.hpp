#pragma once
// The geometrically exact beam's strains and their first and second derivatives, by hand.
//
// The strains of geometrically_exact_beam.cpp (Simo and Vu-Quoc 1986, sec. 2; Crisfield and Jelenic 1999, two
// nodes, midpoint rule):
//   Gamma = R(e_m)^T d / (|e_m|^2 L),   K = log(conj(e_A) e_B') / L,
// with d = r_B - r_A, e_B' = s e_B (s = sign(e_A . e_B): the sign of e_B nearer e_A), e_m = e_A + e_B' and R(e)
// the rotation of Euler parameters e, homogeneous of degree 2 (Nikravesh 1988, eq. (6.19)):
//   R(e)^T d = (e_0^2 - |e_v|^2) d + 2 (e_v . d) e_v - 2 e_0 e_v x d.
// Both depend on the 11 reduced coordinates z = (d, e_A, e_B') only, and each element coordinate maps onto exactly
// one of them with a factor -1, 1 or s (reduced_index, reduced_factor): eps_q = B P, eps_qq = P^T H P with
// P = dz/dq. Derivatives:
//  * Gamma: quotient rule on h = R(e_m)^T d and 1/|e_m|^2; dh/dd = R^T, dh/de and d2h/de2 from the formula above,
//    d2h/de dd_m = dh/de at d = unit vector m (h is linear in d). Gamma is affine in d (zero d-d block) and
//    depends on e_A and e_B' through their sum.
//  * K: the relative quaternion p = conj(e_A) e_B' is bilinear (Hamilton product, Nikravesh 1988, eq. (6.36)):
//      p_0 = a_0 b_0 + a . b,   p_v = a_0 b - b_0 a - a x b   (a = e_A vector part, b = e_B' vector part),
//    so dp/dz is linear and d2p/dz2 constant (in the e_A-e_B' block only); with the log map f of
//    quaternion_log_derivatives.hpp, K_z = f_p p_z / L and K_zz = (p_z^T f_pp p_z + f_p . p_zz) / L.
#include <array>
#include <cmath>

#include "flexadj/elements/quaternion_log_derivatives.hpp"

namespace flexadj::elements {

constexpr int kBeamReduced = 11;  // z = (d_1..3, e_A 0..3, e_B' 0..3)
constexpr std::array<int, 14> kBeamReducedIndex{0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 7, 8, 9, 10};

// Scalar is double, or a forward-AD type for the derivatives of all these along a direction (the second-order
// products of geometrically_exact_beam.cpp).
template <class Scalar = double> struct BeamStrainDerivatives {
  std::array<Scalar, 6> eps;                                                             // (Gamma, K)
  std::array<std::array<Scalar, kBeamReduced>, 6> first;                                 // B = d eps/dz
  std::array<std::array<std::array<Scalar, kBeamReduced>, kBeamReduced>, 6> second;      // H_k = d2 eps_k/dz2
  double sign = 1.0;                                                                     // s
  // dz_a/dq_i for a = kBeamReducedIndex[i] (the only nonzero entry of column i of P).
  double factor(int i) const { return i < 3 ? -1.0 : i < 7 ? 1.0 : i < 10 ? 1.0 : sign; }
  // z-components of an element vector x: P x.
  template <class X> std::array<X, kBeamReduced> reduce(const X* x) const {
    return {x[7] - x[0], x[8] - x[1], x[9] - x[2], x[3], x[4], x[5], x[6],
            sign * x[10], sign * x[11], sign * x[12], sign * x[13]};
  }
};

namespace beam_detail {

// dh/de (3 x 4) of h = R(e)^T d.
template <class Scalar>
void rotate_transposed_derivative(const Scalar* e, const Scalar* d, Scalar out[3][4]) {
  const Scalar ev_d = e[1] * d[0] + e[2] * d[1] + e[3] * d[2];
  const Scalar cross[3] = {e[2] * d[2] - e[3] * d[1], e[3] * d[0] - e[1] * d[2], e[1] * d[1] - e[2] * d[0]};
  for (int i = 0; i < 3; ++i) out[i][0] = 2.0 * (e[0] * d[i] - cross[i]);
  // d/de_j: -2 e_j d + 2 d_j e_v + 2 (e_v . d) u_j - 2 e_0 (u_j x d), u_j the unit vector j.
  const Scalar uj_x_d[3][3] = {{0.0, -d[2], d[1]}, {d[2], 0.0, -d[0]}, {-d[1], d[0], 0.0}};
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i)
      out[i][1 + j] = 2.0 * (-e[1 + j] * d[i] + d[j] * e[1 + i] + (i == j ? ev_d : Scalar(0.0)) - e[0] * uj_x_d[j][i]);
}

// d2h/de2 (3 x 4 x 4), which depends on d only: [0][0] = 2d, [0][1+j] = -2 u_j x d,
// [1+j][1+k] = 2 (-delta_jk d + d_j u_k + d_k u_j).
template <class Scalar> void rotate_transposed_hessian(const Scalar* d, Scalar out[3][4][4]) {
  const Scalar uj_x_d[3][3] = {{0.0, -d[2], d[1]}, {d[2], 0.0, -d[0]}, {-d[1], d[0], 0.0}};
  for (int i = 0; i < 3; ++i) {
    out[i][0][0] = 2.0 * d[i];
    for (int j = 0; j < 3; ++j) out[i][0][1 + j] = out[i][1 + j][0] = -2.0 * uj_x_d[j][i];
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k)
        out[i][1 + j][1 + k] = 2.0 * ((j == k ? Scalar(-d[i]) : Scalar(0.0)) + (i == k ? d[j] : Scalar(0.0)) +
                                      (i == j ? d[k] : Scalar(0.0)));
  }
}

// Gamma, its derivatives in (d, e_m) and, if Second, its second derivatives, placed into z (e_m = e_A + e_B').
template <bool Second, class Scalar>
void shear_strains(const Scalar* d, const Scalar* em, const Scalar& length, BeamStrainDerivatives<Scalar>& out) {
  const Scalar N = em[0] * em[0] + em[1] * em[1] + em[2] * em[2] + em[3] * em[3];
  const Scalar scale = 1.0 / (N * length), iN = 1.0 / N;
  // R(e_m)^T (Nikravesh 1988, eq. (6.19)), row i = column i of R.
  const Scalar e0 = em[0], e1 = em[1], e2 = em[2], e3 = em[3];
  const Scalar Rt[3][3] = {{e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2.0 * (e1 * e2 + e0 * e3), 2.0 * (e1 * e3 - e0 * e2)},
                           {2.0 * (e1 * e2 - e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2.0 * (e2 * e3 + e0 * e1)},
                           {2.0 * (e1 * e3 + e0 * e2), 2.0 * (e2 * e3 - e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3}};
  Scalar h[3], hd[3][4];
  for (int i = 0; i < 3; ++i) h[i] = Rt[i][0] * d[0] + Rt[i][1] * d[1] + Rt[i][2] * d[2];
  rotate_transposed_derivative(em, d, hd);
  for (int i = 0; i < 3; ++i) {
    auto& B = out.first[i];
    out.eps[i] = scale * h[i];
    for (int m = 0; m < 3; ++m) B[m] = scale * Rt[i][m];
    // d(h u)/de_a = u (h_a - 2 h e_a / N), u = 1/(N L).
    for (int a = 0; a < 4; ++a) B[3 + a] = B[7 + a] = scale * (hd[i][a] - 2.0 * h[i] * em[a] * iN);
  }
  if constexpr (Second) {
    Scalar hee[3][4][4], hdm[3][3][4];  // d2h/de2; hdm[m] = d2h/de dd_m
    rotate_transposed_hessian(d, hee);
    for (int m = 0; m < 3; ++m) {
      const Scalar unit[3] = {m == 0 ? 1.0 : 0.0, m == 1 ? 1.0 : 0.0, m == 2 ? 1.0 : 0.0};
      rotate_transposed_derivative(em, unit, hdm[m]);
    }
    for (int i = 0; i < 3; ++i) {
      auto& H = out.second[i];
      for (int m = 0; m < 3; ++m)
        for (int n = 0; n < 3; ++n) H[m][n] = 0.0;
      // (e_a, e_b): u [h_ab - 2 (h_a e_b + h_b e_a)/N + h (-2 delta_ab/N + 8 e_a e_b/N^2)].
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
          const Scalar value =
              scale * (hee[i][a][b] - 2.0 * (hd[i][a] * em[b] + hd[i][b] * em[a]) * iN +
                       h[i] * ((a == b ? Scalar(-2.0 * iN) : Scalar(0.0)) + 8.0 * em[a] * em[b] * iN * iN));
          H[3 + a][3 + b] = H[3 + a][7 + b] = H[7 + a][3 + b] = H[7 + a][7 + b] = value;
        }
      // (d_m, e_a): u [d(R^T)_im/de_a - 2 R^T_im e_a/N].
      for (int m = 0; m < 3; ++m)
        for (int a = 0; a < 4; ++a) {
          const Scalar value = scale * (hdm[m][i][a] - 2.0 * Rt[i][m] * em[a] * iN);
          H[m][3 + a] = H[3 + a][m] = H[m][7 + a] = H[7 + a][m] = value;
        }
    }
  }
}

// K, its derivatives in (e_A, e_B') and, if Second, its second derivatives, placed into z.
template <bool Second, class Scalar>
void curvatures(const Scalar* ea, const Scalar* eb, const Scalar& length, BeamStrainDerivatives<Scalar>& out) {
  // p = conj(e_A) e_B' and dp/d(e_A, e_B') (4 x 8).
  const Scalar a0 = ea[0], a[3] = {ea[1], ea[2], ea[3]}, b0 = eb[0], b[3] = {eb[1], eb[2], eb[3]};
  const Scalar p[4] = {a0 * b0 + a[0] * b[0] + a[1] * b[1] + a[2] * b[2],
                       a0 * b[0] - b0 * a[0] - (a[1] * b[2] - a[2] * b[1]),
                       a0 * b[1] - b0 * a[1] - (a[2] * b[0] - a[0] * b[2]),
                       a0 * b[2] - b0 * a[2] - (a[0] * b[1] - a[1] * b[0])};
  Scalar P[4][8];
  P[0][0] = b0;
  P[0][4] = a0;
  for (int j = 0; j < 3; ++j) {
    P[0][1 + j] = b[j];
    P[0][5 + j] = a[j];
  }
  // dp_v/da_0 = b, dp_v/db_0 = -a, dp_v/da = -b_0 I + [b]x, dp_v/db = a_0 I - [a]x.
  const Scalar bx[3][3] = {{0.0, -b[2], b[1]}, {b[2], 0.0, -b[0]}, {-b[1], b[0], 0.0}};
  const Scalar ax[3][3] = {{0.0, -a[2], a[1]}, {a[2], 0.0, -a[0]}, {-a[1], a[0], 0.0}};
  for (int i = 0; i < 3; ++i) {
    P[1 + i][0] = b[i];
    P[1 + i][4] = -a[i];
    for (int j = 0; j < 3; ++j) {
      P[1 + i][1 + j] = (i == j ? Scalar(-b0) : Scalar(0.0)) + bx[i][j];
      P[1 + i][5 + j] = (i == j ? a0 : Scalar(0.0)) - ax[i][j];
    }
  }
  LogMapDerivatives<Scalar> f;
  log_map_derivatives<Second>(p, f);
  const Scalar il = 1.0 / length;
  for (int i = 0; i < 3; ++i) {
    auto& B = out.first[3 + i];
    out.eps[3 + i] = f.f[i] * il;
    for (int m = 0; m < 3; ++m) B[m] = 0.0;
    for (int z = 0; z < 8; ++z)
      B[3 + z] = il * (f.first[i][0] * P[0][z] + f.first[i][1] * P[1][z] + f.first[i][2] * P[2][z] +
                       f.first[i][3] * P[3][z]);
  }
  if constexpr (Second) {
    for (int i = 0; i < 3; ++i) {
      auto& H = out.second[3 + i];
      for (int m = 0; m < 3; ++m)
        for (int n = 0; n < kBeamReduced; ++n) H[m][n] = H[n][m] = 0.0;
      // p_z^T f_pp p_z.
      Scalar fP[4][8];
      for (int c = 0; c < 4; ++c)
        for (int z = 0; z < 8; ++z)
          fP[c][z] = f.second[i][c][0] * P[0][z] + f.second[i][c][1] * P[1][z] + f.second[i][c][2] * P[2][z] +
                     f.second[i][c][3] * P[3][z];
      for (int y = 0; y < 8; ++y)
        for (int z = y; z < 8; ++z)
          H[3 + y][3 + z] = H[3 + z][3 + y] =
              il * (P[0][y] * fP[0][z] + P[1][y] * fP[1][z] + P[2][y] * fP[2][z] + P[3][y] * fP[3][z]);
      // f_p . p_zz in the (e_A, e_B') block: [0][0] = f_w, [0][1+k] = f_uk, [1+j][0] = -f_uj,
      // [1+j][1+k] = f_w delta_jk + [f_u]x_jk.
      const Scalar fw = f.first[i][0], X[3] = {f.first[i][1], f.first[i][2], f.first[i][3]};
      const Scalar Xx[3][3] = {{0.0, -X[2], X[1]}, {X[2], 0.0, -X[0]}, {-X[1], X[0], 0.0}};
      Scalar T[4][4];
      T[0][0] = fw;
      for (int j = 0; j < 3; ++j) {
        T[0][1 + j] = X[j];
        T[1 + j][0] = -X[j];
        for (int k = 0; k < 3; ++k) T[1 + j][1 + k] = (j == k ? fw : Scalar(0.0)) + Xx[j][k];
      }
      for (int x = 0; x < 4; ++x)
        for (int y = 0; y < 4; ++y) {
          H[3 + x][7 + y] += il * T[x][y];
          H[7 + y][3 + x] += il * T[x][y];
        }
    }
  }
}

}  // namespace beam_detail

// The strains at element coordinates q = (r_A, e_A, r_B, e_B) and their derivatives in z (second ones if Second).
template <bool Second, class Scalar>
void beam_strain_derivatives(const Scalar* q, const Scalar& length, BeamStrainDerivatives<Scalar>& out) {
  const Scalar alignment = q[3] * q[10] + q[4] * q[11] + q[5] * q[12] + q[6] * q[13];
  out.sign = alignment < 0.0 ? -1.0 : 1.0;  // decided on the value: a direction does not flip it
  const Scalar d[3] = {q[7] - q[0], q[8] - q[1], q[9] - q[2]};
  const Scalar eb[4] = {out.sign * q[10], out.sign * q[11], out.sign * q[12], out.sign * q[13]};
  const Scalar em[4] = {q[3] + eb[0], q[4] + eb[1], q[5] + eb[2], q[6] + eb[3]};
  beam_detail::shear_strains<Second>(d, em, length, out);
  beam_detail::curvatures<Second>(q + 3, eb, length, out);
}

}  // namespace flexadj::elements
