#!/usr/bin/env bash
# A private single-host Slurm cluster for trying the array job and for its test, from
# Debian's packages (slurmctld slurmd slurm-client munge), as root, without systemd:
#   bash scripts/slurm/local_cluster.sh start DIR [NODES] [GPUS_PER_NODE]
#   export SLURM_CONF=DIR/slurm.conf     # then sbatch, squeue, sinfo, sacct as usual
#   bash scripts/slurm/local_cluster.sh stop DIR
# Everything (munge key and socket, state, spool, logs, pids) lives in DIR, on ports of
# its own (from DIR's name), so that two clusters on one host do not meet. NODES node
# names (node1..nodeN) each get a slurmd on this host where the packages allow it (more
# than one slurmd per host needs Slurm built with --enable-multiple-slurmd; else one node
# is started and said so); each node has CPUS/NODES cores and GPUS_PER_NODE GPUs as GRES
# (/dev/nvidia0.. in order).
#   KTUNE_SLURM_CGROUP: cgroup.conf's CgroupPlugin (default autodetect; cgroup/v1 where
#     the v2 plugin cannot make its folders, as in some containers).
#   KTUNE_SLURM_PREFIX: a folder where the packages were unpacked with `dpkg -x`, on a
#     machine that cannot install them (put its usr/sbin, usr/bin and library folders on
#     PATH and LD_LIBRARY_PATH too): its plugins and slurmstepd are used.
set -euo pipefail
cmd=${1:?usage: local_cluster.sh start|stop DIR [NODES] [GPUS_PER_NODE]}
dir=${2:?usage: local_cluster.sh start|stop DIR [NODES] [GPUS_PER_NODE]}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

stop() {
  for pid in "$dir"/*.pid; do
    [ -e "$pid" ] || continue
    kill "$(cat "$pid")" 2>/dev/null || true
  done
  sleep 1
  for pid in "$dir"/*.pid; do
    [ -e "$pid" ] || continue
    kill -9 "$(cat "$pid")" 2>/dev/null || true
    rm -f "$pid"
  done
}
if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "local_cluster.sh: unknown command '$cmd' (start or stop)" >&2; exit 2; }

nodes=${3:-1}
gpus=${4:-0}
if [ -n "${KTUNE_SLURM_PREFIX:-}" ]; then
  # Debian names the daemons *-wlm and links them by update-alternatives, which dpkg -x skips.
  for d in slurmctld slurmd slurmstepd; do
    [ -e "$KTUNE_SLURM_PREFIX/usr/sbin/$d" ] || ln -s "$d-wlm" "$KTUNE_SLURM_PREFIX/usr/sbin/$d"
  done
fi
for tool in slurmctld slurmd sbatch munged; do
  command -v "$tool" >/dev/null || {
    echo "local_cluster.sh: $tool not found: apt-get install slurmctld slurmd slurm-client munge" >&2; exit 3; }
done
[ "$(id -u)" = 0 ] || { echo "local_cluster.sh: runs as root (SlurmUser=root)" >&2; exit 3; }

# Ports from the folder's name: 16000-31999, two per cluster plus one per node.
base=$(( 16000 + ( $(echo -n "$dir" | cksum | cut -d' ' -f1) % 4000 ) * 4 ))
# munge: a key of its own, its socket in DIR.
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
chmod 700 "$dir/munge"
[ -s "$dir/munge/munge.key" ] || { dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null; }
chmod 400 "$dir/munge/munge.key"
munged --key-file "$dir/munge/munge.key" --socket "$dir/munge/socket" --pid-file "$dir/munged.pid" \
  --log-file "$dir/log/munged.log" --seed-file "$dir/munge/seed" -f

host=$(hostname -s)
cpus=$(nproc)
per_node=$(( cpus / nodes )); [ "$per_node" -ge 1 ] || per_node=1
mem=$(( $(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo) / 2 / nodes ))
gres_line=""
if [ "$gpus" -gt 0 ]; then gres_line="GresTypes=gpu"; fi
prefix_line="" stepd=()
if [ -n "${KTUNE_SLURM_PREFIX:-}" ]; then
  prefix_line="PluginDir=$KTUNE_SLURM_PREFIX/usr/lib/x86_64-linux-gnu/slurm-wlm"
  stepd=(-d "$KTUNE_SLURM_PREFIX/usr/sbin/slurmstepd")
fi
{
  cat <<CONF
ClusterName=ktune-local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
SlurmctldPort=$base
SlurmdPort=$(( base + 1 ))
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
SchedulerType=sched/backfill
MpiDefault=none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=600
KillWait=5
$gres_line
$prefix_line
CONF
  for i in $(seq 1 "$nodes"); do
    gres=""; [ "$gpus" -gt 0 ] && gres=" Gres=gpu:$gpus"
    port=""; [ "$nodes" -gt 1 ] && port=" Port=$(( base + 1 + i ))"
    echo "NodeName=node$i NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$per_node RealMemory=$mem$gres$port State=UNKNOWN"
  done
  echo "PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO"
} > "$dir/slurm.conf"
# Without systemd (containers): slurmd makes its cgroup folders itself, not through dbus.
printf 'CgroupPlugin=%s\nIgnoreSystemd=yes\nCgroupAutomount=yes\n' "${KTUNE_SLURM_CGROUP:-autodetect}" > "$dir/cgroup.conf"
if [ "$gpus" -gt 0 ]; then
  : > "$dir/gres.conf"
  for i in $(seq 1 "$nodes"); do
    first=$(( (i - 1) * gpus )); last=$(( first + gpus - 1 ))
    echo "NodeName=node$i Name=gpu File=/dev/nvidia[$first-$last]" >> "$dir/gres.conf"
  done
fi
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF"
started=0
for i in $(seq 1 "$nodes"); do
  if slurmd -f "$SLURM_CONF" -N "node$i" "${stepd[@]}" 2>> "$dir/log/slurmd-start.log"; then started=$(( started + 1 ));
  else echo "local_cluster.sh: slurmd for node$i did not start (see $dir/log/slurmd-node$i.log)" >&2; fi
done
[ "$started" -ge 1 ] || { echo "local_cluster.sh: no slurmd started" >&2; stop; exit 4; }
# Wait until every started node is idle (or the controller says why not).
for _ in $(seq 1 60); do
  idle=$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)
  [ "$idle" -ge "$started" ] && break
  sleep 1
done
if [ "$idle" -lt "$started" ]; then
  echo "local_cluster.sh: $idle of $started node(s) idle after 60 s:" >&2
  sinfo -N >&2 || true
  tail -5 "$dir/log/slurmctld.log" >&2 || true
  stop; exit 4
fi
echo "local cluster up in $dir: $idle node(s), $per_node cores each$([ "$gpus" -gt 0 ] && echo ", $gpus GPU(s) each"); export SLURM_CONF=$SLURM_CONF"
