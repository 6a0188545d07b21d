// libFuzzer harness: read_off.
#include "fastcd/io/mesh_io.hpp"
#include "fuzz_util.hpp"

using namespace fastcd::fuzz;

FASTCD_FUZZ_READER("in.off", "read_off", {
  const fastcd::SurfaceMesh m = fastcd::read_off(path);
  check(m.V.cols() == 3 && m.F.cols() == 3, "read_off: bad shapes");
  check_finite(m.V, "read_off: V");
  check_indices(m.F, m.V.rows(), "read_off: F");
})
