# `datum export` and the bounded, order-free import of many files, end to end
# (test_import_export.py): round trips, shuffled and split inputs in sorted runs, thousands of
# small files, the real USEBIO and PBN files of ../shared/datasets/real recognised by content.
# Included by tests/e2e/CMakeLists.txt, which sets DATUM_PYTHON3 and E2E_ENV.
add_test(NAME e2e_import_export
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_import_export.py
                 --datum $<TARGET_FILE:datum> --data ${CMAKE_SOURCE_DIR}/../shared/datasets/real)
set_tests_properties(e2e_import_export PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 900)
