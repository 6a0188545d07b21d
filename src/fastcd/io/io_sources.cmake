# File readers and writers of fastcd::io (meshes, rigs, point caches). Included by
# src/CMakeLists.txt after add_library(fastcd ...).
target_sources(fastcd PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/parse_util.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mesh_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/msh_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rig_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pc2_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/render3d.cpp
)
