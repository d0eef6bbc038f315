/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply and remove: edit the drop-in rdmalimits owns, safely. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dropin.h"
#include "fsutil.h"
#include "ident.h"
#include "size.h"
#include "tool.h"

struct edit {
        const char *name;        /* file name in limits.d */
        char *dir;               /* limits.d path under the root */
        char *display;           /* file path for messages */
        int dirfd;
        int lockfd;              /* held until edit_done() */
        bool exists;
        char *old;               /* current content ("" when new) */
        size_t old_len;
        struct dropin d;
};

static void edit_done(struct edit *e) {
        free(e->dir);
        free(e->display);
        free(e->old);
        dropin_clear(&e->d);
        if (e->dirfd >= 0)
                close(e->dirfd);
        if (e->lockfd >= 0)
                close(e->lockfd);
}

/* Open limits.d, lock it, read and parse the drop-in.  Returns 0 or EXIT_* > 0. */
static int edit_begin(const struct ctx *c, struct edit *e, bool create_dir) {
        const char *why;
        struct diag_list diags = {};
        _cleanup_close_ int fd = -1;
        struct stat st;
        int r;

        *e = (struct edit){ .dirfd = -1, .lockfd = -1 };
        e->name = c->file ? c->file : DROPIN_DEFAULT_NAME;
        if (dropin_check_name(e->name, &why) < 0) {
                log_error("--file '%s': %s", e->name, why);
                return EXIT_USAGE;
        }
        e->dir = ctx_path(c, LC_LIMITS_DIR);
        if (!e->dir || asprintf(&e->display, "%s/%s", e->dir, e->name) < 0) {
                log_error("out of memory");
                return EXIT_FINDINGS;
        }
        /* under --root, resolved inside the tree: a link in it never leads to the host's files */
        r = fs_open_dir_in_root(c->root, LC_LIMITS_DIR, create_dir ? FS_DIR_CREATE : 0, &e->dirfd);
        if (r == -ELOOP && fs_root_is_set(c->root)) {
                log_error("%s: is or passes through a symbolic link that does not resolve inside %s; "
                          "refusing to follow it out of the tree", e->dir, c->root);
                return EXIT_FINDINGS;
        }
        if (r < 0) {
                log_error("%s: %s", e->dir, strerror(-r));
                return EXIT_FINDINGS;
        }
        /* --check reads only: renames are atomic, and it leaves no lock file behind */
        r = c->check ? 0 : ctx_lock(c, e->dirfd, e->dir, &e->lockfd);
        if (r)
                return r;
        fd = openat(e->dirfd, e->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                if (errno == ENOENT) {
                        e->old = strdup("");
                        return e->old ? 0 : (log_error("out of memory"), EXIT_FINDINGS);
                }
                if (errno == ELOOP) {
                        log_error("%s is a symbolic link; refusing to write through it", e->display);
                        return EXIT_FINDINGS;
                }
                log_error("%s: %s", e->display, strerror(errno));
                return EXIT_FINDINGS;
        }
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                log_error("%s is not a regular file; refusing to replace it", e->display);
                return EXIT_FINDINGS;
        }
        e->exists = true;
        r = fs_check_trusted(&st);
        if (r < 0 && !c->force) {
                log_error("%s is %s: someone else may have changed it; refusing to take its lines over "
                          "(fix its owner and mode, or --force)", e->display, fs_strerror(r));
                return EXIT_FINDINGS;
        }
        r = fs_read_all(fd, 1024 * 1024, &e->old, &e->old_len);
        if (r < 0) {
                log_error("%s: %s", e->display, fs_strerror(r));
                return EXIT_FINDINGS;
        }
        if (!dropin_has_marker(e->old, e->old_len) && !c->force) {
                log_error("%s was not written by rdmalimits (no marker line); refusing to change it "
                          "(use --file to pick another name, or --force to take it over)", e->display);
                return EXIT_FINDINGS;
        }
        r = dropin_parse(e->old, e->old_len, e->display, &e->d, &diags);
        if (r < 0) {
                diag_print(&diags, stderr, false);
                diag_list_clear(&diags);
                log_error("%s has lines rdmalimits does not write; fix them by hand first", e->display);
                return EXIT_FINDINGS;
        }
        diag_list_clear(&diags);
        return 0;
}

/* Warn about entries elsewhere that win over the new ones. */
static void warn_overrides(const struct ctx *c, const struct edit *e, const char *new_text, const char *domain) {
        _cleanup_free_ char *rel = NULL;
        struct lc_tree *t = NULL;
        struct ident *id = NULL;
        char where[4096];
        unsigned shown = 0, more = 0;

        if (lc_tree_load(c->root, c->flavour, NULL, &t) < 0 || ident_new(c->root, &id) < 0)
                goto out;
        /* find our file in the tree and stand the new text in for it */
        ssize_t ours = -1;
        for (size_t i = 0; i < t->n_files; i++)
                if (streq(t->files[i].path, e->display))
                        ours = (ssize_t)i;
        /* simplest faithful model: a tree of the real files, with ours replaced */
        {
                struct lc_tree *nt = NULL;
                if (lc_tree_load_text(e->display, new_text, strlen(new_text), c->flavour, &nt) < 0)
                        goto out;
                for (size_t i = 0; i < nt->n_lines; i++) {
                        const struct lc_line *mine = &nt->lines[i];
                        if (!streq(mine->domain, domain))
                                continue;
                        for (size_t k = 0; k < t->n_lines; k++) {
                                const struct lc_line *o = &t->lines[k];
                                if ((ssize_t)o->file == ours)
                                        continue;
                                /* compare as if ours stood at its place in read order */
                                bool later = ours < 0 ? strcmp(t->files[o->file].display, e->name) > 0
                                                      : (ssize_t)o->file > ours;
                                if (o->file == 0 && !t->conf_override)
                                        later = false; /* limits.conf is read first */
                                enum lc_rank rm = lc_line_rank(mine), ro = lc_line_rank(o);
                                if (ro > rm || (ro == rm && !later))
                                        continue;
                                if (!(o->nfields == 4 && o->item_kind == LC_ITEM_MEMLOCK && o->type_mask &&
                                      o->value_ok && o->range != LC_RANGE_ERR && o->domain[0] != '%'))
                                        continue;
                                if (!(o->type_mask & mine->type_mask))
                                        continue;
                                bool always = streq(o->domain, mine->domain);
                                const struct id_user *u;
                                const struct id_group *g;
                                if (!always && o->domain[0] != '@' && o->range == LC_RANGE_NONE && !streq(o->domain, "*") &&
                                    mine->domain[0] == '@' && mine->range == LC_RANGE_NONE) {
                                        /* a user entry: does it concern a member of our group? */
                                        if (ident_user(id, o->domain, &u) < 0 || ident_group(id, mine->domain + 1, &g) < 0 ||
                                            !ident_user_in_group(id, u, g))
                                                continue;
                                }
                                if (!always && mine->range == LC_RANGE_NONE && mine->domain[0] != '@' &&
                                    !streq(mine->domain, "*")) {
                                        if (ident_user(id, mine->domain, &u) < 0 || lc_line_match(t, id, u, o) < 0)
                                                continue;
                                        always = true;
                                }
                                if (shown >= 5) {
                                        more++;
                                        continue;
                                }
                                shown++;
                                log_warning("%s (%s %s memlock) %s the new %s entry for %s%s",
                                            lc_line_where(t, o, where, sizeof where), o->domain, o->type,
                                            always ? "overrides" : "may override",
                                            mine->type_mask == LC_SOFT ? "soft" : "hard", domain,
                                            always ? "" : " (for the users both match)");
                        }
                }
                lc_tree_free(nt);
        }
        if (more)
                log_warning("... and %u more entries that may override it (see 'rdmalimits list')", more);
out:
        lc_tree_free(t);
        ident_free(id);
}

static void warn_unresolved(const struct ctx *c, const char *domain) {
        struct ident *id = NULL;
        const struct id_user *u;
        const struct id_group *g;

        if (ident_new(c->root, &id) < 0)
                return;
        if (domain[0] == '@' && !strchr(domain, ':')) {
                if (ident_group(id, domain + 1, &g) == -ENOENT)
                        log_warning("group '%s' does not exist%s: the entry matches nobody until it does", domain + 1,
                                    c->root ? " in the root's etc/group" : "");
        } else if (domain[0] != '@' && !strchr(domain, ':') && !streq(domain, "*")) {
                if (ident_user(id, domain, &u) == -ENOENT)
                        log_warning("user '%s' does not exist%s: the entry matches nobody until it does", domain,
                                    c->root ? " in the root's etc/passwd" : "");
        }
        ident_free(id);
}

/* Validate, show, write.  Returns an exit code. */
static int edit_commit(const struct ctx *c, struct edit *e, const char *domain, bool removing) {
        _cleanup_free_ char *text = NULL, *diff = NULL;
        struct lc_tree *t = NULL;
        bool delete_file = removing && e->d.n == 0;
        int r;

        text = delete_file ? strdup("") : dropin_render(&e->d);
        if (!text) {
                log_error("out of memory");
                return EXIT_FINDINGS;
        }
        /* validate: pam_limits must read back exactly the entries we mean */
        if (!delete_file) {
                r = lc_tree_load_text(e->display, text, strlen(text), c->flavour, &t);
                if (r < 0) {
                        log_error("out of memory");
                        return EXIT_FINDINGS;
                }
                size_t k = 0;
                bool ok = true;
                for (size_t i = 0; i < t->n_lines; i++) {
                        const struct lc_line *l = &t->lines[i];
                        if (k >= e->d.n || l->nfields != 4 || l->item_kind != LC_ITEM_MEMLOCK || l->value_misread ||
                            !l->value_ok || l->type_mask != e->d.v[k].type || l->bytes != e->d.v[k].bytes ||
                            !streq(l->domain, e->d.v[k].domain) || l->range == LC_RANGE_ERR) {
                                ok = false;
                                break;
                        }
                        k++;
                }
                lc_tree_free(t);
                if (!ok || k != e->d.n) {
                        log_error("internal error: the rendered drop-in does not read back as intended; nothing written");
                        return EXIT_FINDINGS;
                }
        }
        bool changed = delete_file ? e->exists : !(e->exists && streq(text, e->old));
        if (changed && (c->diff || c->json))
                diff = unified_diff_string(e->exists ? e->display : "/dev/null", e->old,
                                           delete_file ? "/dev/null" : e->display, text);
        if (c->diff && diff && !c->json)
                fputs(diff, stdout);

        if (changed && !c->check) {
                r = delete_file ? fs_unlink_sync(e->dirfd, e->name)
                                : fs_write_atomic(e->dirfd, e->name, text, strlen(text), 0644);
                if (r == FS_ERR_DIRSYNC) {
                        log_error("%s: %s, but syncing its directory to disk failed (%s): check the disk",
                                  e->display, delete_file ? "removed" : "written", strerror(EIO));
                        return EXIT_FINDINGS;
                }
                if (r < 0) {
                        log_error("%s: cannot write: %s; the file is unchanged", e->display, strerror(-r));
                        return EXIT_FINDINGS;
                }
        }
        if (c->json)
                print_change_json(c, changed, e->display, diff, NULL, false);
        else if (!c->quiet) {
                if (!changed)
                        printf("%s: unchanged, %s\n", e->display,
                               removing ? "no entries for that domain" : "it already says that");
                else if (c->check)
                        printf("%s: would be %s\n", e->display, delete_file ? "removed" : e->exists ? "changed" : "created");
                else
                        printf("%s: %s\n", e->display, delete_file ? "removed (no entries left)" : e->exists ? "updated" : "created");
        }
        if (!removing && !c->json)
                warn_overrides(c, e, text, domain);
        if (c->check && changed)
                return EXIT_WOULD_CHANGE;
        return EXIT_OK;
}

int cmd_apply(struct ctx *c) {
        if (c->unit)
                return cmd_unit(c, false);
        if (c->argc < 1) {
                log_error("apply: expected DOMAIN [SIZE] (or --unit UNIT SIZE)");
                return EXIT_USAGE;
        }
        const char *domain = c->argv[0], *why;
        uint64_t size = 0, soft = 0, hard = 0;
        bool has_soft = false, has_hard = false;
        struct edit e;
        int r;

        if (dropin_check_domain(domain, &why) < 0) {
                log_error("domain '%s': %s", domain, why);
                return EXIT_USAGE;
        }
        if (c->argc > 1) {
                if (ctx_parse_size("size", c->argv[1], &size) < 0)
                        return EXIT_USAGE;
                soft = hard = size;
                has_soft = has_hard = true;
        }
        if (c->soft) {
                if (ctx_parse_size("--soft", c->soft, &soft) < 0)
                        return EXIT_USAGE;
                has_soft = true;
        }
        if (c->hard) {
                if (ctx_parse_size("--hard", c->hard, &hard) < 0)
                        return EXIT_USAGE;
                has_hard = true;
        }
        if (!has_soft && !has_hard) {
                log_error("apply: give a SIZE, or --soft and/or --hard");
                return EXIT_USAGE;
        }
        if (has_soft && dropin_check_bytes(soft, &why) < 0) {
                log_error("soft size: %s", why);
                return EXIT_USAGE;
        }
        if (has_hard && dropin_check_bytes(hard, &why) < 0) {
                log_error("hard size: %s", why);
                return EXIT_USAGE;
        }
        if (has_soft && has_hard && soft > hard) {
                char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
                log_error("the soft limit %s is above the hard limit %s", size_format(soft, a), size_format(hard, b));
                return EXIT_USAGE;
        }
        r = edit_begin(c, &e, !c->check);
        if (r) {
                edit_done(&e);
                return r;
        }
        if ((has_soft && dropin_set(&e.d, domain, LC_SOFT, soft) < 0) ||
            (has_hard && dropin_set(&e.d, domain, LC_HARD, hard) < 0)) {
                log_error("out of memory");
                edit_done(&e);
                return EXIT_FINDINGS;
        }
        /* a value given apart keeps the domain's other entry: it must still fit */
        uint64_t s_now = 0, h_now = UINT64_MAX;
        bool s_set = false;
        for (size_t i = 0; i < e.d.n; i++)
                if (streq(e.d.v[i].domain, domain)) {
                        if (e.d.v[i].type == LC_SOFT) {
                                s_now = e.d.v[i].bytes;
                                s_set = true;
                        } else
                                h_now = e.d.v[i].bytes;
                }
        if (s_set && s_now > h_now) {
                char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
                log_error("%s would get soft %s above its hard %s in %s; give both --soft and --hard", domain,
                          size_format(s_now, a), size_format(h_now, b), e.display);
                edit_done(&e);
                return EXIT_USAGE;
        }
        warn_unresolved(c, domain);
        r = edit_commit(c, &e, domain, false);
        edit_done(&e);
        return r;
}

int cmd_remove(struct ctx *c) {
        if (c->unit)
                return cmd_unit(c, true);
        if (c->argc != 1) {
                log_error("remove: expected DOMAIN (or --unit UNIT)");
                return EXIT_USAGE;
        }
        const char *domain = c->argv[0], *why;
        struct edit e;
        int r;

        if (dropin_check_domain(domain, &why) < 0) {
                log_error("domain '%s': %s", domain, why);
                return EXIT_USAGE;
        }
        r = edit_begin(c, &e, false);
        if (r) {
                edit_done(&e);
                return r;
        }
        if (!e.exists) {
                if (c->json)
                        print_change_json(c, false, e.display, "", NULL, false);
                else if (!c->quiet)
                        printf("%s: does not exist, nothing to remove\n", e.display);
                edit_done(&e);
                return EXIT_OK;
        }
        dropin_remove(&e.d, domain);
        r = edit_commit(c, &e, domain, true);
        edit_done(&e);
        return r;
}
