# Out of memory end to end: datum's commands under address space limits (test_ulimit.py); included
# by tests/e2e/CMakeLists.txt, which sets DATUM_PYTHON3 and E2E_ENV. AddressSanitizer cannot run
# under a small limit (it reserves terabytes of shadow memory): a sanitized build makes a plain
# Release datum of its own for this test, in build/.../plain, built with the tests.
if(DATUM_SANITIZE OR DATUM_FUZZ)
  include(ExternalProject)
  ExternalProject_Add(datum_plain
    SOURCE_DIR ${CMAKE_SOURCE_DIR}
    BINARY_DIR ${CMAKE_BINARY_DIR}/plain
    CMAKE_ARGS -DCMAKE_BUILD_TYPE=Release -DDATUM_TESTS=OFF
               -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
    BUILD_ALWAYS ON
    INSTALL_COMMAND "")
  set(DATUM_PLAIN ${CMAKE_BINARY_DIR}/plain/cli/datum)
else()
  set(DATUM_PLAIN $<TARGET_FILE:datum>)
endif()
add_test(NAME e2e_ulimit
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_ulimit.py --datum ${DATUM_PLAIN})
set_tests_properties(e2e_ulimit PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 600)
