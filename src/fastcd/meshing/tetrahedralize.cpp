#include "fastcd/meshing/tetrahedralize.hpp"

#include <Eigen/Geometry>
#include <chrono>
#include <cmath>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <streambuf>
#include <string>

#include "fastcd/common/check.hpp"
#include "fastcd/meshing/surface.hpp"

namespace nglib {
#include <nglib.h>
}

// Netgen's message streams (libmesh exports them; nglib has no switch for its output).
namespace netgen {
extern std::ostream* mycout;
extern std::ostream* myerr;
extern int printmessage_importance;
}  // namespace netgen

namespace fastcd {

namespace {

// A stream that drops everything.
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

std::mutex& netgen_mutex() {
  static std::mutex* m = new std::mutex;  // never destroyed: may be used during exit
  return *m;
}

// Initialises Netgen once and points its messages at a null stream. Caller holds the mutex.
void netgen_init() {
  static bool done = false;
  if (done) return;
  nglib::Ng_Init();
  static NullBuffer* buffer = new NullBuffer;
  static std::ostream* null = new std::ostream(buffer);
  netgen::mycout = null;
  netgen::myerr = null;
  netgen::printmessage_importance = 0;
  done = true;
}

struct NetgenMesh {
  nglib::Ng_Mesh* mesh = nglib::Ng_NewMesh();
  ~NetgenMesh() { nglib::Ng_DeleteMesh(mesh); }
  NetgenMesh() = default;
  NetgenMesh(const NetgenMesh&) = delete;
  NetgenMesh& operator=(const NetgenMesh&) = delete;
};

}  // namespace

TetMesh tetrahedralize(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                       const TetrahedralizeOptions& options) {
  FASTCD_CHECK(V.cols() == 3 && F.cols() == 3, "need a #V x 3 surface with #F x 3 triangles, got ", shape_of(V),
               " and ", shape_of(F));
  FASTCD_CHECK(F.rows() >= 4, "a closed surface needs at least 4 triangles, got ", F.rows());
  FASTCD_CHECK(options.grading >= 0 && options.grading <= 1, "grading must lie in [0, 1], got ", options.grading);
  FASTCD_CHECK(options.optimize_steps >= 0 && options.optimize_steps <= 100,
               "optimize_steps must lie in [0, 100], got ", options.optimize_steps);
  const SurfaceDefects d = check_surface(V, F);
  FASTCD_CHECK(d.ok(), "the surface does not bound a solid: ", d.describe());
  FASTCD_CHECK(d.volume > 0, "the surface is oriented inward (enclosed volume ", d.volume,
               "); reverse its triangles (normals must point out)");
  {
    std::vector<char> used(static_cast<std::size_t>(V.rows()), 0);
    for (Index i = 0; i < F.size(); ++i) used[static_cast<std::size_t>(F.data()[i])] = 1;
    for (Index v = 0; v < V.rows(); ++v)
      FASTCD_CHECK(used[static_cast<std::size_t>(v)], "vertex ", v, " is used by no triangle (weld the surface first)");
  }

  const auto t0 = std::chrono::steady_clock::now();
  TetMesh out;
  out.mesher = "netgen";
  out.surface_vertices = V.rows();
  {
    std::lock_guard<std::mutex> lock(netgen_mutex());
    netgen_init();
    NetgenMesh m;
    for (Index v = 0; v < V.rows(); ++v) {
      double p[3] = {V(v, 0), V(v, 1), V(v, 2)};
      nglib::Ng_AddPoint(m.mesh, p);
    }
    for (Index f = 0; f < F.rows(); ++f) {
      int tri[3] = {F(f, 0) + 1, F(f, 1) + 1, F(f, 2) + 1};
      nglib::Ng_AddSurfaceElement(m.mesh, nglib::NG_TRIG, tri);
    }
    nglib::Ng_Meshing_Parameters mp;
    mp.maxh = 1e300;  // sizes follow the surface (Netgen adds no interior refinement for a fixed surface)
    mp.grading = options.grading;
    mp.optvolmeshenable = options.optimize_steps > 0 ? 1 : 0;
    mp.optsteps_3d = options.optimize_steps;
    mp.check_overlapping_boundary = 0;  // check_surface did it, and names the triangles
    nglib::Ng_Result r = nglib::NG_ERROR;
    try {
      r = nglib::Ng_GenerateVolumeMesh(m.mesh, &mp);
    } catch (const std::exception& e) {
      FASTCD_ENSURE(false, "Netgen failed: ", e.what());
    } catch (...) {
      FASTCD_ENSURE(false, "Netgen failed with an unknown exception");
    }
    FASTCD_ENSURE(r == nglib::NG_OK, "Netgen failed to fill the surface (result ", static_cast<int>(r), ")");
    const int np = nglib::Ng_GetNP(m.mesh), ne = nglib::Ng_GetNE(m.mesh);
    FASTCD_ENSURE(np >= V.rows() && ne > 0, "Netgen returned ", np, " points and ", ne, " tets for ", V.rows(),
                  " surface vertices");
    out.X.resize(np, 3);
    for (int i = 0; i < np; ++i) {
      double p[3];
      nglib::Ng_GetPoint(m.mesh, i + 1, p);
      out.X.row(i) << p[0], p[1], p[2];
    }
    out.T.resize(ne, 4);
    for (int e = 0; e < ne; ++e) {
      int pi[NG_VOLUME_ELEMENT_MAXPOINTS];
      const nglib::Ng_Volume_Element_Type type = nglib::Ng_GetVolumeElement(m.mesh, e + 1, pi);
      FASTCD_ENSURE(type == nglib::NG_TET, "Netgen returned a non-tetrahedral element (type ", static_cast<int>(type),
                    ")");
      for (int k = 0; k < 4; ++k) out.T(e, k) = pi[k] - 1;
    }
  }
  FASTCD_ENSURE(out.X.topRows(V.rows()) == V, "Netgen moved surface vertices");
  FASTCD_ENSURE(out.T.minCoeff() >= 0 && out.T.maxCoeff() < out.X.rows(), "Netgen returned an index out of range");
  for (Index t = 0; t < out.T.rows(); ++t) {
    const Eigen::Vector3d a = out.X.row(out.T(t, 0)), b = out.X.row(out.T(t, 1)), c = out.X.row(out.T(t, 2)),
                          e = out.X.row(out.T(t, 3));
    const double det = (b - a).cross(c - a).dot(e - a);
    FASTCD_ENSURE(det != 0 && std::isfinite(det), "Netgen returned a flat tet (", t, ")");
    if (det < 0) std::swap(out.T(t, 1), out.T(t, 2));
  }
  const VectorXd angles = min_dihedral_angles(out.X, out.T);
  out.min_dihedral = angles.minCoeff();
  out.slivers = (angles.array() < 5.0).count();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace fastcd
