# Rig geometry of fastcd (cage coordinates, the daisy's wire deformer). Included by
# src/CMakeLists.txt after add_library(fastcd ...).
target_sources(fastcd PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cage_coordinates.cpp
  ${CMAKE_CURRENT_LIST_DIR}/wire_deformer.cpp
)
