# Included by llama.cpp's CMakeLists right after its project() call (install.sh passes it as
# CMAKE_PROJECT_llama.cpp_INCLUDE). llama-cpp-python forces llama.cpp's `common` library on, then
# never loads it; it is the slowest part of the build (JSON, chat-template and tool-call parsers), so
# this turns it off again. The Python package needs only libllama and ggml.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama.cpp: build the common library (not used by llama-cpp-python)" FORCE)
