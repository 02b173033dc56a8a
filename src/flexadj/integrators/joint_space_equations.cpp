#include "flexadj/integrators/joint_space_equations.hpp"

#include <Sacado_No_Kokkos.hpp>

#include <algorithm>
#include <array>
#include <string>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/core/error.hpp"

namespace flexadj::integrators {
namespace {
// Nested forward types: First carries g'[y] (epsilon_1), Second g'[z] and g''[y, z] (epsilon_2); Outer the
// derivatives of one link's outputs over a chunk of its inputs (static storage: no allocation).
constexpr int kChunk = 16;
using First = Sacado::Fad::SFad<double, 1>;
using Second = Sacado::Fad::SFad<First, 1>;
using Outer = Sacado::Fad::SLFad<Second, kChunk>;
using Plain = Sacado::Fad::SLFad<double, kChunk>;
const std::vector<std::pair<int, int>> kNoParameters;  // (an lvalue: `wanted` below binds without a copy)
// Local indices of a link's parent (0 ..) and child (after the parent's) coordinates: at most 7 each.
constexpr int kIota[14] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};

// The four parts of a Second, c = 0 .. 3: the value, d/dy, d/dz, d2/dydz.
double part(const Second& s, int c) {
  const First& f = (c & 2) ? s.fastAccessDx(0) : s.val();
  return (c & 1) ? f.fastAccessDx(0) : f.val();
}
// The Second of four parts.
Second from_parts(const model::Parts& p) {
  First value(1, p[0]);
  value.fastAccessDx(0) = p[1];
  First direction(1, p[2]);
  direction.fastAccessDx(0) = p[3];
  Second s(1, value);
  s.fastAccessDx(0) = direction;
  return s;
}
// The planar joints' parameters (constraints/joints.cpp: point_a .. rest_angle).
constexpr int kPlanarParameters = 16;
// The Second whose part c is 1 and the others 0.
Second unit_part(int c) {
  First one(1, (c & 1) ? 0.0 : 1.0);
  if (c & 1) one.fastAccessDx(0) = 1.0;
  Second s(1, (c & 2) ? First(1, 0.0) : one);
  s.fastAccessDx(0) = (c & 2) ? one : First(1, 0.0);
  return s;
}
}  // namespace

std::unique_ptr<model::JointTree> make_joint_tree(const assembly::Assembler& assembler, const std::string& key) {
  const model::Model& model = assembler.model();
  if (assembler.comm()->getSize() > 1)
    throw InputError(model.source_file, key,
                     "the joint-coordinate formulation is serial: it runs on one rank, this run has " +
                         std::to_string(assembler.comm()->getSize()) + "; run it without mpirun, or use coordinates: "
                         "absolute");
  const auto& owned = assembler.dofs().owned_coordinates();
  std::vector<int> local(std::size_t(model.coordinate_count()), -1);
  for (std::size_t i = 0; i < owned.size(); ++i) local.at(std::size_t(owned[i])) = static_cast<int>(i);
  return std::make_unique<model::JointTree>(model, local);
}

JointSpaceEquations::JointSpaceEquations(assembly::Assembler& assembler, const model::JointTree& tree)
    : assembler_(assembler), tree_(tree), forces_(assembler), n_(tree.coordinate_count()), k_(tree.size()),
      saddle_state_(assembler.make_state()) {
  for (auto* v : {&zero_n_, &weighted_, &w1_, &w2_, &a_, &b_, &w_, &c_, &mw_, &column_, &f_, &v_})
    v->assign(std::size_t(n_), 0.0);
  for (auto* v : {&s_, &k_work_, &k_work2_}) v->assign(std::size_t(k_), 0.0);
  adjoint_parts_.assign(4 * std::size_t(n_), 0.0);
  parts_.assign(std::size_t(n_), model::Parts{});
  alpha_parts_.assign(std::size_t(k_), model::Parts{});
  turns_.assign(tree.links().size(), model::LinkTurns{});
  body_turn_.assign(tree.links().size(), model::Turn{});  // (every body is the child of one link)
  wanted_.resize(tree.links().size());
  // A first assembly fixes the matrix values' layout before the solver reads the structure.
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  assembler_.assemble_matrix(saddle_state_, 0.0, assembly::ConstraintLevel::Velocity, mass_only);
  linalg::LinearSolverOptions options;
  options.kind = "direct";
  options.local_coordinate_rows = n_;
  solver_ = linalg::make_linear_solver(assembler_.matrix(), options);
  rhs_ = Teuchos::rcp(new Vector(assembler_.system_map()));
  solution_ = Teuchos::rcp(new Vector(assembler_.system_map()));
}

JointSpaceEquations::~JointSpaceEquations() = default;

JointSpaceEquations::Point JointSpaceEquations::make_point() const {
  Point e;
  const auto k = std::size_t(k_), n = std::size_t(n_);
  for (auto* v : {&e.alpha, &e.p_hat, &e.beta, &e.rate}) v->assign(k, 0.0);
  e.force.assign(n, 0.0);
  e.momentum.assign(n, 0.0);
  e.state = assembler_.make_state();
  return e;
}

void JointSpaceEquations::wanted_parameters(const assembly::LocalGradient& gradient) {
  const auto& links = tree_.links();
  for (std::size_t i = 0; i < links.size(); ++i) {
    const auto& link = links[i];
    wanted_[i].clear();
    if (link.constraint < 0) continue;
    const int offset = gradient.constraint_offsets.at(std::size_t(link.constraint));
    if (offset < 0) continue;
    const model::ParameterMask mask = gradient.constraint_masks.at(std::size_t(link.constraint));
    for (int p = 0; p < link.parameter_count && p < 32; ++p)
      if (mask & (model::ParameterMask(1) << p)) wanted_[i].emplace_back(p, offset + p);
  }
}

void JointSpaceEquations::forward_parts(const std::vector<double>& alpha, const double* y, const double* z) {
  for (int i = 0; i < k_; ++i)
    alpha_parts_[std::size_t(i)] = {alpha[std::size_t(i)], y ? y[i] : 0.0, z ? z[i] : 0.0, 0.0};
  const auto& links = tree_.links();
  const std::vector<double>& parameters = tree_.parameters();
  if (tree_.dimension() == 2) {
    model::Parts parent[3], child[3];
    for (std::size_t index = 0; index < links.size(); ++index) {
      const model::JointTree::Link& l = links[index];
      const int np = model::JointTree::parent_coordinates(l), nc = model::JointTree::child_coordinates(l);
      const int* parent_index = tree_.parent_index(l);
      const int* child_index = tree_.child_index(l);
      for (int j = 0; j < np; ++j) parent[j] = parts_[std::size_t(parent_index[j])];
      const model::Turn parent_turn = l.parent == model::kGround ? model::Turn{} : body_turn_[std::size_t(l.parent)];
      model::place_planar_child(l, np > 0 ? parent : nullptr, parent_turn, alpha_parts_.data() + l.first_alpha,
                                parameters.data() + l.first_parameter, child, turns_[index]);
      for (int j = 0; j < nc; ++j) parts_[std::size_t(child_index[j])] = child[j];
      body_turn_[std::size_t(l.child)] = turns_[index].child;
    }
    return;
  }
  thread_local std::vector<Second> alpha_s, parameters_s, q_s;
  alpha_s.resize(std::size_t(k_));
  parameters_s.assign(parameters.begin(), parameters.end());
  q_s.resize(std::size_t(n_));
  for (int i = 0; i < k_; ++i) alpha_s[std::size_t(i)] = from_parts(alpha_parts_[std::size_t(i)]);
  tree_.positions(alpha_s.data(), parameters_s.data(), q_s.data());
  for (int i = 0; i < n_; ++i)
    for (int c = 0; c < 4; ++c) parts_[std::size_t(i)][std::size_t(c)] = part(q_s[std::size_t(i)], c);
}

void JointSpaceEquations::directional_gradient(const std::vector<double>& alpha, const double* y, const double* z,
                                               const double* c0, const double* c1, const double* c2,
                                               const double* c12, double* alpha_grad,
                                               assembly::LocalGradient* gradient, double weight) {
  // The forward pass: every coordinate with its four parts (g, g'[y], g'[z], g''[y, z]).
  forward_parts(alpha, y, z);
  // The reverse pass: w holds dS/d(part c of coordinate i), children before parents.
  double* w = adjoint_parts_.data();
  for (int i = 0; i < n_; ++i) {
    w[4 * i] = c0 ? c0[i] : 0.0;
    w[4 * i + 1] = c1 ? c1[i] : 0.0;
    w[4 * i + 2] = c2 ? c2[i] : 0.0;
    w[4 * i + 3] = c12 ? c12[i] : 0.0;
  }
  if (weight == 0.0) gradient = nullptr;
  if (gradient) wanted_parameters(*gradient);
  const auto& links = tree_.links();
  const std::vector<double>& parameters = tree_.parameters();
  for (std::size_t index = links.size(); index-- > 0;) {
    const model::JointTree::Link& l = links[index];
    const int np = model::JointTree::parent_coordinates(l), nc = model::JointTree::child_coordinates(l);
    const int* parent = tree_.parent_index(l);
    const int* child = tree_.child_index(l);
    bool any = false;  // a child coordinate S depends on
    for (int i = 0; i < nc && !any; ++i)
      for (int c = 0; c < 4; ++c) any = any || w[4 * child[i] + c] != 0.0;
    if (!any) continue;
    if (!model::has_planar_link_map(tree_.dimension(), l)) {
      link_transposed_ad(index, w, alpha_grad, gradient, weight);
      continue;
    }
    model::Parts parent_parts[3], w_child[3], parent_bar[3] = {}, alpha_bar[3] = {};
    std::array<double, kPlanarParameters> parameters_bar{};
    for (int j = 0; j < np; ++j) parent_parts[j] = parts_[std::size_t(parent[j])];
    for (int i = 0; i < nc; ++i)
      for (int c = 0; c < 4; ++c) w_child[i][std::size_t(c)] = w[4 * child[i] + c];
    model::place_planar_child_transposed(l, np > 0 ? parent_parts : nullptr, alpha_parts_.data() + l.first_alpha,
                                         parameters.data() + l.first_parameter, turns_[index], w_child, parent_bar,
                                         alpha_bar, parameters_bar.data());
    for (int j = 0; j < np; ++j)
      for (int c = 0; c < 4; ++c) w[4 * parent[j] + c] += parent_bar[j][std::size_t(c)];
    if (alpha_grad)
      for (int j = 0; j < l.alpha_count; ++j) alpha_grad[l.first_alpha + j] += alpha_bar[j][0];
    if (gradient)
      for (const auto& [p, g] : wanted_[index])
        gradient->parameters[std::size_t(g)] += weight * parameters_bar[std::size_t(p)];
  }
}

void JointSpaceEquations::link_transposed_ad(std::size_t index, double* w, double* alpha_grad,
                                             assembly::LocalGradient* gradient, double weight) {
  thread_local std::vector<Outer> local_q, local_alpha, local_parameters;
  const std::vector<double>& parameters = tree_.parameters();
  const model::JointTree::Link& l = tree_.links()[index];
  const int np = model::JointTree::parent_coordinates(l), nc = model::JointTree::child_coordinates(l);
  const int* parent = tree_.parent_index(l);
  const int* child = tree_.child_index(l);
  const auto& wanted = gradient ? wanted_[index] : kNoParameters;
  const int parent_directions = 4 * np, directions = parent_directions + l.alpha_count + int(wanted.size());
  local_q.resize(std::size_t(np + nc));
  local_alpha.resize(std::size_t(l.alpha_count));
  local_parameters.resize(std::size_t(l.parameter_count));
  for (int start = 0; start < directions; start += kChunk) {
    const int length = std::min(kChunk, directions - start);
    for (int j = 0; j < np + nc; ++j)
      local_q[std::size_t(j)] = Outer(length, j < np ? from_parts(parts_[std::size_t(parent[j])]) : Second(0.0));
    for (int j = 0; j < l.alpha_count; ++j)
      local_alpha[std::size_t(j)] = Outer(length, from_parts(alpha_parts_[std::size_t(l.first_alpha + j)]));
    for (int j = 0; j < l.parameter_count; ++j)
      local_parameters[std::size_t(j)] = Outer(length, Second(parameters[std::size_t(l.first_parameter + j)]));
    for (int d = start; d < start + length; ++d) {
      if (d < parent_directions) local_q[std::size_t(d / 4)].fastAccessDx(d - start) = unit_part(d % 4);
      else if (d < parent_directions + l.alpha_count)
        local_alpha[std::size_t(d - parent_directions)].fastAccessDx(d - start) = Second(1.0);
      else
        local_parameters[std::size_t(wanted[std::size_t(d - parent_directions - l.alpha_count)].first)]
            .fastAccessDx(d - start) = Second(1.0);
    }
    tree_.place_child(l, np > 0 ? kIota : nullptr, kIota + np, local_alpha.data(), local_parameters.data(),
                      local_q.data());
    for (int d = start; d < start + length; ++d) {
      double sum = 0.0;
      for (int i = 0; i < nc; ++i) {
        const Second& derivative = local_q[std::size_t(np + i)].fastAccessDx(d - start);
        for (int c = 0; c < 4; ++c) sum += w[4 * child[i] + c] * part(derivative, c);
      }
      if (d < parent_directions) w[4 * parent[d / 4] + d % 4] += sum;
      else if (d < parent_directions + l.alpha_count) {
        if (alpha_grad) alpha_grad[l.first_alpha + d - parent_directions] += sum;
      } else {
        gradient->parameters[std::size_t(wanted[std::size_t(d - parent_directions - l.alpha_count)].second)] +=
            weight * sum;
      }
    }
  }
}

void JointSpaceEquations::directional_values(const std::vector<double>& alpha, const double* y, const double* z,
                                             double* first, double* second) {
  forward_parts(alpha, y, z);
  for (int i = 0; i < n_; ++i) {
    if (first) first[i] = parts_[std::size_t(i)][1];
    if (second) second[i] = parts_[std::size_t(i)][3];
  }
}

void JointSpaceEquations::inverse_tangent(const std::vector<double>& q, const std::vector<double>& v,
                                          std::vector<double>& out) {
  const std::vector<double>& parameters = tree_.parameters();
  if (tree_.dimension() == 2) {
    for (std::size_t index = 0; index < tree_.links().size(); ++index) {
      const model::JointTree::Link& l = tree_.links()[index];
      if (l.alpha_count == 0) continue;
      const int count = planar_inverse_jacobian(index, q);
      for (int j = 0; j < l.alpha_count; ++j) {
        double sum = 0.0;
        for (int i = 0; i < count; ++i) sum += inverse_dq_[j][i] * v[std::size_t(inverse_index_[i])];
        out[std::size_t(l.first_alpha + j)] = sum;
      }
    }
    return;
  }
  thread_local std::vector<First> q_s, parameters_s, alpha_s;
  q_s.resize(std::size_t(n_));
  alpha_s.resize(std::size_t(k_));
  parameters_s.assign(parameters.begin(), parameters.end());
  for (int i = 0; i < n_; ++i) {
    q_s[std::size_t(i)] = First(1, q[std::size_t(i)]);
    q_s[std::size_t(i)].fastAccessDx(0) = v[std::size_t(i)];
  }
  tree_.joint_coordinates(q_s.data(), parameters_s.data(), alpha_s.data());
  for (int j = 0; j < k_; ++j) out[std::size_t(j)] = alpha_s[std::size_t(j)].fastAccessDx(0);
}

void JointSpaceEquations::inverse_transposed(const std::vector<double>& q, const std::vector<double>& a_bar,
                                             std::vector<double>& q_bar, assembly::LocalGradient* gradient) {
  thread_local std::vector<Plain> local_q, local_alpha, local_parameters;
  const std::vector<double>& parameters = tree_.parameters();
  if (gradient) wanted_parameters(*gradient);
  const auto& links = tree_.links();
  if (tree_.dimension() == 2) {
    for (std::size_t index = 0; index < links.size(); ++index) {
      const model::JointTree::Link& l = links[index];
      if (l.alpha_count == 0) continue;
      const int count = planar_inverse_jacobian(index, q);
      const double* weights = a_bar.data() + l.first_alpha;
      for (int i = 0; i < count; ++i) {
        double sum = 0.0;
        for (int j = 0; j < l.alpha_count; ++j) sum += weights[j] * inverse_dq_[j][i];
        q_bar[std::size_t(inverse_index_[i])] += sum;
      }
      if (gradient)
        for (const auto& [p, g] : wanted_[index]) {
          double sum = 0.0;
          for (int j = 0; j < l.alpha_count; ++j) sum += weights[j] * inverse_dp_[j][p];
          gradient->parameters[std::size_t(g)] += sum;
        }
    }
    return;
  }
  for (std::size_t index = 0; index < links.size(); ++index) {
    const model::JointTree::Link& l = links[index];
    if (l.alpha_count == 0) continue;
    const int np = model::JointTree::parent_coordinates(l), nc = model::JointTree::child_coordinates(l);
    const int* parent = tree_.parent_index(l);
    const int* child = tree_.child_index(l);
    const auto& wanted = gradient ? wanted_[index] : kNoParameters;
    const int directions = np + nc + int(wanted.size());
    local_q.resize(std::size_t(np + nc));
    local_alpha.resize(std::size_t(l.alpha_count));
    local_parameters.resize(std::size_t(l.parameter_count));
    for (int start = 0; start < directions; start += kChunk) {
      const int length = std::min(kChunk, directions - start);
      for (int j = 0; j < np + nc; ++j)
        local_q[std::size_t(j)] = Plain(length, q[std::size_t(j < np ? parent[j] : child[j - np])]);
      for (int j = 0; j < l.parameter_count; ++j)
        local_parameters[std::size_t(j)] = Plain(length, parameters[std::size_t(l.first_parameter + j)]);
      for (int d = start; d < start + length; ++d) {
        if (d < np + nc) local_q[std::size_t(d)].fastAccessDx(d - start) = 1.0;
        else local_parameters[std::size_t(wanted[std::size_t(d - np - nc)].first)].fastAccessDx(d - start) = 1.0;
      }
      tree_.read_link(l, np > 0 ? kIota : nullptr, kIota + np, local_q.data(), local_parameters.data(),
                      local_alpha.data());
      for (int d = start; d < start + length; ++d) {
        double sum = 0.0;
        for (int j = 0; j < l.alpha_count; ++j)
          sum += a_bar[std::size_t(l.first_alpha + j)] * local_alpha[std::size_t(j)].fastAccessDx(d - start);
        if (d < np) q_bar[std::size_t(parent[d])] += sum;
        else if (d < np + nc) q_bar[std::size_t(child[d - np])] += sum;
        else gradient->parameters[std::size_t(wanted[std::size_t(d - np - nc)].second)] += sum;
      }
    }
  }
}

int JointSpaceEquations::planar_inverse_jacobian(std::size_t index, const std::vector<double>& q) {
  const model::JointTree::Link& l = tree_.links()[index];
  const int np = model::JointTree::parent_coordinates(l), nc = model::JointTree::child_coordinates(l);
  const int* parent = tree_.parent_index(l);
  const int* child = tree_.child_index(l);
  double local[6];
  for (int i = 0; i < np + nc; ++i) {
    inverse_index_[i] = i < np ? parent[i] : child[i - np];
    local[i] = q[std::size_t(inverse_index_[i])];
  }
  model::planar_link_inverse_jacobian(l, np > 0 ? local : nullptr, local + np,
                                      tree_.parameters().data() + l.first_parameter, inverse_dq_, inverse_dp_);
  return np + nc;
}

void JointSpaceEquations::times_jacobian(const Point& e, const std::vector<double>& x, std::vector<double>& out) {
  directional_values(e.alpha, x.data(), nullptr, out.data(), nullptr);
}

void JointSpaceEquations::jacobian_transpose_times(const std::vector<double>& alpha, const std::vector<double>& x,
                                                   std::vector<double>& out) {
  std::fill(out.begin(), out.end(), 0.0);
  directional_gradient(alpha, nullptr, nullptr, x.data(), nullptr, nullptr, nullptr, out.data(), nullptr);
}

void JointSpaceEquations::begin_step() {
  within_step_ = true;
  // A factorization held from the step before counts as this step's first only if it was fresh (the same values
  // as a fresh one at the step's start: recomputation from a checkpoint repeats the step bit for bit).
  if (factorized_ && !factorized_fresh_) factorized_ = false;
  step_factorized_ = factorized_;
}

void JointSpaceEquations::mass_solve(const Point& e, std::vector<double>& x) {
  if (k_ == 0) return;
  const std::vector<double>& q = e.state.q;
  if (!factorized_ || q != factorized_q_) {
    saddle_state_.q = q;
    const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
    assembler_.assemble_matrix(saddle_state_, e.t, assembly::ConstraintLevel::Velocity, mass_only);
    const linalg::Pivots pivots = within_step_ && step_factorized_ ? linalg::Pivots::Reuse : linalg::Pivots::Fresh;
    try {
      solver_->update(pivots);
      factorized_fresh_ = pivots == linalg::Pivots::Fresh;
      step_factorized_ = within_step_;
    } catch (const SolverError&) {
      factorized_ = within_step_ = false;
      throw SolverError("joint-space mass matrix H^T M H is singular at t = " + std::to_string(e.t) +
                        " (a singular configuration of the joint coordinates, or a joint coordinate that moves no "
                        "mass)");
    }
    factorized_q_ = q;
    factorized_ = true;
  }
  std::fill(f_.begin(), f_.end(), 0.0);
  inverse_transposed(q, x, f_, nullptr);
  assembly::SystemVectorView(*rhs_, std::size_t(n_)).assign(f_);
  solver_->solve(*rhs_, *solution_);
  assembly::ConstSystemVectorView(*solution_, std::size_t(n_)).extract(&v_, nullptr);
  inverse_tangent(q, v_, x);
}

void JointSpaceEquations::momentum_products(const Point& e, const std::vector<double>& s) {
  times_jacobian(e, s, w_);
  std::fill(c_.begin(), c_.end(), 0.0);
  std::fill(mw_.begin(), mw_.end(), 0.0);
  forces_.add_discrete_momenta_transposed(e.state.q, e.state.v, e.t, 0.0, zero_n_, w_, c_, mw_);
}

void JointSpaceEquations::evaluate(Point& e) {
  tree_.positions(e.alpha.data(), tree_.parameters().data(), e.state.q.data());
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
  forces_.momentum(s, t, column_);
  jacobian_transpose_times(alpha, column_, p_hat);
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
  std::fill(k_work_.begin(), k_work_.end(), 0.0);
  directional_gradient(e.alpha, nu.data(), nullptr, b_.data(), e.momentum.data(), nullptr, nullptr, k_work_.data(),
                       nullptr);
  for (int j = 0; j < k_; ++j) s_[std::size_t(j)] = mu[std::size_t(j)] + k_work_[std::size_t(j)];
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
  jacobian_transpose_times(e.alpha, v_bar, s_);
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
  directional_values(alpha, p_bar.data(), nullptr, w_.data(), nullptr);
  forces_.add_discrete_momenta_transposed(s.q, s.v, t, 0.0, zero_n_, w_, q_bar, v_bar);
  forces_.add_discrete_momenta_parameter_gradient(s.q, s.v, t, 0.0, zero_n_, w_, gradient);
  forces_.momentum(s, t, column_);
  k_work2_ = alpha_bar;
  directional_gradient(alpha, p_bar.data(), nullptr, nullptr, column_.data(), nullptr, nullptr, k_work2_.data(),
                       &gradient);
  // alpha = g^-1(q): q_bar += (dg^-1/dq)^T alpha_bar_total, and its parameter terms.
  inverse_transposed(s.q, k_work2_, q_bar, &gradient);
}

}  // namespace flexadj::integrators
