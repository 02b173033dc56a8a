// Gradient-deficient ANCF beam element: two nodes, each a position r and a slope r' = dr/dx (x the arc length of
// the reference), cubic Hermite interpolation (ancf_shape.hpp). Dimension 2 is the planar element of Berzeri and
// Shabana (2000); dimension 3 the cable element of Gerstmayr and Shabana (2006).
//
// Strain energy U = int [EA/2 (eps - eps_0)^2 + EI/2 (kappa - kappa_0)^2] dx with
//   axial Green strain       eps = (r'.r' - 1)/2                      (Berzeri and Shabana 2000)
//   curvature, "exact"       kappa = |r' x r''| / |r'|^2 (planar: signed, (r' x r'')_z / |r'|^2), the rotation
//                            rate d theta/dx of the tangent per unit reference length, i.e. the material curvature
//                            of the Simo-Reissner rod (Simo 1985). The geometric curvature of Gerstmayr and Shabana
//                            (2006), |r' x r''| / |r'|^3, is this divided by the stretch |r'|; with it a pure moment
//                            would also stretch the beam, by EI kappa^2/EA.
//            , "simple"      kappa = r'' (vector), U_bending = EI/2 int |r'' - r''_0|^2 dx: the constant bending
//                             stiffness of Berzeri and Shabana's simple models (2000), valid for small axial strain.
// A spatial straight reference (kappa_0 = 0) uses the curvature vector (r' x r'')/|r'|^2, whose square is kappa^2 and
// which is smooth at zero curvature. Integrals by 5-point Gauss quadrature (exact for the axial term).
// Forces are the derivatives of U: r += int (EA (eps - eps_0 + tau deps/dt)) deps/dq + ... with the strain
// derivatives by a nested forward-AD pass; tau is a Kelvin-Voigt retardation time (damping_time, 0: none).
// Constant consistent mass matrix rho A int S^T S dx and weight rho A int S^T g dx.
#include <cmath>

#include "flexadj/elements/ancf_shape.hpp"
#include "flexadj/elements/elements.hpp"
#include "flexadj/model/component_ad.hpp"

namespace flexadj::elements {
namespace {

template <int Dim> class AncfGradientDeficient final
    : public model::ForceElementAD<AncfGradientDeficient<Dim>, 4 * Dim> {
  using Base = model::ForceElementAD<AncfGradientDeficient<Dim>, 4 * Dim>;
  static constexpr int kN = 4 * Dim;
  static constexpr int kCurvatureComponents = Dim == 2 ? 1 : 3;

 public:
  enum : int { kE, kRho, kArea, kI, kDampingTime, kGravity, kParameterCount = kGravity + 3 };

  AncfGradientDeficient(const std::string& name, std::array<int, 2> nodes, const AncfElementData& data,
                        const Point& gravity)
      : Base(name, {nodes[0], nodes[1]}, {node_kind(), node_kind()}), simple_(data.simple_curvature),
        length_(data.length) {
    this->add_parameter("youngs_modulus", data.section.youngs_modulus);
    this->add_parameter("density", data.section.density);
    this->add_parameter("area", data.section.area);
    this->add_parameter("I", data.section.I3);
    this->add_parameter("damping_time", data.damping_time);
    this->add_vector_parameter("gravity", gravity);
    // Strains of the stress-free reference at the Gauss points.
    for (int g = 0; g < ancf::kGaussPoints; ++g) {
      const auto s = strains<double>(data.reference.data(), data.length, g);
      axial_0_[g] = s.axial;
      curvature_0_[g] = s.curvature;
      vector_curvature_[g] = Dim == 3 && !simple_ && !(std::abs(s.curvature[0]) > 1e-12 / data.length);
      if (vector_curvature_[g]) curvature_0_[g] = {0.0, 0.0, 0.0};
    }
  }
  static BodyKind node_kind() { return Dim == 2 ? BodyKind::AncfPlanarNode : BodyKind::AncfCableNode; }
  const char* type() const override { return Dim == 2 ? "ancf_planar" : "ancf_cable"; }
  bool conservative() const override { return this->parameters()[kDampingTime] == 0.0; }

  template <class T> struct Strains {
    T axial;
    std::array<T, 3> curvature;  // [0] the scalar curvature, or the vector (simple model, vector form)
  };

  // Axial strain and curvature at Gauss point g. The curvature is the scalar kappa, except for the simple model
  // (r'') and the vector form at straight spatial references (curvature_vector true).
  template <class T> Strains<T> strains(const T* q, double length, int g, bool vector_form = false) const {
    const auto w = ancf::hermite(ancf::gauss_points()[g], length);
    std::array<T, 3> d1{T(0.0), T(0.0), T(0.0)}, d2{T(0.0), T(0.0), T(0.0)};
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < Dim; ++i) {
        d1[i] += w.first[k] * q[Dim * k + i];
        d2[i] += w.second[k] * q[Dim * k + i];
      }
    Strains<T> s;
    const T norm2 = d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2];
    s.axial = 0.5 * (norm2 - 1.0);
    s.curvature = {T(0.0), T(0.0), T(0.0)};
    if (simple_) {
      s.curvature = d2;
      return s;
    }
    using std::sqrt;
    const model::Vec3<T> k = model::cross(d1, d2);
    const T scale = 1.0 / norm2;
    if (Dim == 2) {
      s.curvature[0] = k[2] * scale;
    } else if (vector_form) {
      for (int i = 0; i < 3; ++i) s.curvature[i] = k[i] * scale;
    } else {
      const T kk = model::dot(k, k);
      s.curvature[0] = (kk > 0.0 ? T(sqrt(kk)) : T(0.0)) * scale;
    }
    return s;
  }

  // Consistent mass (per coordinate direction), then applied().
  template <class S, class P> void evaluate(const S* q, const S* v, const S* a, const P* p, double t, S* r) const {
    add_mass_times(a, p, r);
    applied(q, v, p, t, r);
  }

  // Elastic and damping forces and weight.
  template <class S, class P> void applied(const S* q, const S* v, const P* p, double, S* r) const {
    const double length = length_;
    const S EA = p[kE] * p[kArea], EI = p[kE] * p[kI], tau = p[kDampingTime];
    using Inner = Sacado::Fad::SFad<S, kN>;
    std::array<Inner, kN> qi;
    for (int i = 0; i < kN; ++i) qi[i] = Inner(kN, i, q[i]);
    const int curvature_count = simple_ ? Dim : 1;
    for (int g = 0; g < ancf::kGaussPoints; ++g) {
      const S weight = ancf::gauss_weights()[g] * length_;
      const Strains<Inner> s = strains<Inner>(qi.data(), length, g, vector_curvature_[g]);
      add_stress(s.axial, axial_0_[g], EA, tau, weight, v, r);
      const int count = vector_curvature_[g] ? 3 : curvature_count;
      for (int c = 0; c < count; ++c) add_stress(s.curvature[c], curvature_0_[g][c], EI, tau, weight, v, r);
    }
    const S mass = p[kRho] * p[kArea] * length_;
    const auto load = ancf::hermite_load(length);
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < Dim; ++i) r[Dim * k + i] -= mass * load[k] * p[kGravity + i];
  }

  // T = 1/2 v.M v.
  template <class S, class P> S kinetic(const S*, const S* v, const P* p) const {
    return ancf::half_quadratic_form<kN>(v, [&](const S* x, S* r) { add_mass_times(x, p, r); });
  }

  double potential_energy(const double* q, double) const override {
    const double* p = this->parameters().data();
    const double length = length_;
    double energy = 0.0;
    for (int g = 0; g < ancf::kGaussPoints; ++g) {
      const auto s = strains<double>(q, length, g, vector_curvature_[g]);
      double bending = 0.0;
      const int count = vector_curvature_[g] ? 3 : simple_ ? Dim : 1;
      for (int c = 0; c < count; ++c) bending += std::pow(s.curvature[c] - curvature_0_[g][c], 2);
      energy += ancf::gauss_weights()[g] * length_ * 0.5 *
                (p[kE] * p[kArea] * std::pow(s.axial - axial_0_[g], 2) + p[kE] * p[kI] * bending);
    }
    const auto load = ancf::hermite_load(length);
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < Dim; ++i) energy -= p[kRho] * p[kArea] * length_ * load[k] * p[kGravity + i] * q[Dim * k + i];
    return energy;
  }

 private:
  // r += M x, M the consistent mass rho A int S^T S dx of each coordinate direction.
  template <class S, class P> void add_mass_times(const S* x, const P* p, S* r) const {
    const S mass = p[kRho] * p[kArea] * length_;
    const auto M = ancf::hermite_mass(length_);
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < Dim; ++i) {
        S sum = 0.0;
        for (int l = 0; l < 4; ++l) sum += M[k][l] * x[Dim * l + i];
        r[Dim * k + i] += mass * sum;
      }
  }

  // r += weight (stiffness (e - e_0) + stiffness tau de/dt) de/dq.
  template <class Inner, class S>
  static void add_stress(const Inner& e, double e0, const S& stiffness, const S& tau, const S& weight, const S* v,
                         S* r) {
    S rate = 0.0;
    for (int j = 0; j < kN; ++j) rate += e.fastAccessDx(j) * v[j];
    const S stress = weight * stiffness * (e.val() - e0 + tau * rate);
    for (int i = 0; i < kN; ++i) r[i] += e.fastAccessDx(i) * stress;
  }

  bool simple_;
  double length_;  // reference length of the element
  std::array<double, ancf::kGaussPoints> axial_0_{};
  std::array<std::array<double, 3>, ancf::kGaussPoints> curvature_0_{};
  std::array<bool, ancf::kGaussPoints> vector_curvature_{};
};

}  // namespace

std::unique_ptr<model::ForceElement> make_ancf_gradient_deficient(const std::string& name, int dimension,
                                                                  std::array<int, 2> nodes,
                                                                  const AncfElementData& data, const Point& gravity) {
  if (dimension == 2) return std::make_unique<AncfGradientDeficient<2>>(name, nodes, data, gravity);
  return std::make_unique<AncfGradientDeficient<3>>(name, nodes, data, gravity);
}

}  // namespace flexadj::elements
