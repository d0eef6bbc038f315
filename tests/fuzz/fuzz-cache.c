/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the hardware cache reader (lib/login/hwcache.c hw_cache_parse(), what a login
 * parses).  Whatever the input, the reader answers 0 or one of its documented errors; what it
 * accepts stays within the bounds of hw.h (so a hostile cache costs a login little memory),
 * holds only names that are no paths, and reads back the same after being written again.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hwcache.h"
#include "hwcache-write.h"
#include "macro.h"

static void check_bounds(const struct hw_summary *s) {
        size_t ports = 0;

        CHECK(s->n_rdma <= HW_MAX_RDMA_DEVICES);
        CHECK(s->n_xdp <= HW_MAX_INTERFACES);
        for (size_t i = 0; i < s->n_rdma; i++) {
                CHECK(s->rdma[i].n_ports <= HW_MAX_PORTS);
                CHECK(s->rdma[i].name[0] && !strchr(s->rdma[i].name, '/'));
                ports += s->rdma[i].n_ports;
                for (size_t k = 0; k < s->rdma[i].n_ports; k++)
                        CHECK(s->rdma[i].ports[k].num >= 1 && s->rdma[i].ports[k].num <= HW_MAX_PORTS);
        }
        CHECK(ports <= HW_MAX_PORTS_TOTAL);
        for (size_t i = 0; i < s->n_xdp; i++) {
                CHECK(s->xdp[i].counted);
                CHECK(s->xdp[i].name[0] && !strchr(s->xdp[i].name, '/'));
        }
}

static void check_same(const struct hw_summary *a, const struct hw_summary *b) {
        CHECK(a->rdma_status == b->rdma_status && a->verbs_status == b->verbs_status);
        CHECK(a->xdp_status == b->xdp_status && a->mem_status == b->mem_status && a->mem_total == b->mem_total);
        CHECK(a->n_rdma == b->n_rdma && a->n_xdp == b->n_xdp);
        for (size_t i = 0; i < a->n_rdma; i++) {
                const struct hw_rdma_dev *x = &a->rdma[i], *y = &b->rdma[i];
                CHECK(strcmp(x->name, y->name) == 0 && x->node_type == y->node_type &&
                      x->max_mr_size == y->max_mr_size && x->max_mr == y->max_mr &&
                      x->query_error == y->query_error && x->verbs_error == y->verbs_error && x->n_ports == y->n_ports);
                for (size_t k = 0; k < x->n_ports; k++)
                        CHECK(x->ports[k].num == y->ports[k].num && x->ports[k].state == y->ports[k].state &&
                              x->ports[k].link_layer == y->ports[k].link_layer &&
                              x->ports[k].query_error == y->ports[k].query_error);
        }
        for (size_t i = 0; i < a->n_xdp; i++)
                CHECK(a->xdp[i].ifindex == b->xdp[i].ifindex && strcmp(a->xdp[i].name, b->xdp[i].name) == 0 &&
                      a->xdp[i].xdp_features == b->xdp[i].xdp_features && a->xdp[i].rx_queues == b->xdp[i].rx_queues &&
                      a->xdp[i].physical == b->xdp[i].physical);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct hw_summary *s = NULL, *t = NULL;
        char *fp = NULL, *fp2 = NULL, *text = NULL;
        size_t len = 0;
        int r;

        r = hw_cache_parse((const char *)data, size, &s, &fp);
        CHECK(r == 0 || r == -EBADMSG || r == -E2BIG || r == -EFBIG || r == -ENOMEM);
        if (r < 0)
                return 0;
        CHECK(s && fp);
        check_bounds(s);
        /* written again (with this machine's fingerprint) it reads back the same */
        r = hw_cache_format(s, NULL, &text, &len);
        CHECK(r == 0 || r == -ENOMEM || r == -EFBIG);
        if (r == 0) {
                CHECK(hw_cache_parse(text, len, &t, &fp2) == 0);
                check_same(s, t);
        }
        hw_summary_free(s);
        hw_summary_free(t);
        free(fp);
        free(fp2);
        free(text);
        return 0;
}
