#include "flexadj/adjoint/spacetime_system.hpp"

#include <Teuchos_CommHelpers.hpp>
#include <Teuchos_DefaultMpiComm.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "flexadj/core/mpi_comm.hpp"

namespace flexadj::adjoint {

std::vector<Slab> make_slabs(std::size_t steps, std::size_t slabs) {
  if (slabs < 1 || slabs > steps) throw std::invalid_argument("make_slabs: need 1 <= slabs <= steps");
  std::vector<Slab> result;
  std::size_t first = 1;
  for (std::size_t j = 0; j < slabs; ++j) {
    const std::size_t size = steps / slabs + (j < steps % slabs ? 1 : 0);
    result.push_back({first, first + size - 1});
    first += size;
  }
  return result;
}

std::size_t default_time_groups(int ranks, std::size_t slabs) {
  for (auto g = static_cast<std::size_t>(ranks); g > 1; --g)
    if (ranks % static_cast<int>(g) == 0 && slabs % g == 0) return g;
  return 1;
}

SpacetimeSystem::SpacetimeSystem(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                                 storage::Trajectory& trajectory, const objectives::Objective& objective,
                                 const model::ParameterSpace& parameters, std::size_t slabs, std::size_t groups)
    : full_assembler_(assembler), objective_(objective), parameters_(parameters), groups_(groups) {
  const Comm& comm = *assembler.comm();
  const int ranks = comm.getSize(), rank = comm.getRank();
  steps_ = trajectory.step_count() - 1;
  if (groups_ < 1 || ranks % static_cast<int>(groups_) != 0 || slabs % groups_ != 0)
    throw std::invalid_argument("SpacetimeSystem: the time groups must divide the ranks and the slabs");
  slabs_ = make_slabs(steps_, slabs);
  const int per_group = ranks / static_cast<int>(groups_);
  group_ = static_cast<std::size_t>(rank / per_group);
  MPI_Comm_split(raw_mpi_comm(comm), rank % per_group, static_cast<int>(group_), &time_comm_);
  slab_begin_ = group_ * slabs / groups_;
  slab_end_ = (group_ + 1) * slabs / groups_;
  first_step_ = slabs_[slab_begin_].first;
  last_step_ = slabs_[slab_end_ - 1].last;

  if (groups_ == 1) {
    group_comm_ = assembler.comm();
    assembler_ = &assembler;
    integrator_ = &integrator;
  } else {
    MPI_Comm group_comm;
    MPI_Comm_split(raw_mpi_comm(comm), static_cast<int>(group_), rank, &group_comm);
    group_comm_ = rcp(new Teuchos::MpiComm<int>(Teuchos::opaqueWrapper(group_comm, MPI_Comm_free)));
    own_assembler_ = std::make_unique<assembly::Assembler>(assembler.model(), group_comm_);
    own_integrator_ =
        integrators::make_time_integrator(*own_assembler_, integrator.settings(), integrator.solver_options());
    assembler_ = own_assembler_.get();
    integrator_ = own_integrator_.get();
  }
  auto* checkpointed = dynamic_cast<storage::CheckpointedTrajectory*>(&trajectory);
  if (checkpointed && checkpointed->disk().interval > 0) recompute_states(*checkpointed, integrator);
  else load_states(trajectory, integrator);

  transposed_ = std::make_unique<assembly::ScopedTransposedAssembly>(*assembler_);
  integrator_->begin_adjoint(states_);
  integrator_->save_adjoint_variables(carried_);
  width_ = carried_.size();
  zero_.assign(width_, 0.0);
  incoming_.assign(width_, 0.0);
  const std::size_t n = assembler_->dofs().owned_coordinates().size();
  zero_q_.assign(n, 0.0);
  zero_v_.assign(n, 0.0);
  da_.assign(objective_.on_accelerations() ? n : 0, 0.0);
  objective_parts_.assign(steps_ + 1, 0.0);
  slab_incoming_.assign(slab_end_ - slab_begin_, {});
  // The products of the operator, the preconditioners and the right-hand side need no parameter terms: a
  // LocalGradient that wants none skips their kernels (only the gradient pass computes them).
  const model::Model& model = assembler_->model();
  no_gradient_ = std::make_unique<assembly::LocalGradient>(
      model, std::vector<int>(model.force_elements().size(), -1), std::vector<int>(model.constraints().size(), -1),
      parameters.gradient_force_masks(), parameters.gradient_constraint_masks(), std::size_t(parameters.size()));
  no_gradient_->discarded = true;
  map_ = rcp(new Map(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
                     (last_step_ - first_step_ + 1) * width_, 0, assembler.comm()));
}

SpacetimeSystem::~SpacetimeSystem() {
  integrator_->keep_adjoint_steps(nullptr, 0);
  if (time_comm_ != MPI_COMM_NULL) MPI_Comm_free(&time_comm_);
}

void SpacetimeSystem::keep_steps(std::size_t byte_budget) {
  integrator_->keep_adjoint_steps(&states_, byte_budget);
}

void SpacetimeSystem::initialize_groups(integrators::TimeIntegrator& source_integrator, double t0, bool every_group) {
  if (groups_ == 1) return;
  // Group 0 takes the adjoint of initialize(): its integrator needs the projection of the same given state (and
  // every group's integrator is initialized before it recomputes steps).
  const auto& from = full_assembler_.dofs();
  const integrators::InitialProjection& p = source_integrator.initial_projection();
  std::vector<double> global;
  gather_global({&p.given_q, &p.given_v}, from.owned_coordinates(), from.coordinate_count(),
                raw_mpi_comm(*full_assembler_.comm()), global);  // collective
  if (group_ != 0 && !every_group) return;
  assembly::State state = assembler_->make_state();
  scatter(global, 0, from.coordinate_count(), assembler_->dofs().owned_coordinates(), 0, state.q);
  scatter(global, 1, from.coordinate_count(), assembler_->dofs().owned_coordinates(), 0, state.v);
  integrator_->initialize(state, t0);
}

// Each group recomputes its states from the disk checkpoint at or below the step before its first slab
// (slab_states.hpp): steps first - 1 .. last + 1 (at most N), and 0 and N.
void SpacetimeSystem::recompute_states(storage::CheckpointedTrajectory& source,
                                       integrators::TimeIntegrator& source_integrator) {
  initialize_groups(source_integrator, source.step_times().front(), true);
  recomputation_ = recompute_slab_states(source, full_assembler_, *assembler_, *integrator_,
                                         group_first_steps(steps_, slabs_.size(), groups_), group_,
                                         std::min(last_step_ + 1, steps_), time_comm_, states_);
  recomputed_ = true;
}

// Each group keeps the states it reads; with more than one group they pass through global numbering (the
// groups' space layouts differ from the trajectory's). The trajectory is read once, in decreasing steps.
void SpacetimeSystem::load_states(storage::Trajectory& source, integrators::TimeIntegrator& source_integrator) {
  states_.times_ = source.step_times();
  states_.begin_recording();
  const auto needed = [&](std::size_t n) { return n + 1 >= first_step_ && n <= last_step_ + 1; };
  const auto& from = full_assembler_.dofs();
  const auto& to = assembler_->dofs();
  const long long nc = from.coordinate_count(), nm = from.multiplier_count();
  const MPI_Comm full = raw_mpi_comm(*full_assembler_.comm());
  std::vector<double> global, global_multipliers;
  initialize_groups(source_integrator, states_.times_.front(), false);
  for (std::size_t n = steps_ + 1; n-- > 0;) {
    const assembly::State& state = source.step(n);
    if (groups_ == 1) {
      if (needed(n) || n == 0 || n == steps_) states_.record(static_cast<long long>(n), 0.0, state);
      continue;
    }
    gather_global({&state.q, &state.v, &state.a, &state.aux}, from.owned_coordinates(), nc, full, global);
    gather_global({&state.lambda}, from.owned_multipliers(), nm + nc, full, global_multipliers);
    if (!(needed(n) || n == 0 || n == steps_)) continue;
    assembly::State local = assembler_->make_state();
    scatter(global, 0, nc, to.owned_coordinates(), 0, local.q);
    scatter(global, 1, nc, to.owned_coordinates(), 0, local.v);
    scatter(global, 2, nc, to.owned_coordinates(), 0, local.a);
    scatter(global, 3, nc, to.owned_coordinates(), 0, local.aux);
    scatter(global_multipliers, 0, nm + nc, to.owned_multipliers(), 0, local.lambda);
    states_.record(static_cast<long long>(n), 0.0, local);
  }
}

std::vector<SlabRecomputation> SpacetimeSystem::recomputation_by_group() const {
  unsigned long long mine[2] = {recomputation_.checkpoint, recomputation_.recomputed_steps};
  std::vector<unsigned long long> all(2 * groups_);
  MPI_Allgather(mine, 2, MPI_UNSIGNED_LONG_LONG, all.data(), 2, MPI_UNSIGNED_LONG_LONG, time_comm_);
  std::vector<SlabRecomputation> result(groups_);
  for (std::size_t g = 0; g < groups_; ++g) result[g] = {std::size_t(all[2 * g]), std::size_t(all[2 * g + 1])};
  return result;
}

void SpacetimeSystem::exchange(const double* local) {
  std::fill(incoming_.begin(), incoming_.end(), 0.0);
  if (groups_ == 1) return;
  MPI_Request requests[2];
  int count = 0;
  const int width = static_cast<int>(width_), g = static_cast<int>(group_);
  if (group_ + 1 < groups_) MPI_Irecv(incoming_.data(), width, MPI_DOUBLE, g + 1, 0, time_comm_, &requests[count++]);
  if (group_ > 0) MPI_Isend(local + index(first_step_), width, MPI_DOUBLE, g - 1, 0, time_comm_, &requests[count++]);
  MPI_Waitall(count, requests, MPI_STATUSES_IGNORE);
}

void SpacetimeSystem::sweep(Sweep kind, const double* in, double* out, assembly::LocalGradient& gradient,
                            double* defect) {
  if (kind == Sweep::Apply || kind == Sweep::Transfer || kind == Sweep::Gradient) exchange(in);
  const std::vector<double>& times = states_.step_times();
  double largest = 0.0, worst = 0.0;
  for (std::size_t j = slab_end_; j-- > slab_begin_;) {
    const Slab& slab = slabs_[j];
    // X_{last+1} of this slab: the next group's first block, or this group's; the slab solves' own (zero unless
    // two_level_solve() set it).
    const double* above = j + 1 == slab_end_ ? incoming_.data() : in + index(slab.last + 1);
    const std::vector<double>& given = slab_incoming_[j - slab_begin_];
    const double* top = given.empty() ? zero_.data() : given.data();
    const bool partials = kind == Sweep::RightHandSide || kind == Sweep::Gradient;
    integrator_->seek_adjoint(states_, slab.last);
    for (std::size_t n = slab.last + 1; n-- > slab.first;) {
      const assembly::State& state = states_.step(n);
      // The X_{n+1} that step n reads; the gradient pass continues its own chain below the slab's last step.
      const double* next = nullptr;
      switch (kind) {
        case Sweep::Apply:
        case Sweep::Transfer: next = n == slab.last ? above : in + index(n + 1); break;
        case Sweep::SlabSolve: next = n == slab.last ? top : out + index(n + 1); break;
        case Sweep::RightHandSide: next = zero_.data(); break;
        case Sweep::Gradient: next = n == slab.last ? above : nullptr; break;
      }
      if (next) {
        carried_.assign(next, next + width_);
        integrator_->load_adjoint_variables(carried_);
      }
      std::vector<double>& dq = partials ? dq_ : zero_q_;
      std::vector<double>& dv = partials ? dv_ : zero_v_;
      if (partials) {
        dq_.assign(zero_q_.size(), 0.0);
        dv_.assign(zero_v_.size(), 0.0);
        std::fill(da_.begin(), da_.end(), 0.0);
        // The explicit parameter partials (momentum sensors) once, in the gradient pass.
        objective_.add_partials(*assembler_, times, n, state, dq_, dv_, objectives::Objective::Partials::Discrete,
                                kind == Sweep::Gradient ? &gradient : nullptr, da_.empty() ? nullptr : &da_);
        if (kind == Sweep::RightHandSide)
          objective_parts_[n] = objective_.local_step_value(*assembler_, times, n, state);
      }
      // G_n is affine in dJ/da_n as in dJ/dq_n, dJ/dv_n: the sweeps without partials take none.
      if (partials && !da_.empty())
        integrator_->adjoint_step_with_accelerations(states_, n, state, dq, dv, da_, gradient);
      else
        integrator_->adjoint_step(states_, n, state, dq, dv, gradient);
      ++steps_taken_;
      integrator_->save_adjoint_variables(carried_);
      double* target = out ? out + index(n) : nullptr;
      for (std::size_t i = 0; i < width_; ++i) {
        if (kind == Sweep::Apply) target[i] = in[index(n) + i] - carried_[i];
        else if (kind == Sweep::Transfer) target[i] = carried_[i];
        else if (kind == Sweep::SlabSolve) target[i] = in[index(n) + i] + carried_[i];
        else if (kind == Sweep::RightHandSide) target[i] = carried_[i];
      }
      if (kind == Sweep::Gradient) {
        for (double value : carried_) largest = std::max(largest, std::abs(value));
        if (n == slab.first)
          for (std::size_t i = 0; i < width_; ++i)
            worst = std::max(worst, std::abs(carried_[i] - in[index(n) + i]));
      }
    }
    if (kind == Sweep::Gradient && slab.first == 1) {
      // Step 0: the adjoint of the start and of initialize(); dq_, dv_ become dJ/d(given q, v).
      const assembly::State& state = states_.step(0);
      dq_.assign(zero_q_.size(), 0.0);
      dv_.assign(zero_v_.size(), 0.0);
      std::fill(da_.begin(), da_.end(), 0.0);
      objective_.add_partials(*assembler_, times, 0, state, dq_, dv_, objectives::Objective::Partials::Discrete,
                              &gradient, da_.empty() ? nullptr : &da_);
      objective_parts_[0] = objective_.local_step_value(*assembler_, times, 0, state);
      if (da_.empty()) integrator_->adjoint_step(states_, 0, state, dq_, dv_, gradient);
      else integrator_->adjoint_step_with_accelerations(states_, 0, state, dq_, dv_, da_, gradient);
      ++steps_taken_;
    }
  }
  if (defect) {
    double local[2] = {largest, worst}, global[2] = {0.0, 0.0};
    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, raw_mpi_comm(*full_assembler_.comm()));
    *defect = global[1] / std::max(global[0], 1e-300);
  }
}

void SpacetimeSystem::apply(const double* x, double* y) {
  sweep(Sweep::Apply, x, y, *no_gradient_, nullptr);
}

void SpacetimeSystem::transfer(const double* x, double* y) {
  sweep(Sweep::Transfer, x, y, *no_gradient_, nullptr);
}

void SpacetimeSystem::slab_solve(const double* r, double* z) {
  sweep(Sweep::SlabSolve, r, z, *no_gradient_, nullptr);
}

CoarseTrajectory::CoarseTrajectory(storage::Trajectory& fine, std::vector<std::size_t> steps)
    : fine_(fine), steps_(std::move(steps)) {
  for (std::size_t n : steps_) times_.push_back(fine.step_times().at(n));
}

void SpacetimeSystem::coarse_sweep(std::size_t j, std::size_t coarsening, std::vector<double>& incoming) {
  const Slab& slab = slabs_[j];
  // Coarse points first - 1, first, first + k, ..., last and last + 1. adjoint_step(n) reads X_{n+1} with the
  // step size of the step that made it (h_{n+1} = t_{n+1} - t_n): fine steps at both ends keep every consumer's
  // step size its producer's, from the fine step above the slab to the fine step below it, whose scales (some
  // adjoint variables scale with h) then match.
  std::vector<std::size_t> steps{slab.first - 1};
  for (std::size_t n = slab.first; n < slab.last; n += coarsening) steps.push_back(n);
  steps.push_back(slab.last);
  const std::size_t top = steps.size() - 1;
  steps.push_back(slab.last + 1);
  CoarseTrajectory coarse(states_, steps);
  integrator_->seek_adjoint(coarse, top);
  integrator_->load_adjoint_variables(incoming);
  for (std::size_t m = top; m >= 1; --m) {
    integrator_->adjoint_step(coarse, m, coarse.step(m), zero_q_, zero_v_, *no_gradient_);
    ++steps_taken_;
  }
  integrator_->save_adjoint_variables(incoming);
}

std::vector<double> SpacetimeSystem::from_next_group(const std::vector<double>& first_slab_value) {
  std::vector<double> received(width_, 0.0);
  if (groups_ == 1) return received;
  MPI_Request requests[2];
  int count = 0;
  const int width = static_cast<int>(width_), g = static_cast<int>(group_);
  if (group_ + 1 < groups_) MPI_Irecv(received.data(), width, MPI_DOUBLE, g + 1, 2, time_comm_, &requests[count++]);
  if (group_ > 0) MPI_Isend(first_slab_value.data(), width, MPI_DOUBLE, g - 1, 2, time_comm_, &requests[count++]);
  MPI_Waitall(count, requests, MPI_STATUSES_IGNORE);
  return received;
}

void SpacetimeSystem::two_level_solve(const double* r, double* z, std::size_t coarsening, bool fcf) {
  const std::size_t local = slab_end_ - slab_begin_;
  for (auto& v : slab_incoming_) v.clear();
  slab_solve(r, z);
  // The interface equations c_j = T_j c_{j+1} + w_j (w_j: the first block of slab j's solve). Without FCF the
  // coarse pass solves them from c = 0 (rho = w); with FCF from c1_j = T_j w_{j+1} + w_j, one exact transfer
  // (C-relaxation), for the residual rho_j = T_j (c1_{j+1} - w_{j+1}) (Falgout et al. 2014, MGRIT).
  std::vector<std::vector<double>> w(local), c1(local, std::vector<double>(width_, 0.0)), rho(local);
  for (std::size_t l = 0; l < local; ++l) {
    const double* first = z + index(slabs_[slab_begin_ + l].first);
    w[l].assign(first, first + width_);
  }
  // The value of a per-slab quantity at slab j + 1 (the next group's first slab for this group's last).
  const auto above = [&](const std::vector<std::vector<double>>& v, std::size_t l, const std::vector<double>& next) {
    return l + 1 < local ? v[l + 1] : next;
  };
  if (fcf) {
    const std::vector<double> next_w = from_next_group(w[0]);
    std::vector<std::vector<double>> d(local);
    for (std::size_t l = 0; l < local; ++l) {
      d[l] = above(w, l, next_w);
      if (slabs_[slab_begin_ + l].last < steps_) coarse_sweep(slab_begin_ + l, 1, d[l]);
      else std::fill(d[l].begin(), d[l].end(), 0.0);
      for (std::size_t i = 0; i < width_; ++i) c1[l][i] = d[l][i] + w[l][i];
    }
    const std::vector<double> next_d = from_next_group(d[0]);
    for (std::size_t l = 0; l < local; ++l) {
      rho[l] = above(d, l, next_d);
      if (slabs_[slab_begin_ + l].last < steps_) coarse_sweep(slab_begin_ + l, 1, rho[l]);
      else std::fill(rho[l].begin(), rho[l].end(), 0.0);
    }
  } else {
    rho = w;
  }
  const std::vector<double> next_c1 = from_next_group(c1[0]);
  // e_j = T~_j e_{j+1} + rho_j, c_j = c1_j + e_j, from the last slab down: through the groups in turn.
  std::vector<double> e(width_, 0.0);
  const int g = static_cast<int>(group_);
  if (group_ + 1 < groups_) MPI_Recv(e.data(), int(width_), MPI_DOUBLE, g + 1, 1, time_comm_, MPI_STATUS_IGNORE);
  for (std::size_t l = local; l-- > 0;) {
    const std::size_t j = slab_begin_ + l;
    slab_incoming_[l] = above(c1, l, next_c1);
    for (std::size_t i = 0; i < width_; ++i) slab_incoming_[l][i] += e[i];
    if (slabs_[j].last < steps_) coarse_sweep(j, coarsening, e);
    for (std::size_t i = 0; i < width_; ++i) e[i] += rho[l][i];
  }
  if (group_ > 0) MPI_Send(e.data(), int(width_), MPI_DOUBLE, g - 1, 1, time_comm_);
  sweep(Sweep::SlabSolve, r, z, *no_gradient_, nullptr);
  for (auto& v : slab_incoming_) v.clear();
}

void SpacetimeSystem::right_hand_side(double* b) {
  sweep(Sweep::RightHandSide, nullptr, b, *no_gradient_, nullptr);
}

Gradient SpacetimeSystem::gradient(const double* x, double& interface_defect) {
  assembly::LocalGradient local = make_local_gradient(assembler_->model(), parameters_);
  dq_.assign(zero_q_.size(), 0.0);
  dv_.assign(zero_v_.size(), 0.0);
  sweep(Sweep::Gradient, x, nullptr, local, &interface_defect);
  const MPI_Comm full = raw_mpi_comm(*full_assembler_.comm());
  const std::vector<double>& times = states_.step_times();
  // J: the groups' parts of every step (one group each), then the sum in step order over the group's ranks.
  MPI_Allreduce(MPI_IN_PLACE, objective_parts_.data(), static_cast<int>(objective_parts_.size()), MPI_DOUBLE, MPI_SUM,
                time_comm_);
  Gradient result;
  result.objective = objective_.total(*assembler_, times, objective_parts_);
  result.parameters = local.parameters;
  if (!result.parameters.empty())
    MPI_Allreduce(MPI_IN_PLACE, result.parameters.data(), static_cast<int>(result.parameters.size()), MPI_DOUBLE,
                  MPI_SUM, full);
  for (const auto& [name, values] : local.controls) {
    auto& total = result.controls[name];
    total = values;
    if (!total.empty())
      MPI_Allreduce(MPI_IN_PLACE, total.data(), static_cast<int>(total.size()), MPI_DOUBLE, MPI_SUM, full);
  }
  objective_.add_control_gradient(assembler_->model(), times, result.controls);
  // dJ/d(given q, v) from group 0 (the others add zeros).
  const auto& dofs = assembler_->dofs();
  const std::vector<double> none(zero_q_.size(), 0.0);
  std::vector<double> global;
  gather_global({group_ == 0 ? &dq_ : &none, group_ == 0 ? &dv_ : &none}, dofs.owned_coordinates(),
                dofs.coordinate_count(), full, global);
  const auto size = static_cast<long>(dofs.coordinate_count());
  result.initial_coordinates.assign(global.begin(), global.begin() + size);
  result.initial_velocities.assign(global.begin() + size, global.end());
  return result;
}

}  // namespace flexadj::adjoint
