/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "macro.h"
#include "procfs.h"
#include "size.h"
#include "strv.h"

static int read_len(pid_t pid, const char *file, size_t max, char **ret, size_t *ret_len) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -1;

        if (asprintf(&path, "/proc/%d/%s", (int)pid, file) < 0)
                return -ENOMEM;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        return fs_read_all(fd, max, ret, ret_len);
}

int proc_read(pid_t pid, const char *file, size_t max, char **ret) {
        return read_len(pid, file, max, ret, NULL);
}

int proc_cmdline(pid_t pid, char **ret, size_t *ret_len) {
        size_t len = 0;
        int r = read_len(pid, "cmdline", PROC_TEXT_MAX, ret, &len);

        if (r < 0)
                return r;
        while (len > 0 && (*ret)[len - 1] == '\0')
                len--;
        *ret_len = len;
        return 0;
}

/* The blank-separated numbers of v, parsed by parse_u64_prefix(): how many of n were read
 * (fewer: the text ends or holds something else there); *ret_end after the last one. */
static size_t words_u64(const char *v, uint64_t *ret, size_t n, const char **ret_end) {
        size_t k = 0;
        for (; k < n; k++) {
                v += strspn(v, " \t");
                if (parse_u64_prefix(v, &ret[k], &v) < 0)
                        break;
        }
        *ret_end = v;
        return k;
}

int proc_field_u64_nth(const char *text, const char *key, size_t nth, uint64_t *ret) {
        uint64_t w[8];
        const char *end, *v = proc_field(text, key, NULL);
        if (!v)
                return -ENOENT;
        if (nth >= ELEMENTSOF(w) || words_u64(v, w, nth + 1, &end) <= nth)
                return -EBADMSG;
        *ret = w[nth];
        return 0;
}

bool proc_in_initial_userns(pid_t pid) {
        _cleanup_free_ char *map = NULL;
        uint64_t w[3];
        const char *end;
        if (proc_read(pid, "uid_map", 4096, &map) < 0)
                return false;
        /* one line, the identity of all 2^32 - 1 uids */
        return words_u64(map, w, 3, &end) == 3 && w[0] == 0 && w[1] == 0 && w[2] == UINT32_MAX &&
               end[strspn(end, " \t\n")] == '\0';
}

bool proc_cap_effective(pid_t pid, const char *status, unsigned bit) {
        return proc_field_cap(status, "CapEff", bit) && proc_in_initial_userns(pid);
}

int proc_exe(pid_t pid, char buf[static PATH_MAX]) {
        static const char deleted[] = " (deleted)";
        char path[64];

        snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
        ssize_t n = readlink(path, buf, PATH_MAX - 1); /* the kernel's d_path() is at most PATH_MAX */
        if (n < 0)
                return negative_errno();
        buf[n] = '\0';
        if ((size_t)n > strlen(deleted) && endswith(buf, deleted))
                buf[n - strlen(deleted)] = '\0';
        return 0;
}

const char *proc_field(const char *text, const char *key, size_t *ret_len) {
        size_t kl = strlen(key);
        for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
                if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
                        const char *v = line + kl + 1 + strspn(line + kl + 1, " \t");
                        if (ret_len)
                                *ret_len = strcspn(v, "\n");
                        return v;
                }
        return NULL;
}

int proc_field_u64(const char *text, const char *key, uint64_t *ret) {
        const char *v = proc_field(text, key, NULL);
        return v ? parse_u64_prefix(v, ret, NULL) : -ENOENT;
}

int proc_field_hex(const char *text, const char *key, uint64_t *ret) {
        size_t n;
        const char *v = proc_field(text, key, &n);
        uint64_t x = 0;
        if (!v)
                return -ENOENT;
        if (n == 0 || n > 16)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                char c = v[i];
                int dgt = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
                if (dgt < 0)
                        return -EINVAL;
                x = x << 4 | (uint64_t)dgt;
        }
        *ret = x;
        return 0;
}

bool proc_field_cap(const char *text, const char *key, unsigned bit) {
        uint64_t caps;
        return proc_field_hex(text, key, &caps) == 0 && bit < 64 && (caps >> bit) & 1;
}

int proc_limits_row(const char *text, const char *row, uint64_t *ret_soft, uint64_t *ret_hard) {
        size_t len = strlen(row);
        const char *p = text;
        uint64_t v[2];

        /* the row's name at the start of a line, then its columns */
        while ((p = strstr(p, row)) && ((p != text && p[-1] != '\n') || (p[len] != ' ' && p[len] != '\t')))
                p += len;
        if (!p)
                return -ENOENT;
        p += len;
        for (int k = 0; k < 2; k++) {
                p += strspn(p, " \t");
                if (strncmp(p, "unlimited", 9) == 0) {
                        v[k] = UINT64_MAX;
                        p += 9;
                } else if (parse_u64_prefix(p, &v[k], &p) < 0)
                        return -EBADMSG;
        }
        *ret_soft = v[0];
        *ret_hard = v[1];
        return 0;
}

int proc_comm(pid_t pid, char **ret) {
        int r = proc_read(pid, "comm", PROC_TEXT_MAX, ret);
        if (r < 0)
                return r;
        size_t n = strlen(*ret);
        if (n > 0 && (*ret)[n - 1] == '\n')
                (*ret)[n - 1] = '\0';
        return 0;
}

const struct proc_daemon proc_daemons[4] = {
        { "sshd", "sshd", "ssh.service", { "/usr/sbin/sshd", "/sbin/sshd" },
          { "ssh.service", "sshd.service", "ssh@*.service", "sshd@*.service" }, true,
          { "/usr/lib/openssh/sshd-session", "/usr/libexec/openssh/sshd-session" } },
        { "cron", "cron", "cron.service", { "/usr/sbin/cron", "/sbin/cron" }, { "cron.service", "crond.service" }, true },
        /* RHEL, Rocky, Alma, Fedora (cronie): its PAM service is crond */
        { "crond", "crond", "crond.service", { "/usr/sbin/crond", "/sbin/crond" }, { "crond.service" }, true },
        { "slurmd", NULL, "slurmd.service", { "/usr/sbin/slurmd" }, { "slurmd.service" } },
};

const struct proc_daemon *proc_daemon_of(const char *service) {
        for (size_t i = 0; service && i < ELEMENTSOF(proc_daemons); i++)
                if (streq(proc_daemons[i].service, service))
                        return &proc_daemons[i];
        return NULL;
}

bool proc_daemon_runs(const struct proc_daemon *s, const char *exe) {
        char real[PATH_MAX];
        for (size_t i = 0; i < PROC_DAEMON_EXE_MAX && s->exe[i]; i++)
                if (streq(exe, s->exe[i]) || (realpath(s->exe[i], real) && streq(exe, real)))
                        return true;
        return false;
}

bool proc_systemd_manages(void) {
        _cleanup_free_ char *comm = NULL;
        struct stat st;
        if (stat("/run/systemd/system", &st) < 0 || !S_ISDIR(st.st_mode) || proc_comm(1, &comm) < 0)
                return false;
        return streq(comm, "systemd");
}

static int daemon_in_unit(const struct proc_daemon *s, pid_t pid, char **why) {
        _cleanup_free_ char *cgroup = NULL, *unit = NULL;
        int r = proc_read(pid, "cgroup", PROC_TEXT_MAX, &cgroup);

        if (r == -ENOMEM)
                return r;
        if (r >= 0 && (r = proc_cgroup_unit(cgroup, &unit)) == -ENOMEM)
                return r;
        if (r < 0) {
                *why = strf("it belongs to no system service (%s)",
                            cgroup ? "see its /proc/PID/cgroup" : "its cgroup cannot be read");
                return *why ? 0 : -ENOMEM;
        }
        for (size_t i = 0; i < PROC_DAEMON_UNITS_MAX && s->units[i]; i++)
                if (fnmatch(s->units[i], unit, 0) == 0)
                        return 1;
        *why = strf("it runs in %s, not %s", unit, s->unit);
        return *why ? 0 : -ENOMEM;
}

int proc_daemon_identify(const struct proc_daemon *s, pid_t pid, const char *status, bool systemd,
                         char exe[static PATH_MAX], char **why) {
        uint64_t uid;
        bool known = false;
        int r;

        *why = NULL;
        if (proc_field_u64(status, "Uid", &uid) < 0)
                *why = strdup("its owner cannot be read");
        else if (uid != 0)
                *why = strf("it runs as uid %llu, not root", (unsigned long long)uid);
        else if ((r = proc_exe(pid, exe)) == -ENOMEM)
                return r;
        else if (r < 0)
                *why = strf("its executable cannot be read (%s)", errno_text(r));
        else {
                known = proc_daemon_runs(s, exe);
                if (!known)
                        *why = strf("its executable is %s, not %s", exe, s->exe[0]);
                else
                        return systemd ? daemon_in_unit(s, pid, why) : 1;
        }
        return *why ? 0 : -ENOMEM;
}

/* Does ppid run exe as root (then its child is a connection's process, not the listener)? */
static bool daemon_parent(pid_t ppid, const char *exe) {
        _cleanup_free_ char *status = NULL;
        char pexe[PATH_MAX];
        uint64_t uid;
        return ppid > 0 && proc_read(ppid, "status", PROC_TEXT_MAX, &status) >= 0 &&
               proc_field_u64(status, "Uid", &uid) >= 0 && uid == 0 && proc_exe(ppid, pexe) >= 0 && streq(pexe, exe);
}

bool proc_daemon_listener(const struct proc_daemon *s, pid_t pid, const char *status, const char *exe) {
        uint64_t ppid;

        if (proc_field_u64(status, "PPid", &ppid) < 0 || daemon_parent((pid_t)ppid, exe))
                return false;
        if (!streq(s->service, "sshd"))
                return true;
        /* a connection's sshd whose listener is gone (a restart: KillMode=process keeps the
         * sessions) is a child of init: its title says what it is ("sshd: alice [priv]"), where
         * OpenSSH 8.2 and later write "sshd: ... [listener] ..." for the listener, and older
         * releases leave the listener's argv as it was started */
        _cleanup_free_ char *cmd = NULL;
        size_t len = 0;
        if (proc_cmdline(pid, &cmd, &len) < 0)
                return true;
        return memchr(cmd, '\0', len) || strncmp(cmd, "sshd: ", 6) != 0 || strstr(cmd, " [listener]");
}

int proc_daemon_find(const struct proc_daemon *s, bool systemd, pid_t *ret_pid) {
        return proc_daemon_find_other(s, systemd, ret_pid, NULL);
}

int proc_daemon_find_other(const struct proc_daemon *s, bool systemd, pid_t *ret_pid, pid_t *ret_other) {
        struct dirent *de;
        DIR *d;
        int r = -ESRCH;

        if (ret_other)
                *ret_other = 0;
        if (!s)
                return -ESRCH;
        if (!(d = opendir("/proc")))
                return negative_errno();
        while ((r == -ESRCH || (r == 0 && ret_other && !*ret_other)) && (de = readdir(d))) {
                _cleanup_free_ char *comm = NULL, *status = NULL, *why = NULL;
                char exe[PATH_MAX];
                unsigned pid;
                if (parse_u32(de->d_name, &pid) < 0 || pid == 0 ||
                    (s->comm && (proc_comm((pid_t)pid, &comm) < 0 || !streq(comm, s->comm))) ||
                    proc_read((pid_t)pid, "status", PROC_TEXT_MAX, &status) < 0)
                        continue;
                int k = proc_daemon_identify(s, (pid_t)pid, status, systemd, exe, &why);
                if (k < 0 && r != 0)
                        r = k;
                else if (k > 0 && proc_daemon_listener(s, (pid_t)pid, status, exe)) {
                        if (r == 0)
                                *ret_other = (pid_t)pid;
                        else {
                                *ret_pid = (pid_t)pid;
                                r = 0;
                        }
                }
        }
        closedir(d);
        return r;
}

const char *proc_cgroup_path(const char *text, size_t *ret_len) {
        const char *v1 = NULL, *v2 = NULL;
        size_t l1 = 0, l2 = 0;

        for (const char *line = text; line && *line;) {
                size_t len = strcspn(line, "\n");
                const char *c1 = memchr(line, ':', len), *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
                if (c2 && c1 == line + 1 && line[0] == '0' && c2 == c1 + 1)
                        v2 = c2 + 1, l2 = len - (size_t)(c2 + 1 - line);
                else if (c2 && (size_t)(c2 - c1 - 1) == strlen("name=systemd") && strncmp(c1 + 1, "name=systemd", 12) == 0)
                        v1 = c2 + 1, l1 = len - (size_t)(c2 + 1 - line);
                line = line[len] ? line + len + 1 : NULL;
        }
        /* hybrid: the unified line may say "/" while name=systemd has the unit */
        if (v2 && !(l2 == 1 && v2[0] == '/' && v1)) {
                *ret_len = l2;
                return v2;
        }
        *ret_len = l1;
        return v1;
}

const char *proc_cgroup_system_unit(const char *path, size_t *ret_len) {
        bool system = false;

        *ret_len = 0;
        for (const char *p = path; p && *p;) {
                p += strspn(p, "/");
                size_t n = strcspn(p, "/");
                if (n == 0)
                        break;
                bool slice = n > 6 && strncmp(p + n - 6, ".slice", 6) == 0;
                if (!slice && system) {
                        *ret_len = n;
                        return p;
                }
                /* a system.slice below another cgroup (a test's, a container's without its
                 * own cgroup namespace) is still one */
                system = n == strlen("system.slice") && strncmp(p, "system.slice", n) == 0 ? true : system && slice;
                p += n;
        }
        return NULL;
}

int proc_cgroup_unit(const char *text, char **ret) {
        size_t plen = 0, n = 0;
        const char *path = proc_cgroup_path(text, &plen);
        _cleanup_free_ char *copy = path ? strndup(path, plen) : NULL;
        const char *unit;

        if (!path)
                return -ENOENT;
        if (!copy)
                return -ENOMEM;
        unit = proc_cgroup_system_unit(copy, &n);
        if (!unit)
                return -ENOENT;
        return (*ret = strndup(unit, n)) ? 0 : -ENOMEM;
}

/* ---------------------------------------------------------------------------------------
 * cgroup paths */

const char *cgroup_origin_name(enum cgroup_origin o) {
        static const char *const names[] = {
                [CGROUP_O_UNKNOWN] = "unknown",   [CGROUP_O_INIT] = "init",
                [CGROUP_O_UNIT] = "unit",         [CGROUP_O_SESSION] = "session",
                [CGROUP_O_USER_UNIT] = "user-unit", [CGROUP_O_DOCKER] = "docker",
                [CGROUP_O_CONTAINERD] = "containerd", [CGROUP_O_CRIO] = "crio",
                [CGROUP_O_PODMAN] = "podman",     [CGROUP_O_KUBEPODS] = "kubepods",
                [CGROUP_O_SLURM] = "slurm",       [CGROUP_O_CGROUP] = "cgroup",
        };
        return (size_t)o < ELEMENTSOF(names) && names[o] ? names[o] : "unknown";
}

/* ---------------------------------------------------------------------------------------
 * cgroup paths */

static bool has_suffix(const char *s, size_t len, const char *suffix) {
        size_t l = strlen(suffix);
        return len >= l && memcmp(s + len - l, suffix, l) == 0;
}

static void copy_span(char *dst, size_t size, const char *s, size_t len) {
        if (size == 0)
                return;
        if (len >= size)
                len = size - 1;
        memcpy(dst, s, len);
        dst[len] = '\0';
}

/* A container id out of "PREFIX-ID.scope" or a bare "ID" component: 12 characters. */
static void container_id(char *dst, size_t size, const char *s, size_t len) {
        if (has_suffix(s, len, ".scope")) {
                len -= strlen(".scope");
                const char *dash = memrchr(s, '-', len);
                if (dash) {
                        len -= (size_t)(dash + 1 - s);
                        s = dash + 1;
                }
        }
        copy_span(dst, size, s, len > 12 ? 12 : len);
}

static bool hex_id(const char *s, size_t len) {
        if (len < 32)
                return false;
        for (size_t i = 0; i < len; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return true;
}

/* The scope a container runtime's systemd cgroup driver makes for a container, PREFIX-ID.scope,
 * and the unit whose limits its processes get. */
struct runtime_scope {
        const char *prefix;
        enum cgroup_origin origin;
        const char *owner;
};

static const struct runtime_scope *runtime_scope(const char *c, size_t len) {
        static const struct runtime_scope scopes[] = {
                { "docker-", CGROUP_O_DOCKER, "docker.service" },
                { "cri-containerd-", CGROUP_O_CONTAINERD, "containerd.service" },
                { "crio-", CGROUP_O_CRIO, "crio.service" },
                { "libpod-", CGROUP_O_PODMAN, "" },
        };

        if (!has_suffix(c, len, ".scope") || has_suffix(c, len, "conmon.scope"))
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(scopes); i++) {
                size_t n = strlen(scopes[i].prefix);
                if (len > n && memcmp(c, scopes[i].prefix, n) == 0)
                        return &scopes[i];
        }
        return NULL;
}

enum cgroup_origin proc_cgroup_classify(const char *path, char *name, size_t name_size, char *owner,
                                          size_t owner_size) {
        enum cgroup_origin o = CGROUP_O_CGROUP;
        const char *unit = NULL, *session = NULL, *user_unit = NULL; /* components: up to the next '/' */
        bool user_manager = false, kubepods = false;
        char own[64] = "";
        /* the system unit: the one answer of proc_cgroup_system_unit() */
        size_t unit_len = 0;
        const char *sys_unit = path ? proc_cgroup_system_unit(path, &unit_len) : NULL;

        if (name_size)
                name[0] = '\0';
        if (owner && owner_size)
                owner[0] = '\0';
        if (!path || !*path)
                return CGROUP_O_UNKNOWN;
        if (streq(path, "/")) {
                copy_span(name, name_size, "/", 1);
                return CGROUP_O_INIT;
        }
        copy_span(name, name_size, path, strlen(path));
        /* the innermost component that says something wins; walk outside in */
        for (const char *p = path; *p;) {
                p += strspn(p, "/");
                size_t len = strcspn(p, "/");
                if (len == 0)
                        break;
                const char *c = p;
                p += len;

                /* Below a user's manager the user names the cgroups (it is delegated to them):
                 * there a "docker-ID.scope", "job_N" or "session-N.scope" is the user's own
                 * unit, not a container, a Slurm job or a login session. */
                if (user_manager) {
                        if (!user_unit && (has_suffix(c, len, ".service") || has_suffix(c, len, ".scope")))
                                user_unit = c;
                        continue;
                }
                const struct runtime_scope *rt = runtime_scope(c, len);
                if (rt) {
                        o = rt->origin;
                        container_id(name, name_size, c, len);
                        snprintf(own, sizeof own, "%s", rt->owner);
                } else if (len >= 8 && memcmp(c, "kubepods", 8) == 0) {
                        kubepods = true;
                } else if (hex_id(c, len) && (o == CGROUP_O_CGROUP || o == CGROUP_O_UNIT || kubepods)) {
                        /* cgroupfs driver: /docker/ID, /kubepods/burstable/podUID/ID */
                        if ((sys_unit && unit_len == 14 && memcmp(sys_unit, "docker.service", 14) == 0) ||
                            strstr(path, "/docker/"))
                                o = CGROUP_O_DOCKER;
                        else if (kubepods)
                                o = CGROUP_O_KUBEPODS;
                        else
                                continue;
                        container_id(name, name_size, c, len);
                        if (o == CGROUP_O_DOCKER)
                                snprintf(own, sizeof own, "docker.service");
                } else if (len > 4 && memcmp(c, "job_", 4) == 0) {
                        o = CGROUP_O_SLURM;
                        /* job_N or job_N/step_M: up to the next component after the step */
                        const char *end = c + len;
                        if (*end == '/' && strncmp(end + 1, "step_", 5) == 0)
                                end += 1 + strcspn(end + 1, "/");
                        copy_span(name, name_size, c, (size_t)(end - c));
                        snprintf(own, sizeof own, "slurmd.service");
                } else if (len > 5 && memcmp(c, "user@", 5) == 0 && has_suffix(c, len, ".service")) {
                        user_manager = true;
                        unit = c;
                } else if (len > 8 && memcmp(c, "session-", 8) == 0 && has_suffix(c, len, ".scope")) {
                        session = c;
                }
        }
        /* outside a user's manager, a unit is a system unit */
        if (!user_manager)
                unit = sys_unit;
        if (o == CGROUP_O_CGROUP) {
                if (session) {
                        o = CGROUP_O_SESSION;
                        copy_span(name, name_size, session, strcspn(session, "/"));
                } else if (user_unit) {
                        /* user@UID.service/X.service: every user may have an X.service */
                        o = CGROUP_O_USER_UNIT;
                        if (name_size)
                                snprintf(name, name_size, "%.*s/%.*s", (int)strcspn(unit, "/"), unit,
                                         (int)strcspn(user_unit, "/"), user_unit);
                } else if (unit) {
                        o = user_manager ? CGROUP_O_USER_UNIT : CGROUP_O_UNIT;
                        copy_span(name, name_size, unit, user_manager ? strcspn(unit, "/") : unit_len);
                } else if (kubepods)
                        o = CGROUP_O_KUBEPODS;
        } else if (o == CGROUP_O_KUBEPODS && strstr(path, "containerd"))
                o = CGROUP_O_CONTAINERD;
        if (owner && owner_size)
                snprintf(owner, owner_size, "%s", own);
        return o;
}
