# `datum import --format usebio` end to end: every USEBIO file of ../shared/datasets/real (CI
# clones ../shared beside the source tree; absent, those checks are skipped with a message), the
# error paths (truncated XML, missing elements), and `datum score` on an imported Butler file.
# Included by tests/e2e/CMakeLists.txt, which sets DATUM_PYTHON3 and E2E_ENV.
add_test(NAME e2e_usebio
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_usebio.py
                 --datum $<TARGET_FILE:datum> --data ${CMAKE_SOURCE_DIR}/../shared/datasets/real)
set_tests_properties(e2e_usebio PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300)
