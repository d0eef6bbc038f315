/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the policy loader (lib/login/policy.c, its reader lib/login/cfgparse.c).
 * policy_load_string() of the input; a refusal must come with at least one error finding;
 * an accepted policy is evaluated for a few users and group sets against a fixed hardware
 * summary (and without hardware), and the decision must keep the promises of policy.h:
 * never 0, hard >= soft, within minimum/maximum.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fuzz.h"
#include "hw.h"
#include "policy.h"
#include "size.h"

/* 2 RDMA devices (3 ports, 2 active), 2 XDP interfaces (8 zero-copy, 4 copy queues), 16 GiB */
static struct hw_port ports0[] = { { .num = 1, .state = 4, .link_layer = 2 },
                                   { .num = 2, .state = 1, .link_layer = 2 } };
static struct hw_port ports1[] = { { .num = 1, .state = 4, .link_layer = 1 } };
static struct hw_rdma_dev rdma[] = {
        { .name = "mlx5_0", .node_type = 1, .max_mr_size = UINT64_MAX, .max_mr = 1 << 24,
          .n_ports = 2, .ports = ports0 },
        { .name = "mlx5_1", .node_type = 1, .max_mr_size = UINT64_C(1) << 40, .max_mr = 1 << 24,
          .n_ports = 1, .ports = ports1 },
};
static struct hw_xdp_if xdp[] = {
        { .ifindex = 2, .name = "eth0", .xdp_features = 0x7f, .zero_copy = true, .counted = true, .rx_queues = 8 },
        { .ifindex = 3, .name = "veth0", .xdp_features = 0x3, .zero_copy = false, .counted = true, .rx_queues = 4 },
};
static const struct hw_summary hw_full = {
        .rdma_status = 0, .n_rdma = 2, .rdma = rdma,
        .xdp_status = 0, .n_xdp = 2, .xdp = xdp,
        .mem_status = 0, .mem_total = UINT64_C(16) << 30,
};
static const struct hw_summary hw_none = {
        .rdma_status = -ENODEV, .xdp_status = -EOPNOTSUPP, .mem_status = 0, .mem_total = UINT64_C(1) << 30,
};

struct who {
        const char *user;
        const char *groups[4];
        size_t n;
};
static const struct who whos[] = {
        { "alice", { "alice", "rdma_users", "spdk" }, 3 },
        { "bob", { "bob", "hpc" }, 2 },
        { "root", { "root" }, 1 },
        { "nobody", { 0 }, 0 },
};

static void check_decision(const struct policy *p, const struct policy_decision *d) {
        if (!d->matched)
                return;

        CHECK(d->rule >= p->rules && d->rule < p->rules + p->n_rules);
        if (d->untouched)
                return;
        CHECK(d->soft != 0);
        CHECK(d->hard != 0);
        CHECK(d->hard >= d->soft);
        /* the soft value lies within the rule's bounds */
        if (d->rule->minimum.kind == PV_SIZE)
                CHECK(d->soft >= d->rule->minimum.bytes);
        if (d->rule->maximum.kind == PV_SIZE)
                CHECK(d->soft <= d->rule->maximum.bytes);
        if (d->rule->memlock.kind == PV_SIZE)
                CHECK(d->soft == d->rule->memlock.bytes);
}

/* The promises of an accepted policy. */
static void check_policy(const struct policy *p) {
        int r;

        CHECK(p->version == 1);
        CHECK(p->hw.ram_share > 0.0 && p->hw.ram_share <= 1.0);
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct policy_rule *ru = &p->rules[i];
                CHECK((ru->user != NULL) != (ru->group != NULL));
                CHECK(ru->memlock.kind == PV_SIZE || ru->memlock.kind == PV_AUTO);
        }
        for (size_t w = 0; w < sizeof whos / sizeof whos[0]; w++) {
                struct policy_decision d;
                const char *const *g = whos[w].n ? whos[w].groups : NULL;
                bool needs = policy_needs_hw(p, whos[w].user, g, whos[w].n);

                r = policy_evaluate(p, whos[w].user, g, whos[w].n, &hw_full, &d);
                CHECK(r == 0);
                check_decision(p, &d);
                r = policy_evaluate(p, whos[w].user, g, whos[w].n, &hw_none, &d);
                CHECK(r == 0);
                check_decision(p, &d);
                r = policy_evaluate(p, whos[w].user, g, whos[w].n, NULL, &d);
                if (needs)
                        CHECK(r == -EINVAL);
                else {
                        CHECK(r == 0);
                        check_decision(p, &d);
                }
        }
        struct policy_auto a;
        policy_compute_auto(&p->hw, &hw_full, &a);
        CHECK(a.hardware_found && !a.used_fallback && a.value >= POLICY_MIN_BYTES);
        CHECK(a.active_ports == 2 && a.zc_queues == 8 && a.copy_queues == 4);
        policy_compute_auto(&p->hw, &hw_none, &a);
        CHECK(!a.hardware_found);
        if (p->hw.fallback.kind == PV_SIZE)
                CHECK(a.used_fallback && a.value >= POLICY_MIN_BYTES);
        else
                CHECK(a.value == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct diag_list diags = {};
        struct policy *p = NULL;
        int r;

        if (size > POLICY_MAX_BYTES + 16)
                return 0;
        r = policy_load_string((const char *)data, size, "etc/security/rdmalimit.conf", &p, &diags);
        for (size_t i = 0; i < diags.n; i++)
                CHECK(diags.v[i].message && diags.v[i].severity <= DIAG_INFO);
        if (r < 0) {
                CHECK(p == NULL);
                CHECK(r == -EINVAL || r == -ENOMEM || r == -EFBIG);
                if (r == -EINVAL)
                        CHECK(diag_count(&diags, DIAG_ERROR) > 0);
                diag_list_clear(&diags);
                return 0;
        }
        CHECK(p);
        CHECK(diag_count(&diags, DIAG_ERROR) == 0);
        check_policy(p);
        policy_free(p);
        diag_list_clear(&diags);
        return 0;
}
