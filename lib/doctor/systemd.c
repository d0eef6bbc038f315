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
#include <sys/stat.h>

#include "doctor-internal.h"
#include "dropin.h"
#include "fsutil.h"
#include "visit.h"

/* extract_first_word(p, ret, ":", EXTRACT_DONT_COALESCE_SEPARATORS) as rlimit_parse() calls it:
 * the bytes up to a ':' or the end (a backslash takes the next byte as it is: "\:" is no
 * separator), possibly none; *p after the ':', NULL at the end.  -EINVAL for a trailing
 * backslash, -ENOMEM. */
static int limit_word(const char **p, char **ret) {
        const char *q = *p;
        char *w = malloc(strlen(q) + 1), *o = w;

        if (!w)
                return -ENOMEM;
        for (;; q++) {
                if (*q == '\\') {
                        if (!q[1]) {
                                free(w);
                                return -EINVAL;
                        }
                        *o++ = *++q;
                } else if (*q == ':') {
                        *p = q + 1;
                        break;
                } else if (!*q) {
                        *p = NULL;
                        break;
                } else
                        *o++ = *q;
        }
        *o = '\0';
        *ret = w;
        return 0;
}

/* rlimit_parse(RLIMIT_MEMLOCK, s): SOFT, or SOFT:HARD (a third word, even an empty one after
 * a second ':', is refused; "SOFT:HARD:" is not), each size_parse_systemd(). */
int doctor_parse_systemd_limit(const char *s, uint64_t *ret_soft, uint64_t *ret_hard) {
        _cleanup_free_ char *soft_w = NULL, *hard_w = NULL;
        const char *p = s;
        uint64_t soft, hard;
        int r;

        if (!s)
                return -EINVAL;
        if ((r = limit_word(&p, &soft_w)) < 0 || (r = size_parse_systemd(soft_w, &soft)) < 0)
                return r;
        hard = soft;
        if (p) {
                if ((r = limit_word(&p, &hard_w)) < 0)
                        return r;
                if (p && *p)
                        return -EINVAL;
                if ((r = size_parse_systemd(hard_w, &hard)) < 0)
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

/* Parse abs, then the drop-ins drop (in the order systemd applies them); a file that cannot
 * be read is skipped.  A unit's n_dropins: how many drop-ins there are.  All of them are one
 * walk of visit.h: past its bound the rest is not read, and that is said. */
static int ini_parse_dropins(struct doc *d, const char *abs, const struct strv *dropins, struct ini_scan *s) {
        const struct strv drop = *dropins;
        _cleanup_(visit_done) struct visit walk = {};
        s->walk = &walk;
        int r = ini_parse(d, abs, s);

        if (r == -ENOMEM)
                return r;
        r = 0;
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
        _cleanup_(strv_clear) struct strv drop = {};
        if (!main_abs || !sub)
                return -ENOMEM;
        const char *subs[] = { sub };
        int r = list_dropins(d, systemd_conf_dirs, ELEMENTSOF(systemd_conf_dirs), subs, 1, &drop);
        return r < 0 ? r : ini_parse_dropins(d, main_abs, &drop, &s);
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

/* systemd's unit search path of the system manager, highest priority first (lookup_paths_init():
 * the control and transient directories, the generators' output, /lib for a split /usr) */
static const char *const unit_dirs[] = {
        "/etc/systemd/system.control", "/run/systemd/system.control", "/run/systemd/transient",
        "/run/systemd/generator.early", "/etc/systemd/system",         "/etc/systemd/system.attached",
        "/run/systemd/system",         "/run/systemd/system.attached", "/run/systemd/generator",
        "/usr/local/lib/systemd/system", "/usr/lib/systemd/system",    "/lib/systemd/system",
        "/run/systemd/generator.late",
};
#define UNIT_DIR_ETC 4          /* /etc/systemd/system: where apply --unit writes */

/* systemd follows at most this many alias links (unit_ids_map_get()) */
#define UNIT_ALIAS_HOPS 32

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
        strv_clear(&u->dropin_dirs);
        strv_clear(&u->dropin_alias);
        *u = (struct unit_info){};
}

/* ---- unit names (src/basic/unit-name.c) ---- */

enum name_kind { NAME_PLAIN, NAME_TEMPLATE, NAME_INSTANCE };

static enum name_kind name_kind(const char *name) {
        const char *at = strchr(name, '@'), *dot = strrchr(name, '.');
        if (!at || !dot || at > dot)
                return NAME_PLAIN;
        return at + 1 == dot ? NAME_TEMPLATE : NAME_INSTANCE;
}

static const char *name_type(const char *name) {
        const char *dot = strrchr(name, '.');
        return dot ? dot + 1 : "";
}

/* "foo@bar.service" -> "foo@.service" */
static char *name_template(const char *name) {
        const char *at = strchr(name, '@');
        return strf("%.*s%s", (int)(at + 1 - name), name, strrchr(name, '.'));
}

/* template "foo@.service" with the instance of inst "x@bar.service": "foo@bar.service" */
static char *name_instantiate(const char *tmpl, const char *inst) {
        const char *ia = strchr(inst, '@'), *id = strrchr(inst, '.'), *ta = strchr(tmpl, '@');
        return strf("%.*s%.*s%s", (int)(ta + 1 - tmpl), tmpl, (int)(id - ia - 1), ia + 1, ta + 1);
}

/* An absolute path with "//", "." and ".." taken out, as chase_symlinks(CHASE_NOFOLLOW) does. */
static char *path_simplify(const char *path) {
        _cleanup_free_ char *out = malloc(strlen(path) + 2);
        size_t n = 0;

        if (!out)
                return NULL;
        for (const char *p = path; *p;) {
                size_t len = strcspn(p, "/");
                if (len == 0) {
                        p++;
                        continue;
                }
                if (len == 2 && p[0] == '.' && p[1] == '.') {
                        while (n > 0 && out[--n] != '/')
                                ;
                } else if (!(len == 1 && p[0] == '.')) {
                        out[n++] = '/';
                        memcpy(out + n, p, len);
                        n += len;
                }
                p += len;
        }
        if (n == 0)
                out[n++] = '/';
        out[n] = '\0';
        return TAKE_PTR(out);
}

/* unit_validate_alias_symlink_and_warn(), in short: the same type; a template only for a
 * template, an instance name for an instance or a template. */
static bool alias_valid(const char *src, const char *dst) {
        enum name_kind ks = name_kind(src), kd = name_kind(dst);
        if (!streq(name_type(src), name_type(dst)))
                return false;
        if (ks == NAME_PLAIN)
                return kd == NAME_PLAIN;
        if (ks == NAME_TEMPLATE)
                return kd == NAME_TEMPLATE;
        return kd != NAME_PLAIN;
}

/* The first entry named name in the unit directories, as unit_file_build_name_map() keeps it:
 * 0 none; 1 a unit file, or a link that leaves the unit directories (a linked unit file, a
 * mask), *ret_path; 2 an alias (a link to another name in them), *ret_alias that name.  A
 * link to itself or an invalid alias is skipped, as systemd skips it.  -ENOMEM. */
static int unit_entry(const struct doc *d, const char *name, char **ret_path, char **ret_alias) {
        for (size_t i = 0; i < ELEMENTSOF(unit_dirs); i++) {
                _cleanup_free_ char *p = strf("%s/%s", unit_dirs[i], name), *t = NULL, *simple = NULL;
                char buf[4096];
                struct stat st;

                if (!p)
                        return -ENOMEM;
                int r = fs_stat_in_root(d->in->root, p, true, &st);
                if (r == -ENOMEM)
                        return r;
                if (r < 0 || S_ISDIR(st.st_mode))
                        continue;
                if (!S_ISLNK(st.st_mode)) {
                        *ret_path = TAKE_PTR(p);
                        return 1;
                }
                if (fs_readlink_in_root(d->in->root, p, buf, sizeof buf) < 0)
                        continue;
                if (!(t = buf[0] == '/' ? strdup(buf) : strf("%s/%s", unit_dirs[i], buf)) || !(simple = path_simplify(t)))
                        return -ENOMEM;
                bool inside = false;
                for (size_t k = 0; k < ELEMENTSOF(unit_dirs) && !inside; k++) {
                        size_t len = strlen(unit_dirs[k]);
                        inside = strncmp(simple, unit_dirs[k], len) == 0 && simple[len] == '/';
                }
                if (!inside) {
                        *ret_path = TAKE_PTR(p);
                        return 1;
                }
                const char *dst = strrchr(simple, '/') + 1;
                if (streq(dst, name) || !alias_valid(name, dst))
                        continue;
                if (!(*ret_alias = strdup(dst)))
                        return -ENOMEM;
                return 2;
        }
        return 0;
}

/* The unit file a name ends at through its aliases (unit_ids_map_get()): 0 with *ret_path,
 * or NULL when there is none (or the aliases loop); -ENOMEM. */
static int unit_resolve(const struct doc *d, const char *name, char **ret_path) {
        _cleanup_free_ char *cur = strdup(name);

        *ret_path = NULL;
        if (!cur)
                return -ENOMEM;
        for (unsigned hop = 0; hop < UNIT_ALIAS_HOPS; hop++) {
                char *path = NULL, *alias = NULL;
                int r = unit_entry(d, cur, &path, &alias);
                if (r <= 0)
                        return r;
                if (r == 1) {
                        *ret_path = path;
                        return 0;
                }
                free(cur);
                cur = alias;
        }
        return 0;
}

/* null_or_empty() of the unit file: a link to /dev/null, a device, or an empty file masks it. */
static bool unit_file_masks(const struct doc *d, const char *path) {
        char buf[64];
        struct stat st;

        if (fs_readlink_in_root(d->in->root, path, buf, sizeof buf) >= 0 && streq(buf, "/dev/null"))
                return true;
        if (fs_stat_in_root(d->in->root, path, false, &st) < 0)
                return false;
        return (S_ISREG(st.st_mode) && st.st_size <= 0) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode);
}

/* Add x to names unless it is there; -ENOMEM. */
static int name_add(struct strv *names, const char *x) {
        return strv_contains(names->v, x) ? 0 : strv_push(names, x);
}

/* The other names of key (unit_file_build_name_map()'s reverse map, add_names()): every link
 * in the unit directories whose name ends at a unit file named key; for an instance (inst, its
 * unit file frag_base) a template alias of its template, with inst's instance, unless that
 * name has a unit file of its own.  Appended to names.  -ENOMEM. */
static int unit_aliases(const struct doc *d, const char *key, const char *inst, const char *frag_base,
                        struct strv *names) {
        _cleanup_(strv_clear) struct strv seen = {};
        int r = 0;

        for (size_t i = 0; i < ELEMENTSOF(unit_dirs) && r >= 0; i++) {
                _cleanup_(strv_clear) struct strv here = {};
                if ((r = list_dir(d, unit_dirs[i], "*.*", &here)) < 0)
                        return r;
                for (size_t k = 0; k < here.n && r >= 0; k++) {
                        _cleanup_free_ char *path = NULL, *dst = NULL, *p = strf("%s/%s", unit_dirs[i], here.v[k]);
                        const char *c = here.v[k];
                        struct stat st;

                        if (!p)
                                return -ENOMEM;
                        if (strv_contains(seen.v, c) || fs_stat_in_root(d->in->root, p, true, &st) < 0 ||
                            !S_ISLNK(st.st_mode))
                                continue;
                        if ((r = strv_push(&seen, c)) < 0 || (r = unit_resolve(d, c, &path)) < 0)
                                return r;
                        if (!path || unit_file_masks(d, path))
                                continue;
                        const char *base = strrchr(path, '/') + 1;
                        if (name_kind(base) == NAME_TEMPLATE && name_kind(c) == NAME_INSTANCE)
                                dst = name_instantiate(base, c);
                        else
                                dst = strdup(base);
                        if (!dst)
                                return -ENOMEM;
                        if (!streq(dst, key))
                                continue;
                        if (inst && name_kind(c) == NAME_TEMPLATE) {
                                _cleanup_free_ char *ci = name_instantiate(c, inst), *cf = NULL;
                                if (!ci || unit_resolve(d, ci, &cf) < 0)
                                        return -ENOMEM;
                                if (cf && !streq(strrchr(cf, '/') + 1, frag_base))
                                        continue;
                                r = name_add(names, ci);
                        } else if (name_kind(c) != NAME_TEMPLATE)
                                r = name_add(names, c);
                }
        }
        return r;
}

/* unit_file_find_dirs(): in the unit directory dir, NAME.d; for an instance its template's
 * too; then (not for a type's own drop-ins, "service.d") those of the name's dash prefixes,
 * foo-bar-baz.service: foo-bar-.service.d, foo-.service.d (with the instance kept). */
static int unit_find_dirs(const struct doc *d, const char *dir, const char *name, struct strv *dirs, unsigned depth) {
        _cleanup_free_ char *p = strf("%s/%s.d", dir, name), *prefix = NULL, *built = NULL;
        enum name_kind kind = name_kind(name);
        int r = 0;

        if (!p)
                return -ENOMEM;
        if (depth > 64)
                return 0;
        if (exists_rooted(d, p, true) && !strv_contains(dirs->v, p) && (r = strv_push(dirs, p)) < 0)
                return r;
        if (kind == NAME_INSTANCE) {
                _cleanup_free_ char *t = name_template(name);
                if (!t)
                        return -ENOMEM;
                if ((r = unit_find_dirs(d, dir, t, dirs, depth + 1)) < 0)
                        return r;
        }
        if (!strchr(name, '.'))
                return 0;        /* "service": the type's own */
        const char *end = strchr(name, '@');
        if (!end)
                end = strrchr(name, '.');
        if (!(prefix = strndup(name, end - name)))
                return -ENOMEM;
        bool chopped = false;
        for (;;) {
                char *dash = strrchr(prefix, '-');
                size_t n = dash ? (size_t)(dash - prefix) : 0;
                if (n == 0)
                        return 0;        /* no dash, or a leading one */
                if (prefix[n + 1] != '\0' || chopped) {
                        prefix[n + 1] = '\0';
                        break;
                }
                prefix[n] = '\0';        /* a trailing dash: chopped, once */
                chopped = true;
        }
        if (kind == NAME_INSTANCE) {
                const char *at = strchr(name, '@'), *dot = strrchr(name, '.');
                built = strf("%s@%.*s.%s", prefix, (int)(dot - at - 1), at + 1, name_type(name));
        } else
                built = strf("%s.%s", prefix, name_type(name));
        return built ? unit_find_dirs(d, dir, built, dirs, depth + 1) : -ENOMEM;
}

/* The unit named u->name as systemd loads it (unit_file_find_fragment(), unit_load_fragment(),
 * unit_file_find_dropin_paths()): its unit file (the name's, through its aliases, in the first
 * directory that has it; for an instance with none anywhere, its template's), masked when that
 * is a link to /dev/null or empty; its names (the unit file's, with the instance, first; then
 * the name asked and every alias in the unit directories; systemd takes the aliases in hash
 * order, here in byte order); the drop-in directories of each name in each unit directory,
 * then the type's ("service.d") in each. */
static int unit_locate(const struct doc *d, struct unit_info *u) {
        _cleanup_(strv_clear) struct strv names = {}, rest = {};
        _cleanup_free_ char *frag = NULL, *id = NULL;
        const char *name = u->name;
        enum name_kind kind = name_kind(name);
        const char *inst = kind == NAME_INSTANCE ? name : NULL;
        int r = 0;

        if (kind != NAME_TEMPLATE && (r = name_add(&rest, name)) < 0)
                return r;
        if ((r = unit_resolve(d, name, &frag)) < 0)
                return r;
        if (!frag && inst) {
                _cleanup_free_ char *t = name_template(name);
                if (!t || unit_resolve(d, t, &frag) < 0)
                        return -ENOMEM;
        }
        const char *base = frag ? strrchr(frag, '/') + 1 : name;
        if ((r = unit_aliases(d, name, inst, base, &rest)) < 0)
                return r;
        if (frag && !streq(base, name)) {
                if ((r = unit_aliases(d, base, inst, base, &rest)) < 0)
                        return r;
        }
        if (frag && unit_file_masks(d, frag)) {
                u->masked = true;
                return 0;
        }
        if (!frag)
                return 0;
        id = inst && name_kind(base) == NAME_TEMPLATE ? name_instantiate(base, inst) : strdup(base);
        if (!id || (r = strv_push(&names, id)) < 0)
                return -ENOMEM;
        if (rest.n > 1)
                qsort(rest.v, rest.n, sizeof(char *), cmp_str);
        for (size_t i = 0; i < rest.n && r >= 0; i++)
                r = name_add(&names, rest.v[i]);
        u->own_dirs = SIZE_MAX;
        for (size_t i = 0; i < names.n && r >= 0; i++)
                for (size_t k = 0; k < ELEMENTSOF(unit_dirs) && r >= 0; k++) {
                        if (k == UNIT_DIR_ETC && streq(names.v[i], name)) {
                                u->own_dirs = u->dropin_dirs.n;
                                u->own_alias = i > 0;
                        }
                        r = unit_find_dirs(d, unit_dirs[k], names.v[i], &u->dropin_dirs, 0);
                        while (r >= 0 && u->dropin_alias.n < u->dropin_dirs.n)
                                r = strv_push(&u->dropin_alias, i == 0 ? "" : names.v[i]);
                }
        for (size_t k = 0; k < ELEMENTSOF(unit_dirs) && r >= 0; k++) {
                r = unit_find_dirs(d, unit_dirs[k], name_type(id), &u->dropin_dirs, 0);
                while (r >= 0 && u->dropin_alias.n < u->dropin_dirs.n)
                        r = strv_push(&u->dropin_alias, "");
        }
        if (r >= 0)
                u->path = TAKE_PTR(frag);
        return r;
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

/* The first drop-in directory of another alias of the unit than alias ("": none) with a file
 * named base: systemd reads the aliases' directories in hash order (a Set), so which of the
 * two it reads is not known.  Its index, or SIZE_MAX. */
static size_t dropin_other_alias(const struct doc *d, const struct unit_info *u, const char *alias, const char *base) {
        for (size_t j = 0; *alias && j < u->dropin_dirs.n; j++) {
                _cleanup_free_ char *p = NULL;
                struct stat st;
                if (!*u->dropin_alias.v[j] || streq(u->dropin_alias.v[j], alias))
                        continue;
                if (!(p = strf("%s/%s", u->dropin_dirs.v[j], base)))
                        return SIZE_MAX;
                if (fs_stat_in_root(d->in->root, p, true, &st) >= 0)
                        return j;
        }
        return SIZE_MAX;
}

/* A drop-in read here whose name is also in the directory of another alias: assumed the one read. */
static int dropins_alias_order(struct doc *d, enum doctor_group g, const struct unit_info *u, const struct strv *drop) {
        for (size_t i = 0; i < drop->n; i++) {
                const char *slash = strrchr(drop->v[i], '/');
                size_t k = 0, j;
                while (k < u->dropin_dirs.n && !(strlen(u->dropin_dirs.v[k]) == (size_t)(slash - drop->v[i]) &&
                                                 strncmp(u->dropin_dirs.v[k], drop->v[i], slash - drop->v[i]) == 0))
                        k++;
                if (k == u->dropin_dirs.n || (j = dropin_other_alias(d, u, u->dropin_alias.v[k], slash + 1)) == SIZE_MAX)
                        continue;
                ADD_ID(d, g, DIAG_INFO, "dropin-alias-order", disp(d, drop->v[i]), NULL,
                       "%s: %s/%s has the same name: systemd reads one of the two, and the directories of the "
                       "unit's names %s and %s in no fixed order; assumed this one (%s before %s)",
                       u->name, disp(d, u->dropin_dirs.v[j]), slash + 1, u->dropin_alias.v[k], u->dropin_alias.v[j],
                       u->dropin_alias.v[k], u->dropin_alias.v[j]);
        }
        return 0;
}

/* The unit file and its drop-ins (unit_locate()'s directories), parsed into u. */
static int unit_read(struct doc *d, enum doctor_group g, struct unit_info *u) {
        _cleanup_(strv_clear) struct strv drop = {};
        struct ini_scan s = { .limit_key = "LimitMEMLOCK", .group = g, .limit = &u->limit, .u = u };
        int r = list_conf_files(d, u->dropin_dirs.v, u->dropin_dirs.n, &drop);

        if (r >= 0)
                r = dropins_alias_order(d, g, u, &drop);
        if (r >= 0)
                r = ini_parse_dropins(d, u->path, &drop, &s);
        return r < 0 ? r : unit_effective(d, u);
}

int unit_load(struct doc *d, const char *unit, enum doctor_group g, struct unit_info *ret) {
        const char *dot = strrchr(unit, '.');
        int r;

        *ret = (struct unit_info){};
        ret->name = !dot || dot == unit ? strf("%s.service", unit) : strdup(unit);
        if (!ret->name)
                return -ENOMEM;
        r = unit_locate(d, ret);
        if (r >= 0 && ret->path)
                r = unit_read(d, g, ret);
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
                    "no unit file in systemd's unit directories (etc/systemd/system, run/systemd/system, "
                    "usr/lib/systemd/system, lib/systemd/system, the generators' and transient units')");
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
                /* a drop-in of apply --unit's name that systemd reads instead of
                 * /etc/systemd/system/UNIT.d's (systemd reads one file of a name): in a
                 * directory of the unit file's name, which come first; or of another alias, whose
                 * directories and UNIT.d's systemd reads in no fixed order */
                for (size_t i = 0; i < u.dropin_dirs.n && i < u.own_dirs && !ret->hidden_by[0]; i++) {
                        _cleanup_free_ char *p = strf("%s/%s", u.dropin_dirs.v[i], DROPIN_UNIT_NAME);
                        struct stat st;
                        if (!p) {
                                r = -ENOMEM;
                                break;
                        }
                        if (!*u.dropin_alias.v[i] && fs_stat_in_root(root, p, true, &st) >= 0)
                                snprintf(ret->hidden_by, sizeof ret->hidden_by,
                                         "%s is read instead (systemd reads one file of a name: the one in the "
                                         "directory it reads first)", disp(&d, p));
                }
                size_t j = u.own_alias ? dropin_other_alias(&d, &u, u.name, DROPIN_UNIT_NAME) : SIZE_MAX;
                if (!ret->hidden_by[0] && j != SIZE_MAX)
                        snprintf(ret->hidden_by, sizeof ret->hidden_by,
                                 "%s/%s may be read instead (systemd reads one file of a name, and the directories "
                                 "of the unit's names %s and %s in no fixed order)",
                                 disp(&d, u.dropin_dirs.v[j]), DROPIN_UNIT_NAME, u.dropin_alias.v[j], u.name);
                if (u.own_dirs == SIZE_MAX)
                        snprintf(ret->hidden_by, sizeof ret->hidden_by,
                                 "%s.d/ is not read (systemd reads no drop-in directory of that name for %s)",
                                 u.name, u.name);
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
