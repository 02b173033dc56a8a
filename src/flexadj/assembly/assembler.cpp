#include "flexadj/assembly/assembler.hpp"

#include <Tpetra_FECrsGraph.hpp>
#include <Tpetra_FECrsMatrix.hpp>
#include <Teuchos_CommHelpers.hpp>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/functions/control_signal.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <cmath>
#include <map>
#include <type_traits>
#include <utility>

namespace flexadj::assembly {

// A component's indices while the constructor finds them.
struct Assembler::ComponentDraft {
  int index = 0;
  int first_multiplier = 0;
  std::vector<int> state_entries, rows, columns, multiplier_rows;
  std::vector<std::size_t> value_offsets;
  std::vector<ValueRun> value_runs;
};

namespace {

// Adds the wall time of its scope to `total` (every return path of assemble()).
struct ElapsedTime {
  explicit ElapsedTime(double& total) : total(total) {}
  ~ElapsedTime() { total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  double& total;
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

RCP<const Map> make_map(const std::vector<long long>& gids, const RCP<const Comm>& comm) {
  const auto invalid = Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid();
  std::vector<GlobalOrdinal> ids(gids.begin(), gids.end());
  return rcp(new Map(invalid, Teuchos::ArrayView<const GlobalOrdinal>(ids.data(), ids.size()), 0, comm));
}

}  // namespace

Assembler::Assembler(const model::Model& model, RCP<const Comm> comm, Partition partition)
    : model_(model), comm_(comm), dofs_(model, comm->getRank(), partition_bodies(model, *comm, partition)) {
  const auto& owned = dofs_.owned_coordinates();
  const auto& multipliers = dofs_.owned_multipliers();
  const auto& ghosts = dofs_.ghost_coordinates();
  const int owned_count = static_cast<int>(owned.size());
  const int multiplier_count = static_cast<int>(multipliers.size());

  std::vector<long long> ghosted_coordinates(owned);
  ghosted_coordinates.insert(ghosted_coordinates.end(), ghosts.begin(), ghosts.end());
  std::vector<long long> system(owned);
  system.insert(system.end(), multipliers.begin(), multipliers.end());
  std::vector<long long> ghosted_system(system);
  ghosted_system.insert(ghosted_system.end(), ghosts.begin(), ghosts.end());

  coordinate_map_ = make_map(owned, comm_);
  ghosted_coordinate_map_ = make_map(ghosted_coordinates, comm_);
  system_map_ = make_map(system, comm_);
  ghosted_system_map_ = make_map(ghosted_system, comm_);
  coordinate_transfer_ = std::make_unique<GhostTransfer>(coordinate_map_, ghosted_coordinate_map_);
  system_transfer_ = std::make_unique<GhostTransfer>(system_map_, ghosted_system_map_);
  owned_work_ = rcp(new MultiVector(coordinate_map_, 3));
  ghosted_work_ = rcp(new MultiVector(ghosted_coordinate_map_, 3));
  ghosted_mu_ = rcp(new Vector(ghosted_coordinate_map_));
  owned_mu_ = rcp(new Vector(coordinate_map_));
  owned_state_ = rcp(new MultiVector(coordinate_map_, 3));
  ghosted_state_ = rcp(new MultiVector(ghosted_coordinate_map_, 3));
  residual_ = rcp(new Vector(system_map_));
  ghosted_residual_ = rcp(new Vector(ghosted_system_map_));

  // Ghosted coordinate entry k is system row k (owned) or k + multiplier_count (ghost).
  std::map<long long, int> entry_of;
  for (int k = 0; k < static_cast<int>(ghosted_coordinates.size()); ++k) entry_of[ghosted_coordinates[k]] = k;
  auto system_row = [&](int entry) { return entry < owned_count ? entry : entry + multiplier_count; };

  std::size_t max_coordinates = 1, max_equations = 1;
  std::vector<ComponentDraft> force_drafts, constraint_drafts;  // packed by pack_components()
  auto describe = [&](const model::Component& component, int index) {
    ComponentDraft c;
    c.index = index;
    for (long long gid : dofs_.coordinates_of(component)) {
      c.state_entries.push_back(entry_of.at(gid));
      c.rows.push_back(system_row(c.state_entries.back()));
    }
    max_coordinates = std::max<std::size_t>(max_coordinates, c.rows.size());
    return c;
  };
  for (int i : dofs_.local_force_elements()) force_drafts.push_back(describe(*model_.force_elements()[i], i));
  int first_multiplier = 0;
  for (int i : dofs_.local_constraints()) {
    const auto& constraint = *model_.constraints()[i];
    ComponentDraft c = describe(constraint, i);
    c.first_multiplier = first_multiplier;
    for (int k = 0; k < constraint.equation_count(); ++k) c.multiplier_rows.push_back(owned_count + first_multiplier + k);
    first_multiplier += constraint.equation_count();
    max_equations = std::max<std::size_t>(max_equations, c.multiplier_rows.size());
    constraint_drafts.push_back(std::move(c));
  }

  // Graph: every row's diagonal, each force element's coordinate block, each constraint's
  // [H C_q^T; C_q 0] blocks. Built once.
  std::vector<std::vector<GlobalOrdinal>> pattern(ghosted_system.size());
  auto gid = [&](int row) { return static_cast<GlobalOrdinal>(ghosted_system[row]); };
  for (std::size_t row = 0; row < pattern.size(); ++row) pattern[row].push_back(gid(static_cast<int>(row)));
  for (const auto& c : force_drafts)
    for (int row : c.rows)
      for (int col : c.rows) pattern[row].push_back(gid(col));
  for (const auto& c : constraint_drafts) {
    for (int row : c.rows) {
      for (int col : c.rows) pattern[row].push_back(gid(col));
      for (int col : c.multiplier_rows) pattern[row].push_back(gid(col));
    }
    for (int row : c.multiplier_rows)
      for (int col : c.rows) pattern[row].push_back(gid(col));
  }
  std::size_t max_entries = 1;
  for (auto& row : pattern) {
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    max_entries = std::max(max_entries, row.size());
  }
  // Rows of ghost coordinates may collect entries from several ranks: bound them by the owner's count.
  max_entries = static_cast<std::size_t>(Teuchos::as<int>(max_entries));
  int local_max = static_cast<int>(max_entries), global_max = 0;
  Teuchos::reduceAll(*comm_, Teuchos::REDUCE_MAX, local_max, Teuchos::outArg(global_max));

  graph_ = rcp(new FEGraph(system_map_, ghosted_system_map_, static_cast<std::size_t>(global_max)));
  graph_->beginAssembly();
  for (std::size_t row = 0; row < pattern.size(); ++row)
    graph_->insertGlobalIndices(gid(static_cast<int>(row)),
                                Teuchos::ArrayView<const GlobalOrdinal>(pattern[row].data(), pattern[row].size()));
  graph_->endAssembly();
  matrix_ = rcp(new FEMatrix(graph_));

  const auto column_map = graph_->getColMap();
  auto columns_of = [&](ComponentDraft& c) {
    for (int row : c.rows) c.columns.push_back(column_map->getLocalElement(gid(row)));
    for (int row : c.multiplier_rows) c.columns.push_back(column_map->getLocalElement(gid(row)));
  };
  for (auto& c : force_drafts) columns_of(c);
  for (auto& c : constraint_drafts) columns_of(c);
  // The entries' positions in the values of the ghosted matrix that assemble() fills (Tpetra's sumIntoLocalValues
  // would search each row for each added row of a block): in assembly mode, or where begin_matrix_values() writes in
  // place, in the completed matrix (its values are packed by the first fillComplete()).
  matrix_->beginAssembly();
  if (system_transfer_->local()) matrix_->endAssembly();
  {
    const auto local = matrix_->getLocalMatrixHost();
    const auto& row_offsets = local.graph.row_map;
    const auto& entries = local.graph.entries;
    auto offset_of = [&](int row, int column) {
      for (auto k = row_offsets(row); k < row_offsets(row + 1); ++k)
        if (entries(k) == column) return static_cast<std::size_t>(k);
      throw std::logic_error("Assembler: an entry of a component is not in the matrix graph");
    };
    std::vector<std::size_t> offsets;
    for (auto& c : force_drafts) {
      offsets.clear();
      for (int row : c.rows)
        for (std::size_t j = 0; j < c.rows.size(); ++j) offsets.push_back(offset_of(row, c.columns[j]));
      c.value_runs = value_runs(offsets, static_cast<int>(c.rows.size()));
    }
    for (auto& c : constraint_drafts) {
      for (int row : c.rows)
        for (int column : c.columns) c.value_offsets.push_back(offset_of(row, column));
      for (int row : c.multiplier_rows)
        for (std::size_t j = 0; j < c.rows.size(); ++j) c.value_offsets.push_back(offset_of(row, c.columns[j]));
      // A velocity constraint's multiplier rows also use their diagonal (the position projection, assemble()).
      if (model_.constraints()[c.index]->velocity_level())
        for (std::size_t k = 0; k < c.multiplier_rows.size(); ++k)
          c.value_offsets.push_back(offset_of(c.multiplier_rows[k], c.columns[c.rows.size() + k]));
    }
    // The owned coordinate rows' diagonal (the projections' identity block, assemble()).
    for (int row = 0; row < owned_count; ++row)
      coordinate_diagonal_offsets_.push_back(offset_of(row, column_map->getLocalElement(gid(row))));
  }
  if (!system_transfer_->local()) matrix_->endAssembly();

  pack_components(force_drafts, constraint_drafts);
  group_force_elements();

  const std::size_t n = max_coordinates, m = max_equations;
  q_.resize(n); v_.resize(n); a_.resize(n); r_.resize(n);
  jacobian_.resize(n * n); hessian_.resize(n * n);
  c_.resize(m * std::max(n, std::size_t(1))); c_dot_.resize(m); c_ddot_.resize(m);
  row_.resize(n + m);
  mu_local_.resize(n);
  out_q_local_.resize(n);
  out_v_local_.resize(n);
  out_a_local_.resize(n);
  mu_multipliers_.resize(m);
  zero_multipliers_.assign(m, 0.0);
  d_dq_.resize(n * n);
  d_dv_.resize(n * n);
  force_rows_.resize(n * n);
}

Assembler::~Assembler() = default;

RCP<const CrsMatrix> Assembler::matrix() const { return matrix_; }

State Assembler::make_state() const {
  State s;
  const std::size_t n = dofs_.owned_coordinates().size();
  s.q.assign(n, 0.0); s.v.assign(n, 0.0); s.a.assign(n, 0.0); s.aux.assign(n, 0.0);
  s.lambda.assign(dofs_.owned_multipliers().size(), 0.0);
  return s;
}

void Assembler::scatter_global(const std::vector<double>& q, const std::vector<double>& v, State& state) const {
  const auto& owned = dofs_.owned_coordinates();
  for (std::size_t i = 0; i < owned.size(); ++i) {
    state.q[i] = q.at(owned[i]);
    state.v[i] = v.at(owned[i]);
  }
}

void Assembler::import_state(const State& state, bool velocities, bool accelerations) {
  import_columns(state.q.data(), velocities ? state.v.data() : nullptr, accelerations ? state.a.data() : nullptr);
}

void Assembler::import_columns(const double* q, const double* v, const double* a) {
  {
    auto q_column = owned_state_->getDataNonConst(0);
    auto v_column = owned_state_->getDataNonConst(1);
    auto a_column = owned_state_->getDataNonConst(2);
    for (std::size_t i = 0; i < dofs_.owned_coordinates().size(); ++i) {
      q_column[i] = q[i];
      v_column[i] = v ? v[i] : 0.0;
      a_column[i] = a ? a[i] : 0.0;
    }
  }
  coordinate_transfer_->to_ghosted(*owned_state_, *ghosted_state_);
}

void Assembler::export_first_work_column(std::vector<double>& out) {
  coordinate_transfer_->to_owned(*ghosted_work_, *owned_work_);
  const auto sum = owned_work_->getData(0);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = sum[i];
}

void Assembler::add_first_two_work_columns(std::vector<double>& out_q, std::vector<double>& out_v) {
  coordinate_transfer_->to_owned(*ghosted_work_, *owned_work_);
  const auto q_sum = owned_work_->getData(0), v_sum = owned_work_->getData(1);
  for (std::size_t i = 0; i < out_q.size(); ++i) {
    out_q[i] += q_sum[i];
    out_v[i] += v_sum[i];
  }
}

double* Assembler::begin_matrix_values() {
  if (system_transfer_->local()) {
    const auto values = matrix_->getLocalMatrixHost().values;
    std::fill(values.data(), values.data() + values.extent(0), 0.0);
    return values.data();
  }
  matrix_->beginAssembly();
  matrix_->setAllToScalar(0.0);
  return matrix_->getLocalMatrixHost().values.data();
}

void Assembler::end_matrix_values() {
  if (!system_transfer_->local()) matrix_->endAssembly();
}

Assembler::GhostedViews Assembler::ghosted_views() const {
  return {ghosted_state_->getData(0), ghosted_state_->getData(1), ghosted_state_->getData(2)};
}

void Assembler::pack_components(const std::vector<ComponentDraft>& force_drafts,
                                const std::vector<ComponentDraft>& constraint_drafts) {
  std::size_t indices = 0, offsets = 0, runs = 0;
  for (const auto* drafts : {&force_drafts, &constraint_drafts})
    for (const ComponentDraft& d : *drafts) {
      indices += d.state_entries.size() + d.rows.size() + d.multiplier_rows.size();
      offsets += d.value_offsets.size();
      runs += d.value_runs.size();
    }
  // Reserved in full first: the spans point into the pools.
  index_pool_.reserve(indices);
  offset_pool_.reserve(offsets);
  run_pool_.reserve(runs);
  auto append = [](auto& pool, const auto& entries) {
    const std::size_t first = pool.size();
    pool.insert(pool.end(), entries.begin(), entries.end());
    return PoolSpan<typename std::decay_t<decltype(pool)>::value_type>(pool.data() + first, entries.size());
  };
  for (auto [drafts, components] : {std::pair{&force_drafts, &forces_}, std::pair{&constraint_drafts, &constraints_}}) {
    components->reserve(drafts->size());
    for (const ComponentDraft& d : *drafts) {
      LocalComponent c;
      c.index = d.index;
      c.first_multiplier = d.first_multiplier;
      c.state_entries = append(index_pool_, d.state_entries);
      c.rows = append(index_pool_, d.rows);
      c.multiplier_rows = append(index_pool_, d.multiplier_rows);
      c.value_offsets = append(offset_pool_, d.value_offsets);
      c.value_runs = append(run_pool_, d.value_runs);
      components->push_back(c);
    }
  }
}

void Assembler::load(const LocalComponent& c, const GhostedViews& views) {
  for (std::size_t i = 0; i < c.state_entries.size(); ++i) {
    q_[i] = views.q[c.state_entries[i]];
    v_[i] = views.v[c.state_entries[i]];
    a_[i] = views.a[c.state_entries[i]];
  }
}

void Assembler::assemble(const State& state, double t, ConstraintLevel level, double scale,
                         const model::JacobianCoefficients* coefficients,
                         const std::vector<double>* projection_target) {
  const ElapsedTime timer(assembly_seconds_);
  import_state(state, true, true);
  if (!matrix_only_) ghosted_residual_->putScalar(0.0);
  double* values = nullptr;  // of the ghosted matrix in assembly mode, at LocalComponent::value_offsets
  if (coefficients) values = begin_matrix_values();
  {
    auto residual = ghosted_residual_->getDataNonConst(0);
    const GhostedViews views = ghosted_views();
    if (projection_target) {
      const std::vector<double>& x = level == ConstraintLevel::Velocity ? state.v : state.q;
      for (std::size_t i = 0; i < x.size(); ++i) {
        residual[i] += x[i] - (*projection_target)[i];
        if (coefficients) values[coordinate_diagonal_offsets_[i]] += 1.0;
      }
    }
    for (const ForceGroup& group : force_groups_) {
      if (projection_target || without_forces_) break;
      if (group.kernel != nullptr && coefficients != nullptr) {
        add_force_batch(group, t, scale, *coefficients, views, residual.getRawPtr(), values);
        continue;
      }
      for (int k = group.first; k < group.first + group.count; ++k) {
        const LocalComponent& c = forces_[k];
        const auto& element = *model_.force_elements()[c.index];
        const int n = static_cast<int>(c.rows.size());
        const double element_scale = element.applied_load() ? scale * load_factor_ : scale;
        load(c, views);
        if (matrix_only_) {
          element.jacobian_alone(q_.data(), v_.data(), a_.data(), t, *coefficients, r_.data(), jacobian_.data());
          const double* jacobian = jacobian_.data();
          add_runs(values, c.value_runs, n, transposed_, [&](int e) { return element_scale * jacobian[e]; });
          continue;
        }
        if (coefficients) {
          element.residual_jacobian(q_.data(), v_.data(), a_.data(), t, *coefficients, r_.data(), jacobian_.data());
          const double* jacobian = jacobian_.data();
          add_runs(values, c.value_runs, n, transposed_, [&](int e) { return element_scale * jacobian[e]; });
        } else {
          element.residual(q_.data(), v_.data(), a_.data(), t, r_.data());
        }
        for (int i = 0; i < n; ++i) residual[c.rows[i]] += element_scale * r_[i];
      }
    }
    for (const auto& c : constraints_) {
      const auto& constraint = *model_.constraints()[c.index];
      const int n = static_cast<int>(c.rows.size()), m = constraint.equation_count();
      load(c, views);
      const double* lambda = state.lambda.data() + c.first_multiplier;
      if (constraint.velocity_level()) {
        add_velocity_constraint(c, static_cast<const model::VelocityConstraint&>(constraint), state, t, level, scale,
                                coefficients, projection_target != nullptr, residual.getRawPtr(), values);
        continue;
      }
      double* Cq = jacobian_.data();  // m x n fits: m <= n for every constraint with coordinates
      // With the Hessian needed, one second-order evaluation gives c, C_q and H together; with lambda = 0 (a
      // projection's first Newton iteration) d(C_q^T lambda)/dq is zero and the first-order pass suffices.
      const bool with_hessian = coefficients && coefficients->q != 0.0 &&
                                std::any_of(lambda, lambda + m, [](double value) { return value != 0.0; });
      if (with_hessian)
        constraint.jacobian_and_hessian(q_.data(), lambda, t, c_.data(), Cq, hessian_.data());
      else
        constraint.jacobian(q_.data(), t, c_.data(), Cq);
      if (level != ConstraintLevel::Position && !matrix_only_) {
        constraint.time_derivatives(q_.data(), v_.data(), a_.data(), t, c_.data(), c_dot_.data(), c_ddot_.data());
        const double* level_value = level == ConstraintLevel::Velocity ? c_dot_.data() : c_ddot_.data();
        for (int k = 0; k < m; ++k) c_[k] = level_value[k];
      }
      if (!matrix_only_) {
        for (int k = 0; k < m; ++k) residual[c.multiplier_rows[k]] += c_[k];
        for (int i = 0; i < n; ++i) {
          double force = 0.0;
          for (int k = 0; k < m; ++k) force += Cq[k * n + i] * lambda[k];
          residual[c.rows[i]] += scale * force;
        }
      }
      if (!coefficients) continue;
      const std::size_t* offset = c.value_offsets.data();
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) values[*offset++] += with_hessian ? scale * coefficients->q * hessian_[i * n + j] : 0.0;
        for (int k = 0; k < m; ++k) values[*offset++] += Cq[k * n + i];
      }
      for (int k = 0; k < m; ++k)
        for (int j = 0; j < n; ++j) values[*offset++] += Cq[k * n + j];
    }
  }
  if (!matrix_only_) system_transfer_->to_owned(*ghosted_residual_, *residual_);
  if (coefficients) end_matrix_values();
}

void Assembler::assemble_matrix(const State& state, double t, ConstraintLevel level,
                                const model::JacobianCoefficients& coefficients) {
  matrix_only_ = true;
  try {
    assemble(state, t, level, 1.0, &coefficients);
  } catch (...) {
    matrix_only_ = false;
    throw;
  }
  matrix_only_ = false;
}

void Assembler::assemble_constraint_rows(const State& state, double t, double scale) {
  without_forces_ = true;
  try {
    assemble(state, t, ConstraintLevel::Position, scale, nullptr);
  } catch (...) {
    without_forces_ = false;
    throw;
  }
  without_forces_ = false;
}

// Rows of a non-holonomic constraint g = A v + b with forces A^T lambda (component.hpp, VelocityConstraint):
//   coordinate rows:  s A^T lambda,  matrix s c_q d(A^T lambda)/dq and the column A^T;
//   multiplier rows:  Position level g, row c_q g_q + c_v A (the Newmark step: dv = c_v dq);
//                     Velocity level g, row A (the unknown is v: velocity projection);
//                     Acceleration level g_q v + A a + g_t, row A (the unknown is a: consistent accelerations).
// The position projection (projection_target at Position level) does not see it: its multiplier row is the
// identity and its multipliers stay zero. Transposed: the transposes of these blocks, at the same entries.
void Assembler::add_velocity_constraint(const LocalComponent& c, const model::VelocityConstraint& constraint,
                                        const State& state, double t, ConstraintLevel level, double scale,
                                        const model::JacobianCoefficients* coefficients, bool projection,
                                        double* residual, double* values) {
  const int n = static_cast<int>(c.rows.size()), m = constraint.equation_count();
  const double* lambda = state.lambda.data() + c.first_multiplier;
  const std::size_t* offset = c.value_offsets.data();
  const std::size_t diagonal = static_cast<std::size_t>(n) * (n + m) + static_cast<std::size_t>(m) * n;
  if (projection && level == ConstraintLevel::Position) {
    for (int k = 0; k < m; ++k) residual[c.multiplier_rows[k]] += lambda[k];
    if (values)
      for (int k = 0; k < m; ++k) values[offset[diagonal + k]] += 1.0;
    return;
  }
  double *g_q = jacobian_.data(), *A = force_rows_.data(), *H = hessian_.data();
  const bool with_hessian = coefficients && coefficients->q != 0.0;
  constraint.velocity_jacobians(q_.data(), v_.data(), lambda, t, c_.data(), g_q, A, with_hessian ? H : nullptr);
  if (level == ConstraintLevel::Acceleration)
    constraint.velocity_time_derivative(q_.data(), v_.data(), a_.data(), t, c_dot_.data(), c_.data());
  for (int k = 0; k < m; ++k) residual[c.multiplier_rows[k]] += c_[k];
  for (int i = 0; i < n; ++i) {
    double force = 0.0;
    for (int k = 0; k < m; ++k) force += A[k * n + i] * lambda[k];
    residual[c.rows[i]] += scale * force;
  }
  if (!coefficients) return;
  // The multiplier rows' entries: d(row)/d(unknown) as described above.
  auto row = [&](int k, int j) {
    if (level != ConstraintLevel::Position) return A[k * n + j];
    return coefficients->q * g_q[k * n + j] + coefficients->v * A[k * n + j];
  };
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      values[*offset++] += with_hessian ? scale * coefficients->q * (transposed_ ? H[j * n + i] : H[i * n + j]) : 0.0;
    for (int k = 0; k < m; ++k) values[*offset++] += transposed_ ? row(k, i) : A[k * n + i];
  }
  for (int k = 0; k < m; ++k)
    for (int j = 0; j < n; ++j) values[*offset++] += transposed_ ? A[k * n + j] : row(k, j);
}

double Assembler::dynamic_residual_norm() const {
  const auto r = residual_->getData(0);
  double local = 0.0, global = 0.0;
  for (std::size_t i = 0; i < dofs_.owned_coordinates().size(); ++i) local = std::max(local, std::abs(r[i]));
  Teuchos::reduceAll(*comm_, Teuchos::REDUCE_MAX, local, Teuchos::outArg(global));
  return global;
}

double Assembler::constraint_residual_norm() const { return worst_constraint().second; }

std::pair<int, double> Assembler::worst_constraint() const {
  const ConstSystemVectorView r(*residual_, dofs_.owned_coordinates().size());
  double local = -1.0;
  int worst = -1;
  for (const auto& c : constraints_)
    for (int k = 0; k < static_cast<int>(c.multiplier_rows.size()); ++k) {
      const double value = std::abs(r.multipliers()[c.first_multiplier + k]);
      if (value > local || std::isnan(value)) { local = value; worst = c.index; }
    }
  // Max over ranks, keeping the index of the worst constraint.
  const int ranks = comm_->getSize();
  std::vector<double> values(ranks);
  std::vector<int> indices(ranks);
  Teuchos::gatherAll(*comm_, 1, &local, ranks, values.data());
  Teuchos::gatherAll(*comm_, 1, &worst, ranks, indices.data());
  int best = 0;
  for (int k = 1; k < ranks; ++k)
    if (values[k] > values[best] || std::isnan(values[k])) best = k;
  return {indices[best], std::max(values[best], 0.0)};
}

std::string Assembler::nonfinite_source(const State& state, double t, ConstraintLevel level) {
  auto finite = [](const std::vector<double>& x) {
    return std::all_of(x.begin(), x.end(), [](double value) { return std::isfinite(value); });
  };
  int local_state = finite(state.q) && finite(state.v) && finite(state.a) && finite(state.lambda) ? 0 : 1, any_state = 0;
  Teuchos::reduceAll(*comm_, Teuchos::REDUCE_MAX, local_state, Teuchos::outArg(any_state));
  if (any_state) return "the state (q, v, a or lambda)";
  // The first component in model order (force elements, then constraints) with a non-finite residual.
  const int force_count = static_cast<int>(model_.force_elements().size());
  const int none = force_count + static_cast<int>(model_.constraints().size());
  int local = none, first = none;
  import_state(state, true, true);
  const GhostedViews views = ghosted_views();
  for (const auto& c : forces_) {
    load(c, views);
    const int n = static_cast<int>(c.rows.size());
    model_.force_elements()[c.index]->residual(q_.data(), v_.data(), a_.data(), t, r_.data());
    if (!std::all_of(r_.begin(), r_.begin() + n, [](double value) { return std::isfinite(value); }))
      local = std::min(local, c.index);
  }
  for (const auto& c : constraints_) {
    const auto& constraint = *model_.constraints()[c.index];
    const int m = constraint.equation_count();
    load(c, views);
    if (constraint.velocity_level()) {
      static_cast<const model::VelocityConstraint&>(constraint)
          .velocity_time_derivative(q_.data(), v_.data(), a_.data(), t, c_.data(), c_dot_.data());
      for (int k = 0; k < m; ++k) c_ddot_[k] = 0.0;
    } else {
      constraint.jacobian(q_.data(), t, c_.data(), jacobian_.data());
      if (level != ConstraintLevel::Position)
        constraint.time_derivatives(q_.data(), v_.data(), a_.data(), t, c_.data(), c_dot_.data(), c_ddot_.data());
    }
    bool ok = true;
    for (int k = 0; k < m; ++k) ok = ok && std::isfinite(c_[k]) && std::isfinite(c_dot_[k]) && std::isfinite(c_ddot_[k]);
    if (!ok) local = std::min(local, force_count + c.index);
  }
  Teuchos::reduceAll(*comm_, Teuchos::REDUCE_MIN, local, Teuchos::outArg(first));
  if (first == none) return "";
  const model::Component& component = first < force_count
                                          ? static_cast<const model::Component&>(*model_.force_elements()[first])
                                          : *model_.constraints()[first - force_count];
  return std::string(first < force_count ? "force element '" : "constraint '") + component.name() + "' (" +
         component.type() + ")";
}

double Assembler::energy(const State& state, double t, double* kinetic) {
  import_state(state, true, false);
  double local[2] = {0.0, 0.0}, global[2] = {0.0, 0.0};  // kinetic, potential
  const GhostedViews views = ghosted_views();
  for (const auto& c : forces_) {
    const auto& element = *model_.force_elements()[c.index];
    load(c, views);
    local[0] += element.kinetic_energy(q_.data(), v_.data());
    local[1] += element.potential_energy(q_.data(), t);
  }
  Teuchos::reduceAll(*comm_, Teuchos::REDUCE_SUM, 2, local, global);
  if (kinetic) *kinetic = global[0];
  return global[0] + global[1];
}

void Assembler::visit_local_constraints(
    const State& state, double t,
    const std::function<void(int, const double* q, const double* lambda, const double* Cq)>& visit) {
  import_state(state, true, false);
  const GhostedViews views = ghosted_views();
  for (const auto& c : constraints_) {
    const auto& constraint = *model_.constraints()[c.index];
    load(c, views);
    const double* lambda = state.lambda.data() + c.first_multiplier;
    if (constraint.velocity_level()) {  // the force directions: A = dg/dv
      static_cast<const model::VelocityConstraint&>(constraint)
          .velocity_jacobians(q_.data(), v_.data(), lambda, t, c_.data(), hessian_.data(), jacobian_.data(), nullptr);
      visit(c.index, q_.data(), lambda, jacobian_.data());
      continue;
    }
    constraint.jacobian(q_.data(), t, c_.data(), jacobian_.data());
    visit(c.index, q_.data(), lambda, jacobian_.data());
  }
}

void Assembler::visit_local_force_elements(const State& state,
                                           const std::function<void(int, const double* q, const double* v)>& visit) {
  import_state(state, true, false);
  const GhostedViews views = ghosted_views();
  for (const auto& c : forces_) {
    load(c, views);
    visit(c.index, q_.data(), v_.data());
  }
}

}  // namespace flexadj::assembly
