#include "flexadj/integrators/joint_space_equations.hpp"

#include <Sacado_No_Kokkos.hpp>
#include <Teuchos_LAPACK.hpp>

#include <algorithm>
#include <string>

#include "flexadj/core/error.hpp"

namespace flexadj::integrators {
namespace {
// Nested forward types of directional_gradient: First carries g'[y] (epsilon_1), Second g'[z] and g''[y, z]
// (epsilon_2), Outer the gradient over a chunk of alpha and parameter directions (static storage: no allocation).
constexpr int kChunk = 16;
using First = Sacado::Fad::SFad<double, 1>;
using Second = Sacado::Fad::SFad<First, 1>;
using Outer = Sacado::Fad::SLFad<Second, kChunk>;
using Plain = Sacado::Fad::SLFad<double, kChunk>;

Second seeded(double x, double y, double z) {
  First value(1, x);
  value.fastAccessDx(0) = y;
  Second s(1, value);
  s.fastAccessDx(0) = First(z);
  return s;
}
double part(const Second& s, bool dy, bool dz) {
  const First& f = dz ? s.fastAccessDx(0) : s.val();
  return dy ? f.fastAccessDx(0) : f.val();
}
}  // namespace

std::unique_ptr<model::JointTree> make_joint_tree(const assembly::Assembler& assembler, const std::string& key) {
  const model::Model& model = assembler.model();
  if (assembler.comm()->getSize() > 1)
    throw InputError(model.source_file, key,
                     "the joint-coordinate formulation is dense and serial: it runs on one rank, this run has " +
                         std::to_string(assembler.comm()->getSize()) + "; run it without mpirun, or use coordinates: "
                         "absolute");
  const auto& owned = assembler.dofs().owned_coordinates();
  std::vector<int> local(std::size_t(model.coordinate_count()), -1);
  for (std::size_t i = 0; i < owned.size(); ++i) local.at(std::size_t(owned[i])) = static_cast<int>(i);
  return std::make_unique<model::JointTree>(model, local);
}

JointSpaceEquations::JointSpaceEquations(assembly::Assembler& assembler, const model::JointTree& tree)
    : assembler_(assembler), tree_(tree), forces_(assembler), n_(tree.coordinate_count()), k_(tree.size()),
      work_(assembler.make_state()) {
  for (auto* v : {&zero_n_, &weighted_, &w1_, &w2_, &a_, &b_, &w_, &c_, &mw_, &column_})
    v->assign(std::size_t(n_), 0.0);
  for (auto* v : {&s_, &hb_, &k_work_, &k_work2_}) v->assign(std::size_t(k_), 0.0);
  h_work_.assign(std::size_t(n_ * k_), 0.0);
}

JointSpaceEquations::Point JointSpaceEquations::make_point() const {
  Point e;
  const auto k = std::size_t(k_), n = std::size_t(n_);
  for (auto* v : {&e.alpha, &e.p_hat, &e.beta, &e.rate}) v->assign(k, 0.0);
  e.jacobian.assign(n * k, 0.0);
  e.mass_lu.assign(k * k, 0.0);
  e.pivots.assign(k, 0);
  e.force.assign(n, 0.0);
  e.momentum.assign(n, 0.0);
  e.state = assembler_.make_state();
  return e;
}

void JointSpaceEquations::wanted_parameters(const assembly::LocalGradient& gradient) {
  wanted_.clear();
  for (const auto& link : tree_.links()) {
    if (link.constraint < 0) continue;
    const int offset = gradient.constraint_offsets.at(std::size_t(link.constraint));
    if (offset < 0) continue;
    const model::ParameterMask mask = gradient.constraint_masks.at(std::size_t(link.constraint));
    const auto count = assembler_.model().constraints()[std::size_t(link.constraint)]->parameters().size();
    for (std::size_t p = 0; p < count && p < 32; ++p)
      if (mask & (model::ParameterMask(1) << p))
        wanted_.emplace_back(link.first_parameter + int(p), offset + int(p));
  }
}

void JointSpaceEquations::directional_gradient(const std::vector<double>& alpha, const double* y, const double* z,
                                               const double* c0, const double* c1, const double* c2,
                                               const double* c12, double* alpha_grad,
                                               assembly::LocalGradient* gradient, double weight) {
  thread_local std::vector<Outer> alpha_s, parameters_s, q_s;
  const std::vector<double>& parameters = tree_.parameters();
  alpha_s.resize(std::size_t(k_));
  parameters_s.resize(parameters.size());
  q_s.resize(std::size_t(n_));
  if (weight == 0.0) gradient = nullptr;
  if (gradient) wanted_parameters(*gradient);
  const int directions = k_ + (gradient ? int(wanted_.size()) : 0);
  for (int start = 0; start < directions; start += kChunk) {
    const int length = std::min(kChunk, directions - start);
    for (int i = 0; i < k_; ++i) {
      alpha_s[std::size_t(i)] = Outer(length, seeded(alpha[std::size_t(i)], y ? y[i] : 0.0, z ? z[i] : 0.0));
      if (i >= start && i < start + length) alpha_s[std::size_t(i)].fastAccessDx(i - start) = Second(1.0);
    }
    for (std::size_t j = 0; j < parameters.size(); ++j) parameters_s[j] = Outer(length, Second(parameters[j]));
    for (int d = std::max(start, k_); d < start + length; ++d)
      parameters_s[std::size_t(wanted_[std::size_t(d - k_)].first)].fastAccessDx(d - start) = Second(1.0);
    tree_.positions(alpha_s.data(), parameters_s.data(), q_s.data());
    for (int d = start; d < start + length; ++d) {
      double sum = 0.0;
      for (int i = 0; i < n_; ++i) {
        const Second& dq = q_s[std::size_t(i)].fastAccessDx(d - start);
        if (c0) sum += c0[i] * part(dq, false, false);
        if (c1) sum += c1[i] * part(dq, true, false);
        if (c2) sum += c2[i] * part(dq, false, true);
        if (c12) sum += c12[i] * part(dq, true, true);
      }
      if (d < k_) {
        if (alpha_grad) alpha_grad[d] += sum;
      } else {
        gradient->parameters[std::size_t(wanted_[std::size_t(d - k_)].second)] += weight * sum;
      }
    }
  }
}

void JointSpaceEquations::directional_values(const std::vector<double>& alpha, const double* y, const double* z,
                                             double* first, double* second) {
  thread_local std::vector<Second> alpha_s, parameters_s, q_s;
  const std::vector<double>& parameters = tree_.parameters();
  alpha_s.resize(std::size_t(k_));
  parameters_s.assign(parameters.begin(), parameters.end());
  q_s.resize(std::size_t(n_));
  for (int i = 0; i < k_; ++i) alpha_s[std::size_t(i)] = seeded(alpha[std::size_t(i)], y[i], z[i]);
  tree_.positions(alpha_s.data(), parameters_s.data(), q_s.data());
  for (int i = 0; i < n_; ++i) {
    if (first) first[i] = part(q_s[std::size_t(i)], true, false);
    if (second) second[i] = part(q_s[std::size_t(i)], true, true);
  }
}

void JointSpaceEquations::jacobian(const std::vector<double>& alpha, std::vector<double>& h) {
  thread_local std::vector<Plain> alpha_s, parameters_s, q_s;
  const std::vector<double>& parameters = tree_.parameters();
  alpha_s.resize(std::size_t(k_));
  q_s.resize(std::size_t(n_));
  for (int start = 0; start < k_; start += kChunk) {
    const int length = std::min(kChunk, k_ - start);
    for (int i = 0; i < k_; ++i) {
      alpha_s[std::size_t(i)] = Plain(length, alpha[std::size_t(i)]);
      if (i >= start && i < start + length) alpha_s[std::size_t(i)].fastAccessDx(i - start) = 1.0;
    }
    parameters_s.assign(parameters.size(), Plain(length, 0.0));
    for (std::size_t j = 0; j < parameters.size(); ++j) parameters_s[j] = Plain(length, parameters[j]);
    tree_.positions(alpha_s.data(), parameters_s.data(), q_s.data());
    for (int d = start; d < start + length; ++d)
      for (int i = 0; i < n_; ++i) h[std::size_t(i + n_ * d)] = q_s[std::size_t(i)].fastAccessDx(d - start);
  }
}

void JointSpaceEquations::times_jacobian(const Point& e, const std::vector<double>& x, std::vector<double>& out) const {
  for (int i = 0; i < n_; ++i) {
    double sum = 0.0;
    for (int j = 0; j < k_; ++j) sum += e.jacobian[std::size_t(i + n_ * j)] * x[std::size_t(j)];
    out[std::size_t(i)] = sum;
  }
}

void JointSpaceEquations::jacobian_transpose_times(const Point& e, const std::vector<double>& x,
                                                   std::vector<double>& out) const {
  for (int j = 0; j < k_; ++j) {
    double sum = 0.0;
    for (int i = 0; i < n_; ++i) sum += e.jacobian[std::size_t(i + n_ * j)] * x[std::size_t(i)];
    out[std::size_t(j)] = sum;
  }
}

void JointSpaceEquations::mass_solve(const Point& e, std::vector<double>& x) const {
  if (k_ == 0) return;
  Teuchos::LAPACK<int, double> lapack;
  int info = 0;
  lapack.GETRS('N', k_, 1, e.mass_lu.data(), k_, e.pivots.data(), x.data(), k_, &info);
}

void JointSpaceEquations::momentum_products(const Point& e, const std::vector<double>& s) {
  times_jacobian(e, s, w_);
  std::fill(c_.begin(), c_.end(), 0.0);
  std::fill(mw_.begin(), mw_.end(), 0.0);
  forces_.add_discrete_momenta_transposed(e.state.q, e.state.v, e.t, 0.0, zero_n_, w_, c_, mw_);
}

void JointSpaceEquations::evaluate(Point& e) {
  const auto n = std::size_t(n_), k = std::size_t(k_);
  tree_.positions(e.alpha.data(), tree_.parameters().data(), e.state.q.data());
  jacobian(e.alpha, e.jacobian);
  // M_hat = H^T M H, column j from M h_j = T_v(q, h_j) (T_v is linear in v).
  work_.q = e.state.q;
  for (std::size_t j = 0; j < k; ++j) {
    std::copy(e.jacobian.begin() + long(n * j), e.jacobian.begin() + long(n * (j + 1)), work_.v.begin());
    forces_.momentum(work_, e.t, column_);
    for (std::size_t i = 0; i < k; ++i) {
      double sum = 0.0;
      for (std::size_t r = 0; r < n; ++r) sum += e.jacobian[r + n * i] * column_[r];
      e.mass_lu[i + k * j] = sum;
    }
  }
  if (k_ > 0) {
    Teuchos::LAPACK<int, double> lapack;
    int info = 0;
    lapack.GETRF(k_, k_, e.mass_lu.data(), k_, e.pivots.data(), &info);
    if (info != 0)
      throw SolverError("joint-space mass matrix H^T M H is singular at t = " + std::to_string(e.t) +
                        " (a singular configuration of the joint coordinates, or a joint coordinate that moves no "
                        "mass)");
  }
  e.beta = e.p_hat;
  mass_solve(e, e.beta);
  times_jacobian(e, e.beta, e.state.v);
  forces_.force(e.state, e.t, e.force);
  forces_.momentum(e.state, e.t, e.momentum);
  std::fill(e.rate.begin(), e.rate.end(), 0.0);
  directional_gradient(e.alpha, e.beta.data(), nullptr, e.force.data(), e.momentum.data(), nullptr, nullptr,
                       e.rate.data(), nullptr);
}

void JointSpaceEquations::joint_state(const assembly::State& s, double t, std::vector<double>& alpha,
                                      std::vector<double>& p_hat) {
  tree_.joint_coordinates(s.q.data(), tree_.parameters().data(), alpha.data());
  jacobian(alpha, h_work_);
  forces_.momentum(s, t, column_);
  for (int j = 0; j < k_; ++j) {
    double sum = 0.0;
    for (int i = 0; i < n_; ++i) sum += h_work_[std::size_t(i + n_ * j)] * column_[std::size_t(i)];
    p_hat[std::size_t(j)] = sum;
  }
}

void JointSpaceEquations::rate_transposed(const Point& e, const std::vector<double>& mu, const std::vector<double>& nu,
                                          std::vector<double>& alpha_bar, std::vector<double>& p_bar,
                                          assembly::LocalGradient& gradient, double weight) {
  const std::vector<double>&q = e.state.q, &v = e.state.v;
  // nu . F_hat = Q . w1 + P . w2, w1 = H nu, w2 = g''[beta, nu]; a, b its absolute partials.
  times_jacobian(e, nu, w1_);
  directional_values(e.alpha, e.beta.data(), nu.data(), nullptr, w2_.data());
  std::fill(a_.begin(), a_.end(), 0.0);
  std::fill(b_.begin(), b_.end(), 0.0);
  forces_.add_force_transposed(q, v, e.t, w1_, a_, b_);
  forces_.add_discrete_momenta_transposed(q, v, e.t, 0.0, zero_n_, w2_, a_, b_);
  if (weight != 0.0) {
    for (int i = 0; i < n_; ++i) weighted_[std::size_t(i)] = weight * w1_[std::size_t(i)];
    forces_.add_force_parameter_gradient(q, v, e.t, weighted_, gradient);
  }
  // d(nu . F_hat)/dalpha at beta held.
  std::fill(alpha_bar.begin(), alpha_bar.end(), 0.0);
  directional_gradient(e.alpha, e.beta.data(), nu.data(), a_.data(), b_.data(), e.force.data(), e.momentum.data(),
                       alpha_bar.data(), &gradient, weight);
  // s = M_hat^-1 (mu + F_hat_beta^T nu), F_hat_beta^T nu = H^T b + g''[., nu]^T P.
  jacobian_transpose_times(e, b_, hb_);
  std::fill(k_work_.begin(), k_work_.end(), 0.0);
  directional_gradient(e.alpha, nu.data(), nullptr, nullptr, e.momentum.data(), nullptr, nullptr, k_work_.data(),
                       nullptr);
  for (int j = 0; j < k_; ++j) s_[std::size_t(j)] = mu[std::size_t(j)] + hb_[std::size_t(j)] + k_work_[std::size_t(j)];
  mass_solve(e, s_);
  // alpha_bar -= d(s . M_hat beta)/dalpha = d/dalpha [g'[s] . M(g) g'[beta]].
  momentum_products(e, s_);
  for (int i = 0; i < n_; ++i) {
    c_[std::size_t(i)] = -c_[std::size_t(i)];
    mw_[std::size_t(i)] = -mw_[std::size_t(i)];
    column_[std::size_t(i)] = -e.momentum[std::size_t(i)];
    w2_[std::size_t(i)] = weight * (w2_[std::size_t(i)] - w_[std::size_t(i)]);  // mass parameters: (w2 - w) . dP/dp
  }
  directional_gradient(e.alpha, e.beta.data(), s_.data(), c_.data(), mw_.data(), column_.data(), nullptr,
                       alpha_bar.data(), &gradient, weight);
  if (weight != 0.0) forces_.add_discrete_momenta_parameter_gradient(q, v, e.t, 0.0, zero_n_, w2_, gradient);
  p_bar = s_;
}

void JointSpaceEquations::absolute_state_transposed(const Point& e, const std::vector<double>& q_bar,
                                                    const std::vector<double>& v_bar, std::vector<double>& alpha_bar,
                                                    std::vector<double>& p_bar, assembly::LocalGradient& gradient,
                                                    double weight) {
  const std::vector<double>&q = e.state.q, &v = e.state.v;
  // v = H beta, M_hat beta = p_hat: s = M_hat^-1 H^T v_bar; alpha_bar = d/dalpha [q_bar . g + v_bar . g'[beta]
  // - g'[s] . M(g) g'[beta]].
  jacobian_transpose_times(e, v_bar, s_);
  mass_solve(e, s_);
  momentum_products(e, s_);
  for (int i = 0; i < n_; ++i) {
    c_[std::size_t(i)] = q_bar[std::size_t(i)] - c_[std::size_t(i)];
    mw_[std::size_t(i)] = v_bar[std::size_t(i)] - mw_[std::size_t(i)];
    column_[std::size_t(i)] = -e.momentum[std::size_t(i)];
    w1_[std::size_t(i)] = -weight * w_[std::size_t(i)];
  }
  std::fill(alpha_bar.begin(), alpha_bar.end(), 0.0);
  directional_gradient(e.alpha, e.beta.data(), s_.data(), c_.data(), mw_.data(), column_.data(), nullptr,
                       alpha_bar.data(), &gradient, weight);
  if (weight != 0.0) forces_.add_discrete_momenta_parameter_gradient(q, v, e.t, 0.0, zero_n_, w1_, gradient);
  p_bar = s_;
}

void JointSpaceEquations::joint_state_transposed(const assembly::State& s, double t, const std::vector<double>& alpha,
                                                 const std::vector<double>& alpha_bar,
                                                 const std::vector<double>& p_bar, std::vector<double>& q_bar,
                                                 std::vector<double>& v_bar, assembly::LocalGradient& gradient) {
  // p_hat = H(alpha)^T P(q, v): z = H p_bar; q_bar += P_q^T z, v_bar += M z; alpha_bar += d(P . g'[p_bar])/dalpha.
  jacobian(alpha, h_work_);
  for (int i = 0; i < n_; ++i) {
    double sum = 0.0;
    for (int j = 0; j < k_; ++j) sum += h_work_[std::size_t(i + n_ * j)] * p_bar[std::size_t(j)];
    w_[std::size_t(i)] = sum;
  }
  forces_.add_discrete_momenta_transposed(s.q, s.v, t, 0.0, zero_n_, w_, q_bar, v_bar);
  forces_.add_discrete_momenta_parameter_gradient(s.q, s.v, t, 0.0, zero_n_, w_, gradient);
  forces_.momentum(s, t, column_);
  k_work2_ = alpha_bar;
  directional_gradient(alpha, p_bar.data(), nullptr, nullptr, column_.data(), nullptr, nullptr, k_work2_.data(),
                       &gradient);
  // alpha = g^-1(q): q_bar += (dg^-1/dq)^T alpha_bar_total, and its parameter terms.
  thread_local std::vector<Plain> q_s, parameters_s, alpha_s;
  const std::vector<double>& parameters = tree_.parameters();
  q_s.resize(std::size_t(n_));
  alpha_s.resize(std::size_t(k_));
  wanted_parameters(gradient);
  const int directions = n_ + int(wanted_.size());
  for (int start = 0; start < directions; start += kChunk) {
    const int length = std::min(kChunk, directions - start);
    for (int i = 0; i < n_; ++i) {
      q_s[std::size_t(i)] = Plain(length, s.q[std::size_t(i)]);
      if (i >= start && i < start + length) q_s[std::size_t(i)].fastAccessDx(i - start) = 1.0;
    }
    parameters_s.assign(parameters.size(), Plain(length, 0.0));
    for (std::size_t j = 0; j < parameters.size(); ++j) parameters_s[j] = Plain(length, parameters[j]);
    for (int d = std::max(start, n_); d < start + length; ++d)
      parameters_s[std::size_t(wanted_[std::size_t(d - n_)].first)].fastAccessDx(d - start) = 1.0;
    tree_.joint_coordinates(q_s.data(), parameters_s.data(), alpha_s.data());
    for (int d = start; d < start + length; ++d) {
      double sum = 0.0;
      for (int j = 0; j < k_; ++j) sum += k_work2_[std::size_t(j)] * alpha_s[std::size_t(j)].fastAccessDx(d - start);
      if (d < n_) q_bar[std::size_t(d)] += sum;
      else gradient.parameters[std::size_t(wanted_[std::size_t(d - n_)].second)] += sum;
    }
  }
}

}  // namespace flexadj::integrators
