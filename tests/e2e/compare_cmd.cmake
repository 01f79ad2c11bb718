# datum compare (issue 15) end to end: the statistics against scipy on the per-result figures of
# the scoring commands, continuity against the reference datum and seed 003 by hand, threads,
# bad specs; and its report rendered by headless Chromium (skipped, exit 77, without it).
# Included by tests/e2e/CMakeLists.txt, which sets DATUM_PYTHON3 and E2E_ENV.
add_test(NAME e2e_compare_cmd
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_compare_cmd.py
                 --datum $<TARGET_FILE:datum> --source ${CMAKE_SOURCE_DIR})
add_test(NAME e2e_compare_report
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_compare_report.py
                 --datum $<TARGET_FILE:datum>)
set_tests_properties(e2e_compare_cmd e2e_compare_report PROPERTIES ENVIRONMENT "${E2E_ENV}"
                     TIMEOUT 900)
set_tests_properties(e2e_compare_report PROPERTIES SKIP_RETURN_CODE 77)
