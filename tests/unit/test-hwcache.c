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
#include "policy.h"

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

/* hw_cache_read() and hw_cache_hardware(), as a login reads the hardware */
static int hw_cache_load(const char *file, struct hw_summary **ret) {
        struct hw_cache *c = NULL;
        int r = hw_cache_read(file, &c);

        if (r < 0)
                return r;
        r = hw_cache_hardware(c, ret);
        hw_cache_free(c);
        return r;
}

/* The cache file's hardware if valid, else a live probe, as a login does */
static int hw_probe_cached(const char *file, struct hw_summary **ret, bool *ret_cached) {
        struct hw_cache *c = NULL;
        int r = hw_cache_read(file, &c);

        if (r == -ENOMEM)
                return r;
        r = hw_cache_or_probe(c, ret, ret_cached);
        hw_cache_free(c);
        return r;
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
        assert_int_equal(hw_cache_save(s, NULL, path), 0);
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
        assert_int_equal(hw_cache_save(s, NULL, path), 0);
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

/* a v3 cache whose hardware section is body */
static void write_hw(const char *body, mode_t mode) {
        char text[8192];
        snprintf(text, sizeof text, "# rdmalimit cache v3\nsection hardware %zu\n%s", strlen(body), body);
        write_text(text, mode);
}

static void test_stale_and_bad(void **state) {
        struct hw_summary *b = NULL;
        bool cached = true;
        if (geteuid() != 0)
                skip();
        write_hw("fingerprint boot=other;rdma=;net=\nend\n", 0600);
        assert_int_equal(hw_cache_load(path, &b), -ESTALE);
        write_text("garbage\n", 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG);
        char *fp = NULL;
        assert_int_equal(hw_fingerprint(&fp), 0);
        char text[4096];
        snprintf(text, sizeof text, "fingerprint %s\nport 1 4 1 0\nend\n", fp);
        write_hw(text, 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG); /* a port without a device */
        snprintf(text, sizeof text, "fingerprint %s\nrdma x 1 1 1 0 1\nport 1 4 1 0\nport 2 4 1 0\nend\n", fp);
        write_hw(text, 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG); /* more ports than declared */
        snprintf(text, sizeof text, "fingerprint %s\nrdma_status 0\n", fp);
        write_hw(text, 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG); /* truncated */
        snprintf(text, sizeof text, "fingerprint %s\nrdma_status 0\nxdp_status 0\nmem 0 1\nend\n", fp);
        write_hw(text, 0666);
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
                snprintf(text, sizeof text, "fingerprint %s\nrdma_status 0\nxdp_status 0\n"
                         "xdp 1 lo 1 %u\nmem 0 1\nend\n", fp, lo_rx);
                write_hw(text, 0600);
                assert_int_equal(hw_cache_load(path, &b), 0);
                assert_int_equal(b->n_xdp, 1);
                hw_summary_free(b);
                snprintf(text, sizeof text, "fingerprint %s\nrdma_status 0\nxdp_status 0\n"
                         "xdp 1 lo 1 %u\nmem 0 1\nend\n", fp, lo_rx + 1);
                write_hw(text, 0600);
                assert_int_equal(hw_cache_load(path, &b), -ESTALE);
        }
        /* an interface name that is a path, and a cache of the previous format */
        snprintf(text, sizeof text, "fingerprint %s\nrdma_status 0\nxdp_status 0\n"
                 "xdp 1 ../x 1 1\nmem 0 1\nend\n", fp);
        write_hw(text, 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG);
        snprintf(text, sizeof text, "# rdmalimit hardware cache v2\nfingerprint %s\nrdma_status 0\nxdp_status 0\n"
                 "mem 0 1\nend\n", fp);
        write_text(text, 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG);
        /* sections: one beyond the end of the file, an unknown one, none */
        snprintf(text, sizeof text, "# rdmalimit cache v3\nsection hardware 9999\nfingerprint %s\n", fp);
        write_text(text, 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG);
        snprintf(text, sizeof text, "# rdmalimit cache v3\nsection other 2\nx\n");
        write_text(text, 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG);
        write_text("# rdmalimit cache v3\n", 0600);
        assert_int_equal(hw_cache_load(path, &b), -EBADMSG);
        /* interfaces are named with their sysfs node: lo@INODE */
        assert_non_null(strstr(fp, ";net="));
        assert_non_null(strstr(fp, "lo@"));
        free(fp);
}

static const char policy_text[] =
        "version = 1;\n"
        "lower = true;\n"
        "hardware = { rdma_port = \"2M\"; xsk_queue = \"1M\"; base = \"3M\"; ram_share = 0.3; fallback = \"5M\"; };\n"
        "rules = (\n"
        "  { group = \"rdma_users\"; memlock = \"auto\"; hard = \"unlimited\"; minimum = \"0\"; maximum = \"8M\"; },\n"
        "  { user = \"alice\"; memlock = \"4M\"; },\n"
        "  { user = \"alice\"; memlock = \"6M\"; }\n"
        ");\n";

static void assert_same_value(const struct policy_value *a, const struct policy_value *b) {
        assert_int_equal(a->kind, b->kind);
        assert_true(a->bytes == b->bytes);
}

/* The policy compiled into the cache reads back as the loader built it, with its findings, for
 * exactly the bytes and path it was compiled from. */
static void test_policy(void **state) {
        struct hw_summary *s = sample();
        struct policy *p = NULL, *q = NULL;
        struct diag_list d = {}, d2 = {};
        struct hw_cache *c = NULL;
        const char *conf = "/etc/security/rdmalimit.conf";
        size_t len = strlen(policy_text);

        assert_int_equal(policy_load_string(policy_text, len, conf, &p, &d), 0);
        assert_true(d.n >= 1); /* the duplicate rule for alice is a warning */
        struct hw_cache_policy src = { .path = conf, .text = policy_text, .len = len, .policy = p, .diags = &d };
        assert_int_equal(hw_cache_save(s, &src, path), 0);
        if (geteuid() != 0) {
                assert_int_equal(hw_cache_read(path, &c), FS_ERR_OWNER);
                goto out;
        }
        assert_int_equal(hw_cache_read(path, &c), 0);
        assert_int_equal(hw_cache_policy(c, conf, policy_text, len, &q, &d2), 0);
        assert_string_equal(q->path, conf);
        assert_int_equal(q->version, 1);
        assert_true(q->lower);
        assert_true(q->hw.rdma_port == p->hw.rdma_port && q->hw.xsk_queue == p->hw.xsk_queue &&
                    q->hw.xsk_copy_queue == p->hw.xsk_copy_queue && q->hw.base == p->hw.base);
        assert_true(q->hw.ram_share == p->hw.ram_share);  /* exactly: written as its bits */
        assert_same_value(&q->hw.fallback, &p->hw.fallback);
        assert_int_equal(q->n_rules, p->n_rules);
        for (size_t i = 0; i < p->n_rules; i++) {
                assert_int_equal(q->rules[i].line, p->rules[i].line);
                assert_true((q->rules[i].user == NULL) == (p->rules[i].user == NULL));
                assert_string_equal(q->rules[i].user ?: q->rules[i].group, p->rules[i].user ?: p->rules[i].group);
                assert_same_value(&q->rules[i].memlock, &p->rules[i].memlock);
                assert_same_value(&q->rules[i].hard, &p->rules[i].hard);
                assert_same_value(&q->rules[i].minimum, &p->rules[i].minimum);
                assert_same_value(&q->rules[i].maximum, &p->rules[i].maximum);
        }
        assert_int_equal(d2.n, d.n);
        for (size_t i = 0; i < d.n; i++) {
                assert_int_equal(d2.v[i].severity, d.v[i].severity);
                assert_int_equal(d2.v[i].line, d.v[i].line);
                assert_string_equal(d2.v[i].message, d.v[i].message);
                assert_string_equal(d2.v[i].path, conf);
        }
        policy_free(q);
        q = NULL;
        diag_list_clear(&d2);

        /* other bytes (one changed, one more, one fewer) or another path: stale */
        char *other = strdup(policy_text);
        other[strlen("version = 1;\nlower = ")] = 'f';
        assert_int_equal(hw_cache_policy(c, conf, other, len, &q, &d2), -ESTALE);
        free(other);
        assert_int_equal(hw_cache_policy(c, conf, policy_text, len - 1, &q, &d2), -ESTALE);
        char longer[sizeof policy_text + 1];
        snprintf(longer, sizeof longer, "%s ", policy_text);
        assert_int_equal(hw_cache_policy(c, conf, longer, len + 1, &q, &d2), -ESTALE);
        assert_int_equal(hw_cache_policy(c, "/etc/security/other.conf", policy_text, len, &q, &d2), -ESTALE);
        assert_null(q);
        assert_int_equal(d2.n, 0);
        hw_cache_free(c);
        c = NULL;

        /* the hardware section is still there, and a cache without a policy has none */
        struct hw_summary *b = NULL;
        assert_int_equal(hw_cache_load(path, &b), 0);
        hw_summary_free(b);
        assert_int_equal(hw_cache_save(s, NULL, path), 0);
        assert_int_equal(hw_cache_read(path, &c), 0);
        assert_int_equal(hw_cache_policy(c, conf, policy_text, len, &q, &d2), -ENOENT);
        hw_cache_free(c);
        c = NULL;

        /* a policy section of another build, or malformed: never used */
        char *fp = NULL, hw[2048], pol[4096], text[8192];
        assert_int_equal(hw_fingerprint(&fp), 0);
        snprintf(hw, sizeof hw, "fingerprint %s\nrdma_status 0\nxdp_status 0\nmem 0 1\nend\n", fp);
        free(fp);
        static const struct {
                const char *build, *compiled;
                int want;
        } cases[] = {
                { "rdmalimit 0.0.0-other", "version 1\nlower 0\nhardware 1 1 0 1 4602678819172646912 -\nend\n", -ESTALE },
                { NULL, "version 1\nlower 0\nhardware 1 1 0 1 4602678819172646912 -\nend\n", 0 },
                { NULL, "version 1\nlower 0\nhardware 1 1 0 1 4602678819172646912 -\n", -EBADMSG },             /* no end */
                { NULL, "version 2\nlower 0\nhardware 1 1 0 1 4602678819172646912 -\nend\n", -EBADMSG },
                { NULL, "version 1\nlower 0\nhardware 1 1 0 1 4611686018427387904 -\nend\n", -EBADMSG },       /* ram_share 2 */
                { NULL, "version 1\nlower 0\nhardware 1 1 0 1 4602678819172646912 -\nrule 3 group a:b 1 - - -\nend\n", -EBADMSG },
                { NULL, "version 1\nlower 0\nhardware 1 1 0 1 4602678819172646912 -\nrule 3 group g 0 - - -\nend\n", -EBADMSG },
                { NULL, "version 1\nlower 0\nhardware 1 1 0 1 4602678819172646912 -\nrule 3 group g 8 4 - -\nend\n", -EBADMSG }, /* hard < soft */
                { NULL, "version 1\nlower 0\nhardware 1 1 0 1 4602678819172646912 -\nrule 3 group g auto - 9 8\nend\n", -EBADMSG }, /* min > max */
                { NULL, "version 1\nlower 0\nhardware 1 1 0 1 4602678819172646912 -\nrule 3 group g auto - - auto\nend\n", -EBADMSG },
                { NULL, "version 1\nlower 0\nhardware 1 1 0 1 4602678819172646912 -\ndiag error 1 x\nend\n", -EBADMSG },
                { NULL, "version 1\nlower 0\nhardware 1 1 0 1 4602678819172646912 -\nend\nrule 3 group g 1 - - -\n", -EBADMSG },
                { NULL, "version 1\nversion 1\nlower 0\nhardware 1 1 0 1 4602678819172646912 -\nend\n", -EBADMSG },
                { NULL, "version 1\nlower 0\nhardware 1 1 0 1 4602678819172646912 -\nrule 3 group g 1 - - - x\nend\n", -EBADMSG },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                snprintf(pol, sizeof pol, "build %s\nsource %zu %zu\n%s%s\n%s",
                         cases[i].build ?: "rdmalimit " PACKAGE_VERSION, strlen(conf), len, conf, policy_text,
                         cases[i].compiled);
                snprintf(text, sizeof text, "# rdmalimit cache v3\nsection hardware %zu\n%ssection policy %zu\n%s",
                         strlen(hw), hw, strlen(pol), pol);
                write_text(text, 0600);
                assert_int_equal(hw_cache_read(path, &c), 0);
                int r = hw_cache_policy(c, conf, policy_text, len, &q, &d2);
                if (r != cases[i].want)
                        fail_msg("case %zu: %d, want %d", i, r, cases[i].want);
                policy_free(q);
                q = NULL;
                diag_list_clear(&d2);
                hw_cache_free(c);
                c = NULL;
        }
        /* a source line that is not "source NUMBER NUMBER" */
        static const char *const sources[] = { "source 28", "source 28 x", "source -1 2", "sourc 28 2", "source 28  2" };
        for (size_t i = 0; i < ELEMENTSOF(sources); i++) {
                snprintf(pol, sizeof pol, "build rdmalimit " PACKAGE_VERSION "\n%s\n%s%s\nend\n", sources[i], conf, policy_text);
                snprintf(text, sizeof text, "# rdmalimit cache v3\nsection hardware %zu\n%ssection policy %zu\n%s",
                         strlen(hw), hw, strlen(pol), pol);
                write_text(text, 0600);
                assert_int_equal(hw_cache_read(path, &c), 0);
                int r = hw_cache_policy(c, conf, policy_text, len, &q, &d2);
                if (r != -EBADMSG)
                        fail_msg("source line '%s': %d, want -EBADMSG", sources[i], r);
                hw_cache_free(c);
                c = NULL;
        }
out:
        hw_cache_free(c);
        policy_free(p);
        diag_list_clear(&d);
        hw_summary_free(s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_roundtrip),
                cmocka_unit_test(test_stale_and_bad),
                cmocka_unit_test(test_policy),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
