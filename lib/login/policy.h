/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * /etc/security/rdmalimit.conf (libconfig syntax, read by cfgparse.c): load, validate,
 * evaluate for a user.
 * Library code: no printing; findings go to a diag_list with file:line.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "diag.h"
#include "hw.h"

/* where the module, the plugin and the tool read the policy by default */
#define POLICY_PATH SYSCONFDIR "/security/rdmalimit.conf"
#define POLICY_MAX_BYTES (1024 * 1024)   /* larger policy files are refused */
/* The smallest value `auto` (or its fallback) hands out: the kernel's historic default
 * RLIMIT_MEMLOCK.  A memlock of 0 breaks every RDMA memory registration, so the policy never
 * yields 0. */
#define POLICY_MIN_BYTES (UINT64_C(64) * 1024)

enum policy_value_kind {
        PV_NONE,       /* not given */
        PV_SIZE,       /* bytes, or SIZE_INFINITY for "unlimited" */
        PV_AUTO,
};

struct policy_value {
        enum policy_value_kind kind;
        uint64_t bytes;
};

struct policy_rule {
        char *user;            /* exactly one of user and group is set */
        char *group;
        struct policy_value memlock;   /* soft; PV_SIZE or PV_AUTO */
        struct policy_value hard;      /* PV_NONE: same as soft */
        struct policy_value minimum;   /* PV_NONE or PV_SIZE */
        struct policy_value maximum;   /* PV_NONE or PV_SIZE */
        unsigned line;         /* line of the rule in the file */
};

struct policy_hardware {
        uint64_t rdma_port, xsk_queue, xsk_copy_queue, base;
        double ram_share;      /* (0, 1] */
        struct policy_value fallback;  /* PV_NONE: `auto` without hardware leaves limits alone */
        struct hw_netsel sel;  /* include/exclude interface patterns */
};

struct policy {
        char *path;
        int version;
        bool lower;
        struct policy_hardware hw;
        size_t n_rules;
        struct policy_rule *rules;
};

/*
 * Read the bytes of a policy from a descriptor the caller opened (and checked, see fsutil):
 * -EFBIG over POLICY_MAX_BYTES (whatever the descriptor is), -EISDIR, or a read error.
 */
int policy_read_fd(int fd, char **ret, size_t *ret_len);
/*
 * Parse a policy from its bytes (text is not modified).  Every problem is added to diags as
 * "path:line"; returns -EINVAL when there was any error (then *ret is untouched), -ENOMEM,
 * -EFBIG over POLICY_MAX_BYTES, or 0.
 */
int policy_load_string(const char *text, size_t len, const char *path, struct policy **ret,
                       struct diag_list *diags);
void policy_free(struct policy *p);
static inline void policy_freep(struct policy **p) {
        policy_free(*p);
}

/*
 * The names of the policy's group rules the user is a member of, as pam_limits decides an
 * @group line (ident_user_in_group: primary gid, gr_mem, then getgrouplist): one getgrnam per
 * group rule, and getgrouplist only when neither of the first two says yes.  Nothing is looked
 * up when no group rule can decide (a user rule names the user, or there is no group rule).
 * *ret is NULL-terminated (strv_free()), NULL with *ret_n 0 when nothing was looked up.
 * Negative errno on an NSS failure.
 */
struct ident;
struct id_user;
int policy_user_groups(const struct policy *p, struct ident *id, const struct id_user *u, char ***ret,
                       size_t *ret_n);

/* Does any rule matching this user need the hardware probe (an `auto` value)? */
/* Does any rule need the hardware probe (an `auto` value), for whoever it names? */
bool policy_uses_hw(const struct policy *p);
bool policy_needs_hw(const struct policy *p, const char *user, const char *const *groups,
                     size_t n_groups);

/* The `auto` arithmetic, kept so callers can show it. */
struct policy_auto {
        bool hardware_found;   /* any active RDMA port or XDP RX queue */
        bool xdp_unknown;      /* the AF_XDP part is not known (no netdev family, a build
                                * without it, a probe that failed): XDP not counted */
        bool rdma_unknown;     /* /sys/class/infiniband could not be read: no port counted */
        bool phys_unknown;     /* sysfs shows another network namespace: no interface known to
                                * be physical, only included ones counted */
        int xdp_error, rdma_error; /* why, as the summary's xdp_status and rdma_status */
        unsigned active_ports, zc_queues, copy_queues;
        uint64_t sum;          /* base + ... before clamping, saturating */
        uint64_t ram_cap;      /* ram_share x MemTotal, 0 if unknown */
        uint64_t mr_cap;       /* smallest max_mr_size, 0 if none */
        bool mr_unknown;       /* an active device's max_mr_size is not known (no ibverbs
                                * attributes: a login without a valid cache) */
        uint64_t value;        /* the result; 0 means "leave untouched" (no hardware, no fallback) */
        bool used_fallback;
};

struct policy_decision {
        bool matched;          /* false: no rule matched, leave limits alone */
        bool untouched;        /* matched, but `auto` found nothing and there is no fallback */
        const struct policy_rule *rule;
        uint64_t soft, hard;   /* bytes; SIZE_INFINITY for unlimited; hard >= soft */
        bool lower;            /* policy allows lowering existing limits */
        bool used_auto;
        struct policy_auto auto_info;
};

/*
 * Evaluate: a user rule beats group rules; among matching group rules the largest soft
 * value wins.  groups: the names of the user's groups (primary included).  hw may be NULL
 * only when policy_needs_hw() is false.  Never yields 0.
 */
int policy_evaluate(const struct policy *p, const char *user, const char *const *groups,
                    size_t n_groups, const struct hw_summary *hw, struct policy_decision *ret);

/* Compute `auto` for the given hardware (exposed for `probe`). */
/* "; AF_XDP unknown: ..." and "; RDMA unknown: ..." for what a is missing, after what buf holds
 * (appended; nothing when both parts are known). */
void policy_auto_unknown_text(const struct policy_auto *a, char *buf, size_t size);
void policy_compute_auto(const struct policy_hardware *h, const struct hw_summary *hw,
                         struct policy_auto *ret);
