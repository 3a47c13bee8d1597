# HETLU_SANITIZE: a comma-separated list for -fsanitize= (e.g. "address,undefined"), empty by default.
# It instruments every hetlu target and test; the CUDA sources keep their own flags.
set(HETLU_SANITIZE "" CACHE STRING "Sanitizers to build with (-fsanitize=LIST), e.g. address,undefined; empty: none")
if(HETLU_SANITIZE)
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=${HETLU_SANITIZE}>
                      $<$<COMPILE_LANGUAGE:C,CXX>:-fno-omit-frame-pointer>
                      $<$<COMPILE_LANGUAGE:C,CXX>:-fno-sanitize-recover=undefined>)
  add_link_options(-fsanitize=${HETLU_SANITIZE})
  message(STATUS "hetlu: built with -fsanitize=${HETLU_SANITIZE}")
endif()
