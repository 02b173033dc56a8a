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
// Forces are the derivatives of U: r += int (EA (eps - eps_0 + tau deps/dt)) deps/dq + ..., in the templated kernel
// (applied()) with the strain derivatives by a nested forward-AD pass; tau is a Kelvin-Voigt retardation time (damping_time, 0: none).
// Constant consistent mass matrix rho A int S^T S dx and weight rho A int S^T g dx.
// The residual, its Jacobians and the adjoint's parameter partials are written out (ancf_cable_strain_derivatives.hpp,
// ancf_parameter_partials.hpp); the plain AD pass over evaluate() stays as the reference for tests and for the
// second-order products, tangents and discrete momenta.
#include <cmath>

#include "flexadj/elements/ancf_cable_strain_derivatives.hpp"
#include "flexadj/elements/ancf_parameter_partials.hpp"
#include "flexadj/elements/ancf_shape.hpp"
#include "flexadj/elements/elements.hpp"
#include "flexadj/model/component_ad.hpp"

namespace flexadj::elements {
namespace {

using namespace ancf_cable_parameters;  // the parameter indices kE .. kGravity, kParameterCount

template <int Dim> class AncfGradientDeficient final
    : public model::ForceElementAD<AncfGradientDeficient<Dim>, 4 * Dim> {
  using Base = model::ForceElementAD<AncfGradientDeficient<Dim>, 4 * Dim>;
  static constexpr int kN = 4 * Dim;
  static constexpr int kCurvatureComponents = Dim == 2 ? 1 : 3;
  static_assert(kParameterCount <= model::kMaxComponentParameters, "too many ANCF parameters");

 public:

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
    // Strains of the stress-free reference and the Hermite weights at the Gauss points.
    for (int g = 0; g < ancf::kGaussPoints; ++g) {
      hermite_at_gauss_[g] = ancf::hermite(ancf::gauss_points()[g], data.length);
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

  // ---- the residual, its Jacobians and the parameter partials by hand (ancf_cable_strain_derivatives.hpp) ----
  ancf::CurvatureForm curvature_form(int g) const {
    if (simple_) return ancf::CurvatureForm::Simple;
    if (Dim == 2) return ancf::CurvatureForm::Planar;
    return vector_curvature_[g] ? ancf::CurvatureForm::Vector : ancf::CurvatureForm::Scalar;
  }

  using Slopes = ancf::SlopeVector<Dim>;
  using SlopeMatrix = ancf::SlopeMatrix<Dim>;
  static constexpr int kZ = 2 * Dim;

  // z = (r', r'') at Gauss point g of the coordinates (or velocities, multipliers) x.
  Slopes slopes(int g, const double* x) const {
    const ancf::HermiteWeights& w = hermite_at_gauss_[g];
    Slopes z{};
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < Dim; ++i) {
        z[i] += w.first[k] * x[Dim * k + i];
        z[Dim + i] += w.second[k] * x[Dim * k + i];
      }
    return z;
  }

  // Strains at Gauss point g of q, with their z-gradients (and Hessians).
  template <bool WithHessian> ancf::CableStrains<Dim> gauss_strains(const double* q, int g) const {
    const Slopes z = slopes(g, q);
    std::array<double, 3> d1{0.0, 0.0, 0.0}, d2{0.0, 0.0, 0.0};
    for (int i = 0; i < Dim; ++i) {
      d1[i] = z[i];
      d2[i] = z[Dim + i];
    }
    return ancf::cable_strains<Dim, WithHessian>(d1, d2, curvature_form(g));
  }

  // X (n x n, row-major) += W^T X_z W for the z-matrix X_z of Gauss point g, W the Hermite weights
  // (dz_(a,i)/dq_(k,i) = w_a[k]): first over the columns, then over the rows.
  void spread(int g, const SlopeMatrix& Xz, double* X) const {
    const ancf::HermiteWeights& w = hermite_at_gauss_[g];
    const std::array<const std::array<double, 4>*, 2> W{&w.first, &w.second};
    std::array<std::array<double, kN>, kZ> columns{};  // X_z W
    for (int r = 0; r < kZ; ++r)
      for (int b = 0; b < 2; ++b)
        for (int l = 0; l < 4; ++l)
          for (int j = 0; j < Dim; ++j) columns[r][Dim * l + j] += (*W[b])[l] * Xz[r][Dim * b + j];
    for (int a = 0; a < 2; ++a)
      for (int k = 0; k < 4; ++k)
        for (int i = 0; i < Dim; ++i) {
          double* row = X + (Dim * k + i) * kN;
          const double weight = (*W[a])[k];
          for (int c = 0; c < kN; ++c) row[c] += weight * columns[Dim * a + i][c];
        }
  }

  // r += sum_g w_g sum_m C_m (e_m - e_0m + tau de_m/dt) de_m/dq (elastic and damping forces). With matrices, K and
  // D (n x n, row-major, added to) get their q- and v-derivatives, formed on z and spread by the Hermite weights:
  //   K_z += C_m g_m (g_m + tau H_m v_z)^T + sigma_m H_m,  D_z += C_m tau g_m g_m^T (nothing without damping),
  // g_m, H_m the z-gradient and Hessian of strain m, sigma_m = C_m (e_m - e_0m + tau g_m . v_z).
  template <bool WithMatrices> void add_elastic(const double* q, const double* v, double* r, double* K, double* D) const {
    const double* p = this->parameters().data();
    const double EA = p[kE] * p[kArea], EI = p[kE] * p[kI], tau = p[kDampingTime];
    const bool damped = tau != 0.0;
    for (int g = 0; g < ancf::kGaussPoints; ++g) {
      const ancf::CableStrains<Dim> strains = gauss_strains<WithMatrices>(q, g);
      const Slopes vz = damped ? slopes(g, v) : Slopes{};
      const double weight = ancf::gauss_weights()[g] * length_;
      Slopes force{};
      SlopeMatrix Kz{}, Dz{};
      for (int m = 0; m < strains.count; ++m) {
        const ancf::StrainDerivatives<Dim>& e = strains.strain[m];
        const double C = weight * (m == 0 ? EA : EI), e_0 = m == 0 ? axial_0_[g] : curvature_0_[g][m - 1];
        double rate = 0.0;
        for (int i = 0; i < kZ; ++i) rate += e.gradient[i] * vz[i];
        const double stress = C * (e.value - e_0 + tau * rate);
        for (int i = 0; i < kZ; ++i) force[i] += stress * e.gradient[i];
        if constexpr (WithMatrices) {
          Slopes row = e.gradient;  // d sigma/dz / C
          if (damped)
            for (int i = 0; i < kZ; ++i)
              for (int j = 0; j < kZ; ++j) row[i] += tau * e.hessian[i][j] * vz[j];
          for (int i = 0; i < kZ; ++i)
            for (int j = 0; j < kZ; ++j) Kz[i][j] += C * e.gradient[i] * row[j] + stress * e.hessian[i][j];
          if (damped)
            for (int i = 0; i < kZ; ++i)
              for (int j = 0; j < kZ; ++j) Dz[i][j] += C * tau * e.gradient[i] * e.gradient[j];
        }
      }
      const ancf::HermiteWeights& w = hermite_at_gauss_[g];
      for (int k = 0; k < 4; ++k)
        for (int i = 0; i < Dim; ++i) r[Dim * k + i] += w.first[k] * force[i] + w.second[k] * force[Dim + i];
      if constexpr (WithMatrices) {
        spread(g, Kz, K);
        if (damped) spread(g, Dz, D);
      }
    }
  }

  // r -= the weight rho A int S^T g dx.
  void add_weight(double* r) const {
    const double* p = this->parameters().data();
    const double mass = p[kRho] * p[kArea] * length_;
    const auto load = ancf::hermite_load(length_);
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < Dim; ++i) r[Dim * k + i] -= mass * load[k] * p[kGravity + i];
  }

  // M (n x n, row-major): the consistent mass of add_mass_times.
  void mass_matrix(double* M) const {
    const double mass = this->parameters()[kRho] * this->parameters()[kArea] * length_;
    const auto shape = ancf::hermite_mass(length_);
    for (int x = 0; x < kN * kN; ++x) M[x] = 0.0;
    for (int k = 0; k < 4; ++k)
      for (int l = 0; l < 4; ++l)
        for (int i = 0; i < Dim; ++i) M[(Dim * k + i) * kN + Dim * l + i] = mass * shape[k][l];
  }

  void applied_residual(const double* q, const double* v, double t, double* r) const override {
    if (plain_ad_) return Base::applied_residual(q, v, t, r);
    for (int i = 0; i < kN; ++i) r[i] = 0.0;
    add_elastic<false>(q, v, r, nullptr, nullptr);
    add_weight(r);
  }

  void residual(const double* q, const double* v, const double* a, double t, double* r) const override {
    if (plain_ad_) return Base::residual(q, v, a, t, r);
    applied_residual(q, v, t, r);
    add_mass_times(a, this->parameters().data(), r);
  }

  void residual_jacobians(const double* q, const double* v, const double* a, double t, double* r, double* dr_dq,
                          double* dr_dv, double* dr_da) const override {
    if (plain_ad_) return Base::residual_jacobians(q, v, a, t, r, dr_dq, dr_dv, dr_da);
    for (int i = 0; i < kN; ++i) r[i] = 0.0;
    for (int x = 0; x < kN * kN; ++x) dr_dq[x] = dr_dv[x] = 0.0;
    add_elastic<true>(q, v, r, dr_dq, dr_dv);
    add_weight(r);
    add_mass_times(a, this->parameters().data(), r);
    mass_matrix(dr_da);
  }

  // c_q dr/dq + c_v dr/dv + c_a dr/da from residual_jacobians.
  void residual_jacobian(const double* q, const double* v, const double* a, double t,
                         const model::JacobianCoefficients& c, double* r, double* J) const override {
    if (plain_ad_) return Base::residual_jacobian(q, v, a, t, c, r, J);
    std::array<double, 3 * kN * kN> jacobians;
    double *dr_dq = jacobians.data(), *dr_dv = dr_dq + kN * kN, *dr_da = dr_dv + kN * kN;
    residual_jacobians(q, v, a, t, r, dr_dq, dr_dv, dr_da);
    for (int x = 0; x < kN * kN; ++x) J[x] = c.q * dr_dq[x] + c.v * dr_dv[x] + c.a * dr_da[x];
  }

  // mu . dr/dp by hand (ancf_parameter_partials.hpp): the strains' pairings with mu and their rates along v.
  void add_parameter_gradient(const double* q, const double* v, const double* a, double t, const double* mu,
                              double* gradient, model::ParameterMask wanted = model::kAllParameters) const override {
    if (plain_ad_) return Base::add_parameter_gradient(q, v, a, t, mu, gradient, wanted);
    if ((wanted & ((1u << kParameterCount) - 1u)) == 0) return;
    AncfCablePairing pairing;
    const model::ParameterMask elastic = (1u << kE) | (1u << kArea) | (1u << kI) | (1u << kDampingTime);
    if (wanted & elastic)
      for (int g = 0; g < ancf::kGaussPoints; ++g) {
        const ancf::CableStrains<Dim> strains = gauss_strains<false>(q, g);
        const Slopes vz = slopes(g, v), muz = slopes(g, mu);
        const double weight = ancf::gauss_weights()[g] * length_;
        for (int m = 0; m < strains.count; ++m) {
          const ancf::StrainDerivatives<Dim>& e = strains.strain[m];
          double paired = 0.0, rate = 0.0;
          for (int i = 0; i < kZ; ++i) {
            paired += e.gradient[i] * muz[i];
            rate += e.gradient[i] * vz[i];
          }
          const double e_0 = m == 0 ? axial_0_[g] : curvature_0_[g][m - 1];
          (m == 0 ? pairing.axial : pairing.bending) += weight * paired * (e.value - e_0);
          (m == 0 ? pairing.axial_rate : pairing.bending_rate) += weight * paired * rate;
        }
      }
    const auto M = ancf::hermite_mass(length_);
    const auto load = ancf::hermite_load(length_);
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < Dim; ++i) {
        double mass_times_a = 0.0;
        for (int l = 0; l < 4; ++l) mass_times_a += M[k][l] * a[Dim * l + i];
        pairing.mass_mu += length_ * mu[Dim * k + i] * mass_times_a;
        pairing.weight_mu[i] += length_ * load[k] * mu[Dim * k + i];
      }
    std::array<double, kParameterCount> partials;
    ancf_cable_parameter_partials(this->parameters().data(), pairing, partials);
    for (int k = 0; k < kParameterCount; ++k)
      if ((wanted >> k) & 1u) gradient[k] += partials[k];
  }

  // The reference: every derivative by the plain AD pass over evaluate() (tests only).
  void use_plain_ad() { plain_ad_ = true; }

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

  // ---- output: the section at the midpoint xi = 1/2 ----
  using OutputAD = Sacado::Fad::SFad<double, kN>;  // strains with their derivatives, for the strain rates

  // A node at the midpoint: the interpolated r and r' (the coordinates of node_kind()).
  std::array<double, 2 * Dim> midpoint_node(const double* q) const {
    std::array<double, 2 * Dim> node;
    ancf::hermite_centreline(q, {0, Dim, 2 * Dim, 3 * Dim}, Dim, 0.5, length_, node.data(), node.data() + Dim);
    return node;
  }

  void section_point(const double* q, double* x) const override {
    const auto node = midpoint_node(q);
    const auto point = model::point_position(node_kind(), node.data(), model::Vec3<double>{0.0, 0.0, 0.0});
    for (int c = 0; c < 3; ++c) x[c] = point[c];
  }

  // (N, Q2, Q3, T, M2, M3) of the element: the means over the element (the energy's Gauss rule) of the resultants
  // below, elastic plus Kelvin-Voigt, in the section frame at the midpoint (model::section_frame of midpoint_node).
  // The mean is the midpoint value of a resultant that varies linearly along the element, and it filters the
  // O(h^2) oscillation of the cubic's pointwise strains in bending (tip-moment test in test_ancf_statics.cpp).
  //   N = |r'| EA (eps - eps_0): the force across the section, n = dU/dr' = EA eps r' for the Green strain [BS00]
  //       (EA eps alone, the force conjugate to eps, is smaller by the stretch |r'|);
  //   bending moment vector: gauss_bending_moment; M2 = m.axis_y, M3 = m.axis_z;
  //   Q2 = Q3 = 0: the Euler-Bernoulli beam has no shear strain, its shear force is not a constitutive quantity (it
  //       follows from equilibrium, dM/dx); T = 0: the model has no torsion.
  int resultant_count() const override { return 6; }
  void resultants(const double* q, const double* v, double* out) const override {
    const double* p = this->parameters().data();
    const double EA = p[kE] * p[kArea], EI = p[kE] * p[kI], tau = p[kDampingTime];
    const auto frame = model::section_frame(node_kind(), midpoint_node(q).data());
    const model::Vec3<double> axis_z{frame[2], frame[5], frame[8]};
    const auto qi = ancf::seeded<OutputAD, kN>(q);
    double normal = 0.0;
    model::Vec3<double> moment{0.0, 0.0, 0.0};
    for (int g = 0; g < ancf::kGaussPoints; ++g) {
      const Strains<OutputAD> s = strains<OutputAD>(qi.data(), length_, g, vector_curvature_[g]);
      const double weight = ancf::gauss_weights()[g];
      normal += weight * std::sqrt(1.0 + 2.0 * s.axial.val()) *
                ancf::viscoelastic_stress(s.axial, axial_0_[g], EA, tau, v);
      moment = model::add(moment, model::scaled(gauss_bending_moment(q, v, g, s, EI, axis_z), weight));
    }
    const auto local = model::multiply_transposed(frame, moment);
    out[0] = normal;
    out[1] = out[2] = out[3] = 0.0;
    out[4] = local[1];
    out[5] = local[2];
  }

  // Bending moment vector (global) at Gauss point g from its strains s: EI (kappa - kappa_0) times the binormal
  // (r' x r'')/|r' x r''| (planar: e_z, kappa signed; where the curvature vanishes on a curved reference, whose
  // binormal is then undefined, `fallback`), EI times the curvature vector (r' x r'')/|r'|^2 at a straight spatial
  // reference, or t x EI (r'' - r''_0), t = r'/|r'|, for the simple model.
  model::Vec3<double> gauss_bending_moment(const double* q, const double* v, int g, const Strains<OutputAD>& s,
                                           double EI, const model::Vec3<double>& fallback) const {
    const double tau = this->parameters()[kDampingTime];
    const auto& curvature_0 = curvature_0_[g];
    model::Vec3<double> moment{0.0, 0.0, 0.0};
    if (simple_) {
      model::Vec3<double> point{0.0, 0.0, 0.0}, slope{0.0, 0.0, 0.0}, bending{0.0, 0.0, 0.0};
      ancf::hermite_centreline(q, {0, Dim, 2 * Dim, 3 * Dim}, Dim, ancf::gauss_points()[g], length_, point.data(),
                               slope.data());
      for (int c = 0; c < Dim; ++c) bending[c] = ancf::viscoelastic_stress(s.curvature[c], curvature_0[c], EI, tau, v);
      return model::cross(model::scaled(slope, 1.0 / std::sqrt(model::dot(slope, slope))), bending);
    }
    if (Dim == 2) {
      moment[2] = ancf::viscoelastic_stress(s.curvature[0], curvature_0[0], EI, tau, v);
      return moment;
    }
    if (vector_curvature_[g]) {
      for (int c = 0; c < 3; ++c) moment[c] = ancf::viscoelastic_stress(s.curvature[c], curvature_0[c], EI, tau, v);
      return moment;
    }
    const auto k = strains<double>(q, length_, g, true).curvature;
    const double norm = std::sqrt(model::dot(k, k));
    const model::Vec3<double> binormal = norm > 0.0 ? model::scaled(k, 1.0 / norm) : fallback;
    return model::scaled(binormal, ancf::viscoelastic_stress(s.curvature[0], curvature_0[0], EI, tau, v));
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
  bool plain_ad_ = false;
  double length_;  // reference length of the element
  std::array<double, ancf::kGaussPoints> axial_0_{};
  std::array<std::array<double, 3>, ancf::kGaussPoints> curvature_0_{};
  std::array<bool, ancf::kGaussPoints> vector_curvature_{};
  std::array<ancf::HermiteWeights, ancf::kGaussPoints> hermite_at_gauss_{};  // of r' and r'' (ancf::hermite)
};

}  // namespace

std::unique_ptr<model::ForceElement> make_ancf_gradient_deficient(const std::string& name, int dimension,
                                                                  std::array<int, 2> nodes,
                                                                  const AncfElementData& data, const Point& gravity) {
  if (dimension == 2) return std::make_unique<AncfGradientDeficient<2>>(name, nodes, data, gravity);
  return std::make_unique<AncfGradientDeficient<3>>(name, nodes, data, gravity);
}

std::unique_ptr<model::ForceElement> make_ancf_gradient_deficient_plain_ad(const std::string& name, int dimension,
                                                                           std::array<int, 2> nodes,
                                                                           const AncfElementData& data,
                                                                           const Point& gravity) {
  if (dimension == 2) {
    auto element = std::make_unique<AncfGradientDeficient<2>>(name, nodes, data, gravity);
    element->use_plain_ad();
    return element;
  }
  auto element = std::make_unique<AncfGradientDeficient<3>>(name, nodes, data, gravity);
  element->use_plain_ad();
  return element;
}

}  // namespace flexadj::elements
