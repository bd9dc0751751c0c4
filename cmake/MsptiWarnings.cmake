# Warning flags for every target of the project; MSPTI_WERROR makes them errors (CI).
add_library(mspti_warnings INTERFACE)
target_compile_options(mspti_warnings INTERFACE -Wall -Wextra -Wshadow -Wno-unused-parameter
                       $<$<BOOL:${MSPTI_WERROR}>:-Werror>)
