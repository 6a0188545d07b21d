# Netgen's nglib (Debian libnglib-dev 6.2, LGPL-2.1; linked dynamically). Debian's NetgenConfig
# cannot be used: its targets file references /usr/bin/netgen, which only the netgen GUI
# package installs, so configuring fails without it. A plain header + library search instead;
# the libraries live in a private folder (/usr/lib/<triplet>/netgen), reached through the
# build RPATH. libmesh is linked too: fastcd silences Netgen through its exported message
# streams (netgen::mycout, meshing/tetrahedralize.cpp).
find_path(NGLIB_INCLUDE_DIR nglib.h PATH_SUFFIXES netgen REQUIRED)
find_library(NGLIB_LIBRARY NAMES nglib PATH_SUFFIXES netgen REQUIRED)
get_filename_component(_ng_dir "${NGLIB_LIBRARY}" DIRECTORY)
find_library(NGMESH_LIBRARY NAMES mesh PATHS "${_ng_dir}" NO_DEFAULT_PATH REQUIRED)
if(NOT TARGET fastcd::nglib)
  add_library(fastcd::nglib INTERFACE IMPORTED)
  set_target_properties(fastcd::nglib PROPERTIES
    INTERFACE_LINK_LIBRARIES "${NGLIB_LIBRARY};${NGMESH_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NGLIB_INCLUDE_DIR}")
endif()
message(STATUS "fastcd: nglib ${NGLIB_LIBRARY}")
