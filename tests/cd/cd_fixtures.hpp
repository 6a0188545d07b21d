#pragma once
// Shared set-up for the solver tests: the tutorial's beam, rig and roll-out.
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.hpp"

namespace fastcd::test {

inline nlohmann::json simkit_reference() {
  const std::string path = std::string(FASTCD_SHARED_DIR) + "/reference/tutorial23_beam_simkit.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("simkit reference not found at " + path + " (set FASTCD_SHARED_DIR)");
  return nlohmann::json::parse(in);
}

inline MatrixXd reference_positions(const nlohmann::json& ref, const char* solver, int step) {
  const auto rows = ref[solver][std::to_string(step)].get<std::vector<std::vector<double>>>();
  MatrixXd P(static_cast<Index>(rows.size()), 2);
  for (std::size_t v = 0; v < rows.size(); ++v) P.row(static_cast<Index>(v)) << rows[v][0], rows[v][1];
  return P;
}

inline double relative_error(const MatrixXd& A, const MatrixXd& Ref) { return (A - Ref).norm() / Ref.norm(); }

/// Simulation options for the small test rigs: the given solver, `modes` skinning modes and
/// `clusters` rotation clusters (few enough for their rig-orthogonal space).
inline SimulationOptions small_options(SolverKind kind, int modes, int clusters) {
  SimulationOptions o;
  o.solver = kind;
  o.cd.modes = modes;
  o.cd.clusters = clusters;
  return o;
}

/// A 3D tet mesh, one affine handle, and a small rig-driven motion.
struct Small3D {
  Mesh m;
  SparseMatrix Mv;
  LinearRig rig;
  explicit Small3D(int nx = 6, int ny = 4, int nz = 4) : m(tetrahedralized_grid(nx, ny, nz)) {
    m.X.col(0) *= 2.0;
    Mv = kron_identity(massmatrix(m.X, m.T, 1e3), 3);
    rig = affine_handle_rig(m.X, Mv);
  }
};

}  // namespace fastcd::test
