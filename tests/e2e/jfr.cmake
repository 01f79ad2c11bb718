# JFR Pary IMP pairs end to end: scripts/jfr_to_csv.py on a synthetic page, then the 30 traveller
# pages of ../shared/datasets/real (Szczyrk 2013, 42 tables) converted, imported and scored, every
# published IMP and board average compared (docs/peers.md); without ../shared the real-file checks
# are skipped with a message. Included by tests/e2e/CMakeLists.txt (DATUM_PYTHON3, E2E_ENV).
add_test(NAME e2e_jfr
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_jfr.py
                 --datum $<TARGET_FILE:datum> --source ${CMAKE_SOURCE_DIR}
                 --data ${CMAKE_SOURCE_DIR}/../shared/datasets/real)
set_tests_properties(e2e_jfr PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300)
