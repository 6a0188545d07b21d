# Tests of the fastcd rig geometry (cage coordinates, wire deformer). Included by
# tests/CMakeLists.txt after add_executable(fastcd_tests ...).
target_sources(fastcd_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/test_cage_coordinates.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_wire_deformer.cpp
)
