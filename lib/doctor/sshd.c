/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * doctor, sshd: UsePAM in sshd_config and the files it includes (the first value sshd reads
 * wins; UsePAM inside a Match block is refused by sshd).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "doctor-internal.h"
#include "visit.h"

/* OpenSSH's own bound (servconf.c SERVCONF_MAX_DEPTH); sshd refuses a deeper configuration
 * with "Too many recursive configuration includes" (OpenSSH 9.2, measured with sshd -t on a
 * file that includes itself), so an include cycle keeps sshd from starting */
#define INCLUDE_DEPTH_MAX 16

struct sshd_scan {
        bool set, value;
        char *where;
        bool ignored;             /* a later UsePAM with another value */
        char *ignored_where;
        bool ignored_value;
        char *match_where;        /* the first UsePAM inside a Match block */
        unsigned depth;           /* of the file being read: 0 is sshd_config */
        bool in_match;            /* in it, after a Match line */
        struct visit walk;        /* sshd_config and the files it includes */
};

static void sshd_scan_clear(struct sshd_scan *s) {
        free(s->where);
        free(s->ignored_where);
        free(s->match_where);
        visit_done(&s->walk);
}

static int sshd_scan_file(struct doc *d, const char *abs, const char *from, struct sshd_scan *s);

/* "Include WORD" at from. */
static int sshd_include(struct doc *d, const char *word, const char *from, struct sshd_scan *s) {
        _cleanup_free_ char *pat = word[0] == '/' ? strdup(word) : strf("/etc/ssh/%s", word);
        _cleanup_(strv_clear) struct strv names = {};
        int r;

        if (!pat)
                return -ENOMEM;
        char *slash = strrchr(pat, '/');
        *slash = '\0';
        /* wildcards in the file name only (what sshd_config.d/ uses) */
        r = list_dir(d, pat[0] ? pat : "/", slash + 1, &names);
        s->depth++;
        for (size_t i = 0; i < names.n && r >= 0; i++) {
                _cleanup_free_ char *p = strf("%s/%s", pat, names.v[i]);
                if (!p)
                        r = -ENOMEM;
                else if (exists_rooted(d, p, false))
                        r = sshd_scan_file(d, p, from, s);
        }
        s->depth--;
        return s->walk.error ? s->walk.error : r;
}

/* Split "Keyword value", "Keyword=value" or "Keyword = value" in place; NULL for a blank or
 * comment line. */
static char *sshd_split(char *line, char **ret_rest) {
        char *p = line;
        while (*p == ' ' || *p == '\t')
                p++;
        if (!*p || *p == '#' || *p == '\r')
                return NULL;
        char *kw = p;
        p += strcspn(p, " \t=\r");
        bool eq = *p == '=';
        if (*p)
                *p++ = '\0';
        while (*p == ' ' || *p == '\t')
                p++;
        if (!eq && *p == '=')   /* "Keyword = value" */
                for (p++; *p == ' ' || *p == '\t'; p++)
                        ;
        *ret_rest = p;
        return kw;
}

/* One UsePAM line at where. */
static int sshd_usepam(char *val, const char *where, struct sshd_scan *s) {
        val[strcspn(val, " \t\r#")] = '\0';
        if (val[0] == '"') {
                val++;
                val[strcspn(val, "\"")] = '\0';
        }
        if (s->in_match)   /* the first one */
                return s->match_where || (s->match_where = strdup(where)) ? 0 : -ENOMEM;
        bool v = strcasecmp(val, "yes") == 0;
        if (!s->set) {
                s->set = true;
                s->value = v;
                return (s->where = strdup(where)) ? 0 : -ENOMEM;
        }
        if (v != s->value && !s->ignored) {
                s->ignored = true;
                s->ignored_value = v;
                return (s->ignored_where = strdup(where)) ? 0 : -ENOMEM;
        }
        return 0;
}

static int sshd_scan_line(struct doc *d, char *line, const char *where, void *userdata) {
        struct sshd_scan *s = userdata;
        char *rest, *save = NULL;
        char *kw = sshd_split(line, &rest);
        int r;

        if (!kw)
                return 0;
        if (strcasecmp(kw, "Match") == 0) {
                s->in_match = true;
                return 0;
        }
        if (strcasecmp(kw, "Include") == 0) {
                for (char *w = strtok_r(rest, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save))
                        if ((r = sshd_include(d, w, where, s)) < 0)
                                return r;
                return 0;
        }
        return strcasecmp(kw, "UsePAM") == 0 ? sshd_usepam(rest, where, s) : 0;
}

/* An included file starts in the Match block its Include line is in, and a Match in it ends
 * with it. */
static int sshd_scan_file(struct doc *d, const char *abs, const char *from, struct sshd_scan *s) {
        bool in_match = s->in_match;

        if (s->depth > INCLUDE_DEPTH_MAX)
                return 0;
        int r = read_lines_walk(d, abs, &s->walk, from, sshd_scan_line, s);
        s->in_match = in_match;
        return r == -ENOMEM || s->depth == 0 ? r : 0;
}

static int sshd_report(struct doc *d, const char *cfg, const struct sshd_scan *s) {
        _cleanup_free_ char *fix = NULL;

        if (s->set && s->value)
                ADD(d, DOCTOR_SSH, DIAG_OK, s->where, NULL, "sshd: UsePAM yes");
        else if (s->set) {
                if (!(fix = strf("set 'UsePAM yes' at %s (sshd takes the first value it reads), then restart sshd "
                                 "(systemctl restart ssh)",
                                 s->where)))
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
        return 0;
}

/* A cycle keeps sshd from starting; past the walk's bound, only the first UsePAM read counts. */
static int sshd_walk_report(struct doc *d, const struct sshd_scan *s) {
        return walk_finding(d, DOCTOR_SSH, "sshd-include-cycle", "sshd-include-bound", DIAG_WARNING, s->walk.error, s->walk.where, "Include",
                            "doctor reads no more of sshd_config", "sshd",
                            "sshd refuses such a configuration ('Too many recursive configuration includes', as "
                            "sshd -t says): it does not start");
}

int check_sshd_config(struct doc *d) {
        const char *cfg = "/etc/ssh/sshd_config";
        _cleanup_(sshd_scan_clear) struct sshd_scan s = {};
        int r = sshd_scan_file(d, cfg, NULL, &s);

        if (s.walk.error == VISIT_ERR_CYCLE || s.walk.error == VISIT_ERR_BUDGET) {
                r = sshd_walk_report(d, &s);
                return r < 0 || s.walk.error == VISIT_ERR_CYCLE || !s.set ? r : sshd_report(d, cfg, &s);
        }

        if (r == -ENOENT && !exists_rooted(d, "/etc/pam.d/sshd", false))
                return 0;
        if (r == -ENOENT)
                return doctor_add(d->rep, DOCTOR_SSH, DIAG_INFO, NULL, disp(d, cfg), NULL,
                                  "sshd: %s does not exist: OpenSSH server not installed?",
                                  disp(d, cfg));
        if (r < 0 && r != -ENOMEM)
                return doctor_add(d->rep, DOCTOR_SSH, DIAG_WARNING, NULL, disp(d, cfg), NULL,
                                  "sshd: cannot read %s (%s)", disp(d, cfg), strerror(-r));
        return r < 0 ? r : sshd_report(d, cfg, &s);
}
