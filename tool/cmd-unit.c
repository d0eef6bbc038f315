/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply --unit / remove --unit: LimitMEMLOCK= in a systemd drop-in rdmalimits owns. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dropin.h"
#include "fsutil.h"
#include "size.h"
#include "tool.h"

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
        for (size_t i = 0; i < ELEMENTSOF(types); i++) {
                size_t tl = strlen(types[i]);
                if (len > tl && streq(arg + len - tl, types[i]))
                        typed = true;
        }
        if (!typed && strchr(arg, '.')) {
                *why = "LimitMEMLOCK= applies to .service, .socket, .mount and .swap units";
                return -EINVAL;
        }
        if (asprintf(ret, "%s%s", arg, typed ? "" : ".service") < 0)
                return -ENOMEM;
        return 0;
}

/* Where systemd looks for units and their drop-ins, strongest first (systemd.unit(5)). */
static const char *const unit_paths[] = { "/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",
                                          "/usr/lib/systemd/system", "/lib/systemd/system" };

/* Does the unit (or, for "foo@bar.service", its template "foo@.service") exist? */
static bool unit_exists(const struct ctx *c, const char *unit) {
        _cleanup_free_ char *tmpl = NULL;
        const char *at = strchr(unit, '@'), *dot = strrchr(unit, '.');
        struct stat st;

        if (at && dot && at < dot && asprintf(&tmpl, "%.*s%s", (int)(at - unit + 1), unit, dot) < 0)
                return true;    /* cannot tell: do not refuse */
        for (size_t i = 0; i < ELEMENTSOF(unit_paths); i++) {
                _cleanup_free_ char *p = NULL, *t = NULL;
                if (asprintf(&p, "%s/%s", unit_paths[i], unit) >= 0 && fs_stat_in_root(c->root, p, false, &st) == 0)
                        return true;
                if (tmpl && asprintf(&t, "%s/%s", unit_paths[i], tmpl) >= 0 && fs_stat_in_root(c->root, t, false, &st) == 0)
                        return true;
        }
        return false;
}

/* Does a drop-in file set LimitMEMLOCK= (outside comments)? */
static bool sets_memlock(const struct ctx *c, const char *path) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        size_t n = 0;

        if (fs_fopen_in_root(c->root, path, &f) < 0)
                return false;
        while (getline(&line, &n, f) > 0) {
                const char *p = line + strspn(line, " \t");
                if (strncmp(p, "LimitMEMLOCK", 12) == 0 && strchr(p, '='))
                        return true;
        }
        return false;
}

/*
 * A drop-in applied after ours that sets LimitMEMLOCK= wins: systemd reads the drop-ins of
 * every unit directory sorted by file name (a name in a stronger directory masks the same
 * name in weaker ones), and the last assignment counts.  *ret_winner: the last such file.
 */
static int later_dropin(const struct ctx *c, const char *unit, const char *name, char **ret_winner) {
        *ret_winner = NULL;
        for (size_t i = 0; i < ELEMENTSOF(unit_paths); i++) {
                _cleanup_free_ char *d = NULL;
                DIR *dir = NULL;
                if (asprintf(&d, "%s/%s.d", unit_paths[i], unit) < 0)
                        return -ENOMEM;
                if (fs_opendir_in_root(c->root, d, &dir) < 0)
                        continue;
                for (struct dirent *de; (de = readdir(dir));) {
                        _cleanup_free_ char *p = NULL;
                        size_t l = strlen(de->d_name);
                        if (de->d_name[0] == '.' || l < 6 || !streq(de->d_name + l - 5, ".conf") ||
                            strcmp(de->d_name, name) <= 0)
                                continue;
                        if (asprintf(&p, "%s/%s", d, de->d_name) < 0) {
                                closedir(dir);
                                return -ENOMEM;
                        }
                        if (sets_memlock(c, p) && (!*ret_winner || strcmp(strrchr(*ret_winner, '/') + 1, de->d_name) < 0)) {
                                free(*ret_winner);
                                *ret_winner = TAKE_PTR(p);
                        }
                }
                closedir(dir);
        }
        return 0;
}

/* apply --unit: refuse a unit that does not exist (unless --force) and an entry a later
 * drop-in overrides (unless --allow-overridden).  0, or a CMD_* outcome. */
static int unit_precheck(const struct ctx *c, const char *unit, const char *name) {
        _cleanup_free_ char *winner = NULL;

        if (!unit_exists(c, unit) && !c->force) {
                log_error("unit %s does not exist%s: nothing would read the drop-in (--force writes it anyway)", unit,
                          c->root ? " in the tree" : "");
                return CMD_FINDINGS;
        }
        if (later_dropin(c, unit, name, &winner) < 0) {
                log_error("out of memory");
                return CMD_FINDINGS;
        }
        if (!winner)
                return 0;
        _cleanup_free_ char *shown = fs_root_path(c->root, winner);
        if (c->allow_overridden) {
                log_warning(c, "%s sets LimitMEMLOCK= after %s and wins; --allow-overridden: writing it all the same",
                            shown ? shown : winner, name);
                return 0;
        }
        log_error("%s sets LimitMEMLOCK= and is applied after %s: the new limit would not take effect; nothing "
                  "written (change that drop-in, or --allow-overridden)", shown ? shown : winner, name);
        return CMD_NOT_EFFECTIVE;
}

static void limit_text(uint64_t v, char buf[static SIZE_FMT_MAX]) {
        if (v == SIZE_INFINITY)
                snprintf(buf, SIZE_FMT_MAX, "infinity");
        else
                size_format_arg(v, buf);
}

static int daemon_reload(void) {
        pid_t pid = fork();
        if (pid < 0)
                return negative_errno();
        if (pid == 0) {
                execlp("systemctl", "systemctl", "daemon-reload", (char *)NULL);
                _exit(127);
        }
        int st;
        while (waitpid(pid, &st, 0) < 0)
                if (errno != EINTR)
                        return negative_errno();
        return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

int cmd_unit(struct ctx *c, bool removing) {
        _cleanup_free_ char *unit = NULL, *sysdir = NULL, *dir = NULL, *display = NULL, *old = NULL, *text = NULL;
        _cleanup_free_ char *diff = NULL, *dname = NULL;
        _cleanup_close_ int sfd = -1, lockfd = -1, dfd = -1, fd = -1;
        const char *why = "invalid", *name = DROPIN_UNIT_NAME;
        uint64_t soft = 0, hard = 0;
        size_t old_len = 0;
        bool exists = false;
        int r;

        if (unit_name(c->unit, &unit, &why) < 0) {
                log_error("--unit '%s': %s", c->unit, why);
                return CMD_USAGE;
        }
        if (c->file) {
                log_error("--file does not apply with --unit (the drop-in is %s)", DROPIN_UNIT_NAME);
                return CMD_USAGE;
        }
        if (!removing) {
                /* apply --unit UNIT SIZE: the positional argument is the size */
                if (c->argc != 1 && !(c->argc == 0 && (c->soft || c->hard))) {
                        log_error("apply --unit UNIT takes one SIZE (or --soft/--hard), no domain");
                        return CMD_USAGE;
                }
                bool has_s = false, has_h = false;
                if (c->argc == 1) {
                        if (ctx_parse_size("size", c->argv[0], &soft) < 0)
                                return CMD_USAGE;
                        hard = soft;
                        has_s = has_h = true;
                }
                if (c->soft && ctx_parse_size("--soft", c->soft, &soft) == 0)
                        has_s = true;
                else if (c->soft)
                        return CMD_USAGE;
                if (c->hard && ctx_parse_size("--hard", c->hard, &hard) == 0)
                        has_h = true;
                else if (c->hard)
                        return CMD_USAGE;
                if (!has_s || !has_h) {
                        log_error("LimitMEMLOCK= sets both limits: give SIZE, or --soft and --hard");
                        return CMD_USAGE;
                }
                if (soft == 0 || hard == 0) {
                        log_error("memlock 0 makes every RDMA memory registration fail");
                        return CMD_USAGE;
                }
                if (soft > hard) {
                        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
                        log_error("the soft limit %s is above the hard limit %s", size_format(soft, a), size_format(hard, b));
                        return CMD_USAGE;
                }
        } else if (c->argc != 0) {
                log_error("remove --unit UNIT takes no other argument");
                return CMD_USAGE;
        }
        if (!removing && (r = unit_precheck(c, unit, name)))
                return r;

        sysdir = ctx_path(c, UNIT_DIR);
        if (!sysdir || asprintf(&dname, "%s.d", unit) < 0 || asprintf(&dir, "%s/%s", sysdir, dname) < 0 ||
            asprintf(&display, "%s/%s", dir, name) < 0) {
                log_error("out of memory");
                return CMD_FINDINGS;
        }
        /* the unit directory inside --root (a link in the tree never leads to the host), locked
         * there (its dotfiles are no units), then UNIT.d in it, never through a link */
        r = fs_open_dir_in_root(c->root, UNIT_DIR, 0, &sfd);
        if (r < 0 && (r != -ENOENT || (!removing && !c->check))) {
                if (r == -ENOENT || r == -ENOTDIR)
                        log_error("%s does not exist: is this a systemd system?", sysdir);
                else if (r == -ELOOP && fs_root_is_set(c->root))
                        log_error("%s: is or passes through a symbolic link that does not resolve inside %s; "
                                  "refusing to follow it out of the tree", sysdir, c->root);
                else
                        log_error("%s: %s", sysdir, strerror(-r));
                return CMD_FINDINGS;
        }
        if (sfd >= 0 && !c->check) {
                r = ctx_lock(c, sfd, sysdir, &lockfd);
                if (r)
                        return r;
        }
        errno = ENOENT;
        if (sfd >= 0)
                dfd = openat(sfd, dname, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (dfd < 0 && errno == ENOENT && sfd >= 0 && !removing && !c->check) {
                if (mkdirat(sfd, dname, 0755) < 0 && errno != EEXIST) {
                        log_error("%s: %s", dir, strerror(errno));
                        return CMD_FINDINGS;
                }
                dfd = openat(sfd, dname, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        }
        if (dfd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
                struct stat st;
                if (fstatat(sfd, dname, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
                        log_error("%s is a symbolic link; refusing to write through it", dir);
                        return CMD_FINDINGS;
                }
                errno = ENOTDIR;
        }
        if (dfd >= 0) {
                fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
                if (fd < 0 && errno == ELOOP) {
                        log_error("%s is a symbolic link; refusing to write through it", display);
                        return CMD_FINDINGS;
                }
                if (fd < 0 && errno != ENOENT) {
                        log_error("%s: %s", display, strerror(errno));
                        return CMD_FINDINGS;
                }
        } else if (errno != ENOENT) {
                log_error("%s: %s", dir, strerror(errno));
                return CMD_FINDINGS;
        }
        if (fd >= 0) {
                struct stat st;
                if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                        log_error("%s is not a regular file; refusing to replace it", display);
                        return CMD_FINDINGS;
                }
                r = fs_read_all(fd, 65536, &old, &old_len);
                if (r < 0) {
                        log_error("%s: %s", display, fs_strerror(r));
                        return CMD_FINDINGS;
                }
                size_t ml = strlen(UNIT_MARKER);
                if (!(old_len >= ml && memcmp(old, UNIT_MARKER, ml) == 0) && !c->force) {
                        log_error("%s was not written by rdmalimits (no marker line); refusing to change it "
                                  "(--force takes it over)", display);
                        return CMD_FINDINGS;
                }
                exists = true;
        }
        if (!old && !(old = strdup(""))) {
                log_error("out of memory");
                return CMD_FINDINGS;
        }
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
        if (!removing) {
                limit_text(soft, a);
                limit_text(hard, b);
                /* the section of the unit's type: [Service], [Socket], [Mount], [Swap] */
                const char *dot = strrchr(unit, '.');
                char section[16];
                snprintf(section, sizeof section, "%s", dot + 1);
                section[0] = (char)(section[0] - 'a' + 'A');
                if (asprintf(&text, "%s\n[%s]\nLimitMEMLOCK=%s%s%s\n", UNIT_MARKER, section, a, soft == hard ? "" : ":",
                             soft == hard ? "" : b) < 0) {
                        log_error("out of memory");
                        return CMD_FINDINGS;
                }
        } else if (!(text = strdup(""))) {
                log_error("out of memory");
                return CMD_FINDINGS;
        }
        bool changed = removing ? exists : !(exists && streq(old, text));
        if (changed && (c->diff || c->json))
                diff = unified_diff_string(exists ? display : "/dev/null", old, removing ? "/dev/null" : display, text);
        if (c->diff && diff && !c->json)
                fputs(diff, stdout);
        if (changed && !c->check) {
                r = removing ? fs_unlink_sync(dfd, name) : fs_write_atomic(dfd, name, text, strlen(text), 0644);
                if (r == FS_ERR_DIRSYNC) {
                        log_error("%s: %s, but syncing its directory to disk failed (%s): check the disk",
                                  display, removing ? "removed" : "written", strerror(EIO));
                        return CMD_FINDINGS;
                }
                if (r < 0) {
                        log_error("%s: cannot write: %s; the file is unchanged", display, strerror(-r));
                        return CMD_FINDINGS;
                }
                if (removing)
                        (void)unlinkat(sfd, dname, AT_REMOVEDIR); /* only if empty */
        }
        bool reloaded = false;
        if (changed && !c->check && c->reload) {
                if (c->root)
                        log_warning(c, "--reload ignored with --root");
                else if (access("/run/systemd/system", F_OK) < 0)
                        log_warning(c, "systemd is not running here: nothing to reload");
                else if ((r = daemon_reload()) < 0)
                        log_warning(c, "systemctl daemon-reload failed");
                else
                        reloaded = true;
        }
        if (c->json)
                print_change_json(c, changed, display, diff, unit, reloaded);
        else if (!c->quiet) {
                if (!changed)
                        printf("%s: unchanged\n", display);
                else if (c->check)
                        printf("%s: would be %s\n", display, removing ? "removed" : exists ? "changed" : "created");
                else {
                        printf("%s: %s\n", display, removing ? "removed" : exists ? "updated" : "created");
                        if (!reloaded)
                                printf("Now run: systemctl daemon-reload && systemctl restart %s\n", unit);
                        else
                                printf("systemd reloaded; restart the unit for it to take effect: systemctl restart %s\n", unit);
                }
        }
        return c->check && changed ? CMD_WOULD_CHANGE : 0;
}
