// Geometrically exact (Simo-Reissner) 3D beam element with two nodes, each a position r and Euler
// parameters e (the coordinates of a spatial rigid body).
//
// Kinematics (Simo 1985; Simo and Vu-Quoc 1986): the section frame R(s) interpolates the nodal frames along
// the geodesic, R(s) = R_A exp((s/L) psi~) with exp(psi~) = R_A^T R_B (Crisfield and Jelenic 1999,
// two nodes), and r(s) linearly. Then the material curvature K = psi / L is constant, and the strains at the
// midpoint (one-point reduced integration, against shear locking) are
//   Gamma = R_m^T (r_B - r_A) / L - Gamma_0,   K = psi / L - K_0   (Simo and Vu-Quoc 1986, sec. 2),
// R_m = R_A exp(psi~/2), whose Euler parameters are those of e_A + e_B (the quaternion midpoint). Both depend
// only on the relative rotation R_A^T R_B and on the chord in the midpoint frame: a rigid motion of the
// element leaves them unchanged (objectivity, Crisfield and Jelenic 1999). Gamma_0 and K_0 are the strains of
// the stress-free reference configuration.
//
// Internal forces: r = L (d eps/dq)^T (C (eps - eps_0) + D d eps/dt), C = diag(EA, k2 GA, k3 GA, GJ, EI2, EI3),
// the derivative d eps/dq by a nested forward-AD pass. Kelvin-Voigt damping D of Schubert et al. (2024,
// sec. 5): D = diag(chi A, eta A, eta A, eta (I2 + I3), chi I2, chi I3), chi = zeta (3 - E/G)^2 + eta (E/G)^2/3.
//
// Inertia lumped to the nodes: mass rho A L/2 and rotary inertia rho L/2 diag(Jr1, Jr2, Jr3) in the node frame
// (section frame), with the rigid-body equations of body_inertia.cpp for each node; weight rho A L/2 g.
#include <cassert>
#include <cmath>
#include <type_traits>

#include "flexadj/elements/beam_parameter_partials.hpp"
#include "flexadj/elements/beam_strain_derivatives.hpp"
#include "flexadj/elements/elements.hpp"
#include "flexadj/elements/node_inertia_derivatives.hpp"
#include "flexadj/model/component_ad.hpp"

namespace flexadj::elements {
namespace {

using model::Vec3;
using namespace beam_parameters;  // the parameter indices kE .. kGravity, kParameterCount
constexpr int kBeamCoordinates = 14;

template <class T> double scalar_value(const T& x) { return Sacado::ScalarValue<T>::eval(x); }

class GeometricallyExactBeam final
    : public model::ForceElementAD<GeometricallyExactBeam, kBeamCoordinates, /*FixedLength=*/true> {
 public:
  static_assert(kParameterCount <= model::kMaxComponentParameters, "too many beam parameters");

  GeometricallyExactBeam(const std::string& name, std::array<int, 2> nodes, const BeamSectionData& section,
                         const BeamReference& reference, const Point& gravity)
      : ForceElementAD(name, {nodes[0], nodes[1]}, {BodyKind::SpatialRigid, BodyKind::SpatialRigid}) {
    for (const auto& [parameter, value] : section_parameters(section)) add_parameter(parameter, value);
    add_parameter("length", reference.length);
    for (int i = 0; i < 3; ++i) add_parameter("stretch0_" + std::to_string(i + 1), reference.stretch[i]);
    for (int i = 0; i < 3; ++i) add_parameter("curvature0_" + std::to_string(i + 1), reference.curvature[i]);
    add_vector_parameter("gravity", gravity);
    assert(static_cast<int>(parameters().size()) == kParameterCount);
  }
  const char* type() const override { return "beam"; }
  bool conservative() const override {
    return parameters()[kEta] == 0.0 && parameters()[kZeta] == 0.0;
  }

  // Strains (Gamma, K) of the element, without the reference values subtracted.
  template <class T> static std::array<T, 6> strains(const T* q, const T& length) {
    using std::atan2;
    using std::sqrt;
    const std::array<T, 4> ea{q[3], q[4], q[5], q[6]};
    std::array<T, 4> eb{q[10], q[11], q[12], q[13]};
    // e and -e are the same rotation: take the one nearer e_A (relative rotation below pi).
    const T alignment = ea[0] * eb[0] + ea[1] * eb[1] + ea[2] * eb[2] + ea[3] * eb[3];
    if (scalar_value(alignment) < 0.0)
      for (auto& x : eb) x = -x;
    // Relative rotation conj(e_A) e_B = (w, u); psi = 2 atan2(|u|, w) u/|u|, scale-invariant in e.
    const std::array<T, 4> relative = model::quaternion_product(model::quaternion_conjugate(ea), eb);
    const T& w = relative[0];
    const T u2 = relative[1] * relative[1] + relative[2] * relative[2] + relative[3] * relative[3];
    const T y = u2 / (w * w);
    T factor;
    if (scalar_value(y) < 1e-4) {
      // atan(x)/x = 1 - x^2/3 + x^4/5 - x^6/7 + ..., x^2 = y: smooth at zero rotation.
      factor = 2.0 / w * (1.0 - y / 3.0 + y * y / 5.0 - y * y * y / 7.0);
    } else {
      const T u = sqrt(u2);
      factor = 2.0 * atan2(u, w) / u;
    }
    std::array<T, 6> eps;
    for (int i = 0; i < 3; ++i) eps[3 + i] = factor * relative[1 + i] / length;
    const std::array<T, 4> em{ea[0] + eb[0], ea[1] + eb[1], ea[2] + eb[2], ea[3] + eb[3]};
    const T norm2 = em[0] * em[0] + em[1] * em[1] + em[2] * em[2] + em[3] * em[3];
    const std::array<T, 9> rm = model::rotation_from_euler_parameters(em.data());
    const Vec3<T> chord{q[7] - q[0], q[8] - q[1], q[9] - q[2]};
    const Vec3<T> local = model::multiply_transposed(rm, chord);
    for (int i = 0; i < 3; ++i) eps[i] = local[i] / (norm2 * length);
    return eps;
  }

  template <class S, class P> void evaluate(const S* q, const S* v, const S* a, const P* p, double t, S* r) const {
    inertia(q, v, a, p, r);
    applied(q, v, p, t, r);
  }

  // Lumped inertia at each node (Nikravesh 1988, eqs. (11.20)-(11.24), as for rigid bodies).
  template <class S, class P> void inertia(const S* q, const S* v, const S* a, const P* p, S* r) const {
    const P node_mass = 0.5 * p[kRho] * p[kArea] * p[kLength];
    const Vec3<P> rotary = node_rotary_inertia(p);
    for (int node = 0; node < 2; ++node) {
      const int o = 7 * node;
      for (int i = 0; i < 3; ++i) r[o + i] += node_mass * a[o + i];
      const Vec3<S> omega = model::body_angular_velocity(q + o + 3, v + o + 3);
      const Vec3<S> alpha = model::body_angular_velocity(q + o + 3, a + o + 3);
      const Vec3<S> momentum{rotary[0] * omega[0], rotary[1] * omega[1], rotary[2] * omega[2]};
      const Vec3<S> gyroscopic = model::cross(omega, momentum);
      const Vec3<S> moment{rotary[0] * alpha[0] + gyroscopic[0], rotary[1] * alpha[1] + gyroscopic[1],
                           rotary[2] * alpha[2] + gyroscopic[2]};
      const auto Qe = model::euler_parameter_map_transposed(q + o + 3, moment);
      for (int i = 0; i < 4; ++i) r[o + 3 + i] += 2.0 * Qe[i];
    }
  }

  // Internal forces and weight.
  template <class S, class P> void applied(const S* q, const S* v, const P* p, double, S* r) const {
    // Section stiffness and damping.
    const S E = p[kE], G = p[kG], A = p[kArea], I2 = p[kI2], I3 = p[kI3];
    const S ratio = E / G;
    const S chi = p[kZeta] * (3.0 - ratio) * (3.0 - ratio) + p[kEta] * ratio * ratio / 3.0;
    const std::array<S, 6> stiffness{E * A, p[kShear2] * G * A, p[kShear3] * G * A, G * p[kJ], E * I2, E * I3};
    const std::array<S, 6> damping{chi * A, p[kEta] * A, p[kEta] * A, p[kEta] * (I2 + I3), chi * I2, chi * I3};
    const S length = p[kLength];

    // Strains and their derivatives with respect to q by a nested AD pass.
    using Inner = Sacado::Fad::SFad<S, kBeamCoordinates>;
    std::array<Inner, kBeamCoordinates> qi;
    for (int i = 0; i < kBeamCoordinates; ++i) qi[i] = Inner(kBeamCoordinates, i, q[i]);
    const std::array<Inner, 6> eps = strains(qi.data(), Inner(length));
    for (int k = 0; k < 6; ++k) {
      S rate = 0.0;
      for (int j = 0; j < kBeamCoordinates; ++j) rate += eps[k].fastAccessDx(j) * v[j];
      const S reference = k < 3 ? S(p[kStretch0 + k]) : S(p[kCurvature0 + k - 3]);
      const S stress = stiffness[k] * (eps[k].val() - reference) + damping[k] * rate;
      const S weighted = length * stress;
      for (int i = 0; i < kBeamCoordinates; ++i) r[i] += eps[k].fastAccessDx(i) * weighted;
    }
    const S node_mass = 0.5 * p[kRho] * A * length;
    for (int node = 0; node < 2; ++node)
      for (int i = 0; i < 3; ++i) r[7 * node + i] -= node_mass * p[kGravity + i];
  }

  // T = sum over the nodes of m/2 |v|^2 + 1/2 w'.J w', w' = 2 G(e) e_dot.
  template <class S, class P> S kinetic(const S* q, const S* v, const P* p) const {
    const P node_mass = 0.5 * p[kRho] * p[kArea] * p[kLength];
    const Vec3<P> rotary = node_rotary_inertia(p);
    S energy = 0.0;
    for (int node = 0; node < 2; ++node) {
      const int o = 7 * node;
      const Vec3<S> omega = model::body_angular_velocity(q + o + 3, v + o + 3);
      for (int i = 0; i < 3; ++i)
        energy += 0.5 * node_mass * v[o + i] * v[o + i] + 0.5 * rotary[i] * omega[i] * omega[i];
    }
    return energy;
  }

  // The residual, the Newton matrix and the adjoint's Jacobians (whose transposed products ForceElementAD forms
  // from residual_jacobians) from the strains' first and second derivatives written out by hand
  // (beam_strain_derivatives.hpp): r = L eps_q^T w + weight, w = C (eps - eps_0) + D eps_q v, gives
  //   dr/dq = L (sum_k w_k eps_k,qq + eps_q^T C eps_q + eps_q^T D (eps_qq v)),   dr/dv = L eps_q^T D eps_q;
  // the lumped inertia terms and their Jacobians are written out too (node_inertia_derivatives.hpp). The plain AD
  // pass over evaluate() (ForceElementAD) is the reference: test_beam_hand_derivatives and test_beam_element check both against each
  // other to round-off.
  void residual(const double* q, const double* v, const double* a, double t, double* r) const override {
    if (plain_ad_) return ForceElementAD::residual(q, v, a, t, r);
    for (int i = 0; i < kBeamCoordinates; ++i) r[i] = 0.0;
    inertia<double, double>(q, v, a, parameters().data(), r);
    add_applied_by_hand(q, v, r);
  }

  void applied_residual(const double* q, const double* v, double t, double* r) const override {
    if (plain_ad_) return ForceElementAD::applied_residual(q, v, t, r);
    for (int i = 0; i < kBeamCoordinates; ++i) r[i] = 0.0;
    add_applied_by_hand(q, v, r);
  }

  void residual_jacobian(const double* q, const double* v, const double* a, double t,
                         const model::JacobianCoefficients& c, double* r, double* J) const override {
    if (plain_ad_) return ForceElementAD::residual_jacobian(q, v, a, t, c, r, J);
    constexpr int n = kBeamCoordinates;
    const double* p = parameters().data();
    AppliedMatrices<double> m;
    applied_matrices(q, v, p, m);
    for (int i = 0; i < n; ++i) r[i] = m.r[i];
    m.spread(c.q, c.v, J);
    const InertiaDerivatives<double> in = inertia_derivatives(q, v, a, p);
    for (int node = 0; node < 2; ++node) {
      const int o = 7 * node;
      for (int i = 0; i < 3; ++i) {
        r[o + i] += in.mass * a[o + i];
        J[(o + i) * n + o + i] += c.a * in.mass;
      }
      const NodeRotaryDerivatives<double>& d = in.node[node];
      for (int i = 0; i < 4; ++i) {
        r[o + 3 + i] += d.r[i];
        for (int j = 0; j < 4; ++j)
          J[(o + 3 + i) * n + o + 3 + j] += c.q * d.dq[i][j] + c.v * d.dv[i][j] + c.a * d.da[i][j];
      }
    }
  }

  void residual_jacobians(const double* q, const double* v, const double* a, double t, double* r, double* dr_dq,
                          double* dr_dv, double* dr_da) const override {
    if (plain_ad_) return ForceElementAD::residual_jacobians(q, v, a, t, r, dr_dq, dr_dv, dr_da);
    jacobians_by_hand(q, v, a, parameters().data(), r, dr_dq, dr_dv, dr_da);
  }

  // mu . dr/dp by hand (beam_parameter_partials.hpp) from the strains' first derivatives at L = 1.
  void add_parameter_gradient(const double* q, const double* v, const double* a, double t, const double* mu,
                              double* gradient, model::ParameterMask wanted = model::kAllParameters) const override {
    if (plain_ad_) return ForceElementAD::add_parameter_gradient(q, v, a, t, mu, gradient, wanted);
    if ((wanted & ((1u << kParameterCount) - 1u)) == 0) return;
    std::array<double, kParameterCount> partials;
    parameter_partials_by_hand(q, v, a, parameters().data(), mu, partials);
    for (int k = 0; k < kParameterCount; ++k)
      if ((wanted >> k) & 1u) gradient[k] += partials[k];
  }

  // The second-order products d/de (dr/dx)^T mu and d/de mu . dr/dp: the hand-written Jacobians and parameter
  // partials above evaluated in one-direction forward AD along e = (q_dot, v_dot, a_dot, p_dot). (The plain pass
  // of ForceElementAD nests the element's strain derivatives three levels deep: 67 x 14 x 2 values per operation.)
  double add_second_order_products(const double* q, const double* v, const double* a, double t, const double* q_dot,
                                   const double* v_dot, const double* a_dot, const double* p_dot, double u_dot,
                                   const double* mu, double* out_q, double* out_v, double* out_a, double* gradient,
                                   model::ParameterMask wanted = model::kAllParameters) const override {
    if (plain_ad_)
      return ForceElementAD::add_second_order_products(q, v, a, t, q_dot, v_dot, a_dot, p_dot, u_dot, mu, out_q,
                                                       out_v, out_a, gradient, wanted);
    (void)t, (void)u_dot;
    using Tangent = Sacado::Fad::SFad<double, 1>;
    constexpr int n = kBeamCoordinates;
    auto seeded = [](double x, double dx) {
      Tangent y(1, 0, x);
      y.fastAccessDx(0) = dx;
      return y;
    };
    std::array<Tangent, n> qt, vt, at;
    for (int i = 0; i < n; ++i) {
      qt[i] = seeded(q[i], q_dot[i]);
      vt[i] = seeded(v[i], v_dot[i]);
      at[i] = seeded(a[i], a_dot[i]);
    }
    std::array<Tangent, kParameterCount> pt;
    for (int k = 0; k < kParameterCount; ++k) pt[k] = seeded(parameters()[k], p_dot[k]);
    std::array<Tangent, n> r;
    std::array<Tangent, n * n> dr_dq, dr_dv, dr_da;
    jacobians_by_hand(qt.data(), vt.data(), at.data(), pt.data(), r.data(), dr_dq.data(), dr_dv.data(), dr_da.data());
    for (int i = 0; i < n; ++i) {
      if (mu[i] == 0.0) continue;
      for (int j = 0; j < n; ++j) {
        out_q[j] += dr_dq[i * n + j].fastAccessDx(0) * mu[i];
        out_v[j] += dr_dv[i * n + j].fastAccessDx(0) * mu[i];
        out_a[j] += dr_da[i * n + j].fastAccessDx(0) * mu[i];
      }
    }
    if ((wanted & ((1u << kParameterCount) - 1u)) != 0) {
      std::array<Tangent, kParameterCount> partials;
      parameter_partials_by_hand(qt.data(), vt.data(), at.data(), pt.data(), mu, partials);
      for (int k = 0; k < kParameterCount; ++k)
        if ((wanted >> k) & 1u) gradient[k] += partials[k].fastAccessDx(0);
    }
    return 0.0;  // the beam reads no control signal
  }

  // The reference: every derivative by the plain AD pass over evaluate() (tests only).
  void use_plain_ad() { plain_ad_ = true; }

  // (N, Q2, Q3, T, M2, M3) = C (eps - eps_0) + D d eps/dt in the midpoint section frame.
  int resultant_count() const override { return 6; }
  void resultants(const double* q, const double* v, double* out) const override {
    const SectionConstants<double> s = section_constants(parameters().data());
    BeamStrainDerivatives<double> d;
    beam_strain_derivatives<false>(q, s.length, d);
    const std::array<double, kBeamReduced> vz = d.reduce(v);
    for (int k = 0; k < 6; ++k) {
      double rate = 0.0;
      for (int j = 0; j < kBeamReduced; ++j) rate += d.first[k][j] * vz[j];
      out[k] = s.stiffness[k] * (d.eps[k] - s.reference[k]) + s.damping[k] * rate;
    }
  }

  // The midpoint of the chord (r is interpolated linearly).
  void section_point(const double* q, double* x) const override {
    for (int c = 0; c < 3; ++c) x[c] = 0.5 * (q[c] + q[7 + c]);
  }

  double potential_energy(const double* q, double) const override {
    const double* p = parameters().data();
    const double E = p[kE], G = p[kG], A = p[kArea];
    const std::array<double, 6> stiffness{E * A, p[kShear2] * G * A, p[kShear3] * G * A, G * p[kJ], E * p[kI2],
                                          E * p[kI3]};
    const std::array<double, 6> eps = strains(q, p[kLength]);
    double energy = 0.0;
    for (int k = 0; k < 6; ++k) {
      const double strain = eps[k] - (k < 3 ? p[kStretch0 + k] : p[kCurvature0 + k - 3]);
      energy += 0.5 * p[kLength] * stiffness[k] * strain * strain;
    }
    const double node_mass = 0.5 * p[kRho] * A * p[kLength];
    for (int node = 0; node < 2; ++node)
      for (int i = 0; i < 3; ++i) energy -= node_mass * p[kGravity + i] * q[7 * node + i];
    return energy;
  }

 private:
  // The residual of applied() and its Jacobians with respect to q and v (S: double, or the second-order products'
  // one-direction Fad, as in the helpers below).
  template <class S> struct AppliedMatrices {
    std::array<S, kBeamCoordinates> r;
    S K[kBeamReduced][kBeamReduced], D[kBeamReduced][kBeamReduced];  // K_z, D_z: dr/dq = P^T K_z P, ...
    double sign;                                                     // s of BeamStrainDerivatives
    // J = c_q dr/dq + c_v dr/dv (n x n row-major): P^T (c_q K_z + c_v D_z) P, row by row (z of q_j below).
    void spread(double cq, double cv, S* J) const {
      constexpr int n = kBeamCoordinates;
      for (int i = 0; i < n; ++i) {
        const int a = kBeamReducedIndex[i];
        const double f = i < 3 ? -1.0 : i >= 10 ? sign : 1.0, fs = f * sign;
        S z[kBeamReduced];
        for (int b = 0; b < kBeamReduced; ++b) z[b] = cq * K[a][b] + cv * D[a][b];
        S* out = J + i * n;
        for (int j = 0; j < 3; ++j) {
          out[j] = -f * z[j];
          out[7 + j] = f * z[j];
        }
        for (int j = 0; j < 4; ++j) {
          out[3 + j] = f * z[3 + j];
          out[10 + j] = fs * z[7 + j];
        }
      }
    }
  };

  // Section constants: C, D, the reference strains eps_0 and L.
  template <class S> struct SectionConstants {
    std::array<S, 6> stiffness, damping, reference;
    S length;
  };
  template <class S> static SectionConstants<S> section_constants(const S* p) {
    const S E = p[kE], G = p[kG], A = p[kArea], I2 = p[kI2], I3 = p[kI3], ratio = E / G;
    const S chi = p[kZeta] * (3.0 - ratio) * (3.0 - ratio) + p[kEta] * ratio * ratio / 3.0;
    return {{E * A, p[kShear2] * G * A, p[kShear3] * G * A, G * p[kJ], E * I2, E * I3},
            {chi * A, p[kEta] * A, p[kEta] * A, p[kEta] * (I2 + I3), chi * I2, chi * I3},
            {p[kStretch0], p[kStretch0 + 1], p[kStretch0 + 2], p[kCurvature0], p[kCurvature0 + 1],
             p[kCurvature0 + 2]},
            p[kLength]};
  }

  // r += the applied residual (internal forces and weight) from the strains' first derivatives by hand
  // (beam_strain_derivatives.hpp): r = L P^T B^T w - weight, w = C (eps - eps_0) + D B P v.
  void add_applied_by_hand(const double* q, const double* v, double* r) const {
    constexpr int nz = kBeamReduced;
    const double* p = parameters().data();
    const SectionConstants<double> s = section_constants(p);
    BeamStrainDerivatives<double> d;
    beam_strain_derivatives<false>(q, s.length, d);
    const std::array<double, nz> vz = d.reduce(v);
    std::array<double, nz> g{};
    for (int k = 0; k < 6; ++k) {
      double rate = 0.0;
      for (int j = 0; j < nz; ++j) rate += d.first[k][j] * vz[j];
      const double w = s.length * (s.stiffness[k] * (d.eps[k] - s.reference[k]) + s.damping[k] * rate);
      for (int j = 0; j < nz; ++j) g[j] += d.first[k][j] * w;
    }
    for (int i = 0; i < kBeamCoordinates; ++i) r[i] += d.factor(i) * g[kBeamReducedIndex[i]];
    add_weight(p, r);
  }

  template <class S> static void add_weight(const S* p, S* r) {
    const S node_mass = 0.5 * p[kRho] * p[kArea] * p[kLength];
    for (int node = 0; node < 2; ++node)
      for (int i = 0; i < 3; ++i) r[7 * node + i] -= node_mass * p[kGravity + i];
  }

  // The applied residual and its Jacobians with respect to q and v from the strains' first and second derivatives
  // in the reduced coordinates z (beam_strain_derivatives.hpp: eps_q = B P, eps_qq = P^T H P):
  //   dr/dq = L P^T (sum_k w_k H_k + B^T C B + B^T D (H P v)) P,   dr/dv = L P^T B^T D B P,
  // formed on z (11 x 11) and spread onto the 14 coordinates (each maps onto one z with a factor -1, 1 or s).
  template <class S> static void applied_matrices(const S* q, const S* v, const S* p, AppliedMatrices<S>& m) {
    constexpr int n = kBeamCoordinates, nz = kBeamReduced;
    const SectionConstants<S> s = section_constants(p);
    BeamStrainDerivatives<S> d;
    beam_strain_derivatives<true>(q, s.length, d);
    const std::array<S, nz> vz = d.reduce(v);
    std::array<S, nz> g;
    for (int i = 0; i < nz; ++i) {
      g[i] = 0.0;
      for (int j = 0; j < nz; ++j) m.K[i][j] = m.D[i][j] = 0.0;
    }
    m.sign = d.sign;
    for (int k = 0; k < 6; ++k) {
      const auto& B = d.first[k];
      const auto& H = d.second[k];
      S rate = 0.0;
      for (int j = 0; j < nz; ++j) rate += B[j] * vz[j];
      const S w = s.length * (s.stiffness[k] * (d.eps[k] - s.reference[k]) + s.damping[k] * rate);
      const S c = s.length * s.stiffness[k], dk = s.length * s.damping[k];
      // The curvatures do not depend on d: their B and H vanish in the first three rows and columns.
      const int first = k < 3 ? 0 : 3;
      std::array<S, nz> row;  // c B + dk H P v (H symmetric: accumulated by rows)
      for (int j = 0; j < nz; ++j) row[j] = c * B[j];
      // Without damping (dk zero, and along the direction too) the damping terms vanish.
      const bool damped = dk != 0.0 || has_derivative(dk);
      if (damped)
        for (int l = first; l < nz; ++l) {
          const S vl = dk * vz[l];
          for (int j = 0; j < nz; ++j) row[j] += vl * H[l][j];
        }
      for (int i = first; i < nz; ++i) {
        g[i] += B[i] * w;
        const S bi = B[i];
        for (int j = first; j < nz; ++j) m.K[i][j] += H[i][j] * w + bi * row[j];
      }
      if (damped)
        for (int i = first; i < nz; ++i) {
          const S bi = dk * B[i];
          for (int j = first; j < nz; ++j) m.D[i][j] += bi * B[j];
        }
    }
    for (int i = 0; i < n; ++i) m.r[i] = d.factor(i) * g[kBeamReducedIndex[i]];
    add_weight(p, m.r.data());
  }

  // Whether a value carries a nonzero derivative (always false for double).
  template <class S> static bool has_derivative(const S& x) {
    if constexpr (std::is_same_v<S, double>) {
      (void)x;
      return false;
    } else {
      for (int i = 0; i < x.size(); ++i)
        if (x.fastAccessDx(i) != 0.0) return true;
      return false;
    }
  }

  // The lumped inertia terms and their Jacobians by hand (node_inertia_derivatives.hpp): the node mass and each
  // node's rotational residual and Jacobians (Euler-parameter rows and columns).
  template <class S> struct InertiaDerivatives {
    S mass;
    std::array<NodeRotaryDerivatives<S>, 2> node;
  };
  template <class S> static InertiaDerivatives<S> inertia_derivatives(const S* q, const S* v, const S* a, const S* p) {
    const Vec3<S> rotary = node_rotary_inertia(p);
    InertiaDerivatives<S> d;
    d.mass = 0.5 * p[kRho] * p[kArea] * p[kLength];
    for (int node = 0; node < 2; ++node)
      node_rotary_derivatives(q + 7 * node + 3, v + 7 * node + 3, a + 7 * node + 3, rotary.data(), d.node[node]);
    return d;
  }

  // r and the three Jacobians dr/dq, dr/dv, dr/da (n x n row-major), all by hand.
  template <class S>
  static void jacobians_by_hand(const S* q, const S* v, const S* a, const S* p, S* r, S* dr_dq, S* dr_dv, S* dr_da) {
    constexpr int n = kBeamCoordinates;
    AppliedMatrices<S> m;
    applied_matrices(q, v, p, m);
    for (int i = 0; i < n; ++i) r[i] = m.r[i];
    m.spread(1.0, 0.0, dr_dq);
    m.spread(0.0, 1.0, dr_dv);
    for (int k = 0; k < n * n; ++k) dr_da[k] = 0.0;
    const InertiaDerivatives<S> in = inertia_derivatives(q, v, a, p);
    for (int node = 0; node < 2; ++node) {
      const int o = 7 * node;
      for (int i = 0; i < 3; ++i) {
        r[o + i] += in.mass * a[o + i];
        dr_da[(o + i) * n + o + i] = in.mass;
      }
      const NodeRotaryDerivatives<S>& d = in.node[node];
      for (int i = 0; i < 4; ++i) {
        r[o + 3 + i] += d.r[i];
        for (int j = 0; j < 4; ++j) {
          const int k = (o + 3 + i) * n + o + 3 + j;
          dr_dq[k] += d.dq[i][j];
          dr_dv[k] += d.dv[i][j];
          dr_da[k] = d.da[i][j];
        }
      }
    }
  }

  // partials[k] = mu . dr/dp_k for every k, from the strains' first derivatives at L = 1 (beam_parameter_partials.hpp).
  template <class S>
  static void parameter_partials_by_hand(const S* q, const S* v, const S* a, const S* p, const double* mu,
                                         std::array<S, kParameterCount>& partials) {
    BeamStrainDerivatives<S> unit;
    beam_strain_derivatives<false>(q, S(1.0), unit);
    const std::array<S, kBeamReduced> vz = unit.reduce(v);
    const std::array<double, kBeamReduced> muz = unit.reduce(mu);
    BeamAdjointPairing<S> pairing;
    for (int k = 0; k < 6; ++k) {
      S sum = 0.0, rate = 0.0;
      for (int j = 0; j < kBeamReduced; ++j) {
        sum += unit.first[k][j] * muz[j];
        rate += unit.first[k][j] * vz[j];
      }
      pairing.pairing[k] = sum;
      pairing.strain[k] = unit.eps[k];
      pairing.rate[k] = rate;
    }
    for (int node = 0; node < 2; ++node) {
      const int o = 7 * node;
      for (int i = 0; i < 3; ++i) {
        pairing.weight_mu[i] += mu[o + i];
        pairing.mass_mu += mu[o + i] * a[o + i];
      }
      node_rotary_parameter_sensitivity(q + o + 3, v + o + 3, a + o + 3, mu + o + 3, pairing.rotary_mu.data());
    }
    beam_parameter_partials(p, pairing, partials);
  }

  bool plain_ad_ = false;

  // Rotary inertia rho L/2 (Jr1, Jr2, Jr3) of each node, in the node frame.
  template <class P> static Vec3<P> node_rotary_inertia(const P* p) {
    const P scale = 0.5 * p[kRho] * p[kLength];
    return {scale * p[kRotary1], scale * p[kRotary2], scale * p[kRotary3]};
  }
};

}  // namespace

BeamReference beam_reference(const double* q) {
  const std::array<double, 6> eps = GeometricallyExactBeam::strains(q, 1.0);
  const double length =
      std::sqrt((q[7] - q[0]) * (q[7] - q[0]) + (q[8] - q[1]) * (q[8] - q[1]) + (q[9] - q[2]) * (q[9] - q[2]));
  // strains() divides by the length given (1 here): rescale to the true length.
  BeamReference reference;
  reference.length = length;
  for (int i = 0; i < 3; ++i) {
    reference.stretch[i] = eps[i] / length;
    reference.curvature[i] = eps[3 + i] / length;
  }
  return reference;
}

std::array<double, 6> beam_strains(const double* q, const BeamReference& reference) {
  std::array<double, 6> eps = GeometricallyExactBeam::strains(q, reference.length);
  for (int i = 0; i < 3; ++i) {
    eps[i] -= reference.stretch[i];
    eps[3 + i] -= reference.curvature[i];
  }
  return eps;
}

std::unique_ptr<model::ForceElement> make_geometrically_exact_beam(const std::string& name, std::array<int, 2> nodes,
                                                                   const BeamSectionData& section,
                                                                   const BeamReference& reference,
                                                                   const Point& gravity) {
  return std::make_unique<GeometricallyExactBeam>(name, nodes, section, reference, gravity);
}

std::unique_ptr<model::ForceElement> make_geometrically_exact_beam_plain_ad(const std::string& name,
                                                                            std::array<int, 2> nodes,
                                                                            const BeamSectionData& section,
                                                                            const BeamReference& reference,
                                                                            const Point& gravity) {
  auto beam = std::make_unique<GeometricallyExactBeam>(name, nodes, section, reference, gravity);
  beam->use_plain_ad();
  return beam;
}

}  // namespace flexadj::elements
