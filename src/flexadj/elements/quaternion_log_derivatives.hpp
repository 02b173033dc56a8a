#pragma once
// The logarithm of a (not necessarily unit) quaternion p = (w, u) as a rotation vector,
//   f(p) = phi(w, |u|^2) u,   phi(w, s) = 2 atan2(sqrt(s), w) / sqrt(s),
// with its first and second derivatives with respect to the four components of p, written out by hand.
// f is the rotation vector psi of the relative rotation exp(psi~) = R_A^T R_B of the geometrically exact beam
// (Crisfield and Jelenic 1999, eq. (10); the quaternion form of the log map, e.g. Spurrier 1978): scale-invariant
// in p. The branch near zero rotation uses the series atan(x)/x = 1 - x^2/3 + x^4/5 - x^6/7 in y = s/w^2, exactly
// as the templated kernel geometrically_exact_beam.cpp::strains() does, so that the derivatives here are those
// of the same function its AD reference differentiates.
//
// Chain rule for f_i = phi u_i (p = (w, u_1, u_2, u_3)):
//   df_i/dw = phi_w u_i,                df_i/du_j = phi delta_ij + 2 phi_s u_i u_j,
//   d2f_i/dw2 = phi_ww u_i,             d2f_i/dw du_j = phi_w delta_ij + 2 phi_ws u_i u_j,
//   d2f_i/du_j du_k = 2 phi_s (delta_ij u_k + delta_ik u_j + delta_jk u_i) + 4 phi_ss u_i u_j u_k.
#include <array>
#include <cmath>

namespace flexadj::elements {

// phi and its partial derivatives in w and s = |u|^2. T is double, or a forward-AD type for the derivatives of
// these along a direction (the beam's second-order products).
template <class T = double> struct LogScale {
  T phi = 0.0, w = 0.0, s = 0.0, ww = 0.0, ws = 0.0, ss = 0.0;
};

// With n2 = w^2 + s and alpha = atan2(sqrt(s), w) (d alpha/dw = -sqrt(s)/n2, d alpha/d sqrt(s) = w/n2):
//   phi_w = -2/n2, phi_s = (w/n2 - phi/2)/s, phi_ww = 4w/n2^2, phi_ws = 2/n2^2, phi_ss = -(w/n2^2 + 3/2 phi_s)/s.
// Series branch, phi = 2 g(y)/w with g(y) = 1 - y/3 + y^2/5 - y^3/7, y = s/w^2 (dy/dw = -2y/w, dy/ds = 1/w^2):
//   phi_w = -2 (g + 2y g')/w^2, phi_s = 2 g'/w^3, phi_ww = 4 (g + 5y g' + 2y^2 g'')/w^3,
//   phi_ws = -2 (3g' + 2y g'')/w^4, phi_ss = 2 g''/w^5.
template <class T> LogScale<T> log_scale(const T& w, const T& s) {
  using std::atan2;
  using std::sqrt;
  LogScale<T> d;
  const T y = s / (w * w);
  if (y < 1e-4) {
    const T g = 1.0 - y / 3.0 + y * y / 5.0 - y * y * y / 7.0;
    const T g1 = -1.0 / 3.0 + 2.0 * y / 5.0 - 3.0 * y * y / 7.0;
    const T g2 = 2.0 / 5.0 - 6.0 * y / 7.0;
    const T iw = 1.0 / w, iw2 = iw * iw, iw3 = iw2 * iw;
    d.phi = 2.0 * g * iw;
    d.w = -2.0 * (g + 2.0 * y * g1) * iw2;
    d.s = 2.0 * g1 * iw3;
    d.ww = 4.0 * (g + 5.0 * y * g1 + 2.0 * y * y * g2) * iw3;
    d.ws = -2.0 * (3.0 * g1 + 2.0 * y * g2) * iw3 * iw;
    d.ss = 2.0 * g2 * iw3 * iw2;
  } else {
    const T r = sqrt(s), n2 = w * w + s, in2 = 1.0 / n2;
    d.phi = 2.0 * atan2(r, w) / r;
    d.w = -2.0 * in2;
    d.s = (w * in2 - 0.5 * d.phi) / s;
    d.ww = 4.0 * w * in2 * in2;
    d.ws = 2.0 * in2 * in2;
    d.ss = -(w * in2 * in2 + 1.5 * d.s) / s;
  }
  return d;
}

// f(p), df/dp (3 x 4) and, if Second, d2f/dp2 (3 x 4 x 4, symmetric in the last two).
template <class T = double> struct LogMapDerivatives {
  std::array<T, 3> f;
  std::array<std::array<T, 4>, 3> first;
  std::array<std::array<std::array<T, 4>, 4>, 3> second;
};

template <bool Second, class T> void log_map_derivatives(const T* p, LogMapDerivatives<T>& out) {
  const T w = p[0], u[3] = {p[1], p[2], p[3]};
  const LogScale<T> d = log_scale<T>(w, u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  for (int i = 0; i < 3; ++i) {
    out.f[i] = d.phi * u[i];
    out.first[i][0] = d.w * u[i];
    for (int j = 0; j < 3; ++j) out.first[i][1 + j] = (i == j ? d.phi : T(0.0)) + 2.0 * d.s * u[i] * u[j];
  }
  if constexpr (Second) {
    for (int i = 0; i < 3; ++i) {
      auto& h = out.second[i];
      h[0][0] = d.ww * u[i];
      for (int j = 0; j < 3; ++j) h[0][1 + j] = h[1 + j][0] = (i == j ? d.w : T(0.0)) + 2.0 * d.ws * u[i] * u[j];
      for (int j = 0; j < 3; ++j)
        for (int k = j; k < 3; ++k) {
          const T sym = (i == j ? u[k] : T(0.0)) + (i == k ? u[j] : T(0.0)) + (j == k ? u[i] : T(0.0));
          h[1 + j][1 + k] = h[1 + k][1 + j] = 2.0 * d.s * sym + 4.0 * d.ss * u[i] * u[j] * u[k];
        }
    }
  }
}

}  // namespace flexadj::elements
