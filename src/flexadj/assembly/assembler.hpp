#pragma once
// Global assembly of the index-3 saddle-point system over MPI ranks.
//
//   residual = [ s (M a - Q + C_q^T lambda) ]      matrix = [ s (c_q (K + H) + c_v D + c_a M)   C_q^T ]
//              [ constraint at the chosen level ]             [ C_q                                0     ]
//
// with K = dR/dq, D = dR/dv, M = dR/da, H = d(C_q^T lambda)/dq and s a row scale chosen by the
// integrator (Arnold and Bruls 2007, sec. 4 / Bottasso et al. 2008: s = beta h^2 makes the blocks
// of the generalized-alpha iteration matrix O(1)); the multiplier part of a solution of this matrix
// is s times the multiplier increment. The matrix graph is built once; each assembly only
// refills values (Tpetra FECrsMatrix: contributions to rows of other ranks are added by Export).
#include <functional>
#include <map>
#include <string>
#include <memory>
#include <vector>

#include "flexadj/assembly/dof_map.hpp"
#include "flexadj/assembly/ghost_transfer.hpp"
#include "flexadj/assembly/local_gradient.hpp"
#include "flexadj/assembly/pool_span.hpp"
#include "flexadj/assembly/value_runs.hpp"
#include "flexadj/assembly/body_partition.hpp"
#include "flexadj/core/tpetra_types.hpp"
#include "flexadj/model/model.hpp"

namespace Tpetra {
template <class LO, class GO, class N> class FECrsGraph;
template <class S, class LO, class GO, class N> class FECrsMatrix;
}  // namespace Tpetra

namespace flexadj::integrators {
class VariationalAssembly;
}
namespace flexadj::model {
class BatchedForceElement;
struct ForceBatch;
}

namespace flexadj::assembly {

enum class ConstraintLevel { Position, Velocity, Acceleration };

// The state of this rank: owned coordinates in DofMap::owned_coordinates() order, owned multipliers
// in DofMap::owned_multipliers() order. aux is the auxiliary acceleration of generalized-alpha and the momentum
// p_n of the variational integrator (integrators/variational.hpp).
struct State {
  std::vector<double> q, v, a, aux, lambda;
};

class Assembler {
 public:
  // partition: which rank owns which body (body_partition.hpp). Collective.
  Assembler(const model::Model& model, RCP<const Comm> comm, Partition partition = Partition::Blocks);
  // Its components' index spans point into its own pools.
  Assembler(const Assembler&) = delete;
  Assembler& operator=(const Assembler&) = delete;
  ~Assembler();

  const model::Model& model() const { return model_; }
  const DofMap& dofs() const { return dofs_; }
  RCP<const Comm> comm() const { return comm_; }
  RCP<const Map> system_map() const { return system_map_; }
  // Owned system matrix (rows: owned coordinates, then owned multipliers) and residual.
  RCP<const CrsMatrix> matrix() const;
  const Vector& residual() const { return *residual_; }

  State make_state() const;
  // Sets the state of this rank from vectors in global numbering.
  void scatter_global(const std::vector<double>& q, const std::vector<double>& v, State& state) const;

  // Wall time in assemble() so far (element and constraint kernels, the exchange of ghosted values).
  double assembly_seconds() const { return assembly_seconds_; }

  // Fills residual() and, if coefficients is given, matrix().
  // With projection_target, the system of the projection of the initial state onto the constraints instead
  // (no force elements): residual [x - target + C_q^T lambda; constraint at level] with x = q (Position) or
  // v (Velocity), matrix [I + coefficients.q d(C_q^T lambda)/dq, C_q^T; C_q, 0].
  void assemble(const State& state, double t, ConstraintLevel level, double scale,
                const model::JacobianCoefficients* coefficients,
                const std::vector<double>* projection_target = nullptr);

  // The matrix of assemble(state, t, level, 1, &coefficients) alone, for systems whose right-hand side is formed
  // elsewhere (the velocity systems, the joint-space mass matrix): the constraints' values at the level are not
  // evaluated, the force elements give their Jacobians alone (ForceElement::jacobian_alone), and residual() keeps
  // what the last assemble() gave it.
  void assemble_matrix(const State& state, double t, ConstraintLevel level,
                       const model::JacobianCoefficients& coefficients);

  // The constraint rows of residual() alone, as assemble(state, t, Position, scale, nullptr) fills them, without
  // evaluating the force elements (the coordinate rows then hold the constraint forces only): the check of the
  // constraints after a Newton step has converged (constraint_residual_norm(), worst_constraint()).
  void assemble_constraint_rows(const State& state, double t, double scale);

  // With transposed set, assemble() fills the transpose A^T of the matrix above (the residual is unchanged):
  // the force elements' blocks are transposed; the constraint blocks (C_q^T, C_q, the symmetric Hessian
  // H) are their own transpose, so A^T has the graph of A. Adjoint sweeps solve with A^T by any linear solver
  // (docs/adjoint.md). ScopedTransposedAssembly sets it for a scope.
  void set_transposed(bool transposed) { transposed_ = transposed; }
  bool transposed() const { return transposed_; }
  // Factor on the contributions of applied loads (ForceElement::applied_load) in assemble(): the load
  // steps of a static solve; 1 otherwise.
  void set_load_factor(double factor) { load_factor_ = factor; }
  double load_factor() const { return load_factor_; }

  // Norms over all ranks of the last residual: dynamic rows and constraint rows (max norm).
  double dynamic_residual_norm() const;
  double constraint_residual_norm() const;
  // Index of the constraint with the largest residual in the last assembly (model order), and that residual.
  std::pair<int, double> worst_constraint() const;

  // Where a non-finite (NaN or Inf) residual comes from: "force element 'push' (load)" or "constraint 'rod'
  // (distance)", the first in model order whose residual at this state, time and level is not finite; "the state"
  // if the state itself is not finite; empty if none. Collective.
  std::string nonfinite_source(const State& state, double t, ConstraintLevel level);

  // Kinetic plus potential energy (collective); the kinetic part into *kinetic if given.
  double energy(const State& state, double t, double* kinetic = nullptr);

  // y = A^T x with the last assembled matrix (collective).
  void apply_transposed(const Vector& x, Vector& y) const;

  // Adjoint sensitivities (adjoint_products.cpp). mu is a system vector: mu_r on the coordinate rows, mu_c on the
  // multiplier rows. gradient.parameters[offset + k] += mu_r . dR/dp_k + mu_c . dC/dp_k over the components of this
  // rank, with R = M a - Q + C_q^T lambda and C the constraint at `level`; constraints_only leaves out the force
  // elements (R = C_q^T lambda, as in the initial-state projection). A component whose offset in `gradient` is -1
  // is skipped. Control inputs: gradient.controls[signal][k] += (mu_r . dR/du(t)) * (weight of value k at t).
  // Collective (imports).
  void add_parameter_gradient(const State& state, double t, const Vector& mu, ConstraintLevel level,
                              bool constraints_only, LocalGradient& gradient);
  // Adjoint products on the owned coordinates, element by element (no matrix):
  //   out_q = K^T mu_r + C_q^T mu_c, out_v = D^T mu_r, out_a = M^T mu_r
  // with K = dR/dq including d(C_q^T lambda)/dq. mu_c may be empty (then taken as zero); constraints_only
  // leaves out the force elements. Collective.
  void adjoint_products(const State& state, double t, const std::vector<double>& mu_r, const std::vector<double>& mu_c,
                        bool constraints_only, std::vector<double>& out_q, std::vector<double>& out_v,
                        std::vector<double>& out_a);
  // The adjoint step's matrix and products from one kernel pass per component. assemble_adjoint_matrix() fills
  // matrix() as assemble(state, t, Position, scale, &coefficients) does (transposed if transposed()), without the
  // residual, and keeps each component's Jacobians: dr/dq, dr/dv, dr/da of the force elements, C_q and
  // H = d(C_q^T lambda)/dq of the constraints. kept_adjoint_products() then gives what adjoint_products() gives at
  // that state (to round-off) from the kept Jacobians, without evaluating the kernels again. The kept Jacobians
  // take 3 n^2 doubles per force element and (n + m) n per constraint, allocated at the first call. Collective.
  void assemble_adjoint_matrix(const State& state, double t, double scale, const model::JacobianCoefficients& coefficients);
  // `jacobians`: a copy of kept_jacobians() from an earlier assembly (nullptr: the last one's).
  void kept_adjoint_products(const std::vector<double>& mu_r, const std::vector<double>& mu_c,
                             std::vector<double>& out_q, std::vector<double>& out_v, std::vector<double>& out_a,
                             const std::vector<double>* jacobians = nullptr);
  const std::vector<double>& kept_jacobians() const { return kept_jacobians_; }
  // out_q += (dc/dq)^T mu_c and out_v += (dc/dv)^T mu_c for the velocity- or acceleration-level constraints
  // c (owned coordinates; mu_c owned multipliers). Collective.
  void add_constraint_level_transposed(const State& state, double t, ConstraintLevel level,
                                       const std::vector<double>& mu_c, std::vector<double>& out_q,
                                       std::vector<double>& out_v);

  // The tangent-linear model and the second-order adjoint (second_order_products.cpp; docs/adjoint.md,
  // "Second-order adjoint"); non-holonomic constraints g = A v + b enter with A in place of C_q as the forces'
  // directions and g as the rows of the step (model/component.hpp, VelocityConstraint). The direction is
  // `tangent` (q_dot, v_dot, a_dot, lambda_dot of this rank), direction.parameters (p_dot of the force elements and
  // constraints, in the layout of a LocalGradient of the same ParameterSpace) and direction.controls (u_dot_k of
  // each control signal's values). Where `direction` is a pointer, nullptr holds the constraints' parameters.
  // r_dot = dR/de on the owned coordinates, c_dot = dC/de on the owned multipliers (overwrites residual()).
  // Collective.
  void tangent_residual(const State& state, const State& tangent, double t, const LocalGradient& direction,
                        std::vector<double>& r_dot, std::vector<double>& c_dot);
  // out_q = d/de (K^T mu_r + C_q^T mu_c), out_v = d/de D^T mu_r, out_a = d/de M^T mu_r (mu held; K including
  // d(C_q^T lambda)/dq) on the owned coordinates, m_dot = d/de C_q mu_r on the owned multipliers;
  // gradient.parameters += d/de mu_r . dR/dp of the force elements, gradient.controls += d/de mu_r . dR/du(t) times
  // the value weights. Collective.
  void second_order_products(const State& state, const State& tangent, double t, const LocalGradient& direction,
                             const std::vector<double>& mu_r, const std::vector<double>& mu_c,
                             std::vector<double>& out_q, std::vector<double>& out_v, std::vector<double>& out_a,
                             std::vector<double>& m_dot, LocalGradient& gradient);

  // The constraints' part of second_order_products() alone (the variational integrator's constraint terms, the
  // projections and consistent accelerations): out_q = d/de (H^T mu_r + C_q^T mu_c) with H = d(C_q^T lambda)/dq at
  // state.lambda, along tangent.q, tangent.lambda and the constraints' p_dot, and m_dot = d/de C_q mu_r (mu held).
  // `level` names the rows mu_c belongs to; it matters for non-holonomic constraints only: at Velocity and
  // Acceleration level their rows' unknowns are v or a, so out_q gets d/de (A^T mu_c); at Position level (a position
  // projection) they have identity rows and add nothing. Collective.
  void constraint_second_order_products(const State& state, const State& tangent, double t, ConstraintLevel level,
                                        const std::vector<double>& mu_r, const std::vector<double>& mu_c,
                                        std::vector<double>& out_q, std::vector<double>& m_dot,
                                        const LocalGradient* direction = nullptr);

  // The consistent initial state's tangent and its second-order adjoint, along tangent.q, tangent.v, tangent.a and
  // the constraints' p_dot (non-holonomic ones: g at levels 0 and 1, dg/ds at 2): c_dot = d/de of the constraints at
  // `level` on the owned
  // multipliers, and out_q += d/de ((dc/dq)^T mu_c), out_v += d/de ((dc/dv)^T mu_c) of the level's c (mu_c held;
  // add_constraint_level_transposed differentiated). Collective.
  void constraint_level_tangent(const State& state, const State& tangent, double t, ConstraintLevel level,
                                std::vector<double>& c_dot, const LocalGradient* direction = nullptr);
  void add_constraint_level_transposed_tangent(const State& state, const State& tangent, double t,
                                               ConstraintLevel level, const std::vector<double>& mu_c,
                                               std::vector<double>& out_q, std::vector<double>& out_v,
                                               const LocalGradient* direction = nullptr);
  // The constraints' parameter part of the tangent alone: r_dot = d/dp (C_q^T state.lambda) p_dot on the owned
  // coordinates, c_dot = C_p p_dot on the owned multipliers (q and lambda held); with along_q, q moves along
  // along_q->q as well (r_dot then includes H q_dot, c_dot C_q q_dot). Non-holonomic constraints add their forces'
  // part (A^T lambda) alone: they have no position level. Collective.
  void constraint_parameter_tangent(const State& state, double t, const LocalGradient& direction,
                                    std::vector<double>& r_dot, std::vector<double>& c_dot,
                                    const State* along_q = nullptr);
  // The constraints' part of add_parameter_gradient() differentiated along the direction (tangent.q, v, a, lambda
  // and direction's p_dot; mu_r, mu_c held, owned): gradient.parameters += d/de [lambda . (C_q mu_r) + mu_c . c]_{,p}
  // with c at `level`, for the constraints with wanted parameters. Collective.
  void add_constraint_parameter_second_order(const State& state, const State& tangent, double t,
                                             const LocalGradient& direction, const std::vector<double>& mu_r,
                                             const std::vector<double>& mu_c, ConstraintLevel level,
                                             LocalGradient& gradient);

  // Calls visit(force element index, local q, local v) for each force element evaluated on this rank, in
  // DofMap::local_force_elements() order (collective: imports ghost coordinates first).
  void visit_local_force_elements(const State& state,
                                  const std::function<void(int, const double* q, const double* v)>& visit);

  // Calls visit(constraint index, local q, local lambda, C_q) for each constraint evaluated on this rank (for a
  // non-holonomic constraint A = dg/dv, the directions of its forces, in place of C_q),
  // in DofMap::local_constraints() order (collective: imports ghost coordinates first).
  void visit_local_constraints(
      const State& state, double t,
      const std::function<void(int, const double* q, const double* lambda, const double* Cq)>& visit);

 private:
  double assembly_seconds_ = 0.0;
  struct LocalComponent {
    int index = 0;                        // in the model's force element or constraint list
    PoolSpan<int> state_entries;          // into the ghosted coordinate vectors
    PoolSpan<int> rows;                   // its coordinate rows, local in the ghosted system map
    int first_multiplier = 0;             // into State::lambda
    PoolSpan<int> multiplier_rows;        // local in the ghosted system map
    // Where its matrix entries live in the values of the assembly-mode (ghosted) matrix, row by row as assemble()
    // adds them: constraints rows x (coordinate and multiplier columns), then multiplier rows x coordinate columns;
    // force elements as runs of adjacent entries (value_runs.hpp). Found once, so that assembly adds without
    // searching the rows.
    PoolSpan<std::size_t> value_offsets;
    PoolSpan<ValueRun> value_runs;
  };
  void import_state(const State& state, bool velocities, bool accelerations);
  // assemble()'s rows and entries of a non-holonomic constraint (assembler.cpp); its local q, v, a loaded.
  void add_velocity_constraint(const LocalComponent& c, const model::VelocityConstraint& constraint,
                               const State& state, double t, ConstraintLevel level, double scale,
                               const model::JacobianCoefficients* coefficients, bool projection, double* residual,
                               double* values);
  // The ghosted matrix's values, cleared, to be summed into at LocalComponent::value_offsets, and their completion
  // (the owners' sums). Where the matrix has no ghost rows (one rank) the values are written in place: the structure
  // never changes, and FECrsMatrix::endAssembly() would repeat fillComplete(), which costs a small model more than
  // its element loop.
  double* begin_matrix_values();
  void end_matrix_values();
  // Imports owned vectors into the ghosted columns q, v, a (nullptr: zero).
  void import_columns(const double* q, const double* v, const double* a);
  // out = the owned sum of ghosted_work_'s first column (Export with ADD).
  void export_first_work_column(std::vector<double>& out);
  // out_q += and out_v += the owned sums of ghosted_work_'s first two columns.
  void add_first_two_work_columns(std::vector<double>& out_q, std::vector<double>& out_v);
  // The ghosted q, v, a of the last import, fetched once per sweep over the components.
  struct GhostedViews {
    Teuchos::ArrayRCP<const double> q, v, a;
  };
  GhostedViews ghosted_views() const;
  // Copies a component's local q, v, a into the work arrays q_, v_, a_.
  void load(const LocalComponent& c, const GhostedViews& views);
  // The adjoint products' communication: mu_r into the ghosted mu, the three ghosted sum columns cleared; then the
  // sums exported (ADD) to the owned out_q, out_v, out_a.
  void import_products_mu(const std::vector<double>& mu_r);
  void export_products(std::vector<double>& out_q, std::vector<double>& out_v, std::vector<double>& out_a);

  const model::Model& model_;
  RCP<const Comm> comm_;
  DofMap dofs_;
  RCP<const Map> coordinate_map_, ghosted_coordinate_map_, system_map_, ghosted_system_map_;
  std::unique_ptr<GhostTransfer> coordinate_transfer_, system_transfer_;
  RCP<MultiVector> owned_work_, ghosted_work_;  // three coordinate columns for adjoint products
  RCP<Vector> owned_mu_, ghosted_mu_;
  RCP<MultiVector> owned_state_, ghosted_state_;  // columns q, v, a
  RCP<Vector> residual_, ghosted_residual_;
  using FEGraph = Tpetra::FECrsGraph<LocalOrdinal, GlobalOrdinal, Node>;
  using FEMatrix = Tpetra::FECrsMatrix<double, LocalOrdinal, GlobalOrdinal, Node>;
  RCP<FEGraph> graph_;
  RCP<FEMatrix> matrix_;
  std::vector<LocalComponent> forces_, constraints_;
  // forces_ in consecutive groups: up to model::kBatchLanes elements that share a batch kernel
  // (model/force_batch.hpp), which assemble() evaluates together for the Newton matrix, or a single element
  // (kernel nullptr) that takes its own path.
  struct ForceGroup {
    int first = 0, count = 1;
    const model::BatchedForceElement* kernel = nullptr;
  };
  std::vector<ForceGroup> force_groups_;
  void group_force_elements();
  // A group's lanes: their elements and local q, v, a in the batch work arrays (padded with the last element).
  model::ForceBatch load_batch(const ForceGroup& group, const GhostedViews& views, double t);
  // assemble()'s residual and Newton matrix of one batched group.
  void add_force_batch(const ForceGroup& group, double t, double scale, const model::JacobianCoefficients& coefficients,
                       const GhostedViews& views, double* residual, double* values);
  // The batches' lane-major work arrays (sized for the largest batched element; the Jacobians: three of them).
  std::vector<double> batch_q_, batch_v_, batch_a_, batch_r_, batch_jacobian_;
  std::vector<const model::ForceElement*> batch_elements_;
  struct ComponentDraft;
  // Copies the constructor's drafts into forces_, constraints_ and the pools.
  void pack_components(const std::vector<ComponentDraft>& force_drafts,
                       const std::vector<ComponentDraft>& constraint_drafts);
  // The components' indices, in the order of forces_ then constraints_ (LocalComponent's spans point here).
  std::vector<int> index_pool_;
  std::vector<std::size_t> offset_pool_;
  std::vector<ValueRun> run_pool_;
  std::vector<std::size_t> coordinate_diagonal_offsets_;  // values offset of each owned coordinate row's diagonal
  double load_factor_ = 1.0;
  // Work arrays sized for the largest component: no allocation during assembly or adjoint sweeps.
  std::vector<double> q_, v_, a_, r_, jacobian_, hessian_, c_, c_dot_, c_ddot_, row_;
  bool transposed_ = false;
  bool without_forces_ = false;  // assemble() leaves out the force elements (assemble_constraint_rows)
  bool matrix_only_ = false;     // assemble() forms the matrix alone (assemble_matrix)
  std::vector<double> mu_local_, mu_multipliers_, zero_multipliers_, out_q_local_, out_v_local_, out_a_local_,
      d_dq_, d_dv_, force_rows_;
  // assemble_adjoint_matrix()'s Jacobians: component k's block starts at kept_offsets_[k] (force elements, then
  // constraints, in the order of forces_ and constraints_).
  std::vector<double> kept_jacobians_;
  std::vector<std::size_t> kept_offsets_;
  // The tangent's columns q_dot, v_dot, a_dot, owned and ghosted, and a component's local tangent and p_dot
  // (second_order_products.cpp; made at the first call).
  void import_tangent(const State& tangent);
  // The constraint loop of second_order_products() on the imported state, tangent and mu_r: sums into the first
  // two ghosted work columns (the second: non-holonomic rows of the step, at Position level outside a projection).
  void add_constraint_second_order_products(const State& state, const State& tangent, double t, ConstraintLevel level,
                                            bool projection, const std::vector<double>& mu_c,
                                            std::vector<double>& m_dot, const LocalGradient* direction);
  // p_dot of a constraint's parameters in `direction`, nullptr where it has none wanted (or no direction).
  static const double* constraint_p_dot(const LocalGradient* direction, int constraint) {
    if (!direction || direction->constraint_offsets[constraint] < 0) return nullptr;
    return direction->parameters.data() + direction->constraint_offsets[constraint];
  }
  void load_state_tangent(const LocalComponent& c);
  void load_tangent(const LocalComponent& c, const LocalGradient& direction, int offset, int parameter_count);
  double control_tangent(const model::ForceElement& element, const LocalGradient& direction, double t) const;
  RCP<MultiVector> owned_tangent_, ghosted_tangent_;
  std::vector<double> q_dot_, v_dot_, a_dot_, p_dot_, c_tangent_;
  // The element loops of the variational step (integrators/variational_assembly.cpp) use the ghosting and the
  // component tables directly.
  friend class integrators::VariationalAssembly;
};

// Sets the assembler to transposed assembly (or, with transposed = false, back to the forward matrices: a
// checkpointed trajectory recomputing forward steps inside a backward sweep) for a scope.
class ScopedTransposedAssembly {
 public:
  explicit ScopedTransposedAssembly(Assembler& assembler, bool transposed = true)
      : assembler_(assembler), previous_(assembler.transposed()) {
    assembler_.set_transposed(transposed);
  }
  ~ScopedTransposedAssembly() { assembler_.set_transposed(previous_); }
  ScopedTransposedAssembly(const ScopedTransposedAssembly&) = delete;
  ScopedTransposedAssembly& operator=(const ScopedTransposedAssembly&) = delete;

 private:
  Assembler& assembler_;
  bool previous_;
};

}  // namespace flexadj::assembly
