#pragma once
// The gradient-deficient ANCF element's strains at one point (ancf_cable.cpp) with their first and second
// derivatives written out, as functions of z = (r', r'') (2 Dim values: r'_1..Dim, then r''_1..Dim). r' and r'' are linear in the element coordinates (cubic Hermite, ancf_shape.hpp), so the
// derivatives in q are these through the shape-function weights: de/dq_(k,i) = w1_k de/dr'_i + w2_k de/dr''_i.
//   axial Green strain    eps = (r'.r' - 1)/2 (Berzeri and Shabana 2000): grad (r', 0), Hessian I on r' r';
//   simple curvature      kappa = r'' (Berzeri and Shabana 2000): linear;
//   exact curvature       kappa = u s, s = 1/|r'|^2, with u = (r' x r'')_z (planar, signed), u = (r' x r'')_i (the
//                         vector form of a straight spatial reference) or u = |r' x r''| (spatial):
//                         grad(u s) = s grad u + u grad s,
//                         H(u s) = s H_u + grad u grad s^T + grad s grad u^T + u H_s,
//                         grad s = -2 r'/|r'|^4, H_s = -2 I/|r'|^4 + 8 r' r'^T/|r'|^6 (on r' r');
//                         k = r' x r'': dk_i/dr'_(i+1) = r''_(i+2), dk_i/dr'_(i+2) = -r''_(i+1), dk_i/dr''_(i+2)
//                         = r'_(i+1), dk_i/dr''_(i+1) = -r'_(i+2) (indices mod 3), its Hessian the constant
//                         +-1 of those pairs; |k|: grad = sum_i k_i grad k_i/|k|,
//                         H = (sum_i grad k_i grad k_i^T + k_i H_(k_i))/|k| - grad|k| grad|k|^T/|k|, and zero
//                         value and derivatives where k = 0 (as the templated kernel).
#include <array>
#include <cmath>

namespace flexadj::elements::ancf {

template <int Dim> using SlopeVector = std::array<double, 2 * Dim>;  // z = (r', r'')
template <int Dim> using SlopeMatrix = std::array<SlopeVector<Dim>, 2 * Dim>;

enum class CurvatureForm { Simple, Planar, Vector, Scalar };

template <int Dim> struct StrainDerivatives {
  double value = 0.0;
  SlopeVector<Dim> gradient{};
  SlopeMatrix<Dim> hessian{};  // filled only if asked for
};

// The axial strain, then the curvature components: 1 + (Simple: Dim, Vector: 3, else 1) strains.
template <int Dim> struct CableStrains {
  int count = 0;
  std::array<StrainDerivatives<Dim>, 4> strain;
};

namespace detail {
template <int Dim>
void add_outer(SlopeMatrix<Dim>& h, const SlopeVector<Dim>& x, const SlopeVector<Dim>& y, double factor) {
  for (int i = 0; i < 2 * Dim; ++i)
    for (int j = 0; j < 2 * Dim; ++j) h[i][j] += factor * x[i] * y[j];
}
// k_i = (r' x r'')_i (planar: i = 2 only): gradient in z, and its constant Hessian added times `factor` to h.
template <int Dim>
SlopeVector<Dim> cross_gradient(const std::array<double, 3>& d1, const std::array<double, 3>& d2, int i) {
  const int j = (i + 1) % 3, l = (i + 2) % 3;
  SlopeVector<Dim> g{};
  if (j >= Dim || l >= Dim) return g;  // planar: only k_z depends on the in-plane slopes
  g[j] = d2[l];
  g[l] = -d2[j];
  g[Dim + l] = d1[j];
  g[Dim + j] = -d1[l];
  return g;
}
template <int Dim> void add_cross_hessian(SlopeMatrix<Dim>& h, int i, double factor) {
  const int j = (i + 1) % 3, l = (i + 2) % 3;
  if (j >= Dim || l >= Dim) return;
  h[j][Dim + l] += factor;
  h[Dim + l][j] += factor;
  h[l][Dim + j] -= factor;
  h[Dim + j][l] -= factor;
}
}  // namespace detail

// Strains at the point with slope d1 = r' and d2 = r'' (see the top of this file; components past Dim zero).
template <int Dim, bool WithHessian>
CableStrains<Dim> cable_strains(const std::array<double, 3>& d1, const std::array<double, 3>& d2,
                                CurvatureForm form) {
  using detail::add_outer;
  constexpr int kZ = 2 * Dim;
  CableStrains<Dim> out;
  const double n = d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2];
  StrainDerivatives<Dim>& axial = out.strain[0];
  axial.value = 0.5 * (n - 1.0);
  for (int i = 0; i < Dim; ++i) {
    axial.gradient[i] = d1[i];
    if (WithHessian) axial.hessian[i][i] = 1.0;
  }
  if (form == CurvatureForm::Simple) {
    out.count = 1 + Dim;
    for (int c = 0; c < Dim; ++c) {
      out.strain[1 + c].value = d2[c];
      out.strain[1 + c].gradient[Dim + c] = 1.0;
    }
    return out;
  }
  // s = 1/|r'|^2 and its derivatives (on the r' block).
  const double s = 1.0 / n;
  SlopeVector<Dim> grad_s{};
  for (int i = 0; i < Dim; ++i) grad_s[i] = -2.0 * d1[i] * s * s;
  SlopeMatrix<Dim> hess_s{};
  if (WithHessian)
    for (int i = 0; i < Dim; ++i) {
      hess_s[i][i] = -2.0 * s * s;
      for (int j = 0; j < Dim; ++j) hess_s[i][j] += 8.0 * d1[i] * d1[j] * s * s * s;
    }
  // f = u s from u with its gradient and Hessian.
  auto times_s = [&](double u, const SlopeVector<Dim>& grad_u, const SlopeMatrix<Dim>& hess_u,
                     StrainDerivatives<Dim>& f) {
    f.value = u * s;
    for (int i = 0; i < kZ; ++i) f.gradient[i] = s * grad_u[i] + u * grad_s[i];
    if (!WithHessian) return;
    for (int i = 0; i < kZ; ++i)
      for (int j = 0; j < kZ; ++j)
        f.hessian[i][j] = s * hess_u[i][j] + grad_u[i] * grad_s[j] + grad_s[i] * grad_u[j] + u * hess_s[i][j];
  };
  const std::array<double, 3> k{d1[1] * d2[2] - d1[2] * d2[1], d1[2] * d2[0] - d1[0] * d2[2],
                                d1[0] * d2[1] - d1[1] * d2[0]};
  if (form == CurvatureForm::Planar || form == CurvatureForm::Vector) {
    const int first = form == CurvatureForm::Planar ? 2 : 0;
    out.count = 1 + 3 - first;
    for (int i = first; i < 3; ++i) {
      SlopeMatrix<Dim> hess_k{};
      if (WithHessian) detail::add_cross_hessian<Dim>(hess_k, i, 1.0);
      times_s(k[i], detail::cross_gradient<Dim>(d1, d2, i), hess_k, out.strain[1 + i - first]);
    }
    return out;
  }
  out.count = 2;
  const double kk = k[0] * k[0] + k[1] * k[1] + k[2] * k[2];
  if (!(kk > 0.0)) return out;  // zero value and derivatives
  const double norm = std::sqrt(kk);
  std::array<SlopeVector<Dim>, 3> grad_k;
  SlopeVector<Dim> grad_norm{};
  for (int i = 0; i < 3; ++i) {
    grad_k[i] = detail::cross_gradient<Dim>(d1, d2, i);
    for (int j = 0; j < kZ; ++j) grad_norm[j] += k[i] * grad_k[i][j] / norm;
  }
  SlopeMatrix<Dim> hess_norm{};
  if (WithHessian) {
    for (int i = 0; i < 3; ++i) {
      add_outer<Dim>(hess_norm, grad_k[i], grad_k[i], 1.0 / norm);
      detail::add_cross_hessian<Dim>(hess_norm, i, k[i] / norm);
    }
    add_outer<Dim>(hess_norm, grad_norm, grad_norm, -1.0 / norm);
  }
  times_s(norm, grad_norm, hess_norm, out.strain[1]);
  return out;
}

}  // namespace flexadj::elements::ancf
