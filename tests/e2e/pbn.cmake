# PBN import end to end (test_pbn.py): handmade files written to a temporary directory, and the real
# BridgeWebs hands.pbn checked against its USEBIO twin, PbnTools' conversions imported, BBO's Sky Club
# IMP pairs reproduced with `datum cross` (skipped cleanly when ../shared is absent);
# included by tests/e2e/CMakeLists.txt, which sets DATUM_PYTHON3 and E2E_ENV.
add_test(NAME e2e_pbn
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_pbn.py --datum $<TARGET_FILE:datum>
                 --real ${CMAKE_SOURCE_DIR}/../shared/datasets/real)
set_tests_properties(e2e_pbn PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300)
