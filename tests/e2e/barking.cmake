# Barking cross-IMPs and the teams matches (§5, seed 002) end to end, against a literal enumeration
# written in the test itself; included by tests/e2e/CMakeLists.txt, which sets DATUM_PYTHON3 and
# E2E_ENV.
add_test(NAME e2e_barking
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_barking.py
                 --datum $<TARGET_FILE:datum>)
set_tests_properties(e2e_barking PROPERTIES ENVIRONMENT "${E2E_ENV}")
