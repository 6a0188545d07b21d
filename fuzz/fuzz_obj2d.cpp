// libFuzzer harness: read_obj_2d (planar OBJ as a 2D triangle mesh).
#include "fastcd/io/mesh_io.hpp"
#include "fuzz_util.hpp"

using namespace fastcd::fuzz;

FASTCD_FUZZ_READER("in.obj", "read_obj_2d", {
  const fastcd::Mesh m = fastcd::read_obj_2d(path);
  check(m.X.cols() == 2 && m.X.rows() > 0 && m.T.cols() == 3 && m.T.rows() > 0, "read_obj_2d: bad shapes");
  check_finite(m.X, "read_obj_2d: X");
  check_indices(m.T, m.X.rows(), "read_obj_2d: T");
})
