/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hardware cache: the parser on its own (hw_cache_parse(): no file system, runs as any
 * user), its bounds, and, as root, the file a login reads (hw_cache_load(): ownership, mode,
 * fingerprint, RX queues) and hw_cache_or_probe().
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "unit.h"
#include "fsutil.h"
#include "macro.h"
#include "hwcache.h"
#include "hw-names.h"
#include "hwcache-root.h"
#include "hwcache-write.h"
#include "../fault/fault.h"

#define MAGIC "# rdmalimit hardware cache v4\n"

static char dir[] = "/tmp/test-hwcache-XXXXXX";
static char path[256];

static int setup(void **state) {
        (void)state;
        if (unit_tree(dir, NULL) < 0)
                return -1;
        snprintf(path, sizeof path, "%s/sub/hw.cache", dir);
        return 0;
}

static struct hw_summary *sample(void) {
        struct hw_summary *s = calloc(1, sizeof(*s));
        s->rdma_status = 0;
        s->verbs_status = 0;
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
        s->rdma[1].verbs_error = -ENODATA;
        s->xdp_status = 0;
        s->n_xdp = 2;
        s->xdp = calloc(2, sizeof(*s->xdp));
        /* an interface that exists (the cache checks the RX queues of those it counts) */
        s->xdp[0] = (struct hw_xdp_if){ .ifindex = 1, .xdp_features = 0x2b, .zero_copy = true, .counted = true,
                                        .rx_queues = hw_count_rx_queues("lo", 1) };
        snprintf(s->xdp[0].name, sizeof s->xdp[0].name, "lo");
        /* one the selection does not count: not written */
        s->xdp[1] = (struct hw_xdp_if){ .ifindex = 99, .xdp_features = 0x23, .rx_queues = 8 };
        snprintf(s->xdp[1].name, sizeof s->xdp[1].name, "veth9");
        s->mem_status = 0;
        s->mem_total = UINT64_C(25275953152);
        return s;
}

static char *lo_patterns[] = { "lo", NULL };
static const struct hw_netsel lo_sel = { .include = lo_patterns };

static void test_format_parse(void **state) {
        struct hw_summary *s = sample(), *b = NULL;
        char *text = NULL, *fp = NULL, *now = NULL;
        size_t len = 0;

        assert_int_equal(hw_cache_format(s, &lo_sel, &text, &len), 0);
        assert_int_equal(hw_cache_parse(text, len, &b, &fp), 0);
        assert_int_equal(hw_fingerprint(&lo_sel, &now), 0);
        assert_string_equal(fp, now);
        assert_int_equal(b->rdma_status, 0);
        assert_int_equal(b->verbs_status, 0);
        assert_int_equal(b->n_rdma, 2);
        assert_string_equal(b->rdma[0].name, "mlx5_0");
        assert_true(b->rdma[0].max_mr_size == UINT64_C(1) << 40);
        assert_int_equal(b->rdma[0].verbs_error, 0);
        assert_int_equal(b->rdma[0].n_ports, 2);
        assert_int_equal(b->rdma[0].ports[0].state, 4);
        assert_int_equal(b->rdma[0].ports[1].query_error, -EIO);
        assert_int_equal(b->rdma[1].query_error, -EIO);
        assert_int_equal(b->rdma[1].verbs_error, -ENODATA);
        /* only counted interfaces are written */
        assert_int_equal(b->n_xdp, 1);
        assert_string_equal(b->xdp[0].name, "lo");
        assert_true(b->xdp[0].zero_copy);
        assert_true(b->xdp[0].counted);
        assert_false(b->xdp[0].physical);
        assert_int_equal(b->xdp[0].rx_queues, s->xdp[0].rx_queues);
        assert_true(b->mem_total == s->mem_total);
        assert_int_equal(hw_active_ports(b), 1);
        assert_int_equal(hw_zc_queues(b), s->xdp[0].rx_queues);
        bool unknown = true;
        assert_true(hw_min_max_mr_size(b, &unknown) == UINT64_C(1) << 40);
        assert_false(unknown);
        hw_summary_free(b);
        free(fp);
        free(text);
        free(now);
        hw_summary_free(s);
}

/* hw_physmap_is_physical() answers what hw_if_physical() answers, for every interface this
 * namespace has (here: lo and ifb* listed in /sys/devices/virtual/net, a physical eth0 that is
 * not), through the listing for the listed ones. */
static void test_physmap(void **state) {
        struct hw_physmap m = HW_PHYSMAP_INIT;
        struct dirent *de;
        DIR *d = opendir("/sys/class/net");
        size_t n = 0;

        (void)state;
        assert_non_null(d);
        assert_false(hw_physmap_is_physical(&m, ""));
        assert_false(m.listed);                  /* a bad name never lists */
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                bool slow = hw_if_physical(de->d_name);
                assert_int_equal(hw_physmap_is_physical(&m, de->d_name), slow);
                n++;
        }
        closedir(d);
        assert_true(n > 0);
        assert_true(m.listed);
        /* lo has no parent device: it is listed, and answered from the listing */
        assert_true(m.virt_fd >= 0);
        assert_true(m.n_virt > 0);
        bool lo_listed = false;
        for (size_t i = 0; i < m.n_virt; i++)
                lo_listed |= streq(m.virt[i], "lo");
        assert_true(lo_listed);
        assert_false(hw_physmap_is_physical(&m, "lo"));
        for (size_t i = 1; i < m.n_virt; i++)
                assert_true(strcmp(m.virt[i - 1], m.virt[i]) < 0);
        /* names that are no interface, or no name at all */
        assert_false(hw_physmap_is_physical(&m, "no-such-if0"));
        assert_false(hw_physmap_is_physical(&m, "."));
        assert_false(hw_physmap_is_physical(&m, ".."));
        assert_false(hw_physmap_is_physical(&m, "../lo"));
        assert_false(hw_physmap_is_physical(&m, "lo/.."));
        assert_false(hw_physmap_is_physical(&m, "abcdefghijklmnopq"));
        hw_physmap_done(&m);
        assert_int_equal(m.virt_fd, -1);
        assert_null(m.virt);
        assert_false(m.listed);
}

/* lo is virtual: counted only when included; the selection is part of the fingerprint */
static void test_selection(void **state) {
        char *plain = NULL, *with_lo = NULL;
        char *ex[] = { "l*", NULL };
        struct hw_netsel both = { .include = lo_patterns, .exclude = ex };

        assert_false(hw_if_physical("lo"));
        assert_false(hw_if_physical("../lo"));
        assert_false(hw_netsel_counts(NULL, "lo", false));
        assert_true(hw_netsel_counts(NULL, "eth0", true));
        assert_true(hw_netsel_counts(&lo_sel, "lo", false));
        assert_false(hw_netsel_counts(&both, "lo", false));
        assert_false(hw_netsel_counts(&both, "lo", true));
        assert_int_equal(hw_fingerprint(NULL, &plain), 0);
        assert_int_equal(hw_fingerprint(&lo_sel, &with_lo), 0);
        assert_null(strstr(plain, "lo@"));
        assert_non_null(strstr(plain, ";net="));
        assert_non_null(strstr(strstr(with_lo, ";net="), "lo@"));
        assert_non_null(strstr(with_lo, "sel=inc=2:lo,"));
        free(plain);
        free(with_lo);
}

/* The network namespace is part of the fingerprint: its cookie where the kernel gives one (the
 * inode of /proc/self/ns/net before Linux 5.14); another namespace's fingerprint differs. */
static void test_netns(void **state) {
        char *fp = NULL, want[64], other[4096] = "";
        uint64_t cookie = 0;
        socklen_t len = sizeof cookie;
        struct stat st;
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), p[2];

        (void)state;
        assert_true(fd >= 0);
#ifdef SO_NETNS_COOKIE
        if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) == 0)
                snprintf(want, sizeof want, ";netns=c%llu;", (unsigned long long)cookie);
        else
#endif
        {
                assert_int_equal(stat("/proc/self/ns/net", &st), 0);
                snprintf(want, sizeof want, ";netns=i%llu;", (unsigned long long)st.st_ino);
        }
        close(fd);
        assert_int_equal(hw_fingerprint(NULL, &fp), 0);
        if (!strstr(fp, want))
                fail_msg("fingerprint %s: no %s", fp, want);
        /* no socket for the cookie (seccomp, an older kernel): the namespace's inode */
        char *fb = NULL, ino[64];
        assert_int_equal(stat("/proc/self/ns/net", &st), 0);
        snprintf(ino, sizeof ino, ";netns=i%llu;", (unsigned long long)st.st_ino);
        fault_arm("socket", NULL, 1, EAFNOSUPPORT);
        assert_int_equal(hw_fingerprint(NULL, &fb), 0);
        fault_disarm();
        if (!strstr(fb, ino))
                fail_msg("fingerprint without a socket %s: no %s", fb, ino);
        free(fb);
        /* in a new network namespace (root only): another fingerprint */
        assert_int_equal(pipe(p), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                char *f = NULL;
                close(p[0]);
                if (unshare(CLONE_NEWNET) < 0 || hw_fingerprint(NULL, &f) < 0)
                        _exit(1);
                (void)!write(p[1], f, strlen(f));
                _exit(0);
        }
        close(p[1]);
        ssize_t n = read(p[0], other, sizeof other - 1);
        close(p[0]);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (geteuid() == 0) {
                assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0 && n > 0);
                other[n] = '\0';
                assert_string_not_equal(fp, other);
                assert_null(strstr(other, want));
        }
        free(fp);
}

static int parse(const char *text) {
        struct hw_summary *b = NULL;
        char *fp = NULL;
        int r = hw_cache_parse(text, strlen(text), &b, &fp);
        hw_summary_free(b);
        free(fp);
        return r;
}

static void test_bad(void **state) {
        static const struct {
                const char *text;
                int want;
        } cases[] = {
                { "garbage\n", -EBADMSG },
                { MAGIC, -EBADMSG },
                { MAGIC "fingerprint x\n", -EBADMSG },                                /* no end */
                { MAGIC "fingerprint x\nend\n", 0 },
                { MAGIC "fingerprint x\nend\nrdma_status 0\n", -EBADMSG },              /* after the end */
                { MAGIC "fingerprint x\nport 1 4 1 0\nend\n", -EBADMSG },              /* a port without a device */
                { MAGIC "fingerprint x\nrdma x 1 0 0 0 1\nport 0 4 1 0\nend\n", -EBADMSG },
                { MAGIC "fingerprint x\nrdma x 1 0 0 0 1\nport 256 4 1 0\nend\n", -EBADMSG },
                { MAGIC "fingerprint x\nrdma ../x 1 0 0 0 1\nend\n", -EBADMSG },
                { MAGIC "fingerprint x\nxdp 1 ../x 1 1 0\nend\n", -EBADMSG },
                { MAGIC "fingerprint x\nxdp 1 lo 1 1 2\nend\n", -EBADMSG },
                { MAGIC "fingerprint x\nxdp 1 lo 1 1\nend\n", -EBADMSG },             /* the v3 shape */
                /* a line is known by its keyword and its number of words, both */
                { MAGIC "fingerprint x\nxdq 1 lo 43 1 0\nend\n", -EBADMSG },
                { MAGIC "fingerprint x\nrdmb x 1 0 0 0 1\nend\n", -EBADMSG },
                { MAGIC "fingerprint x\nmen 0 1\nend\n", -EBADMSG },
                { MAGIC "fingerprint x\nrdma x 1 0 0 0 1\nport 1 4 1\nend\n", -EBADMSG },
                { MAGIC "fingerprint x\nrdma x 1 0 0 0 1\nmem 0 1 0 0\nend\n", -EBADMSG },
                /* more words than any line has (a sanitizer build sees a write past them) */
                { MAGIC "fingerprint x\nrdma x 1 0 0 0 1 a b c d e f\nend\n", -EBADMSG },
                { MAGIC "fingerprint x\nend x\n", -EBADMSG },
                { MAGIC "fingerprint x\nrdma_status 99999999999\nend\n", -EBADMSG },
                { MAGIC "fingerprint x\nmem 0 -1\nend\n", -EBADMSG },
                { "# rdmalimit cache v3\nsection hardware 20\nfingerprint x\nend\n", -EBADMSG },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                int r = parse(cases[i].text);
                if (r != cases[i].want)
                        fail_msg("case %zu: %d, want %d", i, r, cases[i].want);
        }
        /* a NUL inside */
        struct hw_summary *b = NULL;
        char *fp = NULL;
        static const char nul[] = MAGIC "fingerprint x\n\0end\n";
        assert_int_equal(hw_cache_parse(nul, sizeof nul - 1, &b, &fp), -EBADMSG);
        /* another version of the first line, whatever follows */
        char other[] = MAGIC "fingerprint x\nend\n";
        other[sizeof(MAGIC) - 3] = '9';
        assert_int_equal(parse(other), -EBADMSG);
        /* a device name must fit its field with the NUL: 63 bytes, not 64 */
        char line[256];
        snprintf(line, sizeof line, MAGIC "fingerprint x\nrdma %.63s 1 0 0 0 1\nend\n",
                 "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm");
        assert_int_equal(parse(line), 0);
        snprintf(line, sizeof line, MAGIC "fingerprint x\nrdma %.64s 1 0 0 0 1\nend\n",
                 "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm");
        assert_int_equal(parse(line), -EBADMSG);
        /* ... also after a complete cache */
        static const char nul_after[] = MAGIC "fingerprint x\nend\n\0";
        assert_int_equal(hw_cache_parse(nul_after, sizeof nul_after - 1, &b, &fp), -EBADMSG);
}

/* Every number of every line, at and past the edges of its type: int fields take
 * -2147483647..2147483647 (an int's range less INT_MIN), u32 fields 0..4294967295, u64 fields
 * 0..18446744073709551615; a sign, a blank, a suffix, an empty or an overlong number is refused. */
static void test_numbers(void **state) {
        enum kind { I, U32, U64 };
        static const struct {
                const char *fmt;   /* the line, @ standing for the field tried */
                enum kind kind;
        } fields[] = {
                { "rdma_status @\n", I },
                { "verbs_status @\n", I },
                { "xdp_status @\n", I },
                { "mem @ 1\n", I },
                { "mem 0 @\n", U64 },
                { "rdma d @ 0 0 0 1\n", I },
                { "rdma d 1 @ 0 0 1\n", I },
                { "rdma d 1 0 @ 0 1\n", I },
                { "rdma d 1 0 0 @ 1\n", U64 },
                { "rdma d 1 0 0 0 @\n", I },
                { "rdma d 1 0 0 0 1\nport 1 @ 1 0\n", I },
                { "rdma d 1 0 0 0 1\nport 1 4 @ 0\n", I },
                { "rdma d 1 0 0 0 1\nport 1 4 1 @\n", I },
                { "xdp @ lo 1 1 0\n", U32 },
                { "xdp 1 lo @ 1 0\n", U64 },
                { "xdp 1 lo 1 @ 0\n", U32 },
        };
        static const struct {
                const char *v;
                bool i, u32, u64;  /* accepted as an int, a u32, a u64 */
        } values[] = {
                { "0", true, true, true },
                { "2147483647", true, true, true },
                { "-2147483647", true, false, false },
                { "2147483648", false, true, true },
                { "-2147483648", false, false, false },
                { "-2147483649", false, false, false },
                { "4294967295", false, true, true },
                { "4294967296", false, false, true },
                { "-1", true, false, false },
                { "18446744073709551615", false, false, true },
                { "18446744073709551616", false, false, false },
                { "99999999999999999999999999999999", false, false, false },
                { "+1", false, false, false },
                { "1x", false, false, false },
                { "0x10", false, false, false },
                { "--1", false, false, false },
        };
        char text[512];

        for (size_t f = 0; f < ELEMENTSOF(fields); f++)
                for (size_t v = 0; v < ELEMENTSOF(values); v++) {
                        bool ok = fields[f].kind == I ? values[v].i : fields[f].kind == U32 ? values[v].u32 : values[v].u64;
                        const char *at = strchr(fields[f].fmt, '@');
                        snprintf(text, sizeof text, MAGIC "fingerprint x\n%.*s%s%send\n", (int)(at - fields[f].fmt),
                                 fields[f].fmt, values[v].v, at + 1);
                        int r = parse(text);
                        if ((r == 0) != ok)
                                fail_msg("'%s' in \"%s\": %d, want %s", values[v].v, fields[f].fmt, r,
                                         ok ? "accepted" : "refused");
                }
}

/* A cache's text in the making: the magic line and a fingerprint, then what the caller
 * prints to the stream returned */
static FILE *cache_begin(char **text, size_t *size) {
        FILE *f = open_memstream(text, size);
        assert_non_null(f);
        fprintf(f, MAGIC "fingerprint x\n");
        return f;
}

/* Its end line, then parse() of the text, which is freed */
static int cache_end_parse(FILE *f, char **text) {
        fprintf(f, "end\n");
        assert_int_equal(fclose(f), 0);
        int r = parse(*text);
        free(*text);
        *text = NULL;
        return r;
}

/* Every count is bounded before it costs memory: devices, ports per device and in all,
 * interfaces, bytes. */
static void test_bounds(void **state) {
        char *text = NULL;
        size_t size = 0;
        FILE *f;

        /* one device too many */
        f = cache_begin(&text, &size);
        for (int i = 0; i <= HW_MAX_RDMA_DEVICES; i++)
                fprintf(f, "rdma d%d 1 0 0 0 1\n", i);
        assert_int_equal(cache_end_parse(f, &text), -E2BIG);

        /* ports: over the per-device bound, then over the total */
        f = cache_begin(&text, &size);
        fprintf(f, "rdma d 1 0 0 0 1\n");
        for (int p = 1; p <= HW_MAX_PORTS + 1; p++)
                fprintf(f, "port %d 4 1 0\n", p > HW_MAX_PORTS ? 1 : p);
        assert_int_equal(cache_end_parse(f, &text), -E2BIG);
        f = cache_begin(&text, &size);
        for (int d = 0, n = 0; n <= HW_MAX_PORTS_TOTAL; d++) {
                fprintf(f, "rdma d%d 1 0 0 0 1\n", d);
                for (int p = 1; p <= 200 && n <= HW_MAX_PORTS_TOTAL; p++, n++)
                        fprintf(f, "port %d 4 1 0\n", p);
        }
        assert_int_equal(cache_end_parse(f, &text), -E2BIG);

        /* interfaces */
        f = cache_begin(&text, &size);
        for (int i = 0; i <= HW_MAX_INTERFACES; i++)
                fprintf(f, "xdp %d if%d 35 1 1\n", i + 1, i);
        assert_int_equal(cache_end_parse(f, &text), -E2BIG);

        /* bytes */
        size = HW_CACHE_MAX + 1;
        text = malloc(size + 1);
        memset(text, '#', size);
        text[size] = '\0';
        memcpy(text, MAGIC, strlen(MAGIC));
        struct hw_summary *b = NULL;
        char *fp = NULL;
        assert_int_equal(hw_cache_parse(text, size, &b, &fp), -EFBIG);
        free(text);

        /* the writer refuses what the reader would */
        struct hw_summary *s = sample();
        char *out = NULL;
        size_t len;
        s->rdma[0].n_ports = HW_MAX_PORTS + 1;
        assert_int_equal(hw_cache_format(s, NULL, &out, &len), -E2BIG);
        s->rdma[0].n_ports = 2;
        hw_summary_free(s);

        /* HW_MAX_RDMA_DEVICES devices are taken, one more is refused */
        static struct hw_rdma_dev devs[HW_MAX_RDMA_DEVICES + 1];
        struct hw_summary many_devs = { .rdma_status = 0, .n_rdma = HW_MAX_RDMA_DEVICES, .rdma = devs };
        for (size_t i = 0; i < ELEMENTSOF(devs); i++)
                snprintf(devs[i].name, sizeof devs[i].name, "d%zu", i);
        assert_int_equal(hw_cache_format(&many_devs, NULL, &out, &len), 0);
        free(out);
        many_devs.n_rdma++;
        assert_int_equal(hw_cache_format(&many_devs, NULL, &out, &len), -E2BIG);

        /* more counted interfaces than a login counts, with few ports: refused as well */
        static struct hw_xdp_if many[HW_MAX_INTERFACES + 1];
        struct hw_summary big = { .xdp_status = 0, .n_xdp = ELEMENTSOF(many), .xdp = many };
        for (size_t i = 0; i < ELEMENTSOF(many); i++)
                many[i] = (struct hw_xdp_if){ .ifindex = (int)i + 1, .counted = true, .name = "x" };
        assert_int_equal(hw_cache_format(&big, NULL, &out, &len), -E2BIG);
        big.n_xdp = HW_MAX_INTERFACES;
        assert_int_equal(hw_cache_format(&big, NULL, &out, &len), 0);
        free(out);
}

static void write_text(const char *text, mode_t mode) {
        unit_write(path, text);
        chmod(path, mode);
}

/* As root: the file a login reads. */
static void test_load(void **state) {
        struct hw_summary *s = sample(), *b = NULL;
        char text[8192], *fp = NULL;
        struct stat st;
        int err;

        assert_int_equal(hw_cache_save(s, &lo_sel, path), 0);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        if (geteuid() != 0) {
                /* a cache must be root-owned: as a normal user it is refused */
                assert_int_equal(hw_cache_load(path, &lo_sel, &b), FS_ERR_OWNER);
                hw_summary_free(s);
                return;
        }
        assert_int_equal(hw_cache_load(path, &lo_sel, &b), 0);
        hw_summary_free(b);
        /* another selection: stale */
        assert_int_equal(hw_cache_load(path, NULL, &b), -ESTALE);
        /* saved with another RX queue count than sysfs shows now: stale */
        s->xdp[0].rx_queues++;
        assert_int_equal(hw_cache_save(s, &lo_sel, path), 0);
        assert_int_equal(hw_cache_load(path, &lo_sel, &b), -ESTALE);
        hw_summary_free(s);

        write_text(MAGIC "fingerprint boot=other;rdma=;net=\nend\n", 0600);
        assert_int_equal(hw_cache_load(path, NULL, &b), -ESTALE);
        assert_int_equal(hw_fingerprint(NULL, &fp), 0);
        snprintf(text, sizeof text, MAGIC "fingerprint %s\nrdma_status 0\nxdp_status 0\nmem 0 1\nend\n", fp);
        write_text(text, 0666);
        assert_int_equal(hw_cache_load(path, NULL, &b), FS_ERR_MODE);
        /* hw_cache_or_probe falls back to a live probe, and says why */
        assert_int_equal(hw_cache_or_probe(path, NULL, &b, &err), 0);
        assert_int_equal(err, FS_ERR_MODE);
        assert_int_equal(b->verbs_status, -ENODATA);   /* a live probe never queries ibverbs */
        hw_summary_free(b);
        chmod(path, 0600);
        assert_int_equal(hw_cache_or_probe(path, NULL, &b, &err), 0);
        assert_int_equal(err, 0);
        assert_true(b->mem_total == 1);
        hw_summary_free(b);
        assert_int_equal(hw_cache_or_probe(NULL, NULL, &b, &err), 0);
        assert_int_equal(err, -ENOENT);
        hw_summary_free(b);
        /* the cache of a --root tree: path resolves inside it, through the same reader */
        const char *rel = path + strlen(dir);
        assert_int_equal(hw_cache_load_in_root(dir, rel, NULL, &b), 0);
        assert_true(b->mem_total == 1);
        hw_summary_free(b);
        assert_int_equal(hw_cache_in_root_or_probe(dir, rel, NULL, &b, &err), 0);
        assert_int_equal(err, 0);
        assert_true(b->mem_total == 1);   /* the cache's, not a probe's */
        hw_summary_free(b);
        assert_int_equal(hw_cache_in_root_or_probe(NULL, path, NULL, &b, &err), 0);   /* the host's */
        assert_int_equal(err, 0);
        assert_true(b->mem_total == 1);
        hw_summary_free(b);
        assert_int_equal(hw_cache_in_root_or_probe(dir, "/nothere.cache", NULL, &b, &err), 0);
        assert_int_equal(err, -ENOENT);
        assert_true(b->mem_total != 1);   /* probed */
        hw_summary_free(b);
        assert_int_equal(hw_cache_in_root_or_probe(dir, NULL, NULL, &b, &err), 0);
        assert_int_equal(err, -ENOENT);
        hw_summary_free(b);
        /* a symlink to a valid cache is refused */
        char link[300];
        snprintf(link, sizeof link, "%s/link.cache", dir);
        assert_int_equal(symlink(path, link), 0);
        assert_int_equal(hw_cache_load(link, NULL, &b), -ELOOP);
        free(fp);
}

/* hw_min_max_mr_size(): the smallest max_mr_size of the devices with an active port, whatever
 * their order, and whether one of them did not say */
static void test_min_max_mr_size(void **state) {
        static const uint64_t G = UINT64_C(1) << 30;
        static const struct { uint64_t max_mr_size; int verbs_error, state; } devs[] = {
                { 0, -ENODATA, HW_PORT_ACTIVE },   /* active, unknown */
                { 8 * G, 0, HW_PORT_ACTIVE },
                { 2 * G, 0, HW_PORT_ACTIVE },      /* the smallest that counts */
                { 1 * G, 0, 1 },                   /* DOWN: does not count */
                { 4 * G, 0, HW_PORT_ACTIVE },
        };
        struct hw_port ports[ELEMENTSOF(devs)];
        struct hw_rdma_dev rdma[ELEMENTSOF(devs)];
        struct hw_summary s = { .rdma_status = 0, .n_rdma = ELEMENTSOF(devs), .rdma = rdma };
        bool unknown = false;
        (void)state;

        for (size_t i = 0; i < ELEMENTSOF(devs); i++) {
                ports[i] = (struct hw_port){ .num = 1, .state = devs[i].state, .link_layer = 1 };
                rdma[i] = (struct hw_rdma_dev){ .max_mr_size = devs[i].max_mr_size, .verbs_error = devs[i].verbs_error,
                                                .n_ports = 1, .ports = &ports[i] };
        }
        assert_true(hw_min_max_mr_size(&s, &unknown) == 2 * G);
        assert_true(unknown);
        /* the unknown one inactive: known */
        ports[0].state = 1;
        assert_true(hw_min_max_mr_size(&s, &unknown) == 2 * G);
        assert_false(unknown);
        /* no verbs error, but no size either: unknown too */
        ports[0].state = HW_PORT_ACTIVE;
        rdma[0].verbs_error = 0;
        assert_true(hw_min_max_mr_size(&s, &unknown) == 2 * G);
        assert_true(unknown);
        /* no summary, or no RDMA class read: nothing, nothing unknown */
        unknown = true;
        assert_true(hw_min_max_mr_size(NULL, &unknown) == 0);
        assert_false(unknown);
        s.rdma_status = -EACCES;
        unknown = true;
        assert_true(hw_min_max_mr_size(&s, &unknown) == 0);
        assert_false(unknown);
        s.rdma_status = 0;
        /* a verbs error with a size: unknown, and its size not taken */
        rdma[0].verbs_error = -EIO;
        rdma[0].max_mr_size = 1;
        assert_true(hw_min_max_mr_size(&s, &unknown) == 2 * G);
        assert_true(unknown);
}

/* the names of sysfs's numbers, and the fallback for every number without one: below 0, past
 * the table, and a hole in it */
static void test_names(void **state) {
        (void)state;
        assert_string_equal(hw_port_state_name(0), "NOP");
        assert_string_equal(hw_port_state_name(4), "ACTIVE");
        assert_string_equal(hw_port_state_name(5), "ACTIVE_DEFER");
        assert_string_equal(hw_port_state_name(6), "UNKNOWN");
        assert_string_equal(hw_port_state_name(-1), "UNKNOWN");
        assert_string_equal(hw_link_layer_name(1), "InfiniBand");
        assert_string_equal(hw_link_layer_name(2), "Ethernet");
        assert_string_equal(hw_link_layer_name(0), "unspecified");
        assert_string_equal(hw_link_layer_name(3), "unspecified");
        assert_string_equal(hw_node_type_name(1), "CA");
        assert_string_equal(hw_node_type_name(7), "unspecified");
        assert_string_equal(hw_node_type_name(0), "unknown");
        assert_string_equal(hw_node_type_name(8), "unknown");
        assert_string_equal(hw_node_type_name(-2), "unknown");
}

/* hw_cache_save() needs a directory other than / and a file name: anything else is -EINVAL
 * before anything is made or written */
static void test_save_paths(void **state) {
        struct hw_summary *s = sample();
        char trailing[300];
        (void)state;

        assert_int_equal(hw_cache_save(s, &lo_sel, "hw.cache"), -EINVAL);
        assert_int_equal(hw_cache_save(s, &lo_sel, "/hw.cache"), -EINVAL);
        snprintf(trailing, sizeof trailing, "%s/new/", dir);
        assert_int_equal(hw_cache_save(s, &lo_sel, trailing), -EINVAL);
        assert_int_equal(access(trailing, F_OK), -1);
        hw_summary_free(s);
}

/* What the other tests leave out: a 2-word line of no keyword, xdp_status with a word too
 * many, a cache of exactly HW_CACHE_MAX bytes, load_fd() of a directory or of garbage, and the
 * RX queues of a counted interface with none (one that sysfs shows with queues is stale, one
 * it does not show is the same) */
static void test_cache_edges(void **state) {
        struct hw_summary *b = NULL;
        char *fp = NULL;
        (void)state;
        assert_int_equal(parse(MAGIC "fingerprint x\nfoo 1\nend\n"), -EBADMSG);
        assert_int_equal(parse(MAGIC "fingerprint x\nxdp_status 0 1\nend\n"), -EBADMSG);
        assert_int_equal(parse(MAGIC "fingerprint x\nxdp_status 0\nend\n"), 0);

        static const char head[] = MAGIC "fingerprint x\nend\n";
        size_t n = HW_CACHE_MAX;
        char *big = malloc(n + 1);
        assert_non_null(big);
        memcpy(big, head, sizeof head - 1);
        memset(big + sizeof head - 1, '\n', n + 1 - (sizeof head - 1));
        assert_int_equal(hw_cache_parse(big, n, &b, &fp), 0);
        hw_summary_free(b);
        free(fp);
        b = NULL;
        fp = NULL;
        assert_int_equal(hw_cache_parse(big, n + 1, &b, &fp), -EFBIG);
        assert_null(b);
        free(big);

        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dfd >= 0);
        assert_int_equal(hw_cache_load_fd(dfd, NULL, &b), -EISDIR);
        close(dfd);
        write_text("garbage\n", 0600);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(hw_cache_load_fd(fd, NULL, &b), -EBADMSG);
        close(fd);
        assert_null(b);

        if (geteuid() != 0)
                return;
        /* counted interfaces saved with no RX queue */
        struct hw_summary *s = calloc(1, sizeof *s);
        assert_non_null(s);
        s->n_xdp = 1;
        s->xdp = calloc(1, sizeof *s->xdp);
        s->xdp[0] = (struct hw_xdp_if){ .ifindex = 1, .xdp_features = 0x23, .counted = true, .rx_queues = 0 };
        snprintf(s->xdp[0].name, sizeof s->xdp[0].name, "lo");
        assert_true(hw_count_rx_queues("lo", 1) > 0);
        assert_int_equal(hw_cache_save(s, &lo_sel, path), 0);
        assert_int_equal(hw_cache_load(path, &lo_sel, &b), -ESTALE);     /* lo has queues now */
        /* one this namespace's sysfs does not show: as the probe counted it, no queue */
        static char *ghost_patterns[] = { "lo", "ghost0", NULL };
        static const struct hw_netsel ghost_sel = { .include = ghost_patterns };
        s->xdp[0] = (struct hw_xdp_if){ .ifindex = 999999, .xdp_features = 0x23, .counted = true, .rx_queues = 0 };
        snprintf(s->xdp[0].name, sizeof s->xdp[0].name, "ghost0");
        assert_int_equal(hw_cache_save(s, &ghost_sel, path), 0);
        assert_int_equal(hw_cache_load(path, &ghost_sel, &b), 0);
        assert_int_equal(b->n_xdp, 1);
        assert_string_equal(b->xdp[0].name, "ghost0");
        hw_summary_free(b);
        hw_summary_free(s);
}

UNIT_MAIN(setup, unit_teardown,
          cmocka_unit_test(test_format_parse), cmocka_unit_test(test_selection), cmocka_unit_test(test_netns), cmocka_unit_test(test_physmap), cmocka_unit_test(test_bad), cmocka_unit_test(test_numbers),
          cmocka_unit_test(test_bounds), cmocka_unit_test(test_load), cmocka_unit_test(test_save_paths),
          cmocka_unit_test(test_min_max_mr_size), cmocka_unit_test(test_names), cmocka_unit_test(test_cache_edges))
