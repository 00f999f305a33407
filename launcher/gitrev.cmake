# Writes OUT (a header with CB_GIT_REV) from CB_GIT_REV in the environment if set, else from
# `git describe` of SRC when SRC is itself the top level of a git work tree, else "unknown".
# A source tree unpacked inside another checkout would otherwise report that checkout's commit.
# Rewrites OUT only on change, so an unchanged revision does not trigger a rebuild. The
# environment comes first: a copied tree (the GPU machine gets one) may carry a stale .git whose
# describe names the wrong commit.
#   cmake -DSRC=<source folder> -DOUT=<header> -P gitrev.cmake
if(NOT DEFINED SRC OR NOT DEFINED OUT)
  message(FATAL_ERROR "gitrev.cmake: pass -DSRC=<source folder> -DOUT=<header to write>")
endif()
set(rev "unknown")
if(DEFINED ENV{CB_GIT_REV} AND NOT "$ENV{CB_GIT_REV}" STREQUAL "")
  set(rev "$ENV{CB_GIT_REV}")
else()
  execute_process(COMMAND git -C ${SRC} rev-parse --show-toplevel
    OUTPUT_VARIABLE top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  # both through realpath: SRC may be reached through a symbolic link, git prints the real path
  get_filename_component(src_real "${SRC}" REALPATH)
  if(rc EQUAL 0 AND NOT top STREQUAL "")
    get_filename_component(top_real "${top}" REALPATH)
  else()
    set(top_real "")
  endif()
  if(top_real STREQUAL src_real)
    execute_process(COMMAND git -C ${SRC} describe --always --dirty --abbrev=12
      OUTPUT_VARIABLE described OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(rc EQUAL 0 AND NOT described STREQUAL "")
      set(rev "${described}")
    endif()
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
