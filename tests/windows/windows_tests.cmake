# The Windows build's own tests (included by tests/CMakeLists.txt when WIN32; docs/testing.md,
# "Windows"). Both run on the Linux host: the Windows programs through the emulator.
set(HEAPQL_WINE_RUN "${PROJECT_SOURCE_DIR}/scripts/windows/wine-run.sh")

# windows.same_json_as_linux: heapql.exe's answers to every golden query on the ETL and CSV
# inputs, and every --format and an SQLite export, byte for byte the Linux heapql's except
# paths. Configure with -DHEAPQL_LINUX_HEAPQL=<a Linux build's heapql>; skipped (77) without.
set(HEAPQL_LINUX_HEAPQL "" CACHE FILEPATH "A Linux build's heapql, for windows.same_json_as_linux")
find_program(PYTHON3 NAMES python3 REQUIRED)
add_test(NAME windows.same_json_as_linux
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/same_output_as_linux.py
                 --linux-heapql "${HEAPQL_LINUX_HEAPQL}" --windows-heapql $<TARGET_FILE:heapql>
                 --emulator ${HEAPQL_WINE_RUN}
                 --etl-writer "$<$<TARGET_EXISTS:write_synthetic_etl>:$<TARGET_FILE:write_synthetic_etl>>"
                 --source-dir ${PROJECT_SOURCE_DIR} --shared-data ${HEAPQL_SHARED_DATA_DIR}
                 --work ${PROJECT_BINARY_DIR}/same-output)
set_tests_properties(windows.same_json_as_linux PROPERTIES LABELS windows SKIP_RETURN_CODE 77 TIMEOUT 900)

# windows.package: the zip of scripts/package-windows.sh, unpacked, and its heapql.exe run by
# heapql_package_tests (tests/windows/package_test.cpp) through package_test.sh.
add_executable(heapql_package_tests ${CMAKE_CURRENT_LIST_DIR}/package_test.cpp)
target_link_libraries(heapql_package_tests PRIVATE heapql_test_support GTest::gtest_main)
add_dependencies(heapql_package_tests heapql heapql_pdb_fixtures)
add_test(NAME windows.package
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/package_test.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}
                 ${HEAPQL_WINE_RUN} $<TARGET_FILE:heapql_package_tests> ${PROJECT_BINARY_DIR}/package-test)
set_tests_properties(windows.package PROPERTIES LABELS windows TIMEOUT 900)
