# Warnings every hetlu target compiles with: -Wall -Wextra clean is a project rule.
add_library(hetlu_warnings INTERFACE)
target_compile_options(hetlu_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>)
