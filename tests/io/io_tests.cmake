# Tests of the fastcd::io file readers and writers. Included by tests/CMakeLists.txt after
# add_executable(fastcd_tests ...).
target_sources(fastcd_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/test_mesh_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_msh_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_rig_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_pc2_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_wrong_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_render3d.cpp
)
