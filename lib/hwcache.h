/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The cache in /run, written by `rdmalimits probe --save` and read by pam_rdmalimit so that a
 * login neither loads libibverbs nor asks netlink (the hardware section) nor loads libconfig
 * (the policy section: the policy compiled, with the bytes it was compiled from).
 *
 * The hardware section is valid for one boot and one set of RDMA devices (with their port
 * states), network interfaces and the RX queue counts of the interfaces it counts; the policy
 * section for exactly the policy bytes and path it records, compiled by this build.  Anything
 * else makes a section stale and the caller probes or parses itself.
 *
 *   # rdmalimit cache v3
 *   section hardware LENGTH
 *   fingerprint ... / rdma_status / rdma / port / xdp_status / xdp / mem / end
 *   section policy LENGTH
 *   build rdmalimit VERSION
 *   source PATH_LENGTH TEXT_LENGTH
 *   PATH TEXT
 *   version / lower / hardware / rule / diag / end      (lib/policysnap.c)
 */
#include "diag.h"
#include "hw.h"

struct policy;

#define HW_CACHE_PATH "/run/rdmalimit/hw.cache"
#define HW_CACHE_MAX (4 * 1024 * 1024)

/* The current fingerprint: boot id, RDMA devices (sysfs node) with their port states, network
 * interfaces (name and sysfs node).  The RX queue counts of the interfaces a summary counts
 * are checked by hw_cache_hardware(). */
int hw_fingerprint(char **ret);

/* A policy to compile into the cache: the path the module is given (conf=), the bytes the
 * policy was loaded from, the loaded policy and the findings of its load. */
struct hw_cache_policy {
        const char *path;
        const char *text;
        size_t len;
        const struct policy *policy;
        const struct diag_list *diags;
};

/* Write s with the current fingerprint, and the policy when not NULL, atomically, mode 0600,
 * creating the directory.  -EFBIG over HW_CACHE_MAX. */
int hw_cache_save(const struct hw_summary *s, const struct hw_cache_policy *policy, const char *path);

/*
 * Read a cache into memory: it must be a root-owned regular file not writable by others.
 * -ENOENT when absent, -EBADMSG when it is not a well-formed v3 cache, or an
 * fs_open_config() error.  The sections are checked when asked for.
 */
struct hw_cache;
int hw_cache_read(const char *path, struct hw_cache **ret);
void hw_cache_free(struct hw_cache *c);

/* The hardware summary: -ESTALE when the fingerprint or an RX queue count differs,
 * -EBADMSG when malformed. */
int hw_cache_hardware(const struct hw_cache *c, struct hw_summary **ret);

/* The policy compiled from exactly text[len] at path, with the findings of its load added to
 * diags: -ENOENT when the cache holds no policy, -ESTALE when it holds another path, other
 * bytes or another build's, -EBADMSG when malformed. */
int hw_cache_policy(const struct hw_cache *c, const char *path, const char *text, size_t len, struct policy **ret,
                    struct diag_list *diags);

/*
 * What a login with conf=policy_name, whose policy file holds text[len], does with the cache
 * c (hw_cache_read() errors are the caller's): 0 takes the compiled policy, -ENODATA a cache
 * without a policy, -ESTALE compiled from other bytes, another path or another build,
 * -EBADMSG malformed, -ENOMEM.
 */
int hw_cache_policy_state(const struct hw_cache *c, const char *policy_name, const char *text, size_t len);

/* The summary of a cache already read (c may be NULL) if valid, else a live probe.
 * *ret_cached tells which. */
int hw_cache_or_probe(const struct hw_cache *c, struct hw_summary **ret, bool *ret_cached);
