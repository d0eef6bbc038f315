/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* The drop-in files rdmalimits owns in limits.d: validation, parsing, rendering. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define DROPIN_MARKER "# rdmalimits: managed file; change it with 'rdmalimits apply' and 'rdmalimits remove'."
#define DROPIN_HEADER2 "# Memlock limits for RDMA and AF_XDP users, in KiB as pam_limits reads them."
/* "zz-" sorts after the files distributions and vendors ship in limits.d (they start with a
 * digit or a lower-case letter: 10-*.conf, oracle-database-preinstall-19c.conf, rdma.conf),
 * and pam_limits applies the last entry of a rank: the tool's entries win over theirs. */
#define DROPIN_DEFAULT_NAME "zz-rdmalimits.conf"
/* The default name before, whose entries apply moves to DROPIN_DEFAULT_NAME */
#define DROPIN_LEGACY_NAME "90-rdmalimits.conf"
/* The drop-in of apply --unit in UNIT.d: systemd applies drop-ins in name order and the last
 * LimitMEMLOCK= wins, so "zz-" sorts after "override.conf" (what `systemctl edit` writes) and
 * the numbered files vendors ship. */
#define DROPIN_UNIT_NAME "zz-rdmalimits.conf"
/* Its name before (sorted before override.conf): apply and remove --unit take it over */
#define DROPIN_UNIT_LEGACY_NAME "90-rdmalimits.conf"
#define DROPIN_DOMAIN_MAX 256

struct dropin_entry {
        char *domain;
        unsigned type;          /* LC_SOFT or LC_HARD */
        uint64_t bytes;         /* a multiple of 1024, or UINT64_MAX for unlimited */
};

struct dropin {
        struct dropin_entry *v;
        size_t n;
};

/*
 * Validate a domain for a memlock entry: the forms pam_limits honours for memlock (user,
 * @group, @:gid, @min:max, @min:, uid ranges min:max, :uid, min:, and *).  On error
 * returns -EINVAL and points *ret_reason at a static explanation.
 */
int dropin_check_domain(const char *domain, const char **ret_reason);
/* A plain file name ending in .conf, not starting with a dot, no '/'. */
int dropin_check_name(const char *name, const char **ret_reason);
/* A size pam_limits can store: a whole number of KiB, or unlimited. */
int dropin_check_bytes(uint64_t bytes, const char **ret_reason);

/* Does the text start with the marker line? */
bool dropin_has_marker(const char *text, size_t len);

/*
 * Parse a managed file.  Lines other than comments and "domain soft|hard memlock KiB"
 * entries are errors (with display:line in diags), -EBADMSG.  The marker is not checked
 * here (see dropin_has_marker).
 */
int dropin_parse(const char *text, size_t len, const char *display, struct dropin *ret,
                 struct diag_list *diags);
/* Render the file: header, then one line per entry.  Returns a malloc()ed string. */
char *dropin_render(const struct dropin *d);
/* Set DOMAIN's soft and/or hard entry: replaced where it stands, or appended. */
/* Does d hold a line of domain and type (LC_SOFT or LC_HARD)? */
bool dropin_has(const struct dropin *d, const char *domain, unsigned type);
int dropin_set(struct dropin *d, const char *domain, unsigned type, uint64_t bytes);
/* Remove every entry of DOMAIN; returns how many were removed. */
size_t dropin_remove(struct dropin *d, const char *domain);
void dropin_clear(struct dropin *d);
