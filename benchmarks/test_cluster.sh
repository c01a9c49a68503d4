#!/usr/bin/env bash
# `make test-cluster`: config/test.yaml through profiles/slurm on a real single-node SLURM cluster, and its
# tables byte-identical to a local run of the same config.
#
# ACCOUNTING=none (default): no job accounting; the profile's status command, squeue, with MinJobAge=300.
# ACCOUNTING=slurmdbd: job accounting through slurmdbd and a MariaDB server this script starts on a private data
#   directory and a free TCP port (build/cluster/mysql); MinJobAge=5, so finished jobs leave squeue at once and only
#   `--slurm-status-command sacct` can see how they ended — the run passes only if sacct answers, and the script
#   checks that every job Snakemake submitted is in the accounting database.
#
# On a machine without SLURM it installs Debian's slurm-wlm and munge (and slurmdbd and mariadb-server for
# accounting; apt, needs root), writes a single-node slurm.conf (partition `cpu`) to /etc/slurm/slurm.conf — the
# path job steps read it from (srun inside a batch job does not see $SLURM_CONF) — with state and logs under
# build/cluster/, starts the daemons, runs the workflow through the profile from a shell without the venv on PATH,
# and always stops the daemons it started and removes the files it wrote under /etc/slurm. A machine that already
# has a slurm.conf is a configured cluster: the script refuses to touch it.
# Facts this relies on (Debian bookworm, slurm-wlm 22.05, MariaDB 10.11): munged runs as the munge user;
# proctrack/linuxproc and task/none need no cgroups; ReturnToService=2 brings the node back after a restart;
# slurmdbd.conf must be owned by SlurmUser with mode 600 and sit beside slurm.conf.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PY:-$ROOT/.venv/bin/python}
ACCOUNTING=${ACCOUNTING:-none}
STATE=$ROOT/build/cluster
CONFIG=config/test.yaml
OUT=build/test  # config/test.yaml's output_dir
CONF_DIR=/etc/slurm

case "$ACCOUNTING" in
  none) PACKAGES=(slurm-wlm munge); STATUS_COMMAND=squeue; MIN_JOB_AGE=300 ;;
  slurmdbd) PACKAGES=(slurm-wlm munge slurmdbd mariadb-server); STATUS_COMMAND=sacct; MIN_JOB_AGE=5 ;;
  *) echo "test-cluster: ACCOUNTING must be none or slurmdbd, not '$ACCOUNTING'" >&2; exit 2 ;;
esac
if [ "$(id -u)" != 0 ]; then
  echo "test-cluster: run as root: it installs packages if absent, writes $CONF_DIR and starts the SLURM daemons" >&2
  exit 2
fi
running=$(pgrep -x 'slurmctld|slurmd|slurmdbd|mariadbd' || true)
if [ -n "$running" ]; then
  echo "test-cluster: SLURM or MariaDB daemons are already running (pids: $(echo $running)) — stop them first (an earlier run killed before its clean-up?)" >&2
  exit 2
fi
missing=()
for package in "${PACKAGES[@]}"; do
  dpkg -s "$package" > /dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  # a container's policy-rc.d forbids starting services on install; where there is none, one for the install
  # keeps Debian's scripts from starting system-wide munge/MariaDB/SLURM services that this script would not stop
  POLICY=/usr/sbin/policy-rc.d
  own_policy=false
  if [ ! -e "$POLICY" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$POLICY" && chmod 755 "$POLICY" && own_policy=true
  fi
  apt-get update -q > /dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" > /dev/null
  if $own_policy; then rm -f "$POLICY"; fi
fi
# the `cluster` extra's executor plugin, at the version constraints.txt pins
"$PY" -c "import snakemake_executor_plugin_slurm" 2> /dev/null || "$PY" -m pip install --quiet -c constraints.txt snakemake-executor-plugin-slurm

if [ -e "$CONF_DIR/slurm.conf" ]; then
  echo "test-cluster: $CONF_DIR/slurm.conf exists — this machine has a configured SLURM; run the profile directly (README, SLURM)" >&2
  exit 2
fi
rm -rf "$STATE"
mkdir -p "$STATE"/{spool/ctld,spool/d,log,run}
HOST=$(hostname -s)  # slurmd finds its node by the short host name
MEMORY_MB=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 2048 ))
CPUS=$(nproc)
if [ "$ACCOUNTING" = slurmdbd ]; then
  ACCOUNTING_CONF="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=$HOST
JobAcctGatherType=jobacct_gather/linux"
else
  ACCOUNTING_CONF="AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none"
fi
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
MinJobAge=$MIN_JOB_AGE
$ACCOUNTING_CONF
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

STARTED_PIDS=()  # pid files of the daemons this script started, stopped last-started first
WROTE=()  # files this script wrote under $CONF_DIR
stop() {
  # jobs first (on a failed or interrupted run they would outlive slurmd: proctrack/linuxproc), then the daemons:
  # SIGTERM, up to 10 s, then SIGKILL
  if [ -e "$CONF_DIR/slurm.conf" ] && pgrep -x slurmctld > /dev/null; then scancel --user="$(id -un)" 2> /dev/null || true; fi
  for (( i=${#STARTED_PIDS[@]}-1; i>=0; i-- )); do
    pid=$(cat "${STARTED_PIDS[$i]}" 2> /dev/null || true)
    if [ -n "$pid" ]; then
      kill "$pid" 2> /dev/null || true
      for _ in $(seq 20); do kill -0 "$pid" 2> /dev/null || break; sleep 0.5; done
      kill -KILL "$pid" 2> /dev/null || true
    fi
  done
  pkill -KILL -x slurmstepd 2> /dev/null || true
  [ ${#WROTE[@]} -eq 0 ] || rm -f "${WROTE[@]}"
}
trap stop EXIT
started() {  # started PIDFILE: remember a daemon's pid file for stop(), then wait for it to appear
  STARTED_PIDS+=("$1")
  for _ in $(seq 30); do [ -s "$1" ] && break; sleep 1; done
  [ -s "$1" ] || { echo "test-cluster: no pid file $1 — the daemon did not start:" >&2; tail -n 20 "$STATE/log/"*.log >&2; exit 1; }
}
mkdir -p "$CONF_DIR"
cp "$STATE/slurm.conf" "$CONF_DIR/slurm.conf"
WROTE+=("$CONF_DIR/slurm.conf")

if ! pgrep -x munged > /dev/null; then
  mkdir -p /run/munge && chown munge:munge /run/munge
  runuser -u munge -- /usr/sbin/munged
  started /run/munge/munged.pid
fi

if [ "$ACCOUNTING" = slurmdbd ]; then
  # MariaDB on a private data directory and a free local TCP port: no system service is touched
  DB_PORT=$("$PY" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
  DB_PASSWORD=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
  DB_SOCKET=$STATE/run/mysqld.sock
  mkdir -p "$STATE/mysql"
  chown mysql:mysql "$STATE/mysql" "$STATE/run" "$STATE/log"
  mariadb-install-db --no-defaults --user=mysql --datadir="$STATE/mysql" > "$STATE/log/mariadb-install.log" 2>&1
  runuser -u mysql -- mariadbd --no-defaults --datadir="$STATE/mysql" --socket="$DB_SOCKET" --port="$DB_PORT" \
    --bind-address=127.0.0.1 --pid-file="$STATE/run/mysqld.pid" --log-error="$STATE/log/mariadb.log" \
    --innodb-buffer-pool-size=64M >> "$STATE/log/mariadb.log" 2>&1 &
  started "$STATE/run/mysqld.pid"
  for _ in $(seq 30); do mariadb --no-defaults --socket="$DB_SOCKET" -e 'select 1' > /dev/null 2>&1 && break; sleep 1; done
  mariadb --no-defaults --socket="$DB_SOCKET" -e "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
  cat > "$STATE/slurmdbd.conf" <<EOF
AuthType=auth/munge
DbdHost=$HOST
SlurmUser=$(id -un)
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=$DB_PASSWORD
StorageLoc=slurm_acct_db
LogFile=$STATE/log/slurmdbd.log
PidFile=$STATE/run/slurmdbd.pid
EOF
  install -m 600 "$STATE/slurmdbd.conf" "$CONF_DIR/slurmdbd.conf"
  WROTE+=("$CONF_DIR/slurmdbd.conf")
  slurmdbd
  started "$STATE/run/slurmdbd.pid"
  for _ in $(seq 30); do sacctmgr -n list cluster > /dev/null 2>&1 && break; sleep 1; done
  # the cluster, an account and this user in it: what a site's accounting holds before anyone submits
  sacctmgr -i add cluster helmlite > /dev/null
  sacctmgr -i add account helmlite Cluster=helmlite Description=helmlite Organization=helmlite > /dev/null
  sacctmgr -i add user "$(id -un)" Account=helmlite > /dev/null
  echo "test-cluster: accounting up (slurmdbd; MariaDB on 127.0.0.1:$DB_PORT)"
fi

slurmctld
started "$STATE/run/slurmctld.pid"
slurmd
started "$STATE/run/slurmd.pid"
for _ in $(seq 60); do
  if sinfo -h -N -o %t 2> /dev/null | grep -qE '^(idle|mix|alloc)'; then break; fi
  sleep 1
done
sinfo -h -N -o '%N %t %c %m' | grep -qE ' (idle|mix|alloc) ' || { echo "test-cluster: the node did not come up:" >&2; sinfo -N >&2; tail -n 20 "$STATE/log/"*.log >&2; exit 1; }
echo "test-cluster: SLURM up ($(sinfo -h -N -o '%N %t, %c CPUs, %m MB'); accounting: $ACCOUNTING)"

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

echo "test-cluster: the same config through profiles/slurm (status: $STATUS_COMMAND; accounting: $ACCOUNTING)"
rm -rf "$OUT"
# A shell without the venv on PATH, as a cluster job may start: the rules must not depend on it.
start=$(date +%s)
env PATH=/usr/bin:/bin "$PY" -m snakemake --configfile "$CONFIG" --workflow-profile profiles/slurm --jobs 4 \
  --slurm-status-command "$STATUS_COMMAND" > "$STATE/cluster.log" 2>&1 || { tail -n 40 "$STATE/cluster.log" >&2; exit 1; }
SUBMITTED=$(grep -c 'has been submitted with SLURM jobid' "$STATE/cluster.log" || true)
echo "test-cluster: cluster run finished in $(( $(date +%s) - start )) s; $SUBMITTED jobs submitted to SLURM"
[ "$SUBMITTED" -gt 0 ] || { echo "test-cluster: no job was submitted to SLURM" >&2; exit 1; }
if [ "$ACCOUNTING" = slurmdbd ]; then
  # every job Snakemake submitted is in the accounting database, and completed
  SINCE=$(date -d "@$start" +%Y-%m-%dT%H:%M:%S)
  RECORDED=$(sacct -X -n -P -a --starttime "$SINCE" --format=JobID,State | grep -c '|COMPLETED$' || true)
  [ "$RECORDED" = "$SUBMITTED" ] || { echo "test-cluster: $SUBMITTED jobs submitted, $RECORDED recorded as COMPLETED by sacct:" >&2; sacct -X -a --starttime "$SINCE" >&2; exit 1; }
  echo "test-cluster: sacct records all $RECORDED jobs as COMPLETED"
fi
diff -r "$STATE/local_tables" "$OUT/tables" > "$STATE/tables.diff" || { echo "test-cluster: tables differ from the local run:" >&2; head -n 40 "$STATE/tables.diff" >&2; exit 1; }
echo "test-cluster: OK — every table byte-identical to the local run ($(ls "$OUT/tables" | wc -l) files)"
