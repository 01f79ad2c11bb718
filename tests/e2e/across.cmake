# --across-sections end to end (test_across.py): a congress worked by hand, the reference on the
# folded rows, barking, rate against the dense reference and seed 000's equations, PBN deals;
# included by tests/e2e/CMakeLists.txt, which sets DATUM_PYTHON3 and E2E_ENV.
add_test(NAME e2e_across
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_across.py
                 --datum $<TARGET_FILE:datum> --source ${CMAKE_SOURCE_DIR})
set_tests_properties(e2e_across PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 600)
