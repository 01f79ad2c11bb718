# Compensated Butler ratings (§6, seed 000) end to end: a case solved by hand, a reference written
# in the test from the per-pair equation, the report, outputs, warm start, --evaluate and the
# refusals; included by tests/e2e/CMakeLists.txt, which sets DATUM_PYTHON3 and E2E_ENV.
add_test(NAME e2e_rate
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_rate.py --datum $<TARGET_FILE:datum>)
set_tests_properties(e2e_rate PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 600)
# The rating history (`datum rate --every`) against separate runs at each of its dates.
add_test(NAME e2e_rate_history
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_rate_history.py --datum $<TARGET_FILE:datum>)
set_tests_properties(e2e_rate_history PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 900)
