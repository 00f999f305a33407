/* Everything a rank knows about where it runs: MPI ranks and nodes, its GPU, the NCCL
 * communicator, the peer-memory verdict for its node and its CPU binding. Built once at start
 * by the launcher (launcher/world_init.c, declared in world_init.h) and passed to every algorithm;
 * there are no globals. The struct lives here, in collectives/, because the algorithms read it
 * and a lower layer may not include the launcher. */
#ifndef CB_WORLD_H
#define CB_WORLD_H

#include <cuda_runtime.h>
#include <nccl.h>
#include <stdint.h>

#include "knobs.h"
#include "mpi_world.h"

struct cb_nccl_reg_state;

typedef struct cb_world {
  cb_mpi_world_t mpi;
  /* GPU, chosen by local rank in PCI bus order among the visible devices */
  int device;
  char busid[32];
  /* 1: some ranks of this job share a GPU (same host and bus id: virtual nodes under MPS, or
   * ranks of one node with CB_SHARE_GPUS=1); gpu_shared_in_node: 1 when two ranks of one node
   * do (only CB_SHARE_GPUS=1 allows it). The same on every rank. */
  int gpu_shared, gpu_shared_in_node;
  /* 1: each rank of a node sees only its own GPU (Slurm --gpus-per-task, device cgroups;
   * gpu_visibility.h): CUDA IPC between them is impossible, peer_why says so */
  int gpu_per_task;
  char gpu_name[96];
  int sm_count, cc_major, cc_minor;
  int threads_per_sm; /* threads one SM holds at once */
  /* SMs the custom kernels size their grids for: the smallest sm_count of all ranks, capped by
   * --sms / CB_SMS (knobs.sm_count); the same on every rank, since blocks pair up across ranks */
  int grid_sms;
  size_t gpu_mem;
  int driver_version, runtime_version;
  /* NCCL */
  ncclComm_t nccl;
  /* Across nodes: NCCL among the ranks with my local rank, one per node in node order (the
   * "rail" the hierarchical algorithms cross the network on; rail rank = node index). NULL on
   * one node. */
  ncclComm_t rail;
  int nccl_version;
  int nccl_fp8;                       /* NCCL build and GPU support ncclFloat8e4m3/e5m2 */
  struct cb_nccl_reg_state *nccl_reg; /* the registered NCCL forms' kept buffers (nccl_registered.c) */
  cudaStream_t stream;
  /* Peer memory among this node's ranks: 1 when every pair passed the CUDA IPC probe at start
   * (a real read of each peer's buffer); else peer_why says what failed. */
  int peer_ok;
  char peer_why[256];
  char binding[256];        /* CPU binding report for the header and metadata */
  cb_knobs_t knobs;         /* CB_* tuning knobs, validated at start */
  uint64_t spin_timeout_ns; /* device-side spin limit for custom kernels: half of -T, so a lost
                               peer is named by the kernel before the host watchdog fires */
  /* Control words shared with the custom kernels (kernels/signal_pad.h CB_CTL_*): host-mapped
   * pinned memory, the host's view and the kernels' pointer. The abort word is registered with
   * error.h so an abort request stops spinning kernels at once. */
  volatile unsigned int *ctl_host;
  unsigned int *ctl_dev;
  /* The job's watchdog (set by the caller before cb_world_init; may be NULL): algorithms name
   * their inner steps with cb_watchdog_phase (collectives/peer.c: the IPC exchange). */
  struct cb_watchdog *wd;
} cb_world_t;

#endif
