/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The context's loaders (the limits tree pam_limits reads, users and groups) and the checks of
 * its arguments (a size, with the meaning of a near miss; a soft limit not above the hard one).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dropin.h"
#include "escape.h"
#include "fsutil.h"
#include "hwcache.h"
#include "ident-files.h"
#include "ident.h"
#include "size.h"
#include "tool.h"

int ctx_load_tree(const struct ctx *c, const char *pam_limits_args, struct lc_tree **ret) {
        struct lc_args a = {};
        if (pam_limits_args && lc_args_parse(pam_limits_args, &a) < 0)
                log_warning(c, "pam_limits arguments '%s': a conf= too long, ignored", pam_limits_args);
        if (c->vendordir && streq(c->vendordir, "none"))
                a.vendor = LC_VENDOR_NONE;
        else if (c->vendordir) {
                a.vendor = LC_VENDOR_DIR;
                snprintf(a.vendordir, sizeof a.vendordir, "%s", c->vendordir);
        }
        int r = lc_tree_load_args(c->root, c->flavour, &a, ret);
        if (r < 0)
                log_error("cannot read the limits configuration: %s", errno_text(r));
        return r;
}

int ctx_ident(const struct ctx *c, struct ident **ret) {
        int r = ident_new(c->root, ret);
        if (r < 0)
                log_error("out of memory");
        return r;
}

/*
 * A size the parser refuses but whose meaning is plain: "512MB" (a B after the unit),
 * "1.5G" or "1,5G" (a fraction: in the next smaller unit), "-1" (a sign).  The suggestion,
 * in the form size_parse() accepts, into buf; false when there is none.
 */
static bool size_near_miss(const char *arg, char *buf, size_t size) {
        static const char units[] = "KMGT";
        char fmt[SIZE_FMT_MAX];
        uint64_t v;

        if (arg[0] == '-') {
                snprintf(buf, size, "unlimited");    /* a negative size: "-1" means no limit in limits.conf */
                return true;
        }
        size_t n = strlen(arg), cut = 0;
        /* "512MB": without the B; "2.5GiB": the fraction is the near miss, read as "2.5G" */
        if (n >= 4 && n < 64 && (arg[n - 1] | 0x20) == 'b' && (arg[n - 2] | 0x20) == 'i' &&
            strchr(units, arg[n - 3] & ~0x20) && strpbrk(arg, ".,"))
                cut = 2;
        else if (n >= 3 && n < 64 && (arg[n - 1] | 0x20) == 'b' && strchr(units, arg[n - 2] & ~0x20))
                cut = 1;
        if (cut) {
                char s[64];
                memcpy(s, arg, n - cut);
                s[n - cut] = '\0';
                if (size_parse(s, &v) == 0) {
                        snprintf(buf, size, "%s", size_format_arg(v, fmt));
                        return true;
                }
                return strpbrk(s, ".,") && size_near_miss(s, buf, size);
        }
        /* WHOLE[.,]FRACTION UNIT */
        const char *sep = strpbrk(arg, ".,");
        if (!sep || n < 3 || !strchr(units, arg[n - 1] & ~0x20) || sep == arg)
                return false;
        uint64_t whole, frac = 0, scale = 1, unit = 1024;
        char w[32];
        if ((size_t)(sep - arg) >= sizeof w)
                return false;
        memcpy(w, arg, (size_t)(sep - arg));
        w[sep - arg] = '\0';
        if (parse_u64(w, &whole) < 0)
                return false;
        for (const char *p = sep + 1; p < arg + n - 1; p++) {
                if (*p < '0' || *p > '9' || scale > UINT64_C(100000000))
                        return false;
                frac = frac * 10 + (uint64_t)(*p - '0');
                scale *= 10;
        }
        for (const char *u = units; *u != (arg[n - 1] & ~0x20); u++)
                unit *= 1024;
        if (whole > SIZE_INFINITY / unit / 2)
                return false;
        /* to whole KiB, rounded down */
        v = whole * unit + (frac * (unit / 1024)) / scale * 1024;
        if (v == 0)
                return false;
        snprintf(buf, size, "%s", size_format_arg(v, fmt));
        return true;
}

int ctx_parse_size(const char *what, const char *arg, uint64_t *ret) {
        int r = size_parse(arg, ret);
        if (r < 0) {
                char hint[SIZE_FMT_MAX + 16];
                if (r != -EDOM && size_near_miss(arg, hint, sizeof hint)) {
                        if (arg[0] == '-')
                                log_error("%s '%s': a size cannot be negative (for no limit write unlimited)", what, arg);
                        else
                                log_error("%s '%s': %s; did you mean %s?", what, arg, size_hint(r), hint);
                } else
                        log_error("%s '%s': %s", what, arg, size_hint(r));
                return -EINVAL;
        }
        return 0;
}

int ctx_parse_limits(const struct ctx *c, const char *size, uint64_t *soft, uint64_t *hard,
                     bool *has_soft, bool *has_hard) {
        if (size) {
                if (ctx_parse_size("size", size, soft) < 0)
                        return CMD_USAGE;
                *hard = *soft;
                *has_soft = *has_hard = true;
        }
        if ((c->soft && ctx_parse_size("--soft", c->soft, soft) < 0) ||
            (c->hard && ctx_parse_size("--hard", c->hard, hard) < 0))
                return CMD_USAGE;
        *has_soft |= c->soft != NULL;
        *has_hard |= c->hard != NULL;
        return 0;
}

int ctx_check_order(uint64_t soft, uint64_t hard) {
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
        if (soft <= hard)
                return 0;
        log_error("the soft limit %s is above the hard limit %s", size_format(soft, a), size_format(hard, b));
        return CMD_USAGE;
}
