# mpi_faults cases (included by tests/mpi/CMakeLists.txt). Each: CB_FAULT makes one rank stall,
# stop (SIGSTOP) or exit at a step of the second of 4 rows (T = 3 s); the job must end within
# T + 6 s with exit 4 (42 for a rank that exits: mpirun passes on the dead rank's own code), the
# healthy ranks naming the step and the missing rank, the abort hook running on the main thread
# (never the watchdog thread, which would race NCCL), and the first row kept: CSV header + 1 row,
# .partial.jsonl metadata + 1 row.
set(CB_FAULT_TESTS)
set(CB_FAULT_OUT --lines {tmp}/results.csv 2 --lines {tmp}/results.json.partial.jsonl 2
    --stderr-not "abort hook: watchdog thread" --stderr-not "Segmentation" --max-seconds 9)

# cb_fault_test(NAME NP FAULT [MODE] CHECKS...)
function(cb_fault_test name np fault mode)
  set(extra)
  if(NOT mode STREQUAL "-")
    set(extra ${mode})
  endif()
  add_test(NAME mpi_fault_${name}_np${np}
           COMMAND ${CB_MPI_DRIVER} --env CB_FAULT=${fault} ${ARGN}
                   -- ${MPIRUN} ${CB_MPIRUN_FLAGS} -np ${np} $<TARGET_FILE:mpi_faults> {tmp} 3 4 ${extra})
  set(CB_FAULT_TESTS ${CB_FAULT_TESTS} mpi_fault_${name}_np${np} PARENT_SCOPE)
endfunction()

set(CB_STEP "timeout: cpu fake 2048 B")
foreach(np 2 4)
  cb_fault_test(stall_setup ${np} stall:1:setup:2 - --rc 4 ${CB_FAULT_OUT}
                --stderr "${CB_STEP}: setup did not finish within 3 s" --stderr "did not arrive: rank 1 (1 step behind"
                --stderr "abort hook: main thread")
  cb_fault_test(stop_round ${np} stop:1:round:3 - --rc 4 ${CB_FAULT_OUT}
                --stderr "${CB_STEP} 1/2: timed round did not finish" --stderr "did not arrive: rank 1 ("
                --stderr "stopped, dead or hung" --stderr "abort hook: main thread")
endforeach()
cb_fault_test(stall_ipc 2 stall:1:ipc:2 - --rc 4 ${CB_FAULT_OUT}
              --stderr "${CB_STEP}: IPC exchange did not finish" --stderr "did not arrive: rank 1")
cb_fault_test(stall_warmup 2 stall:1:warmup:2 - --rc 4 ${CB_FAULT_OUT}
              --stderr "${CB_STEP}: warm-up did not finish" --stderr "did not arrive: rank 1")
cb_fault_test(stall_round 2 stall:1:round:3 - --rc 4 ${CB_FAULT_OUT}
              --stderr "${CB_STEP} 1/2: timed round did not finish" --stderr "did not arrive: rank 1 (1 step behind"
              --stderr "alive")
cb_fault_test(stall_check 2 stall:1:check:2 - --rc 4 ${CB_FAULT_OUT}
              --stderr "${CB_STEP}: correctness check did not finish" --stderr "did not arrive: rank 1")
cb_fault_test(stall_reduce 4 stall:2:reduce:2 - --rc 4 ${CB_FAULT_OUT}
              --stderr "${CB_STEP}: result reduction did not finish" --stderr "did not arrive: rank 2")
cb_fault_test(stop_rank0_round 2 stop:0:round:3 - --rc 4 ${CB_FAULT_OUT}
              --stderr "rank 1/2 host" --stderr "did not arrive: rank 0 (")
# a peer that stops inside the step (as in an NCCL kernel): named as silent (as "did not arrive"
# when it stopped before its watchdog thread had announced the step)
cb_fault_test(stop_inside_wait 2 stop:1:nccl:3 - --rc 4 ${CB_FAULT_OUT}
              --stderr "${CB_STEP} 1/2: timed round did not finish"
              --stderr "rank 1 (" --stderr "stopped, dead or hung")
# the healthy rank blocked inside a blocking call: the watchdog thread ends the job, no hook
cb_fault_test(stop_blocking 2 stop:1:round:3 blocking --rc 4 --lines {tmp}/results.csv 2
              --max-seconds 10 --stderr-not "abort hook" --stderr "did not arrive: rank 1 ("
              --stderr "blocked inside a library call")
# the abort hook hangs (as ncclCommAbort over NCCL's socket transport with a stopped peer): the
# exit guard ends the rank CB_EXIT_GUARD_S (2 s) after the takeover; the job ends within 3.9 s of
# the timeout message (2.0 or 3.0 s: mpirun takes 0 or 1 s more to end the stopped rank; the
# former 4 s guard cannot end it before 4.0 s), exit 4, the first row kept
cb_fault_test(hang_hook 2 stop:1:round:3 hanghook --rc 4 ${CB_FAULT_OUT}
              --stderr "abort hook: main thread (hangs)"
              --end-within "timed round did not finish" 3.9)
# a quick hook: the job ends within 2 s of the timeout message
cb_fault_test(stop_round_quick 2 stop:1:round:3 - --rc 4 ${CB_FAULT_OUT}
              --stderr "abort hook: main thread" --end-within "timed round did not finish" 2)
# a dead rank: mpirun ends the job at once with the rank's own exit code (42, fault.h)
cb_fault_test(exit_warmup 2 exit:1:warmup:2 - --rc 42 ${CB_FAULT_OUT} --stderr "rank 1 exits at")
# no fault: every row, the final JSON, no .partial.jsonl left
add_test(NAME mpi_fault_none_np2
         COMMAND ${CB_MPI_DRIVER} --unset CB_FAULT --stdout "PASS mpi_faults (2 ranks, 4 rows)"
                 --lines {tmp}/results.csv 5 --max-seconds 20
                 -- ${MPIRUN} ${CB_MPIRUN_FLAGS} -np 2 $<TARGET_FILE:mpi_faults> {tmp} 3 4)
list(APPEND CB_FAULT_TESTS mpi_fault_none_np2)
# a malformed CB_FAULT is a usage error before MPI starts
foreach(bad "stall:1" "hang:1:round" "stall:x:round" "stall:1:nowhere" "stall:1:round:0" "exit:1:kernel"
            "stall:1:round:2:9")
  string(MAKE_C_IDENTIFIER "${bad}" id)
  add_test(NAME mpi_fault_bad_${id}
           COMMAND ${CB_MPI_DRIVER} --env CB_FAULT=${bad} --rc 2 --stderr "collbench: CB_FAULT='${bad}'"
                   -- ${MPIRUN} ${CB_MPIRUN_FLAGS} -np 2 $<TARGET_FILE:mpi_faults> {tmp} 3 4)
  list(APPEND CB_FAULT_TESTS mpi_fault_bad_${id})
endforeach()
# an empty CB_FAULT is an error naming it, as every empty CB_* knob (issue 32 N24), not "no fault"
add_test(NAME mpi_fault_bad_empty
         COMMAND ${CB_MPI_DRIVER} --env CB_FAULT= --rc 2 --stderr "collbench: CB_FAULT is set but empty"
                 -- ${MPIRUN} ${CB_MPIRUN_FLAGS} -np 2 $<TARGET_FILE:mpi_faults> {tmp} 3 4)
list(APPEND CB_FAULT_TESTS mpi_fault_bad_empty)

set_tests_properties(${CB_FAULT_TESTS} PROPERTIES LABELS mpi TIMEOUT 120
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
