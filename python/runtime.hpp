#pragma once
// MPI and Kokkos for the Python module's lifetime. MPI is started by the first use unless it runs already (mpi4py
// imported first started it: then mpi4py also ends it). stop() runs at interpreter exit (atexit): it releases the
// solver objects of every Problem still alive (they hold Tpetra objects that must go before Kokkos ends), then
// ends Kokkos, and MPI if start() started it.
#include <functional>

#include "flexadj/core/tpetra_types.hpp"

namespace flexadj::python {

// Starts MPI (if needed) and Kokkos once; later calls do nothing. RuntimeError after stop().
void start();
void stop();
// MPI_COMM_WORLD as Teuchos sees it (starts the runtime).
RCP<const Comm> world();

// A live object whose Tpetra state release() frees before stop() ends Kokkos.
class Releasable {
 public:
  Releasable();
  virtual ~Releasable();
  Releasable(const Releasable&) = delete;
  Releasable& operator=(const Releasable&) = delete;
  virtual void release() = 0;
};

}  // namespace flexadj::python
