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

/* The target of /proc/PID/exe into buf, without the " (deleted)" the kernel appends once the
 * file was replaced (an upgrade while the daemon runs).  0 or -errno (a kernel thread, a
 * zombie, another user's process without privileges). */
int proc_exe(pid_t pid, char buf[static PATH_MAX]);

/* The running daemon exe: a process owned by root (real uid 0) whose /proc/PID/exe is exe, or
 * the file exe links to, and whose parent does not run it (the listener, not a child it
 * forked): 0, -ESRCH when none. */
int proc_find_daemon(const char *exe, pid_t *ret_pid);

/* The value of the line "KEY:" (past its blanks, up to the newline: *ret_len when ret_len is
 * not NULL), or NULL when there is no such line. */
const char *proc_field(const char *text, const char *key, size_t *ret_len);
/* Its first number ("Uid:\t1000\t1000...", "VmLck:\t  0 kB"): 0, -ENOENT, or parse_u64's error. */
int proc_field_u64(const char *text, const char *key, uint64_t *ret);
/* A mask of 1 to 16 hex digits (CapEff): 0, -ENOENT, -EINVAL. */
int proc_field_hex(const char *text, const char *key, uint64_t *ret);
/* Whether bit is set in the mask KEY; false when it cannot be read. */
bool proc_field_cap(const char *text, const char *key, unsigned bit);

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
