// `fastcd view SCENE|CHARACTER`: the method live. A window (GLFW + Dear ImGui + OpenGL 3.3 core)
// plays the animation with the solver stepping each frame; handles are dragged with the mouse on
// top of the animation; sliders reach the solver; the method's fields show as colours. The same
// drawing renders offscreen without any display (EGL surfaceless) for --screenshot and --record.
#include "view/view.hpp"

#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <Eigen/LU>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fastcd/common/check.hpp"
#include "fastcd/common/defaults.hpp"
#include "fastcd/io/atomic_file.hpp"
#include "fastcd/scene/gltf_scene.hpp"
#include "fastcd/scene/scene.hpp"
#include "fastcd/view/viewer_model.hpp"
#include "view/offscreen.hpp"
#include "view/renderer.hpp"
#ifdef FASTCD_HAVE_VIZ
#include "fastcd/viz/video.hpp"
#endif

namespace fastcd::cli {

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

struct ViewArgs {
  std::string scene, solver = defaults::interactive_solver, leak = defaults::leak, view = "shaded", layout = "side";
  std::string screenshot, record, size = "960x640";
  std::vector<std::string> drags;
  int modes = defaults::modes, clusters = defaults::clusters, iterations = defaults::iterations;
  int mode = 0, frame = -1, frames = -1;
  double gravity = 0, quit_after = 0;
  bool stats = false, paused = false, print_handles = false;
  std::string window_screenshot, lift = "auto";
  std::string clip, handles, anim, weights;  ///< glTF clip; a plain surface's handles, animation, weights
  double metres_per_unit = 0;                ///< glTF / surface: metres per file unit (--scale; 0: the default)
};

/// How the model is drawn: the colour field, the layout and the selected handle.
struct Look {
  ViewField field = ViewField::Shaded;
  int mode = 0;
  enum Layout { Single, Side, Overlay } layout = Side;
  int selected = -1;
  bool gpu = false;  ///< lift on the GPU in skinning form (Renderer::init_skinning succeeded)
};

Eigen::MatrixXf as3d(const MatrixXd& X) {
  Eigen::MatrixXf P = Eigen::MatrixXf::Zero(X.rows(), 3);
  P.leftCols(std::min<Index>(X.cols(), 3)) = X.leftCols(std::min<Index>(X.cols(), 3)).cast<float>();
  return P;
}

view::Palette palette_of(ViewField f) {
  switch (f) {
    case ViewField::Clusters:
      return view::Palette::Categorical;
    case ViewField::Mode:
      return view::Palette::Diverging;
    case ViewField::Leak:
    case ViewField::Displacement:
      return view::Palette::Sequential;
    case ViewField::Shaded:
      break;
  }
  return view::Palette::Skin;
}

/// The width of the rest mesh along x: the side-by-side panels sit that far (and a bit) apart.
float panel_shift(const ViewerModel& m) {
  const MatrixXd X = m.rig_positions();
  return 1.2f * static_cast<float>(X.col(0).maxCoeff() - X.col(0).minCoeff());
}

view::Camera fit_camera(const ViewerModel& m, const Look& look) {
  const MatrixXd X = m.positions();
  view::Camera c;
  const Eigen::Vector3f lo = as3d(X).colwise().minCoeff(), hi = as3d(X).colwise().maxCoeff();
  c.center = (lo + hi) / 2;
  float extent = (hi - lo).maxCoeff();
  if (look.layout == Look::Side) {
    c.center.x() -= panel_shift(m) / 2;
    extent += panel_shift(m);
  }
  if (m.scene().dim == 2) c.yaw = c.pitch = 0;
  c.distance = 0.62f * extent / std::tan(c.fov / 2);  // the model fills most of the view
  return c;
}

/// Draws the model: the simulated mesh (right, or alone), the rig alone (left panel, or a ghost
/// over it), and the handles.
void draw(view::Renderer& r, const view::Camera& cam, const ViewerModel& m, const Look& look, int w, int h) {
  r.begin(w, h);
  const Index n = m.output_vertices();
  const VectorXd field = look.field == ViewField::Shaded ? VectorXd() : m.field(look.field, look.mode);
  const std::vector<float> rgb = view::colours(field, palette_of(look.field), n),
                           ghost = view::colours({}, view::Palette::Ghost, n);
  const Eigen::Vector3f here = Eigen::Vector3f::Zero(), left(-panel_shift(m), 0, 0);
  if (look.gpu) {  // only the transforms go up: the shader blends them with the weights
    r.mesh_skinned(cam, m.skinning_transforms(true), rgb, here);
    if (look.layout == Look::Side) r.mesh_skinned(cam, m.skinning_transforms(false), rgb, left);
    if (look.layout == Look::Overlay) r.mesh_skinned(cam, m.skinning_transforms(false), ghost, here, 0.35f);
  } else {
    r.mesh(cam, as3d(m.positions()), rgb, here);
    if (look.layout == Look::Side) r.mesh(cam, as3d(m.rig_positions()), rgb, left);
    if (look.layout == Look::Overlay) r.mesh(cam, as3d(m.rig_positions()), ghost, here, 0.35f);
  }
  if (m.manipulable()) {
    Eigen::MatrixXf P(m.handles(), 3);
    std::vector<float> c;
    for (Index j = 0; j < m.handles(); ++j) {
      P.row(j) = as3d(m.handle_position(j).transpose()).row(0);
      const bool sel = j == look.selected;
      c.insert(c.end(), {1.0f, sel ? 0.2f : 0.85f, sel ? 0.2f : 0.1f});
    }
    r.points(cam, P, c, 12.0f);
  }
}

/// --drag J:dx,dy,dz (normalised scene units), applied before stepping: scripted manipulation.
void apply_drags(ViewerModel& m, const std::vector<std::string>& drags) {
  for (const std::string& d : drags) {
    const auto colon = d.find(':');
    FASTCD_CHECK(colon != std::string::npos, "--drag '", d, "': expected HANDLE:dx,dy[,dz]");
    Index j = 0;
    std::vector<double> v;
    try {
      std::size_t used = 0;
      j = std::stol(d.substr(0, colon), &used);
      FASTCD_CHECK(used == colon, "");
      const std::string rest = d.substr(colon + 1);
      for (std::size_t at = 0; at <= rest.size();) {
        const std::size_t next = rest.find(',', at);
        const std::string item = rest.substr(at, next == std::string::npos ? std::string::npos : next - at);
        v.push_back(std::stod(item, &used));
        FASTCD_CHECK(used == item.size(), "");
        if (next == std::string::npos) break;
        at = next + 1;
      }
    } catch (const std::exception&) {
      throw std::invalid_argument("--drag '" + d + "': expected HANDLE:dx,dy[,dz] with numbers");
    }
    FASTCD_CHECK(static_cast<Index>(v.size()) == m.scene().dim, "--drag '", d, "': ", m.scene().dim,
                 " components for a ", m.scene().dim, "D scene");
    m.translate_handle(j, Eigen::Map<const VectorXd>(v.data(), static_cast<Index>(v.size())));
  }
}

std::pair<int, int> parse_size(const std::string& s) {
  int w = 0, h = 0;
  char x = 0;
  if (std::sscanf(s.c_str(), "%d%c%d", &w, &x, &h) != 3 || x != 'x' || w < 16 || h < 16 || w > 8192 || h > 8192 ||
      w % 2 || h % 2)
    throw std::invalid_argument("--size '" + s + "': expected WIDTHxHEIGHT, even, 16..8192 (e.g. 960x640)");
  return {w, h};
}

std::unique_ptr<ViewerModel> make_model(const ViewArgs& a, Look& look) {
  SceneOptions so;
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::string cache = xdg && *xdg     ? std::string(xdg) + "/fastcd"
                            : home && *home ? std::string(home) + "/.cache/fastcd"
                                            : "";
  so.cache_dir = cache;
  std::fprintf(stdout, "loading %s\n", a.scene.c_str());
  std::fflush(stdout);
  // The inputs `fastcd run` takes: a glTF character, a plain surface with handles, a scene JSON.
  std::shared_ptr<const Scene> scene;
  if (is_gltf_file(a.scene)) {
    GltfSceneOptions go;
    go.clip = a.clip;
    if (a.metres_per_unit > 0) go.metres_per_unit = a.metres_per_unit;
    go.cache_dir = cache;
    scene = std::make_shared<const Scene>(load_gltf_scene(a.scene, go));
  } else if (is_surface_file(a.scene)) {
    FASTCD_CHECK(!a.handles.empty() && !a.anim.empty(), "a plain surface needs --handles and --anim (as fastcd run)");
    SurfaceSceneOptions o;
    o.handles = a.handles;
    o.animation = a.anim;
    o.weights = a.weights;
    if (a.metres_per_unit > 0) o.metres_per_unit = a.metres_per_unit;
    scene = std::make_shared<const Scene>(load_surface_scene(a.scene, o, so));
  } else {
    FASTCD_CHECK(a.clip.empty() && a.handles.empty() && a.anim.empty() && a.weights.empty() && a.metres_per_unit == 0,
                 "--clip, --scale, --handles, --anim and --weights are for glTF characters and plain surfaces");
    scene = std::make_shared<const Scene>(load_scene(a.scene, so));
  }
  ViewerSettings vs;
  vs.run.solver = solver_kind(a.solver);
  vs.run.modes = a.modes;
  vs.run.clusters = a.clusters;
  vs.run.iterations = a.iterations;
  vs.run.leak = a.leak;
  vs.run.gravity = a.gravity;
  vs.cache_dir = cache;
  std::fprintf(stdout, "%s: %ldD, %ld vertices, %ld elements, %zu frames; precomputing (%s solver)\n",
               scene->name.c_str(), long(scene->dim), long(scene->X.rows()), long(scene->T.rows()), scene->poses.size(),
               a.solver.c_str());
  std::fflush(stdout);
  auto m = std::make_unique<ViewerModel>(scene, vs);
  look.field = view_field(a.view);
  look.mode = a.mode;
  look.layout = a.layout == "single" ? Look::Single : a.layout == "overlay" ? Look::Overlay : Look::Side;
  if (look.field != ViewField::Shaded) (void)m->field(look.field, look.mode);  // bad choices fail now
  apply_drags(*m, a.drags);
  return m;
}

// ---- offscreen: --screenshot / --record ------------------------------------------------------

int run_offscreen(const ViewArgs& a) {
  const auto [w, h] = parse_size(a.size);
  Look look;
  auto m = make_model(a, look);
  m->set_playing(false);
  view::Offscreen ctx(w, h);
  view::Renderer r;
  r.init(m->faces());
  look.gpu = a.lift != "cpu" && m->skinning_form() && r.init_skinning(m->skinning_rest(), m->skinning_weights());
  if (a.lift == "gpu" && !look.gpu)
    throw std::invalid_argument(
        "--lift gpu: this scene and solver have no skinning form (the fast solver, a 3D LBS "
        "rig and an output surface on the tet vertices are needed)");
  std::fprintf(stdout, "lifting on the %s\n", look.gpu ? "GPU (skinning form)" : "CPU");
  if (!a.screenshot.empty()) {
    const int f = a.frame >= 0 ? a.frame : 0;
    FASTCD_CHECK(f < m->frames(), "--frame ", f, ": the animation has ", m->frames(), " frames");
    m->seek(f);
    const view::Camera cam = fit_camera(*m, look);
    draw(r, cam, *m, look, w, h);
    view::write_png(a.screenshot, r.read_pixels(w, h), w, h);
    std::fprintf(stdout, "frame %d -> %s (%dx%d)\n", f, a.screenshot.c_str(), w, h);
  }
  if (!a.record.empty()) {
#ifdef FASTCD_HAVE_VIZ
    const int total = a.frames > 0 ? std::min(a.frames, m->frames()) : m->frames();
    const int fps = std::max(1, static_cast<int>(std::lround(1.0 / m->scene().dt)));
    m->seek(0);
    const view::Camera cam = fit_camera(*m, look);
    std::vector<std::uint8_t> bgra(static_cast<std::size_t>(4 * w * h));
    double t_step = 0, t_draw = 0;
    encode_mp4(a.record, w, h, std::min(fps, 60), total, [&](int f) {
      const auto t0 = Clock::now();
      if (f > 0) m->step();
      const auto t1 = Clock::now();
      draw(r, cam, *m, look, w, h);
      glFinish();
      t_step += std::chrono::duration<double>(t1 - t0).count();
      t_draw += std::chrono::duration<double>(Clock::now() - t1).count();
      const std::vector<std::uint8_t> rgb = r.read_pixels(w, h);
      for (std::size_t i = 0, n = static_cast<std::size_t>(w * h); i < n; ++i) {
        bgra[4 * i] = rgb[3 * i + 2];
        bgra[4 * i + 1] = rgb[3 * i + 1];
        bgra[4 * i + 2] = rgb[3 * i];
        bgra[4 * i + 3] = 255;
      }
      return VideoFrame{bgra.data(), 4 * w};
    });
    std::fprintf(stdout, "%d frames -> %s\n", total, a.record.c_str());
    if (a.stats)  // per frame: the solver's step (and the monitor), and lifting + drawing (GPU or CPU)
      std::fprintf(stdout, "per frame: step %.3f ms, lift + draw %.3f ms (%s lift, %dx%d)\n", 1e3 * t_step / total,
                   1e3 * t_draw / total, look.gpu ? "GPU" : "CPU", w, h);
#else
    throw std::runtime_error("--record: this fastcd was built without video encoding (FASTCD_BUILD_VIZ=OFF)");
#endif
  }
  return 0;
}

// ---- the window ------------------------------------------------------------------------------

struct Window {
  GLFWwindow* win = nullptr;
  Window(int w, int h, const std::string& title) {
    if (!glfwInit()) throw std::runtime_error("view: cannot open a window (no display?); use --screenshot or --record");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    win = glfwCreateWindow(w, h, title.c_str(), nullptr, nullptr);
    if (win == nullptr) {
      glfwTerminate();
      throw std::runtime_error("view: cannot create an OpenGL 3.3 window; use --screenshot or --record");
    }
    glfwMakeContextCurrent(win);
    glfwSwapInterval(1);
  }
  ~Window() {
    glfwDestroyWindow(win);
    glfwTerminate();
  }
};

int run_window(const ViewArgs& a) {
  const auto [w0, h0] = parse_size(a.size);
  Look look;
  auto m = make_model(a, look);
  Window window(w0, h0, "fastcd view: " + m->scene().name);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui_ImplGlfw_InitForOpenGL(window.win, true);
  ImGui_ImplOpenGL3_Init("#version 330");
  view::Renderer r;
  r.init(m->faces());
  const bool gpu_ready =
      a.lift != "cpu" && m->skinning_form() && r.init_skinning(m->skinning_rest(), m->skinning_weights());
  look.gpu = gpu_ready;
  if (a.frame > 0) m->seek(std::min(a.frame, m->frames() - 1));
  if (a.paused) m->set_playing(false);
  view::Camera cam = fit_camera(*m, look);
  glfwSetWindowPos(window.win, 0, 0);
  if (a.print_handles && m->manipulable()) {  // where to click (window coordinates): for scripted input
    int fw = 0, fh = 0, ww = 0, wh = 0;
    glfwGetFramebufferSize(window.win, &fw, &fh);
    glfwGetWindowSize(window.win, &ww, &wh);
    for (Index j = 0; j < m->handles(); ++j) {
      const Eigen::Vector2f px = cam.project(as3d(m->handle_position(j).transpose()).row(0).transpose(), fw, fh);
      std::fprintf(stdout, "handle %ld at %.0f %.0f\n", long(j), px.x() * ww / std::max(fw, 1),
                   px.y() * wh / std::max(fh, 1));
    }
    std::fflush(stdout);
  }
  const auto t_open = Clock::now();
  bool announced = false;
  int frames_drawn = 0;  // ImGui lays windows out over the first frames
  int shown_iterations = -1;
  const bool full = m->simulation().solver() == SolverKind::Full;
  int solver = full ? 1 : 0, modes = a.modes, clusters = a.clusters, iterations = a.iterations;
  float ym_scale = 1.0f, rho_scale = 1.0f, gravity = static_cast<float>(a.gravity);
  const double ym0 = m->ym(), rho0 = m->rho();
  double acc = 0, step_ms = 0, draw_ms = 0, lift_ms = 0;
  auto last = Clock::now();
  bool dragging = false, rotating = false;
  double mx0 = 0, my0 = 0, angle0 = 0;
  constexpr float kRing = 40.0f;  // the rotate gizmo: a ring of this radius (window pixels) around the selected handle
  while (!glfwWindowShouldClose(window.win)) {
    glfwPollEvents();
    int w = 0, h = 0;
    glfwGetFramebufferSize(window.win, &w, &h);
    // Time: the simulation runs at the animation's rate (dt), whatever the display's.
    const auto now = Clock::now();
    acc += std::chrono::duration<double>(now - last).count();
    last = now;
    const auto t_step = Clock::now();
    for (int k = 0; acc >= m->scene().dt && k < 4; ++k) {
      m->tick();
      acc -= m->scene().dt;
    }
    acc = std::min(acc, m->scene().dt);
    step_ms = 1e3 * std::chrono::duration<double>(Clock::now() - t_step).count();

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    // The panel on the right edge, out of the model's way (it is framed in the middle).
    ImGui::SetNextWindowPos(ImVec2(ImGui::GetIO().DisplaySize.x - 10, 10), ImGuiCond_FirstUseEver, ImVec2(1, 0));
    ImGui::SetNextWindowSize(ImVec2(330, 0), ImGuiCond_FirstUseEver);
    ImGui::Begin("fastcd");
    bool playing = m->playing();
    if (ImGui::Checkbox("play", &playing)) m->set_playing(playing);
    ImGui::SameLine();
    if (ImGui::Button("step")) m->step();
    int f = m->frame();
    if (ImGui::SliderInt("frame", &f, 0, m->frames() - 1)) m->seek(f);
    bool loop = m->settings().loop;
    if (ImGui::Checkbox("loop", &loop)) m->set_loop(loop);
    int layout = look.layout;
    ImGui::Combo("layout", &layout, "rig+dynamics\0side by side\0ghost overlay\0");
    look.layout = static_cast<Look::Layout>(layout);
    int field = static_cast<int>(look.field);
    ImGui::Combo("colour", &field, "shaded\0clusters\0mode\0leak field D\0|u_c|\0");
    const bool fast_now = m->simulation().fast() != nullptr;
    if (!fast_now && (field == 1 || field == 2)) field = 0;
    look.field = static_cast<ViewField>(field);
    if (look.field == ViewField::Mode) ImGui::SliderInt("mode k", &look.mode, 0, std::max(0, m->modes() - 1));
    ImGui::Separator();
    // Settings apply when a control is let go (a slider drag would otherwise rebuild every frame).
    bool rebuild = ImGui::Combo("solver", &solver, "fast\0full\0");
    ImGui::SliderFloat("YM x", &ym_scale, 0.05f, 20.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
    rebuild |= ImGui::IsItemDeactivatedAfterEdit();
    ImGui::SliderFloat("density x", &rho_scale, 0.05f, 20.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
    rebuild |= ImGui::IsItemDeactivatedAfterEdit();
    ImGui::SliderFloat("gravity", &gravity, 0.0f, 20.0f);
    rebuild |= ImGui::IsItemDeactivatedAfterEdit();
    ImGui::SliderInt("iterations", &iterations, 1, 30);
    rebuild |= ImGui::IsItemDeactivatedAfterEdit();
    if (a.print_handles &&
        frames_drawn == 3) {  // where the slider is (laid out by now) (window pixels): for scripted input
      const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
      std::fprintf(stdout, "slider iterations from %.0f to %.0f at %.0f\n", lo.x, lo.x + ImGui::CalcItemWidth(),
                   (lo.y + hi.y) / 2);
    }
    ImGui::InputInt("modes", &modes);
    ImGui::InputInt("clusters", &clusters);
    rebuild |= ImGui::Button("rebuild (modes, clusters)");
    if (rebuild) {
      SceneRunSettings run = m->settings().run;
      run.solver = solver == 1 ? SolverKind::Full : SolverKind::Fast;
      run.modes = std::max(1, modes);
      run.clusters = std::max(1, clusters);
      run.iterations = iterations;
      run.gravity = gravity;
      try {
        m->set_run_settings(run, ym0 * ym_scale, rho0 * rho_scale);
      } catch (const std::exception& e) {
        std::fprintf(stdout, "%s\n", e.what());
      }
    }
    if (gpu_ready) ImGui::Checkbox("lift on the GPU (skinning form)", &look.gpu);
    if (a.print_handles && m->simulation().options().cd.iterations != shown_iterations) {
      shown_iterations = m->simulation().options().cd.iterations;
      std::fprintf(stdout, "simulating with %d iterations\n", shown_iterations);
      std::fflush(stdout);
    }
    if (m->rebuilding()) ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "precomputing in the background...");
    if (!m->last_error().empty()) ImGui::TextWrapped("%s", m->last_error().c_str());
    ImGui::Separator();
    const auto& sm = m->step_ms();
    ImGui::Text("%s solver: %.3f ms/step (frame: step %.2f, lift %.2f, draw %.2f ms)",
                m->simulation().solver() == SolverKind::Fast ? "fast" : "full", sm.empty() ? 0.0 : sm.back(), step_ms,
                lift_ms, draw_ms);
    std::vector<float> res(m->residuals().begin(), m->residuals().end()),
        ke(m->kinetic_energies().begin(), m->kinetic_energies().end());
    ImGui::PlotLines("residual", res.data(), static_cast<int>(res.size()), 0, nullptr, 0.0f, FLT_MAX, ImVec2(0, 50));
    ImGui::PlotLines("kinetic E", ke.data(), static_cast<int>(ke.size()), 0, nullptr, 0.0f, FLT_MAX, ImVec2(0, 50));
    ImGui::TextWrapped(
        "Left button: drag a handle (yellow) to move it; drag its ring to turn it. Right button: turn the camera. "
        "Wheel: zoom.");
    ImGui::End();

    // Mouse in the viewport: pick and drag handles, orbit, zoom.
    ImGuiIO& io = ImGui::GetIO();
    double mx = 0, my = 0;
    glfwGetCursorPos(window.win, &mx, &my);
    int ww = 0, wh = 0;
    glfwGetWindowSize(window.win, &ww, &wh);
    const double sx = ww > 0 ? double(w) / ww : 1, sy = wh > 0 ? double(h) / wh : 1;
    if (!io.WantCaptureMouse) {
      // The selected handle's ring: pressing on it turns the handle about the view axis.
      Eigen::Vector2f ring_centre(0, 0);
      if (look.selected >= 0)
        ring_centre = cam.project(as3d(m->handle_position(look.selected).transpose()).row(0).transpose(), w, h)
                          .cwiseQuotient(Eigen::Vector2f(float(sx), float(sy)));
      const auto mouse_angle = [&] { return std::atan2(my - ring_centre.y(), mx - ring_centre.x()); };
      const float from_ring = std::abs((Eigen::Vector2f(float(mx), float(my)) - ring_centre).norm() - kRing);
      if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && look.selected >= 0 && from_ring < 8.0f) {
        rotating = true;
        angle0 = mouse_angle();
        if (a.print_handles) {
          std::fprintf(stdout, "ring of handle %d grabbed\n", look.selected);
          std::fflush(stdout);
        }
      } else if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && m->manipulable()) {
        look.selected = -1;
        float best = 15.0f * float(sx);
        for (Index j = 0; j < m->handles(); ++j) {
          const Eigen::Vector2f s = cam.project(as3d(m->handle_position(j).transpose()).row(0).transpose(), w, h);
          const float dd = (s - Eigen::Vector2f(float(mx * sx), float(my * sy))).norm();
          if (dd < best) {
            best = dd;
            look.selected = static_cast<int>(j);
          }
        }
        dragging = look.selected >= 0;
        if (a.print_handles) {
          std::fprintf(stdout, "click at %.0f %.0f: handle %d\n", mx, my, look.selected);
          std::fflush(stdout);
        }
        mx0 = mx;
        my0 = my;
      }
      if (ImGui::IsMouseDown(ImGuiMouseButton_Right)) {
        cam.yaw -= 0.01f * io.MouseDelta.x;
        cam.pitch = std::clamp(cam.pitch + 0.01f * io.MouseDelta.y, -1.5f, 1.5f);
      }
      if (io.MouseWheel != 0) cam.distance *= std::pow(0.9f, io.MouseWheel);
    }
    if (rotating && ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
      const Eigen::Vector2f c =
          cam.project(as3d(m->handle_position(look.selected).transpose()).row(0).transpose(), w, h)
              .cwiseQuotient(Eigen::Vector2f(float(sx), float(sy)));
      const double angle = std::atan2(my - c.y(), mx - c.x());
      double d = angle - angle0;
      d = std::remainder(d, 2 * M_PI);
      angle0 = angle;
      // Screen angles grow clockwise (y down): a turn about the axis into the screen.
      const Eigen::Vector3d into =
          (cam.center - (cam.view().inverse() * Eigen::Vector4f(0, 0, 0, 1)).head<3>()).normalized().cast<double>();
      if (d != 0) {
        m->rotate_handle(look.selected, into, d);
        if (!m->playing()) m->seek(m->frame());
      }
    } else {
      rotating = false;
    }
    if (look.selected >= 0 && m->manipulable()) {  // draw the ring
      const Eigen::Vector2f c =
          cam.project(as3d(m->handle_position(look.selected).transpose()).row(0).transpose(), w, h)
              .cwiseQuotient(Eigen::Vector2f(float(sx), float(sy)));
      ImGui::GetForegroundDrawList()->AddCircle(
          ImVec2(c.x(), c.y()), kRing, rotating ? IM_COL32(255, 80, 80, 255) : IM_COL32(255, 220, 40, 220), 64, 2.5f);
    }
    if (dragging && !rotating && ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
      const float k = cam.world_per_pixel(h);
      const Eigen::Vector3f d = k * (float((mx - mx0) * sx) * cam.right() - float((my - my0) * sy) * cam.up());
      mx0 = mx;
      my0 = my;
      if (d.norm() > 0) {
        m->translate_handle(look.selected, d.head(m->scene().dim).cast<double>());
        if (!m->playing()) m->seek(m->frame());  // paused: show the frame again with the moved handle
      }
    } else {
      dragging = false;
    }

    const auto t_lift = Clock::now();  // what the CPU does per frame to place the mesh
    if (look.gpu)
      (void)m->skinning_transforms();
    else
      (void)m->positions();
    lift_ms = 1e3 * std::chrono::duration<double>(Clock::now() - t_lift).count();
    const auto t_draw = Clock::now();
    draw(r, cam, *m, look, w, h);
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (a.quit_after > 0 && std::chrono::duration<double>(Clock::now() - t_open).count() > a.quit_after) {
      if (!a.window_screenshot.empty()) {  // the model as last drawn, without the panel
        draw(r, cam, *m, look, w, h);
        view::write_png(a.window_screenshot, r.read_pixels(w, h), w, h);
      }
      glfwSetWindowShouldClose(window.win, 1);
    }
    glfwSwapBuffers(window.win);
    if (a.print_handles && !announced && ++frames_drawn > 3) {  // scripted input may start now
      announced = true;
      std::fprintf(stdout, "window ready\n");
      std::fflush(stdout);
    }
    draw_ms = 1e3 * std::chrono::duration<double>(Clock::now() - t_draw).count();
    if (a.stats && m->frame() % 60 == 0)
      std::fprintf(stdout, "frame %d: step %.3f ms, lift %.3f ms, draw %.3f ms\n", m->frame(), step_ms, lift_ms,
                   draw_ms);
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  return 0;
}

}  // namespace

void register_view(CLI::App& app) {
  auto a = std::make_shared<ViewArgs>();
  CLI::App* v = app.add_subcommand(
      "view",
      "Watch the method live: play the animation with the solver stepping, drag handles, change settings "
      "(a window); --screenshot / --record render offscreen without a display");
  v->add_option(
       "scene", a->scene,
       "scene JSON, glTF character (.glb / .gltf), or a closed surface (.obj / .off / .ply) with --handles and --anim")
      ->required()
      ->check(CLI::ExistingFile);
  v->add_option("--clip", a->clip, "glTF: the clip, by name or index (default: the first)");
  v->add_option("--scale,--metres-per-unit", a->metres_per_unit, "glTF / surface: metres per file unit")
      ->check(CLI::PositiveNumber);
  v->add_option("--handles", a->handles, "surface: the handles (TGF)")->check(CLI::ExistingFile);
  v->add_option("--anim", a->anim, "surface: the handles' animation")->check(CLI::ExistingFile);
  v->add_option("--weights", a->weights, "surface: LBS weights, one row per surface vertex")->check(CLI::ExistingFile);
  v->add_option("--solver", a->solver, "fast or full")->check(CLI::IsMember({"fast", "full"}))->capture_default_str();
  v->add_option("--modes", a->modes, "fast: skinning eigenmodes")->check(CLI::PositiveNumber)->capture_default_str();
  v->add_option("--clusters", a->clusters, "fast: rotation clusters")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  v->add_option("--iterations", a->iterations, "local/global iterations per step")->check(CLI::NonNegativeNumber);
  v->add_option("--leak", a->leak, "momentum-leak field (as fastcd run)");
  v->add_option("--gravity", a->gravity, "gravity along -y (as fastcd run)");
  v->add_option("--view", a->view, "colour: shaded, clusters, mode, leak or displacement")
      ->check(CLI::IsMember({"shaded", "clusters", "mode", "leak", "displacement"}));
  v->add_option("--mode", a->mode, "--view mode: which skinning eigenmode")->check(CLI::NonNegativeNumber);
  v->add_option("--layout", a->layout, "single, side (rig alone beside rig + dynamics) or overlay (a ghost of the rig)")
      ->check(CLI::IsMember({"single", "side", "overlay"}));
  v->add_option("--size", a->size, "WIDTHxHEIGHT of the window or image")->capture_default_str();
  v->add_option("--screenshot", a->screenshot,
                "render frame --frame offscreen (no display needed) to this PNG and exit");
  v->add_option("--frame", a->frame, "--screenshot: the frame (default 0); window: start there")
      ->check(CLI::NonNegativeNumber);
  v->add_option("--record", a->record, "render the animation offscreen to this MP4 and exit");
  v->add_option("--frames", a->frames, "--record: only the first N frames")->check(CLI::PositiveNumber);
  v->add_option("--drag", a->drags, "HANDLE:dx,dy[,dz]: move a handle on top of the animation (normalised units)");
  v->add_flag("--stats", a->stats, "print the frame-time breakdown (step, lift, draw) now and then");
  v->add_option("--lift", a->lift, "auto (GPU skinning form when the scene has one), gpu or cpu")
      ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
  v->add_flag("--paused", a->paused, "window: start paused (at --frame)");
  v->add_option("--quit-after", a->quit_after, "window: close after this many seconds (scripted sessions)")
      ->check(CLI::PositiveNumber);
  v->add_option("--window-screenshot", a->window_screenshot, "window, with --quit-after: save the model as last drawn");
  v->add_flag("--print-handles", a->print_handles, "window: print each handle's position in window pixels");
  v->callback([a] {
    // A device, a FIFO or a folder at an output's name is refused before the scene is loaded.
    for (const std::string* out : {&a->screenshot, &a->record, &a->window_screenshot})
      if (!out->empty()) check_output_file(*out, "fastcd view");
    if (!a->screenshot.empty() || !a->record.empty())
      run_offscreen(*a);
    else
      run_window(*a);
  });
}

}  // namespace fastcd::cli
