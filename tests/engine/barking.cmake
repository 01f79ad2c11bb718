# Barking cross-IMPs and the teams-of-eight match (§5); included by tests/engine/CMakeLists.txt.
datum_add_test(test_barking SOURCES test_barking.c LIBS datum_engine)
