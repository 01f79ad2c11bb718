# The tarot roadmap sheets (HTML) and the French number format; included by tests/io/CMakeLists.txt.
datum_add_test(test_tarot_sheet SOURCES test_tarot_sheet.c LIBS datum_io)
