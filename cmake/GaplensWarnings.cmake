# SPDX-License-Identifier: MIT
# One interface target carries the warning flags, so every layer gets the same ones.
add_library(gaplens_warnings INTERFACE)
target_compile_options(gaplens_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow=local -Wno-missing-field-initializers)
if(GAPLENS_WERROR)
  target_compile_options(gaplens_warnings INTERFACE -Werror)
endif()
