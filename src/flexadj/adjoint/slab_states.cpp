#include "flexadj/adjoint/slab_states.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "flexadj/adjoint/spacetime_system.hpp"
#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/storage/checkpoint_file.hpp"

namespace flexadj::adjoint {

const assembly::State& SlabTrajectory::step(std::size_t n) {
  const auto found = states_.find(n);
  if (found == states_.end()) throw std::logic_error("SlabTrajectory: step " + std::to_string(n) + " not held");
  return found->second;
}

void gather_global(const std::vector<const std::vector<double>*>& owned, const std::vector<long long>& ids,
                   long long size, MPI_Comm comm, std::vector<double>& global) {
  global.assign(owned.size() * std::size_t(size), 0.0);
  for (std::size_t f = 0; f < owned.size(); ++f)
    if (owned[f]->size() == ids.size())
      for (std::size_t i = 0; i < ids.size(); ++i) global[f * std::size_t(size) + std::size_t(ids[i])] = (*owned[f])[i];
  MPI_Allreduce(MPI_IN_PLACE, global.data(), static_cast<int>(global.size()), MPI_DOUBLE, MPI_SUM, comm);
}

void scatter(const std::vector<double>& global, std::size_t field, long long size, const std::vector<long long>& ids,
             long long offset, std::vector<double>& owned) {
  owned.resize(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) owned[i] = global[field * std::size_t(size) + std::size_t(ids[i] - offset)];
}

std::vector<std::size_t> group_first_steps(std::size_t steps, std::size_t slabs, std::size_t groups) {
  const std::vector<Slab> all = make_slabs(steps, slabs);
  std::vector<std::size_t> first;
  for (std::size_t g = 0; g < groups; ++g) first.push_back(all[g * slabs / groups].first - 1);
  return first;
}

std::size_t slab_compatible_interval(std::size_t steps, std::size_t slabs, std::size_t groups, std::size_t interval) {
  if (interval == 0) return 0;
  std::size_t common = 0;  // gcd of the first steps (group 0's is 0)
  for (std::size_t first : group_first_steps(steps, slabs, groups)) common = std::gcd(common, first);
  if (common == 0) return interval;  // one group: it starts at step 0
  for (std::size_t m = interval; m <= common; ++m)
    if (common % m == 0) return m;
  return interval;
}

namespace {

// A state (and restart data with one value per owned coordinate, or none) in global numbering over `comm`.
struct GlobalState {
  std::vector<double> coordinates, multipliers, restart;  // q, v, a, aux; lambda; restart data (empty: none)
};

void to_global(const assembly::Assembler& assembler, const assembly::State& state, const std::vector<double>& restart,
               MPI_Comm comm, GlobalState& global) {
  const auto& dofs = assembler.dofs();
  const long long nc = dofs.coordinate_count(), nm = dofs.multiplier_count();
  gather_global({&state.q, &state.v, &state.a, &state.aux}, dofs.owned_coordinates(), nc, comm, global.coordinates);
  gather_global({&state.lambda}, dofs.owned_multipliers(), nm + nc, comm, global.multipliers);
  // The restart data: none (generalized-alpha) or per owned coordinate (the variational integrator's mean
  // acceleration); anything else has no global numbering here.
  int has = restart.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &has, 1, MPI_INT, MPI_MAX, comm);
  global.restart.clear();
  if (has == 0) return;
  if (restart.size() != dofs.owned_coordinates().size())
    throw std::logic_error("spacetime adjoint: restart data of another layout than the coordinates");
  gather_global({&restart}, dofs.owned_coordinates(), nc, comm, global.restart);
}

void from_global(const assembly::Assembler& assembler, const GlobalState& global, assembly::State& state,
                 std::vector<double>& restart) {
  const auto& dofs = assembler.dofs();
  const long long nc = dofs.coordinate_count(), nm = dofs.multiplier_count();
  scatter(global.coordinates, 0, nc, dofs.owned_coordinates(), 0, state.q);
  scatter(global.coordinates, 1, nc, dofs.owned_coordinates(), 0, state.v);
  scatter(global.coordinates, 2, nc, dofs.owned_coordinates(), 0, state.a);
  scatter(global.coordinates, 3, nc, dofs.owned_coordinates(), 0, state.aux);
  scatter(global.multipliers, 0, nm + nc, dofs.owned_multipliers(), 0, state.lambda);
  restart.clear();
  if (!global.restart.empty()) scatter(global.restart, 0, nc, dofs.owned_coordinates(), 0, restart);
}

// Step n from group `owner` to the groups that do not hold it (global numbering over the owner's ranks, then to
// the same place in every group).
void share_step(std::size_t n, std::size_t owner, std::size_t group, assembly::Assembler& group_assembler,
                MPI_Comm time_comm, SlabTrajectory& states) {
  GlobalState global;
  const auto& dofs = group_assembler.dofs();
  const long long nc = dofs.coordinate_count(), nm = dofs.multiplier_count();
  if (group == owner) {
    to_global(group_assembler, states.step(n), {}, raw_mpi_comm(*group_assembler.comm()), global);
  } else {
    global.coordinates.assign(4 * std::size_t(nc), 0.0);
    global.multipliers.assign(std::size_t(nm + nc), 0.0);
  }
  const int root = static_cast<int>(owner);
  MPI_Bcast(global.coordinates.data(), static_cast<int>(global.coordinates.size()), MPI_DOUBLE, root, time_comm);
  MPI_Bcast(global.multipliers.data(), static_cast<int>(global.multipliers.size()), MPI_DOUBLE, root, time_comm);
  if (group == owner || states.holds(n)) return;
  assembly::State state = group_assembler.make_state();
  std::vector<double> none;
  from_global(group_assembler, global, state, none);
  states.record(static_cast<long long>(n), 0.0, state);
}

}  // namespace

SlabRecomputation recompute_slab_states(storage::CheckpointedTrajectory& source, assembly::Assembler& full,
                                        assembly::Assembler& group_assembler, integrators::TimeIntegrator& integrator,
                                        const std::vector<std::size_t>& first_needed, std::size_t group,
                                        std::size_t last_needed, MPI_Comm time_comm, SlabTrajectory& states) {
  const std::vector<double>& times = source.step_times();
  const std::size_t steps = times.size() - 1, interval = source.disk().interval, groups = first_needed.size();
  if (interval == 0) throw std::logic_error("recompute_slab_states: the trajectory has no disk checkpoints");
  const bool same_layout = &full == &group_assembler;
  const MPI_Comm full_comm = raw_mpi_comm(*full.comm());
  std::vector<std::size_t> starts;
  for (std::size_t first : first_needed) starts.push_back(first / interval * interval);
  SlabRecomputation result;
  result.checkpoint = starts[group];
  const std::size_t first = first_needed[group];

  // The checkpoint of this group (each distinct file read once, by all ranks in the same order).
  assembly::State state = group_assembler.make_state();
  std::vector<double> restart;
  std::vector<std::size_t> distinct = starts;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (std::size_t c : distinct) {
    assembly::State read = full.make_state();
    std::vector<double> data;
    storage::read_checkpoint_file(source.disk().path(static_cast<long long>(c)), full,
                                  {source.disk().run, static_cast<long long>(c), times[c]}, read, data);
    if (same_layout) {
      if (c == starts[group]) state = std::move(read), restart = std::move(data);
      continue;
    }
    GlobalState global;
    to_global(full, read, data, full_comm, global);
    if (c == starts[group]) from_global(group_assembler, global, state, restart);
  }

  // Steps c + 1 .. last_needed as the forward run took them (CheckpointedTrajectory::advance()).
  states.times_ = times;
  states.begin_recording();
  {
    const assembly::ScopedTransposedAssembly forward_assembly(group_assembler, false);
    integrator.load_restart_data(restart);
    std::size_t n = starts[group];
    if (n >= first) states.record(static_cast<long long>(n), times[n], state);
    for (; n < last_needed; ++n) {
      integrator.step(state, times[n], times[n + 1] - times[n], static_cast<long long>(n + 1));
      ++result.recomputed_steps;
      if (n + 1 >= first) states.record(static_cast<long long>(n + 1), times[n + 1], state);
    }
  }
  if (groups > 1) {
    share_step(0, 0, group, group_assembler, time_comm, states);
    share_step(steps, groups - 1, group, group_assembler, time_comm, states);
  }
  return result;
}

}  // namespace flexadj::adjoint
