/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model-session FLAVOUR USER [MODULE-ARGS [VENDORDIR|none [ROOT]]]
 *
 * The limits model's prediction of the session pam-session opens: lc_tree_load_args(),
 * lc_baseline_load(), lc_resolve() and lc_session_outcome() with this process as the
 * service: its own limits after PAM_SESSION_MEMLOCK and PAM_SESSION_RLIMITS (set as
 * pam-session sets them, service-limits.h), its CAP_SYS_RESOURCE, fs.nr_open.  Prints one
 * line:
 *
 *     session=<limits|no-limits|fails|refused> soft=<n|unlimited|?> hard=<...> cause=<text>
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "ident-files.h"
#include "ident.h"
#include "limitsconf.h"
#include "service-limits.h"

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
        return known ? rlim_text(v == UINT64_MAX ? RLIM_INFINITY : (rlim_t)v, buf, size) : "?";
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
        char b1[32], b2[32], name[LC_FLAVOUR_NAME_MAX];

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
        if (service_limits_from_env("model-session") < 0)
                return 1;
        service_self(&svc);
        if (lc_tree_load_args(root, fl, &args, &t) < 0 || ident_new(root, &id) < 0 ||
            lc_baseline_load(t, NULL, &base) < 0 || lc_resolve(t, id, argv[2], &base, &res) < 0 ||
            lc_session_outcome(t, &res, &svc, &s) < 0) {
                fprintf(stderr, "model-session: the model failed\n");
                return 1;
        }
        printf("session=%s soft=%s hard=%s flavour=%s cause=%s\n", kinds[s.kind],
               val(s.memlock_known, s.memlock_soft, b1, sizeof b1), val(s.memlock_known, s.memlock_hard, b2, sizeof b2),
               lc_flavour_to_string(t->release, name), s.cause);
        lc_result_clear(&res);
        ident_free(id);
        lc_tree_free(t);
        return fflush(stdout) == 0 ? 0 : 1;
}
