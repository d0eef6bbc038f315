/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The compiled form of a policy: what policy_load_*() built and the findings it reported, as
 * text lines, so that the cache (hwcache.h) can hand a login its policy without libconfig.
 *
 *   version 1
 *   lower 0|1
 *   hardware RDMA_PORT XSK_QUEUE XSK_COPY_QUEUE BASE RAM_SHARE FALLBACK
 *   rule LINE user|group NAME MEMLOCK HARD MINIMUM MAXIMUM
 *   diag error|warning|info LINE MESSAGE
 *   end
 *
 * Sizes are decimal bytes (18446744073709551615 is unlimited), "auto", or "-" when not given;
 * RAM_SHARE is the bit pattern of the double, in decimal: it reads back exactly, whatever the
 * locale of the program the module runs in.  The reader accepts only
 * what the loader could have built: a value of the wrong kind for its field, a bad name, a
 * missing or repeated line is -EBADMSG, and the caller parses the policy itself.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "macro.h"
#include "policy.h"
#include "size.h"

static void put_value(FILE *f, const struct policy_value *v) {
        switch (v->kind) {
        case PV_SIZE:
                fprintf(f, " %llu", (unsigned long long)v->bytes);
                break;
        case PV_AUTO:
                fputs(" auto", f);
                break;
        default:
                fputs(" -", f);
        }
}

static const char *severity_word(enum diag_severity s) {
        return s == DIAG_ERROR ? "error" : s == DIAG_WARNING ? "warning" : "info";
}

int policy_compiled_write(FILE *f, const struct policy *p, const struct diag_list *d) {
        if (!f || !p || p->version != 1)
                return -EINVAL;
        for (size_t i = 0; d && i < d->n; i++)
                if (strchr(d->v[i].message, '\n'))
                        return -EINVAL;
        uint64_t share;
        static_assert(sizeof share == sizeof p->hw.ram_share, "a double is 64 bits");
        memcpy(&share, &p->hw.ram_share, sizeof share);
        fprintf(f, "version %d\nlower %d\nhardware %llu %llu %llu %llu %llu", p->version, p->lower ? 1 : 0,
                (unsigned long long)p->hw.rdma_port, (unsigned long long)p->hw.xsk_queue,
                (unsigned long long)p->hw.xsk_copy_queue, (unsigned long long)p->hw.base,
                (unsigned long long)share);
        put_value(f, &p->hw.fallback);
        fputc('\n', f);
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct policy_rule *r = &p->rules[i];
                fprintf(f, "rule %u %s %s", r->line, r->user ? "user" : "group", r->user ? r->user : r->group);
                put_value(f, &r->memlock);
                put_value(f, &r->hard);
                put_value(f, &r->minimum);
                put_value(f, &r->maximum);
                fputc('\n', f);
        }
        for (size_t i = 0; d && i < d->n; i++)
                fprintf(f, "diag %s %u %s\n", severity_word(d->v[i].severity), d->v[i].line, d->v[i].message);
        fputs("end\n", f);
        return ferror(f) ? -EIO : 0;
}

/* Which kinds a field may hold, as the loader builds them. */
enum {
        K_NONE = 1 << PV_NONE,
        K_SIZE = 1 << PV_SIZE,   /* above 0 */
        K_ZERO = 1 << 3,         /* a size of 0 too */
        K_AUTO = 1 << PV_AUTO,
};

static int get_value(const char *s, unsigned allowed, struct policy_value *ret) {
        uint64_t v;

        if (streq(s, "-") && (allowed & K_NONE)) {
                *ret = (struct policy_value){ .kind = PV_NONE };
                return 0;
        }
        if (streq(s, "auto") && (allowed & K_AUTO)) {
                *ret = (struct policy_value){ .kind = PV_AUTO };
                return 0;
        }
        if (!(allowed & (K_SIZE | K_ZERO)) || parse_u64(s, &v) < 0 || (v == 0 && !(allowed & K_ZERO)))
                return -EBADMSG;
        *ret = (struct policy_value){ .kind = PV_SIZE, .bytes = v };
        return 0;
}

static int get_line_no(const char *s, unsigned *ret) {
        uint32_t v;
        if (parse_u32(s, &v) < 0)
                return -EBADMSG;
        *ret = v;
        return 0;
}

static int read_rule(char **w, struct policy_rule *r) {
        bool user;
        int k;

        if (get_line_no(w[1], &r->line) < 0)
                return -EBADMSG;
        if (streq(w[2], "user"))
                user = true;
        else if (streq(w[2], "group"))
                user = false;
        else
                return -EBADMSG;
        if (!policy_valid_name(w[3]))
                return -EBADMSG;
        if (get_value(w[4], K_SIZE | K_AUTO, &r->memlock) < 0 || get_value(w[5], K_NONE | K_SIZE | K_AUTO, &r->hard) < 0 ||
            get_value(w[6], K_NONE | K_SIZE | K_ZERO, &r->minimum) < 0 ||
            get_value(w[7], K_NONE | K_SIZE, &r->maximum) < 0)
                return -EBADMSG;
        /* the loader refuses these as contradictions */
        if (r->memlock.kind == PV_SIZE && r->hard.kind == PV_SIZE && r->hard.bytes < r->memlock.bytes)
                return -EBADMSG;
        if (r->minimum.kind == PV_SIZE && r->maximum.kind == PV_SIZE && r->minimum.bytes > r->maximum.bytes)
                return -EBADMSG;
        if (r->memlock.kind == PV_SIZE && ((r->minimum.kind == PV_SIZE && r->memlock.bytes < r->minimum.bytes) ||
                                           (r->maximum.kind == PV_SIZE && r->memlock.bytes > r->maximum.bytes)))
                return -EBADMSG;
        k = (user ? !(r->user = strdup(w[3])) : !(r->group = strdup(w[3])));
        return k ? -ENOMEM : 0;
}

/* Split off the first n words of s (single spaces); *rest is what follows the n-th. */
static size_t split(char *s, char **w, size_t n, char **rest) {
        size_t k = 0;

        *rest = NULL;
        while (k < n && *s) {
                w[k++] = s;
                s = strchr(s, ' ');
                if (!s)
                        break;
                *s++ = '\0';
        }
        if (k == n && s && *s)
                *rest = s;
        return k;
}

int policy_compiled_read(const char *text, size_t len, const char *path, struct policy **ret,
                         struct diag_list *diags) {
        _cleanup_free_ char *buf = NULL;
        struct policy *p = NULL;
        struct diag_list d = {};
        bool have_version = false, have_lower = false, have_hw = false, ended = false;
        char *line, *next;
        int r = -EBADMSG;

        if (!text || memchr(text, '\0', len) || len == 0 || text[len - 1] != '\n')
                return -EBADMSG;
        buf = malloc(len + 1);
        p = calloc(1, sizeof(*p));
        if (!buf || !p || (path && !(p->path = strdup(path)))) {
                r = -ENOMEM;
                goto fail;
        }
        memcpy(buf, text, len);
        buf[len] = '\0';
        for (line = buf; *line; line = next) {
                char *w[8], *rest;
                size_t n;

                next = strchr(line, '\n');
                *next++ = '\0';
                if (ended)
                        goto fail;      /* nothing after "end" */
                if (strncmp(line, "diag ", 5) == 0) {
                        enum diag_severity sev;
                        unsigned ln;
                        n = split(line, w, 3, &rest);
                        if (n != 3 || !rest || get_line_no(w[2], &ln) < 0)
                                goto fail;
                        if (streq(w[1], "error"))
                                goto fail;      /* the loader builds no policy with an error */
                        else if (streq(w[1], "warning"))
                                sev = DIAG_WARNING;
                        else if (streq(w[1], "info"))
                                sev = DIAG_INFO;
                        else
                                goto fail;
                        if (diag_add(&d, sev, path, ln, "%s", rest) < 0) {
                                r = -ENOMEM;
                                goto fail;
                        }
                        continue;
                }
                n = split(line, w, 8, &rest);
                if (rest)
                        goto fail;
                if (n == 2 && streq(w[0], "version") && !have_version) {
                        if (!streq(w[1], "1"))
                                goto fail;
                        p->version = 1;
                        have_version = true;
                } else if (n == 2 && streq(w[0], "lower") && !have_lower) {
                        if (!streq(w[1], "0") && !streq(w[1], "1"))
                                goto fail;
                        p->lower = w[1][0] == '1';
                        have_lower = true;
                } else if (n == 7 && streq(w[0], "hardware") && !have_hw) {
                        uint64_t share;
                        if (parse_u64(w[1], &p->hw.rdma_port) < 0 || parse_u64(w[2], &p->hw.xsk_queue) < 0 ||
                            parse_u64(w[3], &p->hw.xsk_copy_queue) < 0 || parse_u64(w[4], &p->hw.base) < 0 ||
                            parse_u64(w[5], &share) < 0)
                                goto fail;
                        memcpy(&p->hw.ram_share, &share, sizeof share);
                        if (!(p->hw.ram_share > 0.0 && p->hw.ram_share <= 1.0))   /* NaN too */
                                goto fail;
                        if (get_value(w[6], K_NONE | K_SIZE, &p->hw.fallback) < 0)
                                goto fail;
                        have_hw = true;
                } else if (n == 8 && streq(w[0], "rule") && have_hw) {
                        struct policy_rule *v = reallocarray(p->rules, p->n_rules + 1, sizeof(*v));
                        if (!v) {
                                r = -ENOMEM;
                                goto fail;
                        }
                        p->rules = v;
                        v[p->n_rules] = (struct policy_rule){};
                        r = read_rule(w, &v[p->n_rules]);
                        p->n_rules++;   /* freed with the policy whatever read_rule() did */
                        if (r < 0)
                                goto fail;
                        r = -EBADMSG;
                } else if (n == 1 && streq(w[0], "end")) {
                        ended = true;
                } else
                        goto fail;
        }
        if (!ended || !have_version || !have_lower || !have_hw)
                goto fail;
        /* the findings go to the caller as the loader would have reported them */
        for (size_t i = 0; diags && i < d.n; i++)
                if (diag_add(diags, d.v[i].severity, d.v[i].path, d.v[i].line, "%s", d.v[i].message) < 0) {
                        r = -ENOMEM;
                        goto fail;
                }
        diag_list_clear(&d);
        *ret = p;
        return 0;
fail:
        diag_list_clear(&d);
        policy_free(p);
        return r;
}
