# SPDX-License-Identifier: MIT
# One interface target carries the warning flags, so every layer gets the same ones.
# GAPLENS_WERROR turns every warning into an error; .ci/run (the `ci` preset) builds with it.
option(GAPLENS_WERROR "Treat compiler warnings as errors (CI builds with this ON)" OFF)
add_library(gaplens_warnings INTERFACE)
target_compile_options(gaplens_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow=local -Wno-missing-field-initializers)
if(GAPLENS_WERROR)
  target_compile_options(gaplens_warnings INTERFACE -Werror)
endif()
