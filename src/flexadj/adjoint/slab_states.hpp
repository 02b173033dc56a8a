#pragma once
// The forward states a time group of the spacetime adjoint reads (docs/adjoint.md, "Forward states per slab"):
// held in memory, either passed on from the trajectory of the forward run or recomputed by the group from the disk
// checkpoint at or below its first slab's start, with its own integrator on its own ranks, as
// CheckpointedTrajectory recomputes (the recorded times and step sizes, the integrator's restart data from the
// file, the forward assembly mode).
#include <mpi.h>

#include <map>
#include <vector>

#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/storage/checkpointed_trajectory.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::adjoint {

// The states of chosen steps in memory; step(n) of any other step is a logic error.
class SlabTrajectory final : public storage::Trajectory {
 public:
  void begin_recording() override { states_.clear(); }
  void record(long long step, double, const assembly::State& state) override {
    states_[static_cast<std::size_t>(step)] = state;
  }
  const std::vector<double>& step_times() const override { return times_; }
  const assembly::State& step(std::size_t n) override;
  bool holds(std::size_t n) const { return states_.count(n) > 0; }
  std::vector<double> times_;

 private:
  std::map<std::size_t, assembly::State> states_;
};

// Global vectors (`owned.size()` fields of `size` values each) from the owned values of the ranks of `comm` (ids:
// this rank's global ids; a field of another length is left out), and field `field` of such a vector back to
// owned values.
void gather_global(const std::vector<const std::vector<double>*>& owned, const std::vector<long long>& ids,
                   long long size, MPI_Comm comm, std::vector<double>& global);
void scatter(const std::vector<double>& global, std::size_t field, long long size, const std::vector<long long>& ids,
             long long offset, std::vector<double>& owned);

// The first step each of `groups` time groups reads (the step before its first slab; slabs as make_slabs()).
std::vector<std::size_t> group_first_steps(std::size_t steps, std::size_t slabs, std::size_t groups);
// A disk interval for the spacetime adjoint: the least divisor of every group's first step that is at least
// `interval` (so each group starts at a file, with no more files than `interval` gives), or `interval` if there is
// none (the groups then start from the file below).
std::size_t slab_compatible_interval(std::size_t steps, std::size_t slabs, std::size_t groups, std::size_t interval);

struct SlabRecomputation {
  std::size_t checkpoint = 0;        // the disk checkpoint the group started from
  std::size_t recomputed_steps = 0;  // forward steps the group took
};

// Time group `group` (of `first_needed.size()`; rank g of `time_comm` is this rank's place in group g) reads steps
// first_needed[group] .. last_needed of the run recorded in `source` (which has a disk tier), and steps 0 and N.
// Each group reads the disk checkpoint c = floor(first / m) m (m: the disk interval) and steps its `integrator` on
// `group_assembler` from c to last_needed, keeping the steps it reads in `states`; steps 0 and N pass from the
// first and the last group to the others. The files are read by all ranks together (their layout is the forward
// run's ranks, `full`), one per distinct c, and reach a group's layout through global numbering unless the group
// is all ranks. Collective over `full`.
SlabRecomputation recompute_slab_states(storage::CheckpointedTrajectory& source, assembly::Assembler& full,
                                        assembly::Assembler& group_assembler, integrators::TimeIntegrator& integrator,
                                        const std::vector<std::size_t>& first_needed, std::size_t group,
                                        std::size_t last_needed, MPI_Comm time_comm, SlabTrajectory& states);

}  // namespace flexadj::adjoint
