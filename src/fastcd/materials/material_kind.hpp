#pragma once
// material_kind: the materials fastcd has, by name, and the dispatch from a run-time choice to
// the material's compile-time kernels.
#include <stdexcept>
#include <string>
#include <string_view>

#include "fastcd/materials/arap.hpp"

namespace fastcd {

/// The materials fastcd has (the name a scene or run.json uses is material_name(kind)).
enum class MaterialKind { Arap };

/// "arap", ...
std::string material_name(MaterialKind kind);

/// The kind named `name` ("arap"). @throws std::invalid_argument naming the known materials.
MaterialKind material_kind(std::string_view name);

/// Calls f.template operator()<M>() with M the material struct of `kind` (Arap, ...).
template <class Fn>
decltype(auto) dispatch_material(MaterialKind kind, Fn&& f) {
  switch (kind) {
    case MaterialKind::Arap:
      return f.template operator()<Arap>();
  }
  throw std::invalid_argument("unknown material kind " + std::to_string(static_cast<int>(kind)));
}

}  // namespace fastcd
