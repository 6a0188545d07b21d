// libFuzzer harness: read_obj (Wavefront OBJ surface).
#include "fastcd/io/mesh_io.hpp"
#include "fuzz_util.hpp"

using namespace fastcd::fuzz;

FASTCD_FUZZ_READER("in.obj", "read_obj", {
  const fastcd::SurfaceMesh m = fastcd::read_obj(path);
  check(m.V.cols() == 3 && m.V.rows() > 0 && m.F.cols() == 3, "read_obj: bad shapes");
  check_finite(m.V, "read_obj: V");
  check_indices(m.F, m.V.rows(), "read_obj: F");
})
