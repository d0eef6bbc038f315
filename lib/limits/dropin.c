/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "dropin.h"
#include "limitsconf.h"
#include "macro.h"
#include "size.h"

static bool valid_name_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
               c == '-' || c == '.' || c == '$';
}

/* A check's refusal: *why says what is wrong. */
static int refuse(const char **why, const char *msg) {
        *why = msg;
        return -EINVAL;
}

/* "min:max", ":id", "min:" with strict decimal parts; min <= max */
static int check_range(const char *s, const char **why) {
        const char *colon = strchr(s, ':');
        char a[16], b[16];
        uint32_t lo = 0, hi = UINT32_MAX;

        if (strchr(colon + 1, ':'))
                return refuse(why, "a range has one ':' (min:max, :id or min:)");
        size_t la = (size_t)(colon - s), lb = strlen(colon + 1);
        if (la >= sizeof a || lb >= sizeof b)
                return refuse(why, "an id in a range is too long");
        snprintf(a, sizeof a, "%.*s", (int)la, s);
        memcpy(b, colon + 1, lb + 1);
        if (!la && !lb)
                return refuse(why, "a range needs an id on at least one side of ':'");
        if ((la && parse_u32(a, &lo) < 0) || (lb && parse_u32(b, &hi) < 0))
                return refuse(why, "the ids of a range are decimal numbers below 2^32");
        if (la && lb && lo > hi)
                return refuse(why, "the range's minimum is above its maximum");
        return 0;
}

int dropin_check_domain(const char *domain, const char **why) {
        const char *p = domain;

        if (!*domain)
                return refuse(why, "the domain is empty");
        if (strlen(domain) > DROPIN_DOMAIN_MAX)
                return refuse(why, "the domain is longer than 256 characters");
        for (const char *c = domain; *c; c++) {
                unsigned char ch = (unsigned char)*c;
                if (ch <= 0x20 || ch == 0x7f)
                        return refuse(why, "the domain contains whitespace or a control character");
                if (ch == '#')
                        return refuse(why, "the domain contains '#', which starts a comment in limits.conf");
                if (ch == '/')
                        return refuse(why, "the domain contains '/'");
        }
        if (streq(domain, "*"))
                return 0;
        if (domain[0] == '%')
                return refuse(why, "pam_limits ignores %-domains for memlock (they count only for maxlogins); use @group");
        if (domain[0] == '@')
                p++;
        if (strchr(p, ':'))
                return check_range(p, why);
        if (!*p)
                return refuse(why, "'@' needs a group name");
        if (*p == '-')
                return refuse(why, "user and group names do not start with '-'");
        for (const char *c = p; *c; c++)
                if (!valid_name_char(*c))
                        return refuse(why, "user and group names use letters, digits, '.', '_', '-' (and a final '$')");
        if (strchr(p, '$') && strchr(p, '$') != p + strlen(p) - 1)
                return refuse(why, "'$' may only end a user or group name");
        return 0;
}

int dropin_check_name(const char *name, const char **why) {
        if (!*name || strchr(name, '/'))
                return refuse(why, "a file name inside limits.d, without '/'");
        if (name[0] == '.')
                return refuse(why, "pam_limits skips names starting with a dot");
        if (!endswith(name, ".conf") || streq(name, ".conf"))
                return refuse(why, "pam_limits reads only names ending in .conf");
        if (strlen(name) > 200)
                return refuse(why, "the name is longer than 200 characters");
        for (const char *c = name; *c; c++)
                if (!valid_name_char(*c) || *c == '$')
                        return refuse(why, "use letters, digits, '.', '_' and '-' in the name");
        return 0;
}

int dropin_check_bytes(uint64_t bytes, const char **why) {
        if (bytes == UINT64_MAX)
                return 0;
        if (bytes == 0)
                return refuse(why, "memlock 0 makes every RDMA memory registration fail");
        if (bytes % 1024)
                return refuse(why, "limits.conf stores memlock in whole KiB");
        /* pam_limits: a value of RLIM_INFINITY/1024 KiB or more is unlimited */
        if (bytes / 1024 >= UINT64_MAX / 1024)
                return refuse(why, "too large: pam_limits reads it as unlimited; write unlimited if that is meant");
        return 0;
}

bool dropin_has_marker(const char *text, size_t len) {
        size_t ml = strlen(DROPIN_MARKER);
        return len >= ml && memcmp(text, DROPIN_MARKER, ml) == 0 && (len == ml || text[ml] == '\n');
}

void dropin_clear(struct dropin *d) {
        for (size_t i = 0; i < d->n; i++)
                free(d->v[i].domain);
        free(d->v);
        *d = (struct dropin){};
}

static int push(struct dropin *d, const char *domain, unsigned type, uint64_t bytes) {
        if (GROW_EXACT(d->v, d->n + 1) < 0)
                return -ENOMEM;
        char *dom = strdup(domain);
        if (!dom)
                return -ENOMEM;
        d->v[d->n++] = (struct dropin_entry){ .domain = dom, .type = type, .bytes = bytes };
        return 0;
}

int dropin_parse(const char *text, size_t len, const char *display, struct dropin *ret, struct diag_list *diags) {
        _cleanup_(dropin_clear) struct dropin d = {};
        unsigned lineno = 0;
        bool bad = false;
        int r;

        if (memchr(text, '\0', len)) {
                diag_add(diags, DIAG_ERROR, display, 0, "contains NUL bytes");
                return -EBADMSG;
        }
        for (const char *p = text; p < text + len;) {
                const char *nl = memchr(p, '\n', (size_t)(text + len - p));
                size_t ll = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
                _cleanup_free_ char *line = strndup(p, ll);
                char *f[5] = {}, *save = NULL;
                int n = 0;

                lineno++;
                p += ll + (nl ? 1 : 0);
                if (!line)
                        return -ENOMEM;
                if (!line[0] || line[0] == '#')
                        continue;
                for (char *tok = strtok_r(line, " \t", &save); tok && n < 5; tok = strtok_r(NULL, " \t", &save))
                        f[n++] = tok;
                const char *why = NULL;
                uint64_t kib = 0, bytes;
                unsigned type = 0;
                if (n != 4)
                        why = "expected <domain> <soft|hard> memlock <KiB>";
                else if (dropin_check_domain(f[0], &why) < 0)
                        ;
                else if (streq(f[1], "soft"))
                        type = LC_SOFT;
                else if (streq(f[1], "hard"))
                        type = LC_HARD;
                else
                        why = "the type is soft or hard";
                if (!why && !streq(f[2], "memlock"))
                        why = "the item is memlock";
                if (!why) {
                        if (streq(f[3], "unlimited"))
                                bytes = UINT64_MAX;
                        else if (parse_u64(f[3], &kib) < 0 || kib == 0 || kib > UINT64_MAX / 1024 - 1)
                                why = "the value is a number of KiB or unlimited";
                        else
                                bytes = kib * 1024;
                }
                if (why) {
                        diag_add(diags, DIAG_ERROR, display, lineno, "not a line rdmalimits writes: %s", why);
                        bad = true;
                        continue;
                }
                r = push(&d, f[0], type, bytes);
                if (r < 0)
                        return r;
        }
        if (bad)
                return -EBADMSG;
        *ret = d;
        d = (struct dropin){};
        return 0;
}

char *dropin_render(const struct dropin *d) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        fprintf(f, "%s\n%s\n", DROPIN_MARKER, DROPIN_HEADER2);
        for (size_t i = 0; i < d->n; i++) {
                const struct dropin_entry *e = &d->v[i];
                char kib[24] = "unlimited";
                if (e->bytes != UINT64_MAX)
                        snprintf(kib, sizeof kib, "%llu", (unsigned long long)(e->bytes / 1024));
                fprintf(f, "%s\t%s\tmemlock\t%s\n", e->domain, e->type == LC_SOFT ? "soft" : "hard",
                        kib);
        }
        /* glibc leaves buf NULL when the last realloc fails, and fclose() still returns 0 */
        if (fclose(f) != 0 || !buf) {
                free(buf);
                return NULL;
        }
        return buf;
}

bool dropin_has(const struct dropin *d, const char *domain, unsigned type) {
        for (size_t i = 0; i < d->n; i++)
                if (d->v[i].type == type && streq(d->v[i].domain, domain))
                        return true;
        return false;
}

int dropin_set(struct dropin *d, const char *domain, unsigned type, uint64_t bytes) {
        ssize_t first = -1;
        bool set = false;
        size_t k = 0;

        for (size_t i = 0; i < d->n; i++) {
                struct dropin_entry x = d->v[i];
                if (streq(x.domain, domain)) {
                        if (first < 0)
                                first = (ssize_t)k;
                        if (x.type == type && set) {
                                /* a second line of the slot: pam_limits would read it after ours */
                                free(x.domain);
                                continue;
                        }
                        if (x.type == type) {
                                x.bytes = bytes;
                                set = true;
                        }
                }
                d->v[k++] = x;
        }
        d->n = k;
        if (set)
                return 0;
        int r = push(d, domain, type, bytes);
        if (r < 0 || first < 0)
                return r;
        /* keep a domain's lines together, soft before hard */
        struct dropin_entry e = d->v[d->n - 1];
        size_t pos = (size_t)first + (type == LC_HARD ? 1 : 0);
        memmove(&d->v[pos + 1], &d->v[pos], (d->n - 1 - pos) * sizeof(e));
        d->v[pos] = e;
        return 0;
}

size_t dropin_remove(struct dropin *d, const char *domain) {
        size_t k = 0, removed = 0;
        for (size_t i = 0; i < d->n; i++) {
                if (streq(d->v[i].domain, domain)) {
                        free(d->v[i].domain);
                        removed++;
                } else
                        d->v[k++] = d->v[i];
        }
        d->n = k;
        return removed;
}

