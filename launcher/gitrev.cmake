# Writes OUT (a header with CB_GIT_REV) from CB_GIT_REV in the environment if set, else from
# `git describe` of SRC; rewrites only on change, so an unchanged revision does not trigger a
# rebuild. The environment comes first: a copied tree (the GPU machine gets one) may carry a
# stale .git whose describe names the wrong commit.
if(DEFINED ENV{CB_GIT_REV} AND NOT "$ENV{CB_GIT_REV}" STREQUAL "")
  set(rev "$ENV{CB_GIT_REV}")
else()
  execute_process(COMMAND git -C ${SRC} describe --always --dirty --abbrev=12
    OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR rev STREQUAL "")
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
