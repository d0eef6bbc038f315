/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * /proc/PID files and their fields, for status, the session model and doctor: one reader,
 * one field lookup.  Texts are the kernel's (status: "Key:\tvalue" lines; limits: one row a
 * limit, "unlimited" or a number for soft and hard).
 */
#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#define PROC_TEXT_MAX (64u * 1024)

/* /proc/PID/FILE, at most max bytes, NUL-terminated.  0 or -errno. */
int proc_read(pid_t pid, const char *file, size_t max, char **ret);
/* /proc/PID/cmdline (at most PROC_TEXT_MAX bytes): its argv as started, NUL-separated, or the
 * one string a process wrote over it (a title); *ret_len without the NULs at its end.  0 or
 * -errno. */
int proc_cmdline(pid_t pid, char **ret, size_t *ret_len);

/* The target of /proc/PID/exe into buf, without the " (deleted)" the kernel appends once the
 * file was replaced (an upgrade while the daemon runs).  0 or -errno (a kernel thread, a
 * zombie, another user's process without privileges). */
int proc_exe(pid_t pid, char buf[static PATH_MAX]);

/* /proc/PID/comm without its newline (any other byte kept, to be escaped, not cut). */
int proc_comm(pid_t pid, char **ret);

/*
 * The daemons whose sessions matter and whose own limits they start from, by PAM service, and
 * the one answer to "which process is that daemon" (explain, verify and doctor ask it): a
 * process named comm, owned by root, running one of exe, in one of units when systemd
 * manages the host (a container's sshd, a copy run by hand, is not the host's), whose parent
 * is not the same daemon (the listener, not a connection's child).
 */
#define PROC_DAEMON_EXE_MAX 3
#define PROC_DAEMON_UNITS_MAX 5
struct proc_daemon {
        const char *service;                          /* "sshd", "cron", "slurmd" */
        const char *comm;                             /* NULL: any (slurmd-wlm runs as itself too) */
        const char *unit;                             /* the unit a fix names */
        const char *exe[PROC_DAEMON_EXE_MAX];         /* NULL-terminated; a link stands for its target too
                                                       * (Debian's /usr/sbin/slurmd, an alternative) */
        const char *units[PROC_DAEMON_UNITS_MAX];     /* fnmatch() patterns, NULL-terminated */
        bool pam;                                     /* it opens PAM sessions of its service */
        const char *session_exe[PROC_DAEMON_EXE_MAX]; /* what its per-session process runs when
                                                       * that is another program (OpenSSH 9.8's
                                                       * sshd-session), NULL-terminated */
};
extern const struct proc_daemon proc_daemons[4];
/* The daemon of a PAM service, NULL when none is known. */
const struct proc_daemon *proc_daemon_of(const char *service);
/* Does exe (a /proc/PID/exe target) run daemon s: one of its exe, or what such a link points
 * to? */
bool proc_daemon_runs(const struct proc_daemon *s, const char *exe);
/* systemd is PID 1 and /run/systemd/system exists. */
bool proc_systemd_manages(void);
/* Is pid (status: its /proc/PID/status) daemon s, leaving its name and parent aside?  1 (its
 * executable in exe); 0, with the reason in *why (heap); -ENOMEM. */
int proc_daemon_identify(const struct proc_daemon *s, pid_t pid, const char *status, bool systemd,
                         char exe[static PATH_MAX], char **why);
/* Is pid (identified as s; status and exe its own) the listener: its parent is not the same
 * daemon, and for sshd its title is not a connection's ("sshd: alice [priv]" once the
 * listener that forked it is gone)? */
bool proc_daemon_listener(const struct proc_daemon *s, pid_t pid, const char *status, const char *exe);
/* The listener of s: the first process of /proc that is it.  0, -ESRCH, -ENOMEM. */
int proc_daemon_find(const struct proc_daemon *s, bool systemd, pid_t *ret_pid);
/* The same, and another listener that qualifies as well (*ret_other, 0: none): which of them
 * logins go through is then not known. */
int proc_daemon_find_other(const struct proc_daemon *s, bool systemd, pid_t *ret_pid, pid_t *ret_other);

/* The value of the line "KEY:" (past its blanks, up to the newline: *ret_len when ret_len is
 * not NULL), or NULL when there is no such line. */
const char *proc_field(const char *text, const char *key, size_t *ret_len);
/* Its first number ("Uid:\t1000\t1000...", "VmLck:\t  0 kB"): 0, -ENOENT, or parse_u64's error. */
int proc_field_u64(const char *text, const char *key, uint64_t *ret);
/* Its nth number (from 0: "Uid:\tREAL\tEFFECTIVE\tSAVED\tFS", nth < 8): 0, -ENOENT, -EBADMSG. */
int proc_field_u64_nth(const char *text, const char *key, size_t nth, uint64_t *ret);
/* A mask of 1 to 16 hex digits (CapEff): 0, -ENOENT, -EINVAL. */
int proc_field_hex(const char *text, const char *key, uint64_t *ret);
/* Whether bit is set in the mask KEY; false when it cannot be read. */
bool proc_field_cap(const char *text, const char *key, unsigned bit);
/* Is pid in the initial user namespace (its uid_map the identity of every uid: "0 0
 * 4294967295")?  The kernel checks CAP_SYS_RESOURCE (raising a hard limit) and CAP_IPC_LOCK
 * (locking past RLIMIT_MEMLOCK, an AF_XDP UMEM or an RDMA MR uncharged) there: a process in
 * another one (unshare -r, a rootless or user-namespaced container) has a full CapEff that
 * counts for neither.  False when it cannot be read. */
bool proc_in_initial_userns(pid_t pid);
/* The one answer to "does the kernel grant pid capability bit for memlock": CapEff of its
 * status text has it and pid is in the initial user namespace. */
bool proc_cap_effective(pid_t pid, const char *status, unsigned bit);

/* The soft and hard value of the row (e.g. "Max locked memory") of a limits text, UINT64_MAX
 * for "unlimited": 0, -ENOENT (no such row), -EBADMSG. */
int proc_limits_row(const char *text, const char *row, uint64_t *ret_soft, uint64_t *ret_hard);

/* The path of the systemd hierarchy in a /proc/PID/cgroup text ("0::" on cgroup v2,
 * "name=systemd" on v1; on a hybrid host the v1 line when the unified one is only "/"), and
 * its length: NULL when none. */
const char *proc_cgroup_path(const char *text, size_t *ret_len);
/* What a cgroup path (proc_cgroup_path()) says of its processes: the one walk of a path. */
enum cgroup_origin {
        CGROUP_O_UNKNOWN,        /* "unknown": no cgroup to read */
        CGROUP_O_INIT,           /* "init": the root cgroup (PID 1's children without systemd) */
        CGROUP_O_UNIT,           /* "unit": a system unit, system.slice/X.service */
        CGROUP_O_SESSION,        /* "session": a login session, session-N.scope */
        CGROUP_O_USER_UNIT,      /* "user-unit": a unit of a user's manager, user@UID.service/... */
        CGROUP_O_DOCKER,         /* "docker" */
        CGROUP_O_CONTAINERD,     /* "containerd": cri-containerd-ID.scope, kubepods (containerd) */
        CGROUP_O_CRIO,           /* "crio": crio-ID.scope */
        CGROUP_O_PODMAN,         /* "podman": libpod-ID.scope */
        CGROUP_O_KUBEPODS,       /* "kubepods": a pod whose runtime the cgroup does not name */
        CGROUP_O_SLURM,          /* "slurm": job_N/step_M under slurmstepd */
        CGROUP_O_CGROUP,         /* "cgroup": some other cgroup (the path is in origin_name) */
};
const char *cgroup_origin_name(enum cgroup_origin o);

/* Classify a cgroup path ("/system.slice/foo.service", ...).  name gets the unit, the session,
 * the container id (12 characters), "job_N/step_M" or the path; owner (may be NULL) the
 * unit that owns a container's or job's processes' limits where the path says it
 * ("docker.service", "containerd.service", "crio.service", "slurmd.service"), else "". */
enum cgroup_origin proc_cgroup_classify(const char *path, char *name, size_t name_size, char *owner,
                                          size_t owner_size);
/* The system unit of a cgroup path (may be NULL): the first component after a system.slice
 * component (and the slices below it) that is not a slice ("ssh.service", "docker-ID.scope"),
 * wherever that system.slice is (under a container's cgroup without its own namespace too);
 * ret_len its length.  NULL when there is none (user.slice holds units users make
 * themselves, init.scope is no service). */
const char *proc_cgroup_system_unit(const char *path, size_t *ret_len);

/* The system unit of a /proc/PID/cgroup text (proc_cgroup_system_unit() of its systemd
 * hierarchy's path): 0, -ENOENT when there is none, -ENOMEM. */
int proc_cgroup_unit(const char *text, char **ret);
