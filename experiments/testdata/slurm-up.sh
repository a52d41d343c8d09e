#!/usr/bin/env bash
# slurm-up.sh: bring up a one-node Slurm cluster on this machine for the
# experiment runner's Slurm executor test (and for trying the executor by
# hand). Debian's slurm-wlm and munge packages, no systemd and no cgroups:
# proctrack/linuxproc, task/none, the node line from `slurmd -C` renamed
# to localhost, the daemons started with -D in the background.
#
# As root: the machine's cluster (/etc/slurm/slurm.conf, SlurmUser=root,
# the system's munged), installing the packages when missing.
# As another user: a private cluster of that user in $SLURM_UP_DIR (its own
# munged, key and socket, slurm.conf with SlurmUser=$USER on free ports);
# the script then prints `SLURM_CONF=PATH` on stdout, which the Slurm
# commands need in their environment (eval "export $(slurm-up.sh)").
#
#   experiments/testdata/slurm-up.sh          # install if missing, start, wait
#   experiments/testdata/slurm-up.sh --down   # stop the daemons it started
#
# Idempotent: if the cluster already answers, it does nothing (but print
# SLURM_CONF for a private one).
# Exit status: 0 when `sinfo` shows the node idle, 2 when Slurm is missing
# and cannot be installed (not root, no apt-get), 1 on any other failure;
# the reason goes to stderr. Logs go to $SLURM_UP_DIR (default
# /tmp/nnuelab-slurm as root, /tmp/nnuelab-slurm-UID otherwise).
set -euo pipefail

# private_cluster brings up a cluster of the calling (non-root) user in
# $dir: munged with its own key and socket, slurmctld and slurmd as this
# user (SlurmUser = SlurmdUser = the user, whose jobs they run), on ports
# free on this machine. It prints SLURM_CONF=... on stdout when the node is
# idle.
private_cluster() {
  local pconf=$dir/slurm.conf user
  user=$(id -un)
  export SLURM_CONF=$pconf
  if [ -f "$pconf" ] && scontrol ping 2>/dev/null | grep -q UP && idle; then
    say "private cluster already up ($pconf)"
    echo "SLURM_CONF=$pconf"
    return 0
  fi
  stop "$dir/slurmd.pid" "$dir/slurmctld.pid"

  # munge: a key of our own and a daemon on our own socket.
  local mdir=$dir/munge
  mkdir -p "$mdir" "$dir/state" "$dir/spool"
  chmod 700 "$mdir"
  if [ ! -s "$mdir/munge.key" ]; then
    dd if=/dev/urandom of="$mdir/munge.key" bs=1 count=128 status=none
    chmod 0400 "$mdir/munge.key"
  fi
  if ! munge -S "$mdir/munge.socket" -n 2>/dev/null | unmunge -S "$mdir/munge.socket" >/dev/null 2>&1; then
    stop "$mdir/munged.pid"
    say "starting munged ($mdir)"
    munged --force --socket="$mdir/munge.socket" --key-file="$mdir/munge.key" --pid-file="$mdir/munged.pid" \
      --log-file="$mdir/munged.log" --seed-file="$mdir/munged.seed" 2>"$mdir/munged.err" || {
      say "munged did not start: $(cat "$mdir/munged.err")"
      return 1
    }
    for _ in $(seq 50); do munge -S "$mdir/munge.socket" -n 2>/dev/null | unmunge -S "$mdir/munge.socket" >/dev/null 2>&1 && break; sleep 0.1; done
  fi

  # Two free ports in a row, for slurmctld and slurmd.
  local port=16817
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || (exec 3<>"/dev/tcp/127.0.0.1/$((port + 1))") 2>/dev/null; do
    port=$((port + 2))
    if [ $port -gt 17817 ]; then
      say "no two free ports in 16817..17818"
      return 1
    fi
  done
  local node
  node=$(slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]+/NodeName=localhost/')
  cat >"$pconf.tmp" <<CONF
$marker (private cluster of $user)
ClusterName=nnuelab$uid
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$mdir/munge.socket
CredType=cred/munge
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
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
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
  mv "$pconf.tmp" "$pconf"
  say "starting slurmctld and slurmd as $user ($pconf)"
  setsid slurmctld -D -i >>"$dir/slurmctld.out" 2>&1 </dev/null &
  for _ in $(seq 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.2; done
  setsid slurmd -D -N localhost >>"$dir/slurmd.out" 2>&1 </dev/null &
  for _ in $(seq 150); do
    if idle; then
      say "private cluster up: $(sinfo -h -N -o '%N %t %c CPUs')"
      echo "SLURM_CONF=$pconf"
      return 0
    fi
    if sinfo -h -N -o '%t' 2>/dev/null | grep -Eq '^(down|drain|fail)'; then
      scontrol update nodename=localhost state=resume 2>/dev/null || true
    fi
    sleep 0.2
  done
  say "the private cluster's node did not become idle; logs in $dir"
  tail -n 20 "$dir"/slurmctld.log "$dir"/slurmd.log "$dir"/slurmctld.out "$dir"/slurmd.out >&2 || true
  return 1
}

uid=$(id -u)
if [ "$uid" = 0 ]; then
  dir=${SLURM_UP_DIR:-/tmp/nnuelab-slurm}
else
  dir=${SLURM_UP_DIR:-/tmp/nnuelab-slurm-$uid}
fi
conf=/etc/slurm/slurm.conf
marker="# written by nnuelab experiments/testdata/slurm-up.sh"
mkdir -p "$dir"
chmod 700 "$dir" 2>/dev/null || true

say() { echo "slurm-up: $*" >&2; }

stop() { # stop the daemons whose pid files are in $1
  for d in "$@"; do
    if [ -f "$d" ]; then
      kill "$(cat "$d")" 2>/dev/null || true
      rm -f "$d"
    fi
  done
}

if [ "${1:-}" = "--down" ]; then
  # The system's munged is left running (other programs may use it); a
  # private cluster's own is stopped.
  stop "$dir/slurmd.pid" "$dir/slurmctld.pid"
  [ "$uid" = 0 ] || stop "$dir/munge/munged.pid"
  exit 0
fi

idle() { sinfo -h -N -o '%N %t' 2>/dev/null | grep -Eq '^localhost +(idle|mix|alloc)'; }

# Already up (ours or a real cluster's config): nothing to do.
if command -v sinfo >/dev/null && [ -f "$conf" ] && grep -qF "$marker" "$conf" 2>/dev/null && SLURM_CONF=$conf idle; then
  say "cluster already up"
  exit 0
fi
if [ "$uid" = 0 ] && command -v sinfo >/dev/null && [ -f "$conf" ] && idle; then
  say "cluster already up"
  exit 0
fi

# Install the packages when missing.
need=()
command -v sbatch >/dev/null && command -v slurmctld >/dev/null && command -v slurmd >/dev/null || need+=(slurm-wlm)
command -v munged >/dev/null || need+=(munge)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$uid" != 0 ] || ! command -v apt-get >/dev/null; then
    why="not root"
    [ "$uid" != 0 ] || why="no apt-get"
    say "missing ${need[*]} and cannot install them ($why): install Debian's slurm-wlm and munge (apt-get install slurm-wlm munge), or run as root"
    exit 2
  fi
  say "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >"$dir/apt.log" 2>&1 || { cat "$dir/apt.log" >&2; exit 1; }
fi

if [ "$uid" != 0 ]; then
  private_cluster
  exit $?
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
