# The engine in layers (docs/architecture.md), one static library each,
# linking only the layers below it:
#
#   heapql_base        engine/*.cpp, engine/platform: errors, units, text files, paths, the OS boundary,
#                      warnings, near names, file magic, the version
#   heapql_util        engine/util: generic containers and helpers (no heapql
#                      concept)                                               -> base
#   heapql_binary_file engine/binary_file: mapped, output and scratch files,
#                      checksums (XXH3), byte codecs, file identities         -> base
#   heapql_store       engine/store: interned tables and the event store      -> util, base
#   heapql_store_file  engine/store_file: the store file (.hqdb) format       -> store, binary_file
#   heapql_symbols     engine/symbols: PDB symbols (LLVM)                     -> base
#   heapql_query       engine/query: the aggregator and its patterns          -> store, util
#   heapql_ingest      engine/ingest: the readers and the block matcher       -> store, binary_file, symbols, util
#   heapql_session     engine/session: path + open options + query -> answer;
#                      a trace's store (where, fresh, ingest); the files a
#                      read uses                                              -> ingest, query, store_file, store,
#                                                                             binary_file
#   heapql_report      engine/report: the report writers                      -> query, store
#   heapql_export      engine/export: tables to SQLite, CSV, JSON lines       -> report, query, store
#   heapql_engine      all of them (what the Lua layer, tests and benchmarks link)
#
# A layer also reaches what the layers it names use (store_file reaches util
# through store).
#
# heapql_engine_layer also builds NAME_layer_check, a shared object of the
# layer linked with --no-undefined against only the layers it may use: code
# that calls into a layer above its own fails to link. Above the engine, the
# command line (cli/) and the Lua layer (lua/) are held to what they may
# include of it (check_front_end_includes.cmake, run by ctest).

set(HEAPQL_LAYER_CHECKS ON)
if(HEAPQL_SANITIZE OR HEAPQL_FUZZ)
  # A sanitized shared object leaves the sanitizer runtime's symbols undefined.
  set(HEAPQL_LAYER_CHECKS OFF)
endif()
if(WIN32)
  # The checks are made by the Linux build; heapql.exe's sources are the same.
  set(HEAPQL_LAYER_CHECKS OFF)
endif()
set(HEAPQL_EMPTY_SOURCE "${CMAKE_CURRENT_BINARY_DIR}/empty_layer_check.cpp")
file(WRITE "${HEAPQL_EMPTY_SOURCE}" "// The layer checks link whole layers; they need no code of their own.\n")

function(heapql_engine_layer name)
  cmake_parse_arguments(LAYER "" "" "SOURCES;USES;LIBS;PRIVATE_LIBS" ${ARGN})
  add_library(${name} STATIC ${LAYER_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${LAYER_USES} ${LAYER_LIBS})
  if(LAYER_PRIVATE_LIBS)
    target_link_libraries(${name} PRIVATE ${LAYER_PRIVATE_LIBS})
  endif()
  if(HEAPQL_LAYER_CHECKS)
    add_library(${name}_layer_check SHARED "${HEAPQL_EMPTY_SOURCE}")
    target_link_libraries(${name}_layer_check PRIVATE
      "$<LINK_LIBRARY:WHOLE_ARCHIVE,${name}>" ${LAYER_USES} ${LAYER_LIBS} ${LAYER_PRIVATE_LIBS})
    target_link_options(${name}_layer_check PRIVATE "-Wl,--no-undefined")
  endif()
endfunction()
