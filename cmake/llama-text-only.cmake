# Included by llama.cpp's CMakeLists right after its project() call (install.sh passes it as
# CMAKE_PROJECT_llama.cpp_INCLUDE). llama-cpp-python forces llama.cpp's `common` library on, then
# never loads it; it is the slowest part of the build (JSON, chat-template and tool-call parsers), so
# this turns it off again. The Python package needs only libllama and ggml.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama.cpp: build the common library (not used by llama-cpp-python)" FORCE)

# No AMX kernels: with GGML_NATIVE, -march=native turns them on wherever the CPU has AMX, and on this
# project's machines (Xeon with AMX-INT8, in a VM) ggml's AMX matrix multiply crashes the process
# (SIGSEGV in ggml_backend_amx_mul_mat on the first prompt of more than one token). The flags go on
# the CPU backend after its own -march=native, once every target exists; AVX-512 still does the work.
function(_graphrt_without_amx)
  foreach(target ggml-cpu)
    if(TARGET ${target})
      target_compile_options(${target} PRIVATE -mno-amx-tile -mno-amx-int8 -mno-amx-bf16)
    endif()
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _graphrt_without_amx)
