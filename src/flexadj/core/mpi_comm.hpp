#pragma once
// The MPI communicator behind a Teuchos communicator (flexadj always runs on Teuchos::MpiComm).
#include <mpi.h>

#include <Teuchos_DefaultMpiComm.hpp>
#include <stdexcept>

#include "flexadj/core/tpetra_types.hpp"

namespace flexadj {

inline MPI_Comm raw_mpi_comm(const Comm& comm) {
  const auto* mpi = dynamic_cast<const Teuchos::MpiComm<int>*>(&comm);
  if (!mpi) throw std::logic_error("flexadj needs an MPI communicator");
  return (*mpi->getRawMpiComm())();
}

}  // namespace flexadj
