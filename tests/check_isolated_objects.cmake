# An extra copy of the kernels (AVX2, AVX-512) must not define any symbol another translation unit could
# share (weak/COMDAT definitions such as inline functions or template instances): the linker
# might pick that version for code that runs on CPUs without that ISA (core/src/kernels_isa.h).
# Usage: cmake -DNM=nm -DOBJECTS="a.o;b.o" -P check_isolated_objects.cmake
foreach(obj IN LISTS OBJECTS)
  execute_process(COMMAND ${NM} -C --defined-only ${obj} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nm failed on ${obj}")
  endif()
  string(REGEX MATCHALL "[^\n]* [WVu] [^\n]*" shared "${symbols}")
  if(shared)
    string(REPLACE ";" "\n" shared "${shared}")
    message(FATAL_ERROR "${obj} defines symbols other objects may share:\n${shared}")
  endif()
  string(REGEX MATCHALL "\n" lines "${symbols}")
  list(LENGTH lines n)
  message(STATUS "${obj}: ${n} symbols, none shared")
endforeach()
