// Inertia and weight of a body.
// Spatial rigid body with Euler parameters: projecting the Newton-Euler equations
// J alpha' + w' x J w' = n' with w' = 2 G e_dot, alpha' = 2 G e_ddot onto the Euler parameters by 2 G^T
// (Nikravesh 1988, eqs. (11.20)-(11.24)) gives  2 G^T (J alpha' + w' x J w') - 2 G^T n' = 0; the mass
// matrix 4 G^T J G is singular along e and is completed by the UnitQuaternion constraint.
// Point masses and planar rigid bodies have a constant mass matrix: their residual M a - m g, its Jacobians and
// parameter partials, and their discrete momenta with theirs, are written out; spatial rigid bodies take the AD pass
// over evaluate() and kinetic() (as do the tangent and second-order passes of every body).
#include <algorithm>
#include "flexadj/elements/elements.hpp"
#include "flexadj/model/component_ad.hpp"
#include "flexadj/model/force_batch.hpp"

namespace flexadj::elements {
namespace {

using model::Vec3;

// N: the capacity of the kernel's AD types: 2 for planar point masses, 3 for spatial point masses and planar rigid
// bodies, 7 for spatial rigid bodies. The rotational terms are compiled only where they fit.
template <int N>
class BodyInertia final : public model::ForceElementAD<BodyInertia<N>, N>, public model::BatchedForceElement {
  using Base = model::ForceElementAD<BodyInertia<N>, N>;
  using Base::add_parameter, Base::kinds, Base::parameters;

 public:
  enum : int { kMass, kIxx, kIyy, kIzz, kIxy, kIxz, kIyz, kGx, kGy, kGz };

  BodyInertia(const model::Body& body, int index, const Point& gravity)
      : Base(body.name, {index}, {body.kind}) {
    add_parameter("mass", body.mass);
    const char* names[6] = {"inertia_xx", "inertia_yy", "inertia_zz", "inertia_xy", "inertia_xz", "inertia_yz"};
    for (int i = 0; i < 6; ++i) add_parameter(names[i], body.inertia[i]);
    add_parameter("gravity_x", gravity[0]);
    add_parameter("gravity_y", gravity[1]);
    add_parameter("gravity_z", gravity[2]);
    written_out_ = body.kind == BodyKind::PointMass2D || body.kind == BodyKind::PointMass3D ||
                   body.kind == BodyKind::PlanarRigid;
    translations_ = model::translation_count(body.kind);
  }
  // Every derivative by the AD pass over evaluate() (the reference of the written-out ones, for tests).
  void use_plain_ad() { written_out_ = false; }

  void residual_jacobian(const double* q, const double* v, const double* a, double t,
                         const model::JacobianCoefficients& c, double* r, double* J) const override {
    if (!written_out_) return Base::residual_jacobian(q, v, a, t, c, r, J);
    const int n = this->coordinate_count();
    std::fill(J, J + n * n, 0.0);
    for (int i = 0; i < n; ++i) {
      r[i] = diagonal_mass(i) * a[i] - weight(i);
      J[i * n + i] = c.a * diagonal_mass(i);
    }
  }

  // Bodies of the same kind with the written-out path.
  bool batches_with(const model::ForceElement& other) const override {
    const auto* body = dynamic_cast<const BodyInertia*>(&other);
    return body != nullptr && written_out_ && body->written_out_ && body->kinds()[0] == kinds()[0];
  }

  // residual_jacobian() lane by lane.
  void batch_residual_jacobian(const model::ForceBatch& batch, const model::JacobianCoefficients& c, double* r,
                               double* J) const override {
    batch_residual_and_mass(batch, c.a, r, J);
  }

  // residual_jacobians() lane by lane.
  void batch_residual_jacobians(const model::ForceBatch& batch, double* r, double* dr_dq, double* dr_dv,
                                double* dr_da) const override {
    const int n = this->coordinate_count();
    for (double* J : {dr_dq, dr_dv}) std::fill(J, J + n * n * model::kBatchLanes, 0.0);
    batch_residual_and_mass(batch, 1.0, r, dr_da);
  }

  void residual_jacobians(const double* q, const double* v, const double* a, double t, double* r, double* dr_dq,
                          double* dr_dv, double* dr_da) const override {
    if (!written_out_) return Base::residual_jacobians(q, v, a, t, r, dr_dq, dr_dv, dr_da);
    const int n = this->coordinate_count();
    for (double* J : {dr_dq, dr_dv, dr_da}) std::fill(J, J + n * n, 0.0);
    for (int i = 0; i < n; ++i) {
      r[i] = diagonal_mass(i) * a[i] - weight(i);
      dr_da[i * n + i] = diagonal_mass(i);
    }
  }

  void add_transposed_products(const double* q, const double* v, const double* a, double t, const double* mu,
                               double* out_q, double* out_v, double* out_a) const override {
    if (!written_out_) return Base::add_transposed_products(q, v, a, t, mu, out_q, out_v, out_a);
    for (int i = 0; i < this->coordinate_count(); ++i) out_a[i] += diagonal_mass(i) * mu[i];
  }

  void add_parameter_gradient(const double* q, const double* v, const double* a, double t, const double* mu,
                              double* gradient, model::ParameterMask wanted = model::kAllParameters) const override {
    if (!written_out_) return Base::add_parameter_gradient(q, v, a, t, mu, gradient, wanted);
    const double* p = parameters().data();
    double d_mass = 0.0;
    for (int i = 0; i < translations_; ++i) {
      d_mass += mu[i] * (a[i] - p[kGx + i]);
      if ((wanted >> (kGx + i)) & 1u) gradient[kGx + i] -= p[kMass] * mu[i];
    }
    if ((wanted >> kMass) & 1u) gradient[kMass] += d_mass;
    if (translations_ < this->coordinate_count() && ((wanted >> kIzz) & 1u)) gradient[kIzz] += mu[2] * a[2];
  }
  const char* type() const override { return "body"; }

  // The discrete momenta of the written-out bodies (component.hpp): T_q = 0, T_v = M v and f = m g, so
  // minus = (h/2) m g - M v_mid, plus = (h/2) m g + M v_mid (Marsden and West 2001, sec. 3.2), and
  // d(minus)/dq_{n+1} = -M/h, d(plus)/dq_{n+1} = M/h.
  void discrete_momenta(const double* q_mid, const double* v_mid, double t_mid, double h, double* minus, double* plus,
                        double* jacobian, double* plus_jacobian) const override {
    if (!written_out_) return Base::discrete_momenta(q_mid, v_mid, t_mid, h, minus, plus, jacobian, plus_jacobian);
    const int n = this->coordinate_count();
    for (int i = 0; i < n; ++i) {
      const double forces = 0.5 * h * weight(i), momentum = diagonal_mass(i) * v_mid[i];
      minus[i] = forces - momentum;
      plus[i] = forces + momentum;
    }
    if (jacobian == nullptr) return;
    std::fill(jacobian, jacobian + n * n, 0.0);
    if (plus_jacobian) std::fill(plus_jacobian, plus_jacobian + n * n, 0.0);
    for (int i = 0; i < n; ++i) {
      jacobian[i * n + i] = -diagonal_mass(i) / h;
      if (plus_jacobian) plus_jacobian[i * n + i] = diagonal_mass(i) / h;
    }
  }

  // mu_minus . minus + mu_plus . plus = (h/2) (mu_minus + mu_plus) . m g + (mu_plus - mu_minus) . M v_mid.
  void add_discrete_momenta_transposed_products(const double* q_mid, const double* v_mid, double t_mid, double h,
                                                const double* mu_minus, const double* mu_plus, double* out_q,
                                                double* out_v) const override {
    if (!written_out_)
      return Base::add_discrete_momenta_transposed_products(q_mid, v_mid, t_mid, h, mu_minus, mu_plus, out_q, out_v);
    for (int i = 0; i < this->coordinate_count(); ++i) out_v[i] += diagonal_mass(i) * (mu_plus[i] - mu_minus[i]);
  }

  // d/dq_end = 1/2 d/dq_mid -+ 1/h d/dv_mid (h = 0: d/dq, zero for a constant M).
  void add_discrete_momenta_transposed_product_at_end(const double* q_mid, const double* v_mid, double t_mid, double h,
                                                      const double* mu_minus, const double* mu_plus, bool second,
                                                      double* out) const override {
    if (!written_out_)
      return Base::add_discrete_momenta_transposed_product_at_end(q_mid, v_mid, t_mid, h, mu_minus, mu_plus, second,
                                                                  out);
    if (h == 0.0) return;
    const double v_seed = (second ? 1.0 : -1.0) / h;
    for (int i = 0; i < this->coordinate_count(); ++i)
      out[i] += diagonal_mass(i) * (mu_plus[i] - mu_minus[i]) * v_seed;
  }

  // The pairing above is linear in m, Izz and g.
  void add_discrete_momenta_parameter_gradient(const double* q_mid, const double* v_mid, double t_mid, double h,
                                               const double* mu_minus, const double* mu_plus,
                                               double* gradient) const override {
    if (!written_out_)
      return Base::add_discrete_momenta_parameter_gradient(q_mid, v_mid, t_mid, h, mu_minus, mu_plus, gradient);
    const double* p = parameters().data();
    double d_mass = 0.0;
    for (int i = 0; i < translations_; ++i) {
      const double force_weight = 0.5 * h * (mu_minus[i] + mu_plus[i]);
      d_mass += force_weight * p[kGx + i] + (mu_plus[i] - mu_minus[i]) * v_mid[i];
      gradient[kGx + i] += force_weight * p[kMass];
    }
    gradient[kMass] += d_mass;
    if (translations_ < this->coordinate_count()) gradient[kIzz] += (mu_plus[2] - mu_minus[2]) * v_mid[2];
  }

  template <class S, class P> void evaluate(const S* q, const S* v, const S* a, const P* p, double t, S* r) const {
    const BodyKind kind = kinds()[0];
    const int translations = std::min(model::translation_count(kind), N);
    for (int i = 0; i < translations; ++i) r[i] += p[kMass] * a[i];
    if constexpr (N >= 3)
      if (kind == BodyKind::PlanarRigid) r[2] += p[kIzz] * a[2];
    if constexpr (N >= 7)
      if (kind == BodyKind::SpatialRigid) {
        const Vec3<S> w = model::body_angular_velocity(q + 3, v + 3);
        const Vec3<S> alpha = model::body_angular_velocity(q + 3, a + 3);
        const Vec3<S> moment = add(inertia_times(p, alpha), model::cross(w, inertia_times(p, w)));
        const auto Qe = model::euler_parameter_map_transposed(q + 3, moment);
        for (int i = 0; i < 4; ++i) r[3 + i] += 2.0 * Qe[i];
      }
    applied(q, v, p, t, r);
  }

  // Weight.
  template <class S, class P> void applied(const S*, const S*, const P* p, double, S* r) const {
    for (int i = 0; i < std::min(model::translation_count(kinds()[0]), N); ++i) r[i] -= p[kMass] * p[kGx + i];
  }

  // T = m/2 |v|^2 + 1/2 w'.J w', w' = 2 G(e) e_dot (also for |e| != 1, e.g. the midpoint of two unit quaternions).
  template <class S, class P> S kinetic(const S* q, const S* v, const P* p) const {
    const BodyKind kind = kinds()[0];
    S energy = 0.0;
    for (int i = 0; i < std::min(model::translation_count(kind), N); ++i) energy += 0.5 * p[kMass] * v[i] * v[i];
    if constexpr (N >= 3)
      if (kind == BodyKind::PlanarRigid) energy += 0.5 * p[kIzz] * v[2] * v[2];
    if constexpr (N >= 7)
      if (kind == BodyKind::SpatialRigid) {
        const Vec3<S> w = model::body_angular_velocity(q + 3, v + 3);
        energy += 0.5 * model::dot(w, inertia_times(p, w));
      }
    return energy;
  }

  double potential_energy(const double* q, double) const override {
    const double* p = parameters().data();
    double energy = 0.0;
    for (int i = 0; i < model::translation_count(kinds()[0]); ++i) energy -= p[kMass] * p[kGx + i] * q[i];
    return energy;
  }

 private:
  // The written-out bodies' M (diagonal) and weight m g, by coordinate (a planar rigid body's third: its rotation).
  double diagonal_mass(int i) const { return i < translations_ ? parameters()[kMass] : parameters()[kIzz]; }
  double weight(int i) const { return i < translations_ ? parameters()[kMass] * parameters()[kGx + i] : 0.0; }

  // r = M a - m g and J = factor M (diagonal) lane by lane.
  void batch_residual_and_mass(const model::ForceBatch& batch, double factor, double* r, double* J) const {
    constexpr int L = model::kBatchLanes;
    const int n = this->coordinate_count();
    std::fill(J, J + n * n * L, 0.0);
    BatchParameters p(batch);
    for (int i = 0; i < n; ++i) {
      const bool translation = i < translations_;
      double* out = J + (i * n + i) * L;
      for (int l = 0; l < L; ++l) {
        const double diagonal = translation ? p.mass[l] : p.rotary[l];
        const double weight = translation ? p.mass[l] * p.gravity[i][l] : 0.0;
        r[i * L + l] = diagonal * batch.a[i * L + l] - weight;
        out[l] = factor * diagonal;
      }
    }
  }

  // The lanes' mass, rotary inertia (Izz) and gravity.
  struct BatchParameters {
    explicit BatchParameters(const model::ForceBatch& batch) {
      for (int l = 0; l < model::kBatchLanes; ++l) {
        const double* p = static_cast<const BodyInertia*>(batch.elements[l])->parameters().data();
        mass[l] = p[kMass];
        rotary[l] = p[kIzz];
        for (int i = 0; i < 3; ++i) gravity[i][l] = p[kGx + i];
      }
    }
    double mass[model::kBatchLanes], rotary[model::kBatchLanes], gravity[3][model::kBatchLanes];
  };

  // Kept here rather than read from kinds(): in the assembly loop over many bodies that separate allocation is a
  // cache miss per body (perf annotate: most of this kernel's time at 10^4 point masses).
  int translations_ = 0;
  bool written_out_ = false;

  template <class S, class P> static Vec3<S> inertia_times(const P* p, const Vec3<S>& x) {
    return {p[kIxx] * x[0] + p[kIxy] * x[1] + p[kIxz] * x[2], p[kIxy] * x[0] + p[kIyy] * x[1] + p[kIyz] * x[2],
            p[kIxz] * x[0] + p[kIyz] * x[1] + p[kIzz] * x[2]};
  }
  template <class S> static Vec3<S> add(const Vec3<S>& x, const Vec3<S>& y) { return model::add(x, y); }
};

}  // namespace

std::unique_ptr<model::ForceElement> make_body_inertia(const model::Body& body, int body_index, const Point& gravity) {
  return model::make_with_capacity<2, 3, 7>(model::coordinate_count(body.kind),
                                         [&](auto capacity) -> std::unique_ptr<model::ForceElement> {
                                           return std::make_unique<BodyInertia<decltype(capacity)::value>>(
                                               body, body_index, gravity);
                                         });
}

std::unique_ptr<model::ForceElement> make_body_inertia_plain_ad(const model::Body& body, int body_index,
                                                                const Point& gravity) {
  return model::make_with_capacity<2, 3, 7>(model::coordinate_count(body.kind),
                                         [&](auto capacity) -> std::unique_ptr<model::ForceElement> {
                                           auto element = std::make_unique<BodyInertia<decltype(capacity)::value>>(
                                               body, body_index, gravity);
                                           element->use_plain_ad();
                                           return element;
                                         });
}

}  // namespace flexadj::elements
