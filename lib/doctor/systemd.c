/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * doctor, systemd: services never read limits.conf.  DefaultLimitMEMLOCK= of system.conf
 * (and user.conf) with their drop-ins, and --unit: a unit's LimitMEMLOCK= from its file and
 * drop-ins, compared with what the configuration gives the unit's User=.  unit_load() is also
 * what the container runtimes' and Slurm's links read their daemons' units with.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "doctor-internal.h"
#include "fsutil.h"
#include "visit.h"

int doctor_parse_systemd_limit(const char *s, uint64_t *ret_soft, uint64_t *ret_hard) {
        _cleanup_free_ char *copy = NULL;
        uint64_t soft, hard;
        char *colon;
        int r;

        if (!s || !(copy = strdup(s)))
                return s ? -ENOMEM : -EINVAL;
        colon = strchr(copy, ':');
        if (colon)
                *colon = '\0';
        r = size_parse_systemd(copy, &soft);
        if (r < 0)
                return r;
        hard = soft;
        if (colon) {
                r = size_parse_systemd(colon + 1, &hard);
                if (r < 0)
                        return r;
                if (soft > hard)
                        return -EINVAL;
        }
        *ret_soft = soft;
        *ret_hard = hard;
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* systemd's configuration files */

void limit_setting_clear(struct limit_setting *l) {
        free(l->text);
        free(l->where);
        free(l->file);
        free(l->overridden);
        free(l->overridden_text);
        *l = (struct limit_setting){};
}

/* One LimitMEMLOCK= (or DefaultLimitMEMLOCK=) line.  systemd's config_parse_rlimit() has no
 * empty case: a value rlimit_parse() refuses (an empty one too, or soft above hard) is logged
 * "..., ignoring" and the value in effect stays, so such a line changes nothing here either.
 * 0: assigned; 1: ignored; -ENOMEM. */
static int limit_assign(struct limit_setting *l, const char *file, const char *where, const char *value) {
        uint64_t soft, hard;

        if (doctor_parse_systemd_limit(value, &soft, &hard) < 0)
                return 1;
        _cleanup_free_ char *w = strdup(where), *t = strdup(value), *f = strdup(file);
        if (!w || !t || !f)
                return -ENOMEM;
        free(l->file);
        l->file = TAKE_PTR(f);
        if (l->set) {
                free(l->overridden);
                free(l->overridden_text);
                l->overridden = TAKE_PTR(l->where);
                l->overridden_text = TAKE_PTR(l->text);
        }
        free(l->where);
        free(l->text);
        l->where = TAKE_PTR(w);
        l->text = TAKE_PTR(t);
        l->assignments++;
        l->soft = soft;
        l->hard = hard;
        l->set = true;
        return 0;
}

/* A value systemd cannot parse (an empty one too): it logs it and ignores the line. */
static int limit_bad(struct doc *d, enum doctor_group g, const char *where, const char *key, const char *value,
                     const struct limit_setting *l) {
        _cleanup_free_ char *kept = NULL;

        if (l->set)
                kept = strf("%s=%s of %s stays in effect", key, l->text, l->where);
        else
                kept = strf("no earlier %s= is in effect: the default applies", key);
        if (!kept)
                return -ENOMEM;
        if (!*value)
                return doctor_add(d->rep, g, DIAG_WARNING, "limit-empty-ignored", where,
                                  "write a size such as 64M, 1G or infinity (or SOFT:HARD), or remove the line",
                                  "%s= is empty: systemd ignores it (\"Failed to parse resource value, ignoring\"), "
                                  "it does not reset the limit; %s", key, kept);
        return doctor_add(d->rep, g, DIAG_ERROR, NULL, where, "write a size such as 64M, 1G or infinity (or SOFT:HARD)",
                          "%s=%s cannot be parsed: systemd ignores it; %s", key, value, kept);
}

/* What a systemd configuration file is read for: the limit (DefaultLimitMEMLOCK= in [Manager]
 * of system.conf, or a unit's LimitMEMLOCK=), and a unit's User=, PAMName=, DynamicUser=. */
struct ini_scan {
        const char *section;         /* the current one, in the text being read */
        const char *limit_key;
        enum doctor_group group;     /* where an unparsable limit is reported */
        struct limit_setting *limit;
        struct unit_info *u;         /* NULL: system.conf or user.conf (the [Manager] section) */
        struct visit *walk;          /* the file and its drop-ins */
        const char *abs;             /* the file being read */
};

static int ini_line(struct doc *d, char *line, const char *where, void *userdata) {
        struct ini_scan *s = userdata;
        struct unit_info *u = s->u;
        char *p = strip(line), *eq;

        if (!*p || *p == '#' || *p == ';')
                return 0;
        if (*p == '[') {
                p[strcspn(p, "]")] = '\0';
                s->section = p + 1;
                return 0;
        }
        if (!(eq = strchr(p, '=')))
                return 0;
        *eq = '\0';
        const char *key = strip(p), *value = strip(eq + 1);
        /* systemd takes these in their own section only, named exactly (each file, each drop-in,
         * starts outside any): elsewhere it ignores them ("Assignment outside of section",
         * "Unknown key name ... in section 'Unit'") */
        if (!streq(s->section, u ? "Service" : "Manager"))
                return 0;
        if (streq(key, s->limit_key)) {
                int r = limit_assign(s->limit, s->abs, where, value);
                if (r < 0)
                        return r;
                return r > 0 ? limit_bad(d, s->group, where, key, value, s->limit) : 0;
        }
        if (!u)
                return 0;
        if (streq(key, "User"))
                return set_str(&u->user, value) < 0 ? -ENOMEM : set_str(&u->user_where, where);
        if (streq(key, "PAMName"))
                return set_str(&u->pam_name, value);
        if (streq(key, "DynamicUser"))
                u->dynamic_user = strcasecmp(value, "yes") == 0 || strcasecmp(value, "true") == 0 ||
                                  streq(value, "1") || strcasecmp(value, "on") == 0;
        return 0;
}

/* Parse ROOT/abs as a systemd configuration file; -ENOENT when it does not exist. */
static int ini_parse(struct doc *d, const char *abs, struct ini_scan *s) {
        s->section = "";
        s->abs = abs;
        return read_lines_walk(d, abs, s->walk, NULL, ini_line, s);
}

static const char *const systemd_conf_dirs[] = { "/etc/systemd", "/run/systemd", "/usr/local/lib/systemd",
                                                 "/usr/lib/systemd", "/lib/systemd" };

/* Parse abs, then its drop-ins (list_dropins() of subs in dirs); a file that cannot be read
 * is skipped.  A unit's n_dropins: how many drop-ins there are.  All of them are one walk of
 * visit.h: past its bound the rest is not read, and that is said. */
static int ini_parse_dropins(struct doc *d, const char *abs, const char *const *dirs, size_t n_dirs,
                             const char *const *subs, size_t n_subs, struct ini_scan *s) {
        _cleanup_(strv_clear) struct strv drop = {};
        _cleanup_(visit_done) struct visit walk = {};
        s->walk = &walk;
        int r = ini_parse(d, abs, s);

        if (r == -ENOMEM)
                return r;
        r = list_dropins(d, dirs, n_dirs, subs, n_subs, &drop);
        for (size_t i = 0; i < drop.n && r >= 0 && !walk.error; i++) {
                r = ini_parse(d, drop.v[i], s);
                /* a drop-in that is no regular file (a FIFO would block), or cannot be read:
                 * skipped, and said, with what that assumes */
                if (r < 0 && r != -ENOMEM && r != -ENOENT && !walk.error) {
                        ADD_ID(d, s->group, DIAG_WARNING, "dropin-unread", disp(d, drop.v[i]), NULL,
                               "%s, not read: assumed not to set %s=",
                               fs_strerror(r), s->limit_key);
                        if (s->u && !s->u->unread &&
                            !(s->u->unread = strf("%s: %s, not read: assumed not to set %s=", disp(d, drop.v[i]),
                                                  fs_strerror(r), s->limit_key)))
                                return -ENOMEM;
                }
                if (r != -ENOMEM)
                        r = 0;
        }
        if (s->u)
                s->u->n_dropins = drop.n;
        s->walk = NULL;
        if (r >= 0 && walk.error == VISIT_ERR_BUDGET) {
                ADD_ID(d, s->group, DIAG_WARNING, "dropins-bound", walk.where, NULL,
                       "%s: %s: the files after it, and what they set, are not known", disp(d, abs),
                       visit_strerror(walk.error));
                if (s->u && !(s->u->stopped = strf("%s: %s", walk.where, visit_strerror(walk.error))))
                        return -ENOMEM;
        }
        return r;
}

/* system.conf or user.conf and their drop-ins: the last DefaultLimitMEMLOCK= wins. */
static int manager_default(struct doc *d, const char *name, struct limit_setting *ret) {
        _cleanup_free_ char *main_abs = strf("/etc/systemd/%s", name), *sub = strf("%s.d", name);
        struct ini_scan s = { .limit_key = "DefaultLimitMEMLOCK", .group = DOCTOR_SYSTEMD,
                              .limit = ret };

        *ret = (struct limit_setting){};
        if (!main_abs || !sub)
                return -ENOMEM;
        const char *subs[] = { sub };
        return ini_parse_dropins(d, main_abs, systemd_conf_dirs, ELEMENTSOF(systemd_conf_dirs),
                                 subs, 1, &s);
}

/* Outside a root: is PID 1 systemd at all? */
static int check_pid1(struct doc *d) {
        _cleanup_free_ char *comm = NULL;
        if (d->in->root || proc_comm(1, &comm) < 0)
                return 0;
        if (!streq(comm, "systemd"))
                ADD(d, DOCTOR_SYSTEMD, DIAG_INFO, "/proc/1/comm", NULL,
                    "PID 1 is %s, not systemd: system.conf and units take effect only where systemd runs", comm);
        return 0;
}

static int report_system_default(struct doc *d) {
        const struct limit_setting *sys = &d->sysdef;
        _cleanup_free_ char *why = NULL, *fix = NULL;
        char pair[PAIR_MAX], arg[SIZE_FMT_MAX], arg2[SIZE_FMT_MAX];
        enum diag_severity lvl;
        uint64_t soft = sys->set ? sys->soft : SYSTEMD_DEFAULT_MEMLOCK, hard = sys->set ? sys->hard : SYSTEMD_DEFAULT_MEMLOCK;
        uint64_t want = d->max.hard_known && d->max.hard > d->max.soft ? d->max.hard : d->max.soft;

        if (below_max(d, soft, hard, &lvl, &why) < 0 ||
            !(fix = strf("give the services that need it their own limit (rdmalimits apply --unit UNIT %s), or set "
                         "DefaultLimitMEMLOCK=%s in /etc/systemd/system.conf.d/memlock.conf and run systemctl "
                         "daemon-reexec",
                         size_format_arg(want, arg2), size_format_systemd(want, arg))))
                return -ENOMEM;
        fmt_pair(soft, hard, pair);
        const char *tail = lvl == DIAG_OK ? "" : ": systemd services never read limits.conf";
        if (!sys->set)
                return doctor_add(d->rep, DOCTOR_SYSTEMD, lvl == DIAG_OK ? DIAG_INFO : lvl, NULL,
                                  disp(d, "/etc/systemd/system.conf"), lvl == DIAG_OK ? NULL : fix,
                                  "DefaultLimitMEMLOCK is not set: services without LimitMEMLOCK= "
                                  "get systemd's default of %s%s%s", pair, why, tail);
        ADD(d, DOCTOR_SYSTEMD, lvl, sys->where, lvl == DIAG_OK ? NULL : fix,
            "services without LimitMEMLOCK= get memlock %s (DefaultLimitMEMLOCK=%s%s)%s%s", pair, sys->text,
            sys->assignments > 1 ? ", the last of several assignments" : "", why, tail);
        if (sys->overridden)
                ADD(d, DOCTOR_SYSTEMD, DIAG_INFO, sys->overridden, NULL,
                    "DefaultLimitMEMLOCK=%s here is overridden by %s (the last assignment wins)", sys->overridden_text,
                    sys->where);
        return 0;
}

int check_systemd_defaults(struct doc *d) {
        _cleanup_(limit_setting_clear) struct limit_setting user = {};
        char pair[PAIR_MAX];
        int r;

        if (!exists_rooted(d, "/etc/systemd", true))
                return 0;
        if ((r = check_pid1(d)) < 0)
                return r;
        r = manager_default(d, "system.conf", &d->sysdef);
        if (r >= 0)
                r = report_system_default(d);
        if (r >= 0)
                r = manager_default(d, "user.conf", &user);
        if (r >= 0 && user.set)
                r = doctor_add(d->rep, DOCTOR_SYSTEMD, DIAG_INFO, NULL, user.where, NULL,
                               "user services (systemd --user) without LimitMEMLOCK= get memlock %s "
                               "(DefaultLimitMEMLOCK=%s)",
                               fmt_pair(user.soft, user.hard, pair), user.text);
        return r;
}

/* ------------------------------------------------------------------------------------ */
/* units */

static const char *const unit_dirs[] = { "/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",
                                         "/usr/lib/systemd/system", "/lib/systemd/system" };

/* Is ROOT/abs a link to /dev/null (a masked unit)? */
static bool masked(const struct doc *d, const char *abs) {
        char buf[64];
        if (fs_readlink_in_root(d->in->root, abs, buf, sizeof buf) < 0)
                return false;
        return streq(buf, "/dev/null");
}

void unit_info_clear(struct unit_info *u) {
        free(u->name);
        free(u->path);
        limit_setting_clear(&u->limit);
        free(u->user);
        free(u->user_where);
        free(u->pam_name);
        free(u->src);
        free(u->where);
        free(u->unread);
        free(u->stopped);
        *u = (struct unit_info){};
}

/* The unit file of name (or of its template tmpl): the first unit directory that has one. */
static int unit_find(const struct doc *d, const char *name, const char *tmpl, struct unit_info *u) {
        for (size_t i = 0; i < ELEMENTSOF(unit_dirs); i++)
                for (int k = 0; k < (tmpl ? 2 : 1); k++) {
                        const char *n = k == 0 ? name : tmpl;
                        _cleanup_free_ char *p = strf("%s/%s", unit_dirs[i], n);
                        if (!p)
                                return -ENOMEM;
                        if ((u->masked = masked(d, p)))
                                return 0;
                        if (exists_rooted(d, p, false)) {
                                u->path = TAKE_PTR(p);
                                return 0;
                        }
                }
        return 0;
}

/* The memlock the service runs with, and where that comes from. */
static int unit_effective(const struct doc *d, struct unit_info *u) {
        if (u->limit.set) {
                u->soft = u->limit.soft;
                u->hard = u->limit.hard;
                u->src = strf("LimitMEMLOCK=%s", u->limit.text);
        } else if (d->sysdef.set) {
                u->soft = d->sysdef.soft;
                u->hard = d->sysdef.hard;
                u->src = strf("no LimitMEMLOCK=: DefaultLimitMEMLOCK of %s", d->sysdef.where);
        } else {
                u->soft = u->hard = SYSTEMD_DEFAULT_MEMLOCK;
                u->src = strdup("no LimitMEMLOCK= or DefaultLimitMEMLOCK=: systemd's default");
        }
        u->where = strdup(u->limit.set ? u->limit.where : disp(d, u->path));
        return u->src && u->where ? 0 : -ENOMEM;
}

/* The unit file and its drop-ins (NAME.d/, then the template's), parsed into u. */
static int unit_read(struct doc *d, const char *tmpl, enum doctor_group g, struct unit_info *u) {
        _cleanup_free_ char *sub = strf("%s.d", u->name), *tsub = tmpl ? strf("%s.d", tmpl) : NULL;
        struct ini_scan s = { .limit_key = "LimitMEMLOCK", .group = g, .limit = &u->limit, .u = u };

        if (!sub || (tmpl && !tsub))
                return -ENOMEM;
        const char *subs[] = { sub, tsub };
        int r = ini_parse_dropins(d, u->path, unit_dirs, ELEMENTSOF(unit_dirs), subs, tsub ? 2 : 1,
                                  &s);
        return r < 0 ? r : unit_effective(d, u);
}

int unit_load(struct doc *d, const char *unit, enum doctor_group g, struct unit_info *ret) {
        _cleanup_free_ char *tmpl = NULL;
        const char *dot = strrchr(unit, '.');
        int r;

        *ret = (struct unit_info){};
        ret->name = !dot || dot == unit ? strf("%s.service", unit) : strdup(unit);
        if (!ret->name)
                return -ENOMEM;
        /* an instance foo@bar.service falls back to the template foo@.service */
        const char *name = ret->name, *at = strchr(name, '@');
        dot = strrchr(name, '.');
        if (at && at + 1 < dot && !(tmpl = strf("%.*s%s", (int)(at + 1 - name), name, dot)))
                r = -ENOMEM;
        else
                r = unit_find(d, name, tmpl, ret);
        if (r >= 0 && ret->path)
                r = unit_read(d, tmpl, g, ret);
        if (r < 0)
                unit_info_clear(ret);
        return r;
}

/* ---- --unit ---- */

/* The fix for a unit that needs more: a drop-in rdmalimits owns, then a restart. */
char *unit_fix(const char *unit, uint64_t want, const char *tail) {
        char arg[SIZE_FMT_MAX];
        return strf("rdmalimits apply --unit %s %s --reload, then systemctl restart %s%s", unit,
                    size_format_arg(want, arg), unit, tail ?: "");
}

/* No configuration names the unit's user: compare with what the hardware here needs. */
static int unit_compare_auto(struct doc *d, const struct unit_info *u) {
        _cleanup_free_ char *fix = NULL;
        _cleanup_(host_auto_clear) struct host_auto a = {};
        char pair[PAIR_MAX], size[SIZE_FMT_MAX];
        int r = host_auto(d, &a);

        if (r < 0)
                return r;
        if (!a.value)
                r = doctor_add(d->rep, DOCTOR_SYSTEMD, DIAG_INFO, "unit-auto-unknown", u->user_where, NULL,
                               "%s: runs as %s; no limits entry or policy rule gives %s a memlock, and %s: nothing "
                               "to compare",
                               u->name, u->user, u->user, a.why);
        else if (u->soft >= a.value)
                r = doctor_add(d->rep, DOCTOR_SYSTEMD, DIAG_OK, "unit-auto", u->where, NULL,
                               "%s: runs as %s with memlock %s, at least the %s the hardware needs (%s); no limits "
                               "entry or policy rule names %s",
                               u->name, u->user, fmt_pair(u->soft, u->hard, pair), size_format(a.value, size),
                               a.why, u->user);
        else if (!(fix = unit_fix(u->name, a.value, NULL)))
                r = -ENOMEM;
        else
                r = doctor_add(d->rep, DOCTOR_SYSTEMD, DIAG_WARNING, "unit-below-auto", u->where, fix,
                               "%s: runs as %s with memlock %s, below the %s the hardware needs (%s); no limits "
                               "entry or policy rule names %s, and systemd services never read limits.conf or the "
                               "policy",
                               u->name, u->user, fmt_pair(u->soft, u->hard, pair), size_format(a.value, size),
                               a.why, u->user);
        return r;
}

/* What the unit's user is given, compared with what the unit gives it. */
static int unit_compare(struct doc *d, const struct unit_info *u, const struct target *t) {
        _cleanup_free_ char *fix = NULL, *tt = NULL;
        char pair[PAIR_MAX];
        uint64_t want_soft = t->soft_known ? t->soft : 0, want_hard = t->hard_known ? t->hard : 0;
        uint64_t want = want_hard > want_soft ? want_hard : want_soft;
        bool low_soft = t->soft_known && u->soft < t->soft, low_hard = !low_soft && t->hard_known && u->hard < t->hard;

        if (!low_soft && !low_hard)
                return doctor_add(d->rep, DOCTOR_SYSTEMD, DIAG_OK, NULL, u->where, NULL,
                                  "%s: runs as %s with memlock %s, as much as the configuration "
                                  "gives %s", u->name, u->user, fmt_pair(u->soft, u->hard, pair),
                                  u->user);
        if (!(fix = unit_fix(u->name, want, NULL)) ||
            !(tt = target_text(t, low_hard)))
                return -ENOMEM;
        ADD(d, DOCTOR_SYSTEMD, low_soft ? DIAG_ERROR : DIAG_WARNING, u->where, fix,
            "%s: runs as %s with memlock %s %s, below the %s that the configuration gives %s: systemd services never "
            "read limits.conf or the policy",
            u->name, u->user, low_soft ? "soft" : "hard", size_format(low_soft ? u->soft : u->hard, pair), tt,
            u->user);
        return 0;
}

/* The unit's user: who it is, and what the configuration gives it. */
static int unit_check_user(struct doc *d, const struct unit_info *u) {
        _cleanup_(target_clear) struct target t = {};
        int r;

        if (u->dynamic_user)
                return doctor_add(d->rep, DOCTOR_SYSTEMD, DIAG_INFO, NULL, disp(d, u->path), NULL,
                                  "%s: DynamicUser=yes: no configured user to compare its memlock "
                                  "with", u->name);
        if (!u->user || streq(u->user, "root") || streq(u->user, "0"))
                return doctor_add(d->rep, DOCTOR_SYSTEMD, DIAG_INFO, NULL,
                                  u->user ? u->user_where : disp(d, u->path), NULL,
                                  "%s: runs as root: with CAP_IPC_LOCK its memlock limit does not "
                                  "restrict what it pins", u->name);
        r = user_target(d, u->user, &t);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                r = doctor_add(d->rep, DOCTOR_SYSTEMD, DIAG_WARNING, NULL, u->user_where, "create the user, or correct User=",
                               "%s: User=%s does not exist%s", u->name, u->user, d->in->root ? " in etc/passwd" : "");
        else if (!t.soft_known && !t.hard_known)
                r = unit_compare_auto(d, u);
        else if (u->pam_name)
                r = doctor_add(d->rep, DOCTOR_SYSTEMD, DIAG_INFO, NULL, u->user_where, NULL,
                               "%s: runs as %s with PAMName=%s: systemd opens a '%s' PAM session, so that stack's "
                               "pam_limits and pam_rdmalimit apply on top of LimitMEMLOCK=",
                               u->name, u->user, u->pam_name, u->pam_name);
        else
                r = unit_compare(d, u, &t);
        return r;
}

/* The LimitMEMLOCK= that the one in effect overrides. */
static int unit_overridden(struct doc *d, enum doctor_group g, const struct unit_info *u) {
        if (!u->limit.overridden)
                return 0;
        return doctor_add(d->rep, g, DIAG_INFO, NULL, u->limit.overridden, NULL,
                          "%s: LimitMEMLOCK=%s here is overridden by %s (a later drop-in wins)", u->name,
                          u->limit.overridden_text, u->limit.where);
}

static int unit_report(struct doc *d, const struct unit_info *u) {
        _cleanup_free_ char *fix = NULL;
        char pair[PAIR_MAX];

        if (u->masked) {
                if (!(fix = strf("systemctl unmask %s", u->name)))
                        return -ENOMEM;
                ADD(d, DOCTOR_SYSTEMD, DIAG_WARNING, u->name, fix, "masked: it does not start");
                return 0;
        }
        if (!u->path) {
                if (!(fix = strf("check the name (systemctl list-unit-files '%s')", u->name)))
                        return -ENOMEM;
                ADD(d, DOCTOR_SYSTEMD, DIAG_ERROR, u->name, fix,
                    "no unit file in etc/systemd/system, run/systemd/system, usr/lib/systemd/system or "
                    "lib/systemd/system");
                return 0;
        }
        ADD(d, DOCTOR_SYSTEMD, DIAG_INFO, u->where, NULL, "%s: memlock %s (%s; %s and %zu drop-in%s read)", u->name,
            fmt_pair(u->soft, u->hard, pair), u->src, disp(d, u->path), u->n_dropins, u->n_dropins == 1 ? "" : "s");
        int r = unit_overridden(d, DOCTOR_SYSTEMD, u);
        return r < 0 ? r : unit_check_user(d, u);
}

int check_unit(struct doc *d) {
        const char *unit = d->in->unit;
        _cleanup_(unit_info_clear) struct unit_info u = {};
        int r;

        if (!unit)
                return 0; /* no --unit */
        if (!unit[0] || strchr(unit, '/'))
                return doctor_add(d->rep, DOCTOR_SYSTEMD, DIAG_ERROR, NULL, unit,
                                  "give a unit name such as slurmd.service", "not a unit name");
        if ((r = unit_load(d, unit, DOCTOR_SYSTEMD, &u)) < 0)
                return r;
        return unit_report(d, &u);
}

/* ------------------------------------------------------------------------------------ */
/* daemons whose own limit their children inherit */

static int daemon_unit_compare(struct doc *d, const struct daemon_unit *c, const struct unit_info *u) {
        _cleanup_free_ char *why = NULL, *fix = NULL;
        char pair[PAIR_MAX], size[SIZE_FMT_MAX];
        uint64_t need;
        int r = host_need(d, &need, &why);

        if (r < 0)
                return r;
        fmt_pair(u->soft, u->hard, pair);
        if (!need)
                return doctor_add(d->rep, c->group, DIAG_INFO, c->id_ok, u->where, NULL,
                                  "%s: memlock %s (%s): %s; %s: nothing to compare", u->name, pair,
                                  u->src, c->inherits, why);
        if (u->soft >= need)
                return doctor_add(d->rep, c->group, DIAG_OK, c->id_ok, u->where, NULL,
                                  "%s: memlock %s (%s): %s; at least the %s the hardware needs",
                                  u->name, pair, u->src, c->inherits, size_format(need, size));
        if (!(fix = unit_fix(c->short_name, c->fix_value ? c->fix_value : need, c->fix_why)))
                return -ENOMEM;
        return doctor_add(d->rep, c->group, DIAG_WARNING, c->id_low, u->where, fix,
                          "%s: memlock %s (%s): %s, below the %s the hardware needs (%s)", u->name,
                          pair, u->src, c->inherits, size_format(need, size), why);
}

int daemon_unit_check(struct doc *d, const struct daemon_unit *c, bool *ret_found) {
        _cleanup_(unit_info_clear) struct unit_info u = {};
        int r = unit_load(d, c->unit, c->group, &u);

        *ret_found = false;
        if (r < 0)
                return r;
        if (u.masked)
                r = doctor_add(d->rep, c->group, DIAG_INFO, c->id_ok, u.name, NULL, "masked: it does not start");
        else if (u.path) {
                *ret_found = true;
                r = daemon_unit_compare(d, c, &u);
                if (r >= 0)
                        r = unit_overridden(d, c->group, &u);
        }
        return r;
}

/* ------------------------------------------------------------------------------------ */
/* the systemd model for the rest of the tool */

int doctor_unit_memlock(const char *root, const char *unit, struct doctor_unit_limit *ret) {
        const struct doctor_input in = { .root = root };
        _cleanup_(diag_list_clear) struct diag_list rep = {};
        _cleanup_(unit_info_clear) struct unit_info u = {};
        struct doc d = { .in = &in, .rep = &rep };
        int r = 0;

        *ret = (struct doctor_unit_limit){};
        if (exists_rooted(&d, "/etc/systemd", true))
                r = manager_default(&d, "system.conf", &d.sysdef);
        if (r >= 0)
                r = unit_load(&d, unit, DOCTOR_SYSTEMD, &u);
        if (r >= 0 && u.path && !u.masked) {
                ret->found = true;
                ret->soft = u.soft;
                ret->hard = u.hard;
                snprintf(ret->src, sizeof ret->src, "%s", u.src);
                snprintf(ret->where, sizeof ret->where, "%s", u.where);
                /* the last LimitMEMLOCK= assignment: in a drop-in (UNIT.d/NAME), or the unit file */
                const char *f = u.limit.assignments ? u.limit.file : NULL, *slash = f ? strrchr(f, '/') : NULL;
                if (slash && slash - f > 2 && strncmp(slash - 2, ".d", 2) == 0)
                        snprintf(ret->dropin, sizeof ret->dropin, "%s", slash + 1);
                if (u.limit.assignments)
                        snprintf(ret->assigned, sizeof ret->assigned, "%s", u.limit.where);
        } else if (r >= 0)
                ret->masked = u.masked;
        /* a drop-in the walk could not read (assumed to set nothing), or a walk past its bound
         * (what the rest sets is not known) */
        if (r >= 0 && u.unread)
                snprintf(ret->unread, sizeof ret->unread, "%s", u.unread);
        if (r >= 0 && u.stopped) {
                ret->incomplete = true;
                snprintf(ret->stopped, sizeof ret->stopped, "%s", u.stopped);
        }
        limit_setting_clear(&d.sysdef);
        return r;
}
