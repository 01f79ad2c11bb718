# The tarot roadmap sheets (HTML) and the French number format; included by tests/io/CMakeLists.txt.
datum_add_test(test_tarot_sheet SOURCES test_tarot_sheet.c LIBS datum_io)
# The tarot import, archive and directory of sheets; may look into the file with HDF5.
datum_add_test(test_tarot_archive SOURCES test_tarot_archive.c io_test_util.c
               LIBS datum_io ${HDF5_C_LIBRARIES})
target_include_directories(test_tarot_archive PRIVATE ${HDF5_INCLUDE_DIRS})
target_compile_definitions(test_tarot_archive PRIVATE ${HDF5_DEFINITIONS} _XOPEN_SOURCE=700)
