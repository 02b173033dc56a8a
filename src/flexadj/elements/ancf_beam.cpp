// Fully parameterised spatial ANCF beam element: two nodes, each a position r and the three position gradients
// r_x, r_y, r_z (12 coordinates). Interpolation of Shabana and Yakoub (2001): the centreline r(x) is cubic Hermite in
// r and r_x (ancf_shape.hpp); the cross-section directors d2 = r_y and d3 = r_z are linear along x.
//
// Continuum strains (Green-Lagrange, St. Venant-Kirchhoff) lock for this element (Gerstmayr and Shabana 2005;
// Nachbagauer, Gruber and Gerstmayr 2013). Locking remedy: structural-mechanics strain measures of a
// Simo-Reissner rod with deformable directors, after the structural formulation of Nachbagauer, Gruber and
// Gerstmayr (2013), with selective sampling:
//   axial        eps = (r'.r' - 1)/2                                        5-point Gauss, EA
//   curvature    K_j = w . d_j/|d_j|, w = 1/2 sum_i d_i x d_i' / |d_i|^2,
//                d1 = d2 x d3 (w is the rotation rate of the triad; Simo 1985)  5-point Gauss, GJ, EI2, EI3
//   shear        g_2 = r'.d2, g_3 = r'.d3                                    Lobatto 0, 1/2, 1 (Simpson), k GA
//   cross-section e_22 = (d2.d2 - 1)/2, e_33 = (d3.d3 - 1)/2, g_23 = d2.d3    nodes (trapezoid), EA, EA, GA
// The cross-section terms carry no Poisson coupling (no Poisson locking). In bending at constant curvature the
// linear directors shorten between the nodes, and the Hermite tangent and the interpolated directors are
// orthogonal at both nodes and, by symmetry, at the midpoint: sampling the cross-section strains at the nodes and
// the shear at the three Lobatto points gives zero spurious strain there (no thickness or shear locking), and for
// bending about a fixed axis the normalised rotation rate w integrates to the exact relative rotation of the nodal
// triads (the director lengths cancel; observed fourth-order convergence in the tip-moment test).
// All measures are dot products of the gradients and their derivatives: a rigid motion leaves them unchanged.
// Forces r = sum w_k (C_k (e_k - e_k0 + tau de_k/dt)) de_k/dq with de/dq by a nested forward-AD pass.
// Mass: rho A int S^T S dx on the centreline, rho I3 and rho I2 times the linear mass on d2 and d3 (section
// centred at the centroid on principal axes); weight rho A int S^T g dx.
// The adjoint's parameter partials are written out (ancf_parameter_partials.hpp) from the strains and their
// derivatives along mu and v (one forward pass with two directions), and its kept Jacobians take one nested pass
// over n slots (residual_jacobians); the plain AD pass over evaluate() stays as the reference for tests.
#include <cmath>

#include "flexadj/elements/ancf_parameter_partials.hpp"
#include "flexadj/elements/ancf_shape.hpp"
#include "flexadj/elements/elements.hpp"
#include "flexadj/model/component_ad.hpp"

namespace flexadj::elements {
namespace {

using model::Vec3;
using namespace ancf_full_parameters;  // the parameter indices kE .. kGravity, the stiffnesses kAxial .. kSectionShear
constexpr int kFullCoordinates = 24;
constexpr int kAxialCurvature = ancf::kGaussPoints * 4;   // eps, K1, K2, K3 at each Gauss point
constexpr int kShear = 3 * 2;                             // g_2, g_3 at the three Lobatto points
constexpr int kSection = 2 * 3;                           // e_22, e_33, g_23 at the two nodes
constexpr int kStrainCount = kAxialCurvature + kShear + kSection;
constexpr std::array<int, 4> kCentreline{0, 3, 12, 15};  // r_A, r_x A, r_B, r_x B

class AncfFullBeam final : public model::ForceElementAD<AncfFullBeam, kFullCoordinates> {
 public:
  static_assert(kParameterCount <= model::kMaxComponentParameters, "too many ANCF parameters");

  AncfFullBeam(const std::string& name, std::array<int, 2> nodes, const AncfElementData& data, const Point& gravity)
      : ForceElementAD(name, {nodes[0], nodes[1]}, {BodyKind::AncfFullNode, BodyKind::AncfFullNode}),
        length_(data.length) {
    const auto& s = data.section;
    add_parameter("youngs_modulus", s.youngs_modulus);
    add_parameter("shear_modulus", s.shear_modulus);
    add_parameter("density", s.density);
    add_parameter("area", s.area);
    add_parameter("I2", s.I2);
    add_parameter("I3", s.I3);
    add_parameter("J", s.J);
    add_parameter("shear_factor_2", s.shear_factor_2);
    add_parameter("shear_factor_3", s.shear_factor_3);
    add_parameter("damping_time", data.damping_time);
    add_vector_parameter("gravity", gravity);
    reference_ = strains<double>(data.reference.data());
    // Quadrature weight and stiffness of each strain (as weighted_stiffness).
    for (int g = 0; g < ancf::kGaussPoints; ++g) {
      for (int k = 0; k < 4; ++k) strain_weight_[4 * g + k] = ancf::gauss_weights()[g] * length_;
      strain_stiffness_[4 * g] = kAxial;
      strain_stiffness_[4 * g + 1] = kTorsion;
      strain_stiffness_[4 * g + 2] = kBending2;
      strain_stiffness_[4 * g + 3] = kBending3;
    }
    const std::array<double, 3> simpson{length_ / 6.0, 2.0 * length_ / 3.0, length_ / 6.0};
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 2; ++j) {
        strain_weight_[kAxialCurvature + 2 * k + j] = simpson[k];
        strain_stiffness_[kAxialCurvature + 2 * k + j] = j == 0 ? kShearing2 : kShearing3;
      }
    for (int node = 0; node < 2; ++node)
      for (int j = 0; j < 3; ++j) {
        strain_weight_[kAxialCurvature + kShear + 3 * node + j] = 0.5 * length_;
        strain_stiffness_[kAxialCurvature + kShear + 3 * node + j] = j < 2 ? kAxial : kSectionShear;
      }
  }
  const char* type() const override { return "ancf_full"; }
  bool conservative() const override { return parameters()[kDampingTime] == 0.0; }

  template <class T> static Vec3<T> at(const T* q, int first) { return {q[first], q[first + 1], q[first + 2]}; }

  template <class T> std::array<T, kStrainCount> strains(const T* q) const {
    using std::sqrt;
    const double L = length_;
    std::array<T, kStrainCount> e;
    auto tangent = [&](double xi) {
      const auto w = ancf::hermite(xi, L);
      Vec3<T> t{T(0.0), T(0.0), T(0.0)};
      for (int k = 0; k < 4; ++k)
        for (int i = 0; i < 3; ++i) t[i] += w.first[k] * q[kCentreline[k] + i];
      return t;
    };
    auto director = [&](int first, double xi) {
      return model::add(model::scaled(at(q, first), 1.0 - xi), model::scaled(at(q, first + 12), xi));
    };
    const Vec3<T> d2_rate = model::scaled(model::subtract(at(q, 18), at(q, 6)), 1.0 / L);
    const Vec3<T> d3_rate = model::scaled(model::subtract(at(q, 21), at(q, 9)), 1.0 / L);
    for (int g = 0; g < ancf::kGaussPoints; ++g) {
      const double xi = ancf::gauss_points()[g];
      const Vec3<T> t = tangent(xi), d2 = director(6, xi), d3 = director(9, xi);
      const Vec3<T> d1 = model::cross(d2, d3);
      const Vec3<T> d1_rate = model::add(model::cross(d2_rate, d3), model::cross(d2, d3_rate));
      const T n1 = model::dot(d1, d1), n2 = model::dot(d2, d2), n3 = model::dot(d3, d3);
      Vec3<T> w = model::scaled(model::cross(d1, d1_rate), 0.5 / n1);
      w = model::add(w, model::scaled(model::cross(d2, d2_rate), 0.5 / n2));
      w = model::add(w, model::scaled(model::cross(d3, d3_rate), 0.5 / n3));
      e[4 * g] = 0.5 * (model::dot(t, t) - 1.0);
      e[4 * g + 1] = model::dot(w, d1) / sqrt(n1);
      e[4 * g + 2] = model::dot(w, d2) / sqrt(n2);
      e[4 * g + 3] = model::dot(w, d3) / sqrt(n3);
    }
    for (int k = 0; k < 3; ++k) {
      const double xi = 0.5 * k;
      const Vec3<T> t = tangent(xi);
      e[kAxialCurvature + 2 * k] = model::dot(t, director(6, xi));
      e[kAxialCurvature + 2 * k + 1] = model::dot(t, director(9, xi));
    }
    for (int node = 0; node < 2; ++node) {
      const Vec3<T> d2 = at(q, 12 * node + 6), d3 = at(q, 12 * node + 9);
      const int o = kAxialCurvature + kShear + 3 * node;
      e[o] = 0.5 * (model::dot(d2, d2) - 1.0);
      e[o + 1] = 0.5 * (model::dot(d3, d3) - 1.0);
      e[o + 2] = model::dot(d2, d3);
    }
    return e;
  }

  // Quadrature weight times stiffness of each strain.
  template <class P> std::array<P, kStrainCount> weighted_stiffness(const P* p) const {
    const P EA = p[kE] * p[kArea], GA = p[kG] * p[kArea];
    std::array<P, kStrainCount> c;
    for (int g = 0; g < ancf::kGaussPoints; ++g) {
      const double w = ancf::gauss_weights()[g] * length_;
      c[4 * g] = w * EA;
      c[4 * g + 1] = w * p[kG] * p[kJ];
      c[4 * g + 2] = w * p[kE] * p[kI2];
      c[4 * g + 3] = w * p[kE] * p[kI3];
    }
    const std::array<double, 3> simpson{length_ / 6.0, 2.0 * length_ / 3.0, length_ / 6.0};
    for (int k = 0; k < 3; ++k) {
      c[kAxialCurvature + 2 * k] = simpson[k] * p[kShear2] * GA;
      c[kAxialCurvature + 2 * k + 1] = simpson[k] * p[kShear3] * GA;
    }
    for (int node = 0; node < 2; ++node) {
      const int o = kAxialCurvature + kShear + 3 * node;
      c[o] = 0.5 * length_ * EA;
      c[o + 1] = 0.5 * length_ * EA;
      c[o + 2] = 0.5 * length_ * GA;
    }
    return c;
  }

  // Consistent mass, then applied().
  template <class S, class P> void evaluate(const S* q, const S* v, const S* a, const P* p, double t, S* r) const {
    add_mass_times(a, p, r);
    applied(q, v, p, t, r);
  }

  // Elastic and damping forces and weight.
  template <class S, class P> void applied(const S* q, const S* v, const P* p, double, S* r) const {
    using Inner = Sacado::Fad::SFad<S, kFullCoordinates>;
    std::array<Inner, kFullCoordinates> qi;
    for (int i = 0; i < kFullCoordinates; ++i) qi[i] = Inner(kFullCoordinates, i, q[i]);
    const std::array<Inner, kStrainCount> e = strains<Inner>(qi.data());
    const std::array<P, kStrainCount> c = weighted_stiffness(p);
    const S tau = p[kDampingTime];
    for (int m = 0; m < kStrainCount; ++m) {
      S rate = 0.0;
      for (int j = 0; j < kFullCoordinates; ++j) rate += e[m].fastAccessDx(j) * v[j];
      const S stress = c[m] * (e[m].val() - reference_[m] + tau * rate);
      for (int i = 0; i < kFullCoordinates; ++i) r[i] += e[m].fastAccessDx(i) * stress;
    }
    const auto load = ancf::hermite_load(length_);
    const P mass = p[kRho] * p[kArea] * length_;
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 3; ++i) r[kCentreline[k] + i] -= mass * load[k] * p[kGravity + i];
  }

  // mu . dr/dp by hand (ancf_parameter_partials.hpp): the strains with their derivatives along mu and v by one
  // forward pass with two directions, then the stress sums with the parameters factored out.
  void add_parameter_gradient(const double* q, const double* v, const double* a, double t, const double* mu,
                              double* gradient, model::ParameterMask wanted = model::kAllParameters) const override {
    if (plain_ad_) return ForceElementAD::add_parameter_gradient(q, v, a, t, mu, gradient, wanted);
    if ((wanted & ((1u << kParameterCount) - 1u)) == 0) return;
    AncfFullPairing pairing;
    const model::ParameterMask elastic = (1u << kE) | (1u << kG) | (1u << kArea) | (1u << kI2) | (1u << kI3) |
                                         (1u << kJ) | (1u << kShear2) | (1u << kShear3) | (1u << kDampingTime);
    if (wanted & elastic) {
      using Directions = Sacado::Fad::SFad<double, 2>;  // d/dq along mu, along v
      std::array<Directions, kFullCoordinates> qd;
      for (int i = 0; i < kFullCoordinates; ++i) {
        qd[i] = Directions(2, 0, q[i]);
        qd[i].fastAccessDx(0) = mu[i];
        qd[i].fastAccessDx(1) = v[i];
      }
      const std::array<Directions, kStrainCount> e = strains<Directions>(qd.data());
      for (int m = 0; m < kStrainCount; ++m) {
        const double paired = strain_weight_[m] * e[m].fastAccessDx(0);
        pairing.strain[strain_stiffness_[m]] += paired * (e[m].val() - reference_[m]);
        pairing.rate[strain_stiffness_[m]] += paired * e[m].fastAccessDx(1);
      }
    }
    const double L = length_;
    const auto M = ancf::hermite_mass(L);
    const auto load = ancf::hermite_load(L);
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 3; ++i) {
        double mass_times_a = 0.0;
        for (int l = 0; l < 4; ++l) mass_times_a += M[k][l] * a[kCentreline[l] + i];
        pairing.mass_mu += L * mu[kCentreline[k] + i] * mass_times_a;
        pairing.weight_mu[i] += L * load[k] * mu[kCentreline[k] + i];
      }
    for (int d = 0; d < 2; ++d)
      for (int i = 0; i < 3; ++i) {
        const int A = 6 + 3 * d + i, B = A + 12;
        (d == 0 ? pairing.director2_mu : pairing.director3_mu) +=
            L / 6.0 * (mu[A] * (2.0 * a[A] + a[B]) + mu[B] * (a[A] + 2.0 * a[B]));
      }
    std::array<double, kParameterCount> partials;
    ancf_full_parameter_partials(parameters().data(), pairing, partials);
    for (int k = 0; k < kParameterCount; ++k)
      if ((wanted >> k) & 1u) gradient[k] += partials[k];
  }

  // The adjoint's three Jacobians with one nested pass over the n coordinates instead of the 3n of q, v and a: r and
  // dr/dq by the Newton matrix's pass (coefficients (1, 0, 0)); dr/dv = sum_m c_m tau de_m/dq de_m/dq^T (the
  // damping stresses are linear in v) from the strains' first derivatives; dr/da the constant mass matrix.
  void residual_jacobians(const double* q, const double* v, const double* a, double t, double* r, double* dr_dq,
                          double* dr_dv, double* dr_da) const override {
    if (plain_ad_) return ForceElementAD::residual_jacobians(q, v, a, t, r, dr_dq, dr_dv, dr_da);
    constexpr int n = kFullCoordinates;
    ForceElementAD::residual_jacobian(q, v, a, t, model::JacobianCoefficients{1.0, 0.0, 0.0}, r, dr_dq);
    for (int x = 0; x < n * n; ++x) dr_dv[x] = dr_da[x] = 0.0;
    const double tau = parameters()[kDampingTime];
    if (tau != 0.0) {
      using Gradient = Sacado::Fad::SFad<double, n>;
      const auto qi = ancf::seeded<Gradient, n>(q);
      const std::array<Gradient, kStrainCount> e = strains<Gradient>(qi.data());
      const std::array<double, kStrainCount> c = weighted_stiffness(parameters().data());
      for (int m = 0; m < kStrainCount; ++m)
        for (int i = 0; i < n; ++i) {
          const double row = c[m] * tau * e[m].fastAccessDx(i);
          if (row != 0.0)
            for (int j = 0; j < n; ++j) dr_dv[i * n + j] += row * e[m].fastAccessDx(j);
        }
    }
    for (int j = 0; j < n; ++j) {
      std::array<double, n> unit{}, column{};
      unit[j] = 1.0;
      add_mass_times(unit.data(), parameters().data(), column.data());
      for (int i = 0; i < n; ++i) dr_da[i * n + j] = column[i];
    }
  }

  // The reference: every derivative by the plain AD pass over evaluate() (tests only).
  void use_plain_ad() { plain_ad_ = true; }

  // T = 1/2 v.M v.
  template <class S, class P> S kinetic(const S*, const S* v, const P* p) const {
    return ancf::half_quadratic_form<kFullCoordinates>(v, [&](const S* x, S* r) { add_mass_times(x, p, r); });
  }

  double potential_energy(const double* q, double) const override {
    const double* p = parameters().data();
    const auto e = strains<double>(q);
    const auto c = weighted_stiffness(p);
    double energy = 0.0;
    for (int m = 0; m < kStrainCount; ++m) energy += 0.5 * c[m] * (e[m] - reference_[m]) * (e[m] - reference_[m]);
    const auto load = ancf::hermite_load(length_);
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 3; ++i) energy -= p[kRho] * p[kArea] * length_ * load[k] * p[kGravity + i] * q[kCentreline[k] + i];
    return energy;
  }

  // ---- output: the section at the midpoint xi = 1/2 ----
  // A node at the midpoint: the interpolated r, r_x (Hermite) and directors r_y, r_z (linear).
  std::array<double, 12> midpoint_node(const double* q) const {
    std::array<double, 12> node;
    ancf::hermite_centreline(q, {0, 3, 12, 15}, 3, 0.5, length_, node.data(), node.data() + 3);
    for (int i = 0; i < 6; ++i) node[6 + i] = 0.5 * (q[6 + i] + q[18 + i]);
    return node;
  }

  void section_point(const double* q, double* x) const override {
    const auto node = midpoint_node(q);
    for (int c = 0; c < 3; ++c) x[c] = node[c];
  }

  // (N, Q2, Q3, T, M2, M3): the means over the element, with the energy's sampling and weights
  // (weighted_stiffness), of C (e - e_0 + tau de/dt), C = diag(EA, k2 GA, k3 GA, GJ, EI2, EI3), for the structural
  // strains of [NGG13] the energy uses: axial eps and curvatures K_1..3 at the Gauss points, shear g_2 = r'.d2,
  // g_3 = r'.d3 at the Lobatto points (the mean is the midpoint value of a resultant varying linearly along the
  // element; ancf_cable.cpp). N is multiplied by the stretch |r'| (the force across the section, as in
  // ancf_cable.cpp). The values are components on the director triad (d2 x d3, d2, d3) normalised, which is the
  // output section frame (model::section_frame of midpoint_node) while the section is unsheared and undeformed,
  // and differs from it by the shear angles otherwise.
  int resultant_count() const override { return 6; }
  void resultants(const double* q, const double* v, double* out) const override {
    using OutputAD = Sacado::Fad::SFad<double, kFullCoordinates>;
    const auto qi = ancf::seeded<OutputAD, kFullCoordinates>(q);
    const std::array<OutputAD, kStrainCount> e = strains<OutputAD>(qi.data());
    const auto c = weighted_stiffness(parameters().data());
    auto weighted_stress = [&](int m) {
      return ancf::viscoelastic_stress(e[m], reference_[m], c[m], parameters()[kDampingTime], v);
    };
    std::array<double, 6> sum{};
    for (int g = 0; g < ancf::kGaussPoints; ++g) {
      sum[0] += std::sqrt(1.0 + 2.0 * e[4 * g].val()) * weighted_stress(4 * g);
      for (int k = 1; k < 4; ++k) sum[2 + k] += weighted_stress(4 * g + k);
    }
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 2; ++j) sum[1 + j] += weighted_stress(kAxialCurvature + 2 * k + j);
    for (int k = 0; k < 6; ++k) out[k] = sum[k] / length_;
  }

 private:
  // r += M x: the consistent mass of the centreline and of the directors.
  template <class S, class P> void add_mass_times(const S* x, const P* p, S* r) const {
    const double L = length_;
    const auto M = ancf::hermite_mass(L);
    const P mass = p[kRho] * p[kArea] * L;
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 3; ++i) {
        S sum = 0.0;
        for (int l = 0; l < 4; ++l) sum += M[k][l] * x[kCentreline[l] + i];
        r[kCentreline[k] + i] += mass * sum;
      }
    // Directors: rho I int (linear shape)^2 dx = rho I L/6 [[2, 1], [1, 2]].
    const std::array<P, 2> director_inertia{p[kRho] * p[kI3] * L / 6.0, p[kRho] * p[kI2] * L / 6.0};
    for (int d = 0; d < 2; ++d)
      for (int i = 0; i < 3; ++i) {
        const int A = 6 + 3 * d + i, B = A + 12;
        r[A] += director_inertia[d] * (2.0 * x[A] + x[B]);
        r[B] += director_inertia[d] * (x[A] + 2.0 * x[B]);
      }
  }

  double length_;
  std::array<double, kStrainCount> reference_{};
  std::array<double, kStrainCount> strain_weight_{};  // the quadrature weight of each strain
  std::array<int, kStrainCount> strain_stiffness_{};  // and its stiffness (kAxial .. kSectionShear)
  bool plain_ad_ = false;
};

}  // namespace

std::unique_ptr<model::ForceElement> make_ancf_full_beam(const std::string& name, std::array<int, 2> nodes,
                                                         const AncfElementData& data, const Point& gravity) {
  return std::make_unique<AncfFullBeam>(name, nodes, data, gravity);
}

std::unique_ptr<model::ForceElement> make_ancf_full_beam_plain_ad(const std::string& name, std::array<int, 2> nodes,
                                                                  const AncfElementData& data, const Point& gravity) {
  auto element = std::make_unique<AncfFullBeam>(name, nodes, data, gravity);
  element->use_plain_ad();
  return element;
}

}  // namespace flexadj::elements
