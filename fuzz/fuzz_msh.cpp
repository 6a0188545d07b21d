// libFuzzer harness: read_msh (Gmsh 2.2 / 4.1, ASCII and binary).
#include "fastcd/io/mesh_io.hpp"
#include "fuzz_util.hpp"

using namespace fastcd::fuzz;

FASTCD_FUZZ_READER("in.msh", "read_msh", {
  const fastcd::MshMesh m = fastcd::read_msh(path);
  const auto dim = m.X.cols();
  check((dim == 2 || dim == 3) && m.T.cols() == dim + 1 && m.T.rows() > 0, "read_msh: bad shapes");
  check(m.physical.size() == m.T.rows(), "read_msh: physical has the wrong size");
  check_finite(m.X, "read_msh: X");
  check_indices(m.T, m.X.rows(), "read_msh: T");
})
