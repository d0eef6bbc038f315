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
#include "pamstack.h"
#include "rlmodel.h"
#include "session.h"
#include "ident-files.h"
#include "ident.h"
#include "strv.h"
#include "size.h"
#include "strmap.h"
#include "tool.h"

struct edit {
        const char *name;        /* file name in limits.d */
        char *dir;               /* limits.d path under the root */
        char *display;           /* file path for messages */
        int dirfd;
        int lockfd;              /* held until edit_done() */
        bool exists;
        bool new_dir;            /* limits.d did not exist: apply makes it (--check: would) */
        bool legacy;             /* DROPIN_LEGACY_NAME holds entries too: they move to name (the
                                  * drop-in's own win where both set a slot) and it goes */
        char *legacy_display;
        char *legacy_old;        /* its content */
        char *old;               /* current content ("" when new) */
        size_t old_len;
        struct dropin d;
};

static void edit_done(struct edit *e) {
        free(e->dir);
        free(e->display);
        free(e->legacy_display);
        free(e->legacy_old);
        free(e->old);
        dropin_clear(&e->d);
        closep(&e->dirfd);
        closep(&e->lockfd);
}

/* Is limits.d missing, nothing at all at its name (not even a link), and could apply make it
 * (its parent is a directory; when it is not, apply fails to, and --check with it)?  A missing
 * limits.d is one that holds no drop-in: remove has nothing to take out, apply --check says the
 * directory and the file would be made.  1, 0, or -ENOMEM. */
static int limits_dir_missing(const struct ctx *c, bool apply) {
        _cleanup_free_ char *parent = strndup(LC_LIMITS_DIR, (size_t)(strrchr(LC_LIMITS_DIR, '/') - LC_LIMITS_DIR));
        struct stat st;

        if (!parent)
                return -ENOMEM;
        if (fs_stat_in_root(c->root, LC_LIMITS_DIR, true, &st) != -ENOENT)
                return 0;
        return !apply || (fs_stat_in_root(c->root, parent, false, &st) == 0 && S_ISDIR(st.st_mode));
}

/* A drop-in's text (display in messages) into d: it must carry the marker (unless --force) and
 * hold only lines rdmalimits writes.  0 or CMD_FINDINGS, said. */
static int edit_parse(const struct ctx *c, const char *display, const char *text, size_t len, struct dropin *d) {
        _cleanup_(diag_list_clear) struct diag_list diags = {};

        if (!dropin_has_marker(text, len) && !c->force) {
                log_error("%s was not written by rdmalimits (no marker line); refusing to change it "
                          "(use --file to pick another name, or --force to take it over)", display);
                return CMD_FINDINGS;
        }
        if (dropin_parse(text, len, display, d, &diags) < 0) {
                diag_print(&diags, stderr, false);
                log_error("%s has lines rdmalimits does not write; fix them by hand first", display);
                return CMD_FINDINGS;
        }
        return 0;
}

/* Open limits.d, lock it, read and parse the drop-in into e (dirfd and lockfd -1).  apply makes
 * limits.d when it is missing (--check: says it would); remove finds no drop-in there.  Returns
 * 0 or a CMD_* outcome. */
static int edit_begin(const struct ctx *c, struct edit *e, bool apply) {
        const char *why;
        int r;

        e->name = c->file ? c->file : DROPIN_DEFAULT_NAME;
        if (dropin_check_name(e->name, &why) < 0) {
                log_error("--file '%s': %s", e->name, why);
                return CMD_USAGE;
        }
        e->dir = fs_root_path(c->root, LC_LIMITS_DIR);
        if (!e->dir || asprintf(&e->display, "%s/%s", e->dir, e->name) < 0)
                return log_oom();
        r = limits_dir_missing(c, apply);
        if (r < 0)
                return log_oom();
        e->new_dir = r > 0 && apply;
        if (r > 0 && (!apply || c->check))
                return (e->old = strdup("")) ? 0 : log_oom();   /* nothing to read, lock or write */
        /* under --root, resolved inside the tree: a link in it never leads to the host's files */
        r = ctx_open_dir_locked(c, LC_LIMITS_DIR, apply && !c->check ? FS_DIR_CREATE : 0, e->dir, &e->dirfd,
                                &e->lockfd);
        if (r)
                return r;
        r = managed_read(c, e->dirfd, e->name, e->display, 1024 * 1024, true, &e->old, &e->old_len);
        if (r < 0)
                return r;
        e->exists = r > 0;
        if (e->exists && (r = edit_parse(c, e->display, e->old, e->old_len, &e->d)))
                return r;
        /* the default name used to be DROPIN_LEGACY_NAME: its entries move to the new name, with
         * the drop-in's own where both set a slot (pam_limits reads the new name last) */
        if (!c->file && faccessat(e->dirfd, DROPIN_LEGACY_NAME, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
                _cleanup_(dropin_clear) struct dropin l = {};
                size_t len = 0;
                if (asprintf(&e->legacy_display, "%s/%s", e->dir, DROPIN_LEGACY_NAME) < 0)
                        return log_oom();
                r = managed_read(c, e->dirfd, DROPIN_LEGACY_NAME, e->legacy_display, 1024 * 1024, true, &e->legacy_old,
                                 &len);
                if (r < 0)
                        return r;
                if ((r = edit_parse(c, e->legacy_display, e->legacy_old, len, &l)))
                        return r;
                for (size_t i = 0; i < l.n; i++)
                        if (!dropin_has(&e->d, l.v[i].domain, l.v[i].type) &&
                            dropin_set(&e->d, l.v[i].domain, l.v[i].type, l.v[i].bytes) < 0)
                                return log_oom();
                e->legacy = true;
        }
        return 0;
}

/*
 * Does the entry take effect?  The tree as pam_limits would read it with the drop-in's new
 * text (lc_tree_load_edited()), and for each known user the domain matches (the user; a
 * group's members; for `*`, uid ranges and gid forms a sample of the users of passwd, at
 * most EFFECT_USERS) the session's memlock resolved as pam_limits does: the drop-in's line
 * must hold every slot it sets.  Nothing is written before this is known.
 */
#define EFFECT_USERS 50
#define EFFECT_NAMED 200   /* and at most this many more, named by other lines */
#define EFFECT_SHOWN 8

/* Why another entry wins, which decides the remedy that works. */
enum {
        LOSS_LATER = 1,          /* an entry of the same rank in a file read later */
        LOSS_STRONGER = 2,       /* an entry of a stronger rank (a user line beats @group, @group beats *) */
        LOSS_STOP = 4,           /* a '-' line stops pam_limits before */
        LOSS_FAILS = 8,          /* pam_limits fails or refuses the session */
        LOSS_CLAMPED = 16,       /* the soft value is above the hard limit another entry sets */
        LOSS_POLICY = 32,        /* pam_rdmalimit runs after pam_limits and sets another value */
};

struct effect {
        size_t users;            /* known users checked */
        size_t overridden;       /* of them, those another entry wins for */
        char *why[EFFECT_SHOWN]; /* "alice: hard from FILE:LINE (...)" */
        size_t n_why;
        unsigned losses;         /* LOSS_* seen */
        char later_file[256];    /* LOSS_LATER: the last file name that wins that way */
        char policy_file[256];   /* LOSS_POLICY: the policy */
};

/*
 * The policies the pam_rdmalimit lines that follow a pam_limits line in a session stack read
 * (each line's conf=, else the default), with the hardware each sees for "auto": a rule that
 * raises memlock above the entry, or with lower = true sets less, ends every session of such a
 * stack with another value than the entry's.  Loaded once, when an entry is checked.
 */
#define MODULE_VIEW_MAX 8

struct module_view {
        bool loaded;
        struct tool_session reads;       /* the copies the lines read (tool_line_copy()) */
        size_t v[MODULE_VIEW_MAX];       /* indexes into reads.copies (which grows) */
        char service[MODULE_VIEW_MAX][256];   /* the first service whose stack has the line */
        size_t n;
};

static int stack_module_copies(const char *service, void *data) {
        struct module_view *v = data;
        _cleanup_(pam_stack_clear) struct pam_stack st = {};
        int r = pam_stack_load(v->reads.ctx->root, service, &st);
        if (r < 0)
                return r;
        /* a pam_rdmalimit line after a pam_limits line, both loadable (the order of the lines,
         * not of a walk: jumps are not followed) */
        bool limits = false;
        for (size_t i = 0; i < st.n && r >= 0; i++) {
                const struct tool_copy *x;
                if (st.v[i].unloadable || st.v[i].fails)
                        continue;
                if (streq(st.v[i].name, "pam_limits"))
                        limits = true;
                else if (limits && streq(st.v[i].name, "pam_rdmalimit") && v->n < MODULE_VIEW_MAX &&
                         (r = tool_line_copy(&v->reads, st.v[i].args, true, &x)) >= 0) {
                        size_t idx = (size_t)(x - v->reads.copies);
                        bool seen = false;
                        for (size_t k = 0; k < v->n && !seen; k++)
                                seen = v->v[k] == idx;
                        if (!seen) {
                                snprintf(v->service[v->n], sizeof v->service[v->n], "%s", service);
                                v->v[v->n++] = idx;
                        }
                }
        }
        return r;
}

static int module_view_load(const struct ctx *c, struct module_view *v) {
        if (v->loaded)
                return 0;
        v->loaded = true;
        v->reads.ctx = c;
        int r = pam_for_each_service(c->root, stack_module_copies, v);
        return r == -ENOMEM ? r : 0;
}

static void module_view_clear(struct module_view *v) {
        tool_session_clear(&v->reads);
        *v = (struct module_view){};
}

/* Each copy of the module after pam_limits' pl for user: one below it?  A loss text
 * (malloc()ed), NULL. */
static char *policy_loss(const struct module_view *v, struct ident *id, const char *user, const struct lc_session *pl,
                         struct effect *f) {
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX], *loss = NULL;

        for (size_t k = 0; k < v->n; k++) {
                const struct tool_copy *x = &v->reads.copies[v->v[k]];
                struct policy_decision dec = {};
                bool matched, eperm = false;
                if (!x->p || session_module_decide(x->p, x->hw, id, user, &dec, &matched) < 0 || !matched)
                        continue;
                /* the service may set any limit (CAP_SYS_RESOURCE), as for the entries */
                struct rl_pair before = { pl->memlock_soft, pl->memlock_hard };
                struct rl_pair after = rl_after_module(before, (struct rl_pair){ dec.soft, dec.hard }, dec.lower, true,
                                                       &eperm);
                if (after.soft == before.soft && after.hard == before.hard)
                        continue;
                f->losses |= LOSS_POLICY;
                snprintf(f->policy_file, sizeof f->policy_file, "%s", x->p->path);
                if (asprintf(&loss, "pam_rdmalimit runs after pam_limits (in the %s stack, among others) and its "
                             "policy %s (line %u, rule %s %s%s) sets soft %s, hard %s", v->service[k], x->p->path,
                             dec.rule->line, dec.rule->user ? "user" : "group",
                             dec.rule->user ? dec.rule->user : dec.rule->group, dec.lower ? ", lower = true" : "",
                             size_format(after.soft, a), size_format(after.hard, b)) < 0)
                        return NULL;
                return loss;
        }
        return NULL;
}

static void effect_clear(struct effect *f) {
        for (size_t i = 0; i < f->n_why; i++)
                free(f->why[i]);
        *f = (struct effect){};
}

struct names_acc {
        char **v;
        size_t n, max;
        struct strmap seen;
};

static int name_add(const char *name, void *data) {
        struct names_acc *a = data;
        if (a->n >= a->max)
                return 1;
        if (!*name || strmap_get(&a->seen, name))
                return 0;       /* a name NSS gives twice is one user */
        if (strmap_put(&a->seen, name, (void *)1) < 0 || !(a->v[a->n] = strdup(name)))
                return -ENOMEM;
        a->n++;
        return 0;
}

/* The user names id knows (ident_each_name(): NSS, or the tree's passwd as the look-ups read
 * it), each once, capped.  A passwd that cannot be read gives no names (the look-ups fail the
 * same way); -ENOMEM. */
static int passwd_names(struct ident *id, char ***ret, size_t *ret_n) {
        struct names_acc a = { .max = EFFECT_USERS * 20 };
        int r;

        if (!(a.v = calloc(a.max + 1, sizeof(char *))))
                return -ENOMEM;
        r = ident_each_name(id, false, name_add, &a);
        strmap_clear(&a.seen, NULL);
        if (r == -ENOMEM) {
                strv_free(a.v);
                return r;
        }
        *ret = a.v;
        *ret_n = a.n;
        return 0;
}

/* Is l a line of the new entry: in the drop-in (file ours), of its domain (line's)?  Another
 * domain's line in the same drop-in is another entry. */
static bool is_ours(const struct lc_line *l, size_t ours, const struct lc_line *line) {
        return l && l->file == ours && streq(l->domain ? l->domain : "", line->domain ? line->domain : "");
}

/* The value the drop-in's entry for line's domain asks for slot (its last line of that type),
 * false when it sets none. */
static bool ours_value(const struct lc_tree *t, size_t ours, const struct lc_line *line, unsigned slot,
                       uint64_t *ret) {
        const struct lc_file *f = &t->files[ours];
        bool found = false;

        for (size_t k = f->first; k < f->first + f->n; k++)
                if ((t->lines[k].type_mask & slot) && t->lines[k].value_ok && is_ours(&t->lines[k], ours, line)) {
                        *ret = t->lines[k].rvalue;
                        found = true;
                }
        return found;
}

/* The soft slot is another entry's, but its value is above the hard value the drop-in's entry
 * sets, and pam_limits lowers a soft value above the hard one to it (setup_limits()): the
 * session gets the entry's soft value all the same when that is its hard value. */
static bool soft_clamped_to_ours(const struct lc_tree *t, const struct lc_result *res, size_t ours,
                                 const struct lc_line *line) {
        uint64_t want;

        return res->soft_clamped && is_ours(res->hard.src, ours, line) && ours_value(t, ours, line, LC_SOFT, &want) &&
               want == res->hard.value;
}

/* Why the drop-in's line (of rank ours_rank for this user) does not hold a slot for the user,
 * or NULL when it does (or the session gets its value anyway); the kind of loss added to f. */
static char *slot_loss(const struct lc_tree *t, const struct lc_result *res, unsigned slot, size_t ours,
                       const struct lc_line *line, int ours_rank, struct effect *f) {
        const struct lc_slot *s = slot == LC_SOFT ? &res->soft : &res->hard;
        char where[4096], *out = NULL;

        if (slot == LC_SOFT && res->kind == LC_RES_LIMITS && s->src && !is_ours(s->src, ours, line) &&
            soft_clamped_to_ours(t, res, ours, line))
                return NULL;
        if (res->kind == LC_RES_NO_LIMITS)
                f->losses |= LOSS_STOP;
        else if (res->kind == LC_RES_SERVICE_ERR || res->kind == LC_RES_LOGINS_DENIED)
                f->losses |= LOSS_FAILS;
        else if (s->src && !is_ours(s->src, ours, line)) {
                if ((int)s->rank < ours_rank)
                        f->losses |= LOSS_STRONGER;
                else {
                        const char *d = t->files[s->src->file].display, *b = strrchr(d, '/');
                        f->losses |= LOSS_LATER;
                        snprintf(f->later_file, sizeof f->later_file, "%s", b ? b + 1 : d);
                }
        }
        if (res->kind == LC_RES_NO_LIMITS) {
                if (asprintf(&out, "%s stops pam_limits (no limits)", lc_line_where(t, res->stop, where, sizeof where)) < 0)
                        return NULL;
                return out;
        }
        if (res->kind == LC_RES_SERVICE_ERR || res->kind == LC_RES_LOGINS_DENIED) {
                if (asprintf(&out, "pam_limits %s the session", res->kind == LC_RES_SERVICE_ERR ? "fails" : "refuses") < 0)
                        return NULL;
                return out;
        }
        if (is_ours(s->src, ours, line))
                return NULL;
        if (asprintf(&out, "%s from %s (%s rank)", slot == LC_SOFT ? "soft" : "hard",
                     s->src ? lc_line_where(t, s->src, where, sizeof where) : "the baseline", lc_rank_name(s->rank)) < 0)
                return NULL;
        return out;
}

/* The entry holds its slots, but the session ends with another value: a soft value above the
 * hard limit another entry sets is lowered to it.  Why, or NULL. */
static char *value_loss(const struct lc_tree *t, const struct lc_result *res, const struct lc_session *pl,
                        unsigned slots, size_t ours, const struct lc_line *line, struct effect *f) {
        char where[4096], a[SIZE_FMT_MAX], b[SIZE_FMT_MAX], *out = NULL;
        uint64_t want;

        for (unsigned slot = LC_SOFT; slot <= LC_HARD; slot <<= 1) {
                uint64_t got = slot == LC_SOFT ? pl->memlock_soft : pl->memlock_hard;
                if (!(slots & slot) || !ours_value(t, ours, line, slot, &want) || got == want)
                        continue;
                if (slot == LC_SOFT && res->soft_clamped) {
                        f->losses |= LOSS_CLAMPED;
                        if (asprintf(&out, "soft %s is lowered to the hard limit %s from %s", size_format(want, a),
                                     size_format(got, b), res->hard.src ? lc_line_where(t, res->hard.src, where,
                                                                                        sizeof where)
                                                                        : "the service") < 0)
                                out = NULL;
                } else if (asprintf(&out, "the session gets %s %s, not %s", slot == LC_SOFT ? "soft" : "hard",
                                    size_format(got, a), size_format(want, b)) < 0)
                        out = NULL;
                return out;
        }
        return NULL;
}

/* Does the user's session get the entry's values?  What pam_limits resolves (which line holds
 * each slot) and how the session ends (lc_session_outcome(): refused, failed, clamped) for
 * svc, the same answers explain gives. */
static void effect_user(const struct lc_tree *t, struct ident *id, const struct lc_baseline *base,
                        const struct lc_service *svc, const char *user, unsigned slots, size_t ours,
                        const struct lc_line *line, int ours_rank, const struct module_view *mv, struct effect *f) {
        struct lc_result res = {};
        struct lc_session pl = {};
        char *loss = NULL;

        if (lc_resolve(t, id, user, base, &res) < 0)
                return;
        if (lc_session_outcome(t, &res, svc, &pl) < 0) {
                lc_result_clear(&res);
                return;
        }
        f->users++;
        if (pl.kind == LC_SESSION_REFUSED || pl.kind == LC_SESSION_FAILS) {
                f->losses |= LOSS_FAILS;
                loss = strdup(pl.cause);
        }
        for (unsigned slot = LC_SOFT; slot <= LC_HARD && !loss; slot <<= 1)
                if (slots & slot)
                        loss = slot_loss(t, &res, slot, ours, line, ours_rank, f);
        if (!loss && pl.kind == LC_SESSION_LIMITS && pl.memlock_known)
                loss = value_loss(t, &res, &pl, slots, ours, line, f);
        if (!loss && pl.kind == LC_SESSION_LIMITS && pl.memlock_known)
                loss = policy_loss(mv, id, user, &pl, f);
        lc_result_clear(&res);
        if (!loss)
                return;
        f->overridden++;
        if (f->n_why < EFFECT_SHOWN && asprintf(&f->why[f->n_why], "%s: %s", user, loss) >= 0)
                f->n_why++;
        free(loss);
}

/* The file index of the drop-in in the edited tree, and its line for the domain. */
static bool find_ours(const struct lc_tree *t, const struct edit *e, const char *domain, size_t *ret_file,
                      const struct lc_line **ret_line, unsigned *ret_slots) {
        unsigned slots = 0;
        for (size_t i = 0; i < t->n_files; i++) {
                const struct lc_file *f = &t->files[i];
                const char *base = strrchr(f->display, '/');
                if (!streq(base ? base + 1 : f->display, e->name) || f->vendor)
                        continue;
                for (size_t k = f->first; k < f->first + f->n; k++)
                        if (streq(t->lines[k].domain ? t->lines[k].domain : "", domain)) {
                                *ret_line = &t->lines[k];
                                slots |= t->lines[k].type_mask;
                        }
                *ret_file = i;
                *ret_slots = slots;
                return slots != 0;
        }
        return false;
}

/* What check will say of the entry apply writes (its lines in the drop-in, file ours of t):
 * said now, as warnings, so that apply never writes silently what check then flags (a soft
 * value above a hard one the kernel clamps it to, a size in the wrong unit...).  0 or -ENOMEM. */
static int entry_findings(const struct ctx *c, const struct lc_tree *t, struct ident *id, size_t ours,
                          const char *domain) {
        _cleanup_(diag_list_clear) struct diag_list d = {};
        const struct lc_file *f = &t->files[ours];
        int r = lc_check(t, id, &d);

        if (r < 0 || c->json || c->quiet)
                return r == -ENOMEM ? r : 0;
        for (size_t i = 0; i < d.n; i++) {
                const struct diag *x = &d.v[i];
                bool mine = false;
                /* a domain naming nobody: apply's own warning says it (warn_unresolved()) */
                if (!x->path || !streq(x->path, f->display) || x->severity == DIAG_INFO || x->severity == DIAG_OK ||
                    (x->id && streq(x->id, "unknown-domain")))
                        continue;
                for (size_t k = f->first; k < f->first + f->n && !mine; k++)
                        mine = t->lines[k].lineno == x->line && streq(t->lines[k].domain ? t->lines[k].domain : "", domain);
                if (mine)
                        log_warning(c, "%s:%u: check will say: %s", x->path, x->line, x->message);
        }
        return 0;
}

static void names_checked_clear(struct strmap *m) {
        strmap_clear(m, NULL);
}

static int check_effect(const struct ctx *c, const struct edit *e, const char *text, const char *domain,
                        struct effect *ret) {
        struct lc_edit ed = { .name = e->name, .text = text, .len = strlen(text) };
        _cleanup_(lc_tree_freep) struct lc_tree *t = NULL;
        _cleanup_(ident_freep) struct ident *id = NULL;
        _cleanup_(strv_freep) char **names = NULL;
        struct lc_baseline base;
        struct lc_service svc;
        const struct lc_line *line = NULL;
        size_t n_names = 0, ours = 0;
        unsigned slots = 0;
        int r;

        _cleanup_(module_view_clear) struct module_view mv = {};

        *ret = (struct effect){};
        /* the session a service opens that may set any limit (CAP_SYS_RESOURCE, as sshd and login
         * have): whether the entry holds against the others; what a given service cannot raise,
         * explain --pid and verify say */
        session_service_assume(c->root, c->proc1, &svc);
        svc.cap_sys_resource = true;
        r = lc_tree_load_edited(c->root, c->flavour, NULL, &ed, &t);
        if (r >= 0)
                r = ident_new(c->root, &id);
        if (r >= 0)
                r = lc_baseline_load(t, c->proc1, &base);
        if (r >= 0 && find_ours(t, e, domain, &ours, &line, &slots))
                r = passwd_names(id, &names, &n_names);
        if (r >= 0 && line)
                r = module_view_load(c, &mv);
        _cleanup_(names_checked_clear) struct strmap checked = {};
        for (size_t i = 0; r >= 0 && line && i < n_names && ret->users < EFFECT_USERS; i++) {
                const struct id_user *u;
                int rank;
                if (ident_user(id, names[i], &u) < 0 || (rank = lc_line_match(t, id, u, line)) < 0)
                        continue;
                if (strmap_put(&checked, names[i], (void *)1) < 0)
                        r = -ENOMEM;
                effect_user(t, id, &base, &svc, names[i], slots, ours, line, rank, &mv, ret);
        }
        /* past the first EFFECT_USERS: every user another line names by name is checked too, the
         * users whose own line may win over the entry */
        for (size_t i = 0; r >= 0 && line && i < t->n_lines && ret->users < EFFECT_USERS + EFFECT_NAMED; i++) {
                const struct lc_line *l = &t->lines[i];
                const struct id_user *u;
                int rank;
                if (l == line || !l->domain || l->range != LC_RANGE_NONE || strchr("@%*", l->domain[0]) ||
                    strmap_get(&checked, l->domain))
                        continue;
                if (ident_user(id, l->domain, &u) < 0 || (rank = lc_line_match(t, id, u, line)) < 0)
                        continue;
                if (strmap_put(&checked, l->domain, (void *)1) < 0)
                        r = -ENOMEM;
                effect_user(t, id, &base, &svc, l->domain, slots, ours, line, rank, &mv, ret);
        }
        /* a named user NSS cannot enumerate (LDAP without enumeration) is still checked */
        if (r >= 0 && line && ret->users == 0 && domain[0] != '@' && !strchr(domain, ':') && !streq(domain, "*")) {
                const struct id_user *u;
                int rank;
                if (ident_user(id, domain, &u) >= 0 && (rank = lc_line_match(t, id, u, line)) >= 0)
                        effect_user(t, id, &base, &svc, domain, slots, ours, line, rank, &mv, ret);
        }
        if (r >= 0 && line)
                r = entry_findings(c, t, id, ours, domain);
        return r;
}

/* The remedy that works for the kinds of loss seen: a later file name only against a later file
 * of equal rank; against a stronger rank, a '-' line or a failing session, the winning entry. */
static const char *effect_remedy(const struct effect *f, char buf[static 1024]) {
        size_t n = 0;
        const size_t size = 1024;

        buf[0] = '\0';
        if (f->losses & LOSS_STRONGER)
                n += (size_t)snprintf(buf + n, size - n, "an entry of a stronger rank wins whatever the file "
                                      "(a user's own line beats @group, @group beats *): change or remove it, or "
                                      "apply the value to its domain; ");
        if ((f->losses & LOSS_STOP) && n < size)
                n += (size_t)snprintf(buf + n, size - n, "a '-' line stops pam_limits before the entry: remove it "
                                      "or change it to a limit; ");
        if ((f->losses & LOSS_FAILS) && n < size)
                n += (size_t)snprintf(buf + n, size - n, "pam_limits fails or refuses the session: see rdmalimits "
                                      "explain USER; ");
        if ((f->losses & LOSS_CLAMPED) && n < size)
                n += (size_t)snprintf(buf + n, size - n, "another entry's hard limit is below the soft value: give "
                                      "a hard value too (SIZE sets both), or raise that entry; ");
        if ((f->losses & LOSS_POLICY) && n < size)
                n += (size_t)snprintf(buf + n, size - n, "pam_rdmalimit's policy sets memlock after pam_limits: "
                                      "give the value in its rule instead, or change the rule (or its lower = true) "
                                      "in %s; ", f->policy_file);
        if ((f->losses & LOSS_LATER) && n < size)
                n += (size_t)snprintf(buf + n, size - n, "an entry of the same rank in a file read later wins: "
                                      "change or remove it, or write to a --file whose name sorts after %s; ",
                                      f->later_file);
        if (n < size)
                snprintf(buf + n, size - n, "or --allow-overridden to write it all the same");
        return buf;
}

/* Report an entry that does not take effect; the CMD_* outcome to return, 0 to go on. */
static int report_effect(const struct ctx *c, const struct edit *e, const char *domain, const struct effect *f) {
        if (f->users == 0) {
                if (!c->json)
                        log_warning(c, "no known user matches %s yet: whether the entry takes effect cannot be checked",
                                    domain);
                return 0;
        }
        if (f->overridden == 0)
                return 0;
        for (size_t i = 0; i < f->n_why && !c->json; i++)
                log_error("%s: the new %s entry does not take effect for %s", e->display, domain, f->why[i]);
        if (!c->json && f->overridden > f->n_why)
                log_error("... and for %zu more of the %zu users checked", f->overridden - f->n_why, f->users);
        if (c->allow_overridden) {
                if (!c->json)
                        log_warning(c, "--allow-overridden: writing it all the same");
                return 0;
        }
        char remedy[1024];
        if (!c->json)
                log_error("nothing written: %s", effect_remedy(f, remedy));
        return CMD_NOT_EFFECTIVE;
}

static void warn_unresolved(const struct ctx *c, const char *domain) {
        _cleanup_(ident_freep) struct ident *id = NULL;
        const struct id_user *u;
        const struct id_group *g;
        bool group = domain[0] == '@';
        char hint[300] = "";

        if (ident_new(c->root, &id) < 0 || strchr(domain, ':') || streq(domain, "*"))
                return;
        if ((group ? ident_group(id, domain + 1, &g) : ident_user(id, domain, &u)) != -ENOENT)
                return;
        (void)lc_domain_hint(id, domain, hint, sizeof hint);
        log_warning(c, "%s '%s' does not exist%s: the entry matches nobody until it does%s%s%s",
                    group ? "group" : "user", group ? domain + 1 : domain,
                    !c->root ? "" : group ? " in the root's etc/group" : " in the root's etc/passwd",
                    *hint ? "; did you mean '" : "", hint, *hint ? "'?" : "");
}

/* apply/remove --json: change_json_begin()'s fields, and for apply whether the entry takes
 * effect: "effective", "checked_users", "overridden_by" (one text per user shown), "remedy". */
static void print_apply_json(const struct ctx *c, bool changed, const char *file, const char *diff,
                             const struct effect *f) {
        struct json j;

        change_json_begin(&j, changed, file, diff);
        if (f) {
                json_key(&j, "effective");
                if (f->users)
                        json_bool(&j, f->overridden == 0);
                else
                        json_null(&j);
                json_ku64(&j, "checked_users", f->users);
                json_karr_begin(&j, "overridden_by");
                for (size_t i = 0; i < f->n_why; i++)
                        json_str(&j, f->why[i]);
                json_arr_end(&j);
                if (f->overridden) {
                        char remedy[1024];
                        json_kstr(&j, "remedy", effect_remedy(f, remedy));
                }
        }
        change_json_end(c, &j);
}

/* Whether pam_limits reads text back as exactly the entries of e: 1, 0, or -ENOMEM. */
static int reads_back(const struct ctx *c, const struct edit *e, const char *text) {
        _cleanup_(lc_tree_freep) struct lc_tree *t = NULL;
        size_t k = 0;

        if (lc_tree_load_text(e->display, text, strlen(text), c->flavour, &t) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < t->n_lines; i++, k++) {
                const struct lc_line *l = &t->lines[i];
                if (k >= e->d.n || l->nfields != 4 || l->item_kind != LC_ITEM_MEMLOCK || l->value_misread ||
                    !l->value_ok || l->type_mask != e->d.v[k].type || l->bytes != e->d.v[k].bytes ||
                    !streq(l->domain, e->d.v[k].domain) || l->range == LC_RANGE_ERR)
                        return 0;
        }
        return k == e->d.n;
}

/* Validate, show, write.  Returns 0 or a CMD_* outcome. */
static int edit_commit(const struct ctx *c, struct edit *e, const char *domain, bool removing) {
        _cleanup_free_ char *text = NULL, *diff = NULL;
        bool delete_file = removing && e->d.n == 0;
        int r;

        text = delete_file ? strdup("") : dropin_render(&e->d);
        if (!text)
                return log_oom();
        /* validate: pam_limits must read back exactly the entries we mean */
        r = delete_file ? 1 : reads_back(c, e, text);
        if (r < 0)
                return log_oom();
        if (r == 0) {
                log_error("internal error: the rendered drop-in does not read back as intended; nothing written");
                return CMD_FINDINGS;
        }
        struct effect eff = {};
        int eff_rc = 0;
        if (!removing) {
                if (check_effect(c, e, text, domain, &eff) == -ENOMEM)
                        return log_oom();
                eff_rc = report_effect(c, e, domain, &eff);
        }
        bool changed = e->legacy || (delete_file ? e->exists : !(e->exists && streq(text, e->old)));
        bool touch = !delete_file || e->exists;   /* the drop-in itself is written or removed */
        diff = touch ? change_diff(c, changed, e->display, e->exists, e->old, delete_file, text) : NULL;
        if (e->legacy) {
                /* the old file goes: its diff too */
                _cleanup_free_ char *ld = change_diff(c, true, e->legacy_display, true, e->legacy_old, true, "");
                char *both = NULL;
                if (ld && asprintf(&both, "%s%s", diff ? diff : "", ld) < 0)
                        return log_oom();
                if (both) {
                        free(diff);
                        diff = both;
                }
        }

        if (changed && !c->check && !eff_rc) {
                if (touch && (r = managed_write(e->dirfd, e->name, e->display, delete_file ? NULL : text, 0644)) < 0)
                        return r;
                /* the entries now live under the new name: the old file goes (after, so that
                 * a failure leaves them in one place or both, never none) */
                if (e->legacy && (r = fs_unlink_sync(e->dirfd, DROPIN_LEGACY_NAME)) < 0 && r != FS_ERR_DIRSYNC) {
                        log_error("%s: cannot remove it after moving its entries to %s: %s", e->legacy_display,
                                  e->name, errno_text(r));
                        return r;
                }
                if (e->legacy && !c->quiet && !c->json) {
                        if (delete_file)
                                printf("%s: removed (no entries left)\n", e->legacy_display);
                        else
                                printf("%s: its entries moved to %s (which pam_limits reads after vendor files)\n",
                                       e->legacy_display, e->name);
                }
        }
        if (c->json)
                print_apply_json(c, changed && !eff_rc, touch ? e->display : e->legacy_display, diff,
                                 removing ? NULL : &eff);
        else if (eff_rc)
                ;
        else if (!c->quiet) {
                if (e->new_dir)
                        printf("%s: %s\n", e->dir, c->check ? "would be created" : "created");
                if (e->legacy && c->check)
                        printf("%s: would be removed%s%s\n", e->legacy_display,
                               delete_file ? " (no entries left)" : ", its entries moved to ", delete_file ? "" : e->name);
                if (!touch)
                        ;
                else if (!changed)
                        printf("%s: unchanged, %s\n", e->display,
                               removing ? "no entries for that domain" : "it already says that");
                else if (c->check)
                        printf("%s: would be %s\n", e->display, delete_file ? "removed" : e->exists ? "changed" : "created");
                else
                        printf("%s: %s\n", e->display, delete_file ? "removed (no entries left)" : e->exists ? "updated" : "created");
        }
        effect_clear(&eff);
        if (eff_rc)
                return eff_rc;
        if (c->check && changed)
                return CMD_WOULD_CHANGE;
        return 0;
}

/* What apply sets: SIZE for both, or --soft and/or --hard. */
struct apply_limits {
        uint64_t soft, hard;
        bool has_soft, has_hard;
};

/* The limits from the command line, each one a drop-in may hold. 0 or CMD_USAGE. */
static int apply_parse_limits(const struct ctx *c, struct apply_limits *l) {
        const char *why;

        if (ctx_parse_limits(c, c->argc > 1 ? c->argv[1] : NULL, &l->soft, &l->hard, &l->has_soft,
                             &l->has_hard))
                return CMD_USAGE;
        if (!l->has_soft && !l->has_hard) {
                log_error("apply: give a SIZE, or --soft and/or --hard");
                return CMD_USAGE;
        }
        if (l->has_soft && dropin_check_bytes(l->soft, &why) < 0) {
                log_error("soft size: %s", why);
                return CMD_USAGE;
        }
        if (l->has_hard && dropin_check_bytes(l->hard, &why) < 0) {
                log_error("hard size: %s", why);
                return CMD_USAGE;
        }
        return l->has_soft && l->has_hard ? ctx_check_order(l->soft, l->hard) : 0;
}

/* A value given apart keeps the domain's other entry: it must still fit. 0 or CMD_USAGE. */
static int apply_check_fit(const struct edit *e, const char *domain) {
        uint64_t s_now = 0, h_now = UINT64_MAX;
        bool s_set = false;

        for (size_t i = 0; i < e->d.n; i++)
                if (streq(e->d.v[i].domain, domain)) {
                        if (e->d.v[i].type == LC_SOFT) {
                                s_now = e->d.v[i].bytes;
                                s_set = true;
                        } else
                                h_now = e->d.v[i].bytes;
                }
        if (s_set && s_now > h_now) {
                char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
                log_error("%s would get soft %s above its hard %s in %s; give both --soft and --hard", domain,
                          size_format(s_now, a), size_format(h_now, b), e->display);
                return CMD_USAGE;
        }
        return 0;
}

/* DOMAIN as a drop-in line may name it. 0 or CMD_USAGE. */
static int check_domain(const char *domain) {
        const char *why;
        if (dropin_check_domain(domain, &why) < 0) {
                log_error("domain '%s': %s", domain, why);
                return CMD_USAGE;
        }
        return 0;
}

int cmd_apply(struct ctx *c) {
        _cleanup_(edit_done) struct edit e = { .dirfd = -1, .lockfd = -1 };
        struct apply_limits l = {};
        const char *domain;
        int r;

        if (c->unit)
                return cmd_unit(c, false);
        if (c->argc < 1) {
                log_error("apply: expected DOMAIN [SIZE] (or --unit UNIT SIZE)");
                return CMD_USAGE;
        }
        domain = c->argv[0];
        r = check_domain(domain);
        if (r == 0)
                r = apply_parse_limits(c, &l);
        if (r == 0)
                r = edit_begin(c, &e, true);
        if (r)
                return r;
        if ((l.has_soft && dropin_set(&e.d, domain, LC_SOFT, l.soft) < 0) ||
            (l.has_hard && dropin_set(&e.d, domain, LC_HARD, l.hard) < 0))
                return log_oom();
        r = apply_check_fit(&e, domain);
        if (r)
                return r;
        warn_unresolved(c, domain);
        return edit_commit(c, &e, domain, false);
}

int cmd_remove(struct ctx *c) {
        if (c->unit)
                return cmd_unit(c, true);
        if (c->argc != 1) {
                log_error("remove: expected DOMAIN (or --unit UNIT)");
                return CMD_USAGE;
        }
        const char *domain = c->argv[0];
        _cleanup_(edit_done) struct edit e = { .dirfd = -1, .lockfd = -1 };
        int r = check_domain(domain);

        if (r == 0)
                r = edit_begin(c, &e, false);
        if (r)
                return r;
        if (!e.exists && !e.legacy) {
                if (c->json)
                        print_apply_json(c, false, e.display, "", NULL);
                else if (!c->quiet)
                        printf("%s: does not exist, nothing to remove\n", e.display);
                return 0;
        }
        dropin_remove(&e.d, domain);
        return edit_commit(c, &e, domain, true);
}
