// GoogleTest main for flexadj tests: initialises MPI and prints results on rank 0 only.
#include <gtest/gtest.h>
#include <mpi.h>

#include "flexadj/core/open_mpi_settings.hpp"

int main(int argc, char** argv) {
  flexadj::configure_open_mpi();  // as flexadj::Runtime
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
