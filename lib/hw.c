/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "hw.h"

/* hw_probe() is not implemented yet. */
int hw_probe(unsigned what, struct hw_summary **ret) {
        return -ENOSYS;
}

void hw_summary_free(struct hw_summary *s) {
        if (!s)
                return;
        for (size_t i = 0; i < s->n_rdma; i++)
                free(s->rdma[i].ports);
        free(s->rdma);
        free(s->xdp);
        free(s);
}

unsigned hw_active_ports(const struct hw_summary *s) {
        unsigned n = 0;
        if (!s || s->rdma_status < 0)
                return 0;
        for (size_t i = 0; i < s->n_rdma; i++)
                for (size_t p = 0; p < s->rdma[i].n_ports; p++)
                        if (s->rdma[i].ports[p].query_error == 0 && s->rdma[i].ports[p].state == 4)
                                n++;
        return n;
}

unsigned hw_zc_queues(const struct hw_summary *s) {
        unsigned n = 0;
        if (!s || s->xdp_status < 0)
                return 0;
        for (size_t i = 0; i < s->n_xdp; i++)
                if (s->xdp[i].zero_copy)
                        n += s->xdp[i].rx_queues;
        return n;
}

unsigned hw_copy_queues(const struct hw_summary *s) {
        unsigned n = 0;
        if (!s || s->xdp_status < 0)
                return 0;
        for (size_t i = 0; i < s->n_xdp; i++)
                if (!s->xdp[i].zero_copy && s->xdp[i].xdp_features)
                        n += s->xdp[i].rx_queues;
        return n;
}

uint64_t hw_min_max_mr_size(const struct hw_summary *s) {
        uint64_t m = 0;
        if (!s || s->rdma_status < 0)
                return 0;
        for (size_t i = 0; i < s->n_rdma; i++) {
                const struct hw_rdma_dev *d = &s->rdma[i];
                bool active = false;
                if (d->query_error || d->max_mr_size == 0)
                        continue;
                for (size_t p = 0; p < d->n_ports; p++)
                        if (d->ports[p].query_error == 0 && d->ports[p].state == 4)
                                active = true;
                if (active && (m == 0 || d->max_mr_size < m))
                        m = d->max_mr_size;
        }
        return m;
}

const char *hw_port_state_name(int state) {
        static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };
        if (state >= 0 && (size_t)state < sizeof(names) / sizeof(names[0]))
                return names[state];
        return "UNKNOWN";
}

const char *hw_link_layer_name(int ll) {
        switch (ll) {
        case 1:
                return "InfiniBand";
        case 2:
                return "Ethernet";
        default:
                return "unspecified";
        }
}

const char *hw_node_type_name(int nt) {
        switch (nt) {
        case 1:
                return "CA";
        case 2:
                return "switch";
        case 3:
                return "router";
        case 4:
                return "RNIC";
        case 5:
                return "usNIC";
        case 6:
                return "usNIC_UDP";
        case 7:
                return "unspecified";
        default:
                return "unknown";
        }
}
