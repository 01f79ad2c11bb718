# Matchpoints (docs/methods.md, "Matchpoints"; issue 14) end to end, against a reference written
# in the test; and side by side with the npm peer bridge-scorer (installed by the test with npm
# into ~/.cache/datum-peer; skipped, exit 77, when npm cannot). Included by
# tests/e2e/CMakeLists.txt, which sets DATUM_PYTHON3 and E2E_ENV.
add_test(NAME e2e_matchpoints
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_matchpoints.py
                 --datum $<TARGET_FILE:datum> --data ${CMAKE_SOURCE_DIR}/../shared/datasets/real)
add_test(NAME e2e_matchpoints_peer
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_matchpoints.py
                 --datum $<TARGET_FILE:datum> --peer-only)
set_tests_properties(e2e_matchpoints e2e_matchpoints_peer PROPERTIES ENVIRONMENT "${E2E_ENV}"
                     TIMEOUT 600)
set_tests_properties(e2e_matchpoints_peer PROPERTIES SKIP_RETURN_CODE 77)
