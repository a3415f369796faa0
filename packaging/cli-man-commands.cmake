# SPDX-License-Identifier: MIT
# Writes a help2man --include file with one man-page subsection per gaplens-cli command: that
# command's own --help, so `man gaplens-cli` shows every command's options and examples. The
# commands are read from the global --help, so a new command needs no change here.
#
# usage: cmake -DCLI=path/to/gaplens-cli -DOUTPUT=commands.h2m -P cli-man-commands.cmake
execute_process(COMMAND ${CLI} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CLI} --help failed")
endif()
string(REGEX MATCH "\nCommands:\n(  [a-z]+ [^\n]*\n)+" block "${help}")
string(REGEX MATCHALL "\n  [a-z]+ " entries "${block}")
if(NOT entries)
  message(FATAL_ERROR "no commands found in the output of ${CLI} --help")
endif()

set(page "[COMMANDS]\n")
foreach(entry IN LISTS entries)
  string(STRIP "${entry}" command)
  execute_process(COMMAND ${CLI} ${command} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CLI} ${command} --help failed")
  endif()
  # Shown as written (.nf): escape roff's backslash, and lines that would read as requests.
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  string(APPEND page ".SS ${command}\n.nf\n${text}.fi\n")
endforeach()
file(WRITE ${OUTPUT} "${page}")
