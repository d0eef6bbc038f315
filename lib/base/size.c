/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "size.h"

static const struct {
        const char *name;
        unsigned shift;
} units[] = {
        { "B", 0 },    { "K", 10 },   { "KiB", 10 }, { "M", 20 }, { "MiB", 20 },
        { "G", 30 },   { "GiB", 30 }, { "T", 40 },   { "TiB", 40 },
};

int parse_u64_prefix(const char *s, uint64_t *ret, const char **ret_end) {
        uint64_t v = 0;
        const char *p = s;

        if (!s || !isdigit((unsigned char)*p))
                return -EINVAL;
        for (; isdigit((unsigned char)*p); p++) {
                unsigned d = (unsigned)(*p - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *ret = v;
        if (ret_end)
                *ret_end = p;
        return 0;
}

/* v << shift, refusing overflow and the value that means "unlimited" */
static int scale(uint64_t v, unsigned shift, uint64_t *ret) {
        if (shift && v > (UINT64_MAX >> shift))
                return -ERANGE;
        v <<= shift;
        if (v == SIZE_INFINITY)
                return -ERANGE;
        *ret = v;
        return 0;
}

int parse_u64(const char *s, uint64_t *ret) {
        const char *end;
        uint64_t v;
        int r = parse_u64_prefix(s, &v, &end);

        if (r < 0)
                return r;
        if (*end)
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_u32(const char *s, uint32_t *ret) {
        uint64_t v;
        int r = parse_u64(s, &v);
        if (r < 0)
                return r;
        if (v > UINT32_MAX)
                return -ERANGE;
        *ret = (uint32_t)v;
        return 0;
}

int size_parse(const char *s, uint64_t *ret) {
        const char *end;
        uint64_t v;
        int r;

        if (!s || !*s)
                return -EINVAL;
        if (streq(s, "unlimited") || streq(s, "infinity")) {
                *ret = SIZE_INFINITY;
                return 0;
        }
        r = parse_u64_prefix(s, &v, &end);
        if (r < 0)
                return r;
        if (!*end) {
                if (v == 0) {
                        *ret = 0;
                        return 0;
                }
                return -EDOM;
        }
        for (size_t i = 0; i < ELEMENTSOF(units); i++)
                if (c_strcaseeq(end, units[i].name))
                        return scale(v, units[i].shift, ret);
        return -EINVAL;
}

int size_parse_systemd(const char *s, uint64_t *ret) {
        /* systemd's parse_size(s, 1024) (src/basic/parse-util.c), then rlimit_parse_size(): in
         * its order, each suffix at most once and the next ones smaller; the "" entry matches
         * anything, the word after it must then be another number */
        static const struct {
                const char *suffix;
                unsigned long long factor;
        } iec[] = { { "E", 1ULL << 60 }, { "P", 1ULL << 50 }, { "T", 1ULL << 40 }, { "G", 1ULL << 30 },
                    { "M", 1ULL << 20 }, { "K", 1ULL << 10 }, { "B", 1 },         { "", 1 } };
        static const char blanks[] = " \t\n\r";      /* systemd's WHITESPACE */
        unsigned long long sum = 0;
        size_t start = 0;
        const char *p = s;

        if (!s)
                return -EINVAL;
        if (streq(s, "infinity")) {
                *ret = SIZE_INFINITY;
                return 0;
        }
        do {
                unsigned long long l, tmp;
                double frac = 0;
                const char *e;
                size_t i;
                bool erange;

                p += strspn(p, blanks);
                l = c_strtoull(p, &e, &erange);
                if (erange)
                        return -ERANGE;
                if (e == p)
                        return -EINVAL;
                if (*p == '-')
                        return -ERANGE;
                if (*e == '.') {
                        e++;
                        /* a fraction: its digits, as a double divided by 10 once for each */
                        if (*e >= '0' && *e <= '9') {
                                unsigned long long l2;
                                const char *e2;
                                l2 = c_strtoull(e, &e2, &erange);
                                if (erange)
                                        return -ERANGE;
                                frac = (double)l2;
                                for (; e < e2; e++)
                                        frac /= 10;
                        }
                }
                e += strspn(e, blanks);
                for (i = start; i < ELEMENTSOF(iec); i++)
                        if (strncmp(e, iec[i].suffix, strlen(iec[i].suffix)) == 0)
                                break;
                if (i >= ELEMENTSOF(iec))
                        return -EINVAL;
                if (l + (frac > 0) > ULLONG_MAX / iec[i].factor)
                        return -ERANGE;
                /* the fraction's bytes truncated, as systemd's cast does */
                tmp = l * iec[i].factor + (unsigned long long)(frac * (double)iec[i].factor);
                if (tmp > ULLONG_MAX - sum)
                        return -ERANGE;
                sum += tmp;
                p = e + strlen(iec[i].suffix);
                start = i + 1;
        } while (*p);
        if (sum >= SIZE_INFINITY)       /* rlimit_parse_size(): RLIM_INFINITY is "infinity" only */
                return -ERANGE;
        *ret = sum;
        return 0;
}

const char *size_hint(int error) {
        switch (error) {
        case -EDOM:
                return "a size needs a unit: limits.conf counts memlock in KiB, prlimit and "
                       "/proc/PID/limits in bytes; write e.g. 1048576K or 1G";
        case -ERANGE:
                return "the size is too large (use \"unlimited\" for no limit)";
        default:
                return "expected a number with a unit B, K, M, G, T (KiB, MiB, GiB, TiB), "
                       "or \"unlimited\"";
        }
}

static unsigned exact_shift(uint64_t bytes) {
        unsigned sh = 0;
        if (bytes == 0)
                return 0;
        while (sh < 40 && (bytes & ((UINT64_C(1) << (sh + 10)) - 1)) == 0)
                sh += 10;
        return sh;
}

/* bytes in the largest unit (names[]: bytes, K, M, G, T) that holds it exactly, after sep;
 * infinity for SIZE_INFINITY; 0 as zero when that is given */
static char *format_exact(uint64_t bytes, char buf[static SIZE_FMT_MAX], const char *const names[static 5],
                          const char *sep, const char *infinity, const char *zero) {
        if (bytes == SIZE_INFINITY || (bytes == 0 && zero)) {
                snprintf(buf, SIZE_FMT_MAX, "%s", bytes ? infinity : zero);
                return buf;
        }
        unsigned sh = exact_shift(bytes);
        snprintf(buf, SIZE_FMT_MAX, "%llu%s%s", (unsigned long long)(bytes >> sh), sep, names[sh / 10]);
        return buf;
}

static const char *const units_iec[] = { "B", "KiB", "MiB", "GiB", "TiB" };
static const char *const units_arg[] = { "B", "K", "M", "G", "T" };

char *size_format(uint64_t bytes, char buf[static SIZE_FMT_MAX]) {
        return format_exact(bytes, buf, units_iec, " ", "unlimited", NULL);
}

char *size_format_arg(uint64_t bytes, char buf[static SIZE_FMT_MAX]) {
        return format_exact(bytes, buf, units_arg, "", "unlimited", "0");
}

char *size_format_systemd(uint64_t bytes, char buf[static SIZE_FMT_MAX]) {
        return format_exact(bytes, buf, units_arg, "", "infinity", "0");
}

/* Shared body of the C library emulations. */
static unsigned long long c_strtou_max(const char *s, const char **ret_end, bool *ret_erange,
                                       unsigned long long max, bool *ret_neg) {
        const char *p = s;
        unsigned long long v = 0;
        bool neg = false, over = false, any = false;

        while (c_isspace(*p))
                p++;
        if (*p == '+' || *p == '-') {
                neg = *p == '-';
                p++;
        }
        for (; isdigit((unsigned char)*p); p++) {
                unsigned d = (unsigned)(*p - '0');
                any = true;
                if (over)
                        continue;
                if (v > (max - d) / 10) {
                        over = true;
                        v = max;
                } else
                        v = v * 10 + d;
        }
        if (ret_end)
                *ret_end = any ? p : s;
        if (ret_erange)
                *ret_erange = over;
        if (ret_neg)
                *ret_neg = neg;
        if (!any)
                return 0;
        return v;
}

unsigned long long c_strtoull(const char *s, const char **ret_end, bool *ret_erange) {
        bool neg, over;
        unsigned long long v = c_strtou_max(s, ret_end, &over, ULLONG_MAX, &neg);
        if (ret_erange)
                *ret_erange = over;
        if (over)
                return ULLONG_MAX;
        return neg ? -v : v;
}

unsigned long c_strtoul(const char *s, const char **ret_end, bool *ret_erange) {
        bool neg, over;
        unsigned long v = (unsigned long)c_strtou_max(s, ret_end, &over, ULONG_MAX, &neg);
        if (ret_erange)
                *ret_erange = over;
        if (over)
                return ULONG_MAX;
        return neg ? -v : v;
}

long c_strtol(const char *s, const char **ret_end, bool *ret_erange) {
        bool neg, over;
        /* magnitude limit: LONG_MAX, or LONG_MAX + 1 for a negative number */
        unsigned long long v = c_strtou_max(s, ret_end, &over, (unsigned long long)LONG_MAX + 1, &neg);
        if (!neg && v > (unsigned long long)LONG_MAX) {
                over = true;
                v = LONG_MAX;
        }
        if (ret_erange)
                *ret_erange = over;
        if (over)
                return neg ? LONG_MIN : LONG_MAX;
        if (neg)
                return v == (unsigned long long)LONG_MAX + 1 ? LONG_MIN : -(long)v;
        return (long)v;
}
