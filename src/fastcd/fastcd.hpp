#pragma once
// Umbrella header of fastcd::fastcd without viz: the core (core.hpp), the file formats (io/) and
// the scene layer (scene/). The renderers are included on their own (fastcd/viz/*.hpp, target
// fastcd::viz).
#include "fastcd/core.hpp"
#include "fastcd/io/anim_io.hpp"
#include "fastcd/io/atomic_file.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/npy.hpp"
#include "fastcd/io/obj_document.hpp"
#include "fastcd/io/pc2_io.hpp"
#include "fastcd/io/ply_io.hpp"
#include "fastcd/io/rig_io.hpp"
#include "fastcd/scene/characters.hpp"
#include "fastcd/scene/precompute_cache.hpp"
#include "fastcd/scene/scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"
