#!/usr/bin/env bash
# `make test-cluster`: config/test.yaml through profiles/slurm on a real single-node SLURM cluster, and its
# tables byte-identical to a local run of the same config.
#
# On a machine without SLURM it installs Debian's slurm-wlm and munge (apt; needs root), writes a single-node
# slurm.conf (partition `cpu`, no accounting) to /etc/slurm/slurm.conf — the path job steps read it from (srun
# inside a batch job does not see $SLURM_CONF) — with state and logs under build/cluster/, starts munged,
# slurmctld and slurmd, runs the workflow through the profile with the squeue status command (no accounting
# here), and always stops the daemons it started and removes the slurm.conf it wrote. A machine that already
# has a slurm.conf is a configured cluster: the script refuses to touch it.
# Facts this relies on (Debian bookworm, slurm-wlm 22.05): munged runs as the munge user; proctrack/linuxproc and
# task/none need no cgroups; ReturnToService=2 brings the node back after a restart.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PY:-$ROOT/.venv/bin/python}
STATE=$ROOT/build/cluster
CONFIG=config/test.yaml
OUT=build/test  # config/test.yaml's output_dir

if ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
  if [ "$(id -u)" != 0 ]; then
    echo "test-cluster: slurm-wlm and munge are not installed and this is not root: install them (apt-get install slurm-wlm munge)" >&2
    exit 2
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge > /dev/null
fi
# the `cluster` extra's executor plugin, at the version constraints.txt pins
"$PY" -c "import snakemake_executor_plugin_slurm" 2> /dev/null || "$PY" -m pip install --quiet -c constraints.txt snakemake-executor-plugin-slurm

rm -rf "$STATE"
mkdir -p "$STATE"/{spool/ctld,spool/d,log,run}
HOST=$(hostname)
MEMORY_MB=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 2048 ))
CPUS=$(nproc)
cat > "$STATE/slurm.conf" <<EOF
ClusterName=helmlite
SlurmctldHost=$HOST
SlurmUser=$(id -un)
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MinJobAge=300
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
StateSaveLocation=$STATE/spool/ctld
SlurmdSpoolDir=$STATE/spool/d
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
NodeName=$HOST CPUs=$CPUS RealMemory=$MEMORY_MB State=UNKNOWN
PartitionName=cpu Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
CONF=/etc/slurm/slurm.conf
if [ -e "$CONF" ]; then
  echo "test-cluster: $CONF exists — this machine has a configured SLURM; run the profile directly (README, SLURM)" >&2
  exit 2
fi

STARTED=()
stop() {
  for daemon in "${STARTED[@]}"; do
    pkill -x "$daemon" 2> /dev/null || true
  done
  rm -f "$CONF"
}
trap stop EXIT
mkdir -p /etc/slurm
cp "$STATE/slurm.conf" "$CONF"

if ! pgrep -x munged > /dev/null; then
  mkdir -p /run/munge && chown munge:munge /run/munge
  runuser -u munge -- /usr/sbin/munged
  STARTED+=(munged)
fi
slurmctld
STARTED+=(slurmctld)
slurmd
STARTED+=(slurmd)
for _ in $(seq 60); do
  if sinfo -h -N -o %t 2> /dev/null | grep -qE '^(idle|mix|alloc)'; then break; fi
  sleep 1
done
sinfo -h -N -o '%N %t %c %m' | grep -qE ' (idle|mix|alloc) ' || { echo "test-cluster: the node did not come up:" >&2; sinfo -N >&2; tail -n 20 "$STATE/log/"*.log >&2; exit 1; }
echo "test-cluster: SLURM up ($(sinfo -h -N -o '%N %t, %c CPUs, %m MB'))"

export PATH=$ROOT/.venv/bin:$PATH
if [ -n "${LOCAL_TABLES:-}" ]; then  # the tables of a local run of $CONFIG made before (saves its ~4 min)
  echo "test-cluster: local tables from $LOCAL_TABLES"
  cp -r "$LOCAL_TABLES" "$STATE/local_tables"
else
  echo "test-cluster: local run of $CONFIG"
  rm -rf "$OUT"
  start=$(date +%s)
  snakemake --cores "$CPUS" --configfile "$CONFIG" --quiet > "$STATE/local.log" 2>&1 || { tail -n 30 "$STATE/local.log" >&2; exit 1; }
  echo "test-cluster: local run finished in $(( $(date +%s) - start )) s"
  cp -r "$OUT/tables" "$STATE/local_tables"
fi

echo "test-cluster: the same config through profiles/slurm (squeue status, no accounting)"
rm -rf "$OUT"
# A shell without the venv on PATH, as a cluster job may start: the rules must not depend on it.
start=$(date +%s)
env PATH=/usr/bin:/bin "$PY" -m snakemake --configfile "$CONFIG" --workflow-profile profiles/slurm --jobs 4 \
  > "$STATE/cluster.log" 2>&1 || { tail -n 40 "$STATE/cluster.log" >&2; exit 1; }
echo "test-cluster: cluster run finished in $(( $(date +%s) - start )) s; $(grep -c 'has been submitted with SLURM jobid' "$STATE/cluster.log" || true) jobs submitted to SLURM"
diff -r "$STATE/local_tables" "$OUT/tables" > "$STATE/tables.diff" || { echo "test-cluster: tables differ from the local run:" >&2; head -n 40 "$STATE/tables.diff" >&2; exit 1; }
echo "test-cluster: OK — every table byte-identical to the local run ($(ls "$OUT/tables" | wc -l) files)"
