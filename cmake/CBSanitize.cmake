# CB_SANITIZE: build the host C and C++ code with sanitizers, e.g.
#   cmake -S . -B build-san -DCB_SANITIZE=address,undefined
#   ASAN_OPTIONS=detect_leaks=0 ctest --test-dir build-san -L cpu
# The value is passed to -fsanitize= as given (gcc and clang both take address, undefined,
# leak, thread). Undefined behaviour stops the program (-fno-sanitize-recover) so a test fails
# instead of printing a warning. CUDA device code is not instrumented; the host code nvcc
# compiles is not either (nvcc's host pass does not take -fsanitize). The fuzz targets
# (tests/fuzz) build with it and with clang's -fsanitize=fuzzer.
set(CB_SANITIZE "" CACHE STRING "sanitizers for the host C/C++ code (-fsanitize= list, e.g. address,undefined)")

if(CB_SANITIZE)
  if(NOT CB_SANITIZE MATCHES "^[a-z,-]+$")
    message(FATAL_ERROR "CB_SANITIZE='${CB_SANITIZE}': expected a -fsanitize= list such as address,undefined")
  endif()
  set(CB_SANITIZE_FLAGS -fsanitize=${CB_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${CB_SANITIZE_FLAGS}>")
  # Every executable links the sanitizer runtime; CMake links CUDA executables (collbench)
  # with the host compiler too, so one flag serves all.
  add_link_options(-fsanitize=${CB_SANITIZE})
  message(STATUS "CB_SANITIZE: host C/C++ code built with -fsanitize=${CB_SANITIZE}")
endif()

# CB_FUZZ: the libFuzzer targets of tests/fuzz (clang only). Every host C file is compiled with
# -fsanitize=fuzzer-no-link so the fuzzer sees coverage inside the libraries, not just in the
# target. Configure a separate build for it (tests/fuzz/README.md):
#   CC=clang cmake -S . -B build-fuzz -DCB_SANITIZE=address,undefined -DCB_FUZZ=ON
option(CB_FUZZ "build the libFuzzer targets of tests/fuzz (needs clang as the C compiler)" OFF)
if(CB_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "CB_FUZZ needs clang as the C compiler (CC=clang), not ${CMAKE_C_COMPILER_ID}")
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C>:-fsanitize=fuzzer-no-link>")
endif()
