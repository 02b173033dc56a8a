// libFuzzer harness (scripts/fuzz.sh): the expression parser and the evaluation of what it accepts. A rejection
// must be an InputError naming the file and key; anything else escaping, or a sanitizer report, is a crash.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "flexadj/core/error.hpp"
#include "flexadj/functions/expression.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto expression = flexadj::functions::Expression::parse(text, "fuzz.yaml", "forces[0].force", {"k"});
    const double k = 2.0;
    for (double t : {0.0, 0.5, -1.0, 1e300}) expression.evaluate(t, &k);
  } catch (const flexadj::InputError& e) {
    const std::string what = e.what();
    if (what.rfind("fuzz.yaml: forces[0].force: ", 0) != 0) std::abort();  // a rejection that names nothing
  }
  return 0;
}
