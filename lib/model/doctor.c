/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rdmalimits doctor: each link of the chain a memlock limit travels along, checked.
 *
 *   configuration (limits.conf, limits.d, rdmalimit.conf)
 *     -> PAM session stacks (pam_limits, pam_rdmalimit: present, ordered, not jumped over,
 *        module file where libpam looks)
 *     -> the service that opens the session (sshd UsePAM, its own hard limit and
 *        CAP_SYS_RESOURCE; systemd units that never read limits.conf; containers)
 *     -> the running process (/proc/PID/limits, VmLck/VmPin, started before a change?)
 *
 * Everything under in->root; /proc only for the running system (no root), except --pid,
 * which names a live process explicitly.  Every failure to read something becomes a
 * finding; only -ENOMEM is returned.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "doctor.h"
#include "escape.h"
#include "fsutil.h"
#include "hwcache.h"
#include "hw.h"
#include "pamstack.h"
#include "size.h"

#define TEXT_MAX (4u * 1024 * 1024)   /* larger configuration files are not read */
#define WHERE_MAX 4096
#define FIX_MAX (3 * WHERE_MAX + 1024)
#define INCLUDE_DEPTH_MAX 16
#define CAP_IPC_LOCK_BIT 14
#define CAP_SYS_RESOURCE_BIT 24
/* systemd's own RLIMIT_MEMLOCK default (v251+: 8 MiB, the kernel's default since 5.16) */
#define SYSTEMD_DEFAULT_MEMLOCK (UINT64_C(8) * 1024 * 1024)

/* ------------------------------------------------------------------------------------ */
/* the report */

/* *s escaped in place (str_escape) when it holds anything but plain ASCII: a finding is built
 * from process names, user names, unit names and file contents, and every finding reaches a
 * terminal or JSON.  Returns 0 or -ENOMEM. */
static int escape_in_place(char **s) {
        if (!*s || str_is_plain(*s))
                return 0;
        char *e = str_escape_dup(*s);
        if (!e)
                return -ENOMEM;
        free(*s);
        *s = e;
        return 0;
}

int doctor_add(struct doctor_report *rep, enum doctor_group group, enum doctor_level level, const char *where,
               const char *fix, const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL, *w = NULL, *f = NULL;
        va_list ap;
        int r;

        if (rep->n == rep->cap) {
                size_t cap = rep->cap ? rep->cap * 2 : 16;
                struct doctor_finding *v = reallocarray(rep->v, cap, sizeof(*v));
                if (!v)
                        return -ENOMEM;
                rep->v = v;
                rep->cap = cap;
        }
        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0) {
                msg = NULL;
                return -ENOMEM;
        }
        if ((where && !(w = strdup(where))) || (fix && !(f = strdup(fix))))
                return -ENOMEM;
        if (escape_in_place(&msg) < 0 || escape_in_place(&w) < 0 || escape_in_place(&f) < 0)
                return -ENOMEM;
        rep->v[rep->n++] = (struct doctor_finding){
                .group = group,
                .level = level,
                .where = TAKE_PTR(w),
                .message = TAKE_PTR(msg),
                .fix = TAKE_PTR(f),
        };
        return 0;
}

/* One diag as a finding; path already shown the way the caller wants it.  A finding about a
 * whole file gets the file's name as the subject of its message. */
static int add_diag(struct doctor_report *rep, enum doctor_group group, const struct diag *x, const char *path,
                    const char *subject, const char *fix_line, const char *fix_file) {
        char where[WHERE_MAX];
        enum doctor_level lvl = x->severity == DIAG_ERROR     ? DOCTOR_ERROR
                                : x->severity == DIAG_WARNING ? DOCTOR_WARNING
                                                              : DOCTOR_INFO;
        const char *base = path ? strrchr(path, '/') : NULL;
        base = base ? base + 1 : path;
        if (path && x->line)
                snprintf(where, sizeof where, "%s:%u", path, x->line);
        else
                snprintf(where, sizeof where, "%s", path ? path : "");
        if (x->line || !base || subject[0])
                return doctor_add(rep, group, lvl, where[0] ? where : NULL, lvl == DOCTOR_INFO ? NULL : fix_line,
                                  "%s%s", subject, x->message);
        return doctor_add(rep, group, lvl, where, lvl == DOCTOR_INFO ? NULL : fix_file, "%s%s: %s", subject, base,
                          x->message);
}

int doctor_add_diags(struct doctor_report *rep, enum doctor_group group, const struct diag_list *d) {
        for (size_t i = 0; d && i < d->n; i++) {
                int r = add_diag(rep, group, &d->v[i], d->v[i].path, "", "edit the line (see 'rdmalimits check')",
                                 "see 'rdmalimits check'");
                if (r < 0)
                        return r;
        }
        return 0;
}

size_t doctor_count(const struct doctor_report *rep, enum doctor_level level) {
        size_t n = 0;
        for (size_t i = 0; i < rep->n; i++)
                if (rep->v[i].level == level)
                        n++;
        return n;
}

void doctor_report_clear(struct doctor_report *rep) {
        for (size_t i = 0; i < rep->n; i++) {
                free(rep->v[i].where);
                free(rep->v[i].message);
                free(rep->v[i].fix);
        }
        free(rep->v);
        *rep = (struct doctor_report){};
}

const char *doctor_group_name(enum doctor_group g) {
        static const char *const names[_DOCTOR_GROUP_MAX] = {
                [DOCTOR_SSH] = "ssh login",          [DOCTOR_CONSOLE] = "console login",
                [DOCTOR_SU] = "su/sudo",             [DOCTOR_CRON] = "cron",
                [DOCTOR_SYSTEMD] = "systemd services", [DOCTOR_CONTAINERS] = "containers",
                [DOCTOR_PROCESSES] = "processes",    [DOCTOR_CONFIG] = "configuration files",
        };
        return (unsigned)g < _DOCTOR_GROUP_MAX ? names[g] : "?";
}

const char *doctor_level_name(enum doctor_level l) {
        switch (l) {
        case DOCTOR_OK:
                return "ok";
        case DOCTOR_INFO:
                return "info";
        case DOCTOR_WARNING:
                return "warning";
        case DOCTOR_ERROR:
                return "error";
        }
        return "?";
}

/* ------------------------------------------------------------------------------------ */
/* numbers: lib/size.h is the one parser */

int doctor_parse_systemd_size(const char *s, uint64_t *ret) {
        return size_parse_systemd(s, ret);
}

int doctor_parse_systemd_limit(const char *s, uint64_t *ret_soft, uint64_t *ret_hard) {
        _cleanup_free_ char *copy = NULL;
        uint64_t soft, hard;
        char *colon;
        int r;

        if (!s || !(copy = strdup(s)))
                return s ? -ENOMEM : -EINVAL;
        colon = strchr(copy, ':');
        if (colon) {
                *colon = '\0';
                r = doctor_parse_systemd_size(copy, &soft);
                if (r >= 0)
                        r = doctor_parse_systemd_size(colon + 1, &hard);
                if (r < 0)
                        return r;
                if (soft > hard)
                        return -EINVAL;
        } else {
                r = doctor_parse_systemd_size(copy, &soft);
                if (r < 0)
                        return r;
                hard = soft;
        }
        *ret_soft = soft;
        *ret_hard = hard;
        return 0;
}

/* ---- a targeted look into daemon.json ---- */

/* The end of the JSON value that starts at p ({...}, [...], "..." or a scalar). */
static const char *json_skip_value(const char *p) {
        if (*p == '"') {
                for (p++; *p && *p != '"'; p++)
                        if (*p == '\\' && p[1])
                                p++;
                return *p ? p + 1 : p;
        }
        if (*p == '{' || *p == '[') {
                int depth = 0;
                for (; *p; p++) {
                        if (*p == '"') {
                                p = json_skip_value(p) - 1;
                                continue;
                        }
                        if (*p == '{' || *p == '[')
                                depth++;
                        else if ((*p == '}' || *p == ']') && --depth == 0)
                                return p + 1;
                }
                return p;
        }
        while (*p && *p != ',' && *p != '}' && *p != ']')
                p++;
        return p;
}

static const char *json_ws(const char *p) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
                p++;
        return p;
}

/* Within the object [obj, end): the value of "key" (Go's decoder matches keys without
 * regard to case), or NULL. */
static const char *json_member(const char *obj, const char *end, const char *key) {
        size_t kl = strlen(key);
        const char *p = json_ws(obj);
        if (p >= end || *p != '{')
                return NULL;
        p++;
        while (p < end) {
                p = json_ws(p);
                if (*p != '"')
                        return NULL;
                const char *k = p + 1, *kend = json_skip_value(p);
                if (kend > end || kend - 1 <= k)
                        return NULL;
                bool match = (size_t)(kend - 1 - k) == kl && strncasecmp(k, key, kl) == 0;
                p = json_ws(kend);
                if (*p != ':')
                        return NULL;
                p = json_ws(p + 1);
                if (match)
                        return p;
                p = json_ws(json_skip_value(p));
                if (*p != ',')
                        return NULL;
                p++;
        }
        return NULL;
}

static int json_limit_number(const char *p, uint64_t *ret) {
        if (!p)
                return 0;   /* missing: docker uses 0 */
        if (p[0] == '-') {
                if (p[1] == '1' && !isdigit((unsigned char)p[2])) {
                        *ret = SIZE_INFINITY;
                        return 0;
                }
                return -EINVAL;
        }
        const char *end;
        uint64_t v;
        int r = parse_u64_prefix(p, &v, &end);
        if (r < 0)
                return r;
        if (*end == '.' || *end == 'e' || *end == 'E')
                return -EINVAL;
        *ret = v;
        return 0;
}

int doctor_docker_memlock(const char *json, uint64_t *ret_soft, uint64_t *ret_hard) {
        const char *end, *ul, *ml;
        uint64_t soft = 0, hard = 0;

        if (!json)
                return 0;
        end = json + strlen(json);
        ul = json_member(json, end, "default-ulimits");
        if (!ul || *ul != '{')
                return 0;
        ml = json_member(ul, json_skip_value(ul), "memlock");
        if (!ml)
                return 0;
        if (*ml != '{')
                return -EINVAL;
        const char *mend = json_skip_value(ml);
        if (json_limit_number(json_member(ml, mend, "Soft"), &soft) < 0 ||
            json_limit_number(json_member(ml, mend, "Hard"), &hard) < 0)
                return -EINVAL;
        *ret_soft = soft;
        *ret_hard = hard;
        return 1;
}

/* ------------------------------------------------------------------------------------ */
/* small helpers */

struct target {
        bool soft_known, hard_known;
        uint64_t soft, hard;
        char soft_where[WHERE_MAX], hard_where[WHERE_MAX];
};

struct doc {
        const struct doctor_input *in;
        struct doctor_report *rep;
        struct hw_summary *hw;
        bool hw_probed;
        struct target max;           /* the largest memlock any entry or rule gives */
        bool tree_has_memlock;
        size_t stacks_seen;
        bool module_in_any_stack;
        bool in_container;
        /* PAM module directories (absolute, without root), and the one libpam loads from */
        char **moddirs;
        size_t n_moddirs;
        long pamdir;
        bool moddirs_done;
        /* DefaultLimitMEMLOCK of system.conf */
        bool sysdef_set;
        uint64_t sysdef_soft, sysdef_hard;
        char sysdef_where[WHERE_MAX];
};

#define ADD(d, g, lvl, where, fix, ...)                                              \
        do {                                                                         \
                if (doctor_add((d)->rep, (g), (lvl), (where), (fix), __VA_ARGS__) < 0) \
                        return -ENOMEM;                                              \
        } while (0)

/* The name shown for an absolute path: relative to the root when there is one. */
static const char *disp(const struct doc *d, const char *abs) {
        if (d->in->root && abs[0] == '/')
                return abs + 1;
        return abs;
}

/* A path the caller got with the root prefix (e.g. the policy's): strip it for display. */
static const char *disp_rooted(const struct doc *d, const char *path) {
        const char *root = d->in->root;
        if (!root || !path)
                return path;
        size_t rl = strlen(root);
        while (rl > 1 && root[rl - 1] == '/')
                rl--;
        if (strncmp(path, root, rl) == 0 && path[rl] == '/')
                return path + rl + 1;
        return path;
}

/* asprintf() that yields NULL on failure (its pointer is undefined then). */
static char *strf(const char *fmt, ...) _printf_(1, 2);
static char *strf(const char *fmt, ...) {
        va_list ap;
        char *s;
        va_start(ap, fmt);
        int r = vasprintf(&s, fmt, ap);
        va_end(ap);
        return r < 0 ? NULL : s;
}

static int read_text(const char *path, char **ret, struct stat *ret_st) {
        _cleanup_close_ int fd = -1;
        int r = fs_open_config(AT_FDCWD, path, false, false, &fd, ret_st);
        if (r < 0)
                return r;
        return fs_read_all(fd, TEXT_MAX, ret, NULL);
}

/* A /proc/PID/comm as read: the kernel ends it with one newline; any byte before that one,
 * a newline included, is the process's own name and is kept (to be escaped, not cut). */
static void comm_trim(char *comm) {
        size_t n = strlen(comm);
        if (n > 0 && comm[n - 1] == '\n')
                comm[n - 1] = '\0';
}

/* Read ROOT/abs. */
static int read_rooted(const struct doc *d, const char *abs, char **ret) {
        _cleanup_close_ int fd = -1;
        int r = fs_open_config_in_root(d->in->root, abs, false, false, &fd, NULL);
        if (r < 0)
                return r;
        return fs_read_all(fd, TEXT_MAX, ret, NULL);
}

static bool exists_rooted(const struct doc *d, const char *abs, bool want_dir) {
        struct stat st;
        if (fs_stat_in_root(d->in->root, abs, false, &st) < 0)
                return false;
        return want_dir ? S_ISDIR(st.st_mode) : !S_ISDIR(st.st_mode);
}

static char *fmt_size(uint64_t v, char buf[static SIZE_FMT_MAX]) {
        return size_format(v, buf);
}

/* The form systemd accepts in LimitMEMLOCK=. */
static char *systemd_arg(uint64_t v, char buf[static SIZE_FMT_MAX]) {
        if (v == SIZE_INFINITY) {
                snprintf(buf, SIZE_FMT_MAX, "infinity");
                return buf;
        }
        return size_format_arg(v, buf);
}

static const char *fmt_pair(uint64_t soft, uint64_t hard, char *buf, size_t size) {
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
        if (soft == hard)
                snprintf(buf, size, "%s", fmt_size(soft, a));
        else
                snprintf(buf, size, "soft %s, hard %s", fmt_size(soft, a), fmt_size(hard, b));
        return buf;
}

static const char *strip(char *s) {
        while (*s == ' ' || *s == '\t')
                s++;
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
                s[--n] = '\0';
        return s;
}

struct strv {
        char **v;
        size_t n;
};

static void strv_clear(struct strv *s) {
        for (size_t i = 0; i < s->n; i++)
                free(s->v[i]);
        free(s->v);
        *s = (struct strv){};
}

static int strv_push(struct strv *s, const char *x) {
        char **v = reallocarray(s->v, s->n + 2, sizeof(char *));
        if (!v)
                return -ENOMEM;
        s->v = v;
        if (!(v[s->n] = strdup(x)))
                return -ENOMEM;
        v[++s->n] = NULL;
        return 0;
}

static bool strv_has(const struct strv *s, const char *x) {
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->v[i], x))
                        return true;
        return false;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in ROOT/absdir matching the fnmatch pattern (no dotfiles), sorted in byte order. */
static int list_dir(const struct doc *d, const char *absdir, const char *pattern, struct strv *ret) {
        DIR *dir = NULL;
        struct dirent *de;
        int r = fs_opendir_in_root(d->in->root, absdir, &dir);

        if (r < 0)
                return r == -ENOMEM ? r : 0;
        while ((de = readdir(dir))) {
                if (de->d_name[0] == '.' || fnmatch(pattern, de->d_name, FNM_PERIOD) != 0)
                        continue;
                if ((r = strv_push(ret, de->d_name)) < 0)
                        break;
        }
        closedir(dir);
        if (ret->n > 1)
                qsort(ret->v, ret->n, sizeof(char *), cmp_str);
        return r;
}

/*
 * systemd drop-ins: SUB/NAME.conf in each of dirs; a name in an earlier directory hides the
 * same name in later ones; the result sorted by name.  *ret gets absolute paths.
 */
static int list_dropins(const struct doc *d, const char *const *dirs, size_t n_dirs, const char *const *subs,
                        size_t n_subs, struct strv *ret) {
        struct strv names = {}, paths = {};
        int r = 0;

        for (size_t s = 0; s < n_subs && r >= 0; s++)
                for (size_t i = 0; i < n_dirs && r >= 0; i++) {
                        _cleanup_free_ char *dir = NULL;
                        struct strv here = {};
                        if (!(dir = strf("%s/%s", dirs[i], subs[s]))) {
                                r = -ENOMEM;
                                break;
                        }
                        r = list_dir(d, dir, "*.conf", &here);
                        for (size_t k = 0; k < here.n && r >= 0; k++) {
                                _cleanup_free_ char *full = NULL;
                                if (strv_has(&names, here.v[k]))
                                        continue;
                                if (!(full = strf("%s/%s", dir, here.v[k]))) {
                                        full = NULL;
                                        r = -ENOMEM;
                                        break;
                                }
                                r = strv_push(&names, here.v[k]);
                                if (r >= 0)
                                        r = strv_push(&paths, full);
                        }
                        strv_clear(&here);
                }
        if (r < 0) {
                strv_clear(&names);
                strv_clear(&paths);
                return r;
        }
        /* sort the paths by their file name */
        for (size_t i = 1; i < paths.n; i++)
                for (size_t j = i; j > 0; j--) {
                        const char *a = strrchr(paths.v[j - 1], '/') + 1, *b = strrchr(paths.v[j], '/') + 1;
                        if (strcmp(a, b) <= 0)
                                break;
                        char *t = paths.v[j - 1];
                        paths.v[j - 1] = paths.v[j];
                        paths.v[j] = t;
                }
        strv_clear(&names);
        *ret = paths;
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* targets: what the configuration gives */

static void target_raise(struct target *t, bool soft, uint64_t v, const char *where) {
        if (soft && (!t->soft_known || v > t->soft)) {
                t->soft_known = true;
                t->soft = v;
                snprintf(t->soft_where, sizeof t->soft_where, "%s", where);
        }
        if (!soft && (!t->hard_known || v > t->hard)) {
                t->hard_known = true;
                t->hard = v;
                snprintf(t->hard_where, sizeof t->hard_where, "%s", where);
        }
}

static const struct hw_summary *need_hw(struct doc *d) {
        if (!d->hw_probed) {
                d->hw_probed = true;
                if (hw_probe(HW_ALL, d->in->policy ? &d->in->policy->hw.sel : NULL, &d->hw) < 0)
                        d->hw = NULL;
        }
        return d->hw;
}

static void policy_where(const struct doc *d, const struct policy_rule *r, char *buf, size_t size) {
        snprintf(buf, size, "%s:%u, %s %s", disp_rooted(d, d->in->policy->path), r->line,
                 r->user ? "user" : "group", r->user ? r->user : r->group);
}

/* The decision of the policy for a user and groups; false when nothing applies. */
static bool policy_decide(struct doc *d, const char *user, const char *const *groups, size_t n_groups,
                          struct policy_decision *ret) {
        const struct policy *p = d->in->policy;
        const struct hw_summary *hw = NULL;
        if (!p)
                return false;
        if (policy_needs_hw(p, user, groups, n_groups) && !(hw = need_hw(d)))
                return false;
        if (policy_evaluate(p, user, groups, n_groups, hw, ret) < 0)
                return false;
        return ret->matched && !ret->untouched;
}

static void compute_max(struct doc *d) {
        const struct lc_tree *t = d->in->tree;
        char where[WHERE_MAX];

        for (size_t i = 0; t && i < t->n_lines; i++) {
                const struct lc_line *l = &t->lines[i];
                if (l->nfields != 4 || l->item_kind != LC_ITEM_MEMLOCK || !l->value_ok || !l->type_mask ||
                    !l->domain || l->domain[0] == '%')
                        continue;
                d->tree_has_memlock = true;
                lc_line_where(t, l, where, sizeof where);
                if (l->type_mask & LC_SOFT)
                        target_raise(&d->max, true, l->bytes, where);
                if (l->type_mask & LC_HARD)
                        target_raise(&d->max, false, l->bytes, where);
        }
        const struct policy *p = d->in->policy;
        for (size_t i = 0; p && i < p->n_rules; i++) {
                const struct policy_rule *r = &p->rules[i];
                struct policy_decision dec;
                const char *groups[1] = { r->group };
                /* each rule as the one that matches: its user, or a nameless member of its group */
                if (!policy_decide(d, r->user ? r->user : "", r->user ? NULL : groups, r->user ? 0 : 1, &dec))
                        continue;
                policy_where(d, dec.rule, where, sizeof where);
                target_raise(&d->max, true, dec.soft, where);
                target_raise(&d->max, false, dec.hard, where);
        }
}

/* What the configuration gives USER: -ENOENT for an unknown user; an empty target when no
 * entry or rule names the user (the baseline is not a target). */
static int user_target(struct doc *d, const char *user, struct target *ret) {
        const struct lc_tree *t = d->in->tree;
        struct lc_baseline base;
        struct lc_result res = {};
        const struct id_user *u;
        char where[WHERE_MAX];
        int r;

        *ret = (struct target){};
        r = ident_user(d->in->id, user, &u);
        if (r < 0)
                return r;
        if (t && lc_baseline_load(t, NULL, &base) >= 0 && lc_resolve(t, d->in->id, user, &base, &res) >= 0 &&
            res.kind == LC_RES_LIMITS) {
                if (res.soft.src) {
                        uint64_t s = res.soft_clamped ? res.hard.value : res.soft.value;
                        target_raise(ret, true, s, lc_line_where(t, res.soft.src, where, sizeof where));
                }
                if (res.hard.src)
                        target_raise(ret, false, res.hard.value, lc_line_where(t, res.hard.src, where, sizeof where));
        }
        lc_result_clear(&res);
        if (d->in->policy) {
                char **groups = NULL;
                size_t ng = 0;
                struct policy_decision dec;
                r = policy_user_groups(d->in->policy, d->in->id, u, &groups, &ng);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0 && policy_decide(d, user, (const char *const *)groups, ng, &dec)) {
                        policy_where(d, dec.rule, where, sizeof where);
                        if (dec.lower) {
                                ret->soft_known = ret->hard_known = false;
                        }
                        target_raise(ret, true, dec.soft, where);
                        target_raise(ret, false, dec.hard, where);
                }
                ident_strv_free(groups);
        }
        return 0;
}

/* "the 1 GiB that etc/security/limits.d/90.conf:3 gives" */
static const char *target_text(const struct target *t, bool hard, char *buf, size_t size) {
        char a[SIZE_FMT_MAX];
        snprintf(buf, size, "%s %s (%s)", hard ? "hard" : "soft", fmt_size(hard ? t->hard : t->soft, a),
                 hard ? t->hard_where : t->soft_where);
        return buf;
}

/* ------------------------------------------------------------------------------------ */
/* PAM stacks */

static const struct {
        const char *name;
        enum doctor_group group;
} pam_services[] = {
        { "sshd", DOCTOR_SSH },      { "login", DOCTOR_CONSOLE },    { "su", DOCTOR_SU },
        { "su-l", DOCTOR_SU },       { "sudo", DOCTOR_SU },          { "sudo-i", DOCTOR_SU },
        { "runuser", DOCTOR_SU },    { "runuser-l", DOCTOR_SU },     { "cron", DOCTOR_CRON },
        { "systemd-user", DOCTOR_SYSTEMD },
};

/* Modules that are used as conditions: their success is a decision, not the normal case. */
static bool condition_module(const char *name) {
        static const char *const names[] = { "pam_succeed_if", "pam_localuser", "pam_usertype", "pam_listfile",
                                             "pam_wheel",      "pam_access",    "pam_rootok",   "pam_time",
                                             "pam_exec" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(name, names[i]))
                        return true;
        return false;
}

struct pam_ctl {
        unsigned succ_jump;   /* on success: skip the next N modules */
        bool succ_stop;       /* on success: done/die, the stack ends */
        unsigned other_jump;  /* the largest jump on any other return value */
};

static void pam_parse_control(const char *control, struct pam_ctl *ret) {
        struct pam_ctl c = {};
        char buf[1024], *save = NULL;
        const char *succ = NULL, *def = NULL;
        unsigned n;

        *ret = c;
        if (control[0] != '[') {
                /* sufficient = [success=done new_authtok_reqd=done default=ignore] */
                ret->succ_stop = strcasecmp(control, "sufficient") == 0;
                return;
        }
        snprintf(buf, sizeof buf, "%s", control + 1);
        char *close = strchr(buf, ']');
        if (close)
                *close = '\0';
        for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
                char *eq = strchr(tok, '=');
                if (!eq)
                        continue;
                *eq = '\0';
                if (strcasecmp(tok, "success") == 0)
                        succ = eq + 1;
                else if (strcasecmp(tok, "default") == 0)
                        def = eq + 1;
                else if (parse_uint(eq + 1, &n) == 0 && n > c.other_jump)
                        c.other_jump = n;
        }
        if (!succ)
                succ = def;   /* an unlisted value takes default's action */
        else if (def && parse_uint(def, &n) == 0 && n > c.other_jump)
                c.other_jump = n;
        if (succ) {
                if (parse_uint(succ, &n) == 0)
                        c.succ_jump = n;
                else if (strcasecmp(succ, "done") == 0 || strcasecmp(succ, "die") == 0)
                        c.succ_stop = true;
        }
        *ret = c;
}

/* The directories PAM modules may live in; pamdir: the one libpam loads bare names from
 * (where pam_permit.so is), -1 when no such directory is found. */
static int moddirs_load(struct doc *d) {
        static const char *const fixed[] = { "/lib/x86_64-linux-gnu/security", "/usr/lib/x86_64-linux-gnu/security",
                                             "/lib/security",  "/usr/lib/security",
                                             "/lib64/security", "/usr/lib64/security" };
        struct strv v = {};
        int r = 0;

        if (d->moddirs_done)
                return 0;
        d->moddirs_done = true;
        d->pamdir = -1;
        for (size_t i = 0; i < ELEMENTSOF(fixed) && r >= 0; i++)
                r = strv_push(&v, fixed[i]);
        /* other multiarch triplets */
        static const char *const libs[] = { "/usr/lib", "/lib" };
        for (size_t i = 0; i < ELEMENTSOF(libs) && r >= 0; i++) {
                struct strv sub = {};
                r = list_dir(d, libs[i], "*-*-*", &sub);
                for (size_t k = 0; k < sub.n && r >= 0; k++) {
                        _cleanup_free_ char *p = NULL;
                        if (!(p = strf("%s/%s/security", libs[i], sub.v[k]))) {
                                r = -ENOMEM;
                                break;
                        }
                        if (!strv_has(&v, p) && exists_rooted(d, p, true))
                                r = strv_push(&v, p);
                }
                strv_clear(&sub);
        }
        if (r >= 0 && d->in->securedir && d->in->securedir[0] == '/' && !strv_has(&v, d->in->securedir))
                r = strv_push(&v, d->in->securedir);
        if (r < 0) {
                strv_clear(&v);
                return r;
        }
        for (size_t i = 0; i < v.n && d->pamdir < 0; i++) {
                _cleanup_free_ char *a = NULL, *b = NULL;
                if (!(a = strf("%s/pam_permit.so", v.v[i])) || !(b = strf("%s/pam_unix.so", v.v[i])))
                        return -ENOMEM;
                if (exists_rooted(d, a, false) || exists_rooted(d, b, false))
                        d->pamdir = (long)i;
        }
        d->moddirs = v.v;
        d->n_moddirs = v.n;
        return 0;
}

enum mod_state { MOD_FOUND, MOD_ELSEWHERE, MOD_MISSING };

/* Where is the module file?  *ret_found: the display path of where it is (MOD_ELSEWHERE). */
static int module_state(struct doc *d, const char *module, enum mod_state *ret, char *found, size_t size) {
        int r = moddirs_load(d);
        if (r < 0)
                return r;
        if (module[0] == '/') {
                *ret = exists_rooted(d, module, false) ? MOD_FOUND : MOD_MISSING;
                return 0;
        }
        *ret = MOD_MISSING;
        for (size_t i = 0; i < d->n_moddirs; i++) {
                _cleanup_free_ char *p = NULL;
                if (!(p = strf("%s/%s", d->moddirs[i], module)))
                        return -ENOMEM;
                if (!exists_rooted(d, p, false))
                        continue;
                if (d->pamdir < 0 || (long)i == d->pamdir) {
                        *ret = MOD_FOUND;
                        return 0;
                }
                *ret = MOD_ELSEWHERE;
                snprintf(found, size, "%s", p);
        }
        return 0;
}

static const char *pamdir_name(const struct doc *d) {
        return d->pamdir >= 0 ? d->moddirs[d->pamdir] : "the PAM module directory";
}

/* The module at index idx: its file exists, and nothing before it jumps over it.  Adds
 * the problems; *ret_ok when there were none. */
static int pam_check_module(struct doc *d, enum doctor_group g, const char *svc, const struct pam_stack *st,
                            size_t idx, bool *ret_ok) {
        const struct pam_entry *e = &st->v[idx];
        char where[WHERE_MAX], w2[WHERE_MAX], found[WHERE_MAX], fix[FIX_MAX];
        enum mod_state ms;
        int r;

        *ret_ok = true;
        snprintf(where, sizeof where, "%s:%u", e->file, e->line);
        r = module_state(d, e->module, &ms, found, sizeof found);
        if (r < 0)
                return r;
        if (ms == MOD_MISSING) {
                *ret_ok = false;
                snprintf(fix, sizeof fix, "install %s.so into %s (or write its full path in %s)", e->name,
                         pamdir_name(d), where);
                if (e->dash)
                        ADD(d, g, DOCTOR_ERROR, where, fix,
                            "%s: '-session %s %s': the module file is missing, and the '-' makes PAM skip it "
                            "without a word",
                            svc, e->control, e->module);
                else
                        ADD(d, g, DOCTOR_ERROR, where, fix,
                            "%s: the module file %s is missing: PAM cannot load it (a required module then "
                            "fails every session)",
                            svc, e->module);
        } else if (ms == MOD_ELSEWHERE) {
                *ret_ok = false;
                snprintf(fix, sizeof fix, "write the full path in %s: session %s %s, or install it into %s", where,
                         e->control, found, pamdir_name(d));
                ADD(d, g, DOCTOR_ERROR, where, fix,
                    "%s: %s is installed as %s, but libpam loads bare module names from %s only%s", svc, e->module,
                    found, pamdir_name(d), e->dash ? " (and '-session' hides the failure)" : "");
        }

        /* jumps and early ends before it (flattened like include/@include; a substack's
         * jumps cannot leave it, which this does not model) */
        for (size_t j = 0; j < idx; j++) {
                const struct pam_entry *x = &st->v[j];
                struct pam_ctl c;
                pam_parse_control(x->control, &c);
                snprintf(w2, sizeof w2, "%s:%u", x->file, x->line);
                bool cond = condition_module(x->name);
                if (c.succ_jump && j + c.succ_jump >= idx) {
                        *ret_ok = false;
                        snprintf(fix, sizeof fix,
                                 "correct the jump count of '%s' at %s so it does not cross %s, or move %s above it",
                                 x->control, w2, e->name, e->name);
                        ADD(d, g, cond ? DOCTOR_WARNING : DOCTOR_ERROR, w2, fix,
                            "%s: '%s %s' jumps over %s (%s) when it succeeds%s", svc, x->control, x->module, e->name,
                            where, cond ? ": only sessions failing its condition get the limit" : ", so it never runs");
                } else if (c.succ_stop) {
                        *ret_ok = false;
                        snprintf(fix, sizeof fix, "move %s (%s) above %s, or make that line 'optional'/'required'",
                                 e->name, where, w2);
                        ADD(d, g, cond ? DOCTOR_WARNING : DOCTOR_ERROR, w2, fix,
                            "%s: '%s %s' ends the session stack when it succeeds, before %s (%s) runs", svc,
                            x->control, x->module, e->name, where);
                } else if (c.other_jump && j + c.other_jump >= idx) {
                        *ret_ok = false;
                        snprintf(fix, sizeof fix, "correct the jump count of '%s' at %s, or move %s above it",
                                 x->control, w2, e->name);
                        ADD(d, g, DOCTOR_WARNING, w2, fix,
                            "%s: '%s %s' jumps over %s (%s) when it does not succeed", svc, x->control, x->module,
                            e->name, where);
                }
        }
        return 0;
}

static long stack_last(const struct pam_stack *st, const char *name) {
        for (size_t i = st->n; i > 0; i--)
                if (streq(st->v[i - 1].name, name))
                        return (long)(i - 1);
        return -1;
}

static int check_pam_service(struct doc *d, const char *svc, enum doctor_group g) {
        struct pam_stack st = {};
        _cleanup_free_ char *abs = NULL;
        char where[WHERE_MAX], w2[WHERE_MAX], fix[FIX_MAX];
        bool ok;
        int r;

        r = pam_stack_load(d->in->root, svc, &st);
        if (r < 0)
                return r;
        if (!(abs = strf("/etc/pam.d/%s", svc))) {
                abs = NULL;
                pam_stack_clear(&st);
                return -ENOMEM;
        }
        if (st.error == -ENOENT) {
                pam_stack_clear(&st);
                return 0;   /* not installed */
        }
        d->stacks_seen++;
        if (st.error) {
                r = doctor_add(d->rep, g, DOCTOR_WARNING, disp(d, abs), NULL, "%s: cannot be read (%s)", svc,
                               strerror(-st.error));
                goto out;
        }
        long lim = pam_stack_find(&st, "pam_limits"), mod = pam_stack_find(&st, "pam_rdmalimit");
        if (lim < 0 && mod < 0) {
                snprintf(fix, sizeof fix, "add 'session required pam_limits.so' to %s", disp(d, abs));
                r = doctor_add(d->rep, g, d->max.soft_known || d->max.hard_known ? DOCTOR_ERROR : DOCTOR_WARNING,
                               disp(d, abs), fix,
                               "%s: neither pam_limits nor pam_rdmalimit is in the session stack: %s sessions keep "
                               "the memlock of the service that opens them",
                               svc, svc);
                if (r < 0)
                        goto out;
        }
        if (lim < 0 && mod >= 0) {
                snprintf(fix, sizeof fix, "add 'session required pam_limits.so' before pam_rdmalimit in %s",
                         disp(d, abs));
                r = doctor_add(d->rep, g, d->tree_has_memlock ? DOCTOR_WARNING : DOCTOR_INFO, disp(d, abs),
                               d->tree_has_memlock ? fix : NULL,
                               "%s: pam_limits is not in the session stack: limits.conf and limits.d do not apply "
                               "to %s sessions, only pam_rdmalimit does",
                               svc, svc);
                if (r < 0)
                        goto out;
        }
        if (lim >= 0) {
                const struct pam_entry *e = &st.v[lim];
                snprintf(where, sizeof where, "%s:%u", e->file, e->line);
                if ((r = pam_check_module(d, g, svc, &st, (size_t)lim, &ok)) < 0)
                        goto out;
                if (ok && (r = doctor_add(d->rep, g, DOCTOR_OK, where, NULL,
                                          "%s: pam_limits runs in the session stack as '%s'", svc, e->control)) < 0)
                        goto out;
                const char *conf = strstr(e->args, "conf=");
                if (conf && (r = doctor_add(d->rep, g, DOCTOR_INFO, where, NULL,
                                            "%s: pam_limits has '%.*s': it reads only that file, not "
                                            "limits.conf and limits.d",
                                            svc, (int)strcspn(conf, " \t"), conf)) < 0)
                        goto out;
        }
        if (mod >= 0) {
                const struct pam_entry *e = &st.v[mod];
                d->module_in_any_stack = true;
                snprintf(where, sizeof where, "%s:%u", e->file, e->line);
                if ((r = pam_check_module(d, g, svc, &st, (size_t)mod, &ok)) < 0)
                        goto out;
                long last_lim = stack_last(&st, "pam_limits"), last_mod = stack_last(&st, "pam_rdmalimit");
                if (last_lim > last_mod) {
                        const struct pam_entry *l = &st.v[last_lim];
                        snprintf(w2, sizeof w2, "%s:%u", l->file, l->line);
                        snprintf(fix, sizeof fix, "move the pam_rdmalimit line (%s) after pam_limits (%s)", where, w2);
                        r = doctor_add(d->rep, g, DOCTOR_ERROR, where, fix,
                                       "%s: pam_rdmalimit runs before pam_limits (%s), which then sets its own "
                                       "values: pam_limits overrides it",
                                       svc, w2);
                } else if (ok)
                        r = doctor_add(d->rep, g, DOCTOR_OK, where, NULL, "%s: pam_rdmalimit runs%s as '%s'", svc,
                                       lim >= 0 ? " after pam_limits" : "", e->control);
                if (r < 0)
                        goto out;
        } else if (d->in->policy_exists) {
                snprintf(fix, sizeof fix, "add 'session optional pam_rdmalimit.so' after pam_limits in %s",
                         disp(d, abs));
                if ((r = doctor_add(d->rep, g, DOCTOR_INFO, disp(d, abs), fix,
                                    "%s: pam_rdmalimit is not in the session stack: the policy does not apply to "
                                    "%s sessions",
                                    svc, svc)) < 0)
                        goto out;
        }
        r = 0;
out:
        pam_stack_clear(&st);
        return r;
}

/* ------------------------------------------------------------------------------------ */
/* sshd_config */

struct sshd_scan {
        bool set, value;
        char where[WHERE_MAX];
        bool ignored;             /* a later UsePAM with another value */
        char ignored_where[WHERE_MAX];
        char ignored_value[16];
        bool in_match_seen;
        char match_where[WHERE_MAX];
        unsigned files;
};

static int sshd_scan_file(struct doc *d, const char *abs, unsigned depth, bool in_match, struct sshd_scan *s);

static int sshd_include(struct doc *d, const char *word, unsigned depth, bool in_match, struct sshd_scan *s) {
        _cleanup_free_ char *pat = NULL;
        struct strv names = {};
        int r;

        if (word[0] == '/')
                pat = strdup(word);
        else if (!(pat = strf("/etc/ssh/%s", word)))
                pat = NULL;
        if (!pat)
                return -ENOMEM;
        char *slash = strrchr(pat, '/');
        *slash = '\0';
        /* wildcards in the file name only (what sshd_config.d/ uses) */
        r = list_dir(d, pat[0] ? pat : "/", slash + 1, &names);
        for (size_t i = 0; i < names.n && r >= 0; i++) {
                _cleanup_free_ char *p = NULL;
                if (!(p = strf("%s/%s", pat, names.v[i]))) {
                        p = NULL;
                        r = -ENOMEM;
                        break;
                }
                if (exists_rooted(d, p, false))
                        r = sshd_scan_file(d, p, depth + 1, in_match, s);
        }
        strv_clear(&names);
        return r;
}

static int sshd_scan_file(struct doc *d, const char *abs, unsigned depth, bool in_match, struct sshd_scan *s) {
        _cleanup_free_ char *text = NULL;
        unsigned lineno = 0;
        int r;

        if (depth > INCLUDE_DEPTH_MAX)
                return 0;
        r = read_rooted(d, abs, &text);
        if (r < 0)
                return r == -ENOMEM ? r : (depth == 0 ? r : 0);
        s->files++;
        for (char *line = text, *next; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                lineno++;
                char *p = line;
                while (*p == ' ' || *p == '\t')
                        p++;
                if (!*p || *p == '#' || *p == '\r')
                        continue;
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
                char *rest = p;
                if (strcasecmp(kw, "Match") == 0) {
                        in_match = true;
                        continue;
                }
                if (strcasecmp(kw, "Include") == 0) {
                        char *save = NULL;
                        for (char *w = strtok_r(rest, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
                                if ((r = sshd_include(d, w, depth, in_match, s)) < 0)
                                        return r;
                        }
                        continue;
                }
                if (strcasecmp(kw, "UsePAM") != 0)
                        continue;
                char *val = rest;
                val[strcspn(val, " \t\r#")] = '\0';
                if (val[0] == '"') {
                        val++;
                        val[strcspn(val, "\"")] = '\0';
                }
                char where[WHERE_MAX];
                snprintf(where, sizeof where, "%s:%u", disp(d, abs), lineno);
                if (in_match) {
                        if (!s->in_match_seen) {
                                s->in_match_seen = true;
                                snprintf(s->match_where, sizeof s->match_where, "%s", where);
                        }
                        continue;
                }
                bool v = strcasecmp(val, "yes") == 0;
                if (!s->set) {
                        s->set = true;
                        s->value = v;
                        snprintf(s->where, sizeof s->where, "%s", where);
                } else if (v != s->value && !s->ignored) {
                        s->ignored = true;
                        snprintf(s->ignored_where, sizeof s->ignored_where, "%s", where);
                        snprintf(s->ignored_value, sizeof s->ignored_value, "%s", v ? "yes" : "no");
                }
        }
        return 0;
}

static int check_sshd_config(struct doc *d) {
        const char *cfg = "/etc/ssh/sshd_config";
        struct sshd_scan s = {};
        char fix[FIX_MAX];
        int r;

        r = sshd_scan_file(d, cfg, 0, false, &s);
        if (r == -ENOMEM)
                return r;
        if (r == -ENOENT) {
                if (exists_rooted(d, "/etc/pam.d/sshd", false))
                        ADD(d, DOCTOR_SSH, DOCTOR_INFO, disp(d, cfg), NULL,
                            "sshd: %s does not exist: OpenSSH server not installed?", disp(d, cfg));
                return 0;
        }
        if (r < 0) {
                ADD(d, DOCTOR_SSH, DOCTOR_WARNING, disp(d, cfg), NULL, "sshd: cannot read %s (%s)", disp(d, cfg),
                    strerror(-r));
                return 0;
        }
        if (s.set && s.value)
                ADD(d, DOCTOR_SSH, DOCTOR_OK, s.where, NULL, "sshd: UsePAM yes");
        else if (s.set) {
                snprintf(fix, sizeof fix,
                         "set 'UsePAM yes' at %s (sshd takes the first value it reads), then restart sshd "
                         "(systemctl restart ssh)",
                         s.where);
                ADD(d, DOCTOR_SSH, DOCTOR_ERROR, s.where, fix,
                    "sshd: UsePAM no: sshd opens no PAM session, so neither pam_limits nor pam_rdmalimit runs for "
                    "ssh logins");
        } else {
                snprintf(fix, sizeof fix, "add 'UsePAM yes' to %s, then restart sshd (systemctl restart ssh)",
                         disp(d, cfg));
                ADD(d, DOCTOR_SSH, DOCTOR_ERROR, disp(d, cfg), fix,
                    "sshd: UsePAM is not set: OpenSSH's built-in default is no, so ssh logins get no PAM session "
                    "and no limits");
        }
        if (s.ignored)
                ADD(d, DOCTOR_SSH, DOCTOR_INFO, s.ignored_where, NULL,
                    "sshd: this 'UsePAM %s' is ignored: the first value (%s) wins", s.ignored_value, s.where);
        if (s.in_match_seen)
                ADD(d, DOCTOR_SSH, DOCTOR_WARNING, s.match_where, "move UsePAM out of the Match block",
                    "sshd: UsePAM inside a Match block is not allowed: sshd refuses the configuration");
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* systemd */

typedef int (*ini_cb)(struct doc *d, const char *where, const char *section, const char *key, const char *value,
                      void *userdata);

/* Parse ROOT/abs as a systemd configuration file; returns -ENOENT when it does not exist. */
static int ini_parse(struct doc *d, const char *abs, ini_cb cb, void *userdata) {
        _cleanup_free_ char *text = NULL;
        char section[128] = "", where[WHERE_MAX];
        unsigned lineno = 0;
        int r;

        r = read_rooted(d, abs, &text);
        if (r < 0)
                return r;
        for (char *line = text, *next; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                lineno++;
                char *p = (char *)strip(line);
                if (!*p || *p == '#' || *p == ';')
                        continue;
                if (*p == '[') {
                        char *e = strchr(p, ']');
                        if (e)
                                *e = '\0';
                        snprintf(section, sizeof section, "%s", p + 1);
                        continue;
                }
                char *eq = strchr(p, '=');
                if (!eq)
                        continue;
                *eq = '\0';
                snprintf(where, sizeof where, "%s:%u", disp(d, abs), lineno);
                r = cb(d, where, section, strip(p), strip(eq + 1), userdata);
                if (r < 0)
                        return r;
        }
        return 0;
}

struct limit_setting {
        bool set;              /* an assignment is in effect */
        bool bad;              /* the last assignment could not be parsed */
        char text[128];
        uint64_t soft, hard;
        char where[WHERE_MAX];
        unsigned assignments;
        char overridden[WHERE_MAX];   /* the assignment the final one overrides */
        char overridden_text[128];
};

static void limit_assign(struct limit_setting *l, const char *where, const char *value) {
        if (l->set) {
                snprintf(l->overridden, sizeof l->overridden, "%s", l->where);
                snprintf(l->overridden_text, sizeof l->overridden_text, "%s", l->text);
        }
        l->assignments++;
        snprintf(l->where, sizeof l->where, "%s", where);
        snprintf(l->text, sizeof l->text, "%s", value);
        if (!*value) {
                /* an empty assignment resets to the default */
                l->set = false;
                l->bad = false;
                return;
        }
        l->bad = doctor_parse_systemd_limit(value, &l->soft, &l->hard) < 0;
        l->set = !l->bad;
}

static int manager_cb(struct doc *d, const char *where, const char *section, const char *key, const char *value,
                      void *userdata) {
        if (strcasecmp(section, "Manager") == 0 && streq(key, "DefaultLimitMEMLOCK")) {
                struct limit_setting *l = userdata;
                limit_assign(l, where, value);
                if (l->bad)
                        return doctor_add(d->rep, DOCTOR_SYSTEMD, DOCTOR_ERROR, where,
                                          "write a size such as 64M, 1G or infinity (or SOFT:HARD)",
                                          "DefaultLimitMEMLOCK=%s cannot be parsed: systemd ignores it", value);
        }
        return 0;
}

static const char *const systemd_conf_dirs[] = { "/etc/systemd", "/run/systemd", "/usr/local/lib/systemd",
                                                 "/usr/lib/systemd", "/lib/systemd" };

/* system.conf or user.conf and their drop-ins: the last DefaultLimitMEMLOCK= wins. */
static int manager_default(struct doc *d, const char *name, struct limit_setting *ret) {
        _cleanup_free_ char *main_abs = NULL, *sub = NULL;
        struct strv drop = {};
        int r;

        *ret = (struct limit_setting){};
        if (!(main_abs = strf("/etc/systemd/%s", name)) || !(sub = strf("%s.d", name)))
                return -ENOMEM;
        r = ini_parse(d, main_abs, manager_cb, ret);
        if (r == -ENOMEM)
                return r;
        const char *subs[] = { sub };
        r = list_dropins(d, systemd_conf_dirs, ELEMENTSOF(systemd_conf_dirs), subs, 1, &drop);
        for (size_t i = 0; i < drop.n && r >= 0; i++) {
                r = ini_parse(d, drop.v[i], manager_cb, ret);
                if (r != -ENOMEM)
                        r = 0;
        }
        strv_clear(&drop);
        return r;
}

/* Compare a service's memlock with the configured maximum: level and text. */
static enum doctor_level below_max(const struct doc *d, uint64_t soft, uint64_t hard, char *why, size_t size) {
        char t[WHERE_MAX + 64];
        why[0] = '\0';
        if (d->max.soft_known && soft < d->max.soft) {
                snprintf(why, size, ", below the %s that the configuration gives", target_text(&d->max, false, t, sizeof t));
                return DOCTOR_WARNING;
        }
        if (d->max.hard_known && hard < d->max.hard) {
                snprintf(why, size, ", below the %s that the configuration gives", target_text(&d->max, true, t, sizeof t));
                return DOCTOR_WARNING;
        }
        return DOCTOR_OK;
}

static int check_systemd_defaults(struct doc *d) {
        struct limit_setting sys, user;
        char pair[128], why[2 * WHERE_MAX], fix[FIX_MAX], arg[SIZE_FMT_MAX];
        int r;

        if (!exists_rooted(d, "/etc/systemd", true))
                return 0;
        if (!d->in->root) {
                _cleanup_free_ char *comm = NULL;
                if (read_text("/proc/1/comm", &comm, NULL) >= 0) {
                        comm_trim(comm);
                        if (!streq(comm, "systemd"))
                                ADD(d, DOCTOR_SYSTEMD, DOCTOR_INFO, "/proc/1/comm", NULL,
                                    "PID 1 is %s, not systemd: system.conf and units take effect only where "
                                    "systemd runs",
                                    comm);
                }
        }
        if ((r = manager_default(d, "system.conf", &sys)) < 0)
                return r;
        uint64_t soft = sys.set ? sys.soft : SYSTEMD_DEFAULT_MEMLOCK, hard = sys.set ? sys.hard : SYSTEMD_DEFAULT_MEMLOCK;
        enum doctor_level lvl = below_max(d, soft, hard, why, sizeof why);
        uint64_t want = d->max.hard_known && d->max.hard > d->max.soft ? d->max.hard : d->max.soft;
        snprintf(fix, sizeof fix,
                 "give the services that need it LimitMEMLOCK=%s (systemctl edit UNIT -> [Service]), or set "
                 "DefaultLimitMEMLOCK=%s in /etc/systemd/system.conf.d/memlock.conf and run systemctl daemon-reexec",
                 systemd_arg(want, arg), arg);
        fmt_pair(soft, hard, pair, sizeof pair);
        if (sys.set) {
                d->sysdef_set = true;
                d->sysdef_soft = sys.soft;
                d->sysdef_hard = sys.hard;
                snprintf(d->sysdef_where, sizeof d->sysdef_where, "%s", sys.where);
                ADD(d, DOCTOR_SYSTEMD, lvl == DOCTOR_OK ? DOCTOR_OK : lvl, sys.where, lvl == DOCTOR_OK ? NULL : fix,
                    "services without LimitMEMLOCK= get memlock %s (DefaultLimitMEMLOCK=%s%s%s)%s%s", pair, sys.text,
                    sys.assignments > 1 ? ", the last of " : "", sys.assignments > 1 ? "several assignments" : "",
                    why, lvl == DOCTOR_OK ? "" : ": systemd services never read limits.conf");
                if (sys.overridden[0])
                        ADD(d, DOCTOR_SYSTEMD, DOCTOR_INFO, sys.overridden, NULL,
                            "DefaultLimitMEMLOCK=%s here is overridden by %s (the last assignment wins)",
                            sys.overridden_text, sys.where);
        } else
                ADD(d, DOCTOR_SYSTEMD, lvl == DOCTOR_OK ? DOCTOR_INFO : lvl, disp(d, "/etc/systemd/system.conf"),
                    lvl == DOCTOR_OK ? NULL : fix,
                    "DefaultLimitMEMLOCK is not set: services without LimitMEMLOCK= get systemd's default of %s%s%s",
                    pair, why, lvl == DOCTOR_OK ? "" : ": systemd services never read limits.conf");

        if ((r = manager_default(d, "user.conf", &user)) < 0)
                return r;
        if (user.set)
                ADD(d, DOCTOR_SYSTEMD, DOCTOR_INFO, user.where, NULL,
                    "user services (systemd --user) without LimitMEMLOCK= get memlock %s (DefaultLimitMEMLOCK=%s)",
                    fmt_pair(user.soft, user.hard, pair, sizeof pair), user.text);
        return 0;
}

struct unit_scan {
        struct limit_setting limit;
        char user[256];
        char user_where[WHERE_MAX];
        char pam_name[256];
        bool dynamic_user;
        struct doc *d;
};

static int unit_cb(struct doc *d, const char *where, const char *section, const char *key, const char *value,
                   void *userdata) {
        struct unit_scan *u = userdata;
        bool yes = strcasecmp(value, "yes") == 0 || strcasecmp(value, "true") == 0 || streq(value, "1") ||
                   strcasecmp(value, "on") == 0;
        if (streq(key, "LimitMEMLOCK")) {
                limit_assign(&u->limit, where, value);
                if (u->limit.bad)
                        return doctor_add(d->rep, DOCTOR_SYSTEMD, DOCTOR_ERROR, where,
                                          "write a size such as 64M, 1G or infinity (or SOFT:HARD)",
                                          "LimitMEMLOCK=%s cannot be parsed: systemd ignores it", value);
        } else if (streq(key, "User")) {
                snprintf(u->user, sizeof u->user, "%s", value);
                snprintf(u->user_where, sizeof u->user_where, "%s", where);
        } else if (streq(key, "PAMName"))
                snprintf(u->pam_name, sizeof u->pam_name, "%s", value);
        else if (streq(key, "DynamicUser"))
                u->dynamic_user = yes;
        return 0;
}

static const char *const unit_dirs[] = { "/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",
                                         "/usr/lib/systemd/system", "/lib/systemd/system" };

/* Is ROOT/abs a link to /dev/null (a masked unit)? */
static bool masked(const struct doc *d, const char *abs) {
        char buf[64];
        if (fs_readlink_in_root(d->in->root, abs, buf, sizeof buf) < 0)
                return false;
        return streq(buf, "/dev/null");
}

static int check_unit(struct doc *d) {
        _cleanup_free_ char *name = NULL, *tmpl = NULL, *main_abs = NULL, *sub = NULL, *tsub = NULL;
        struct unit_scan u = { .d = d };
        struct strv drop = {};
        char where[WHERE_MAX], pair[128], fix[FIX_MAX], t1[WHERE_MAX + 64], arg[SIZE_FMT_MAX];
        const char *unit = d->in->unit;
        int r = 0;

        if (!unit[0] || strchr(unit, '/')) {
                ADD(d, DOCTOR_SYSTEMD, DOCTOR_ERROR, unit, "give a unit name such as slurmd.service",
                    "not a unit name");
                return 0;
        }
        const char *dot = strrchr(unit, '.');
        if (!dot || dot == unit) {
                if (!(name = strf("%s.service", unit)))
                        return -ENOMEM;
        } else if (!(name = strdup(unit)))
                return -ENOMEM;
        /* an instance foo@bar.service falls back to the template foo@.service */
        char *at = strchr(name, '@');
        dot = strrchr(name, '.');
        if (at && at + 1 < dot && !(tmpl = strf("%.*s%s", (int)(at + 1 - name), name, dot)))
                return -ENOMEM;

        bool is_masked = false;
        for (size_t i = 0; i < ELEMENTSOF(unit_dirs) && !main_abs && !is_masked; i++)
                for (int k = 0; k < 2 && !main_abs && !is_masked; k++) {
                        const char *n = k == 0 ? name : tmpl;
                        _cleanup_free_ char *p = NULL;
                        if (!n)
                                continue;
                        if (!(p = strf("%s/%s", unit_dirs[i], n)))
                                return -ENOMEM;
                        if (masked(d, p))
                                is_masked = true;
                        else if (exists_rooted(d, p, false))
                                main_abs = TAKE_PTR(p);
                }
        if (is_masked) {
                snprintf(fix, sizeof fix, "systemctl unmask %s", name);
                ADD(d, DOCTOR_SYSTEMD, DOCTOR_WARNING, name, fix, "masked: it does not start");
                return 0;
        }
        if (!main_abs) {
                snprintf(fix, sizeof fix, "check the name (systemctl list-unit-files '%s')", name);
                ADD(d, DOCTOR_SYSTEMD, DOCTOR_ERROR, name, fix,
                    "no unit file in etc/systemd/system, run/systemd/system, usr/lib/systemd/system or "
                    "lib/systemd/system");
                return 0;
        }
        if (!(sub = strf("%s.d", name)) || (tmpl && !(tsub = strf("%s.d", tmpl))))
                return -ENOMEM;
        const char *subs[] = { sub, tsub };
        r = ini_parse(d, main_abs, unit_cb, &u);
        if (r == -ENOMEM)
                return r;
        if ((r = list_dropins(d, unit_dirs, ELEMENTSOF(unit_dirs), subs, tsub ? 2 : 1, &drop)) < 0)
                return r;
        for (size_t i = 0; i < drop.n && r >= 0; i++)
                if ((r = ini_parse(d, drop.v[i], unit_cb, &u)) != -ENOMEM)
                        r = 0;
        size_t n_drop = drop.n;
        strv_clear(&drop);
        if (r < 0)
                return r;

        uint64_t soft, hard;
        const char *src;
        char srcbuf[WHERE_MAX + 256];
        if (u.limit.set) {
                soft = u.limit.soft;
                hard = u.limit.hard;
                snprintf(srcbuf, sizeof srcbuf, "LimitMEMLOCK=%s", u.limit.text);
                src = srcbuf;
                snprintf(where, sizeof where, "%s", u.limit.where);
        } else if (d->sysdef_set) {
                soft = d->sysdef_soft;
                hard = d->sysdef_hard;
                snprintf(srcbuf, sizeof srcbuf, "no LimitMEMLOCK=: DefaultLimitMEMLOCK of %s", d->sysdef_where);
                src = srcbuf;
                snprintf(where, sizeof where, "%s", disp(d, main_abs));
        } else {
                soft = hard = SYSTEMD_DEFAULT_MEMLOCK;
                src = "no LimitMEMLOCK= or DefaultLimitMEMLOCK=: systemd's default";
                snprintf(where, sizeof where, "%s", disp(d, main_abs));
        }
        ADD(d, DOCTOR_SYSTEMD, DOCTOR_INFO, where, NULL, "%s: memlock %s (%s; %s and %zu drop-in%s read)", name,
            fmt_pair(soft, hard, pair, sizeof pair), src, disp(d, main_abs), n_drop, n_drop == 1 ? "" : "s");
        if (u.limit.overridden[0])
                ADD(d, DOCTOR_SYSTEMD, DOCTOR_INFO, u.limit.overridden, NULL,
                    "%s: LimitMEMLOCK=%s here is overridden by %s (a later drop-in wins)", name, u.limit.overridden_text,
                    u.limit.where);

        if (u.dynamic_user) {
                ADD(d, DOCTOR_SYSTEMD, DOCTOR_INFO, disp(d, main_abs), NULL,
                    "%s: DynamicUser=yes: no configured user to compare its memlock with", name);
                return 0;
        }
        if (!u.user[0] || streq(u.user, "root") || streq(u.user, "0")) {
                ADD(d, DOCTOR_SYSTEMD, DOCTOR_INFO, u.user[0] ? u.user_where : disp(d, main_abs), NULL,
                    "%s: runs as root: with CAP_IPC_LOCK its memlock limit does not restrict what it pins", name);
                return 0;
        }
        struct target t;
        r = user_target(d, u.user, &t);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                ADD(d, DOCTOR_SYSTEMD, DOCTOR_WARNING, u.user_where, "create the user, or correct User=",
                    "%s: User=%s does not exist%s", name, u.user, d->in->root ? " in etc/passwd" : "");
                return 0;
        }
        if (!t.soft_known && !t.hard_known) {
                ADD(d, DOCTOR_SYSTEMD, DOCTOR_INFO, u.user_where, NULL,
                    "%s: runs as %s; no limits entry or policy rule gives %s a memlock: nothing to compare", name,
                    u.user, u.user);
                return 0;
        }
        if (u.pam_name[0]) {
                ADD(d, DOCTOR_SYSTEMD, DOCTOR_INFO, u.user_where, NULL,
                    "%s: runs as %s with PAMName=%s: systemd opens a '%s' PAM session, so that stack's pam_limits and "
                    "pam_rdmalimit apply on top of LimitMEMLOCK=",
                    name, u.user, u.pam_name, u.pam_name);
                return 0;
        }
        uint64_t want_soft = t.soft_known ? t.soft : 0, want_hard = t.hard_known ? t.hard : 0;
        uint64_t want = want_hard > want_soft ? want_hard : want_soft;
        snprintf(fix, sizeof fix, "systemctl edit %s -> [Service] LimitMEMLOCK=%s, then systemctl restart %s", name,
                 systemd_arg(want, arg), name);
        if (t.soft_known && soft < t.soft)
                ADD(d, DOCTOR_SYSTEMD, DOCTOR_ERROR, where, fix,
                    "%s: runs as %s with memlock soft %s, below the %s that the configuration gives %s: systemd "
                    "services never read limits.conf or the policy",
                    name, u.user, fmt_size(soft, pair), target_text(&t, false, t1, sizeof t1), u.user);
        else if (t.hard_known && hard < t.hard)
                ADD(d, DOCTOR_SYSTEMD, DOCTOR_WARNING, where, fix,
                    "%s: runs as %s with memlock hard %s, below the %s that the configuration gives %s: systemd "
                    "services never read limits.conf or the policy",
                    name, u.user, fmt_size(hard, pair), target_text(&t, true, t1, sizeof t1), u.user);
        else
                ADD(d, DOCTOR_SYSTEMD, DOCTOR_OK, where, NULL,
                    "%s: runs as %s with memlock %s, as much as the configuration gives %s", name, u.user,
                    fmt_pair(soft, hard, pair, sizeof pair), u.user);
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* /proc */

/* The value of "Key:" in a /proc status-like text (points into text, up to the newline). */
static const char *proc_field(const char *text, const char *key, size_t *ret_len) {
        size_t kl = strlen(key);
        for (const char *line = text; line && *line;) {
                if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
                        const char *v = line + kl + 1;
                        while (*v == ' ' || *v == '\t')
                                v++;
                        *ret_len = strcspn(v, "\n");
                        return v;
                }
                line = strchr(line, '\n');
                if (line)
                        line++;
        }
        return NULL;
}

static int proc_hex(const char *text, const char *key, uint64_t *ret) {
        size_t n;
        const char *v = proc_field(text, key, &n);
        uint64_t x = 0;
        if (!v || n == 0 || n > 16)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                int c = v[i];
                int dgt = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
                if (dgt < 0)
                        return -EINVAL;
                x = x << 4 | (uint64_t)dgt;
        }
        *ret = x;
        return 0;
}

/* The first number of a field ("Uid:\t1000\t1000...", "VmLck:\t  0 kB"). */
static int proc_number(const char *text, const char *key, uint64_t *ret) {
        size_t n;
        const char *v = proc_field(text, key, &n);
        if (!v)
                return -ENOENT;
        return parse_u64_prefix(v, ret, NULL);
}

/* "Max locked memory  SOFT  HARD  bytes" of a limits file. */
static int proc_memlock(const char *text, uint64_t *ret_soft, uint64_t *ret_hard) {
        const char *line = strstr(text, "Max locked memory");
        uint64_t v[2];
        if (!line)
                return -ENOENT;
        const char *p = line + strlen("Max locked memory");
        for (int i = 0; i < 2; i++) {
                while (*p == ' ' || *p == '\t')
                        p++;
                if (strncmp(p, "unlimited", 9) == 0) {
                        v[i] = SIZE_INFINITY;
                        p += 9;
                        continue;
                }
                if (parse_u64_prefix(p, &v[i], &p) < 0)
                        return -EINVAL;
        }
        *ret_soft = v[0];
        *ret_hard = v[1];
        return 0;
}

static int read_proc(pid_t pid, const char *file, char **ret) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
        return read_text(path, ret, NULL);
}

static bool proc_cap(const char *status, const char *key, unsigned bit) {
        uint64_t caps;
        return proc_hex(status, key, &caps) == 0 && (caps & (UINT64_C(1) << bit));
}

/* ------------------------------------------------------------------------------------ */
/* containers and docker */

static int check_docker(struct doc *d) {
        const char *abs = "/etc/docker/daemon.json";
        _cleanup_free_ char *text = NULL;
        char pair[128], why[2 * WHERE_MAX], fix[WHERE_MAX];
        uint64_t soft = 0, hard = 0;
        int r;

        r = read_rooted(d, abs, &text);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                if (exists_rooted(d, "/etc/docker", true))
                        ADD(d, DOCTOR_CONTAINERS, DOCTOR_INFO, disp(d, abs),
                            "docker run --ulimit memlock=-1:-1 ..., or set \"default-ulimits\" in daemon.json",
                            "docker: no daemon.json: containers get dockerd's own memlock (LimitMEMLOCK= of "
                            "docker.service, else DefaultLimitMEMLOCK)");
                return 0;
        }
        r = doctor_docker_memlock(text, &soft, &hard);
        if (r == 0) {
                ADD(d, DOCTOR_CONTAINERS, DOCTOR_INFO, disp(d, abs),
                    "docker run --ulimit memlock=-1:-1 ..., or add \"default-ulimits\": {\"memlock\": {\"Name\": "
                    "\"memlock\", \"Hard\": -1, \"Soft\": -1}}",
                    "docker: no default-ulimits memlock: containers get dockerd's own memlock (LimitMEMLOCK= of "
                    "docker.service, else DefaultLimitMEMLOCK)");
                return 0;
        }
        if (r < 0) {
                ADD(d, DOCTOR_CONTAINERS, DOCTOR_WARNING, disp(d, abs),
                    "write \"memlock\": {\"Name\": \"memlock\", \"Hard\": BYTES, \"Soft\": BYTES} (-1: unlimited)",
                    "docker: the default-ulimits memlock entry cannot be read");
                return 0;
        }
        enum doctor_level lvl = below_max(d, soft, hard, why, sizeof why);
        snprintf(fix, sizeof fix,
                 "set \"Hard\": -1, \"Soft\": -1 (or the bytes needed) for memlock in %s and restart docker, or docker "
                 "run --ulimit memlock=-1:-1",
                 disp(d, abs));
        if (soft == 0 || hard == 0)
                lvl = DOCTOR_WARNING;
        ADD(d, DOCTOR_CONTAINERS, lvl, disp(d, abs), lvl == DOCTOR_OK ? NULL : fix,
            "docker: containers start with memlock %s (default-ulimits)%s%s", fmt_pair(soft, hard, pair, sizeof pair),
            why, soft == 0 || hard == 0 ? ": 0 breaks every RDMA memory registration" :
                 lvl == DOCTOR_OK ? "" : "; no login inside a container goes above its hard limit");
        return 0;
}

static int check_container(struct doc *d) {
        char evidence[512] = "", pair[128], fix[FIX_MAX], t1[WHERE_MAX + 64];
        _cleanup_free_ char *text = NULL, *status = NULL, *limits = NULL;
        int r;

        if (exists_rooted(d, "/.dockerenv", false))
                snprintf(evidence, sizeof evidence, "%s", disp(d, "/.dockerenv"));
        else if (exists_rooted(d, "/run/.containerenv", false))
                snprintf(evidence, sizeof evidence, "%s", disp(d, "/run/.containerenv"));
        else if ((r = read_rooted(d, "/run/systemd/container", &text)) >= 0) {
                text[strcspn(text, "\n")] = '\0';
                snprintf(evidence, sizeof evidence, "%s says %s", disp(d, "/run/systemd/container"), text);
        } else if (r == -ENOMEM)
                return r;
        if (!evidence[0] && !d->in->root) {
                free(text);
                text = NULL;
                if (read_text("/proc/1/cgroup", &text, NULL) >= 0) {
                        static const char *const words[] = { "docker", "kubepods", "lxc", "containerd", "libpod" };
                        for (size_t i = 0; i < ELEMENTSOF(words) && !evidence[0]; i++)
                                if (strstr(text, words[i]))
                                        snprintf(evidence, sizeof evidence, "/proc/1/cgroup names %s", words[i]);
                }
        }
        d->in_container = evidence[0];
        if (d->in_container)
                ADD(d, DOCTOR_CONTAINERS, DOCTOR_INFO, evidence, NULL,
                    "inside a container: the host decides its memlock (docker --ulimit, the runtime's LimitMEMLOCK=) "
                    "and its capabilities");
        else
                ADD(d, DOCTOR_CONTAINERS, DOCTOR_OK, NULL, NULL, "not inside a container (no .dockerenv, "
                                                                 "run/.containerenv or run/systemd/container%s)",
                    d->in->root ? "" : "; /proc/1/cgroup plain");
        if (d->in->root)
                return 0;

        /* the capability bounding set of this process: what any process here can ever have */
        if ((r = read_text("/proc/self/status", &status, NULL)) < 0)
                return r == -ENOMEM ? r : 0;
        bool sys_resource = proc_cap(status, "CapBnd", CAP_SYS_RESOURCE_BIT);
        bool ipc_lock = proc_cap(status, "CapBnd", CAP_IPC_LOCK_BIT);
        uint64_t s1 = 0, h1 = 0, hmax;
        bool p1 = read_text("/proc/1/limits", &limits, NULL) >= 0 && proc_memlock(limits, &s1, &h1) >= 0;
        struct rlimit own;
        bool ownok = getrlimit(RLIMIT_MEMLOCK, &own) == 0;
        char hards[256], o[SIZE_FMT_MAX];
        hards[0] = '\0';
        if (p1 && ownok)
                snprintf(hards, sizeof hards, " (PID 1: hard %s; this process: hard %s)", fmt_size(h1, pair),
                         fmt_size(own.rlim_max, o));
        else if (ownok)
                snprintf(hards, sizeof hards, " (this process: hard %s)", fmt_size(own.rlim_max, o));
        /* a hard limit above both is out of reach for anything started from PID 1 or from here */
        hmax = p1 ? h1 : 0;
        if (ownok && own.rlim_max > hmax)
                hmax = own.rlim_max;
        if (sys_resource)
                ADD(d, DOCTOR_CONTAINERS, DOCTOR_OK, "/proc/self/status CapBnd", NULL,
                    "CAP_SYS_RESOURCE is in the capability bounding set: services running as root can raise hard "
                    "limits");
        else {
                snprintf(fix, sizeof fix, "%s",
                         d->in_container
                                 ? "on the host: docker run --ulimit memlock=-1:-1 (or the bytes needed), or "
                                   "--cap-add SYS_RESOURCE; or LimitMEMLOCK=infinity for the container runtime's service"
                                 : "give the login services back CAP_SYS_RESOURCE (CapabilityBoundingSet= of their "
                                   "units, the parent that dropped it), or start them with the memlock they need");
                ADD(d, DOCTOR_CONTAINERS, DOCTOR_WARNING, "/proc/self/status CapBnd", fix,
                    "CAP_SYS_RESOURCE is not in the capability bounding set: no process here, not even sshd as root, "
                    "can raise a hard limit; sessions stay within the hard memlock services start with%s",
                    hards);
                if ((p1 || ownok) && d->max.hard_known && d->max.hard > hmax) {
                        char arg[32] = "-1";
                        if (d->max.hard != SIZE_INFINITY)
                                snprintf(arg, sizeof arg, "%llu", (unsigned long long)d->max.hard);
                        snprintf(fix, sizeof fix,
                                 "start the container with --ulimit memlock=%s:%s (bytes; -1 is unlimited), or with "
                                 "--cap-add SYS_RESOURCE",
                                 arg, arg);
                        ADD(d, DOCTOR_CONTAINERS, DOCTOR_ERROR, "/proc/self/status CapBnd", fix,
                            "the configuration gives up to %s, but the hard memlock here is %s and cannot be raised "
                            "without CAP_SYS_RESOURCE: sessions silently keep %s (Debian's pam_limits ignores EPERM)",
                            target_text(&d->max, true, t1, sizeof t1), fmt_size(hmax, pair), pair);
                }
        }
        if (ipc_lock)
                ADD(d, DOCTOR_CONTAINERS, DOCTOR_OK, "/proc/self/status CapBnd", NULL,
                    "CAP_IPC_LOCK is in the capability bounding set");
        else
                ADD(d, DOCTOR_CONTAINERS, DOCTOR_INFO, "/proc/self/status CapBnd", NULL,
                    "CAP_IPC_LOCK is not in the capability bounding set: every pinned page counts against "
                    "RLIMIT_MEMLOCK, even root's");
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* the login services' own limits (running system only) */

/*
 * A daemon is recognised by who runs it and what it runs, never by its name alone: any user
 * can call a process "sshd" (prctl PR_SET_NAME, exec -a, /proc/self/comm).  The process must
 * be owned by root (real uid 0), its /proc/PID/exe must be one of the daemon's executables
 * (" (deleted)" after an upgrade is accepted), and where systemd manages this PID namespace
 * (/run/systemd/system exists and PID 1 is systemd), its cgroup must be one of the daemon's
 * units.  Without systemd (containers, PID namespaces such as the test sandbox) the owner and
 * the executable decide.
 */
#define DAEMON_EXE_MAX 3
#define DAEMON_UNITS_MAX 5
static const struct {
        const char *comm;
        enum doctor_group group;
        const char *unit;                              /* the unit the fix names */
        const char *exe[DAEMON_EXE_MAX];               /* NULL-terminated */
        const char *units[DAEMON_UNITS_MAX];           /* fnmatch() patterns, NULL-terminated */
} services[] = {
        { "sshd", DOCTOR_SSH, "ssh.service", { "/usr/sbin/sshd", "/sbin/sshd" },
          { "ssh.service", "sshd.service", "ssh@*.service", "sshd@*.service" } },
        { "cron", DOCTOR_CRON, "cron.service", { "/usr/sbin/cron", "/sbin/cron" }, { "cron.service", "crond.service" } },
};

/* The target of /proc/PID/exe, without the " (deleted)" the kernel appends once the file was
 * replaced (an upgrade while the daemon runs).  -errno when it cannot be read (a kernel thread,
 * a zombie, another user's process without privileges), -ENAMETOOLONG when cut. */
static int proc_exe(pid_t pid, char *buf, size_t size) {
        static const char deleted[] = " (deleted)";
        char path[64];
        ssize_t n;

        snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
        n = readlink(path, buf, size - 1);
        if (n < 0)
                return -errno;
        if ((size_t)n >= size - 1)
                return -ENAMETOOLONG;
        buf[n] = '\0';
        if ((size_t)n > strlen(deleted) && streq(buf + n - strlen(deleted), deleted))
                buf[n - strlen(deleted)] = '\0';
        return 0;
}

/* The systemd unit of a /proc/PID/cgroup text: the first component of the systemd hierarchy's
 * path ("0::" on cgroup v2, "name=systemd" on v1) that is not a slice, copied to buf; only
 * under system.slice (user.slice holds units that users create themselves).  -ENOENT when
 * there is none. */
static int cgroup_unit(const char *text, char *buf, size_t size) {
        const char *path = NULL;
        size_t plen = 0;

        for (const char *line = text; line && *line;) {
                size_t len = strcspn(line, "\n");
                const char *c1 = memchr(line, ':', len), *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
                if (c2 && ((c1 == line + 1 && line[0] == '0' && c2 == c1 + 1) ||
                           ((size_t)(c2 - c1 - 1) == strlen("name=systemd") && strncmp(c1 + 1, "name=systemd", 12) == 0))) {
                        path = c2 + 1;
                        plen = len - (size_t)(path - line);
                        if (line[0] == '0')
                                break;   /* v2 wins over v1 */
                }
                line = line[len] ? line + len + 1 : NULL;
        }
        if (!path)
                return -ENOENT;
        bool system = false;
        for (size_t i = 0; i < plen;) {
                while (i < plen && path[i] == '/')
                        i++;
                size_t n = 0;
                while (i + n < plen && path[i + n] != '/')
                        n++;
                if (n == 0)
                        break;
                bool slice = n > 6 && strncmp(path + i + n - 6, ".slice", 6) == 0;
                if (!slice) {
                        if (!system || n >= size)
                                return -ENOENT;
                        memcpy(buf, path + i, n);
                        buf[n] = '\0';
                        return 0;
                }
                if (n == strlen("system.slice") && strncmp(path + i, "system.slice", n) == 0)
                        system = true;
                i += n;
        }
        return -ENOENT;
}

/* Is systemd the init of the PID namespace doctor sees (sd_booted(), and PID 1 is systemd)? */
static bool systemd_manages(void) {
        _cleanup_free_ char *comm = NULL;
        struct stat st;
        if (stat("/run/systemd/system", &st) < 0 || !S_ISDIR(st.st_mode) || read_proc(1, "comm", &comm) < 0)
                return false;
        comm_trim(comm);
        return streq(comm, "systemd");
}

/*
 * Is pid (named services[si].comm) that daemon?  1 yes; 0 no, with the reason in why; or
 * -ENOMEM.  status is its /proc/PID/status; exe receives its executable (or "").
 */
static int daemon_identify(size_t si, pid_t pid, const char *status, bool systemd, char *exe, size_t exe_size,
                           char *why, size_t why_size) {
        _cleanup_free_ char *cgroup = NULL;
        char unit[256];
        uint64_t uid;
        bool known = false;
        int r;

        exe[0] = '\0';
        if (proc_number(status, "Uid", &uid) < 0) {
                snprintf(why, why_size, "its owner cannot be read");
                return 0;
        }
        if (uid != 0) {
                snprintf(why, why_size, "it runs as uid %llu, not root", (unsigned long long)uid);
                return 0;
        }
        if ((r = proc_exe(pid, exe, exe_size)) < 0) {
                snprintf(why, why_size, "its executable cannot be read (%s)", strerror(-r));
                return 0;
        }
        for (size_t i = 0; i < DAEMON_EXE_MAX && services[si].exe[i] && !known; i++)
                known = streq(exe, services[si].exe[i]);
        if (!known) {
                snprintf(why, why_size, "its executable is %s, not %s", exe, services[si].exe[0]);
                return 0;
        }
        if (!systemd)
                return 1;
        if ((r = read_proc(pid, "cgroup", &cgroup)) == -ENOMEM)
                return r;
        if (r < 0 || cgroup_unit(cgroup, unit, sizeof unit) < 0) {
                snprintf(why, why_size, "it belongs to no system service (%s)", r < 0 ? "its cgroup cannot be read"
                                                                                       : "see its /proc/PID/cgroup");
                return 0;
        }
        for (size_t i = 0; i < DAEMON_UNITS_MAX && services[si].units[i]; i++)
                if (fnmatch(services[si].units[i], unit, 0) == 0)
                        return 1;
        snprintf(why, why_size, "it runs in %s, not %s", unit, services[si].unit);
        return 0;
}

static int check_service_process(struct doc *d, size_t si, pid_t pid) {
        _cleanup_free_ char *limits = NULL, *status = NULL;
        char where[128], pair[128], fix[FIX_MAX], t1[WHERE_MAX + 64], arg[SIZE_FMT_MAX];
        uint64_t soft, hard;
        enum doctor_group g = services[si].group;

        snprintf(where, sizeof where, "%s (pid %d)", services[si].comm, (int)pid);
        if (read_proc(pid, "limits", &limits) < 0 || proc_memlock(limits, &soft, &hard) < 0 ||
            read_proc(pid, "status", &status) < 0) {
                ADD(d, g, DOCTOR_INFO, where, NULL, "cannot read its limits");
                return 0;
        }
        bool cap = proc_cap(status, "CapEff", CAP_SYS_RESOURCE_BIT);
        fmt_pair(soft, hard, pair, sizeof pair);
        if (d->max.hard_known && hard < d->max.hard && !cap) {
                snprintf(fix, sizeof fix,
                         "systemctl edit %s -> [Service] LimitMEMLOCK=%s, then systemctl restart %s%s", services[si].unit,
                         systemd_arg(d->max.hard, arg), services[si].unit,
                         d->in_container ? " (in a container: start it with --ulimit memlock=...)" : "");
                ADD(d, g, DOCTOR_ERROR, where, fix,
                    "memlock %s and no CAP_SYS_RESOURCE: the sessions it opens cannot get the %s (setrlimit fails "
                    "with EPERM, silently on Debian)",
                    pair, target_text(&d->max, true, t1, sizeof t1));
        } else if (d->max.hard_known && hard < d->max.hard)
                ADD(d, g, DOCTOR_OK, where, NULL,
                    "memlock %s, below the configured %s, but it has CAP_SYS_RESOURCE: the session modules can raise it",
                    pair, fmt_size(d->max.hard, t1));
        else
                ADD(d, g, DOCTOR_OK, where, NULL, "memlock %s%s", pair,
                    d->max.hard_known ? ": enough for the configured hard limits" : "");
        return 0;
}

/* Is ppid the same daemon as its child (a per-connection process's parent, not the listener's)? */
static bool same_daemon(pid_t ppid, const char *exe) {
        _cleanup_free_ char *status = NULL;
        char pexe[PATH_MAX];
        uint64_t uid;
        return ppid > 0 && read_proc(ppid, "status", &status) >= 0 && proc_number(status, "Uid", &uid) >= 0 &&
               uid == 0 && proc_exe(ppid, pexe, sizeof pexe) >= 0 && streq(pexe, exe);
}

static int check_services(struct doc *d) {
        DIR *dir;
        struct dirent *de;
        bool found[ELEMENTSOF(services)] = {};
        bool systemd = systemd_manages();
        int r = 0;

        dir = opendir("/proc");
        if (!dir)
                return 0;
        while ((de = readdir(dir)) && r >= 0) {
                _cleanup_free_ char *comm = NULL, *status = NULL;
                char exe[PATH_MAX], why[PATH_MAX + 128], where[64];
                uint32_t pid;
                uint64_t ppid;
                if (parse_u32(de->d_name, &pid) < 0 || pid == 0)
                        continue;
                if (read_proc((pid_t)pid, "comm", &comm) < 0)
                        continue;
                comm_trim(comm);
                for (size_t i = 0; i < ELEMENTSOF(services); i++) {
                        if (!streq(comm, services[i].comm))
                                continue;
                        if (read_proc((pid_t)pid, "status", &status) < 0)
                                break;
                        r = daemon_identify(i, (pid_t)pid, status, systemd, exe, sizeof exe, why, sizeof why);
                        if (r < 0)
                                break;
                        if (r == 0) {
                                snprintf(where, sizeof where, "pid %u", pid);
                                r = doctor_add(d->rep, services[i].group, DOCTOR_INFO, where, NULL,
                                               "a process named %s is not the daemon (%s): ignored", comm, why);
                                break;
                        }
                        /* the listener only: its parent is not the same daemon */
                        if (proc_number(status, "PPid", &ppid) < 0 || same_daemon((pid_t)ppid, exe))
                                break;
                        found[i] = true;
                        r = check_service_process(d, i, (pid_t)pid);
                        break;
                }
        }
        closedir(dir);
        if (r < 0)
                return r;
        if (!found[0] && (exists_rooted(d, "/etc/ssh/sshd_config", false) || exists_rooted(d, "/etc/pam.d/sshd", false)))
                ADD(d, DOCTOR_SSH, DOCTOR_INFO, "sshd", NULL, "not running: its own memlock cannot be checked");
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* --pid */

static int uid_name(const struct doc *d, uid_t uid, char *buf, size_t size) {
        if (!d->in->root) {
                struct passwd pw, *res = NULL;
                char tmp[4096];
                if (getpwuid_r(uid, &pw, tmp, sizeof tmp, &res) != 0 || !res)
                        return -ENOENT;
                snprintf(buf, size, "%s", pw.pw_name);
                return 0;
        }
        _cleanup_free_ char *text = NULL;
        int r = read_rooted(d, "/etc/passwd", &text);
        if (r < 0)
                return r;
        for (char *line = text, *next; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                char *f[4] = {}, *p = line;
                size_t n = 0;
                /* name:x:uid: (empty fields matter, so no strtok) */
                for (; n < 4 && p; n++) {
                        f[n] = p;
                        p = strchr(p, ':');
                        if (p)
                                *p++ = '\0';
                }
                uint32_t u;
                if (n >= 3 && f[2] && parse_u32(f[2], &u) == 0 && u == uid) {
                        snprintf(buf, size, "%s", f[0]);
                        return 0;
                }
        }
        return -ENOENT;
}

/* The latest change to the configuration: limits files, limits.d itself, the policy. */
static void newest_config(const struct doc *d, struct timespec *ret, char *what, size_t size) {
        const struct lc_tree *t = d->in->tree;
        struct stat st;
        *ret = (struct timespec){};
        what[0] = '\0';
#define CONSIDER(ts, name)                                                                             \
        do {                                                                                           \
                if ((ts).tv_sec > ret->tv_sec || ((ts).tv_sec == ret->tv_sec && (ts).tv_nsec > ret->tv_nsec)) { \
                        *ret = (ts);                                                                   \
                        snprintf(what, size, "%s", (name));                                            \
                }                                                                                      \
        } while (0)
        for (size_t i = 0; t && i < t->n_files; i++)
                if (t->files[i].stat_ok)
                        CONSIDER(t->files[i].st.st_mtim, t->files[i].display);
        if (fs_stat_in_root(d->in->root, LC_LIMITS_DIR, false, &st) == 0)
                CONSIDER(st.st_mtim, disp(d, LC_LIMITS_DIR));
        if (d->in->policy_path && stat(d->in->policy_path, &st) == 0)
                CONSIDER(st.st_mtim, disp_rooted(d, d->in->policy_path));
#undef CONSIDER
}

static const char *fmt_time(time_t t, char *buf, size_t size) {
        struct tm tm;
        if (!localtime_r(&t, &tm) || strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm) == 0)
                snprintf(buf, size, "@%lld", (long long)t);
        return buf;
}

/* The process's start in seconds since the epoch (stat field 22 + /proc/stat btime). */
static int proc_start(pid_t pid, time_t *ret) {
        _cleanup_free_ char *stat = NULL, *sys = NULL;
        uint64_t ticks, btime;
        long hz = sysconf(_SC_CLK_TCK);
        int r;

        if ((r = read_proc(pid, "stat", &stat)) < 0 || (r = read_text("/proc/stat", &sys, NULL)) < 0)
                return r;
        const char *p = strrchr(stat, ')');
        if (!p || hz <= 0)
                return -EINVAL;
        p++;
        /* fields after the comm: 3 (state) ... 22 (starttime) */
        for (int field = 3; field < 22; field++) {
                while (*p == ' ')
                        p++;
                p += strcspn(p, " ");
        }
        while (*p == ' ')
                p++;
        if ((r = parse_u64_prefix(p, &ticks, NULL)) < 0)
                return r;
        const char *b = strstr(sys, "\nbtime ");
        if (!b)
                return -EINVAL;
        b += 7;
        if ((r = parse_u64_prefix(b, &btime, NULL)) < 0)
                return r;
        *ret = (time_t)(btime + ticks / (uint64_t)hz);
        return 0;
}

static int check_pid(struct doc *d) {
        _cleanup_free_ char *limits = NULL, *status = NULL, *comm = NULL;
        char where[512], user[256], pair[128], a[SIZE_FMT_MAX], b[SIZE_FMT_MAX], fix[FIX_MAX],
                t1[WHERE_MAX + 64], what[WHERE_MAX], ts1[64], ts2[64];
        uint64_t soft, hard, uid, vmlck = 0, vmpin = 0;
        pid_t pid = d->in->pid;
        int r;

        if (read_proc(pid, "comm", &comm) < 0) {
                snprintf(where, sizeof where, "pid %d", (int)pid);
                ADD(d, DOCTOR_PROCESSES, DOCTOR_ERROR, where, NULL, "no such process");
                return 0;
        }
        comm_trim(comm);
        snprintf(where, sizeof where, "%s (pid %d)", comm, (int)pid);
        if ((r = read_proc(pid, "limits", &limits)) < 0 || (r = read_proc(pid, "status", &status)) < 0 ||
            proc_memlock(limits, &soft, &hard) < 0 || proc_number(status, "Uid", &uid) < 0) {
                if (r == -ENOMEM)
                        return r;
                ADD(d, DOCTOR_PROCESSES, DOCTOR_ERROR, where, NULL, "cannot read /proc/%d/limits and status", (int)pid);
                return 0;
        }
        (void)proc_number(status, "VmLck", &vmlck);
        (void)proc_number(status, "VmPin", &vmpin);
        vmlck *= 1024;
        vmpin *= 1024;
        bool have_user = uid_name(d, (uid_t)uid, user, sizeof user) >= 0;
        ADD(d, DOCTOR_PROCESSES, DOCTOR_INFO, where, NULL,
            "user %s (uid %llu): memlock %s; locked %s (VmLck), pinned %s (VmPin)", have_user ? user : "?",
            (unsigned long long)uid, fmt_pair(soft, hard, pair, sizeof pair), fmt_size(vmlck, a), fmt_size(vmpin, b));
        if (soft != SIZE_INFINITY && soft > 0 && (vmlck + vmpin) >= soft / 10 * 9)
                ADD(d, DOCTOR_PROCESSES, DOCTOR_WARNING, where, "raise its memlock (see the other findings)",
                    "locked and pinned memory (%s) is close to its soft limit %s: the next registration may fail "
                    "with ENOMEM/ENOBUFS",
                    fmt_size(vmlck + vmpin, a), fmt_size(soft, b));

        /* started before the configuration changed? */
        time_t start;
        struct timespec newest;
        bool stale = false;
        newest_config(d, &newest, what, sizeof what);
        if (proc_start(pid, &start) >= 0 && what[0] && newest.tv_sec > start + 1) {
                stale = true;
                ADD(d, DOCTOR_PROCESSES, DOCTOR_WARNING, where,
                    "restart it (a new login, or systemctl restart for a service): limits are set when a session opens",
                    "started %s, before %s changed (%s): it still runs with the limits it got then: restart it",
                    fmt_time(start, ts1, sizeof ts1), what, fmt_time(newest.tv_sec, ts2, sizeof ts2));
        }

        if (!have_user) {
                ADD(d, DOCTOR_PROCESSES, DOCTOR_INFO, where, NULL, "uid %llu has no name%s: cannot look up its configured limit",
                    (unsigned long long)uid, d->in->root ? " in etc/passwd" : "");
                return 0;
        }
        struct target t;
        r = user_target(d, user, &t);
        if (r == -ENOMEM)
                return r;
        if (r < 0 || (!t.soft_known && !t.hard_known)) {
                ADD(d, DOCTOR_PROCESSES, DOCTOR_INFO, where, NULL,
                    "no limits entry or policy rule gives %s a memlock: nothing to compare", user);
                return 0;
        }
        snprintf(fix, sizeof fix, "%s",
                 stale ? "restart it from a new session"
                       : "start it from a PAM session that runs pam_limits/pam_rdmalimit; for a systemd service set "
                         "LimitMEMLOCK= (systemctl edit UNIT)");
        if (t.soft_known && soft < t.soft)
                ADD(d, DOCTOR_PROCESSES, DOCTOR_WARNING, where, fix,
                    "memlock soft %s is below the %s that the configuration gives %s", fmt_size(soft, a),
                    target_text(&t, false, t1, sizeof t1), user);
        else if (t.hard_known && hard < t.hard)
                ADD(d, DOCTOR_PROCESSES, DOCTOR_WARNING, where, fix,
                    "memlock hard %s is below the %s that the configuration gives %s", fmt_size(hard, a),
                    target_text(&t, true, t1, sizeof t1), user);
        else
                ADD(d, DOCTOR_PROCESSES, DOCTOR_OK, where, NULL, "memlock %s: at least what the configuration gives %s",
                    pair, user);
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* the configuration files */

static int check_config(struct doc *d) {
        struct diag_list dl = {};
        char s1[WHERE_MAX + 64], s2[WHERE_MAX + 64], fix[WHERE_MAX];
        int r;

        if (d->max.soft_known || d->max.hard_known)
                ADD(d, DOCTOR_CONFIG, DOCTOR_INFO, NULL, NULL, "the largest memlock configured: %s; %s",
                    d->max.soft_known ? target_text(&d->max, false, s1, sizeof s1) : "soft none",
                    d->max.hard_known ? target_text(&d->max, true, s2, sizeof s2) : "hard none");
        else
                ADD(d, DOCTOR_CONFIG, DOCTOR_INFO, NULL, NULL, "no limits entry or policy rule sets memlock");
        if (d->in->tree) {
                r = lc_check(d->in->tree, d->in->id, &dl);
                if (r < 0) {
                        diag_list_clear(&dl);
                        return r;
                }
                for (size_t i = 0; i < dl.n && r >= 0; i++)
                        r = add_diag(d->rep, DOCTOR_CONFIG, &dl.v[i], dl.v[i].path, "",
                                     "edit the line (see 'rdmalimits check')", "see 'rdmalimits check'");
                size_t bad = diag_count(&dl, DIAG_ERROR) + diag_count(&dl, DIAG_WARNING);
                diag_list_clear(&dl);
                if (r < 0)
                        return r;
                if (!bad)
                        ADD(d, DOCTOR_CONFIG, DOCTOR_OK, disp(d, LC_LIMITS_CONF), NULL,
                            "limits.conf and limits.d: no problems (%zu file%s read)", d->in->tree->n_files,
                            d->in->tree->n_files == 1 ? "" : "s");
        }
        for (size_t i = 0; d->in->policy_diags && i < d->in->policy_diags->n; i++) {
                const struct diag *x = &d->in->policy_diags->v[i];
                if (add_diag(d->rep, DOCTOR_CONFIG, x, x->path ? disp_rooted(d, x->path) : NULL, "policy: ",
                             "correct the policy (see 'rdmalimits check --policy')",
                             "see 'rdmalimits check --policy'") < 0)
                        return -ENOMEM;
        }
        if (d->in->policy)
                ADD(d, DOCTOR_CONFIG, DOCTOR_OK, disp_rooted(d, d->in->policy->path), NULL,
                    "policy: valid, %zu rule%s", d->in->policy->n_rules, d->in->policy->n_rules == 1 ? "" : "s");
        if (d->in->policy && d->module_in_any_stack) {
                /* the hardware cache a login reads by default: the devices' max_mr_size is known
                 * only there (a login never loads libibverbs) */
                struct hw_summary *hc = NULL;
                r = hw_cache_load_in_root(d->in->root, HW_CACHE_PATH, &d->in->policy->hw.sel, &hc);
                hw_summary_free(hc);
                const char *where = disp(d, HW_CACHE_PATH), *save = "rdmalimits probe --save";
                if (r == 0)
                        ADD(d, DOCTOR_CONFIG, DOCTOR_OK, where, NULL,
                            "the hardware cache is current: logins read it (with the devices' max_mr_size)");
                else if (r == -ENOMEM)
                        return r;
                else
                        ADD(d, DOCTOR_CONFIG, r == -ENOENT ? DOCTOR_INFO : DOCTOR_WARNING, where, save,
                            "hardware cache: %s: logins with an auto rule probe sysfs and netlink themselves and "
                            "do not know the devices' max_mr_size", hw_cache_strerror(r));
        }
        if (d->in->policy_exists && !d->module_in_any_stack && d->stacks_seen) {
                snprintf(fix, sizeof fix, "add 'session optional pam_rdmalimit.so' after pam_limits in %s",
                         disp(d, "/etc/pam.d/common-session"));
                ADD(d, DOCTOR_CONFIG, DOCTOR_ERROR, disp_rooted(d, d->in->policy_path), fix,
                    "a policy exists, but pam_rdmalimit is in no PAM session stack: it is never applied");
        }
        return 0;
}

/* ------------------------------------------------------------------------------------ */

int doctor_run(const struct doctor_input *in, struct doctor_report *rep) {
        struct doc *d = calloc(1, sizeof(*d));   /* large: keep it off the stack */
        int r = 0;

        if (!d)
                return -ENOMEM;
        d->in = in;
        d->rep = rep;
        compute_max(d);
        bool extra = in->service != NULL;
        for (size_t i = 0; i < ELEMENTSOF(pam_services) && r >= 0; i++) {
                r = check_pam_service(d, pam_services[i].name, pam_services[i].group);
                if (extra && streq(in->service, pam_services[i].name))
                        extra = false;
        }
        if (r >= 0 && extra) {
                /* a display manager or a site's own service: with the console logins */
                size_t seen = d->stacks_seen;
                char abs[WHERE_MAX];
                snprintf(abs, sizeof abs, "/etc/pam.d/%s", in->service);
                if (!in->service[0] || strchr(in->service, '/') || in->service[0] == '.')
                        r = doctor_add(rep, DOCTOR_CONSOLE, DOCTOR_ERROR, in->service, NULL, "not a PAM service name");
                else if ((r = check_pam_service(d, in->service, DOCTOR_CONSOLE)) >= 0 && d->stacks_seen == seen)
                        r = doctor_add(rep, DOCTOR_CONSOLE, DOCTOR_ERROR, disp(d, abs), NULL,
                                       "%s: no such PAM service", in->service);
        }
        if (r >= 0)
                r = check_sshd_config(d);
        if (r >= 0)
                r = check_container(d);
        if (r >= 0 && !in->root)
                r = check_services(d);
        if (r >= 0)
                r = check_systemd_defaults(d);
        if (r >= 0 && in->unit)
                r = check_unit(d);
        if (r >= 0)
                r = check_docker(d);
        if (r >= 0 && in->pid > 0)
                r = check_pid(d);
        if (r >= 0)
                r = check_config(d);

        for (size_t i = 0; i < d->n_moddirs; i++)
                free(d->moddirs[i]);
        free(d->moddirs);
        hw_summary_free(d->hw);
        free(d);
        return r < 0 ? r : 0;
}
