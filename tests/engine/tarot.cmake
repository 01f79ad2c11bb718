# The tarot Attaque-Défense kernels (§7); included by tests/engine/CMakeLists.txt.
datum_add_test(test_tarot SOURCES test_tarot.c LIBS datum_engine)
