#include "flexadj/adjoint/adjoint_constraint_history.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <algorithm>
#include <cmath>

#include "flexadj/assembly/system_vector.hpp"

namespace flexadj::adjoint {

namespace {

double global_max_abs(const assembly::Assembler& assembler, const std::vector<double>& x) {
  double local = 0.0;
  for (double value : x) local = std::max(local, std::abs(value));
  double global = 0.0;
  Teuchos::reduceAll(*assembler.comm(), Teuchos::REDUCE_MAX, local, Teuchos::outArg(global));
  return global;
}

}  // namespace

void AdjointConstraintHistory::reset(std::size_t count) {
  times.assign(count, 0.0);
  violations.assign(count, 0.0);
  magnitudes.assign(count, 0.0);
}

void AdjointConstraintHistory::record(assembly::Assembler& assembler, std::size_t step, double t,
                                      const std::vector<double>& q, const std::vector<double>& xi,
                                      assembly::State& work) {
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  work.q = q;
  std::fill(work.a.begin(), work.a.end(), 0.0);
  std::fill(work.lambda.begin(), work.lambda.end(), 0.0);
  std::vector<double> with_xi, without;
  for (std::vector<double>* out : {&with_xi, &without}) {
    if (out == &with_xi) work.v = xi;
    else std::fill(work.v.begin(), work.v.end(), 0.0);
    assembler.assemble(work, t, assembly::ConstraintLevel::Velocity, 1.0, &mass_only);
    const assembly::ConstSystemVectorView residual(assembler.residual(), xi.size());
    out->assign(residual.multipliers(), residual.multipliers() + work.lambda.size());
  }
  for (std::size_t k = 0; k < with_xi.size(); ++k) with_xi[k] -= without[k];
  times[step] = t;
  violations[step] = global_max_abs(assembler, with_xi);
  magnitudes[step] = global_max_abs(assembler, xi);
}

}  // namespace flexadj::adjoint
