/*
  PETSc peer of flexadj on the spring-chain model (benchmarks/peers/README.md; the same model as
  spring_chain_model.py writes for flexadj).

  A planar chain of N point masses (mass m) joined by linear spring-dampers: spring 1 ties mass 1 to a ground
  anchor at the origin, spring i (i = 2..N) ties mass i-1 to mass i. Spring i between points a and b
  (d = p_b - p_a, L = |d|, u = d/L, w = v_b - v_a) has the tension T = k_i (L - L0) + c u.w and pushes b by
  f_b = -T u and a by -f_b (flexadj's spring_damper). Gravity g in -y.

  First-order implicit form, unknowns y = (x_1, y_1, vx_1, vy_1, ..., x_N, y_N, vx_N, vy_N) (4N, interleaved by
  mass so that the matrix is banded):
      F(t, y, y') = [ q' - v ; m v' - f(q, v) + m g e_y ] = 0.
  TSCN (trapezoidal rule, theta = 1/2 endpoint), fixed step, SNES Newton (newtonls) with KSPPREONLY + PCLU
  (PETSc's own sparse LU unless -pc_factor_mat_solver_type says otherwise), hand-written sparse Jacobian
  dF/dy + shift dF/dy' in a preallocated AIJ matrix. J = y_N(t_end); its gradient with respect to the N
  stiffnesses by TSAdjoint (discrete adjoint of TSCN) with TSSetCostGradients and TSSetIJacobianP (dF/dk).

  Options (besides PETSc's):
    -n N            number of masses (default 10)
    -steps S        number of steps (default 1000)
    -dt H           step size (default 1e-3)
    -o FILE.csv     write name,value,gradient per stiffness (as flexadj gradient -o)
    -fd LIST        comma-separated 1-based spring indices: central finite differences of J for them
    -fd_rel R       relative perturbation of the stiffness for -fd (default 1e-4)
  Prints J, the gradient's norm, Newton iterations per step and
    timing  forward X s, adjoint Y s
  (PetscTime around TSSolve and TSAdjointSolve).
*/
#include <petscts.h>

typedef struct {
  PetscInt   n;         /* masses */
  PetscReal  m, c, L0, g;
  PetscReal *k;         /* stiffnesses, k[j] of spring j+1 */
  PetscReal *x0, *y0;   /* initial positions */
} Chain;

/* The same numbers as spring_chain_model.py's parameters(). */
static PetscErrorCode ChainSetup(Chain *ch, PetscInt n)
{
  PetscFunctionBeginUser;
  ch->n  = n;
  ch->m  = 1.0;
  ch->c  = 1.0;
  ch->L0 = 0.1;
  ch->g  = 9.81;
  PetscCall(PetscMalloc3(n, &ch->k, n, &ch->x0, n, &ch->y0));
  for (PetscInt i = 1; i <= n; ++i) {
    ch->x0[i - 1] = i * ch->L0 + 0.01 * ch->L0 * PetscSinReal(1.3 * i);
    ch->y0[i - 1] = 0.01 * ch->L0 * PetscCosReal(2.1 * i);
    ch->k[i - 1]  = 1000.0 * (1.0 + 0.1 * PetscSinReal(0.7 * i));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ChainDestroy(Chain *ch)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(ch->k, ch->x0, ch->y0));
  PetscFunctionReturn(0);
}

/* Spring j (0-based) joins a = j - 1 (ground at the origin when j = 0) and b = j. Separation, its rate, length. */
static inline void SpringGeometry(const Chain *ch, const PetscScalar *y, PetscInt j, PetscReal d[2], PetscReal w[2],
                                  PetscReal *L)
{
  const PetscScalar *yb = y + 4 * j;
  d[0] = PetscRealPart(yb[0]);
  d[1] = PetscRealPart(yb[1]);
  w[0] = PetscRealPart(yb[2]);
  w[1] = PetscRealPart(yb[3]);
  if (j > 0) {
    const PetscScalar *ya = y + 4 * (j - 1);
    d[0] -= PetscRealPart(ya[0]);
    d[1] -= PetscRealPart(ya[1]);
    w[0] -= PetscRealPart(ya[2]);
    w[1] -= PetscRealPart(ya[3]);
  }
  *L = PetscSqrtReal(d[0] * d[0] + d[1] * d[1]);
  (void)ch;
}

static PetscErrorCode IFunction(TS ts, PetscReal t, Vec Y, Vec Ydot, Vec F, void *ctx)
{
  const Chain       *ch = (const Chain *)ctx;
  const PetscScalar *y, *yd;
  PetscScalar       *f;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(Y, &y));
  PetscCall(VecGetArrayRead(Ydot, &yd));
  PetscCall(VecGetArray(F, &f));
  for (PetscInt i = 0; i < ch->n; ++i) {
    f[4 * i + 0] = yd[4 * i + 0] - y[4 * i + 2];
    f[4 * i + 1] = yd[4 * i + 1] - y[4 * i + 3];
    f[4 * i + 2] = ch->m * yd[4 * i + 2];
    f[4 * i + 3] = ch->m * yd[4 * i + 3] + ch->m * ch->g;
  }
  for (PetscInt j = 0; j < ch->n; ++j) {
    PetscReal d[2], w[2], L;
    SpringGeometry(ch, y, j, d, w, &L);
    const PetscReal u0 = d[0] / L, u1 = d[1] / L;
    const PetscReal T = ch->k[j] * (L - ch->L0) + ch->c * (u0 * w[0] + u1 * w[1]);
    /* f_b = -T u enters F_b with a minus sign, f_a = T u likewise */
    f[4 * j + 2] += T * u0;
    f[4 * j + 3] += T * u1;
    if (j > 0) {
      f[4 * (j - 1) + 2] -= T * u0;
      f[4 * (j - 1) + 3] -= T * u1;
    }
  }
  PetscCall(VecRestoreArrayRead(Y, &y));
  PetscCall(VecRestoreArrayRead(Ydot, &yd));
  PetscCall(VecRestoreArray(F, &f));
  PetscFunctionReturn(0);
}

/* dF/dy + shift dF/dy'. Spring j adds T u to F_b (the v rows of mass b) and -T u to F_a. With P = I - u u^T:
     d(T u)/dd = u dT/dd + T P / L,  dT/dd = k u^T + c (P w)^T / L,  d(T u)/dw = c u u^T,
   and d/dq_b = d/dd = -d/dq_a, d/dv_b = d/dw = -d/dv_a. */
static PetscErrorCode IJacobian(TS ts, PetscReal t, Vec Y, Vec Ydot, PetscReal shift, Mat A, Mat B, void *ctx)
{
  const Chain       *ch = (const Chain *)ctx;
  const PetscScalar *y;

  PetscFunctionBeginUser;
  PetscCall(MatZeroEntries(B));
  PetscCall(VecGetArrayRead(Y, &y));
  for (PetscInt i = 0; i < ch->n; ++i) {
    for (PetscInt a = 0; a < 2; ++a) {
      const PetscInt    rq = 4 * i + a, rv = 4 * i + 2 + a, cols[2] = {4 * i + a, 4 * i + 2 + a};
      const PetscScalar qrow[2] = {shift, -1.0};
      PetscCall(MatSetValues(B, 1, &rq, 2, cols, qrow, ADD_VALUES));
      PetscCall(MatSetValue(B, rv, rv, shift * ch->m, ADD_VALUES));
    }
  }
  for (PetscInt j = 0; j < ch->n; ++j) {
    PetscReal d[2], w[2], L;
    SpringGeometry(ch, y, j, d, w, &L);
    const PetscReal u[2] = {d[0] / L, d[1] / L};
    const PetscReal uw   = u[0] * w[0] + u[1] * w[1];
    const PetscReal T    = ch->k[j] * (L - ch->L0) + ch->c * uw;
    /* P = I - u u^T; d(u.w)/dd = (P w)^T / L; dT/dd = k u^T + c (P w)^T / L;
       d f_b/dd = -(u dT/dd + T P / L) */
    const PetscReal Pw[2] = {w[0] - u[0] * uw, w[1] - u[1] * uw};
    PetscScalar     Kn[4], Dn[4], Kp[4], Dp[4]; /* d(T u)/dd, d(T u)/dw and their negatives */
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) {
        const PetscReal P   = (a == b ? 1.0 : 0.0) - u[a] * u[b];
        const PetscReal dTb = ch->k[j] * u[b] + ch->c * Pw[b] / L;
        Kn[2 * a + b]       = u[a] * dTb + T * P / L;
        Dn[2 * a + b]       = ch->c * u[a] * u[b];
        Kp[2 * a + b]       = -Kn[2 * a + b];
        Dp[2 * a + b]       = -Dn[2 * a + b];
      }
    const PetscInt rb[2] = {4 * j + 2, 4 * j + 3}, qb[2] = {4 * j, 4 * j + 1}, vb[2] = {4 * j + 2, 4 * j + 3};
    PetscCall(MatSetValues(B, 2, rb, 2, qb, Kn, ADD_VALUES));
    PetscCall(MatSetValues(B, 2, rb, 2, vb, Dn, ADD_VALUES));
    if (j > 0) {
      const PetscInt ra[2] = {4 * (j - 1) + 2, 4 * (j - 1) + 3}, qa[2] = {4 * (j - 1), 4 * (j - 1) + 1};
      const PetscInt va[2] = {4 * (j - 1) + 2, 4 * (j - 1) + 3};
      PetscCall(MatSetValues(B, 2, rb, 2, qa, Kp, ADD_VALUES));
      PetscCall(MatSetValues(B, 2, rb, 2, va, Dp, ADD_VALUES));
      PetscCall(MatSetValues(B, 2, ra, 2, qb, Kp, ADD_VALUES));
      PetscCall(MatSetValues(B, 2, ra, 2, vb, Dp, ADD_VALUES));
      PetscCall(MatSetValues(B, 2, ra, 2, qa, Kn, ADD_VALUES));
      PetscCall(MatSetValues(B, 2, ra, 2, va, Dn, ADD_VALUES));
    }
  }
  PetscCall(VecRestoreArrayRead(Y, &y));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  if (A != B) {
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/* dF/dk (4N x N): F_b = ... + T u, dT/dk_j = L - L0, so dF_b/dk_j = (L - L0) u, dF_a/dk_j = -(L - L0) u. */
static PetscErrorCode IJacobianP(TS ts, PetscReal t, Vec Y, Vec Ydot, PetscReal shift, Mat A, void *ctx)
{
  const Chain       *ch = (const Chain *)ctx;
  const PetscScalar *y;

  PetscFunctionBeginUser;
  PetscCall(MatZeroEntries(A));
  PetscCall(VecGetArrayRead(Y, &y));
  for (PetscInt j = 0; j < ch->n; ++j) {
    PetscReal d[2], w[2], L;
    SpringGeometry(ch, y, j, d, w, &L);
    const PetscReal   s      = (L - ch->L0) / L;
    const PetscScalar vb[2]  = {s * d[0], s * d[1]}, va[2] = {-s * d[0], -s * d[1]};
    const PetscInt    rb[2]  = {4 * j + 2, 4 * j + 3};
    PetscCall(MatSetValues(A, 2, rb, 1, &j, vb, INSERT_VALUES));
    if (j > 0) {
      const PetscInt ra[2] = {4 * (j - 1) + 2, 4 * (j - 1) + 3};
      PetscCall(MatSetValues(A, 2, ra, 1, &j, va, INSERT_VALUES));
    }
  }
  PetscCall(VecRestoreArrayRead(Y, &y));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode InitialState(const Chain *ch, Vec Y)
{
  PetscScalar *y;

  PetscFunctionBeginUser;
  PetscCall(VecGetArray(Y, &y));
  for (PetscInt i = 0; i < ch->n; ++i) {
    y[4 * i + 0] = ch->x0[i];
    y[4 * i + 1] = ch->y0[i];
    y[4 * i + 2] = 0.0;
    y[4 * i + 3] = 0.0;
  }
  PetscCall(VecRestoreArray(Y, &y));
  PetscFunctionReturn(0);
}

/* The Jacobian's nonzero pattern: a q row has its own q (shift) and v (-1) entries; a v row the q and v of the
   masses i-1, i, i+1. */
static PetscErrorCode CreateJacobian(const Chain *ch, Mat *J)
{
  const PetscInt n4 = 4 * ch->n;
  PetscInt      *nnz;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n4, &nnz));
  for (PetscInt i = 0; i < ch->n; ++i) {
    const PetscInt neighbours = 1 + (i > 0) + (i + 1 < ch->n);
    nnz[4 * i] = nnz[4 * i + 1] = 2;
    nnz[4 * i + 2] = nnz[4 * i + 3] = 4 * neighbours;
  }
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n4, n4, 0, nnz, J));
  PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscFree(nnz));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateJacobianP(const Chain *ch, Mat *Jp)
{
  const PetscInt n4 = 4 * ch->n;
  PetscInt      *nnz;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n4, &nnz));
  for (PetscInt i = 0; i < ch->n; ++i) {
    nnz[4 * i] = nnz[4 * i + 1] = 0;
    nnz[4 * i + 2] = nnz[4 * i + 3] = 1 + (i + 1 < ch->n);
  }
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n4, ch->n, 0, nnz, Jp));
  PetscCall(MatSetOption(*Jp, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscFree(nnz));
  PetscFunctionReturn(0);
}

/* A TS for the model: TSCN, fixed steps, Newton with LU; PETSc options may override all of it. */
static PetscErrorCode CreateTS(Chain *ch, PetscInt steps, PetscReal dt, Mat J, TS *ts)
{
  SNES     snes;
  KSP      ksp;
  PC       pc;
  TSAdapt  adapt;

  PetscFunctionBeginUser;
  PetscCall(TSCreate(PETSC_COMM_SELF, ts));
  PetscCall(TSSetProblemType(*ts, TS_NONLINEAR));
  PetscCall(TSSetType(*ts, TSCN));
  PetscCall(TSSetIFunction(*ts, NULL, IFunction, ch));
  PetscCall(TSSetIJacobian(*ts, J, J, IJacobian, ch));
  PetscCall(TSSetTime(*ts, 0.0));
  PetscCall(TSSetTimeStep(*ts, dt));
  PetscCall(TSSetMaxSteps(*ts, steps));
  PetscCall(TSSetMaxTime(*ts, (steps + 0.5) * dt));
  PetscCall(TSSetExactFinalTime(*ts, TS_EXACTFINALTIME_STEPOVER));
  PetscCall(TSGetAdapt(*ts, &adapt));
  PetscCall(TSAdaptSetType(adapt, TSADAPTNONE));
  PetscCall(TSGetSNES(*ts, &snes));
  PetscCall(SNESSetType(snes, SNESNEWTONLS));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCLU));
  PetscFunctionReturn(0);
}

/* J for the model's current stiffnesses (a forward run without trajectory). */
static PetscErrorCode ForwardObjective(Chain *ch, PetscInt steps, PetscReal dt, PetscReal *Jval)
{
  TS                 ts;
  Mat                Jm;
  Vec                Y;
  const PetscScalar *y;

  PetscFunctionBeginUser;
  PetscCall(CreateJacobian(ch, &Jm));
  PetscCall(CreateTS(ch, steps, dt, Jm, &ts));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 4 * ch->n, &Y));
  PetscCall(InitialState(ch, Y));
  PetscCall(TSSolve(ts, Y));
  PetscCall(VecGetArrayRead(Y, &y));
  *Jval = PetscRealPart(y[4 * (ch->n - 1) + 1]);
  PetscCall(VecRestoreArrayRead(Y, &y));
  PetscCall(VecDestroy(&Y));
  PetscCall(TSDestroy(&ts));
  PetscCall(MatDestroy(&Jm));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Chain              ch;
  PetscInt           n = 10, steps = 1000, nfd = 64, fd[64], taken, newton = 0, lin = 0;
  PetscReal          dt = 1e-3, fd_rel = 1e-4, Jval, t0, t1, t2, t3, gnorm;
  char               csv[PETSC_MAX_PATH_LEN] = "";
  PetscBool          have_csv = PETSC_FALSE, have_fd = PETSC_FALSE;
  TS                 ts;
  TSTrajectory       tj;
  Mat                Jm, Jp;
  Vec                Y, lambda[1], mu[1];
  const PetscScalar *y, *g;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "PETSc peer of flexadj: spring chain, TSCN + TSAdjoint\n"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dt", &dt, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-fd_rel", &fd_rel, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", csv, sizeof csv, &have_csv));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-fd", fd, &nfd, &have_fd));
  PetscCheck(n >= 1 && steps >= 1 && dt > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "need -n >= 1, -steps >= 1, -dt > 0");
  PetscCall(ChainSetup(&ch, n));

  PetscCall(CreateJacobian(&ch, &Jm));
  PetscCall(CreateJacobianP(&ch, &Jp));
  PetscCall(CreateTS(&ch, steps, dt, Jm, &ts));
  PetscCall(TSSetIJacobianP(ts, Jp, IJacobianP, &ch));
  PetscCall(TSSetSaveTrajectory(ts));
  PetscCall(TSGetTrajectory(ts, &tj));
  PetscCall(TSTrajectorySetType(tj, ts, TSTRAJECTORYMEMORY));
  PetscCall(TSSetFromOptions(ts));

  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 4 * n, &Y));
  PetscCall(InitialState(&ch, Y));
  PetscCall(PetscTime(&t0));
  PetscCall(TSSolve(ts, Y));
  PetscCall(PetscTime(&t1));
  PetscCall(TSGetStepNumber(ts, &taken));
  PetscCall(TSGetSNESIterations(ts, &newton));
  PetscCall(TSGetKSPIterations(ts, &lin));
  PetscCall(VecGetArrayRead(Y, &y));
  Jval = PetscRealPart(y[4 * (n - 1) + 1]);
  PetscCall(VecRestoreArrayRead(Y, &y));

  /* dJ/dy(t_end) = e_{y of mass N}, no direct dependence of J on k */
  PetscCall(VecDuplicate(Y, &lambda[0]));
  PetscCall(VecZeroEntries(lambda[0]));
  PetscCall(VecSetValue(lambda[0], 4 * (n - 1) + 1, 1.0, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(lambda[0]));
  PetscCall(VecAssemblyEnd(lambda[0]));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &mu[0]));
  PetscCall(VecZeroEntries(mu[0]));
  PetscCall(TSSetCostGradients(ts, 1, lambda, mu));
  PetscCall(PetscTime(&t2));
  PetscCall(TSAdjointSolve(ts));
  PetscCall(PetscTime(&t3));

  PetscCall(VecNorm(mu[0], NORM_2, &gnorm));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "spring_chain_petsc: %" PetscInt_FMT " masses, %" PetscInt_FMT " unknowns, %" PetscInt_FMT " steps of %g s (TSCN, Newton + LU, TSAdjoint)\n", n, 4 * n, taken, (double)dt));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "J = %.15g\n", (double)Jval));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "gradient  |dJ/dk|_2 = %.15g\n", (double)gnorm));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "newton  %" PetscInt_FMT " iterations, %.4f per step; linear iterations %" PetscInt_FMT "\n", newton, (double)newton / (double)taken, lin));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "timing  forward %.6f s, adjoint %.6f s, adjoint/forward %.3f\n", (double)(t1 - t0), (double)(t3 - t2), (double)((t3 - t2) / (t1 - t0))));

  PetscCall(VecGetArrayRead(mu[0], &g));
  if (have_csv) {
    FILE *f;
    PetscCall(PetscFOpen(PETSC_COMM_SELF, csv, "w", &f));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "name,value,gradient\n"));
    for (PetscInt j = 0; j < n; ++j) PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "s%" PetscInt_FMT ".stiffness,%.17g,%.17g\n", j + 1, (double)ch.k[j], (double)PetscRealPart(g[j])));
    PetscCall(PetscFClose(PETSC_COMM_SELF, f));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "output  %s\n", csv));
  }
  if (have_fd) {
    /* central differences of J, each a forward run from scratch with k_j (1 +- fd_rel) */
    for (PetscInt i = 0; i < nfd; ++i) {
      const PetscInt  j = fd[i] - 1;
      const PetscReal kj = ch.k[j], dk = fd_rel * kj;
      PetscReal       Jp_, Jm_;
      PetscCheck(j >= 0 && j < n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-fd: spring %" PetscInt_FMT " is not in 1..%" PetscInt_FMT, fd[i], n);
      ch.k[j] = kj + dk;
      PetscCall(ForwardObjective(&ch, steps, dt, &Jp_));
      ch.k[j] = kj - dk;
      PetscCall(ForwardObjective(&ch, steps, dt, &Jm_));
      ch.k[j] = kj;
      const PetscReal fdv = (Jp_ - Jm_) / (2 * dk), adj = PetscRealPart(g[j]);
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "fd  s%" PetscInt_FMT ".stiffness  adjoint %.12e  central FD %.12e  rel diff %.3e\n", j + 1, (double)adj, (double)fdv, (double)(PetscAbsReal(adj - fdv) / PetscMax(PetscAbsReal(fdv), 1e-300))));
    }
  }
  PetscCall(VecRestoreArrayRead(mu[0], &g));

  PetscCall(VecDestroy(&lambda[0]));
  PetscCall(VecDestroy(&mu[0]));
  PetscCall(VecDestroy(&Y));
  PetscCall(TSDestroy(&ts));
  PetscCall(MatDestroy(&Jm));
  PetscCall(MatDestroy(&Jp));
  PetscCall(ChainDestroy(&ch));
  PetscCall(PetscFinalize());
  return 0;
}
