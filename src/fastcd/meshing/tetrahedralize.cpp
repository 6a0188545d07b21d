#include "fastcd/meshing/tetrahedralize.hpp"

#include <dlfcn.h>
#include <Eigen/Geometry>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <new>
#include <ostream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <thread>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/hash.hpp"
#include "fastcd/common/progress.hpp"
#include "fastcd/io/cache_file.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "fastcd/meshing/process.hpp"
#include "fastcd/meshing/surface.hpp"

// nglib's declarations only: the library is opened with dlopen on first use (Netgen pulls in
// OpenCASCADE, MPI and libpython, ~0.1 s of loading and static initialisers that allocate and never
// free; programs that never mesh should not pay for that).
namespace nglib {
#include <nglib.h>
}

#if defined(__SANITIZE_ADDRESS__)
#define FASTCD_HAS_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FASTCD_HAS_LSAN 1
#endif
#endif
#ifdef FASTCD_HAS_LSAN
#include <sanitizer/lsan_interface.h>
#endif

#ifndef FASTCD_NGLIB_PATH
#define FASTCD_NGLIB_PATH "libnglib.so"
#endif

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

// The nglib entry points fastcd uses, looked up by their (Itanium-mangled) names: nglib's API is
// C++ in namespace nglib, not extern "C".
struct Netgen {
  void (*init)() = nullptr;
  nglib::Ng_Mesh* (*new_mesh)() = nullptr;
  void (*delete_mesh)(nglib::Ng_Mesh*) = nullptr;
  void (*add_point)(nglib::Ng_Mesh*, double*) = nullptr;
  void (*add_surface_element)(nglib::Ng_Mesh*, nglib::Ng_Surface_Element_Type, int*) = nullptr;
  nglib::Ng_Result (*generate_volume_mesh)(nglib::Ng_Mesh*, nglib::Ng_Meshing_Parameters*) = nullptr;
  int (*get_np)(nglib::Ng_Mesh*) = nullptr;
  int (*get_ne)(nglib::Ng_Mesh*) = nullptr;
  void (*get_point)(nglib::Ng_Mesh*, int, double*) = nullptr;
  nglib::Ng_Volume_Element_Type (*get_volume_element)(nglib::Ng_Mesh*, int, int*) = nullptr;
  void (*construct_parameters)(nglib::Ng_Meshing_Parameters*) = nullptr;  // the constructor
  std::ostream** mycout = nullptr;  // Netgen's message streams (libmesh; nglib has no quiet switch)
  std::ostream** myerr = nullptr;
  int* printmessage_importance = nullptr;
  // Netgen's status block (netgen::multithread in libmesh, Netgen 6.2's layout): `terminate` asks
  // the running mesher to stop. Its `task` text is not read: Netgen reassigns that string while
  // it meshes, so another thread cannot read it safely.
  struct Status {
    int pause, testmode, redraw, drawing, terminate, running;
    double percent;
    const char* task;
  };
  volatile Status* status = nullptr;
};

template <class T>
void find_symbol(void* handle, const char* name, T& out) {
  dlerror();
  void* p = dlsym(handle, name);
  FASTCD_ENSURE(p != nullptr, "Netgen's nglib (", FASTCD_NGLIB_PATH, ") lacks the symbol ", name,
                "; fastcd needs Netgen 6.2 (Debian libnglib-dev)");
  out = reinterpret_cast<T>(p);
}

// Under LeakSanitizer: Netgen's static initialisers and Ng_Init allocate registries they never
// free (ngcore::RegisterClassForArchive); those allocations are not fastcd's leaks.
struct IgnoreLeaksInScope {
#ifdef FASTCD_HAS_LSAN
  IgnoreLeaksInScope() { __lsan_disable(); }
  ~IgnoreLeaksInScope() { __lsan_enable(); }
#else
  IgnoreLeaksInScope() = default;
#endif
  IgnoreLeaksInScope(const IgnoreLeaksInScope&) = delete;
  IgnoreLeaksInScope& operator=(const IgnoreLeaksInScope&) = delete;
};

// Opens nglib, initialises it and points its messages at a null stream, once; the handle is never
// closed. Caller holds the mutex.
const Netgen& netgen() {
  static Netgen* loaded = nullptr;
  if (loaded != nullptr) return *loaded;
  [[maybe_unused]] const IgnoreLeaksInScope ignore;
  void* handle = dlopen(FASTCD_NGLIB_PATH, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) handle = dlopen("libnglib.so", RTLD_NOW | RTLD_LOCAL);
  const char* why = handle == nullptr ? dlerror() : nullptr;
  FASTCD_ENSURE(handle != nullptr, "cannot load Netgen's nglib for tetrahedralisation (", FASTCD_NGLIB_PATH,
                "): ", why != nullptr ? why : "unknown error", "; install libnglib-dev");
  auto* n = new Netgen;
  find_symbol(handle, "_ZN5nglib7Ng_InitEv", n->init);
  find_symbol(handle, "_ZN5nglib10Ng_NewMeshEv", n->new_mesh);
  find_symbol(handle, "_ZN5nglib13Ng_DeleteMeshEPPv", n->delete_mesh);
  find_symbol(handle, "_ZN5nglib11Ng_AddPointEPPvPd", n->add_point);
  find_symbol(handle, "_ZN5nglib20Ng_AddSurfaceElementEPPvNS_23Ng_Surface_Element_TypeEPi", n->add_surface_element);
  find_symbol(handle, "_ZN5nglib21Ng_GenerateVolumeMeshEPPvPNS_21Ng_Meshing_ParametersE", n->generate_volume_mesh);
  find_symbol(handle, "_ZN5nglib8Ng_GetNPEPPv", n->get_np);
  find_symbol(handle, "_ZN5nglib8Ng_GetNEEPPv", n->get_ne);
  find_symbol(handle, "_ZN5nglib11Ng_GetPointEPPviPd", n->get_point);
  find_symbol(handle, "_ZN5nglib19Ng_GetVolumeElementEPPviPi", n->get_volume_element);
  find_symbol(handle, "_ZN5nglib21Ng_Meshing_ParametersC1Ev", n->construct_parameters);
  find_symbol(handle, "_ZN6netgen6mycoutE", n->mycout);
  find_symbol(handle, "_ZN6netgen5myerrE", n->myerr);
  find_symbol(handle, "_ZN6netgen23printmessage_importanceE", n->printmessage_importance);
  find_symbol(handle, "_ZN6netgen11multithreadE", n->status);
  n->init();
  static NullBuffer* buffer = new NullBuffer;
  static std::ostream* null = new std::ostream(buffer);
  *n->mycout = null;
  *n->myerr = null;
  *n->printmessage_importance = 0;
  loaded = n;
  return *n;
}

// While Netgen fills a surface (it offers no callback): a thread that reports progress once a
// second (the elapsed time: Netgen's own percentages restart with every internal step) and,
// when request_cancel() or the meshing job's CancelToken arrives, sets Netgen's terminate flag
// so it stops at its next check.
class NetgenWatch {
 public:
  NetgenWatch(const Netgen& ng, Index triangles) : ng_(ng), triangles_(triangles), token_(current_cancel_token()) {
    ng_.status->terminate = 0;
    detail::report_progress(kWork, "filling the surface with tets", 0, 0);
    thread_ = std::thread([this] { run(); });
  }
  ~NetgenWatch() {
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
    ng_.status->terminate = 0;
  }
  NetgenWatch(const NetgenWatch&) = delete;
  NetgenWatch& operator=(const NetgenWatch&) = delete;
  bool cancelled() const { return cancelled_.load(); }

 private:
  static constexpr const char* kWork = "meshing (Netgen)";
  void run() {
    const CancelScope scope(token_);  // the meshing job's own cancellation, too
    const auto t0 = std::chrono::steady_clock::now();
    int reported = 0;
    std::unique_lock<std::mutex> lock(m_);
    while (!done_) {
      cv_.wait_for(lock, std::chrono::milliseconds(50));
      if (done_) break;
      if (cancel_requested() && !cancelled_.exchange(true)) ng_.status->terminate = 1;
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (static_cast<int>(t) > reported) {
        reported = static_cast<int>(t);
        const std::string line =
            "filling " + std::to_string(triangles_) + " triangles with tets, " + std::to_string(reported) + " s so far";
        detail::report_progress(kWork, line.c_str(), reported, 0);
      }
    }
  }
  const Netgen& ng_;
  Index triangles_;
  const CancelToken* token_;
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> cancelled_{false};
  std::thread thread_;
};

struct NetgenMesh {
  const Netgen& ng;
  nglib::Ng_Mesh* mesh;
  explicit NetgenMesh(const Netgen& n) : ng(n), mesh(n.new_mesh()) {}
  ~NetgenMesh() { ng.delete_mesh(mesh); }
  NetgenMesh(const NetgenMesh&) = delete;
  NetgenMesh& operator=(const NetgenMesh&) = delete;
};

// Netgen in this process (serialised: it keeps global state).
TetMesh run_netgen(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                   const TetrahedralizeOptions& options) {
  TetMesh out;
  out.mesher = "netgen";
  out.surface_vertices = V.rows();
  {
    std::lock_guard<std::mutex> lock(netgen_mutex());
    const Netgen& ng = netgen();
    NetgenMesh m(ng);
    for (Index v = 0; v < V.rows(); ++v) {
      double p[3] = {V(v, 0), V(v, 1), V(v, 2)};
      ng.add_point(m.mesh, p);
    }
    for (Index f = 0; f < F.rows(); ++f) {
      int tri[3] = {F(f, 0) + 1, F(f, 1) + 1, F(f, 2) + 1};
      ng.add_surface_element(m.mesh, nglib::NG_TRIG, tri);
    }
    // nglib's parameter struct has its defaults set by a constructor inside the library.
    alignas(nglib::Ng_Meshing_Parameters) unsigned char storage[sizeof(nglib::Ng_Meshing_Parameters)];
    ng.construct_parameters(reinterpret_cast<nglib::Ng_Meshing_Parameters*>(storage));
    nglib::Ng_Meshing_Parameters& mp = *std::launder(reinterpret_cast<nglib::Ng_Meshing_Parameters*>(storage));
    mp.maxh = 1e300;  // sizes follow the surface (Netgen adds no interior refinement for a fixed surface)
    mp.grading = options.grading;
    mp.optvolmeshenable = options.optimize_steps > 0 ? 1 : 0;
    mp.optsteps_3d = options.optimize_steps;
    mp.check_overlapping_boundary = 0;  // check_surface did it, and names the triangles
    nglib::Ng_Result r = nglib::NG_ERROR;
    bool cancelled = false;
    try {
      const NetgenWatch watch(ng, F.rows());
      r = ng.generate_volume_mesh(m.mesh, &mp);
      cancelled = watch.cancelled();
    } catch (const std::exception& e) {
      FASTCD_ENSURE(false, "Netgen failed: ", e.what());
    } catch (...) {
      FASTCD_ENSURE(false, "Netgen failed with an unknown exception");
    }
    if (cancelled) throw Cancelled("tetrahedralisation (Netgen)");
    FASTCD_ENSURE(r == nglib::NG_OK, "Netgen failed to fill the surface (result ", static_cast<int>(r), ")");
    const int np = ng.get_np(m.mesh), ne = ng.get_ne(m.mesh);
    FASTCD_ENSURE(np >= V.rows() && ne > 0, "Netgen returned ", np, " points and ", ne, " tets for ", V.rows(),
                  " surface vertices");
    out.X.resize(np, 3);
    for (int i = 0; i < np; ++i) {
      double p[3];
      ng.get_point(m.mesh, i + 1, p);
      out.X.row(i) << p[0], p[1], p[2];
    }
    out.T.resize(ne, 4);
    for (int e = 0; e < ne; ++e) {
      int pi[NG_VOLUME_ELEMENT_MAXPOINTS];
      const nglib::Ng_Volume_Element_Type type = ng.get_volume_element(m.mesh, e + 1, pi);
      FASTCD_ENSURE(type == nglib::NG_TET, "Netgen returned a non-tetrahedral element (type ", static_cast<int>(type),
                    ")");
      for (int k = 0; k < 4; ++k) out.T(e, k) = pi[k] - 1;
    }
  }
  return out;
}

// The TetGen program (AGPL: run as a separate process, never linked): -p fills the surface,
// -Y keeps it (no Steiner points on it; its vertices come first, in order), -q bounds the
// radius-edge ratio, -z numbers from 0, -Q is quiet.
TetMesh run_tetgen(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                   const TetrahedralizeOptions& options) {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "fastcd-tetgen-XXXXXX").string();
  FASTCD_ENSURE(mkdtemp(tmpl.data()) != nullptr, "cannot create a temporary folder for TetGen: ", std::strerror(errno));
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{tmpl};
  const fs::path dir(tmpl);
  write_off((dir / "surface.off").string(), V, F);
  char q[32];
  std::snprintf(q, sizeof q, "-pYzQq%.6g", options.tetgen_quality);
  const std::string log = (dir / "tetgen.log").string();
  const int status = detail::run_program({options.tetgen_program, q, (dir / "surface.off").string()}, log,
                                         options.timeout_seconds, "TetGen");
  if (status != 0) {
    std::string tail = detail::last_lines(log, 3);
    FASTCD_ENSURE(false, "TetGen (", options.tetgen_program, ") failed with status ", status,
                  tail.empty() ? std::string() : ": " + tail);
  }
  const Mesh m = read_tetgen((dir / "surface.1.node").string(), (dir / "surface.1.ele").string());
  TetMesh out;
  out.mesher = "tetgen";
  out.X = m.X;
  out.T = m.T;
  // TetGen prints coordinates with 16 significant digits: put the surface back bit for bit
  // once it is known to be where it was.
  FASTCD_ENSURE(out.X.rows() >= V.rows(), "TetGen returned ", out.X.rows(), " points for ", V.rows(),
                " surface vertices");
  const double tol = 1e-12 * std::max(1.0, V.cwiseAbs().maxCoeff());
  const double moved = (out.X.topRows(V.rows()) - V).cwiseAbs().maxCoeff();
  FASTCD_ENSURE(moved <= tol, "TetGen moved the surface vertices (by up to ", moved, ")");
  out.X.topRows(V.rows()) = V;
  return out;
}

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

  FASTCD_CHECK(options.mesher == "netgen" || options.mesher == "tetgen", "mesher must be 'netgen' or 'tetgen', got '",
               options.mesher, "'");
  FASTCD_CHECK(options.tetgen_quality >= 1 && options.tetgen_quality <= 10,
               "tetgen_quality (radius-edge bound) must lie in [1, 10], got ", options.tetgen_quality);

  const auto t0 = std::chrono::steady_clock::now();
  TetMesh out = options.mesher == "tetgen" ? run_tetgen(V, F, options) : run_netgen(V, F, options);
  out.surface_vertices = V.rows();
  FASTCD_ENSURE(out.X.rows() >= V.rows() && out.X.topRows(V.rows()) == V, out.mesher, " moved surface vertices");
  FASTCD_ENSURE(out.T.rows() > 0 && out.T.minCoeff() >= 0 && out.T.maxCoeff() < out.X.rows(), out.mesher,
                " returned no tets or an index out of range");
  for (Index t = 0; t < out.T.rows(); ++t) {
    const Eigen::Vector3d a = out.X.row(out.T(t, 0)), b = out.X.row(out.T(t, 1)), c = out.X.row(out.T(t, 2)),
                          e = out.X.row(out.T(t, 3));
    const double det = (b - a).cross(c - a).dot(e - a);
    FASTCD_ENSURE(det != 0 && std::isfinite(det), out.mesher, " returned a flat tet (", t, ")");
    if (det < 0) std::swap(out.T(t, 1), out.T(t, 2));
  }
  const VectorXd angles = min_dihedral_angles(out.X, out.T);
  out.min_dihedral = angles.minCoeff();
  out.slivers = (angles.array() < 5.0).count();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

namespace {

constexpr int kTetCacheFormat = 2;  // 1: a plain Medit tets-<hash>.mesh, keyed by its file name only

/// The cache entry of the tets of (V, F, options): the surface bit for bit and every meshing
/// setting, in words and in the digest.
CacheKey tet_cache_key(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                       const TetrahedralizeOptions& options) {
  Sha256 h;
  h.add_matrix(V);
  h.add_matrix(F);
  h.add(options.mesher + "\n" + options.tetgen_program + "\n");
  const double settings[3] = {options.grading, static_cast<double>(options.optimize_steps), options.tetgen_quality};
  h.add(settings, sizeof settings);
  char text[160];
  std::snprintf(text, sizeof text, ", grading %.6g, %d optimisation passes, radius-edge bound %.6g; ", options.grading,
                options.optimize_steps, options.tetgen_quality);
  std::string words = "mesher " + options.mesher;
  if (options.mesher == "tetgen") words += " (program " + options.tetgen_program + ")";
  words += text + std::to_string(V.rows()) + " vertices, " + std::to_string(F.rows()) + " triangles";
  return make_cache_key("tets", kTetCacheFormat, words, h);
}

/// The tets of a checked cache payload (#X, #T, then X and T as stored), or an empty mesh with
/// `why` when they do not fill the surface V: sizes, the surface's vertices bit for bit,
/// indices in range, positive tets.
TetMesh tets_of_payload(const std::string& payload, const Eigen::Ref<const MatrixXd>& V, std::string& why) {
  TetMesh out;
  std::size_t at = 0;
  std::int64_t sizes[2] = {0, 0};
  take_raw(payload, at, sizes, 2);
  const std::uint64_t rest = payload.size() - at;
  if (sizes[0] < V.rows() || sizes[1] <= 0 || sizes[0] > static_cast<std::int64_t>(rest / (3 * sizeof(double))) ||
      sizes[1] > static_cast<std::int64_t>(rest / (4 * sizeof(int))) ||
      rest != 3 * sizeof(double) * static_cast<std::uint64_t>(sizes[0]) +
                  4 * sizeof(int) * static_cast<std::uint64_t>(sizes[1])) {
    why = "its sizes do not fit";
    return {};
  }
  out.X.resize(sizes[0], 3);
  out.T.resize(sizes[1], 4);
  take_raw(payload, at, out.X.data(), static_cast<std::size_t>(out.X.size()));
  take_raw(payload, at, out.T.data(), static_cast<std::size_t>(out.T.size()));
  if (out.X.topRows(V.rows()) != V) {
    why = "its first vertices are not the surface's";
    return {};
  }
  if (!out.X.allFinite() || out.T.minCoeff() < 0 || out.T.maxCoeff() >= out.X.rows()) {
    why = "a vertex that is not finite or an index out of range";
    return {};
  }
  for (Index t = 0; t < out.T.rows(); ++t) {
    const Eigen::Vector3d a = out.X.row(out.T(t, 0)), b = out.X.row(out.T(t, 1)), c = out.X.row(out.T(t, 2)),
                          e = out.X.row(out.T(t, 3));
    if (!((b - a).cross(c - a).dot(e - a) > 0)) {
      why = "tet " + std::to_string(t) + " is flat or inverted";
      return {};
    }
  }
  return out;
}

}  // namespace

TetMesh tetrahedralize_cached(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                              const TetrahedralizeOptions& options, const std::string& cache_dir, bool* from_cache) {
  if (from_cache != nullptr) *from_cache = false;
  if (cache_dir.empty()) return tetrahedralize(V, F, options);
  const CacheKey key = tet_cache_key(V, F, options);
  const std::string file = cache_entry_path(cache_dir, key);
  CacheEntry found = read_cache_entry(file, key);
  if (found.state == CacheEntry::State::Usable) {
    const auto t0 = std::chrono::steady_clock::now();
    std::string why;
    TetMesh out = tets_of_payload(found.payload, V, why);
    if (why.empty()) {
      out.surface_vertices = V.rows();
      out.mesher = options.mesher;
      const VectorXd angles = min_dihedral_angles(out.X, out.T);
      out.min_dihedral = angles.minCoeff();
      out.slivers = (angles.array() < 5.0).count();
      out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (from_cache != nullptr) *from_cache = true;
      return out;
    }
    found.state = CacheEntry::State::Damaged;
    found.problem = "holds tets that do not fill this surface (" + why + ")";
  }
  // Before the meshing: a folder that cannot take the result is said now, and not written to.
  const std::string folder_warning = cache_folder_warning(cache_dir);
  TetMesh out = tetrahedralize(V, F, options);
  if (!folder_warning.empty()) out.warnings.push_back(folder_warning);
  std::string write_error = folder_warning.empty() ? "" : "the cache folder cannot be written";
  if (folder_warning.empty()) {
    std::string payload;
    const std::int64_t sizes[2] = {out.X.rows(), out.T.rows()};
    append_raw(payload, sizes, 2);
    append_raw(payload, out.X.data(), static_cast<std::size_t>(out.X.size()));
    append_raw(payload, out.T.data(), static_cast<std::size_t>(out.T.size()));
    try {
      write_cache_entry(file, key, payload);
    } catch (const std::runtime_error& e) {
      write_error = e.what();
    }
  }
  if (found.state != CacheEntry::State::Missing)
    out.warnings.push_back(cache_entry_warning(file, found, "the tets were meshed again", write_error));
  else if (folder_warning.empty() && !write_error.empty())
    out.warnings.push_back("the tets could not be kept in the cache (" + write_error +
                           "): the bake goes on, and the next bake meshes again");
  return out;
}

}  // namespace fastcd
