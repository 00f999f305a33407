# Writes OUT (a header with CB_GIT_REV) from `git describe` of SRC; rewrites only on change,
# so an unchanged revision does not trigger a rebuild.
execute_process(COMMAND git -C ${SRC} describe --always --dirty --abbrev=12
  OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  # a copy of the tree without .git (the GPU machine gets one): the revision from the environment
  if(DEFINED ENV{CB_GIT_REV} AND NOT "$ENV{CB_GIT_REV}" STREQUAL "")
    set(rev "$ENV{CB_GIT_REV}")
  else()
    set(rev "unknown")
  endif()
endif()
set(text "#define CB_GIT_REV \"${rev}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
