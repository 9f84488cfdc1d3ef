#!/usr/bin/env bash
# A real SLURM round trip of `warpsim sweep` (issue 22). Installs a single-node SLURM from
# Debian's packages (slurmctld, slurmd, munge), configures it for this host (its real CPUs and
# memory, as `slurmd -C` reports them), submits .ci/sweep.toml through `warpsim sweep --slurm`,
# waits for the job array, collects it, and checks that the merged table (CSV, JSON, charts)
# and every point's result equal those of the same sweep run locally, byte for byte.
#
# Needs root on Debian 12 (apt-get, and the daemons run as root). .ci/run calls it; by hand,
# from anywhere: `.ci/slurm.sh` (it builds target/release/warpsim if that is missing). What
# SLURM keeps — configuration, munge key and socket, state, logs — is under target/slurm-ci,
# started afresh each time; the daemons it starts are stopped when it ends, pass or fail.
# SLURM_CI_TIMEOUT (seconds, default 300) bounds the wait for the array; SLURM_CI_PORT (default
# 6817, and the next port) the daemons' ports.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$root/target/slurm-ci
spec=$root/.ci/sweep.toml
warpsim=$root/target/release/warpsim
timeout_s=${SLURM_CI_TIMEOUT:-300}
port=${SLURM_CI_PORT:-6817}
started=$(date +%s)
step() { echo "slurm: $1 ($(( $(date +%s) - started )) s)"; }

# Everything the daemons and the job left, for a failure's message.
diagnose() {
    echo "---- squeue"; squeue --all 2>&1 || true
    echo "---- sacct"; sacct -X -j "${job:-0}" 2>&1 || true
    echo "---- scontrol show job ${job:-}"; scontrol show job ${job:+"$job"} 2>&1 || true
    echo "---- sinfo"; sinfo -N -l 2>&1 || true
    for f in "$work"/log/jobcomp.txt "$work"/sweep/slurm/slurm/logs/*.out; do
        [ -f "$f" ] && { echo "---- $f"; cat "$f"; }
    done
    for f in "$work"/log/slurmctld.log "$work"/log/slurmd.log "$work"/munge/munged.log; do
        [ -f "$f" ] && { echo "---- $f (last 40 lines)"; tail -n 40 "$f"; }
    done
    return 0
}
fail() {
    echo "slurm: FAILED: $*" >&2
    diagnose >&2
    exit 1
}

# Daemons this script started (an earlier run's too, from the pid files it left), by pid.
stop_daemons() {
    local f pid
    for f in "$work"/run/slurmd.pid "$work"/run/slurmctld.pid "$work"/sock/munged.pid; do
        [ -f "$f" ] || continue
        pid=$(cat "$f")
        if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        fi
        rm -f "$f"
    done
}
stop_daemons
trap stop_daemons EXIT

# Packages: Debian's, installed once.
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        slurmctld slurmd slurm-client munge >/dev/null
fi
step "packages: $(slurmctld -V), munge $(munged -V 2>&1 | awk '{print $1}' | sed 's/munge-//')"
[ -x "$warpsim" ] || cargo build --release -p warpsim

rm -rf "$work"
mkdir -p "$work"/{etc,state,spool,log,run,munge,sock}
# munged checks its directories: the key's private, the socket's reachable by every user.
chmod 700 "$work/munge"
chmod 755 "$work/sock"

# munge: a fresh key, a daemon on a socket of its own.
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --key-file="$work/munge/munge.key" --socket="$work/sock/munge.socket" \
    --pid-file="$work/sock/munged.pid" --log-file="$work/munge/munged.log" \
    --seed-file="$work/munge/munged.seed" || fail "munged did not start"
munge -n -S "$work/sock/munge.socket" | unmunge -S "$work/sock/munge.socket" >/dev/null \
    || fail "munge cannot encode and decode a credential"

# SLURM: this host as the controller and the only node, with the CPUs and memory slurmd finds
# (`NodeName=... CPUs=... RealMemory=...`), one partition.
host=$(hostname -s)
node=$(slurmd -C | head -n 1)
cat > "$work/etc/slurm.conf" <<CONF
ClusterName=warpsimci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$(( port + 1 ))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/sock/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
# No cgroups: the CI machines are containers.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
DefMemPerCPU=512
# No accounting database (slurmdbd): each job's end is logged here instead.
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$work/log/jobcomp.txt
MinJobAge=600
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=ci Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/etc/slurm.conf
slurmctld || fail "slurmctld did not start"
slurmd || fail "slurmd did not start"
for _ in $(seq 60); do
    [ "$(sinfo -h -N -o %t 2>/dev/null)" = "idle" ] && break
    sleep 0.5
done
[ "$(sinfo -h -N -o %t 2>/dev/null)" = "idle" ] || fail "the node did not become idle"
step "SLURM up: $node"

# The same sweep here (every core) and through SLURM, into two directories.
"$warpsim" sweep "$spec" --output "$work/sweep/local" --quiet >/dev/null \
    || fail "the local sweep failed"
"$warpsim" sweep collect "$spec" --output "$work/sweep/local" >/dev/null
step "local sweep done"
submitted=$("$warpsim" sweep "$spec" --output "$work/sweep/slurm" --slurm) \
    || fail "warpsim sweep --slurm failed"
echo "$submitted"
job=$(echo "$submitted" | sed -n 's/.*submitted job array \([0-9][0-9]*\).*/\1/p')
[ -n "$job" ] || fail "no job id in: $submitted"
waited=0
while [ -n "$(squeue -h -j "$job" 2>/dev/null)" ]; do
    [ "$waited" -lt "$((timeout_s * 2))" ] || fail "job array $job still queued or running after $timeout_s s"
    sleep 0.5
    waited=$((waited + 1))
done
tasks=$(grep -c "ArrayJobId=$job " "$work/log/jobcomp.txt" || true)
completed=$(grep "ArrayJobId=$job " "$work/log/jobcomp.txt" | grep -c "JobState=COMPLETED .*ExitCode=0:0" || true)
batches=$(sed -n 's/^#SBATCH --array=//p' "$work/sweep/slurm/slurm/ci.sbatch")
[ "$tasks" -gt 0 ] && [ "$tasks" = "$completed" ] \
    || fail "job array $job: $completed of $tasks task(s) completed with exit code 0 (array $batches)"
step "job array $job done: $tasks task(s) (array $batches), all COMPLETED with exit code 0"
"$warpsim" sweep collect "$spec" --output "$work/sweep/slurm" \
    || fail "collecting the SLURM sweep failed"

# Byte for byte: every point's result, the tables, the charts.
diff -r "$work/sweep/local" "$work/sweep/slurm" --exclude=slurm >/dev/null \
    || { diff -r "$work/sweep/local" "$work/sweep/slurm" --exclude=slurm | head -n 40;
         fail "the SLURM sweep's results differ from the local sweep's"; }
rows=$(( $(wc -l < "$work/sweep/slurm/results.csv") - 1 ))
step "PASS: the SLURM sweep's merged table ($rows rows), charts and point results equal the local sweep's byte for byte"
