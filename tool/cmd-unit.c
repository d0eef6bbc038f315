/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply --unit / remove --unit: LimitMEMLOCK= in a systemd drop-in rdmalimits owns. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor.h"
#include "dropin.h"
#include "fsutil.h"
#include "size.h"
#include "procfs.h"
#include "tool.h"
#include "visit.h"

#define UNIT_MARKER "# rdmalimits: managed file; change it with 'rdmalimits apply --unit' and 'rdmalimits remove --unit'."
#define UNIT_DIR "/etc/systemd/system"

/* A unit name systemd accepts, of a type that has LimitMEMLOCK=; ".service" is added when
 * there is no suffix.  *ret is malloc()ed. */
static int unit_name(const char *arg, char **ret, const char **why) {
        static const char *const types[] = { ".service", ".socket", ".mount", ".swap" };
        size_t len = strlen(arg);
        bool typed = false;

        if (!len || len > 200) {
                *why = "a unit name of 1 to 200 characters";
                return -EINVAL;
        }
        for (const char *p = arg; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                      strchr(":_.\\@-", *p))) {
                        *why = "unit names use letters, digits and \":_.\\@-\"";
                        return -EINVAL;
                }
        if (arg[0] == '.' || arg[0] == '-') {
                *why = "a unit name does not start with '.' or '-'";
                return -EINVAL;
        }
        for (size_t i = 0; i < ELEMENTSOF(types); i++)
                typed |= len > strlen(types[i]) && endswith(arg, types[i]);
        if (!typed && strchr(arg, '.')) {
                *why = "LimitMEMLOCK= applies to .service, .socket, .mount and .swap units";
                return -EINVAL;
        }
        if (asprintf(ret, "%s%s", arg, typed ? "" : ".service") < 0)
                return -ENOMEM;
        return 0;
}

/* apply --unit: refuse a unit that does not exist (unless --force) and an entry a later
 * drop-in overrides, or one of the same name that systemd reads instead (unless
 * --allow-overridden).  The unit, its drop-ins (its other names', its template's, its dash
 * prefixes' and its type's too) and the last LimitMEMLOCK= among them are doctor's systemd
 * model (doctor_unit_memlock()):
 * systemd applies the drop-ins in file name order, and the last assignment wins, so one in a
 * drop-in whose name sorts after ours overrides it.  0, a reported -errno or a CMD_* outcome. */
static int unit_precheck(const struct ctx *c, const char *unit, const char *name) {
        struct doctor_unit_limit ul;
        int r = doctor_unit_memlock(c->root, unit, &ul);

        if (r < 0)
                return log_oom();
        if (!ul.found && !ul.masked && !c->force) {
                log_error("unit %s does not exist%s: nothing would read the drop-in (--force writes it anyway)", unit,
                          c->root ? " in the tree" : "");
                return CMD_FINDINGS;
        }
        if (ul.unread[0])
                log_warning(c, "%s", ul.unread);
        if (ul.incomplete) {
                log_error("%s; whether a drop-in applied after %s sets LimitMEMLOCK= is not known; nothing written",
                          ul.stopped, name);
                return CMD_FINDINGS;
        }
        if (ul.hidden_by[0] && !c->allow_overridden) {
                log_error("%s.d/%s of %s: %s: the new limit would not take effect; nothing written (change that file, "
                          "or --allow-overridden)", unit, name, unit, ul.hidden_by);
                return CMD_NOT_EFFECTIVE;
        }
        if (ul.hidden_by[0])
                log_warning(c, "%s.d/%s of %s: %s; --allow-overridden: writing it all the same", unit, name, unit,
                            ul.hidden_by);
        if (!ul.dropin[0] || strcmp(ul.dropin, name) <= 0)
                return 0;
        if (c->allow_overridden) {
                log_warning(c, "%s sets LimitMEMLOCK= after %s and wins; --allow-overridden: writing it all the same",
                            ul.assigned, name);
                return 0;
        }
        log_error("%s sets LimitMEMLOCK= and is applied after %s: the new limit would not take effect; nothing "
                  "written (change that drop-in, or --allow-overridden)", ul.assigned, name);
        return CMD_NOT_EFFECTIVE;
}

/* An edit of UNIT.d/DROPIN_UNIT_NAME: the paths, the open directories, the old and new text. */
struct unit_edit {
        bool removing;
        const char *name;       /* the drop-in's file name */
        char *unit, *sysdir, *dname, *dir, *display;
        int sfd, lockfd, dfd;   /* the unit directory, its lock, UNIT.d; -1 when none */
        char *old, *text, *diff;
        bool exists, changed, reloaded;
        bool legacy;            /* DROPIN_UNIT_LEGACY_NAME of ours is there: it goes */
        uint64_t soft, hard;
};

static void unit_edit_clear(struct unit_edit *e) {
        free(e->unit);
        free(e->sysdir);
        free(e->dname);
        free(e->dir);
        free(e->display);
        free(e->old);
        free(e->text);
        free(e->diff);
        closep(&e->sfd);
        closep(&e->lockfd);
        closep(&e->dfd);
}

/* apply --unit UNIT SIZE (or --soft and --hard): the limits. 0 or CMD_USAGE. */
static int unit_parse_limits(const struct ctx *c, struct unit_edit *e) {
        bool has_s = false, has_h = false;

        if (c->argc != 1 && !(c->argc == 0 && (c->soft || c->hard))) {
                log_error("apply --unit UNIT takes one SIZE (or --soft/--hard), no domain");
                return CMD_USAGE;
        }
        if (ctx_parse_limits(c, c->argc == 1 ? c->argv[0] : NULL, &e->soft, &e->hard, &has_s,
                             &has_h))
                return CMD_USAGE;
        if (!has_s || !has_h) {
                log_error("LimitMEMLOCK= sets both limits: give SIZE, or --soft and --hard");
                return CMD_USAGE;
        }
        if (e->soft == 0 || e->hard == 0) {
                log_error("memlock 0 makes every RDMA memory registration fail");
                return CMD_USAGE;
        }
        return ctx_check_order(e->soft, e->hard);
}

/* The arguments: the unit, and what apply writes. 0 or CMD_USAGE. */
static int unit_parse_args(const struct ctx *c, struct unit_edit *e) {
        const char *why = "invalid";

        if (unit_name(c->unit, &e->unit, &why) < 0) {
                log_error("--unit '%s': %s", c->unit, why);
                return CMD_USAGE;
        }
        if (c->file) {
                log_error("--file does not apply with --unit (the drop-in is %s)", DROPIN_UNIT_NAME);
                return CMD_USAGE;
        }
        if (!e->removing)
                return unit_parse_limits(c, e);
        if (c->argc != 0) {
                log_error("remove --unit UNIT takes no other argument");
                return CMD_USAGE;
        }
        return 0;
}

/* The unit directory inside --root (a link in the tree never leads to the host), locked there
 * (its dotfiles are no units).  Missing, remove has nothing to take out; apply fails, and
 * --check with it.  0, a reported -errno, or ctx_lock()'s outcome. */
static int unit_open_sysdir(const struct ctx *c, struct unit_edit *e) {
        e->sysdir = fs_root_path(c->root, UNIT_DIR);
        if (!e->sysdir || asprintf(&e->dname, "%s.d", e->unit) < 0 || asprintf(&e->dir, "%s/%s", e->sysdir, e->dname) < 0 ||
            asprintf(&e->display, "%s/%s", e->dir, e->name) < 0)
                return log_oom();
        int r = fs_open_dir_in_root(c->root, UNIT_DIR, 0, &e->sfd);
        if (r < 0 && (r != -ENOENT || !e->removing)) {
                if (r == -ENOENT || r == -ENOTDIR)
                        log_error("%s does not exist: is this a systemd system?", e->sysdir);
                else
                        ctx_dir_error(c, e->sysdir, r);
                return r;
        }
        if (e->sfd >= 0 && !c->check)
                return ctx_lock(e->sfd, e->sysdir, &e->lockfd);
        return 0;
}

/* UNIT.d in the unit directory, never through a link, one only root may write (ctx_dir_trusted():
 * CMD_FINDINGS); made for apply. 0 or a reported -errno (-ENOENT unreported: it is not there,
 * nor needed). */
static int unit_open_dropin_dir(const struct ctx *c, struct unit_edit *e) {
        errno = ENOENT;
        if (e->sfd >= 0)
                e->dfd = openat(e->sfd, e->dname, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (e->dfd < 0 && errno == ENOENT && e->sfd >= 0 && !e->removing && !c->check) {
                if (mkdirat(e->sfd, e->dname, 0755) < 0 && errno != EEXIST) {
                        int r = negative_errno();
                        log_error("%s: %s", e->dir, errno_text(r));
                        return r;
                }
                e->dfd = openat(e->sfd, e->dname, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        }
        if (e->dfd >= 0)
                return ctx_dir_trusted(c, e->dfd, e->dir);
        if (errno == ELOOP || errno == ENOTDIR) {
                struct stat st;
                if (fstatat(e->sfd, e->dname, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
                        log_error("%s is a symbolic link; refusing to write through it", e->dir);
                        return -ELOOP;
                }
                errno = ENOTDIR;
        }
        if (errno == ENOENT)
                return -ENOENT;
        int r = negative_errno();
        log_error("%s: %s", e->dir, errno_text(r));
        return r;
}

/* The drop-in as it is: e->old ("" when there is none), e->exists.  0 or a reported -errno. */
static int unit_read_old(const struct ctx *c, struct unit_edit *e) {
        size_t old_len = 0, ml = strlen(UNIT_MARKER);

        int r = unit_open_dropin_dir(c, e);
        if (r > 0 || (r < 0 && r != -ENOENT))
                return r;
        if (e->dfd >= 0) {
                /* the drop-in under its old name, if it is ours (never another's) */
                _cleanup_free_ char *lold = NULL, *ldisplay = NULL;
                size_t llen = 0;
                if (asprintf(&ldisplay, "%s/%s", e->dir, DROPIN_UNIT_LEGACY_NAME) < 0)
                        return log_oom();
                r = managed_read(c, e->dfd, DROPIN_UNIT_LEGACY_NAME, ldisplay, 65536, false, &lold, &llen);
                if (r < 0)
                        return r;
                e->legacy = r > 0 && llen >= ml && memcmp(lold, UNIT_MARKER, ml) == 0;
        }
        r = managed_read(c, e->dfd, e->name, e->display, 65536, false, &e->old, &old_len);
        if (r <= 0)
                return r;
        if (!(old_len >= ml && memcmp(e->old, UNIT_MARKER, ml) == 0) && !c->force) {
                log_error("%s was not written by rdmalimits (no marker line); refusing to change it "
                          "(--force takes it over)", e->display);
                return -EPERM;
        }
        e->exists = true;
        return 0;
}

/* What the drop-in becomes: the marker and LimitMEMLOCK= in the section of the unit's type
 * ([Service], [Socket], [Mount], [Swap]); "" for remove. */
static int unit_new_text(struct unit_edit *e) {
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX], section[16];

        if (e->removing) {
                e->text = strdup("");
                return e->text ? 0 : log_oom();
        }
        size_format_systemd(e->soft, a);
        size_format_systemd(e->hard, b);
        snprintf(section, sizeof section, "%s", strrchr(e->unit, '.') + 1);
        section[0] = (char)(section[0] - 'a' + 'A');
        if (asprintf(&e->text, "%s\n[%s]\nLimitMEMLOCK=%s%s%s\n", UNIT_MARKER, section, a, e->soft == e->hard ? "" : ":",
                     e->soft == e->hard ? "" : b) < 0) {
                e->text = NULL;
                return log_oom();
        }
        return 0;
}

/* Write (or remove) the drop-in, then --reload.  0 or a reported -errno. */
static int unit_write(const struct ctx *c, struct unit_edit *e) {
        int r = 0;
        if (!e->removing || e->exists)
                r = managed_write(e->dfd, e->name, e->display, e->removing ? NULL : e->text, 0644);
        if (r < 0)
                return r;
        if (e->legacy && (r = fs_unlink_sync(e->dfd, DROPIN_UNIT_LEGACY_NAME)) < 0 && r != FS_ERR_DIRSYNC) {
                log_error("%s/%s: cannot remove it: %s", e->dir, DROPIN_UNIT_LEGACY_NAME, errno_text(r));
                return r;
        }
        if (e->removing)
                (void)unlinkat(e->sfd, e->dname, AT_REMOVEDIR); /* only if empty */
        if (!c->reload)
                return 0;
        if (c->root)
                log_warning(c, "--reload ignored with --root");
        else if (!proc_systemd_manages())   /* the one answer, doctor's and explain's */
                log_warning(c, "systemd is not running here: nothing to reload");
        else if (run_wait((char *[]){ "systemctl", "daemon-reload", NULL }) != 0)
                log_warning(c, "systemctl daemon-reload failed");
        else
                e->reloaded = true;
        return 0;
}

static void unit_print_text(const struct unit_edit *e, bool check) {
        if (e->legacy)
                printf("%s/%s: %s (its name sorts before override.conf, which then wins)\n", e->dir,
                       DROPIN_UNIT_LEGACY_NAME, check ? "would be removed" : "removed");
        if (!e->changed)
                printf("%s: unchanged\n", e->display);
        else if (e->removing && !e->exists)
                ;       /* only the old name was there, said above */
        else if (check)
                printf("%s: would be %s\n", e->display, e->removing ? "removed" : e->exists ? "changed" : "created");
        else {
                printf("%s: %s\n", e->display, e->removing ? "removed" : e->exists ? "updated" : "created");
                if (!e->reloaded)
                        printf("Now run: systemctl daemon-reload && systemctl restart %s\n", e->unit);
                else
                        printf("systemd reloaded; restart the unit for it to take effect: systemctl restart %s\n", e->unit);
        }
}

/* Parse, check, read, compute, write, report. */
int cmd_unit(struct ctx *c, bool removing) {
        _cleanup_(unit_edit_clear) struct unit_edit e = {
                .removing = removing, .name = DROPIN_UNIT_NAME, .sfd = -1, .lockfd = -1, .dfd = -1
        };
        int r;

        r = unit_parse_args(c, &e);
        if (r == 0 && !e.removing)
                r = unit_precheck(c, e.unit, e.name);
        if (r == 0)
                r = unit_open_sysdir(c, &e);
        if (r == 0)
                r = unit_read_old(c, &e);
        if (r == 0)
                r = unit_new_text(&e);
        if (r != 0)
                return r;
        e.changed = e.removing ? e.exists : !(e.exists && streq(e.old, e.text));
        e.changed |= e.legacy;
        e.diff = change_diff(c, e.changed, e.display, e.exists, e.old, e.removing, e.text);
        if (e.changed && !c->check && (r = unit_write(c, &e)) < 0)
                return r;
        if (c->json) {
                struct json j;
                change_json_begin(&j, e.changed, e.display, e.diff);
                json_kstr(&j, "unit", e.unit);
                json_kbool(&j, "reloaded", e.reloaded);
                change_json_end(c, &j);
        } else if (!c->quiet)
                unit_print_text(&e, c->check);
        return c->check && e.changed ? CMD_WOULD_CHANGE : 0;
}
