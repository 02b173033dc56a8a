// GoogleTest main for flexadj tests: initialises MPI and prints results on rank 0 only.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>

int main(int argc, char** argv) {
  // Without mpirun, neither a daemon for dynamic process management nor the UCX probe (as flexadj::Runtime).
  if (!std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("PMIX_RANK") && !std::getenv("PMI_RANK")) {
    setenv("OMPI_MCA_ess_singleton_isolated", "1", /*overwrite=*/0);
    setenv("OMPI_MCA_pml", "ob1", /*overwrite=*/0);
  }
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = RUN_ALL_TESTS();
  // A test fails if it failed on any rank.
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any_failed;
}
