#pragma once
// The JSON summary of a forward run (`flexadj simulate --summary`): model size, steps, Newton and Krylov counts,
// constraint residual, energy drift, wall time, linear solver and peak memory per rank. Read by the benchmarks.
#include <string>
#include <vector>

#include "flexadj/integrators/simulation.hpp"
#include "flexadj/linalg/linear_solver.hpp"
#include "flexadj/model/model.hpp"

namespace flexadj::integrators {

// Rank 0 alone calls it; written under a temporary name and renamed. InputError (the path, --summary) if it
// cannot be created, OutputError if writing fails.
void write_summary_json(const std::string& path, const model::Model& model, const SimulationSummary& summary,
                        int ranks, const linalg::LinearSolver& solver, const std::vector<double>& peak_rss_mib,
                        const std::string& output);

}  // namespace flexadj::integrators
