// Bindings of src/fastcd/bake: the bake pipeline `fastcd run` uses (frames, glTF outputs,
// run.json), the output folder it writes (bake/output_folder: fastcd.bake's out_dir follows the
// rule of the CLI's --out), and geometry/rest_space (the rest-space displacement the Blender add-on's cache holds).
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "arguments.hpp"

#include "fastcd/bake/bake.hpp"
#include "fastcd/bake/output_folder.hpp"
#include "fastcd/bake/run_json.hpp"
#include "fastcd/common/cancel.hpp"
#include "fastcd/common/defaults.hpp"
#include "fastcd/geometry/rest_space.hpp"
#include "fastcd/io/atomic_file.hpp"
#include "fastcd/scene/characters.hpp"

namespace py = pybind11;
using namespace py::literals;

namespace fastcd::python {

namespace {

/// Runs `work` (which must not touch Python) on a thread of its own under a CancelToken of its
/// own, while this thread, holding the GIL only between waits, answers Ctrl-C (Python's signal
/// handlers: KeyboardInterrupt) and watches the caller's CancelToken: either stops the work at its
/// next check. Returns once the work has ended; then rethrows the KeyboardInterrupt, or the
/// work's own exception.
void run_interruptible(const std::function<void()>& work) {
  const CancelToken* caller = current_cancel_token();
  CancelToken mine;
  std::exception_ptr failure;
  std::mutex mutex;
  std::condition_variable ended;
  bool finished = false;
  if (caller != nullptr && caller->requested()) mine.request();
  std::thread worker([&] {
    try {
      const CancelScope scope(&mine);
      work();
    } catch (...) {
      failure = std::current_exception();
    }
    const std::lock_guard<std::mutex> lock(mutex);
    finished = true;
    ended.notify_one();
  });
  bool interrupted = false;
  for (bool done = false; !done;) {
    {
      py::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(mutex);
      done = ended.wait_for(lock, std::chrono::milliseconds(50), [&] { return finished; });
    }
    if (!interrupted && PyErr_CheckSignals() != 0) {  // (a Python exception is now set: raised below)
      interrupted = true;
      mine.request();
    }
    if (caller != nullptr && caller->requested()) mine.request();
  }
  worker.join();
  if (interrupted) throw py::error_already_set();
  if (failure) std::rethrow_exception(failure);
}

/// The library's OutputFolder as fastcd.bake uses it: its messages in Python's words (out_dir,
/// force=True), closed (the stage removed unless committed, the lock released) when its `with`
/// block ends, however it ends (an error, KeyboardInterrupt), not when Python collects it.
class PyOutputFolder {
 public:
  PyOutputFolder(const std::string& out_dir, const std::vector<std::string>& inputs, bool force) {
    OutputFolderCaller caller;
    caller.out_option = "out_dir";
    caller.force_option = "force=True";
    folder_ = std::make_unique<OutputFolder>(out_dir, inputs, force, std::move(caller));
    target_ = folder_->target().string();
  }
  OutputFolder& folder() {
    if (!folder_) throw std::runtime_error("the output folder '" + target_ + "' is closed (its with block ended)");
    return *folder_;
  }
  const std::string& target() const { return target_; }
  void close() { folder_.reset(); }

 private:
  std::unique_ptr<OutputFolder> folder_;
  std::string target_;
};

}  // namespace

void bind_bake(py::module_& m) {
  py::class_<PyOutputFolder>(
      m, "OutputFolder",
      "The folder a bake is written to, by the rule of fastcd run's --out (fastcd/bake/output_folder.hpp): "
      "resolved, locked against a concurrent bake and checked at once (not a file, a mount point, the current "
      "folder or an input's folder; a non-empty folder only when it holds an earlier bake and nothing else, and "
      "then only with force=True). Use as `with OutputFolder(out_dir, inputs, force) as f:` write into "
      "f.start(inputs), then f.commit(); leaving the block without the commit removes the stage.")
      .def(py::init<const std::string&, const std::vector<std::string>&, bool>(), "out_dir"_a,
           "inputs"_a = std::vector<std::string>(), "force"_a = false, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("target", &PyOutputFolder::target, "The resolved output folder.")
      .def(
          "start",
          [](PyOutputFolder& f, const std::vector<std::string>& inputs) {
            py::gil_scoped_release release;
            f.folder().start(inputs);
            return f.folder().stage().string();
          },
          "inputs"_a = std::vector<std::string>(),
          "Checks the inputs found since (the folder may not contain them) and creates the empty hidden staging "
          "folder beside the target; returns its path.")
      .def(
          "commit",
          [](PyOutputFolder& f) {
            py::gil_scoped_release release;
            f.folder().commit();
          },
          "Writes the .fastcd-output marker, checks the target again and moves the stage into place (the earlier "
          "bake is removed only after).")
      .def("close", &PyOutputFolder::close,
           "Removes the stage unless committed and releases the lock (what the end of a with block does).")
      .def("__enter__", [](py::object self) { return self; })
      .def(
          "__exit__",
          [](PyOutputFolder& f, const py::args&) {
            f.close();
            return false;
          },
          "Closes the folder; the block's exception, if any, propagates.");
  m.def(
      "lbs_rest_space_displacements",
      [](py::handle W, const py::sequence& poses, const py::sequence& U) {
        const MatrixXd w = matrix_from_python(W, "W");
        std::vector<VectorXd> p;
        for (const py::handle& h : poses)
          p.push_back(vector_from_python(h, "poses[" + std::to_string(p.size()) + "]", 12 * w.cols()));
        std::vector<MatrixXd> u;
        for (const py::handle& h : U) u.push_back(matrix_from_python(h, "U[" + std::to_string(u.size()) + "]", 3));
        py::gil_scoped_release release;
        return lbs_rest_space_displacements(w, p, u);
      },
      "W"_a, "poses"_a, "U"_a,
      "Displacements after linear blend skinning taken to rest space: per frame k and vertex v, "
      "(sum_j W[v, j] L_j)^-1 U[k][v], L_j the linear part of joint j in poses[k] (12 numbers per joint, the "
      "column-major 3x4 [L | t]). Added to the rest positions before skinning, they land exactly on U after it.");
  m.def(
      "bake",
      [](const py::object& what, const std::string& out_dir, const std::string& input, const std::string& solver,
         int iterations, int modes, int clusters, const std::string& leak, double gravity, bool dynamics,
         const std::string& precision, int frames, const std::string& clip, const std::string& glb_encoding,
         double pca_tolerance, const std::string& cache_dir, const std::string& material) {
        std::vector<CharacterSpec> chars;
        bool single = true;
        std::string in = input;
        if (py::isinstance<Scene>(what)) {
          const auto scene = what.cast<std::shared_ptr<Scene>>();
          if (in.empty()) in = scene->input_files.empty() ? scene->name : scene->input_files.front();
          chars.push_back(single_character(*scene, in));
        } else if (py::isinstance<py::str>(what)) {
          const std::string path = what.cast<std::string>();
          if (in.empty()) in = path;
          SceneOptions so;
          so.material = material;
          so.cache_dir = cache_dir;
          py::gil_scoped_release release;
          if (!is_gltf_file(path) && !is_surface_file(path) && is_characters_file(path)) {
            chars = load_characters(path, so);
            single = false;
          } else {
            chars.push_back(single_character(load_scene(path, so), path));
          }
        } else {
          throw py::type_error("bake: give a fastcd.Scene or the path of a scene, got " + describe(what));
        }
        BakeSettings bs;
        bs.run.solver = solver_kind(solver);
        bs.run.iterations = iterations;
        bs.run.modes = modes;
        bs.run.clusters = clusters;
        bs.run.leak = leak;
        bs.run.gravity = gravity;
        bs.run.dynamics = dynamics;
        bs.run.precision = precision_from_name(precision);
        bs.frames = frames;
        bs.clip = clip;
        bs.gltf.encoding = glb_encoding;
        bs.gltf.pca_tolerance = pca_tolerance;
        bs.cache_dir = cache_dir;
        std::string report;
        run_interruptible([&] {
          std::filesystem::create_directories(out_dir);
          Bake bake(std::move(chars), bs, out_dir, single);
          bake.precompute();
          bake.simulate();
          bake.finish();
          RunJsonExtras extras;
          extras.input = in;
          report = run_json(bake, extras);
          write_file_contents((std::filesystem::path(out_dir) / "run.json").string(), report, "run.json");
        });
        return report;
      },
      "what"_a, "out_dir"_a, "input"_a = "", "solver"_a = defaults::solver, "iterations"_a = defaults::iterations,
      "modes"_a = defaults::modes, "clusters"_a = defaults::clusters, "leak"_a = defaults::leak,
      "gravity"_a = defaults::gravity, "dynamics"_a = true, "precision"_a = defaults::precision, "frames"_a = 0,
      "clip"_a = "", "glb_encoding"_a = defaults::glb_encoding, "pca_tolerance"_a = defaults::pca_tolerance,
      "cache_dir"_a = "", "material"_a = "",
      "Bakes a scene (a fastcd.Scene, or a scene / characters file's path) into out_dir with the pipeline of "
      "fastcd run: the OBJ sequence, rest.obj, animation.pc2, a glTF character's <name>.glb and rest-space caches, "
      "run.json (returned as text). Writes straight into out_dir (fastcd.bake stages it and puts it in place); "
      "Ctrl-C (KeyboardInterrupt) or the caller's CancelToken stops it at its next check.");
}

}  // namespace fastcd::python
