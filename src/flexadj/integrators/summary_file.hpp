#pragma once
// The JSON summary of a forward run (`flexadj simulate --summary`): model size, steps, Newton and Krylov counts,
// constraint residual, energy drift, wall time, linear solver, and per rank its peak memory and where its time went.
// Read by the benchmarks.
#include <string>
#include <vector>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/integrators/simulation.hpp"
#include "flexadj/linalg/linear_solver.hpp"
#include "flexadj/model/model.hpp"

namespace flexadj::integrators {

// Per rank, on rank 0 (empty elsewhere): peak memory, and the wall time in assembly (kernels and the exchange of
// ghosted values), in the linear solver's factorizations (and preconditioner set-up) and in its solves. The
// messages of each are inside its time.
struct RankCosts {
  std::vector<double> peak_rss_mib, assembly_seconds, factorization_seconds, solve_seconds;
};

// Collective.
RankCosts gather_rank_costs(const assembly::Assembler& assembler, const linalg::LinearSolver& solver);

// Rank 0 alone calls it; written under a temporary name and renamed. InputError (the path, --summary) if it
// cannot be created, OutputError if writing fails.
void write_summary_json(const std::string& path, const model::Model& model, const SimulationSummary& summary,
                        int ranks, const linalg::LinearSolver& solver, const RankCosts& costs,
                        const std::string& output);

}  // namespace flexadj::integrators
