#include "fastcd/materials/material_kind.hpp"

namespace fastcd {

std::string material_name(MaterialKind kind) {
  return dispatch_material(kind, []<class M>() { return std::string(M::name); });
}

MaterialKind material_kind(std::string_view name) {
  for (const MaterialKind k : {MaterialKind::Arap})
    if (material_name(k) == name) return k;
  throw std::invalid_argument("unknown material \"" + std::string(name) + "\"; fastcd has: arap");
}

}  // namespace fastcd
