/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "array.h"
#include "fsutil.h"
#include "macro.h"
#include "pamedit.h"
#include "pamstack.h"
#include "session.h"
#include "size.h"
#include "visit.h"

static void line_clear(struct pam_line *l) {
        free(l->text);
        free(l->type);
        free(l->control);
        free(l->module);
        free(l->name);
        free(l->include);
        *l = (struct pam_line){};
}

void pam_file_clear(struct pam_file *f) {
        for (size_t i = 0; i < f->n; i++)
                line_clear(&f->v[i]);
        free(f->v);
        free(f->display);
        *f = (struct pam_file){};
}

static bool is_type(const char *s) {
        return strcasecmp(s, "auth") == 0 || strcasecmp(s, "account") == 0 || strcasecmp(s, "password") == 0 ||
               strcasecmp(s, "session") == 0;
}

static bool is_control_word(const char *s) {
        static const char *const words[] = { "required", "requisite", "sufficient", "optional", "include", "substack" };
        for (size_t i = 0; i < ELEMENTSOF(words); i++)
                if (strcasecmp(s, words[i]) == 0)
                        return true;
        return false;
}

/* The comment of a line (after its first '#'), without surrounding blanks, is the mark? */
static bool has_mark(const char *text) {
        const char *c = strchr(text, '#');
        if (!c)
                return false;
        c++;
        c += strspn(c, " \t");
        size_t n = strcspn(c, "\r\n");
        while (n > 0 && (c[n - 1] == ' ' || c[n - 1] == '\t'))
                n--;
        return n == strlen(PAMEDIT_MARK) && strncmp(c, PAMEDIT_MARK, n) == 0;
}

/* Hand l over to ret, l empty again. */
static int line_take(struct pam_line *l, struct pam_line *ret) {
        *ret = *l;
        *l = (struct pam_line){};
        return 0;
}

/* Parse one line (text: its bytes, no newline) into ret, untouched on failure.  0, -ENOMEM,
 * or -EBADMSG with *why. */
static int line_parse(const char *text, unsigned lineno, bool profile, struct pam_line *ret, const char **why) {
        _cleanup_free_ char *buf = NULL;
        _cleanup_(line_clear) struct pam_line l = { .lineno = lineno };
        char *w[3], *rest;
        unsigned n;
        size_t tl = strlen(text);

        *why = NULL;
        /* a continued line: read as libpam joins it, but an edit of one of its pieces would not
         * keep it one line: refused */
        size_t e = tl;
        while (e > 0 && (text[e - 1] == '\r' || text[e - 1] == ' ' || text[e - 1] == '\t'))
                e--;
        const char *hash = strchr(text, '#');
        if (e > 0 && text[e - 1] == '\\' && (!hash || hash > text + e - 1)) {
                *why = "a continued line (ending in '\\') is not understood";
                return -EBADMSG;
        }
        buf = malloc(tl + 2);   /* pam_line_split()'s room */
        if (buf)
                memcpy(buf, text, tl + 1);
        l.text = strdup(text);
        if (!buf || !l.text)
                return -ENOMEM;
        n = pam_line_split(buf, w, &rest);
        l.marked = has_mark(text);
        if (n == 0 || (profile && w[0][0] == '{')) {
                l.kind = PAM_LINE_BLANK;
                return line_take(&l, ret);
        }
        if (streq(w[0], "@include")) {
                if (n < 2)
                        *why = "@include without a file name";
                else if (n > 2 || *rest)
                        *why = "@include takes one file name";
                else if (strchr(w[1], '/'))
                        *why = "an included file given by path is not understood (only names in pam.d)";
                if (*why)
                        return -EBADMSG;
                l.kind = PAM_LINE_INCLUDE;
                if (!(l.include = strdup(w[1])))
                        return -ENOMEM;
                return line_take(&l, ret);
        }
        l.dash = w[0][0] == '-';
        if (!is_type(w[0] + l.dash))
                *why = "unknown module type (expected auth, account, password or session)";
        else if (n >= 2 && w[1][0] == '[' && w[1][strlen(w[1]) - 1] != ']')
                *why = "the bracketed control is not closed with ']'";
        else if (n < 3)
                *why = n < 2 ? "no control and no module" : "no module";
        else if (w[1][0] != '[' && !is_control_word(w[1]))
                *why = "unknown control (expected required, requisite, sufficient, optional, include, substack or [...])";
        else if ((strcasecmp(w[1], "include") == 0 || strcasecmp(w[1], "substack") == 0) && strchr(w[2], '/'))
                *why = "an included file given by path is not understood (only names in pam.d)";
        if (*why)
                return -EBADMSG;
        l.kind = PAM_LINE_RULE;
        l.type = strdup(w[0] + l.dash);
        l.control = strdup(w[1]);
        l.module = strdup(w[2]);
        l.name = pam_module_name(w[2]);
        if (!l.type || !l.control || !l.module || !l.name)
                return -ENOMEM;
        if ((strcasecmp(w[1], "include") == 0 || strcasecmp(w[1], "substack") == 0) && !(l.include = strdup(w[2])))
                return -ENOMEM;
        return line_take(&l, ret);
}

static int push_line(struct pam_file *f, size_t at, struct pam_line *l) {
        if (GROW_EXACT(f->v, f->n + 1) < 0)
                return -ENOMEM;
        memmove(&f->v[at + 1], &f->v[at], (f->n - at) * sizeof(*f->v));
        f->n++;
        return line_take(l, &f->v[at]);
}

static int file_parse(const char *display, const char *text, size_t len, bool profile, struct pam_file *ret,
                      struct diag_list *d) {
        _cleanup_(pam_file_clear) struct pam_file f = {};
        unsigned lineno = 0;
        bool bad = false;
        int r;

        f.display = strdup(display);
        if (!f.display)
                return -ENOMEM;
        f.final_newline = len == 0 || text[len - 1] == '\n';
        for (size_t pos = 0; pos < len;) {
                const char *s = text + pos;
                const char *nl = memchr(s, '\n', len - pos);
                size_t ll = nl ? (size_t)(nl - s) : len - pos;
                lineno++;
                pos += ll + (nl ? 1 : 0);
                _cleanup_free_ char *one = NULL;
                _cleanup_(line_clear) struct pam_line l = {};
                const char *why = "a NUL byte: not a text file";
                r = -EBADMSG;
                if (ll + (nl ? 1 : 0) > PAM_LINE_BUF - 1)
                        why = "a line longer than 1023 bytes: libpam reads it in pieces, each a line of its own";
                else if (!memchr(s, '\0', ll)) {
                        if (!(one = strndup(s, ll)))
                                return -ENOMEM;
                        r = line_parse(one, lineno, profile, &l, &why);
                }
                if (r == -EBADMSG) {
                        bad = true;
                        if (diag_add(d, DIAG_ERROR, display, lineno, "%s", why) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (r < 0)
                        return -ENOMEM;
                if (bad)
                        continue;
                if (push_line(&f, f.n, &l) < 0)
                        return -ENOMEM;
        }
        if (bad)
                return -EBADMSG;
        *ret = f;
        f = (struct pam_file){};
        return 0;
}

int pam_file_parse(const char *display, const char *text, size_t len, struct pam_file *ret, struct diag_list *d) {
        return file_parse(display, text, len, false, ret, d);
}

int pam_file_parse_profile(const char *display, const char *text, size_t len, struct pam_file *ret,
                           struct diag_list *d) {
        return file_parse(display, text, len, true, ret, d);
}

char *pam_file_render(const struct pam_file *f) {
        size_t len = 1;
        for (size_t i = 0; i < f->n; i++)
                len += strlen(f->v[i].text) + 1;
        char *s = malloc(len), *p = s;
        if (!s)
                return NULL;
        for (size_t i = 0; i < f->n; i++) {
                p = stpcpy(p, f->v[i].text);
                if (i + 1 < f->n || f->final_newline)
                        *p++ = '\n';
        }
        *p = '\0';
        return s;
}

/* Insert line (one of ours) after line index idx (SIZE_MAX: at the top). */
static int insert_line(struct pam_file *f, size_t idx, const char *line) {
        _cleanup_(line_clear) struct pam_line l = {};
        const char *why;
        size_t at = idx == SIZE_MAX ? 0 : idx + 1;
        int r;

        if (at > f->n)
                return -EINVAL;
        r = line_parse(line, 0, false, &l, &why);
        if (r < 0)
                return r == -EBADMSG ? -EINVAL : r;
        /* a file without a final newline gets one before the new last line */
        if (at == f->n)
                f->final_newline = true;
        return push_line(f, at, &l);
}

int pam_file_insert_mark(struct pam_file *f, size_t idx) {
        return insert_line(f, idx, PAMEDIT_LINE);
}

static bool is_ours(const struct pam_line *l) {
        return l->kind == PAM_LINE_RULE && l->marked && streq(l->name, "pam_rdmalimit");
}

size_t pam_file_remove_marked(struct pam_file *f) {
        size_t k = 0, removed = 0;
        for (size_t i = 0; i < f->n; i++) {
                if (is_ours(&f->v[i])) {
                        line_clear(&f->v[i]);
                        removed++;
                        continue;
                }
                f->v[k++] = f->v[i];
        }
        f->n = k;
        return removed;
}

static bool is_session(const struct pam_line *l) {
        return l->kind == PAM_LINE_RULE && strcasecmp(l->type, "session") == 0;
}

/* The index of f's last session pam_limits line, SIZE_MAX when there is none. */
static size_t last_limits(const struct pam_file *f) {
        size_t last = SIZE_MAX;
        for (size_t i = 0; i < f->n; i++)
                if (is_session(&f->v[i]) && !f->v[i].include && streq(f->v[i].name, "pam_limits"))
                        last = i;
        return last;
}

int pam_file_mark_after_limits(struct pam_file *f) {
        size_t last = last_limits(f), ours = 0, ours_ok = 0, others = 0;
        if (last == SIZE_MAX)
                return -ENOENT;
        for (size_t i = 0; i < f->n; i++) {
                const struct pam_line *l = &f->v[i];
                if (is_ours(l)) {
                        ours++;
                        ours_ok += i > last && is_session(l) && strstr(l->text, "{include if \"" PAMEDIT_FEATURE "\"}");
                } else if (i > last && is_session(l) && !l->include && streq(l->name, "pam_rdmalimit"))
                        others++;
        }
        if ((ours == 1 && ours_ok == 1) || (ours == 0 && others > 0))
                return 1;
        pam_file_remove_marked(f);
        int r = insert_line(f, last_limits(f), PAMEDIT_PROFILE_LINE);
        return r < 0 ? r : 0;
}

const char *pam_manager_name(enum pam_manager m) {
        static const char *const names[] = { [PAM_MANAGER_PAM_AUTH_UPDATE] = "pam-auth-update",
                                             [PAM_MANAGER_AUTHSELECT] = "authselect" };
        return (size_t)m < ELEMENTSOF(names) && names[m] ? names[m] : "none";
}

int pam_service_manager(const char *root, const char *name, enum pam_manager *ret) {
        _cleanup_free_ char *rel = NULL, *text = NULL;
        _cleanup_close_ int fd = -1;
        struct stat st;
        char target[4096];
        int r;

        if (strchr(name, '/'))
                return -EINVAL;
        if (asprintf(&rel, "/etc/pam.d/%s", name) < 0)
                return -ENOMEM;
        r = fs_stat_in_root(root, rel, true, &st);
        if (r < 0)
                return r;
        if (S_ISLNK(st.st_mode) && fs_readlink_in_root(root, rel, target, sizeof target) >= 0 &&
            strstr(target, "authselect/")) {
                *ret = PAM_MANAGER_AUTHSELECT;
                return 0;
        }
        r = fs_open_config_in_root(root, rel, false, false, &fd, NULL);
        if (r < 0)
                return r;
        r = fs_read_all(fd, 1024 * 1024, &text, NULL);
        if (r < 0)
                return r;
        /* by the markers those tools write */
        if (strstr(text, "managed by pam-auth-update") ||
            strstr(text, "# here are the per-package modules (the \"Primary\" block)") ||
            strstr(text, "# end of pam-auth-update config"))
                *ret = PAM_MANAGER_PAM_AUTH_UPDATE;
        else if (strstr(text, "Generated by authselect") &&
                 fs_exists_in_root(root, "/etc/authselect/authselect.conf", false) > 0)
                /* authselect's while it has a configuration: after "authselect opt-out" (1.5) the
                 * files keep the comment and are the admin's */
                *ret = PAM_MANAGER_AUTHSELECT;
        else
                *ret = PAM_MANAGER_NONE;
        return 0;
}

/* One session module line of the flattened stack. */
struct step {
        size_t top;            /* the service file's line that brings it */
        const char *file;
        unsigned line;
        const char *name;
        bool in_service, marked;
        enum pam_manager manager;
};

struct known {
        char *name;
        enum pam_manager manager;
};

static const char *file_base(const char *path) {
        const char *b = strrchr(path, '/');
        return b ? b + 1 : path;
}

/* Who manages the file of pam.d a step comes from (none when it cannot be read): each file is
 * read once per plan, its answer kept in *k. */
static enum pam_manager manager_of(const char *root, const char *display, struct known **k, size_t *nk) {
        const char *name = file_base(display);
        for (size_t i = 0; i < *nk; i++)
                if (streq((*k)[i].name, name))
                        return (*k)[i].manager;
        enum pam_manager m = PAM_MANAGER_NONE;
        if (pam_service_manager(root, name, &m) < 0)
                m = PAM_MANAGER_NONE;
        if (GROW_EXACT(*k, *nk + 1) >= 0) {
                struct known *v = *k;
                if ((v[*nk].name = strdup(name))) {
                        v[*nk].manager = m;
                        (*nk)++;
                }
        }
        return m;
}

static void where_set(char *buf, const char *file, unsigned line) {
        if (line)
                snprintf(buf, PAMEDIT_WHERE_MAX, "%s:%u", file, line);
        else
                snprintf(buf, PAMEDIT_WHERE_MAX, "%s (the line to be added)", file);
}

/* The pam_limits whose values count is the last that runs, as the session engine walks the
 * stack (jumps, requisite and sufficient ending it), not the last in the file; for every user
 * a policy has a rule for (session_walks_every_user()), the latest of those in stack order:
 * *last becomes its step when the walk's entries and the steps line up (else it stays, and so
 * when no pam_limits runs at all).  0 or -ENOMEM. */
static int last_running_limits(const char *root, const struct pam_file *f, const struct session_lines *lines,
                               const struct step *steps, size_t nsteps, size_t *last) {
        _cleanup_(pam_stack_clear) struct pam_stack st = {};
        _cleanup_(session_walks_clear) struct session_walks w = {};
        _cleanup_free_ char *text = pam_file_render(f);
        long latest = -1;
        int r;

        if (!text)
                return -ENOMEM;
        if ((r = pam_stack_load_text(root, file_base(f->display), text, &st)) < 0)
                return r;
        if (st.error || st.include_error || st.n != nsteps)
                return 0;
        for (size_t i = 0; i < nsteps; i++)
                if (!streq(st.v[i].name, steps[i].name))
                        return 0;
        if ((r = session_walks_every_user(&st, lines, &w)) < 0)
                return r;
        for (size_t j = 0; j < w.n; j++)
                if (w.v[j].run.last_limits > latest)
                        latest = w.v[j].run.last_limits;
        if (latest >= 0)
                *last = (size_t)latest;
        return 0;
}

int pam_plan_service(const char *root, const struct pam_file *f, const struct session_lines *lines,
                     struct pam_plan *ret) {
        struct pam_stack *inc = NULL;
        size_t ninc = 0, nsteps = 0;
        _cleanup_free_ struct step *steps = NULL;
        struct known *known = NULL;
        size_t nknown = 0;
        struct visit walk = {};
        struct pam_plan p = { .verdict = PAM_V_NO_LIMITS };
        int r = 0;

        for (size_t i = 0; i < f->n; i++) {
                const struct pam_line *l = &f->v[i];
                bool brings = l->kind == PAM_LINE_INCLUDE || (is_session(l) && l->include);
                if (!brings && !is_session(l))
                        continue;
                size_t add = 1;
                if (brings) {
                        if ((r = GROW_EXACT(inc, ninc + 1)) < 0 ||
                            (r = pam_stack_load_walk(root, l->include, &walk, &inc[ninc])) < 0)
                                goto out;
                        ninc++;
                        if (inc[ninc - 1].include_error) {
                                p = (struct pam_plan){ .verdict = PAM_V_BROKEN, .bounded = true,
                                                       .error = inc[ninc - 1].include_error };
                                snprintf(p.where, sizeof p.where, "%s", inc[ninc - 1].include_where);
                                goto done;
                        }
                        if (inc[ninc - 1].error < 0) {
                                p = (struct pam_plan){ .verdict = PAM_V_BROKEN, .error = inc[ninc - 1].error };
                                where_set(p.where, f->display, l->lineno);
                                goto done;
                        }
                        add = inc[ninc - 1].n;
                }
                if ((r = GROW_EXACT(steps, nsteps + add + 1)) < 0)
                        goto out;
                if (!brings) {
                        steps[nsteps++] = (struct step){ .top = i, .file = f->display, .line = l->lineno,
                                                         .name = l->name, .in_service = true, .marked = l->marked };
                        continue;
                }
                const struct pam_stack *s = &inc[ninc - 1];
                for (size_t k = 0; k < s->n; k++)
                        steps[nsteps++] = (struct step){ .top = i, .file = s->v[k].file, .line = s->v[k].line,
                                                         .name = s->v[k].name,
                                                         .manager = manager_of(root, s->v[k].file, &known, &nknown) };
        }

        size_t last = SIZE_MAX;
        for (size_t i = 0; i < nsteps; i++)
                if (streq(steps[i].name, "pam_limits"))
                        last = i;
        if (last == SIZE_MAX)
                goto done;
        if ((r = last_running_limits(root, f, lines, steps, nsteps, &last)) < 0)
                goto out;
        const struct step *L = &steps[last];
        where_set(p.limits_where, L->file, L->line);
        for (size_t i = 0; i < nsteps; i++) {
                p.after_managed |= i < last && steps[i].manager != PAM_MANAGER_NONE;
                p.managed_later |= i > last && steps[i].manager != PAM_MANAGER_NONE;
        }
        for (size_t i = last + 1; i < nsteps; i++)
                if (streq(steps[i].name, "pam_rdmalimit")) {
                        p.verdict = PAM_V_DONE;
                        p.ours_done = steps[i].in_service && steps[i].marked;
                        where_set(p.where, steps[i].file, steps[i].line);
                        goto done;
                }
        if (L->manager != PAM_MANAGER_NONE) {
                p.verdict = PAM_V_MANAGED;
                p.manager = L->manager;
                snprintf(p.managed_file, sizeof p.managed_file, "%s", file_base(L->file));
                snprintf(p.where, sizeof p.where, "%s", p.limits_where);
                goto done;
        }
        for (size_t i = 0; i < last; i++)
                if (streq(steps[i].name, "pam_rdmalimit") && steps[i].manager == PAM_MANAGER_NONE &&
                    !(steps[i].in_service && steps[i].marked)) {
                        p.verdict = PAM_V_CONFLICT;
                        where_set(p.where, steps[i].file, steps[i].line);
                        goto done;
                }
        p.verdict = PAM_V_INSERT;
        p.at = L->top;
done:
        *ret = p;
        r = 0;
out:
        visit_done(&walk);
        for (size_t i = 0; i < ninc; i++)
                pam_stack_clear(&inc[i]);
        free(inc);
        for (size_t i = 0; i < nknown; i++)
                free(known[i].name);
        free(known);
        return r;
}

/* ---- jumps kept across an edit ---- */

/* An entry of a service's stack across an edit of the service file: the line of the file as
 * read that brings it (0: a line the edit added) and its place among the entries that line
 * brings.  The end of the stack is END. */
struct key {
        unsigned line, ord;
};
static const struct key END = { UINT32_MAX, UINT32_MAX };

static bool key_eq(struct key a, struct key b) {
        return a.line == b.line && a.ord == b.ord;
}

/* The keys of s's entries; lines (NULL: as read) maps the line numbers of the text s was read
 * from to those of the file as read. */
static struct key *stack_keys(const struct pam_stack *s, const struct pam_file *lines) {
        struct key *k = calloc(s->n ? s->n : 1, sizeof(*k));
        if (!k)
                return NULL;
        for (size_t i = 0; i < s->n; i++) {
                unsigned top = s->v[i].top;
                k[i].line = !lines ? top : top >= 1 && top <= lines->n ? lines->v[top - 1].lineno : 0;
                k[i].ord = i > 0 && s->v[i - 1].top == top ? k[i - 1].ord + 1 : 0;
        }
        return k;
}

static long key_find(const struct key *k, size_t n, struct key x) {
        for (size_t i = 0; i < n; i++)
                if (key_eq(k[i], x))
                        return (long)i;
        return -1;
}

/* Where entry i of s lands with a jump of n: its key (END past the last entry); *bad for a
 * jump past the end of its level.  skip (with nskip keys): keys that no longer exist, passed
 * over to the entry that runs after them. */
static struct key landing(const struct pam_stack *s, const struct key *k, size_t i, unsigned n, bool *bad,
                          const struct key *skip, size_t nskip) {
        size_t j = pam_stack_jump(s, i, n, bad);
        while (skip && j < s->n && key_find(skip, nskip, k[j]) < 0)
                j++;
        return j < s->n ? k[j] : END;
}

/* The smallest jump from entry i of s that lands on `want`, 0 when none does. */
static unsigned jump_to(const struct pam_stack *s, const struct key *k, size_t i, struct key want) {
        for (unsigned n = 1; n <= s->n + 1; n++) {
                bool bad;
                if (key_eq(landing(s, k, i, n, &bad, NULL, 0), want) && !bad)
                        return n;
        }
        return 0;
}

/* control_kept()'s walk of a control's jumps: the text up to each jump's digits copied to f,
 * then the count that lands where it landed before. */
struct kept {
        FILE *f;
        const char *p;                  /* the control's text not yet copied */
        const struct pam_stack *A, *B;
        const struct key *ka, *kb;
        size_t ia, ib;
        bool changed;
};

static int keep_jump(const char *digits, size_t len, unsigned jump, void *userdata) {
        struct kept *k = userdata;
        bool bad_b, bad_a;
        struct key want = landing(k->B, k->kb, k->ib, jump, &bad_b, k->ka, k->A->n);
        struct key got = landing(k->A, k->ka, k->ia, jump, &bad_a, NULL, 0);

        fwrite(k->p, 1, (size_t)(digits - k->p), k->f);
        k->p = digits + len;
        if (key_eq(want, got) && bad_a == bad_b) {
                fwrite(digits, 1, len, k->f);   /* as written: "01" stays "01" */
                return 0;
        }
        unsigned m = bad_b ? 0 : jump_to(k->A, k->ka, k->ia, want);
        if (m == 0)
                return -ECANCELED;   /* no count lands there */
        fprintf(k->f, "%u", m);
        k->changed = true;
        return 0;
}

/* control with each jump action replaced by the jump that lands where it landed before (entry
 * ia of A, ib of B), read as libpam reads it (pam_control_jumps()); the rest of its text as it
 * was.  *ret NULL when nothing changes (a control libpam cannot read has no jump: every result
 * is "bad"), *ret_stuck when a count cannot be kept.  0 or -ENOMEM. */
static int control_kept(const char *control, const struct pam_stack *A, const struct key *ka, size_t ia,
                        const struct pam_stack *B, const struct key *kb, size_t ib, char **ret, bool *ret_stuck) {
        _cleanup_free_ char *out = NULL;
        size_t len = 0;
        _cleanup_fclose_ FILE *f = open_memstream(&out, &len);
        struct kept k = { f, control, A, B, ka, kb, ia, ib, false };

        *ret = NULL;
        *ret_stuck = false;
        if (!f)
                return -ENOMEM;
        int r = pam_control_jumps(control, keep_jump, &k);
        if (r == -ECANCELED) {
                *ret_stuck = true;
                return 0;
        }
        if (r < 0 || !k.changed)
                return 0;
        fputs(k.p, f);
        /* open_memstream() sets out at each flush and at the close: close before taking it
         * (glibc: out is NULL when the realloc() at the close fails, and fclose() returns 0) */
        if (fclose(TAKE_PTR(f)) != 0 || !out)
                return -ENOMEM;
        *ret = TAKE_PTR(out);
        return 0;
}

/* Line l's control becomes control (its text rewritten in place). */
static int line_set_control(struct pam_line *l, const char *control) {
        char *at = strstr(l->text, l->control);
        _cleanup_free_ char *text = NULL, *c = strdup(control);
        if (!at || !c)
                return at ? -ENOMEM : -EINVAL;
        if (asprintf(&text, "%.*s%s%s", (int)(at - l->text), l->text, control, at + strlen(l->control)) < 0)
                return -ENOMEM;
        free(l->text);
        free(l->control);
        l->text = TAKE_PTR(text);
        l->control = TAKE_PTR(c);
        return 0;
}

int pam_file_keep_jumps(const char *root, const char *service, const char *old_text, struct pam_file *f,
                        char where[PAMEDIT_WHERE_MAX]) {
        _cleanup_(pam_stack_clear) struct pam_stack B = {}, A = {};
        _cleanup_free_ char *new_text = pam_file_render(f);
        _cleanup_free_ struct key *kb = NULL, *ka = NULL;
        int r, changed = 0;

        if (!new_text)
                return -ENOMEM;
        if ((r = pam_stack_load_text(root, service, old_text, &B)) < 0 ||
            (r = pam_stack_load_text(root, service, new_text, &A)) < 0)
                return r;
        if (!(kb = stack_keys(&B, NULL)) || !(ka = stack_keys(&A, f)))
                return -ENOMEM;
        for (size_t ia = 0; ia < A.n; ia++) {
                const struct pam_entry *e = &A.v[ia];
                long ib = key_find(kb, B.n, ka[ia]);
                _cleanup_free_ char *kept = NULL;
                bool stuck;
                if (e->control[0] != '[' || ib < 0)
                        continue;
                if ((r = control_kept(e->control, &A, ka, ia, &B, kb, (size_t)ib, &kept, &stuck)) < 0)
                        return r;
                if (!stuck && !kept)
                        continue;
                /* only the service file's own lines are edited, once each */
                if (stuck || e->depth != 0 || e->line < 1 || e->line > f->n) {
                        snprintf(where, PAMEDIT_WHERE_MAX, "%s:%u", e->file, e->line);
                        return -EXDEV;
                }
                if ((r = line_set_control(&f->v[e->line - 1], kept)) < 0)
                        return r;
                f->v[e->line - 1].jump_kept = true;
                changed++;
        }
        return changed;
}
