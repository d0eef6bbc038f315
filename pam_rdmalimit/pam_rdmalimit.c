/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pam_rdmalimit: set RLIMIT_MEMLOCK at session open from the policy in
 * /etc/security/rdmalimit.conf, the user's groups (NSS) and the RDMA/AF_XDP hardware.
 *
 * Thin glue: arguments -> lib/login/apply.c (the decision and the setrlimit spank_rdmalimit
 * shares) -> pam_syslog and pam_info.  Errors inside are negative errno; PAM codes appear only
 * in pam_sm_open_session().  No mutable static state.
 *
 * Trust (pam_rdmalimit(8), THREAT MODEL): this runs as root inside su, sudo, sshd and login,
 * where the environment is the caller's.  It reads no environment variable, loads no library
 * that does (never libibverbs or an RDMA provider: ports come from sysfs, the ibverbs
 * attributes from the cache `rdmalimits probe --save` writes), opens only root-owned files it
 * checks (the policy, the cache) and the kernel's (sysfs, /proc, netlink), and escapes every
 * byte of user data (the login name, names from NSS) before it reaches the log or the user.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "apply.h"
#include "escape.h"
#include "hwcache.h"
#include "macro.h"
#include "policy.h"
#include "size.h"

#define PUBLIC __attribute__((visibility("default")))

static void parse_args(pam_handle_t *pamh, int argc, const char **argv, struct login_args *a) {
        login_args_init(a);
        for (int i = 0; i < argc; i++)
                if (!login_arg(a, argv[i])) {
                        char e[ESCAPE_NAME_MAX];
                        pam_syslog(pamh, LOG_ERR, "unknown option: %s, ignoring", str_escape(argv[i], e, sizeof e));
                }
}

static void pam_log(void *data, int prio, const char *fmt, va_list ap) {
        pam_vsyslog(data, prio, fmt, ap);
}

/* the end of the shortfall warning: the service that cannot raise its hard limit, the fix */
static void pam_cause(void *data, const char *got_hard, const char *fix, char *buf, size_t size) {
        const char *service = NULL;
        char esvc[ESCAPE_NAME_MAX];
        (void)pam_get_item(data, PAM_SERVICE, (const void **)&service);
        str_escape(service ? service : "?", esvc, sizeof esvc);
        snprintf(buf, size, "the service (%s, pid %d) cannot raise its hard memlock limit above %s "
                 "(it lacks CAP_SYS_RESOURCE); fix: give the service LimitMEMLOCK=%s "
                 "(rdmalimits apply --unit <its unit>), or run it with a higher hard limit",
                 esvc, (int)getpid(), got_hard, fix);
}

/* A shortfall, told to the user once through the conversation (unless quiet). */
static void tell_user(pam_handle_t *pamh, const struct login_decision *d, const struct login_applied *a) {
        char esvc[ESCAPE_NAME_MAX], text[2 * ESCAPE_NAME_MAX + 128];
        const char *service = NULL;
        (void)pam_get_item(pamh, PAM_SERVICE, (const void **)&service);
        if (service)
                str_escape(service, esvc, sizeof esvc);
        pam_info(pamh, "%s", login_shortfall_text(d, a, service ? esvc : "this service", text, sizeof text));
}

static int session_open(pam_handle_t *pamh, const struct login_args *a, const char *user, enum login_outcome *ret_out) {
        const struct login_front f = { .log = pam_log, .cause = pam_cause, .data = pamh };
        const struct login_opts o = { .conf = a->conf, .cache = a->cache, .debug = a->debug };
        struct login_decision d;
        struct login_applied ap;
        int r;

        r = login_decide(&f, &o, user, 0, &d);
        if (r < 0)
                return r;
        if (d.outcome != LOGIN_APPLY) {
                *ret_out = d.outcome;
                return 0;
        }
        r = login_apply(&f, &d, &ap);
        if (r < 0)
                return r;
        if (ap.outcome == LOGIN_PARTIAL && !a->quiet)
                tell_user(pamh, &d, &ap);
        *ret_out = ap.outcome;
        return 0;
}

PUBLIC int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
        struct login_args a;
        const char *user = NULL;
        enum login_outcome out = LOGIN_NO_RULE;
        int r;

        parse_args(pamh, argc, argv, &a);
        /* PAM_SILENT (cron passes it): no message to the user, as with quiet */
        if (flags & PAM_SILENT)
                a.quiet = true;
        r = pam_get_item(pamh, PAM_USER, (const void **)&user);
        if (r != PAM_SUCCESS || !user || !*user) {
                pam_syslog(pamh, LOG_ERR, "cannot determine the user name");
                return a.strict ? PAM_SESSION_ERR : PAM_IGNORE;
        }
        r = session_open(pamh, &a, user, &out);
        if (r < 0)
                return a.strict ? PAM_SESSION_ERR : PAM_IGNORE;
        switch (out) {
        case LOGIN_APPLIED:
        case LOGIN_ALREADY:
        case LOGIN_PARTIAL:
                return PAM_SUCCESS;
        default:
                return PAM_IGNORE;
        }
}

PUBLIC int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
        return PAM_SUCCESS;
}
