/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /etc/security/rdmalimit.conf: read (cfgparse.c: libconfig's grammar), validate, evaluate
 * for a user.
 *
 * Loading never stops at the first problem: every finding goes to the caller's diag_list as
 * path:line, and the file is refused (-EINVAL) when any of them is an error.  The reader
 * refuses NUL bytes, @include directives (the policy is trusted only after the caller checked
 * the owner and mode of this one file) and nesting deeper than POLICY_MAX_DEPTH, and goes on
 * after the first two so that the rest is reported too.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgparse.h"
#include "diag.h"
#include "escape.h"
#include "fsutil.h"
#include "hw.h"
#include "ident.h"
#include "macro.h"
#include "policy.h"
#include "size.h"
#include "strv.h"

/* A policy needs two levels (rules = ( { ... } )); a little slack keeps the messages for a
 * misplaced group ("unknown key") coming from the validator rather than from the scanner. */
#define POLICY_MAX_DEPTH 4u

/* Defaults of the hardware group (rdmalimit.conf(5)). */
#define DEFAULT_RDMA_PORT (UINT64_C(1) << 30)       /* 1G per active RDMA port */
#define DEFAULT_XSK_QUEUE (UINT64_C(16) << 20)      /* 4096 frames x 4 KiB per zero-copy queue */
/* a copy-mode UMEM is charged exactly like a zero-copy one (the kernel accounts both alike) */
#define DEFAULT_XSK_COPY_QUEUE DEFAULT_XSK_QUEUE
#define DEFAULT_BASE (UINT64_C(64) << 20)
#define DEFAULT_RAM_SHARE 0.5

/* Longest user string quoted in a message. */
#define QUOTE_MAX 64

struct loader {
        const char *path;
        struct diag_list *diags;
        unsigned errors;
        int oom;                /* -ENOMEM once a finding could not be stored */
};

_printf_(4, 5) static void finding(struct loader *l, enum diag_severity sev, unsigned line,
                                   const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL;
        va_list ap;
        int r;

        if (sev == DIAG_ERROR)
                l->errors++;
        if (!l->diags)
                return;
        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0) {
                msg = NULL;
                l->oom = -ENOMEM;
                return;
        }
        if (diag_add(l->diags, sev, l->path, line, "%s", msg) < 0)
                l->oom = -ENOMEM;
}

#define error_at(l, line, ...) finding((l), DIAG_ERROR, (line), __VA_ARGS__)
#define warning_at(l, line, ...) finding((l), DIAG_WARNING, (line), __VA_ARGS__)

/* A value from the file for messages, through the one escaper (escape.h), cut to fit. */
static const char *quote(const char *s, char buf[static QUOTE_MAX + 4]) {
        return str_escape(s, buf, QUOTE_MAX + 4);
}

enum {
        V_AUTO = 1 << 0,        /* "auto" is accepted */
        V_ZERO = 1 << 1,        /* "0" is accepted */
};

/* A size string; false (with an error recorded) when it is not acceptable. */
static bool load_value(struct loader *l, const struct cfg_node *s, const char *what,
                       unsigned flags, struct policy_value *ret) {
        char q[QUOTE_MAX + 4];
        unsigned line = s->line;
        const char *v;
        uint64_t bytes;
        int r;

        if (s->type != CFG_STRING) {
                error_at(l, line, "%s must be a string such as \"1G\"%s, not %s", what,
                         (flags & V_AUTO) ? ", \"unlimited\" or \"auto\"" : " or \"unlimited\"",
                         cfg_type_name(s->type));
                return false;
        }
        v = s->s;
        if ((flags & V_AUTO) && streq(v, "auto")) {
                *ret = (struct policy_value){ .kind = PV_AUTO };
                return true;
        }
        r = size_parse(v, &bytes);
        if (r < 0) {
                if (r == -EINVAL && (flags & V_AUTO))
                        error_at(l, line, "%s = \"%s\": expected a size with a unit (B, K, M, G, "
                                 "T), \"unlimited\" or \"auto\"", what, quote(v, q));
                else
                        error_at(l, line, "%s = \"%s\": %s", what, quote(v, q), size_hint(r));
                return false;
        }
        if (bytes == 0 && !(flags & V_ZERO)) {
                error_at(l, line, "%s must not be 0: a memlock limit of 0 makes every RDMA "
                         "memory registration fail", what);
                return false;
        }
        *ret = (struct policy_value){ .kind = PV_SIZE, .bytes = bytes };
        return true;
}

/* A user or group name the policy accepts (no blanks, control characters, ':' or ','). */
static bool valid_name(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if ((unsigned char)*s <= ' ' || *s == 0x7f || *s == ':' || *s == ',')
                        return false;
        return true;
}

/* user = "..." or group = "..."; -ENOMEM or 0 (an invalid name is recorded as an error). */
static int load_name(struct loader *l, const struct cfg_node *s, const char *what, char **ret) {
        char q[QUOTE_MAX + 4];
        const char *v;

        if (s->type != CFG_STRING) {
                error_at(l, s->line, "%s must be a string (a %s name), not %s", what, what,
                         cfg_type_name(s->type));
                return 0;
        }
        v = s->s;
        if (streq(what, "group") && v[0] == '@') {
                error_at(l, s->line, "group = \"%s\": write the group name without the '@' "
                         "of limits.conf", quote(v, q));
                return 0;
        }
        if (!valid_name(v)) {
                error_at(l, s->line, "%s = \"%s\": not a valid %s name", what, quote(v, q), what);
                return 0;
        }
        *ret = strdup(v);
        return *ret ? 0 : -ENOMEM;
}

/* An interface name pattern (fnmatch): what an interface name may hold, plus * ? [ ] ! - */
static bool valid_pattern(const char *s) {
        if (!*s || strlen(s) >= 64)
                return false;
        for (; *s; s++)
                if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f || *s == '/' || *s == ',' || *s == ':')
                        return false;
        return true;
}

/* include = [ "ens*", ... ]; -ENOMEM or 0 (bad entries are recorded as errors) */
static int load_patterns(struct loader *l, const struct cfg_node *s, const char *what, char ***ret) {
        char q[QUOTE_MAX + 4];
        int n;

        if (s->type != CFG_ARRAY && s->type != CFG_LIST) {
                error_at(l, s->line, "%s must be a list of interface name patterns such as [ \"ens*\" ], not %s",
                         what, cfg_type_name(s->type));
                return 0;
        }
        n = (int)s->c.n;
        if (n > 64) {
                error_at(l, s->line, "%s: %d patterns, at most 64", what, n);
                return 0;
        }
        strv_free(*ret);
        char **v = *ret = calloc((size_t)n + 1, sizeof(char *));
        if (!v)
                return -ENOMEM;
        for (int i = 0, k = 0; i < n; i++) {
                const struct cfg_node *e = &s->c.v[i];
                const char *pat;
                if (e->type != CFG_STRING) {
                        error_at(l, e->line, "%s: each pattern is a string such as \"ens*\", not %s", what,
                                 cfg_type_name(e->type));
                        continue;
                }
                pat = e->s;
                if (!valid_pattern(pat)) {
                        error_at(l, e->line, "%s = \"%s\": not an interface name pattern (1 to 63 printable "
                                 "characters, no blank, '/', ',' or ':')", what, quote(pat, q));
                        continue;
                }
                if (!(v[k++] = strdup(pat)))
                        return -ENOMEM;
        }
        return 0;
}

static int load_hardware(struct loader *l, const struct cfg_node *g, struct policy_hardware *h) {
        if (g->type != CFG_GROUP) {
                error_at(l, g->line, "hardware must be a group { ... }, not %s",
                         cfg_type_name(g->type));
                return 0;
        }
        for (int i = 0; i < (int)g->c.n; i++) {
                const struct cfg_node *s = &g->c.v[i];
                const char *name = s->name;
                uint64_t *size = streq(name, "rdma_port") ? &h->rdma_port :
                                 streq(name, "xsk_queue") ? &h->xsk_queue :
                                 streq(name, "xsk_copy_queue") ? &h->xsk_copy_queue :
                                 streq(name, "base") ? &h->base : NULL;
                struct policy_value v;

                if (size) {
                        if (load_value(l, s, name, V_ZERO, &v))
                                *size = v.bytes;
                } else if (streq(name, "fallback")) {
                        if (load_value(l, s, name, 0, &v))
                                h->fallback = v;
                } else if (streq(name, "ram_share")) {
                        double d;

                        switch (s->type) {
                        case CFG_FLOAT:
                                d = s->f;
                                break;
                        case CFG_INT:
                                d = (double)s->i;
                                break;
                        default:
                                error_at(l, s->line, "ram_share must be a number such as 0.5, "
                                         "not %s", cfg_type_name(s->type));
                                continue;
                        }
                        if (d > 0.0 && d <= 1.0)
                                h->ram_share = d;
                        else
                                error_at(l, s->line, "ram_share = %g: must be above 0 and at "
                                         "most 1 (a share of MemTotal)", d);
                } else if (streq(name, "include") || streq(name, "exclude")) {
                        int r = load_patterns(l, s, name, streq(name, "include") ? &h->sel.include : &h->sel.exclude);
                        if (r < 0)
                                return r;
                } else
                        error_at(l, s->line, "unknown key \"%.*s\" in hardware (known: "
                                 "rdma_port, xsk_queue, xsk_copy_queue, base, ram_share, "
                                 "fallback, include, exclude)", QUOTE_MAX, name);
        }
        return 0;
}

static int load_rule(struct loader *l, const struct cfg_node *g, unsigned index,
                     struct policy_rule *rule) {
        unsigned memlock_line = 0, hard_line = 0, minimum_line = 0;
        bool has_user = false, has_group = false, has_memlock = false;
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
        int r;

        rule->line = g->line;
        if (g->type != CFG_GROUP) {
                error_at(l, rule->line, "rule %u must be a group { user|group = ...; memlock = "
                         "...; }, not %s", index + 1, cfg_type_name(g->type));
                return 0;
        }
        for (int i = 0; i < (int)g->c.n; i++) {
                const struct cfg_node *s = &g->c.v[i];
                const char *name = s->name;

                if (streq(name, "user") || streq(name, "group")) {
                        bool user = streq(name, "user");

                        has_user |= user;
                        has_group |= !user;
                        r = load_name(l, s, name, user ? &rule->user : &rule->group);
                        if (r < 0)
                                return r;
                } else if (streq(name, "memlock")) {
                        has_memlock = true;
                        memlock_line = s->line;
                        (void)load_value(l, s, name, V_AUTO, &rule->memlock);
                } else if (streq(name, "hard")) {
                        hard_line = s->line;
                        (void)load_value(l, s, name, V_AUTO, &rule->hard);
                } else if (streq(name, "minimum")) {
                        minimum_line = s->line;
                        (void)load_value(l, s, name, V_ZERO, &rule->minimum);
                } else if (streq(name, "maximum")) {
                        (void)load_value(l, s, name, 0, &rule->maximum);
                } else
                        error_at(l, s->line, "unknown key \"%.*s\" in rule (known: user, "
                                 "group, memlock, hard, minimum, maximum)", QUOTE_MAX, name);
        }

        if (!has_user && !has_group)
                error_at(l, rule->line, "the rule names neither a user nor a group");
        else if (has_user && has_group)
                error_at(l, rule->line, "the rule names both a user and a group: write one rule "
                         "for each");
        if (!has_memlock)
                error_at(l, rule->line, "the rule has no memlock (a size, \"unlimited\" or "
                         "\"auto\")");

        if (rule->memlock.kind == PV_SIZE && rule->hard.kind == PV_SIZE &&
            rule->hard.bytes < rule->memlock.bytes)
                error_at(l, hard_line, "hard %s is below memlock %s: the hard limit caps the "
                         "soft one", size_format_arg(rule->hard.bytes, a),
                         size_format_arg(rule->memlock.bytes, b));
        /* the soft value is at least minimum, and the hard limit caps it */
        if (rule->minimum.kind == PV_SIZE && rule->hard.kind == PV_SIZE && rule->hard.bytes < rule->minimum.bytes)
                error_at(l, hard_line, "hard %s is below minimum %s: the hard limit caps the soft one",
                         size_format_arg(rule->hard.bytes, a), size_format_arg(rule->minimum.bytes, b));
        if (rule->minimum.kind == PV_SIZE && rule->maximum.kind == PV_SIZE &&
            rule->minimum.bytes > rule->maximum.bytes)
                error_at(l, minimum_line, "minimum %s is above maximum %s",
                         size_format_arg(rule->minimum.bytes, a),
                         size_format_arg(rule->maximum.bytes, b));
        else if (rule->memlock.kind == PV_SIZE) {
                /* The bounds exist for `auto`; a fixed value outside them contradicts itself. */
                if (rule->minimum.kind == PV_SIZE && rule->memlock.bytes < rule->minimum.bytes)
                        error_at(l, memlock_line, "memlock %s is below minimum %s",
                                 size_format_arg(rule->memlock.bytes, a),
                                 size_format_arg(rule->minimum.bytes, b));
                if (rule->maximum.kind == PV_SIZE && rule->memlock.bytes > rule->maximum.bytes)
                        error_at(l, memlock_line, "memlock %s is above maximum %s",
                                 size_format_arg(rule->memlock.bytes, a),
                                 size_format_arg(rule->maximum.bytes, b));
        }
        return 0;
}

static int rule_cmp(const void *x, const void *y) {
        const struct policy_rule *a = *(const struct policy_rule *const *)x;
        const struct policy_rule *b = *(const struct policy_rule *const *)y;
        int r;

        if (!!a->user != !!b->user)
                return a->user ? -1 : 1;
        r = strcmp(a->user ?: a->group, b->user ?: b->group);
        if (r != 0)
                return r;
        return a->line < b->line ? -1 : a->line > b->line;
}

/* Two rules for the same user or group: warnings (sorted, so a big file stays cheap). */
static int check_duplicates(struct loader *l, const struct policy *p) {
        _cleanup_free_ const struct policy_rule **v = NULL;
        size_t n = 0;
        char q[QUOTE_MAX + 4];

        if (p->n_rules < 2)
                return 0;
        v = calloc(p->n_rules, sizeof(*v));
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_rules; i++)
                if (!!p->rules[i].user != !!p->rules[i].group)
                        v[n++] = &p->rules[i];
        qsort(v, n, sizeof(*v), rule_cmp);
        for (size_t i = 1; i < n; i++) {
                const struct policy_rule *first = v[i - 1], *dup = v[i];

                if (!!first->user != !!dup->user ||
                    !streq(first->user ?: first->group, dup->user ?: dup->group))
                        continue;
                if (dup->user)
                        warning_at(l, dup->line, "another rule for user \"%s\" is at line %u "
                                   "and wins, ignoring this one", quote(dup->user, q), first->line);
                else
                        warning_at(l, dup->line, "another rule for group \"%s\" is at line %u; "
                                   "the larger value of the two applies", quote(dup->group, q),
                                   first->line);
        }
        return 0;
}

static int load_rules(struct loader *l, const struct cfg_node *list, struct policy *p) {
        int n, r;

        if (list->type != CFG_LIST) {
                error_at(l, list->line, "rules must be a list ( { ... }, { ... } ), not %s",
                         cfg_type_name(list->type));
                return 0;
        }
        n = (int)list->c.n;
        if (n <= 0)
                return 0;
        p->rules = calloc((size_t)n, sizeof(*p->rules));
        if (!p->rules)
                return -ENOMEM;
        for (int i = 0; i < n; i++) {
                r = load_rule(l, &list->c.v[i], (unsigned)i,
                              &p->rules[p->n_rules++]);
                if (r < 0)
                        return r;
        }
        return check_duplicates(l, p);
}

/* the reader's findings, each an error */
static void parse_finding(void *data, unsigned line, const char *msg) {
        error_at((struct loader *)data, line, "%s", msg);
}

/* version = 1; (the only version this build reads) */
static void load_version(struct loader *l, const struct cfg_node *s, struct policy *p) {
        long long v;

        if (s->type == CFG_INT)
                v = s->i;
        else {
                error_at(l, s->line, "version must be an integer, not %s", cfg_type_name(s->type));
                return;
        }
        if (v == 1)
                p->version = 1;
        else
                error_at(l, s->line, "version %lld is not supported: this build reads version 1", v);
}

static int load_text(const char *text, size_t len, const char *path, struct policy **ret,
                     struct diag_list *diags) {
        _cleanup_(policy_freep) struct policy *p = NULL;
        _cleanup_(cfg_freep) struct cfg_node *root = NULL;
        struct loader l = { .path = path, .diags = diags };
        bool has_version = false, has_rules = false;
        int r;

        r = cfg_parse(text, len, POLICY_MAX_DEPTH, parse_finding, &l, &root);
        if (l.oom || r < 0)
                return l.oom ?: r;

        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        if (path && !(p->path = strdup(path)))
                return -ENOMEM;
        p->hw = (struct policy_hardware){
                .rdma_port = DEFAULT_RDMA_PORT,
                .xsk_queue = DEFAULT_XSK_QUEUE,
                .xsk_copy_queue = DEFAULT_XSK_COPY_QUEUE,
                .base = DEFAULT_BASE,
                .ram_share = DEFAULT_RAM_SHARE,
                .fallback = { .kind = PV_NONE },
        };

        for (size_t i = 0; i < root->c.n; i++) {
                const struct cfg_node *s = &root->c.v[i];
                const char *name = s->name;

                if (streq(name, "version")) {
                        has_version = true;
                        load_version(&l, s, p);
                } else if (streq(name, "lower")) {
                        if (s->type == CFG_BOOL)
                                p->lower = s->b;
                        else
                                error_at(&l, s->line, "lower must be true or false, not %s",
                                         cfg_type_name(s->type));
                } else if (streq(name, "hardware")) {
                        r = load_hardware(&l, s, &p->hw);
                        if (r < 0)
                                return r;
                } else if (streq(name, "rules")) {
                        has_rules = true;
                        r = load_rules(&l, s, p);
                        if (r < 0)
                                return r;
                } else
                        error_at(&l, s->line, "unknown key \"%.*s\" (known: version, lower, "
                                 "hardware, rules)", QUOTE_MAX, name);
        }
        if (!has_version)
                error_at(&l, 0, "version = 1; is missing");
        if (!has_rules)
                warning_at(&l, 0, "no rules: the policy matches nobody");

        if (l.oom || l.errors > 0)
                return l.oom ?: -EINVAL;
        *ret = TAKE_PTR(p);
        return 0;
}

int policy_load_string(const char *text, size_t len, const char *path, struct policy **ret,
                       struct diag_list *diags) {
        if ((!text && len > 0) || !ret)
                return -EINVAL;
        if (len > POLICY_MAX_BYTES)
                return -EFBIG;
        return load_text(text, len, path, ret, diags);
}

int policy_read_fd(int fd, char **ret, size_t *ret_len) {
        if (fd < 0 || !ret || !ret_len)
                return -EINVAL;
        /* Whatever the descriptor is (a FIFO, /dev/zero), at most one byte more than allowed
         * is read, so an endless source is refused instead of filling memory; a directory
         * fails with -EISDIR. */
        return fs_read_all(fd, POLICY_MAX_BYTES, ret, ret_len);
}

void policy_free(struct policy *p) {
        if (!p)
                return;
        strv_free(p->hw.sel.include);
        strv_free(p->hw.sel.exclude);
        for (size_t i = 0; i < p->n_rules; i++) {
                free(p->rules[i].user);
                free(p->rules[i].group);
        }
        free(p->rules);
        free(p->path);
        free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Evaluation */

static uint64_t sat_add(uint64_t a, uint64_t b) {
        uint64_t r;
        return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_mul(uint64_t a, uint64_t b) {
        uint64_t r;
        return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t min_nonzero(uint64_t v, uint64_t cap) {
        return cap != 0 && cap < v ? cap : v;
}

static uint64_t ram_cap(double share, uint64_t mem_total) {
        double v;

        if (mem_total == 0 || !(share > 0.0))
                return 0;
        if (share >= 1.0)
                return mem_total;
        v = (double)mem_total * share;
        if (v >= (double)mem_total)     /* rounding near 2^64 */
                return mem_total;
        return (uint64_t)v;
}

void policy_auto_unknown_text(const struct policy_auto *a, char *buf, size_t size) {
        size_t l = strlen(buf);
        if (a->rdma_unknown && l < size)
                l += (size_t)snprintf(buf + l, size - l, "; RDMA unknown: /sys/class/infiniband cannot be read (%s)",
                                      errno_text(a->rdma_error));
        if (a->phys_unknown && l < size)
                l += (size_t)snprintf(buf + l, size - l,
                                      "; physical interfaces unknown: sysfs shows another network namespace");
        if (!a->xdp_unknown || l >= size)
                return;
        const char *why = a->xdp_error == -EOPNOTSUPP ? "the kernel has no netdev netlink family"
                          : a->xdp_error == -ENOPKG   ? "built without AF_XDP detection (--disable-xdp)"
                                                      : NULL;
        if (why)
                snprintf(buf + l, size - l, "; AF_XDP unknown: %s", why);
        else
                snprintf(buf + l, size - l, "; AF_XDP unknown: the netdev netlink probe failed (%s)",
                         errno_text(a->xdp_error));
}

void policy_compute_auto(const struct policy_hardware *h, const struct hw_summary *hw,
                         struct policy_auto *ret) {
        struct policy_auto a = {};

        if (hw) {
                /* no netdev family, a build without AF_XDP detection, a probe that failed
                 * (a socket refused by seccomp, a timeout): unknown, not none */
                a.xdp_unknown = hw->xdp_status < 0;
                a.xdp_error = hw->xdp_status;
                a.rdma_unknown = hw->rdma_status < 0;
                a.rdma_error = hw->rdma_status;
                a.active_ports = hw_active_ports(hw);
                if (!a.xdp_unknown) {
                        a.phys_unknown = hw->sysfs_other_netns;
                        a.zc_queues = hw_zc_queues(hw);
                        a.copy_queues = hw_copy_queues(hw);
                }
                if (hw->mem_status == 0)
                        a.ram_cap = ram_cap(h->ram_share, hw->mem_total);
                a.mr_cap = hw_min_max_mr_size(hw, &a.mr_unknown);
        }
        a.hardware_found = a.active_ports > 0 || a.zc_queues > 0 || a.copy_queues > 0;

        a.sum = h->base;
        a.sum = sat_add(a.sum, sat_mul(h->rdma_port, a.active_ports));
        a.sum = sat_add(a.sum, sat_mul(h->xsk_queue, a.zc_queues));
        a.sum = sat_add(a.sum, sat_mul(h->xsk_copy_queue, a.copy_queues));

        if (a.hardware_found)
                a.value = min_nonzero(min_nonzero(a.sum, a.ram_cap), a.mr_cap);
        else if (h->fallback.kind == PV_SIZE && h->fallback.bytes > 0) {
                a.value = min_nonzero(h->fallback.bytes, a.ram_cap);
                a.used_fallback = true;
        } else
                a.value = 0;    /* leave the limits alone */

        /* Never hand out less than the kernel's historic default: an `auto` that computes to
         * 0 (all per-unit sizes 0, a tiny RAM share) would break every MR registration. */
        if ((a.hardware_found || a.used_fallback) && a.value < POLICY_MIN_BYTES)
                a.value = POLICY_MIN_BYTES;
        *ret = a;
}

static bool in_groups(const char *group, const char *const *groups, size_t n_groups) {
        for (size_t i = 0; i < n_groups; i++)
                if (groups[i] && streq(groups[i], group))
                        return true;
        return false;
}

static bool rule_needs_hw(const struct policy_rule *r) {
        return r->memlock.kind == PV_AUTO || r->hard.kind == PV_AUTO;
}

static const struct policy_rule *user_rule(const struct policy *p, const char *user) {
        for (size_t i = 0; i < p->n_rules; i++)
                if (p->rules[i].user && streq(p->rules[i].user, user))
                        return &p->rules[i];
        return NULL;
}

/* Can a group rule decide for this user?  False when a user rule names the user or there is
 * no group rule: then the user's groups need not be looked up (a login saves NSS calls). */
static bool needs_groups(const struct policy *p, const char *user) {
        if (!p || !user || user_rule(p, user))
                return false;
        for (size_t i = 0; i < p->n_rules; i++)
                if (p->rules[i].group)
                        return true;
        return false;
}

int policy_user_groups(const struct policy *p, struct ident *id, const struct id_user *u, char ***ret,
                       size_t *ret_n) {
        _cleanup_(strv_freep) char **v = NULL;
        size_t n = 0;

        *ret = NULL;
        *ret_n = 0;
        if (!needs_groups(p, u->name))
                return 0;
        v = calloc(p->n_rules + 1, sizeof(char *));
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_rules; i++) {
                const char *name = p->rules[i].group;
                const struct id_group *g;
                int r;

                if (!name || in_groups(name, (const char *const *)v, n))
                        continue;
                r = ident_group(id, name, &g);
                if (r == -ENOENT)
                        continue;       /* a rule for a group that does not exist never matches */
                if (r >= 0)
                        r = ident_user_member(id, u, g);
                if (r == 0)
                        continue;
                if (r > 0 && !(v[n++] = strdup(name)))
                        r = -ENOMEM;
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

bool policy_uses_hw(const struct policy *p) {
        for (size_t i = 0; p && i < p->n_rules; i++)
                if (rule_needs_hw(&p->rules[i]))
                        return true;
        return false;
}

bool policy_needs_hw(const struct policy *p, const char *user, const char *const *groups,
                     size_t n_groups) {
        const struct policy_rule *u;

        if (!p || !user)
                return false;
        /* Only the rules that can decide: a user rule hides every group rule. */
        u = user_rule(p, user);
        if (u)
                return rule_needs_hw(u);
        for (size_t i = 0; i < p->n_rules; i++)
                if (p->rules[i].group && in_groups(p->rules[i].group, groups, n_groups) &&
                    rule_needs_hw(&p->rules[i]))
                        return true;
        return false;
}

static uint64_t clamp_bounds(const struct policy_rule *r, uint64_t v) {
        if (r->minimum.kind == PV_SIZE && v < r->minimum.bytes)
                v = r->minimum.bytes;
        if (r->maximum.kind == PV_SIZE && v > r->maximum.bytes)
                v = r->maximum.bytes;
        return v;
}

static void evaluate_rule(const struct policy *p, const struct policy_rule *r,
                          const struct hw_summary *hw, struct policy_decision *d) {
        struct policy_auto a = {};

        *d = (struct policy_decision){ .matched = true, .rule = r, .lower = p->lower };
        if (rule_needs_hw(r)) {
                policy_compute_auto(&p->hw, hw, &a);
                d->used_auto = true;
                d->auto_info = a;
        }

        /* soft: a fixed size lies within [minimum, maximum] (checked at load); `auto` is
         * clamped into it. */
        if (r->memlock.kind == PV_AUTO) {
                if (a.value == 0) {
                        d->untouched = true;
                        return;
                }
                d->soft = clamp_bounds(r, a.value);
        } else
                d->soft = clamp_bounds(r, r->memlock.bytes);

        /* hard: default the soft value; a fixed hard as written; `auto` like the soft one
         * (and the soft value when `auto` found nothing). */
        switch (r->hard.kind) {
        case PV_SIZE:
                /* an explicit hard limit is a ceiling: it also caps what `auto` gives */
                d->hard = r->hard.bytes;
                if (d->soft > d->hard && d->hard)
                        d->soft = d->hard;
                break;
        case PV_AUTO:
                d->hard = a.value ? clamp_bounds(r, a.value) : d->soft;
                break;
        default:
                d->hard = d->soft;
                break;
        }

        /* Never 0, whatever a hand-built policy says. */
        if (d->soft == 0)
                d->soft = POLICY_MIN_BYTES;
        if (d->hard < d->soft)
                d->hard = d->soft;
}

int policy_evaluate(const struct policy *p, const char *user, const char *const *groups,
                    size_t n_groups, const struct hw_summary *hw, struct policy_decision *ret) {
        struct policy_decision best = {}, cur;
        const struct policy_rule *u;

        if (!p || !user || !ret || (n_groups > 0 && !groups))
                return -EINVAL;
        if (!hw && policy_needs_hw(p, user, groups, n_groups))
                return -EINVAL;

        u = user_rule(p, user);
        if (u) {
                evaluate_rule(p, u, hw, ret);
                return 0;
        }

        /* The largest soft value among the matching group rules; a rule that leaves the
         * limits untouched loses to any value; on a tie the first rule in the file wins. */
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct policy_rule *r = &p->rules[i];

                if (!r->group || !in_groups(r->group, groups, n_groups))
                        continue;
                evaluate_rule(p, r, hw, &cur);
                if (!best.matched ||
                    (best.untouched && !cur.untouched) ||
                    (!best.untouched && !cur.untouched && cur.soft > best.soft))
                        best = cur;
        }
        if (!best.matched)
                best.lower = p->lower;
        *ret = best;
        return 0;
}
