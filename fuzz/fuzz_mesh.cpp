// libFuzzer harness: read_mesh (Medit .mesh).
#include "fastcd/io/mesh_io.hpp"
#include "fuzz_util.hpp"

using namespace fastcd::fuzz;

FASTCD_FUZZ_READER("in.mesh", "read_mesh", {
  const fastcd::MeditMesh m = fastcd::read_mesh(path);
  const auto dim = m.X.cols();
  check((dim == 2 || dim == 3) && m.T.cols() == dim + 1 && m.T.rows() > 0, "read_mesh: bad shapes");
  check(m.F.cols() == 3 && (dim == 3 || m.F.rows() == 0), "read_mesh: bad F shape");
  check_finite(m.X, "read_mesh: X");
  check_indices(m.T, m.X.rows(), "read_mesh: T");
  check_indices(m.F, m.X.rows(), "read_mesh: F");
})
