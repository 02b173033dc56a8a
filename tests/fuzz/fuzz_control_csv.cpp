// libFuzzer harness (scripts/fuzz.sh): the control-signal CSV reader, through a file as in a run, and the
// evaluation of what it accepts. A rejection must be an InputError naming the file and the column; anything
// else escaping, or a sanitizer report, is a crash.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "flexadj/core/error.hpp"
#include "flexadj/functions/control_signal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/flexadj_fuzz_control_" + std::to_string(::getpid()) + ".csv";
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), size);
  using flexadj::functions::ControlSignal;
  try {
    const ControlSignal u =
        ControlSignal::from_csv("u", path, "vx", flexadj::functions::Interpolation::PiecewiseLinear);
    for (double t : {-1.0, 0.0, 0.5, 1e300}) u.value(t);
  } catch (const flexadj::InputError& e) {
    if (std::string(e.what()).rfind(path + ": vx: ", 0) != 0) std::abort();  // a rejection that names nothing
  }
  return 0;
}
