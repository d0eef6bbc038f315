/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model-session FLAVOUR USER [MODULE-ARGS [VENDORDIR|none [ROOT]]]
 *
 * The limits model's prediction of the session pam-session opens: lc_tree_load_args(),
 * lc_baseline_load(), lc_resolve() and lc_session_outcome() with this process as the
 * service (its own limits after PAM_SESSION_MEMLOCK=SOFT:HARD, its CAP_SYS_RESOURCE,
 * fs.nr_open).  Prints one line:
 *
 *     session=<limits|no-limits|fails|refused> soft=<n|unlimited|?> hard=<...> cause=<text>
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "ident.h"
#include "limitsconf.h"

static int parse_u64(const char *s, const char *end, uint64_t *ret) {
        uint64_t v = 0;
        if ((size_t)(end - s) == 9 && strncmp(s, "unlimited", 9) == 0) {
                *ret = UINT64_MAX;
                return 0;
        }
        if (s == end)
                return -1;
        for (const char *p = s; p < end; p++) {
                if (*p < '0' || *p > '9')
                        return -1;
                v = v * 10 + (uint64_t)(*p - '0');
        }
        *ret = v;
        return 0;
}

static int set_start(const char *spec) {
        const char *colon = strchr(spec, ':');
        uint64_t s, h;
        if (!colon || parse_u64(spec, colon, &s) < 0 || parse_u64(colon + 1, colon + 1 + strlen(colon + 1), &h) < 0)
                return -1;
        struct rlimit rl = { .rlim_cur = s == UINT64_MAX ? RLIM_INFINITY : s, .rlim_max = h == UINT64_MAX ? RLIM_INFINITY : h };
        return setrlimit(RLIMIT_MEMLOCK, &rl);
}

static void service_self(struct lc_service *svc) {
        FILE *f;
        char line[256];

        *svc = (struct lc_service){ .known = true };
        snprintf(svc->source, sizeof svc->source, "model-session (this process)");
        for (int i = 0; i < RLIM_NLIMITS; i++) {
                struct rlimit rl;
                if (getrlimit(i, &rl) < 0)
                        continue;
                svc->rl[i].known = true;
                svc->rl[i].soft = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : rl.rlim_cur;
                svc->rl[i].hard = rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : rl.rlim_max;
        }
        if ((f = fopen("/proc/self/status", "re"))) {
                while (fgets(line, sizeof line, f))
                        if (strncmp(line, "CapEff:", 7) == 0)
                                svc->cap_sys_resource = (strtoull(line + 7, NULL, 16) >> 24) & 1;
                fclose(f);
        }
        if ((f = fopen("/proc/sys/fs/nr_open", "re"))) {
                if (fgets(line, sizeof line, f))
                        svc->nr_open = strtoull(line, NULL, 10);
                fclose(f);
        }
}

static const char *val(bool known, uint64_t v, char *buf, size_t size) {
        if (!known)
                return "?";
        if (v == UINT64_MAX)
                return "unlimited";
        snprintf(buf, size, "%llu", (unsigned long long)v);
        return buf;
}

/* PAM_SESSION_RLIMITS="nofile=S:H,nproc=S:H": more of the service's own limits */
static int set_more_limits(const char *spec) {
        static const struct { const char *name; int res; } names[] = {
                { "nofile", RLIMIT_NOFILE }, { "nproc", RLIMIT_NPROC }, { "nice", RLIMIT_NICE },
                { "rtprio", RLIMIT_RTPRIO }, { "msgqueue", RLIMIT_MSGQUEUE }, { "sigpending", RLIMIT_SIGPENDING },
                { "core", RLIMIT_CORE }, { "locks", RLIMIT_LOCKS },
        };
        char buf[512];
        snprintf(buf, sizeof buf, "%s", spec);
        for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                char *eq = strchr(w, '='), *colon = eq ? strchr(eq, ':') : NULL;
                int res = -1;
                if (!colon)
                        return -1;
                *eq = '\0';
                for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
                        if (strcmp(names[i].name, w) == 0)
                                res = names[i].res;
                struct rlimit rl;
                unsigned long long s = strtoull(eq + 1, NULL, 10), h = strtoull(colon + 1, NULL, 10);
                rl.rlim_cur = strncmp(eq + 1, "unlimited", 9) == 0 ? RLIM_INFINITY : (rlim_t)s;
                rl.rlim_max = strncmp(colon + 1, "unlimited", 9) == 0 ? RLIM_INFINITY : (rlim_t)h;
                if (res < 0 || setrlimit(res, &rl) < 0)
                        return -1;
        }
        return 0;
}

int main(int argc, char **argv) {
        static const char *const kinds[] = { "limits", "no-limits", "fails", "refused" };
        struct lc_tree *t = NULL;
        struct ident *id = NULL;
        struct lc_baseline base;
        struct lc_result res;
        struct lc_service svc;
        struct lc_session s;
        struct lc_args args;
        enum lc_flavour fl;
        char b1[32], b2[32];

        if (argc < 3 || argc > 6) {
                fprintf(stderr, "usage: %s FLAVOUR USER [MODULE-ARGS [VENDORDIR|none [ROOT]]]\n", argv[0]);
                return 2;
        }
        const char *root = argc > 5 ? argv[5] : NULL;
        if (lc_flavour_from_string(argv[1], &fl) < 0 || lc_args_parse(argc > 3 ? argv[3] : "", &args) < 0) {
                fprintf(stderr, "model-session: bad flavour or arguments\n");
                return 2;
        }
        if (argc > 4 && strcmp(argv[4], "none") == 0)
                args.vendor = LC_VENDOR_NONE;
        else if (argc > 4 && argv[4][0]) {
                args.vendor = LC_VENDOR_DIR;
                snprintf(args.vendordir, sizeof args.vendordir, "%s", argv[4]);
        }
        const char *start = getenv("PAM_SESSION_MEMLOCK");
        if (start && set_start(start) < 0) {
                fprintf(stderr, "model-session: bad PAM_SESSION_MEMLOCK '%s'\n", start);
                return 1;
        }
        const char *more = getenv("PAM_SESSION_RLIMITS");
        if (more && set_more_limits(more) < 0) {
                fprintf(stderr, "model-session: bad PAM_SESSION_RLIMITS '%s'\n", more);
                return 1;
        }
        service_self(&svc);
        if (lc_tree_load_args(root, fl, &args, &t) < 0 || ident_new(root, &id) < 0 ||
            lc_baseline_load(t, NULL, &base) < 0 || lc_resolve(t, id, argv[2], &base, &res) < 0 ||
            lc_session_outcome(t, &res, &svc, &s) < 0) {
                fprintf(stderr, "model-session: the model failed\n");
                return 1;
        }
        printf("session=%s soft=%s hard=%s flavour=%s cause=%s\n", kinds[s.kind],
               val(s.memlock_known, s.memlock_soft, b1, sizeof b1), val(s.memlock_known, s.memlock_hard, b2, sizeof b2),
               lc_tree_flavour_name(t), s.cause);
        lc_result_clear(&res);
        ident_free(id);
        lc_tree_free(t);
        return fflush(stdout) == 0 ? 0 : 1;
}
