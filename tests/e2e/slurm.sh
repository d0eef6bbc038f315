# tests/e2e/slurm.sh: the single-node Slurm of test-slurm.sh and test-spank.sh (sourced).
# Its state lives in a throwaway directory W; the daemons listen on 127.0.0.1 only.

# slurm_munged W: start munged with a new key under W/munge; its stderr in W/munged.err
slurm_munged() {
	mkdir -p "$1/munge" || return 1
	head -c 1024 /dev/urandom > "$1/munge/munge.key" && chmod 0400 "$1/munge/munge.key" || return 1
	munged --force -S "$1/munge/sock" --key-file="$1/munge/munge.key" --pid-file="$1/munge/munged.pid" \
		--log-file="$1/munge/log" --seed-file="$1/munge/seed" 2> "$1/munged.err"
}

# slurm_conf W NODE [LINE...]: a slurm.conf for NODE with its state, pid and log files in W,
# and the LINEs after it
slurm_conf() {
	local w=$1 node=$2
	shift 2
	cat <<E
ClusterName=rdmalimit
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$w/munge/sock
CredType=cred/munge
StateSaveLocation=$w/state
SlurmdSpoolDir=$w/spool
SlurmctldPidFile=$w/slurmctld.pid
SlurmdPidFile=$w/slurmd.pid
SlurmctldLogFile=$w/slurmctld.log
SlurmdLogFile=$w/slurmd.log
SlurmctldPort=16917
SlurmdPort=16918
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/linear
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=rdma Nodes=ALL Default=YES MaxTime=INFINITE State=UP
E
	[ $# -eq 0 ] || printf '%s\n' "$@"
}
