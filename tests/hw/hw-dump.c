/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hw-dump [--repeat N] [--include PATTERN]... [--exclude PATTERN]... [rdma|xdp|mem|verbs|all|counts]...
 *
 * Prints what hw_probe() found (and hw_probe_verbs() with `verbs`), one fact a line, for the
 * hw tests to grep:
 *   rdma_status=0 | rdma_status=-ENOSYS ...   (negative errno by name)
 *   rdma_devices=N
 *   rdma NAME node=CA max_mr_size=BYTES max_mr=N ports=N error=0
 *   rdma NAME port N STATE LINK_LAYER error=0
 *   xdp_status=0 | xdp_status=-EOPNOTSUPP ...
 *   xdp_interfaces=N
 *   xdp IFINDEX NAME features=0xHEX zc=0|1 rxq=N
 *   xdp_sel NAME physical=0|1 counted=0|1
 *   verbs_status=0 | verbs_status=-ENODATA ...
 *   mem_status=0
 *   mem_total=BYTES
 *   active_ports=N zc_queues=N copy_queues=N min_max_mr_size=BYTES   (one per line)
 * Without arguments everything is probed; `counts` adds HW_COUNTS (what a login reads).  --repeat probes N times (leak checks) and prints
 * the last result.  Exit status: 0, 1 when hw_probe() fails, 2 on a usage error.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hw.h"
#include "hw-names.h"
#include "macro.h"
#include "size.h"

static const char *err_name(int r, char buf[static 16]) {
        const char *name;

        if (r == 0)
                return "0";
        name = r < 0 ? strerrorname_np(-r) : NULL;
        if (name) {
                snprintf(buf, 16, "-%s", name);
                return buf;
        }
        snprintf(buf, 16, "%d", r);
        return buf;
}

static void dump(const struct hw_summary *s) {
        char b[16];

        printf("rdma_status=%s\n", err_name(s->rdma_status, b));
        printf("rdma_devices=%zu\n", s->n_rdma);
        for (size_t i = 0; i < s->n_rdma; i++) {
                const struct hw_rdma_dev *d = &s->rdma[i];

                printf("rdma %s node=%s max_mr_size=%" PRIu64 " max_mr=%d ports=%zu error=%s\n",
                       d->name, hw_node_type_name(d->node_type), d->max_mr_size, d->max_mr,
                       d->n_ports, err_name(d->query_error, b));
                for (size_t p = 0; p < d->n_ports; p++) {
                        const struct hw_port *port = &d->ports[p];

                        printf("rdma %s port %u %s %s error=%s\n", d->name, port->num,
                               hw_port_state_name(port->state),
                               hw_link_layer_name(port->link_layer),
                               err_name(port->query_error, b));
                }
        }

        printf("xdp_status=%s\n", err_name(s->xdp_status, b));
        printf("xdp_interfaces=%zu\n", s->n_xdp);
        for (size_t i = 0; i < s->n_xdp; i++) {
                const struct hw_xdp_if *x = &s->xdp[i];

                printf("xdp %u %s features=0x%" PRIx64 " zc=%d rxq=%u\n", x->ifindex, x->name,
                       x->xdp_features, x->zero_copy ? 1 : 0, x->rx_queues);
        }
        for (size_t i = 0; i < s->n_xdp; i++)
                printf("xdp_sel %s physical=%d counted=%d\n", s->xdp[i].name, s->xdp[i].physical, s->xdp[i].counted);
        printf("verbs_status=%s\n", err_name(s->verbs_status, b));

        printf("mem_status=%s\n", err_name(s->mem_status, b));
        printf("mem_total=%" PRIu64 "\n", s->mem_total);

        printf("active_ports=%u\n", hw_active_ports(s));
        printf("zc_queues=%u\n", hw_zc_queues(s));
        printf("copy_queues=%u\n", hw_copy_queues(s));
        bool unknown;
        uint64_t mr = hw_min_max_mr_size(s, &unknown);
        printf("min_max_mr_size=%" PRIu64 "\n", mr);
        printf("max_mr_size_unknown=%d\n", unknown);
}

int main(int argc, char *argv[]) {
        unsigned what = 0, repeat = 1;
        struct hw_summary *s = NULL;
        char *inc[17] = {}, *exc[17] = {};
        size_t n_inc = 0, n_exc = 0;
        struct hw_netsel sel = { inc, exc };
        bool verbs = false;
        int r;

        for (int i = 1; i < argc; i++) {
                if (streq(argv[i], "--repeat") && i + 1 < argc) {
                        if (parse_u32(argv[++i], &repeat) < 0 || repeat == 0) {
                                fprintf(stderr, "hw-dump: bad --repeat '%s'\n", argv[i]);
                                return 2;
                        }
                } else if (streq(argv[i], "--include") && i + 1 < argc && n_inc < 16)
                        inc[n_inc++] = argv[++i];
                else if (streq(argv[i], "--exclude") && i + 1 < argc && n_exc < 16)
                        exc[n_exc++] = argv[++i];
                else if (streq(argv[i], "verbs"))
                        verbs = true;
                else if (streq(argv[i], "rdma"))
                        what |= HW_RDMA;
                else if (streq(argv[i], "xdp"))
                        what |= HW_XDP;
                else if (streq(argv[i], "mem"))
                        what |= HW_MEM;
                else if (streq(argv[i], "all"))
                        what |= HW_ALL;
                else if (streq(argv[i], "counts"))
                        what |= HW_COUNTS;
                else {
                        fprintf(stderr, "usage: hw-dump [--repeat N] [--include P]... [--exclude P]... "
                                "[rdma|xdp|mem|verbs|all|counts]...\n");
                        return 2;
                }
        }
        if ((what & HW_ALL) == 0)
                what |= HW_ALL;

        for (unsigned i = 0; i < repeat; i++) {
                hw_summary_free(s);
                s = NULL;
                r = hw_probe(what, &sel, &s);
                if (r >= 0 && verbs)
                        r = hw_probe_verbs(s);
                if (r < 0) {
                        fprintf(stderr, "hw-dump: hw_probe: %s\n", strerror(-r));
                        return 1;
                }
        }
        dump(s);
        hw_summary_free(s);
        if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "hw-dump: write error\n");
                return 1;
        }
        return 0;
}
