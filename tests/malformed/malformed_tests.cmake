# Malformed-input corpus (tests/malformed/): one file per case, written by make_corpus.py.
# Included OPTIONAL by tests/CMakeLists.txt after add_executable(fastcd_tests ...).
target_sources(fastcd_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/test_malformed.cpp)
target_compile_definitions(fastcd_tests PRIVATE FASTCD_MALFORMED_DIR="${CMAKE_CURRENT_LIST_DIR}")

# The CLI on bad scenes: non-zero exit, exactly one "fastcd: error: ..." line on stderr naming
# the problem, and no output folder left behind.
set(_mal ${CMAKE_CURRENT_LIST_DIR}/scene)
set(_mal_out ${CMAKE_CURRENT_BINARY_DIR}/malformed_runs)
set(FASTCD_MALFORMED_CLI_CASES
  "not_json|not valid JSON"
  "missing_referenced_mesh|names a missing file"
  "mesh_index_out_of_range|vertex index 12 is out of range [1, 8]"
  "weight_rows_mismatch|the weights have 7 rows but the mesh has 8 vertices"
  "anim_handles_mismatch|the animation has 3 handles, the rig 2"
  "pr_half|pr must lie in (-1, 0.5)"
  "dt_zero|dt must be > 0"
  "triangle_mesh_where_tets_required|no tetrahedra"
  "degenerate_element|is degenerate (vertices"
  "inverted_element|is inverted"
  "rho_negative|rho must be > 0")
foreach(entry IN LISTS FASTCD_MALFORMED_CLI_CASES)
  string(FIND "${entry}" "|" bar)
  string(SUBSTRING "${entry}" 0 ${bar} name)
  math(EXPR bar "${bar} + 1")
  string(SUBSTRING "${entry}" ${bar} -1 fragment)
  add_test(NAME cli_malformed_${name}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_cli_error.py
                   $<TARGET_FILE:fastcd_cli> ${_mal}/${name}.json ${_mal_out}/${name} "${fragment}")
endforeach()

# Errors found after the scene loaded (the solver's checks): informational output goes to
# stdout, so stderr still holds the one error line.
add_test(NAME cli_malformed_more_modes_than_vertices
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_cli_error.py
                 $<TARGET_FILE:fastcd_cli> ${_mal}/base/cube.json ${_mal_out}/more_modes
                 "16 modes requested, but only" --solver fast)
