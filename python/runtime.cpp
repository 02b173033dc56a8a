#include "runtime.hpp"

#include <memory>
#include <set>
#include <stdexcept>

#include "flexadj/core/runtime.hpp"

namespace flexadj::python {
namespace {

std::unique_ptr<Runtime> runtime;
bool stopped = false;
std::set<Releasable*>& live() {
  static std::set<Releasable*> objects;
  return objects;
}

}  // namespace

void start() {
  if (stopped) throw std::runtime_error("flexadj: MPI and Kokkos were finalized (interpreter exit)");
  if (runtime) return;
  // Kokkos reads (and may remove) its options from the arguments: give it the program name only.
  static char name[] = "python";
  static char* arguments[] = {name, nullptr};
  runtime = std::make_unique<Runtime>(arguments);
}

void stop() {
  for (Releasable* object : live()) object->release();
  runtime.reset();  // Tpetra::finalize: Kokkos, and MPI if Tpetra started it
  stopped = true;
}

RCP<const Comm> world() {
  start();
  return runtime->comm();
}

Releasable::Releasable() { live().insert(this); }
Releasable::~Releasable() { live().erase(this); }

}  // namespace flexadj::python
