#!/usr/bin/env bash
# slurm-up.sh: bring up a one-node Slurm cluster on this machine for the
# experiment runner's Slurm executor test (and for trying the executor by
# hand). Debian's slurm-wlm and munge packages, no systemd and no cgroups:
# proctrack/linuxproc, task/none, SlurmUser=root, the node line from
# `slurmd -C` renamed to localhost, the daemons started with -D in the
# background. Idempotent: if the cluster already answers, it does nothing.
#
#   experiments/testdata/slurm-up.sh          # install if missing, start, wait
#   experiments/testdata/slurm-up.sh --down   # stop the daemons it started
#
# Exit status: 0 when `sinfo` shows the node idle, 2 when Slurm is missing
# and cannot be installed (not root, no apt-get), 1 on any other failure.
# Logs go to $SLURM_UP_DIR (default /tmp/nnuelab-slurm).
set -euo pipefail

dir=${SLURM_UP_DIR:-/tmp/nnuelab-slurm}
conf=/etc/slurm/slurm.conf
marker="# written by nnuelab experiments/testdata/slurm-up.sh"
mkdir -p "$dir"

say() { echo "slurm-up: $*" >&2; }

if [ "${1:-}" = "--down" ]; then
  # munged is left running (other programs may use it).
  for d in slurmd slurmctld; do
    if [ -f "$dir/$d.pid" ]; then
      kill "$(cat "$dir/$d.pid")" 2>/dev/null || true
      rm -f "$dir/$d.pid"
    fi
  done
  exit 0
fi

idle() { sinfo -h -N -o '%N %t' 2>/dev/null | grep -Eq '^localhost +(idle|mix|alloc)'; }

# Already up (ours or a real cluster's config): nothing to do.
if command -v sinfo >/dev/null && [ -f "$conf" ] && idle; then
  say "cluster already up"
  exit 0
fi

# Install the packages when missing.
need=()
command -v sbatch >/dev/null && command -v slurmctld >/dev/null && command -v slurmd >/dev/null || need+=(slurm-wlm)
command -v munged >/dev/null || need+=(munge)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    say "missing ${need[*]} and cannot install them (needs root and apt-get)"
    exit 2
  fi
  say "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >"$dir/apt.log" 2>&1 || { cat "$dir/apt.log" >&2; exit 1; }
fi
if [ "$(id -u)" != 0 ]; then
  say "the daemons must be started as root"
  exit 2
fi

# munge: a key (the package makes one; make it if not) and the daemon.
if [ ! -s /etc/munge/munge.key ]; then
  mkdir -p /etc/munge
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=128 status=none
  chown munge:munge /etc/munge/munge.key 2>/dev/null || true
  chmod 0400 /etc/munge/munge.key
fi
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  say "starting munged"
  if id munge >/dev/null 2>&1; then
    runuser -u munge -- munged --force
  else
    munged --force
  fi
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
fi

# slurm.conf: ours, unless the machine has its own.
if [ -f "$conf" ] && ! grep -qF "$marker" "$conf"; then
  say "$conf exists and is not ours; using it as it is"
else
  node=$(slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]+/NodeName=localhost/')
  mkdir -p /etc/slurm /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm
  cat >"$conf.tmp" <<CONF
$marker
ClusterName=nnuelab
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
MinJobAge=600
KillWait=5
InactiveLimit=0
Waittime=0
$node State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
  mv "$conf.tmp" "$conf"
fi

# The daemons, in the foreground (-D) of background jobs, detached from
# this shell so that they outlive it.
if ! scontrol ping 2>/dev/null | grep -q UP; then
  say "starting slurmctld"
  setsid slurmctld -D -i >>"$dir/slurmctld.out" 2>&1 < /dev/null &
  for _ in $(seq 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.2; done
fi
if ! pgrep -x slurmd >/dev/null; then
  say "starting slurmd"
  setsid slurmd -D -N localhost >>"$dir/slurmd.out" 2>&1 < /dev/null &
fi
for _ in $(seq 150); do
  if idle; then
    say "cluster up: $(sinfo -h -N -o '%N %t %c CPUs')"
    exit 0
  fi
  # A node left down by an earlier run comes back by hand.
  if sinfo -h -N -o '%t' 2>/dev/null | grep -Eq '^(down|drain|fail)'; then
    scontrol update nodename=localhost state=resume 2>/dev/null || true
  fi
  sleep 0.2
done
say "the node did not become idle; logs in $dir"
tail -n 20 "$dir"/slurmctld.log "$dir"/slurmd.log >&2 || true
exit 1
