# CPU test of launcher/gitrev.cmake on real git repositories in a scratch folder:
#   a source folder that is a repository's top level      -> that repository's describe;
#   the same reached through a symbolic link             -> the same;
#   a copy of a source tree inside another git checkout  -> "unknown" (not the outer commit);
#   a folder in no repository                            -> "unknown";
#   CB_GIT_REV in the environment                        -> that value, whatever the folder.
#   cmake -DGITREV=<launcher/gitrev.cmake> -DWORK=<scratch folder> -P test_gitrev.cmake
find_program(GIT git)
if(NOT GIT)
  message(FATAL_ERROR "test_gitrev: git not found (the test needs real repositories)")
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

set(failures 0)
function(git_in dir)
  execute_process(COMMAND ${GIT} -C ${dir} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "test_gitrev: git -C ${dir} ${ARGN} failed (${rc}): ${err}")
  endif()
  set(git_out "${out}" PARENT_SCOPE)
endfunction()
function(new_repo dir)
  file(MAKE_DIRECTORY ${dir})
  file(WRITE ${dir}/file.txt "${dir}\n")
  git_in(${dir} init -q)
  git_in(${dir} add file.txt)
  git_in(${dir} -c user.name=cb-test -c user.email=cb-test@example.invalid commit -q -m "test commit")
endfunction()
# Runs gitrev.cmake on src (CB_GIT_REV as given, or unset) and compares the header it writes.
function(expect what src env_rev want)
  set(out ${WORK}/${what}.h)
  if(env_rev STREQUAL "")
    set(envcmd ${CMAKE_COMMAND} -E env --unset=CB_GIT_REV)
  else()
    set(envcmd ${CMAKE_COMMAND} -E env CB_GIT_REV=${env_rev})
  endif()
  execute_process(COMMAND ${envcmd} ${CMAKE_COMMAND} -DSRC=${src} -DOUT=${out} -P ${GITREV}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  set(text "")
  if(EXISTS ${out})
    file(READ ${out} text)
  endif()
  if(NOT rc EQUAL 0 OR NOT text STREQUAL "#define CB_GIT_REV \"${want}\"\n")
    message(SEND_ERROR "test_gitrev: ${what}: expected CB_GIT_REV \"${want}\", got '${text}' (exit ${rc}) ${err}")
    math(EXPR n "${failures} + 1")
    set(failures ${n} PARENT_SCOPE)
  endif()
endfunction()

new_repo(${WORK}/own)
git_in(${WORK}/own describe --always --dirty --abbrev=12)
set(own_rev "${git_out}")
expect(own ${WORK}/own "" "${own_rev}")
file(CREATE_LINK ${WORK}/own ${WORK}/own-link SYMBOLIC)
expect(own-link ${WORK}/own-link "" "${own_rev}")

new_repo(${WORK}/outer)
file(MAKE_DIRECTORY ${WORK}/outer/unpacked/launcher)
file(COPY ${GITREV} DESTINATION ${WORK}/outer/unpacked/launcher)
# the layout must be the one that fooled the old script: git describe there names outer's commit
git_in(${WORK}/outer/unpacked describe --always --abbrev=12)
if(NOT git_out STREQUAL "" AND NOT git_out STREQUAL "unknown")
  expect(inside-another ${WORK}/outer/unpacked "" "unknown")
else()
  message(SEND_ERROR "test_gitrev: git describe in the nested copy gave '${git_out}', expected outer's commit")
  math(EXPR failures "${failures} + 1")
endif()

# WORK may itself lie inside a checkout (a build folder in the source tree): the folder in no
# repository goes to the system's temporary folder, when that is in none either.
set(tmp "$ENV{TMPDIR}")
if(tmp STREQUAL "")
  set(tmp /tmp)
endif()
string(RANDOM LENGTH 12 tag)
set(plain ${tmp}/cb-test-gitrev-${tag})
file(MAKE_DIRECTORY ${plain})
execute_process(COMMAND ${GIT} -C ${plain} rev-parse --show-toplevel RESULT_VARIABLE in_repo OUTPUT_QUIET ERROR_QUIET)
if(in_repo EQUAL 0)
  message(STATUS "test_gitrev: ${tmp} lies in a git work tree: the no-repository case is not run")
else()
  expect(no-repo ${plain} "" "unknown")
endif()
file(REMOVE_RECURSE ${plain})
expect(env ${WORK}/outer/unpacked "v9.9-test" "v9.9-test")

if(failures GREATER 0)
  message(FATAL_ERROR "test_gitrev: ${failures} case(s) failed")
endif()
message(STATUS "test_gitrev: OK")
