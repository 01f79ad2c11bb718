# RealBridge IMP pairs end to end: scripts/realbridge_to_csv.py on a synthetic session, then the nine
# sessions of ../shared/datasets/real/realbridge-hyimhk converted, imported and scored with
# `datum cross`, every published IMP compared or named as an exception (docs/peers.md); without
# ../shared the real-file checks are skipped with a message. Included by tests/e2e/CMakeLists.txt.
add_test(NAME e2e_realbridge
         COMMAND ${DATUM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_realbridge.py
                 --datum $<TARGET_FILE:datum> --source ${CMAKE_SOURCE_DIR}
                 --data ${CMAKE_SOURCE_DIR}/../shared/datasets/real)
set_tests_properties(e2e_realbridge PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300)
