/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fsutil.h"
#include "hwcache.h"

static char dir[] = "/tmp/test-hwcache-XXXXXX";
static char path[256];

static int setup(void **state) {
        if (!mkdtemp(dir))
                return -1;
        snprintf(path, sizeof path, "%s/sub/hw.cache", dir);
        return 0;
}

static int teardown(void **state) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        return system(cmd) == 0 ? 0 : -1;
}

static struct hw_summary *sample(void) {
        struct hw_summary *s = calloc(1, sizeof(*s));
        s->rdma_status = 0;
        s->n_rdma = 2;
        s->rdma = calloc(2, sizeof(*s->rdma));
        snprintf(s->rdma[0].name, sizeof s->rdma[0].name, "mlx5_0");
        s->rdma[0].node_type = 1;
        s->rdma[0].max_mr_size = UINT64_C(1) << 40;
        s->rdma[0].max_mr = 16777216;
        s->rdma[0].n_ports = 2;
        s->rdma[0].ports = calloc(2, sizeof(struct hw_port));
        s->rdma[0].ports[0] = (struct hw_port){ .num = 1, .state = 4, .link_layer = 1 };
        s->rdma[0].ports[1] = (struct hw_port){ .num = 2, .state = 1, .link_layer = 1, .query_error = -EIO };
        snprintf(s->rdma[1].name, sizeof s->rdma[1].name, "broken");
        s->rdma[1].query_error = -EIO;
        s->xdp_status = 0;
        s->n_xdp = 1;
        s->xdp = calloc(1, sizeof(*s->xdp));
        /* an interface that exists (the cache checks the RX queues of those it counts) */
        s->xdp[0] = (struct hw_xdp_if){ .ifindex = 1, .xdp_features = 0x2b, .zero_copy = true,
                                        .rx_queues = hw_count_rx_queues("lo", 1) };
        snprintf(s->xdp[0].name, sizeof s->xdp[0].name, "lo");
        s->mem_status = 0;
        s->mem_total = UINT64_C(25275953152);
        return s;
}

static void test_roundtrip(void **state) {
        struct hw_summary *s = sample(), *b = NULL;
        assert_int_equal(hw_cache_save(s, path), 0);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        if (geteuid() != 0) {
                /* a cache must be root-owned: as a normal user it is refused */
                assert_int_equal(hw_cache_load(path, &b), FS_ERR_OWNER);
                hw_summary_free(s);
                return;
        }
        assert_int_equal(hw_cache_load(path, &b), 0);
        assert_int_equal(b->rdma_status, 0);
        assert_int_equal(b->n_rdma, 2);
        assert_string_equal(b->rdma[0].name, "mlx5_0");
        assert_true(b->rdma[0].max_mr_size == UINT64_C(1) << 40);
        assert_int_equal(b->rdma[0].n_ports, 2);
        assert_int_equal(b->rdma[0].ports[0].state, 4);
        assert_int_equal(b->rdma[0].ports[1].query_error, -EIO);
        assert_int_equal(b->rdma[1].query_error, -EIO);
        assert_int_equal(b->n_xdp, 1);
        assert_string_equal(b->xdp[0].name, "lo");
        assert_true(b->xdp[0].zero_copy);
        assert_int_equal(b->xdp[0].rx_queues, s->xdp[0].rx_queues);
        assert_true(b->mem_total == s->mem_total);
        assert_int_equal(hw_active_ports(b), hw_active_ports(s));
        assert_int_equal(hw_zc_queues(b), s->xdp[0].rx_queues);
        hw_summary_free(b);
        /* saved with another RX queue count than sysfs shows now: stale */
        s->xdp[0].rx_queues++;
        assert_int_equal(hw_cache_save(s, path), 0);
        assert_int_equal(hw_cache_load(path, &b), -ESTALE);
        hw_summary_free(s);
}

static void write_text(const char *text, mode_t mode) {
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        chmod(path, mode);
}

static void test_stale_and_bad(void **state) {
        struct hw_summary *b = NULL;
        bool cached = true;
        if (geteuid() != 0)
                skip();
        write_text("# rdmalimit hardware cache v2\nfingerprint boot=other;rdma=;net=\nend\n", 0600);
        assert_int_equal(hw_cache_load(path, &b), -ESTALE);
        write_text("garbage\n", 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG);
        char *fp = NULL;
        assert_int_equal(hw_fingerprint(&fp), 0);
        char text[4096];
        snprintf(text, sizeof text, "# rdmalimit hardware cache v2\nfingerprint %s\nport 1 4 1 0\nend\n", fp);
        write_text(text, 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG); /* a port without a device */
        snprintf(text, sizeof text, "# rdmalimit hardware cache v2\nfingerprint %s\nrdma x 1 1 1 0 1\nport 1 4 1 0\nport 2 4 1 0\nend\n", fp);
        write_text(text, 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG); /* more ports than declared */
        snprintf(text, sizeof text, "# rdmalimit hardware cache v2\nfingerprint %s\nrdma_status 0\n", fp);
        write_text(text, 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG); /* truncated */
        snprintf(text, sizeof text, "# rdmalimit hardware cache v2\nfingerprint %s\nrdma_status 0\nxdp_status 0\nmem 0 1\nend\n", fp);
        write_text(text, 0666);
        assert_int_equal(hw_cache_load(path, &b), FS_ERR_MODE);
        /* hw_probe_cached falls back to a live probe */
        assert_int_equal(hw_probe_cached(path, &b, &cached), 0);
        assert_false(cached);
        hw_summary_free(b);
        chmod(path, 0600);
        assert_int_equal(hw_probe_cached(path, &b, &cached), 0);
        assert_true(cached);
        assert_true(b->mem_total == 1);
        hw_summary_free(b);

        /* the interfaces a summary counts are checked for their RX queues: lo has one */
        unsigned lo_rx = hw_count_rx_queues("lo", 1);
        if (lo_rx > 0) {
                snprintf(text, sizeof text, "# rdmalimit hardware cache v2\nfingerprint %s\nrdma_status 0\nxdp_status 0\n"
                         "xdp 1 lo 1 %u\nmem 0 1\nend\n", fp, lo_rx);
                write_text(text, 0600);
                assert_int_equal(hw_cache_load(path, &b), 0);
                assert_int_equal(b->n_xdp, 1);
                hw_summary_free(b);
                snprintf(text, sizeof text, "# rdmalimit hardware cache v2\nfingerprint %s\nrdma_status 0\nxdp_status 0\n"
                         "xdp 1 lo 1 %u\nmem 0 1\nend\n", fp, lo_rx + 1);
                write_text(text, 0600);
                assert_int_equal(hw_cache_load(path, &b), -ESTALE);
        }
        /* an interface name that is a path, and a cache of the previous format */
        snprintf(text, sizeof text, "# rdmalimit hardware cache v2\nfingerprint %s\nrdma_status 0\nxdp_status 0\n"
                 "xdp 1 ../x 1 1\nmem 0 1\nend\n", fp);
        write_text(text, 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG);
        snprintf(text, sizeof text, "# rdmalimit hardware cache v1\nfingerprint %s\nrdma_status 0\nxdp_status 0\n"
                 "mem 0 1\nend\n", fp);
        write_text(text, 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG);
        /* interfaces are named with their sysfs node: lo@INODE */
        assert_non_null(strstr(fp, ";net="));
        assert_non_null(strstr(fp, "lo@"));
        free(fp);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_roundtrip),
                cmocka_unit_test(test_stale_and_bad),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
