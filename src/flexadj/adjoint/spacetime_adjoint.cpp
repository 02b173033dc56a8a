#include "flexadj/adjoint/spacetime_adjoint.hpp"

#include <Amesos2.hpp>
#include <Teuchos_CommHelpers.hpp>
#include <mpi.h>
#include <BelosBlockGmresSolMgr.hpp>
#include <BelosLinearProblem.hpp>
#include <BelosStatusTestLogResNorm.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Tpetra_Operator.hpp>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "flexadj/adjoint/spacetime_matrix.hpp"
#include "flexadj/adjoint/spacetime_system.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/core/mpi_comm.hpp"

namespace flexadj::adjoint {
namespace {

using Operator = Tpetra::Operator<double, LocalOrdinal, GlobalOrdinal, Node>;

// A, or the preconditioner M^-1, of the spacetime system as a Tpetra operator for Belos.
class SystemOperator final : public Operator {
 public:
  enum class Kind { System, SlabSolve, TwoLevel, TwoLevelFcf };
  SystemOperator(SpacetimeSystem& system, Kind kind, std::size_t coarsening = 1)
      : system_(system), kind_(kind), coarsening_(coarsening) {}
  RCP<const Map> getDomainMap() const override { return system_.map(); }
  RCP<const Map> getRangeMap() const override { return system_.map(); }
  void apply(const MultiVector& x, MultiVector& y, Teuchos::ETransp mode = Teuchos::NO_TRANS, double alpha = 1.0,
             double beta = 0.0) const override {
    if (mode != Teuchos::NO_TRANS) throw std::logic_error("the spacetime operator has no transpose");
    const std::size_t length = x.getLocalLength();
    std::vector<double> result(length);
    std::vector<double> norms(x.getNumVectors());
    x.normInf(Teuchos::ArrayView<double>(norms));
    for (std::size_t k = 0; k < x.getNumVectors(); ++k) {
      const auto in = x.getData(k);
      if (norms[k] == 0.0) std::fill(result.begin(), result.end(), 0.0);  // Belos' first residual: no sweep
      else if (kind_ == Kind::System) system_.apply(in.getRawPtr(), result.data());
      else if (kind_ == Kind::SlabSolve) system_.slab_solve(in.getRawPtr(), result.data());
      else system_.two_level_solve(in.getRawPtr(), result.data(), coarsening_, kind_ == Kind::TwoLevelFcf);
      auto out = y.getDataNonConst(k);
      for (std::size_t i = 0; i < length; ++i) out[i] = alpha * result[i] + (beta == 0.0 ? 0.0 : beta * out[i]);
    }
  }

 private:
  SpacetimeSystem& system_;
  Kind kind_;
  std::size_t coarsening_;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A x = b by Belos GMRES with the preconditioner of options.solver; SolverError if it does not converge.
void solve_gmres(SpacetimeSystem& system, const SpacetimeOptions& options, std::size_t slabs,
                 const RCP<MultiVector>& b, const RCP<MultiVector>& x, SpacetimeStatistics& s);

}  // namespace

const std::vector<std::string>& spacetime_solvers() {
  static const std::vector<std::string> solvers{"gmres-slab", "gmres-two-level", "gmres-two-level-fcf", "gmres",
                                                "direct"};
  return solvers;
}

Gradient spacetime_adjoint_gradient(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                                    storage::Trajectory& trajectory, const objectives::Objective& objective,
                                    const model::ParameterSpace& parameters, const SpacetimeOptions& options,
                                    SpacetimeStatistics* statistics) {
  const auto& solvers = spacetime_solvers();
  if (integrator.settings().end_condition || integrator.settings().fixed_steps > 0)
    throw std::invalid_argument("the spacetime adjoint does not differentiate an implicit or free final time (the "
                                "discrete adjoint does)");
  if (std::find(solvers.begin(), solvers.end(), options.solver) == solvers.end())
    throw std::invalid_argument("spacetime solver: unknown '" + options.solver + "'");
  SpacetimeStatistics local_statistics;
  SpacetimeStatistics& s = statistics ? *statistics : local_statistics;
  auto start = std::chrono::steady_clock::now();
  const std::size_t steps = trajectory.step_count() - 1;
  const int ranks = assembler.comm()->getSize();
  std::size_t slabs = options.slabs > 0 ? options.slabs : static_cast<std::size_t>(ranks);
  slabs = std::max<std::size_t>(1, std::min(slabs, steps));
  const std::size_t groups = options.groups > 0 ? options.groups : default_time_groups(ranks, slabs);
  SpacetimeSystem system(assembler, integrator, trajectory, objective, parameters, slabs, groups);
  if (options.kept_step_memory > 0.0) system.keep_steps(static_cast<std::size_t>(options.kept_step_memory));
  s.slabs = slabs;
  s.groups = groups;
  s.steps = steps;
  s.recomputed = system.recomputed();
  s.group_checkpoints.clear();
  s.group_recomputed_steps.clear();
  s.group_first_steps = group_first_steps(steps, slabs, groups);
  if (s.recomputed)
    for (const SlabRecomputation& r : system.recomputation_by_group()) {
      s.group_checkpoints.push_back(r.checkpoint);
      s.group_recomputed_steps.push_back(r.recomputed_steps);
    }

  auto b = rcp(new MultiVector(system.map(), 1)), x = rcp(new MultiVector(system.map(), 1));
  system.right_hand_side(b->getDataNonConst(0).getRawPtr());
  s.setup_seconds = seconds_since(start);
  start = std::chrono::steady_clock::now();

  if (options.solver == "direct") {
    // The reference: the assembled matrix (spacetime_matrix.hpp) factored by Amesos2 KLU2, for small problems.
    const RCP<CrsMatrix> matrix = assemble_spacetime_matrix(system);
    auto direct = Amesos2::create<CrsMatrix, MultiVector>("KLU2", matrix, x, b);
    direct->symbolicFactorization().numericFactorization().solve();
    MultiVector r(system.map(), 1);
    system.apply(x->getData(0).getRawPtr(), r.getDataNonConst(0).getRawPtr());
    r.update(1.0, *b, -1.0);
    std::vector<double> norms(1), b_norm(1);
    r.norm2(Teuchos::ArrayView<double>(norms));
    b->norm2(Teuchos::ArrayView<double>(b_norm));
    s.iterations = 0;
    s.residuals = {norms[0] / std::max(b_norm[0], 1e-300)};
    if (s.residuals[0] > options.tolerance) {
      std::ostringstream message;
      message << "the spacetime adjoint's direct solve left a relative residual |b - A x| / |b| of " << s.residuals[0]
              << " (tolerance " << options.tolerance << ")";
      throw SolverError(message.str());
    }
  } else {
    solve_gmres(system, options, slabs, b, x, s);
  }
  s.solve_seconds = seconds_since(start);
  start = std::chrono::steady_clock::now();
  Gradient gradient = system.gradient(x->getData(0).getRawPtr(), s.interface_defect);
  s.gradient_seconds = seconds_since(start);
  if (!(s.interface_defect <= kLargestInterfaceDefect)) {
    std::ostringstream message;
    message << "the spacetime adjoint's interface defect " << s.interface_defect << " exceeds "
            << kLargestInterfaceDefect << " (the gradient would be wrong in its leading digits): "
            << (options.solver == "direct" ? "the direct solve" : "GMRES") << " stopped at a relative residual of "
            << (s.attained_residual >= 0.0 ? s.attained_residual : s.residuals.empty() ? 0.0 : s.residuals.back())
            << " after " << s.iterations << " iterations (tolerance " << options.tolerance
            << "); ask for less with --spacetime-tolerance";
    throw SolverError(message.str());
  }
  s.adjoint_steps = system.adjoint_steps_taken();
  const integrators::KeptAdjointStatistics& kept = system.kept_steps();
  double counts[2] = {double(kept.kept), double(kept.not_kept)}, bytes = double(kept.bytes);
  MPI_Bcast(counts, 2, MPI_DOUBLE, 0, raw_mpi_comm(*assembler.comm()));
  Teuchos::reduceAll(*assembler.comm(), Teuchos::REDUCE_MAX, double(kept.bytes), Teuchos::outArg(bytes));
  s.kept_steps = static_cast<std::size_t>(counts[0]);
  s.steps_taken_again = static_cast<std::size_t>(counts[1]);
  s.kept_bytes = bytes;
  s.kept_refusal = options.kept_step_memory > 0.0 ? kept.refusal : "no memory was given for them";
  return gradient;
}

namespace {

void solve_gmres(SpacetimeSystem& system, const SpacetimeOptions& options, std::size_t slabs,
                 const RCP<MultiVector>& b, const RCP<MultiVector>& x, SpacetimeStatistics& s) {
  // GMRES without restarts (the iteration count is about P with the slab preconditioner); residuals scaled by |b|.
  const int max_iterations = options.max_iterations > 0 ? options.max_iterations : 2 * int(slabs) + 20;
  auto belos = Teuchos::rcp(new Teuchos::ParameterList);
  belos->set("Convergence Tolerance", options.tolerance);
  belos->set("Maximum Iterations", max_iterations);
  belos->set("Num Blocks", max_iterations);
  belos->set("Implicit Residual Scaling", "Norm of RHS");
  belos->set("Explicit Residual Scaling", "Norm of RHS");
  auto problem = rcp(new Belos::LinearProblem<double, MultiVector, Operator>());
  problem->setOperator(rcp(new SystemOperator(system, SystemOperator::Kind::System)));
  if (options.solver == "gmres-slab")
    problem->setRightPrec(rcp(new SystemOperator(system, SystemOperator::Kind::SlabSolve)));
  else if (options.solver == "gmres-two-level")
    problem->setRightPrec(rcp(new SystemOperator(system, SystemOperator::Kind::TwoLevel, options.coarsening)));
  else if (options.solver == "gmres-two-level-fcf")
    problem->setRightPrec(rcp(new SystemOperator(system, SystemOperator::Kind::TwoLevelFcf, options.coarsening)));
  problem->setProblem(x, b);
  Belos::BlockGmresSolMgr<double, MultiVector, Operator> solver(problem, belos);
  auto log = rcp(new Belos::StatusTestLogResNorm<double, MultiVector, Operator>(max_iterations));
  solver.setDebugStatusTest(log);
  const Belos::ReturnType outcome = b->getVector(0)->norm2() == 0.0 ? Belos::Converged : solver.solve();
  s.iterations = solver.getNumIters();
  std::vector<double> b_norm(1);
  b->norm2(Teuchos::ArrayView<double>(b_norm));
  s.residuals.clear();
  for (double r : log->getLogResNorm()) s.residuals.push_back(r / std::max(b_norm[0], 1e-300));
  if (outcome != Belos::Converged) {
    std::ostringstream message;
    message << "the spacetime adjoint did not converge: GMRES (" << options.solver << ", " << slabs
            << " slabs) reached a relative residual of " << solver.achievedTol() << " after " << s.iterations
            << " iterations (tolerance " << options.tolerance << ")";
    if (solver.achievedTol() <= options.tolerance) {
      // Belos' loss of accuracy: the explicit residual decides.
      MultiVector r(system.map(), 1);
      system.apply(x->getData(0).getRawPtr(), r.getDataNonConst(0).getRawPtr());
      r.update(1.0, *b, -1.0);
      std::vector<double> r_norm(1);
      r.norm2(Teuchos::ArrayView<double>(r_norm));
      const double attained = r_norm[0] / std::max(b_norm[0], 1e-300);
      if (attained <= kRoundOffAllowance * options.tolerance) {
        s.attained_residual = attained;
        return;
      }
      message << ", but the explicit residual |b - A x| / |b| is " << attained
              << " (loss of accuracy: ask for less with --spacetime-tolerance)";
    }
    message << "; residuals:";
    for (double r : s.residuals) message << ' ' << r;
    throw SolverError(message.str());
  }
}

}  // namespace

}  // namespace flexadj::adjoint
