#include "view/renderer.hpp"

#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <stb_image_write.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fastcd/io/atomic_file.hpp"

namespace fastcd::cli::view {

namespace {

const char* kMeshVs = R"(#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 colour;
uniform mat4 mvp;
uniform vec3 offset;
out vec3 v_colour;
out vec3 v_world;
void main() {
  v_world = position + offset;
  v_colour = colour;
  gl_Position = mvp * vec4(v_world, 1.0);
})";

// Flat lighting from the triangle's screen-space derivatives: a headlight and a key light.
const char* kMeshFs = R"(#version 330 core
in vec3 v_colour;
in vec3 v_world;
uniform vec3 eye;
uniform float alpha;
out vec4 frag;
void main() {
  vec3 n = normalize(cross(dFdx(v_world), dFdy(v_world)));
  vec3 to_eye = normalize(eye - v_world);
  if (dot(n, to_eye) < 0.0) n = -n;
  vec3 key = normalize(vec3(0.4, 0.8, 0.45));
  float light = 0.25 + 0.55 * max(dot(n, to_eye), 0.0) + 0.3 * max(dot(n, key), 0.0);
  frag = vec4(v_colour * light, alpha);
})";

// Skinning-form lifting: K4 RGBA texels of weights per vertex, 3 rows per transform.
std::string skin_vs(int k4) {
  return "#version 330 core\n#define K4 " + std::to_string(k4) + R"(
layout(location = 0) in vec3 rest;
layout(location = 1) in vec3 colour;
uniform sampler2D weights;
uniform int wwidth;
layout(std140) uniform Transforms { vec4 rows[3 * 4 * K4]; };
uniform mat4 mvp;
uniform vec3 offset;
out vec3 v_colour;
out vec3 v_world;
void main() {
  vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
  for (int j = 0; j < K4; ++j) {
    int i = gl_VertexID * K4 + j;
    vec4 w = texelFetch(weights, ivec2(i % wwidth, i / wwidth), 0);
    for (int c = 0; c < 4; ++c) {
      int b = 3 * (4 * j + c);
      r0 += w[c] * rows[b];
      r1 += w[c] * rows[b + 1];
      r2 += w[c] * rows[b + 2];
    }
  }
  vec4 p = vec4(rest, 1.0);
  v_world = vec3(dot(r0, p), dot(r1, p), dot(r2, p)) + offset;
  v_colour = colour;
  gl_Position = mvp * vec4(v_world, 1.0);
})";
}

const char* kPointVs = R"(#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 colour;
uniform mat4 mvp;
uniform float size;
out vec3 v_colour;
void main() {
  v_colour = colour;
  gl_Position = mvp * vec4(position, 1.0);
  gl_PointSize = size;
})";

const char* kPointFs = R"(#version 330 core
in vec3 v_colour;
out vec4 frag;
void main() {
  vec2 d = gl_PointCoord - vec2(0.5);
  float r = dot(d, d);
  if (r > 0.25) discard;
  frag = vec4(r > 0.16 ? vec3(0.05) : v_colour, 1.0);
})";

unsigned compile(GLenum kind, const char* src) {
  const unsigned s = glCreateShader(kind);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    throw std::runtime_error(std::string("view: a shader does not compile: ") + log);
  }
  return s;
}

unsigned link(const char* vs, const char* fs) {
  const unsigned p = glCreateProgram(), v = compile(GL_VERTEX_SHADER, vs), f = compile(GL_FRAGMENT_SHADER, fs);
  glAttachShader(p, v);
  glAttachShader(p, f);
  glLinkProgram(p);
  glDeleteShader(v);
  glDeleteShader(f);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetProgramInfoLog(p, sizeof log, nullptr, log);
    throw std::runtime_error(std::string("view: the shaders do not link: ") + log);
  }
  return p;
}

Eigen::Vector3f palette_colour(double v, Palette p, Eigen::Index i) {
  v = std::clamp(v, 0.0, 1.0);
  switch (p) {
    case Palette::Skin:
      return {0.86f, 0.70f, 0.58f};
    case Palette::Ghost:
      return {0.55f, 0.65f, 0.85f};
    case Palette::Categorical: {  // golden-ratio hues of the category index
      const double h = std::fmod(v * 977.0 * 0.618033988749895, 1.0) * 6.0;
      const double x = 1.0 - std::abs(std::fmod(h, 2.0) - 1.0);
      Eigen::Vector3f c;
      switch (static_cast<int>(h)) {
        case 0:
          c = {1.0f, float(x), 0.0f};
          break;
        case 1:
          c = {float(x), 1.0f, 0.0f};
          break;
        case 2:
          c = {0.0f, 1.0f, float(x)};
          break;
        case 3:
          c = {0.0f, float(x), 1.0f};
          break;
        case 4:
          c = {float(x), 0.0f, 1.0f};
          break;
        default:
          c = {1.0f, 0.0f, float(x)};
          break;
      }
      return 0.35f * Eigen::Vector3f::Ones() + 0.6f * c;
    }
    case Palette::Diverging: {  // blue - white - red
      const float t = float(2 * v - 1);
      return t < 0 ? Eigen::Vector3f(1 + t * 0.8f, 1 + t * 0.6f, 1.0f)
                   : Eigen::Vector3f(1.0f, 1 - t * 0.7f, 1 - t * 0.8f);
    }
    case Palette::Sequential: {  // dark blue - teal - yellow
      const float t = float(v);
      return {0.15f + 0.85f * t * t, 0.1f + 0.8f * t, 0.4f + 0.3f * t - 0.5f * t * t};
    }
  }
  (void)i;
  return {1, 1, 1};
}

}  // namespace

Eigen::Matrix4f Camera::view() const {
  const Eigen::Vector3f eye = center + distance * Eigen::Vector3f(std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                                                                  std::cos(pitch) * std::cos(yaw));
  const Eigen::Vector3f f = (center - eye).normalized(), r = f.cross(Eigen::Vector3f::UnitY()).normalized(),
                        u = r.cross(f);
  Eigen::Matrix4f V = Eigen::Matrix4f::Identity();
  V.block<1, 3>(0, 0) = r.transpose();
  V.block<1, 3>(1, 0) = u.transpose();
  V.block<1, 3>(2, 0) = -f.transpose();
  V(0, 3) = -r.dot(eye);
  V(1, 3) = -u.dot(eye);
  V(2, 3) = f.dot(eye);
  return V;
}

Eigen::Matrix4f Camera::projection(float aspect) const {
  const float n = 0.01f * distance, fa = 100.0f * distance, t = std::tan(fov / 2);
  Eigen::Matrix4f P = Eigen::Matrix4f::Zero();
  P(0, 0) = 1 / (t * aspect);
  P(1, 1) = 1 / t;
  P(2, 2) = -(fa + n) / (fa - n);
  P(2, 3) = -2 * fa * n / (fa - n);
  P(3, 2) = -1;
  return P;
}

Eigen::Vector3f Camera::right() const { return view().block<1, 3>(0, 0).transpose(); }
Eigen::Vector3f Camera::up() const { return view().block<1, 3>(1, 0).transpose(); }

float Camera::world_per_pixel(int height) const {
  return 2 * distance * std::tan(fov / 2) / static_cast<float>(std::max(height, 1));
}

Eigen::Vector2f Camera::project(const Eigen::Vector3f& p, int w, int h) const {
  const Eigen::Vector4f c = projection(float(w) / float(std::max(h, 1))) * view() * p.homogeneous();
  return {(c.x() / c.w() * 0.5f + 0.5f) * float(w), (0.5f - c.y() / c.w() * 0.5f) * float(h)};
}

std::vector<float> colours(const Eigen::VectorXd& field, Palette palette, Eigen::Index n) {
  std::vector<float> out(static_cast<std::size_t>(3 * n));
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Vector3f c = palette_colour(field.size() == n ? field[i] : 0.5, palette, i);
    for (int k = 0; k < 3; ++k) out[static_cast<std::size_t>(3 * i + k)] = c[k];
  }
  return out;
}

Renderer::~Renderer() {
  // The context may be gone when the renderer is destroyed after the window; GL objects go with it.
}

void Renderer::init(const Eigen::MatrixXi& faces) {
  program_ = link(kMeshVs, kMeshFs);
  point_program_ = link(kPointVs, kPointFs);
  glGenVertexArrays(1, &vao_);
  glBindVertexArray(vao_);
  glGenBuffers(1, &vbo_pos_);
  glGenBuffers(1, &vbo_col_);
  glGenBuffers(1, &ebo_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_pos_);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, nullptr);
  glEnableVertexAttribArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_col_);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 0, nullptr);
  glEnableVertexAttribArray(1);
  std::vector<unsigned> idx(static_cast<std::size_t>(faces.size()));
  for (Eigen::Index f = 0; f < faces.rows(); ++f)
    for (int k = 0; k < 3; ++k) idx[static_cast<std::size_t>(3 * f + k)] = static_cast<unsigned>(faces(f, k));
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(idx.size() * sizeof(unsigned)), idx.data(),
               GL_STATIC_DRAW);
  index_count_ = static_cast<int>(idx.size());
  glGenVertexArrays(1, &point_vao_);
  glBindVertexArray(point_vao_);
  glGenBuffers(1, &point_vbo_);
  glBindBuffer(GL_ARRAY_BUFFER, point_vbo_);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), nullptr);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), reinterpret_cast<void*>(3 * sizeof(float)));
  glEnableVertexAttribArray(1);
  glBindVertexArray(0);
}

void Renderer::begin(int w, int h) {
  w_ = w;
  h_ = h;
  glViewport(0, 0, w, h);
  glClearColor(0.16f, 0.17f, 0.19f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glEnable(GL_PROGRAM_POINT_SIZE);
}

void Renderer::use_mesh_program(unsigned program, const Camera& cam, const Eigen::Vector3f& offset, float alpha) {
  const Eigen::Matrix4f mvp = cam.projection(float(w_) / float(std::max(h_, 1))) * cam.view();
  const Eigen::Vector3f eye = (cam.view().inverse() * Eigen::Vector4f(0, 0, 0, 1)).head<3>();
  glUseProgram(program);
  glUniformMatrix4fv(glGetUniformLocation(program, "mvp"), 1, GL_FALSE, mvp.data());
  glUniform3fv(glGetUniformLocation(program, "offset"), 1, offset.data());
  glUniform3fv(glGetUniformLocation(program, "eye"), 1, eye.data());
  glUniform1f(glGetUniformLocation(program, "alpha"), alpha);
}

void Renderer::draw_triangles(unsigned colour_vbo, const std::vector<float>& rgb, float alpha) {
  glBindBuffer(GL_ARRAY_BUFFER, colour_vbo);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(rgb.size() * sizeof(float)), rgb.data(), GL_STREAM_DRAW);
  if (alpha < 1) {
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
  }
  glDrawElements(GL_TRIANGLES, index_count_, GL_UNSIGNED_INT, nullptr);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glBindVertexArray(0);
}

void Renderer::mesh(const Camera& cam, const Eigen::MatrixXf& X, const std::vector<float>& rgb,
                    const Eigen::Vector3f& offset, float alpha) {
  const Eigen::Matrix<float, Eigen::Dynamic, 3, Eigen::RowMajor> P = X;
  use_mesh_program(program_, cam, offset, alpha);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_pos_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(P.size() * sizeof(float)), P.data(), GL_STREAM_DRAW);
  draw_triangles(vbo_col_, rgb, alpha);
}

bool Renderer::init_skinning(const Eigen::MatrixXf& rest, const Eigen::MatrixXf& weights) {
  const int K = static_cast<int>(weights.cols()), k4 = (K + 3) / 4;
  GLint max_block = 0;
  glGetIntegerv(GL_MAX_UNIFORM_BLOCK_SIZE, &max_block);
  if (K == 0 || 3 * 4 * k4 * 16 > max_block) return false;
  skin_k4_ = k4;
  skin_program_ = link(skin_vs(k4).c_str(), kMeshFs);
  glUniformBlockBinding(skin_program_, glGetUniformBlockIndex(skin_program_, "Transforms"), 0);
  glGenVertexArrays(1, &skin_vao_);
  glBindVertexArray(skin_vao_);
  const Eigen::Matrix<float, Eigen::Dynamic, 3, Eigen::RowMajor> X = rest;
  glGenBuffers(1, &skin_rest_);
  glBindBuffer(GL_ARRAY_BUFFER, skin_rest_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(X.size() * sizeof(float)), X.data(), GL_STATIC_DRAW);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, nullptr);
  glEnableVertexAttribArray(0);
  glGenBuffers(1, &skin_col_);
  glBindBuffer(GL_ARRAY_BUFFER, skin_col_);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 0, nullptr);
  glEnableVertexAttribArray(1);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);
  glBindVertexArray(0);
  // Weights: vertex v's texels at v*K4 .. v*K4 + K4-1, wrapped at the texture's width.
  const long texels = static_cast<long>(rest.rows()) * k4;
  const int width = static_cast<int>(std::min<long>(texels, 4096)),
            height = static_cast<int>((texels + width - 1) / width);
  std::vector<float> data(static_cast<std::size_t>(4L * width * height), 0.0f);
  for (Eigen::Index v = 0; v < weights.rows(); ++v)
    for (int b = 0; b < K; ++b) data[static_cast<std::size_t>(4 * (v * k4) + b)] = weights(v, b);
  glGenTextures(1, &skin_tex_);
  glBindTexture(GL_TEXTURE_2D, skin_tex_);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, width, height, 0, GL_RGBA, GL_FLOAT, data.data());
  glUseProgram(skin_program_);
  glUniform1i(glGetUniformLocation(skin_program_, "wwidth"), width);
  glUniform1i(glGetUniformLocation(skin_program_, "weights"), 0);
  glGenBuffers(1, &skin_ubo_);
  glBindBuffer(GL_UNIFORM_BUFFER, skin_ubo_);
  glBufferData(GL_UNIFORM_BUFFER, 3 * 4 * k4 * 16, nullptr, GL_STREAM_DRAW);
  return true;
}

void Renderer::mesh_skinned(const Camera& cam, const Eigen::MatrixXf& transforms, const std::vector<float>& rgb,
                            const Eigen::Vector3f& offset, float alpha) {
  // Each transform's three rows as vec4s (std140), padded to 4*K4 transforms with zeros.
  std::vector<float> rows(static_cast<std::size_t>(3 * 4 * skin_k4_ * 4), 0.0f);
  for (Eigen::Index b = 0; b < transforms.rows(); ++b)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) rows[static_cast<std::size_t>(4 * (3 * b + r) + c)] = transforms(b, 3 * c + r);
  use_mesh_program(skin_program_, cam, offset, alpha);
  glBindBuffer(GL_UNIFORM_BUFFER, skin_ubo_);
  glBufferSubData(GL_UNIFORM_BUFFER, 0, static_cast<GLsizeiptr>(rows.size() * sizeof(float)), rows.data());
  glBindBufferBase(GL_UNIFORM_BUFFER, 0, skin_ubo_);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, skin_tex_);
  glBindVertexArray(skin_vao_);
  draw_triangles(skin_col_, rgb, alpha);
}

void Renderer::points(const Camera& cam, const Eigen::MatrixXf& P, const std::vector<float>& rgb, float size) {
  if (P.rows() == 0) return;
  std::vector<float> data(static_cast<std::size_t>(6 * P.rows()));
  for (Eigen::Index i = 0; i < P.rows(); ++i)
    for (int k = 0; k < 3; ++k) {
      data[static_cast<std::size_t>(6 * i + k)] = P(i, k);
      data[static_cast<std::size_t>(6 * i + 3 + k)] = rgb[static_cast<std::size_t>(3 * i + k)];
    }
  const Eigen::Matrix4f mvp = cam.projection(float(w_) / float(std::max(h_, 1))) * cam.view();
  glUseProgram(point_program_);
  glUniformMatrix4fv(glGetUniformLocation(point_program_, "mvp"), 1, GL_FALSE, mvp.data());
  glUniform1f(glGetUniformLocation(point_program_, "size"), size);
  glBindVertexArray(point_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, point_vbo_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(data.size() * sizeof(float)), data.data(), GL_STREAM_DRAW);
  glDisable(GL_DEPTH_TEST);  // handles stay visible inside the mesh
  glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(P.rows()));
  glEnable(GL_DEPTH_TEST);
  glBindVertexArray(0);
}

std::vector<std::uint8_t> Renderer::read_pixels(int w, int h) const {
  std::vector<std::uint8_t> px(static_cast<std::size_t>(3 * w * h)), out(px.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, px.data());
  for (int y = 0; y < h; ++y)  // GL's rows go bottom up
    std::copy_n(px.begin() + 3 * w * (h - 1 - y), 3 * w, out.begin() + 3 * w * y);
  return out;
}

void write_png(const std::string& path, const std::vector<std::uint8_t>& rgb, int w, int h) {
  write_file_atomically(path, [&](const std::string& tmp) {
    if (stbi_write_png(tmp.c_str(), w, h, 3, rgb.data(), 3 * w) == 0)
      throw std::runtime_error("view: cannot write the PNG '" + path + "'");
  });
}

}  // namespace fastcd::cli::view
