# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# slurm_env.sh - throw-away one-node Slurm cluster on localhost, for tests.
#
# Source this file from a bash test script (it is safe under `set -eu`):
#
#     . tests/slurm/slurm_env.sh
#     slurm_install                      # apt-get slurm-wlm + munge if missing
#     dir=$(mktemp -d)
#     trap slurm_stop EXIT               # always tears everything down
#     slurm_start "$dir"                 # munged + slurmctld + slurmd, node idle
#     id=$(sbatch --parsable --wrap 'hostname')
#     slurm_wait_jobs 60 "$id"
#
# Everything (munge key and socket, slurm.conf, state, spool, logs, pid
# files) lives under the caller's temporary directory, the daemons listen on
# free non-default ports and use their own munge socket, so the cluster
# neither needs nor touches /etc/slurm, /etc/munge or a system munged.
# slurm_start exports SLURM_CONF, so sbatch/squeue/sinfo/scontrol talk to it.
# There is no accounting (sacct does not work) and no cgroup plugin at all
# (proctrack/linuxproc, task/none), so it runs in containers/VMs without
# systemd or a writable cgroup tree.
#
# Needs root: slurmd must run as root to start jobs, munged runs as root
# (with --force) so the key and socket can stay in a root-only temp dir,
# slurm_install uses apt-get, and only root's jobs can use the cluster.
# Tested on Debian 12 (Slurm 22.05.8, munge 0.5.15).
#
# Functions:
#   slurm_install                  install the packages if a tool is missing
#   slurm_start DIR                start the cluster in the empty directory DIR
#   slurm_stop                     stop every job and daemon, remove DIR
#   slurm_wait_jobs TIMEOUT ID...  wait until the jobs have left squeue
#   slurm_dump_logs                print the tails of the daemons' logs

# The cluster's directory, set by slurm_start, removed by slurm_stop; empty:
# nothing to tear down. Never taken from the environment (rm -rf!).
SLURM_ENV_DIR=

# Seconds slurm_start waits for the node to become idle.
SLURM_ENV_START_TIMEOUT=${SLURM_ENV_START_TIMEOUT:-60}

_slurm_msg() { echo "slurm_env: $*" >&2; }

# ---------------------------------------------------------------- install --

_slurm_tools_present() {
    local tool
    for tool in slurmctld slurmd sbatch munged; do
        command -v "$tool" >/dev/null 2>&1 || return 1
    done
}

# Debian's maintainer scripts start munge/slurmd/slurmctld through
# invoke-rc.d right after unpacking. A system munged or slurmd would only get
# in the way (and fails anyway without /etc/slurm/slurm.conf), so while
# apt-get runs, a policy-rc.d that answers 101 ("action forbidden") is put in
# place - unless the machine already has one (docker images usually do), which
# is then left untouched. The subshell's EXIT trap removes our copy again.
_slurm_apt_install() {
    (
        policy=/usr/sbin/policy-rc.d
        if [ ! -e "$policy" ]; then
            trap 'rm -f "$policy"' EXIT
            printf '#!/bin/sh\n# temporary: written by slurm_env.sh during apt-get\nexit 101\n' \
                >"$policy" && chmod 0755 "$policy" || exit 1
        fi
        export DEBIAN_FRONTEND=noninteractive
        # slurm-wlm depends on slurmctld, slurmd, slurm-client and munge; they
        # are named anyway so a changed meta package cannot drop one.
        set -- slurm-wlm slurmctld slurmd slurm-client munge
        apt-get install -y --no-install-recommends "$@" && exit 0
        # Stale package lists are the usual reason: refresh once and retry.
        apt-get update && apt-get install -y --no-install-recommends "$@"
    )
}

slurm_install() {
    if _slurm_tools_present; then
        return 0
    fi
    _slurm_msg "installing slurm-wlm slurmctld slurmd slurm-client munge with apt-get"
    if [ "$(id -u)" != 0 ]; then
        _slurm_msg "error: slurm_install needs root (apt-get)"
        return 1
    fi
    if ! _slurm_apt_install >&2; then
        _slurm_msg "error: apt-get install of slurm-wlm/munge failed (see above)"
        return 1
    fi
    if ! _slurm_tools_present; then
        _slurm_msg "error: apt-get succeeded but slurmctld/slurmd/sbatch/munged are still not on PATH"
        return 1
    fi
    # policy-rc.d should have prevented it; say so if a system daemon runs
    # anyway (it uses /run/munge and ports 6817/6818, which we avoid).
    local name
    for name in munged slurmctld slurmd; do
        if pgrep -x "$name" >/dev/null 2>&1; then
            _slurm_msg "warning: a system $name is running (not ours; 'service ${name%d} stop' stops it)"
        fi
    done
}

# ------------------------------------------------------------------ start --

# Take ownership of the caller's directory. Only an existing, empty directory
# is accepted, so that slurm_stop's rm -rf can never hit anything else.
_slurm_take_dir() {
    local dir=$1
    if [ -z "$dir" ] || [ ! -d "$dir" ]; then
        _slurm_msg "error: slurm_start: '$dir' is not a directory"
        return 1
    fi
    dir=$(cd "$dir" && pwd -P) || return 1
    if [ "$dir" = / ] || [ -n "$(ls -A "$dir")" ]; then
        _slurm_msg "error: slurm_start: '$dir' must be an empty directory"
        return 1
    fi
    # A unix socket path must fit into sockaddr_un.sun_path (108 bytes).
    if [ ${#dir} -gt 80 ]; then
        _slurm_msg "error: slurm_start: '$dir' is too long for the munge socket path"
        return 1
    fi
    SLURM_ENV_DIR=$dir
}

# Print a TCP port nobody listens on. It is taken from below the kernel's
# ephemeral range (ip_local_port_range), so outgoing connections will not grab
# it in the meantime. Ports given as arguments are skipped (to get two
# different ones). A small race with other programs remains; a port taken
# meanwhile shows up as a failed start with the daemon's log printed.
_slurm_free_port() {
    local low=32768 high base span port
    read -r low high </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
    if [ "$low" -gt 12000 ]; then
        base=10000 span=$((low - 10000))
    else
        base=$((high + 1)) span=$((65535 - high))
    fi
    for _ in $(seq 1 100); do
        port=$((base + RANDOM % span))
        case " $* " in *" $port "*) continue ;; esac
        # Free if nothing listens (ss) and a connect is refused (/dev/tcp).
        if [ -z "$(ss -Htln "sport = :$port" 2>/dev/null)" ] &&
            ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return 0
        fi
    done
    _slurm_msg "error: no free TCP port found"
    return 1
}

# Start "$@" in the background as daemon NAME (the daemon must stay in the
# foreground), with output going to DIR/log/NAME.out. The pid is recorded in
# DIR/pids/NAME.pid, which is what slurm_stop uses. stdin/stdout/stderr are
# redirected so a caller's pipe (e.g. `selftest.sh | tee`) does not stay open.
_slurm_spawn() {
    local name=$1
    shift
    "$@" </dev/null >"$SLURM_ENV_DIR/log/$name.out" 2>&1 &
    echo $! >"$SLURM_ENV_DIR/pids/$name.pid"
}

_slurm_alive() {
    local pid
    pid=$(cat "$SLURM_ENV_DIR/pids/$1.pid" 2>/dev/null) || return 1
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# munged with its own key, socket, pid/log/seed files, running as root.
# Without --force it refuses to start: "Socket is inaccessible: execute
# permissions for all required on DIR/munge" (it wants other users to be
# able to reach the socket, but DIR is mktemp's 0700). --force turns that
# into a warning; only root uses this cluster anyway. Running it as the munge
# user instead would mean opening DIR up for that user.
_slurm_start_munged() {
    local d=$SLURM_ENV_DIR
    local key=$d/munge/munge.key
    # 1024 random bytes, as mungekey makes; munged insists on the key being
    # owned by its own user (root) and not readable by anyone else.
    dd if=/dev/urandom of="$key" bs=1024 count=1 status=none || return 1
    chmod 0400 "$key" || return 1
    # In the foreground munged logs to stderr (log/munged.out), --log-file
    # is only used once it daemonizes; it is given to keep /var/log out.
    _slurm_spawn munged munged --foreground --force \
        --socket="$d/munge/munge.socket" \
        --key-file="$key" \
        --pid-file="$d/run/munged.pid" \
        --log-file="$d/log/munged.log" \
        --seed-file="$d/munge/munged.seed" || return 1
    # Ready once a credential round-trips through the new socket.
    for _ in $(seq 1 50); do
        if munge -n -S "$d/munge/munge.socket" 2>/dev/null |
            unmunge -S "$d/munge/munge.socket" >/dev/null 2>&1; then
            return 0
        fi
        _slurm_alive munged || break
        sleep 0.2
    done
    _slurm_msg "error: munged did not come up"
    return 1
}

# Write DIR/slurm.conf for a single node named after this host.
_slurm_write_conf() {
    local d=$SLURM_ENV_DIR
    local node ctld_port slurmd_port cpus mem_mb
    node=$(hostname -s) || return 1
    ctld_port=$(_slurm_free_port) || return 1
    slurmd_port=$(_slurm_free_port "$ctld_port") || return 1
    cpus=$(nproc) || return 1
    # RealMemory a bit (10%) below what is available; slurmd drains a node
    # that claims more memory than it has.
    mem_mb=$(awk '/^MemAvailable:/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
    [ -n "$mem_mb" ] || return 1

    cat >"$d/slurm.conf" <<CONF
# Generated by tests/slurm/slurm_env.sh - throw-away one-node test cluster.
ClusterName=testcluster
# Node and controller are this host, reached via loopback only.
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root

# Own munge daemon: the socket is used for job credentials, too.
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
CredType=cred/munge

# No cgroups and no systemd: plain /proc based process tracking.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SwitchType=switch/none

# No accounting, no job completion log.
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none

# Plain FIFO scheduler, no backfill. batch_sched_delay=0: schedule right
# after a submit (default: up to 3 s later); sched_interval=1: a full pass
# every second (default 60 s), so released dependencies and freed CPUs are
# used within about a second.
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0,sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# Completed jobs vanish quickly; squeue never shows them anyway.
MinJobAge=5
# scancel: SIGKILL 2 s after SIGTERM (default 30 s), for a quick teardown.
KillWait=2
# A node that registers again is usable immediately.
ReturnToService=2
# Trust the configured CPU count even if the reported topology differs.
SlurmdParameters=config_overrides
MailProg=/bin/true

# Everything under $d.
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info

NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$node CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
}

# Print the last lines of each daemon's log, for a failed start or test.
# slurmctld/slurmd -D copy their log file to stderr (NAME.out), so NAME.out
# is only shown when there is no NAME.log, e.g. a slurm.conf parse error or
# munged, which logs to stderr only in the foreground.
slurm_dump_logs() {
    local name f
    [ -n "$SLURM_ENV_DIR" ] && [ -d "$SLURM_ENV_DIR/log" ] || return 0
    for name in munged slurmctld slurmd; do
        f=$SLURM_ENV_DIR/log/$name.log
        [ -s "$f" ] || f=$SLURM_ENV_DIR/log/$name.out
        [ -s "$f" ] || continue
        echo "----- last lines of $f -----" >&2
        tail -n 20 "$f" >&2
    done
}

# Wait until the node reports exactly "idle" (not "idle*", "down", "unk").
_slurm_wait_idle() {
    local deadline state name
    deadline=$((SECONDS + SLURM_ENV_START_TIMEOUT))
    while [ "$SECONDS" -lt "$deadline" ]; do
        state=$(sinfo -h -o %t 2>/dev/null) || state=
        if [ "$state" = idle ]; then
            return 0
        fi
        for name in munged slurmctld slurmd; do
            if ! _slurm_alive "$name"; then
                _slurm_msg "error: $name exited during startup"
                return 1
            fi
        done
        sleep 0.5
    done
    _slurm_msg "error: node not idle after ${SLURM_ENV_START_TIMEOUT}s (state: '${state:-?}')"
    return 1
}

slurm_start() {
    if [ $# -ne 1 ]; then
        _slurm_msg "usage: slurm_start DIR"
        return 1
    fi
    if [ -n "$SLURM_ENV_DIR" ]; then
        _slurm_msg "error: a cluster is already running in $SLURM_ENV_DIR"
        return 1
    fi
    _slurm_take_dir "$1" || return 1
    local d=$SLURM_ENV_DIR
    # munged wants its directories not group/world writable.
    (umask 077 && mkdir "$d/munge" "$d/log" "$d/run" "$d/pids" "$d/state" "$d/spool") ||
        return 1
    if ! _slurm_start_munged || ! _slurm_write_conf; then
        slurm_dump_logs
        return 1
    fi
    export SLURM_CONF=$d/slurm.conf
    # -D: stay in the foreground so the pid recorded is the daemon's own;
    # -c / -i: a fresh cluster, ignore missing state.
    _slurm_spawn slurmctld slurmctld -D -c -i -f "$SLURM_CONF" || return 1
    _slurm_spawn slurmd slurmd -D -f "$SLURM_CONF" || return 1
    if ! _slurm_wait_idle; then
        slurm_dump_logs
        return 1
    fi
    _slurm_msg "cluster up in $d (node $(hostname -s), $(nproc) CPUs)"
}

# ------------------------------------------------------------------- stop --

# TERM the pid recorded for NAME, KILL it after 5 s, and wait until it is gone.
_slurm_kill_daemon() {
    local name=$1 pidfile pid
    pidfile=$SLURM_ENV_DIR/pids/$name.pid
    pid=$(cat "$pidfile" 2>/dev/null) || return 0
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 25); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
        _slurm_msg "$name (pid $pid) ignored SIGTERM, killing it"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    # Reap it if it is our child; otherwise poll until it has disappeared.
    wait "$pid" 2>/dev/null || true
    for _ in $(seq 1 25); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
    done
    rm -f "$pidfile"
}

# KILL a process and all its descendants. Each one is stopped first so it
# cannot fork new children while the tree is walked.
_slurm_kill_tree() {
    local pid=$1 child
    kill -STOP "$pid" 2>/dev/null || return 0
    for child in $(pgrep -P "$pid" 2>/dev/null || true); do
        _slurm_kill_tree "$child"
    done
    kill -KILL "$pid" 2>/dev/null || true
}

# True if process $1 has a file under DIR open (slurmstepd keeps the slurmd
# log open), i.e. belongs to this cluster and not to some other Slurm.
_slurm_uses_dir() {
    local fd target
    for fd in /proc/"$1"/fd/*; do
        target=$(readlink "$fd" 2>/dev/null) || continue
        case $target in "$SLURM_ENV_DIR"/*) return 0 ;; esac
    done
    return 1
}

# slurmstepd (one per job step, with the job's processes below it) is
# detached from slurmd and survives it. So first cancel all jobs while
# slurmctld/slurmd are still up to do it properly, then KILL whatever
# slurmstepd of this cluster is left, together with its job processes.
_slurm_cancel_jobs() {
    local pid
    # SLURM_CONF given explicitly: the caller may have changed or unset it.
    local conf=$SLURM_ENV_DIR/slurm.conf
    if _slurm_alive slurmctld && [ -f "$conf" ]; then
        SLURM_CONF=$conf scancel --quiet --user="$(id -un)" 2>/dev/null || true
        for _ in $(seq 1 25); do
            [ -z "$(SLURM_CONF=$conf squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    for pid in $(pgrep -x slurmstepd 2>/dev/null || true); do
        if _slurm_uses_dir "$pid"; then
            _slurm_msg "killing leftover slurmstepd $pid and its processes"
            _slurm_kill_tree "$pid"
        fi
    done
}

# Safe to call twice, without slurm_start, and after a half-done start.
# Always returns 0 so it cannot change the exit status of an EXIT trap.
slurm_stop() {
    [ -n "${SLURM_ENV_DIR:-}" ] || return 0
    _slurm_cancel_jobs || true
    # Reverse start order: slurmd, slurmctld, then munged which both use.
    _slurm_kill_daemon slurmd || true
    _slurm_kill_daemon slurmctld || true
    _slurm_kill_daemon munged || true
    rm -rf "$SLURM_ENV_DIR" || true
    SLURM_ENV_DIR=
    unset SLURM_CONF
    return 0
}

# --------------------------------------------------------------- wait jobs --

# True if job ID (plain "7", a whole array "7", or one array task "7_2") is
# still in squeue, i.e. pending, running or completing. An id the controller
# no longer knows at all (purged after MinJobAge) makes squeue -j fail: gone.
_slurm_job_queued() {
    local out
    out=$(squeue -h -j "$1" -o %i 2>/dev/null) || return 1
    [ -n "$out" ]
}

# slurm_wait_jobs TIMEOUT JOBID... - wait until none of the jobs is in squeue
# any more. The id sbatch --parsable prints for a job array covers all of its
# tasks. Non-zero, with squeue printed, on timeout.
slurm_wait_jobs() {
    if [ $# -lt 2 ]; then
        _slurm_msg "usage: slurm_wait_jobs TIMEOUT JOBID..."
        return 1
    fi
    local timeout=$1 deadline id busy
    shift
    deadline=$((SECONDS + timeout))
    while :; do
        # Only trust "not queued" while the controller answers at all.
        if squeue -h -o %i >/dev/null 2>&1; then
            busy=
            for id in "$@"; do
                # sbatch --parsable may append ";cluster".
                if _slurm_job_queued "${id%%;*}"; then
                    busy=1
                    break
                fi
            done
            [ -n "$busy" ] || return 0
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            _slurm_msg "error: jobs $* still queued after ${timeout}s:"
            squeue >&2 || true
            return 1
        fi
        sleep 0.5
    done
}
