/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * doctor, sshd: UsePAM in sshd_config and the files it includes, read by the one reader
 * (lib/host/sshdconf.h) through the session engine's choice of configuration (that of the
 * running sshd: session_sshd_conf()), so that doctor and explain give one answer.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "doctor-internal.h"
#include "session.h"
#include "sshdconf.h"
#include "visit.h"
#include "fsutil.h"

static int sshd_report(struct doc *d, const char *cfg, const struct sshd_conf *s) {
        _cleanup_free_ char *fix = NULL;

        if (s->set && s->value)
                ADD(d, DOCTOR_SSH, DIAG_OK, s->where, NULL, "sshd: UsePAM yes");
        else if (s->set) {
                char buf[1024];
                session_pam_fix(s->where, buf, sizeof buf);
                if (!(fix = strdup(buf)))
                        return -ENOMEM;
                ADD(d, DOCTOR_SSH, DIAG_ERROR, s->where, fix,
                    "sshd: UsePAM no: sshd opens no PAM session, so neither pam_limits nor pam_rdmalimit runs for "
                    "ssh logins");
        } else {
                if (!(fix = strf("add 'UsePAM yes' to %s, then restart sshd (systemctl restart ssh)", disp(d, cfg))))
                        return -ENOMEM;
                ADD(d, DOCTOR_SSH, DIAG_ERROR, disp(d, cfg), fix,
                    "sshd: UsePAM is not set: OpenSSH's built-in default is no, so ssh logins get no PAM session "
                    "and no limits");
        }
        if (s->ignored)
                ADD(d, DOCTOR_SSH, DIAG_INFO, s->ignored_where, NULL,
                    "sshd: this 'UsePAM %s' is ignored: the first value (%s) wins", s->ignored_value ? "yes" : "no",
                    s->where);
        if (s->match_where)
                ADD(d, DOCTOR_SSH, DIAG_WARNING, s->match_where, "move UsePAM out of the Match block",
                    "sshd: UsePAM inside a Match block is not allowed: sshd refuses the configuration");
        if (s->deep_where)
                ADD(d, DOCTOR_SSH, DIAG_ERROR, s->deep_where, "include the files from a shallower level",
                    "sshd: this Include goes more than 16 levels deep: sshd refuses the configuration ('Too many "
                    "recursive configuration includes') and does not start");
        if (s->bad_where)
                ADD(d, DOCTOR_SSH, DIAG_ERROR, s->bad_where, "write 'UsePAM yes'",
                    "sshd: UsePAM takes yes or no: sshd refuses the configuration and does not start");
        return 0;
}

/* A cycle keeps sshd from starting; past the walk's bound, only the first UsePAM read counts. */
static int sshd_walk_report(struct doc *d, const struct sshd_conf *s) {
        return walk_finding(d, DOCTOR_SSH, "sshd-include-cycle", "sshd-include-bound", DIAG_WARNING, s->walk.error, s->walk.where, "Include",
                            "doctor reads no more of sshd_config", "sshd",
                            "sshd refuses such a configuration ('Too many recursive configuration includes', as "
                            "sshd -t says): it does not start");
}

int check_sshd_config(struct doc *d) {
        _cleanup_(sshd_conf_clear) struct sshd_conf s = {};
        int r = session_sshd_conf(d->in->root, 0, &s);

        if (r < 0)
                return r;
        const char *cfg = s.path;
        if (s.walk.error == VISIT_ERR_CYCLE || s.walk.error == VISIT_ERR_BUDGET) {
                r = sshd_walk_report(d, &s);
                return r < 0 || s.walk.error == VISIT_ERR_CYCLE || !s.set ? r : sshd_report(d, cfg, &s);
        }
        if (s.error == -ENOENT && !s.set && !exists_rooted(d, "/etc/pam.d/sshd", false))
                return 0;
        if (s.error == -ENOENT && !s.set)
                return doctor_add(d->rep, DOCTOR_SSH, DIAG_INFO, NULL, disp(d, cfg), NULL,
                                  "sshd: %s does not exist: OpenSSH server not installed?",
                                  disp(d, cfg));
        if (s.error && !s.set)
                return doctor_add(d->rep, DOCTOR_SSH, DIAG_WARNING, NULL, disp(d, cfg), NULL,
                                  "sshd: cannot read %s (%s)", disp(d, cfg), errno_text(s.error));
        return sshd_report(d, cfg, &s);
}
