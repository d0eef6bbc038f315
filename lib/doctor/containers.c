/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * doctor, containers: is doctor itself inside one (and which capabilities may anything here
 * ever have); what docker gives the containers it starts (daemon.json default-ulimits, else
 * dockerd's own LimitMEMLOCK=); what podman gives them (containers.conf default_ulimits).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>

#include "doctor-internal.h"
#include "procfs.h"

/* ------------------------------------------------------------------------------------ */
/* a targeted look into daemon.json */

/* The end of the JSON value that starts at p ({...}, [...], "..." or a scalar). */
static const char *json_skip_value(const char *p) {
        if (*p == '"') {
                for (p++; *p && *p != '"'; p++)
                        if (*p == '\\' && p[1])
                                p++;
                return *p ? p + 1 : p;
        }
        if (*p == '{' || *p == '[') {
                int depth = 0;
                for (; *p; p++) {
                        if (*p == '"') {
                                p = json_skip_value(p) - 1;
                                continue;
                        }
                        if (*p == '{' || *p == '[')
                                depth++;
                        else if ((*p == '}' || *p == ']') && --depth == 0)
                                return p + 1;
                }
                return p;
        }
        while (*p && *p != ',' && *p != '}' && *p != ']')
                p++;
        return p;
}

static const char *json_ws(const char *p) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
                p++;
        return p;
}

/* Within the object [obj, end): the value of "key" (Go's decoder matches keys without
 * regard to case), or NULL. */
static const char *json_member(const char *obj, const char *end, const char *key) {
        size_t kl = strlen(key);
        const char *p = json_ws(obj);
        if (p >= end || *p != '{')
                return NULL;
        p++;
        while (p < end) {
                p = json_ws(p);
                if (*p != '"')
                        return NULL;
                const char *k = p + 1, *kend = json_skip_value(p);
                if (kend > end || kend - 1 <= k)
                        return NULL;
                bool match = (size_t)(kend - 1 - k) == kl && strncasecmp(k, key, kl) == 0;
                p = json_ws(kend);
                if (*p != ':')
                        return NULL;
                p = json_ws(p + 1);
                if (match)
                        return p;
                p = json_ws(json_skip_value(p));
                if (*p != ',')
                        return NULL;
                p++;
        }
        return NULL;
}

static int json_limit_number(const char *p, uint64_t *ret) {
        if (!p)
                return 0;   /* missing: docker uses 0 */
        if (p[0] == '-') {
                if (p[1] == '1' && !isdigit((unsigned char)p[2])) {
                        *ret = SIZE_INFINITY;
                        return 0;
                }
                return -EINVAL;
        }
        const char *end;
        uint64_t v;
        int r = parse_u64_prefix(p, &v, &end);
        if (r < 0)
                return r;
        if (*end == '.' || *end == 'e' || *end == 'E')
                return -EINVAL;
        *ret = v;
        return 0;
}

int doctor_docker_memlock(const char *json, uint64_t *ret_soft, uint64_t *ret_hard) {
        const char *end, *ul, *ml;
        uint64_t soft = 0, hard = 0;

        if (!json)
                return 0;
        end = json + strlen(json);
        ul = json_member(json, end, "default-ulimits");
        if (!ul || *ul != '{')
                return 0;
        ml = json_member(ul, json_skip_value(ul), "memlock");
        if (!ml)
                return 0;
        if (*ml != '{')
                return -EINVAL;
        const char *mend = json_skip_value(ml);
        if (json_limit_number(json_member(ml, mend, "Soft"), &soft) < 0 ||
            json_limit_number(json_member(ml, mend, "Hard"), &hard) < 0)
                return -EINVAL;
        *ret_soft = soft;
        *ret_hard = hard;
        return 1;
}

/* ------------------------------------------------------------------------------------ */
/* docker */

static int docker_report(struct doc *d, const char *abs, uint64_t soft, uint64_t hard) {
        _cleanup_free_ char *why = NULL, *fix = NULL;
        char pair[PAIR_MAX];
        enum diag_severity lvl;

        if (below_max(d, soft, hard, &lvl, &why) < 0 ||
            !(fix = strf("set \"Hard\": -1, \"Soft\": -1 (or the bytes needed) for memlock in %s and restart docker, "
                         "or docker run --ulimit memlock=-1:-1",
                         disp(d, abs))))
                return -ENOMEM;
        bool zero = soft == 0 || hard == 0;
        if (zero)
                lvl = DIAG_WARNING;
        ADD(d, DOCTOR_CONTAINERS, lvl, disp(d, abs), lvl == DIAG_OK ? NULL : fix,
            "docker: containers start with memlock %s (default-ulimits)%s%s", fmt_pair(soft, hard, pair), why,
            zero                ? ": 0 breaks every RDMA memory registration"
            : lvl == DIAG_OK ? ""
                               : "; no login inside a container goes above its hard limit");
        return 0;
}

/* daemon.json's default-ulimits; *ret_has: it sets memlock for every container. */
static int docker_daemon_json(struct doc *d, bool *ret_has) {
        const char *abs = "/etc/docker/daemon.json";
        _cleanup_free_ char *text = NULL;
        uint64_t soft = 0, hard = 0;
        int r;

        r = read_rooted(d, abs, &text);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                if (exists_rooted(d, "/etc/docker", true))
                        ADD(d, DOCTOR_CONTAINERS, DIAG_INFO, disp(d, abs),
                            "docker run --ulimit memlock=-1:-1 ..., or set \"default-ulimits\" in daemon.json",
                            "docker: no daemon.json: containers get dockerd's own memlock (LimitMEMLOCK= of "
                            "docker.service, else DefaultLimitMEMLOCK)");
                return 0;
        }
        r = doctor_docker_memlock(text, &soft, &hard);
        if (r == 0)
                ADD(d, DOCTOR_CONTAINERS, DIAG_INFO, disp(d, abs),
                    "docker run --ulimit memlock=-1:-1 ..., or add \"default-ulimits\": {\"memlock\": {\"Name\": "
                    "\"memlock\", \"Hard\": -1, \"Soft\": -1}}",
                    "docker: no default-ulimits memlock: containers get dockerd's own memlock (LimitMEMLOCK= of "
                    "docker.service, else DefaultLimitMEMLOCK)");
        else if (r < 0)
                ADD(d, DOCTOR_CONTAINERS, DIAG_WARNING, disp(d, abs),
                    "write \"memlock\": {\"Name\": \"memlock\", \"Hard\": BYTES, \"Soft\": BYTES} (-1: unlimited)",
                    "docker: the default-ulimits memlock entry cannot be read");
        else {
                *ret_has = true;
                return docker_report(d, abs, soft, hard);
        }
        return 0;
}

/* dockerd's own LimitMEMLOCK: what containers get without default-ulimits or --ulimit. */
static int docker_unit(struct doc *d, bool has_default) {
        static const struct daemon_unit dockerd = {
                .unit = "docker.service", .short_name = "docker", .group = DOCTOR_CONTAINERS,
                .inherits = "containers started without --ulimit inherit it (daemon.json sets no default-ulimits "
                            "memlock)",
                .id_low = "dockerd-memlock-low", .id_ok = "dockerd-memlock",
                .fix_why = "; or set default-ulimits memlock in /etc/docker/daemon.json",
        };
        _cleanup_(unit_info_clear) struct unit_info u = {};
        char pair[PAIR_MAX];
        bool found;
        int r;

        if (!has_default)
                return daemon_unit_check(d, &dockerd, &found);
        if ((r = unit_load(d, dockerd.unit, DOCTOR_CONTAINERS, &u)) < 0)
                return r;
        if (u.path)
                r = doctor_add(d->rep, DOCTOR_CONTAINERS, DIAG_INFO, "dockerd-memlock", u.where, NULL,
                               "%s: memlock %s (%s): containers get daemon.json's default-ulimits instead (dockerd "
                               "starts them with CAP_SYS_RESOURCE)",
                               u.name, fmt_pair(u.soft, u.hard, pair), u.src);
        return r;
}

int check_docker(struct doc *d) {
        bool has_default = false;
        int r = docker_daemon_json(d, &has_default);
        return r < 0 ? r : docker_unit(d, has_default);
}

/* ------------------------------------------------------------------------------------ */
/* podman: containers.conf default_ulimits */

/* The files podman reads, in order: each later one overrides what the earlier ones set. */
static int podman_files(struct doc *d, struct strv *ret) {
        static const char *const mains[] = { "/usr/share/containers/containers.conf", "/etc/containers/containers.conf" };
        int r = 0;

        for (size_t i = 0; i < ELEMENTSOF(mains) && r >= 0; i++) {
                _cleanup_free_ char *dir = strf("%s.d", mains[i]);
                _cleanup_(strv_clear) struct strv drop = {};
                if (!dir)
                        return -ENOMEM;
                if (exists_rooted(d, mains[i], false))
                        r = strv_push(ret, mains[i]);
                if (r >= 0)
                        r = list_dir(d, dir, "*.conf", &drop);
                for (size_t k = 0; k < drop.n && r >= 0; k++)
                        r = strv_consume(ret, strf("%s/%s", dir, drop.v[k]));
        }
        return r;
}

/* A memlock ulimit "memlock=SOFT[:HARD]" (bytes, -1 unlimited) as docker and podman write it. */
static int ulimit_parse(const char *v, uint64_t *ret_soft, uint64_t *ret_hard) {
        _cleanup_free_ char *copy = strdup(v);
        uint64_t x[2];
        if (!copy)
                return -ENOMEM;
        char *colon = strchr(copy, ':'), *parts[2] = { copy, colon ? colon + 1 : copy };
        if (colon)
                *colon = '\0';
        for (int i = 0; i < 2; i++)
                if (streq(parts[i], "-1"))
                        x[i] = SIZE_INFINITY;
                else if (parse_u64(parts[i], &x[i]) < 0)
                        return -EINVAL;
        if (x[0] > x[1])
                return -EINVAL;
        *ret_soft = x[0];
        *ret_hard = x[1];
        return 0;
}

struct podman_ulimit {
        bool set;                 /* a default_ulimits array was read (the last one wins) */
        bool memlock, bad;        /* it has a memlock entry; that entry cannot be read */
        uint64_t soft, hard;
        char *where;              /* file:line of the array */
};

/* The strings of a TOML array that starts at p (after '='); lines are joined by the caller. */
static int podman_array(char *p, struct podman_ulimit *u) {
        u->memlock = u->bad = false;
        for (char *q = strchr(p, '"'); q; q = strchr(q, '"')) {
                char *end = strchr(q + 1, '"');
                if (!end)
                        break;
                *end = '\0';
                if (strncmp(q + 1, "memlock=", 8) == 0) {
                        u->memlock = true;
                        int r = ulimit_parse(q + 9, &u->soft, &u->hard);
                        if (r == -ENOMEM)
                                return r;
                        u->bad = r < 0;
                }
                q = end + 1;
        }
        return 0;
}

/* One containers.conf: default_ulimits in its [containers] table (the array may span lines). */
static int podman_scan(struct doc *d, const char *abs, struct podman_ulimit *u) {
        _cleanup_free_ char *text = NULL;
        bool in_containers = false;
        unsigned lineno = 0;
        int r = read_rooted(d, abs, &text);

        if (r < 0)
                return r == -ENOMEM ? r : 0;
        for (const char *line = text, *next; line && *line; line = next) {
                const char *nl = strchr(line, '\n'), *p = line;
                next = nl ? nl + 1 : NULL;
                lineno++;
                while (*p == ' ' || *p == '\t')
                        p++;
                if (*p == '[') {
                        in_containers = strncmp(p, "[containers]", 12) == 0;
                        continue;
                }
                const char *eq = nl ? memchr(p, '=', (size_t)(nl - p)) : strchr(p, '=');
                if (!in_containers || strncmp(p, "default_ulimits", 15) != 0 || !eq)
                        continue;
                const char *close = strchr(eq, ']');
                _cleanup_free_ char *arr = close ? strndup(eq + 1, (size_t)(close - eq - 1)) : strdup(eq + 1);
                free(u->where);
                if (!arr || !(u->where = strf("%s:%u", disp(d, abs), lineno)))
                        return -ENOMEM;
                u->set = true;
                if ((r = podman_array(arr, u)) < 0)
                        return r;
                /* go on after the line that closes the array */
                if (!close)
                        break;
                for (const char *q = line; q < close; q++)
                        lineno += *q == '\n';
                next = strchr(close, '\n');
                if (next)
                        next++;
        }
        return 0;
}

static int podman_report(struct doc *d, const struct podman_ulimit *u, const char *fix) {
        _cleanup_free_ char *why = NULL;
        char pair[PAIR_MAX];
        enum diag_severity lvl;

        if (!u->memlock)
                return doctor_add(d->rep, DOCTOR_CONTAINERS, DIAG_INFO, "podman-no-default-ulimits",
                                  u->where, fix,
                                  "podman: no memlock in containers.conf's default_ulimits: "
                                  "containers get the memlock of the process that runs podman (the "
                                  "user's session, or the unit that starts it)");
        if (u->bad)
                return doctor_add(d->rep, DOCTOR_CONTAINERS, DIAG_WARNING,
                                  "podman-default-ulimits-bad", u->where,
                                  "write \"memlock=SOFT:HARD\" in bytes (-1: unlimited)",
                                  "podman: the memlock entry of default_ulimits cannot be read");
        if (below_max(d, u->soft, u->hard, &lvl, &why) < 0)
                return -ENOMEM;
        bool zero = u->soft == 0 || u->hard == 0;
        ADD_ID(d, DOCTOR_CONTAINERS, zero ? DIAG_WARNING : lvl, lvl == DIAG_OK && !zero ? "podman-default-ulimits"
                                                                                       : "podman-default-ulimits-low",
               u->where, lvl == DIAG_OK && !zero ? NULL : fix,
               "podman: containers start with memlock %s (default_ulimits)%s%s", fmt_pair(u->soft, u->hard, pair),
               why,
               zero                 ? ": 0 breaks every RDMA memory registration"
               : lvl == DIAG_OK ? "; rootless podman cannot go above the hard limit of the user running it"
                                  : "");
        return 0;
}

int check_podman(struct doc *d) {
        _cleanup_(strv_clear) struct strv files = {};
        struct podman_ulimit u = {};
        int r = podman_files(d, &files);

        for (size_t i = 0; i < files.n && r >= 0; i++)
                r = podman_scan(d, files.v[i], &u);
        if (r >= 0 && !u.where && (files.n || exists_rooted(d, "/usr/bin/podman", false)) &&
            !(u.where = strdup(files.n ? disp(d, files.v[files.n - 1]) : disp(d, "/usr/bin/podman"))))
                r = -ENOMEM;
        if (r >= 0 && u.where)
                r = podman_report(d, &u,
                                  "add default_ulimits = [ \"memlock=-1:-1\" ] (bytes, -1: unlimited) to the [containers] "
                                  "table of /etc/containers/containers.conf (or a containers.conf.d drop-in), or podman "
                                  "run --ulimit memlock=-1:-1");
        free(u.where);
        return r;
}

/* ------------------------------------------------------------------------------------ */
/* the container doctor runs in */

/* What says this is a container (a heap string), or NULL in *ret. */
static int container_evidence(struct doc *d, char **ret) {
        _cleanup_free_ char *text = NULL;
        int r;

        *ret = NULL;
        static const char *const markers[] = { "/.dockerenv", "/run/.containerenv" };
        for (size_t i = 0; i < ELEMENTSOF(markers); i++)
                if (exists_rooted(d, markers[i], false))
                        return (*ret = strdup(disp(d, markers[i]))) ? 0 : -ENOMEM;
        if ((r = read_rooted(d, "/run/systemd/container", &text)) >= 0) {
                text[strcspn(text, "\n")] = '\0';
                return (*ret = strf("%s says %s", disp(d, "/run/systemd/container"), text)) ? 0 : -ENOMEM;
        }
        if (r == -ENOMEM)
                return r;
        if (d->in->root || read_text("/proc/1/cgroup", &text) < 0)
                return 0;
        static const char *const words[] = { "docker", "kubepods", "lxc", "containerd", "libpod" };
        for (size_t i = 0; i < ELEMENTSOF(words); i++)
                if (strstr(text, words[i]))
                        return (*ret = strf("/proc/1/cgroup names %s", words[i])) ? 0 : -ENOMEM;
        return 0;
}

/* The hard memlock of PID 1 and of doctor: what nothing started from either can exceed. */
struct hard_limits {
        bool p1, own;
        uint64_t h1, own_hard, max;
};

static void hard_limits_read(struct hard_limits *h) {
        struct lc_rl rl1[RLIM_NLIMITS] = {};
        struct rlimit rl;

        *h = (struct hard_limits){};
        /* this host's PID 1, through the one reader of its limits */
        h->p1 = lc_proc1_limits(NULL, NULL, rl1) >= 0 && rl1[RLIMIT_MEMLOCK].known;
        h->h1 = rl1[RLIMIT_MEMLOCK].hard;
        h->own = getrlimit(RLIMIT_MEMLOCK, &rl) == 0;
        if (h->own)
                h->own_hard = rl.rlim_max;
        h->max = h->p1 ? h->h1 : 0;
        if (h->own && h->own_hard > h->max)
                h->max = h->own_hard;
}

/* The configuration asks for a hard limit no process here can get. */
static int container_hard_unreachable(struct doc *d, const struct hard_limits *h) {
        _cleanup_free_ char *fix = NULL, *t1 = NULL;
        char arg[32] = "-1", pair[SIZE_FMT_MAX];

        if (!(h->p1 || h->own) || !d->max.hard_known || d->max.hard <= h->max)
                return 0;
        if (d->max.hard != SIZE_INFINITY)
                snprintf(arg, sizeof arg, "%llu", (unsigned long long)d->max.hard);
        if (!(fix = strf("start the container with --ulimit memlock=%s:%s (bytes; -1 is unlimited), or with "
                         "--cap-add SYS_RESOURCE",
                         arg, arg)) ||
            !(t1 = target_text(&d->max, true)))
                return -ENOMEM;
        ADD(d, DOCTOR_CONTAINERS, DIAG_ERROR, "/proc/self/status CapBnd", fix,
            "the configuration gives up to %s, but the hard memlock here is %s and cannot be raised without "
            "CAP_SYS_RESOURCE: sessions silently keep %s (Debian's pam_limits ignores EPERM)",
            t1, size_format(h->max, pair), pair);
        return 0;
}

static int container_sys_resource(struct doc *d, bool sys_resource, bool userns) {
        _cleanup_free_ char *hards = NULL;
        struct hard_limits h;
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];

        if (sys_resource)
                return doctor_add(d->rep, DOCTOR_CONTAINERS, DIAG_OK, NULL,
                                  "/proc/self/status CapBnd", NULL,
                                  "CAP_SYS_RESOURCE is in the capability bounding set: services "
                                  "running as root can raise hard limits");
        hard_limits_read(&h);
        hards = h.p1 && h.own ? strf(" (PID 1: hard %s; this process: hard %s)", size_format(h.h1, a),
                                     size_format(h.own_hard, b))
                : h.own       ? strf(" (this process: hard %s)", size_format(h.own_hard, b))
                              : strdup("");
        if (!hards)
                return -ENOMEM;
        if (userns)
                ADD(d, DOCTOR_CONTAINERS, DIAG_WARNING, "/proc/self/uid_map",
                    "on the host: start the container with the memlock it needs (--ulimit memlock=..., the "
                    "runtime's LimitMEMLOCK=): capabilities inside a user namespace do not raise it",
                    "this runs in a user namespace (a rootless or user-namespaced container, unshare -r): the "
                    "kernel checks CAP_SYS_RESOURCE and CAP_IPC_LOCK in the host's, so no process here, not even "
                    "sshd as root with every capability, can raise a hard limit or lock past RLIMIT_MEMLOCK; "
                    "sessions stay within the hard memlock services start with%s",
                    hards);
        else
                ADD(d, DOCTOR_CONTAINERS, DIAG_WARNING, "/proc/self/status CapBnd",
                    d->in_container ? "on the host: docker run --ulimit memlock=-1:-1 (or the bytes needed), or "
                                      "--cap-add SYS_RESOURCE; or LimitMEMLOCK=infinity for the container runtime's "
                                      "service"
                                    : "give the login services back CAP_SYS_RESOURCE (CapabilityBoundingSet= of their "
                                      "units, the parent that dropped it), or start them with the memlock they need",
                    "CAP_SYS_RESOURCE is not in the capability bounding set: no process here, not even sshd as root, "
                    "can raise a hard limit; sessions stay within the hard memlock services start with%s",
                    hards);
        return container_hard_unreachable(d, &h);
}

/* The capability bounding set of this process: what any process here can ever have. */
static int container_caps(struct doc *d) {
        _cleanup_free_ char *status = NULL;
        int r;

        if ((r = read_text("/proc/self/status", &status)) < 0)
                return r == -ENOMEM ? r : 0;
        /* capabilities count for memlock only in the initial user namespace */
        bool userns = !proc_in_initial_userns(getpid());
        if ((r = container_sys_resource(d, !userns && proc_field_cap(status, "CapBnd", CAP_SYS_RESOURCE_BIT), userns)) < 0)
                return r;
        if (userns)
                ADD(d, DOCTOR_CONTAINERS, DIAG_INFO, "/proc/self/uid_map", NULL,
                    "CAP_IPC_LOCK in this user namespace exempts nothing: every locked or pinned page counts "
                    "against RLIMIT_MEMLOCK, even root's");
        else if (proc_field_cap(status, "CapBnd", CAP_IPC_LOCK_BIT))
                ADD(d, DOCTOR_CONTAINERS, DIAG_OK, "/proc/self/status CapBnd", NULL,
                    "CAP_IPC_LOCK is in the capability bounding set");
        else
                ADD(d, DOCTOR_CONTAINERS, DIAG_INFO, "/proc/self/status CapBnd", NULL,
                    "CAP_IPC_LOCK is not in the capability bounding set: every pinned page counts against "
                    "RLIMIT_MEMLOCK, even root's");
        return 0;
}

int check_container(struct doc *d) {
        _cleanup_free_ char *evidence = NULL;
        int r = container_evidence(d, &evidence);

        if (r < 0)
                return r;
        d->in_container = evidence;
        if (evidence)
                ADD(d, DOCTOR_CONTAINERS, DIAG_INFO, evidence, NULL,
                    "inside a container: the host decides its memlock (docker --ulimit, the runtime's LimitMEMLOCK=) "
                    "and its capabilities");
        else
                ADD(d, DOCTOR_CONTAINERS, DIAG_OK, NULL, NULL,
                    "not inside a container (no .dockerenv, run/.containerenv or run/systemd/container%s)",
                    d->in->root ? "" : "; /proc/1/cgroup plain");
        return d->in->root ? 0 : container_caps(d);
}
