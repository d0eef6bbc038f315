/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pam-session SERVICE USER CONFDIR
 *
 * Opens a PAM session of USER with the stack CONFDIR/SERVICE (pam_start_confdir, so the
 * host's /etc/pam.d is never read) and prints one line:
 *
 *     rc=<PAM return code of pam_open_session> soft=<n|unlimited> hard=<n|unlimited>
 *
 * where soft and hard are this process's RLIMIT_MEMLOCK in bytes right after
 * pam_open_session returned: what the real modules of the stack (pam_limits.so) did to it.
 * With PAM_SESSION_MEMLOCK=SOFT:HARD (bytes or "unlimited") in the environment it first
 * sets its own RLIMIT_MEMLOCK to that, with PAM_SESSION_RLIMITS its other limits
 * (service-limits.h): the limits of the service that opens the session.
 * Exit status: 0 when the line was printed (whatever rc is), 2 on a usage error, 1 when
 * the PAM handle could not even be set up.
 */
#include "config.h"

#include <stdio.h>
#include <sys/resource.h>

#include <security/pam_appl.h>

#include "../lib/pam-driver.h"
#include "service-limits.h"

/* Messages of the modules (pam_error, pam_info) go to stderr; nobody answers prompts. */
static int conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data) {
        (void)data;
        for (int i = 0; i < n; i++) {
                switch (msg[i]->msg_style) {
                case PAM_ERROR_MSG:
                case PAM_TEXT_INFO:
                        fprintf(stderr, "pam-session: module says: %s\n", msg[i]->msg ? msg[i]->msg : "");
                        break;
                default:
                        return PAM_CONV_ERR;
                }
        }
        *resp = NULL;
        return PAM_SUCCESS;
}

int main(int argc, char **argv) {
        struct pam_conv c = { conv, NULL };
        pam_handle_t *h = NULL;
        struct rlimit rl;
        char b1[32], b2[32], b3[32];
        int rc;

        if (argc != 4) {
                fprintf(stderr, "usage: %s SERVICE USER CONFDIR\n", argv[0]);
                return 2;
        }
        if (service_limits_from_env("pam-session") < 0)
                return 1;
        rc = pam_start_confdir(argv[1], argv[2], &c, argv[3], &h);
        if (rc != PAM_SUCCESS) {
                fprintf(stderr, "pam-session: pam_start_confdir: %s\n", pam_rc_text(rc, b1));
                return 1;
        }
        rc = pam_open_session(h, 0);
        if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0) {
                perror("pam-session: getrlimit");
                pam_end(h, rc);
                return 1;
        }
        printf("rc=%s soft=%s hard=%s\n", pam_rc_text(rc, b1), rlim_text(rl.rlim_cur, b2, sizeof b2),
               rlim_text(rl.rlim_max, b3, sizeof b3));
        if (rc == PAM_SUCCESS)
                (void)pam_close_session(h, 0);
        pam_end(h, rc);
        return fflush(stdout) == 0 ? 0 : 1;
}
