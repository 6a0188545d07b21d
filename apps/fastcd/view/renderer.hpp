#pragma once
// The viewer's OpenGL 3.3 core drawing, shared by the window (GLFW) and offscreen rendering
// (EGL surfaceless): meshes with per-vertex colours, flat-lit from screen-space derivatives (no
// normals to keep in sync), handles as round points, an orbit camera. Needs a current context.
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

namespace fastcd::cli::view {

/// An orbit camera looking at `center` from `distance` (yaw / pitch in radians).
struct Camera {
  Eigen::Vector3f center = Eigen::Vector3f::Zero();
  float distance = 3.0f, yaw = 0.6f, pitch = 0.35f, fov = 0.6f;
  Eigen::Matrix4f view() const;
  Eigen::Matrix4f projection(float aspect) const;
  Eigen::Vector3f right() const;  ///< world direction of screen +x
  Eigen::Vector3f up() const;     ///< world direction of screen +y
  /// World units per pixel at the center's depth for a viewport `height` pixels tall.
  float world_per_pixel(int height) const;
  /// Pixel coordinates (origin top left) of world point p in a w x h viewport.
  Eigen::Vector2f project(const Eigen::Vector3f& p, int w, int h) const;
};

/// Colours for a field in [0, 1]: categorical (clusters), diverging (modes), sequential.
enum class Palette { Skin, Ghost, Categorical, Diverging, Sequential };
std::vector<float> colours(const Eigen::VectorXd& field, Palette palette, Eigen::Index n);

class Renderer {
 public:
  Renderer() = default;
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;
  /// Compiles the shaders and makes the buffers; `faces` (#F x 3) for every mesh drawn.
  /// @throws std::runtime_error with the GL log when a shader does not compile.
  void init(const Eigen::MatrixXi& faces);
  /// Starts a frame: clears a w x h viewport to the background.
  void begin(int w, int h);
  /// Draws one mesh (#V x 3 positions, #V x 3 colours) shifted by `offset`, with `alpha` < 1 as a
  /// ghost (drawn without depth writes).
  void mesh(const Camera& cam, const Eigen::MatrixXf& X, const std::vector<float>& rgb, const Eigen::Vector3f& offset,
            float alpha = 1.0f);
  /// Skinning-form lifting on the GPU (x_v = sum_b w_vb M_b [X_v; 1], dense weights in an
  /// RGBA32F texture read with texelFetch, the transforms' rows in a uniform block): the rest
  /// positions (#V x 3) and weights (#V x K) go up once. False (and the CPU path stays) when the
  /// context's uniform blocks cannot hold K transforms.
  bool init_skinning(const Eigen::MatrixXf& rest, const Eigen::MatrixXf& weights);
  /// Draws the mesh lifted on the GPU by K transforms (K x 12, each a column-major 3x4).
  void mesh_skinned(const Camera& cam, const Eigen::MatrixXf& transforms, const std::vector<float>& rgb,
                    const Eigen::Vector3f& offset, float alpha = 1.0f);
  /// Draws points (handles) of `size` pixels, one colour each.
  void points(const Camera& cam, const Eigen::MatrixXf& P, const std::vector<float>& rgb, float size);
  /// The viewport's pixels, RGB, top row first.
  std::vector<std::uint8_t> read_pixels(int w, int h) const;

 private:
  /// Binds a mesh program (plain or skinning) with the camera, offset and alpha.
  void use_mesh_program(unsigned program, const Camera& cam, const Eigen::Vector3f& offset, float alpha);
  /// Uploads the colours and draws the bound VAO's triangles (blended, no depth writes, when alpha < 1).
  void draw_triangles(unsigned colour_vbo, const std::vector<float>& rgb, float alpha);
  int w_ = 0, h_ = 0;
  unsigned program_ = 0, point_program_ = 0, vao_ = 0, vbo_pos_ = 0, vbo_col_ = 0, ebo_ = 0;
  unsigned point_vao_ = 0, point_vbo_ = 0;
  unsigned skin_program_ = 0, skin_vao_ = 0, skin_rest_ = 0, skin_col_ = 0, skin_tex_ = 0, skin_ubo_ = 0;
  int skin_k4_ = 0;
  int index_count_ = 0;
};

/// Writes RGB pixels (top row first) as a PNG, atomically.
/// @throws std::runtime_error when it cannot be written.
void write_png(const std::string& path, const std::vector<std::uint8_t>& rgb, int w, int h);

}  // namespace fastcd::cli::view
