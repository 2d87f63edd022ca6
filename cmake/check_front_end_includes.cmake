# What the command line (cli/) and the Lua layer (lua/) may include of the
# engine (docs/architecture.md, "Boundaries"): they open traces and answer
# queries through engine/session, so they know no file format and include no
# reader (engine/ingest, engine/store_file) beyond the few headers named here.
# ctest runs it on the tree (layers.front_end_includes) and on a planted
# violation (layers.front_end_includes_refused). Fails naming each include
# outside what its folder may use.
#
#   cmake -DSOURCE_DIR=<tree holding cli/ and lua/> -P check_front_end_includes.cmake

cmake_minimum_required(VERSION 3.25)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "check_front_end_includes: give -DSOURCE_DIR=<tree>")
endif()

# engine/ folders either may include every header of ("." is engine/*.h:
# errors, units, paths, text files; platform is the OS boundary: UTF-8
# paths, opening files, the terminal).
set(lua_folders . platform query report session store)
set(cli_folders . platform query report session store export)
# Single headers beyond those folders, and why.
#  open_options.h: how a trace is opened, which both set and hand to a session.
#  byte_queue.h, zstd_file_writer.h: `heapql record` taps the streams of a
#    recording in progress into queues that engine/session's ingest_recording
#    reads, and compresses heaptrack_interpret's output into NAME.zst; neither
#    reads a format.
#  output_file.h: a report written with -o, a temporary renamed into place.
set(lua_files engine/ingest/open_options.h)
set(cli_files engine/ingest/open_options.h engine/ingest/byte_queue.h engine/ingest/zstd_file_writer.h
              engine/binary_file/output_file.h)

set(refused "")
foreach(front_end IN ITEMS lua cli)
  file(GLOB_RECURSE sources RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/${front_end}/*.h" "${SOURCE_DIR}/${front_end}/*.cpp")
  foreach(source IN LISTS sources)
    file(STRINGS "${SOURCE_DIR}/${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]engine/")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<](engine/[^\">]*)[\">].*$" "\\1" header "${line}")
      if(header MATCHES "^engine/[^/]+$")
        set(folder .)
      else()
        string(REGEX REPLACE "^engine/([^/]+)/.*$" "\\1" folder "${header}")
      endif()
      if(NOT folder IN_LIST ${front_end}_folders AND NOT header IN_LIST ${front_end}_files)
        string(APPEND refused "\n  ${source} includes ${header}")
      endif()
    endforeach()
  endforeach()
endforeach()

if(refused)
  message(FATAL_ERROR "cli/ and lua/ reach the engine's readers through engine/session "
                      "(cmake/check_front_end_includes.cmake says what they may include):${refused}")
endif()
