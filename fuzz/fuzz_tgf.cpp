// libFuzzer harness: read_tgf (handle graphs).
#include "fastcd/io/rig_io.hpp"
#include "fuzz_util.hpp"

using namespace fastcd::fuzz;

FASTCD_FUZZ_READER("in.tgf", "read_tgf", {
  const fastcd::TgfGraph g = fastcd::read_tgf(path);
  const auto n = g.C.rows();
  check(n > 0 && g.C.cols() == 3, "read_tgf: bad C shape");
  check(g.E.cols() == 2 && g.BE.cols() == 2 && g.PE.cols() == 2 && g.CE.cols() == 2, "read_tgf: bad edge shapes");
  check(g.BE.rows() <= g.E.rows() && g.PE.rows() <= g.E.rows() && g.CE.rows() <= g.E.rows(),
        "read_tgf: more flagged edges than edges");
  check_finite(g.C, "read_tgf: C");
  check_indices(g.E, n, "read_tgf: E");
  check_indices(g.BE, n, "read_tgf: BE");
  check_indices(g.PE, n, "read_tgf: PE");
  check_indices(g.CE, n, "read_tgf: CE");
  check_indices(g.P, n, "read_tgf: P");
  for (Eigen::Index e = 0; e < g.E.rows(); ++e) check(g.E(e, 0) != g.E(e, 1), "read_tgf: self edge");
})
