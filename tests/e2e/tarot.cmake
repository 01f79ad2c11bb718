# The tarot Attaque-Défense command line (seed 004) end to end, and one roadmap sheet rendered by
# headless Chromium (skipped, exit 77, where Chromium is not installed); included by
# tests/e2e/CMakeLists.txt, which sets DATUM_PYTHON3 and E2E_ENV.
add_test(NAME e2e_tarot
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_tarot.py
                 --datum $<TARGET_FILE:datum> --source ${CMAKE_SOURCE_DIR})
add_test(NAME e2e_tarot_png
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tarot_png.py
                 --datum $<TARGET_FILE:datum> --source ${CMAKE_SOURCE_DIR})
set_tests_properties(e2e_tarot e2e_tarot_png PROPERTIES ENVIRONMENT "${E2E_ENV}")
set_tests_properties(e2e_tarot_png PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
