/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The login path's one decision and its log lines (lib/login/apply.c), as pam_rdmalimit and
 * spank_rdmalimit call it: login_decide() on a policy file and a hardware cache written in a
 * throwaway directory, for users NSS knows (root) and does not, with every message the front
 * end is given kept and compared; login_apply() in a child process, whose RLIMIT_MEMLOCK it
 * changes.  The policy and the cache must be root-owned: as another user the test is skipped.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "unit.h"
#include "apply.h"
#include "fsutil.h"
#include "hw.h"
#include "hwcache.h"
#include "hwcache-write.h"
#include "macro.h"
#include "policy.h"
#include "size.h"
#include "../fault/fault.h"

#define MiB (UINT64_C(1) << 20)

static char top[] = "/tmp/test-apply-XXXXXX";
static char conf[PATH_MAX], cache[PATH_MAX];

/* every message of the front end, "PRIO text\n" (PRIO: E W I D) */
static char logbuf[16384];
static int causes;

static void front_log(void *data, int prio, const char *fmt, va_list ap) {
        (void)data;
        size_t l = strlen(logbuf);
        char c = prio == LOG_ERR ? 'E' : prio == LOG_WARNING ? 'W' : prio == LOG_INFO ? 'I' : prio == LOG_DEBUG ? 'D' : '?';
        snprintf(logbuf + l, sizeof logbuf - l, "%c ", c);
        l = strlen(logbuf);
        vsnprintf(logbuf + l, sizeof logbuf - l, fmt, ap);
        l = strlen(logbuf);
        snprintf(logbuf + l, sizeof logbuf - l, "\n");
}

static void front_cause(void *data, const char *got_hard, const char *fix, char *buf, size_t size) {
        (void)data;
        causes++;
        snprintf(buf, size, "cause(%s,%s)", got_hard, fix);
}

static const struct login_front front = { .log = front_log, .cause = front_cause, .tag = "job=7" };

static int setup(void **state) {
        (void)state;
        if (unit_tree(top, NULL) < 0)
                return -1;
        unit_path(conf, top, "rdmalimit.conf");
        unit_path(cache, top, "hw.cache");
        return 0;
}

/* false (and said) when not root: the policy and the cache must be root-owned */
static bool is_root(void) {
        if (geteuid() == 0)
                return true;
        print_message("# the policy and the cache must be root-owned: not checked as uid %u\n", (unsigned)geteuid());
        return false;
}

/* the policy's text into conf (0644), "" into the log */
static void put_policy(const char *text) {
        unit_write(conf, text);
        assert_int_equal(chmod(conf, 0644), 0);
        logbuf[0] = '\0';
        causes = 0;
}

#define HW "hardware = { include = [ \"lo\" ]; rdma_port = \"1M\"; xsk_queue = \"2M\"; xsk_copy_queue = \"4M\";" \
           " base = \"1M\"; ram_share = 1; };\n"

/* A cache for the selection of the policy in conf: n_good devices with ports active (one port
 * each, plus a DOWN one) and the max_mr_size mr (0: unknown), n_bad devices that could not be
 * read, lo with zero-copy or not, the netlink status of the XDP probe. */
static void put_cache_mr(unsigned n_good, unsigned n_bad, bool lo, bool zero_copy, uint64_t mr, int xdp_status) {
        _cleanup_(policy_freep) struct policy *p = NULL;
        struct diag_list d = {};
        char *text = NULL;
        size_t len = 0;

        int fd = open(conf, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(policy_read_fd(fd, &text, &len), 0);
        close(fd);
        assert_int_equal(policy_load_string(text, len, conf, &p, &d), 0);
        diag_list_clear(&d);
        free(text);

        struct hw_summary *s = calloc(1, sizeof *s);
        assert_non_null(s);
        s->n_rdma = n_good + n_bad;
        s->rdma = calloc(s->n_rdma + 1, sizeof *s->rdma);
        for (unsigned i = 0; i < s->n_rdma; i++) {
                struct hw_rdma_dev *x = &s->rdma[i];
                snprintf(x->name, sizeof x->name, "%s_%u", i < n_good ? "mlx5" : "bad", i);
                if (i >= n_good) {
                        x->query_error = -EIO;
                        continue;
                }
                x->node_type = 1;
                x->max_mr_size = mr;
                x->verbs_error = mr ? 0 : -ENODATA;
                x->n_ports = 2;
                x->ports = calloc(2, sizeof(struct hw_port));
                x->ports[0] = (struct hw_port){ .num = 1, .state = HW_PORT_ACTIVE, .link_layer = 1 };
                x->ports[1] = (struct hw_port){ .num = 2, .state = 1, .link_layer = 1 };
        }
        if (lo) {
                s->n_xdp = 1;
                s->xdp = calloc(1, sizeof *s->xdp);
                s->xdp[0] = (struct hw_xdp_if){ .ifindex = 1, .xdp_features = zero_copy ? 0x2b : 0x23,
                                                .zero_copy = zero_copy, .counted = true,
                                                .rx_queues = hw_count_rx_queues("lo", 1) };
                snprintf(s->xdp[0].name, sizeof s->xdp[0].name, "lo");
        }
        s->xdp_status = xdp_status;
        s->mem_total = UINT64_C(1) << 40;
        assert_int_equal(hw_cache_save(s, &p->hw.sel, cache), 0);
        hw_summary_free(s);
}

static void put_cache(unsigned n_good, unsigned n_bad, bool lo, bool zero_copy) {
        put_cache_mr(n_good, n_bad, lo, zero_copy, UINT64_C(1) << 40, 0);
}

static int decide(const char *user, uid_t uid, struct login_decision *d) {
        struct login_opts o = { .conf = conf, .cache = cache };
        memset(d, 0xa5, sizeof *d);
        return login_decide(&front, &o, user, uid, d);
}

static void expect_log(const char *want) {
        if (!streq(logbuf, want))
                fail_msg("log:\n%s\nwanted:\n%s", logbuf, want);
}

/* the words of "auto", singular and plural, and the devices that could not be read */
static void test_auto_words(void **state) {
        struct login_decision d;
        char rule[PATH_MAX + 64], why[512];
        unsigned q = hw_count_rx_queues("lo", 1);
        (void)state;
        if (!is_root())
                return;
        assert_true(q >= 1);

        put_policy("version = 1;\n" HW "rules = ( { user = \"root\"; memlock = \"auto\"; } );\n");
        snprintf(rule, sizeof rule, "rule user root (%s:3)", conf);

        /* one of each: no plural s */
        put_cache(1, 1, true, false);
        assert_int_equal(decide("root", 12345, &d), 0);
        expect_log("");
        assert_int_equal(d.outcome, LOGIN_APPLY);
        assert_string_equal(d.who, "user=root job=7");
        assert_string_equal(d.user, "root");
        assert_string_equal(d.rule, rule);
        snprintf(why, sizeof why, "auto: 1 active RDMA port, 0 zero-copy and %u copy-mode XDP RX queue%s; "
                 "1 RDMA device could not be read in sysfs", q, q == 1 ? "" : "s");
        assert_string_equal(d.why, why);
        /* base + one port + lo's queues in copy mode */
        assert_true(d.target.soft == MiB + MiB + q * 4 * MiB);
        assert_true(d.target.hard == d.target.soft);
        assert_false(d.lower);

        /* two of each: plurals */
        put_cache(2, 2, true, true);
        assert_int_equal(decide("root", 12345, &d), 0);
        snprintf(why, sizeof why, "auto: 2 active RDMA ports, %u zero-copy and 0 copy-mode XDP RX queues; "
                 "2 RDMA devices could not be read in sysfs", q);
        assert_string_equal(d.why, why);
        assert_true(d.target.soft == MiB + 2 * MiB + q * 2 * MiB);

        /* every device read: nothing said of sysfs; by uid, the same rule */
        put_cache(1, 0, false, false);
        assert_int_equal(decide(NULL, 0, &d), 0);
        assert_string_equal(d.why, "auto: 1 active RDMA port, 0 zero-copy and 0 copy-mode XDP RX queues");
        assert_string_equal(d.who, "user=root job=7");
        expect_log("");

        /* XDP queues alone are hardware: lo's copy-mode queues and nothing else */
        put_cache(0, 0, true, false);
        assert_int_equal(decide("root", 0, &d), 0);
        assert_int_equal(d.outcome, LOGIN_APPLY);
        assert_true(d.target.soft == MiB + q * 4 * MiB);
        snprintf(why, sizeof why, "auto: 0 active RDMA ports, 0 zero-copy and %u copy-mode XDP RX queue%s", q,
                 q == 1 ? "" : "s");
        assert_string_equal(d.why, why);

        /* the smallest max_mr_size of the devices with an active port caps it; unknown is said */
        put_cache_mr(1, 0, false, false, 2 * MiB, 0);
        assert_int_equal(decide("root", 0, &d), 0);
        assert_true(d.target.soft == 2 * MiB);
        put_cache_mr(1, 0, false, false, 1, 0);
        assert_int_equal(decide("root", 0, &d), 0);
        assert_true(d.target.soft == POLICY_MIN_BYTES);   /* 1 byte, raised to the floor */
        put_cache_mr(1, 0, false, false, 0, 0);
        assert_int_equal(decide("root", 0, &d), 0);
        assert_true(d.target.soft == 2 * MiB);
        assert_string_equal(d.why, "auto: 1 active RDMA port, 0 zero-copy and 0 copy-mode XDP RX queues; the max_mr_size "
                            "cap is unknown (no valid cache: rdmalimits probe --save)");
        /* a kernel without the netdev family: AF_XDP unknown, no queue counted */
        put_cache_mr(1, 0, false, false, UINT64_C(1) << 40, -EOPNOTSUPP);
        assert_int_equal(decide("root", 0, &d), 0);
        assert_string_equal(d.why, "auto: 1 active RDMA port, 0 zero-copy and 0 copy-mode XDP RX queues; AF_XDP "
                            "unknown: the kernel has no netdev netlink family");
        /* a probe that failed (a socket refused by seccomp, a timeout) is unknown too, with why:
         * it was taken for "no queues" */
        put_cache_mr(1, 0, false, false, UINT64_C(1) << 40, -EAFNOSUPPORT);
        assert_int_equal(decide("root", 0, &d), 0);
        assert_string_equal(d.why, "auto: 1 active RDMA port, 0 zero-copy and 0 copy-mode XDP RX queues; AF_XDP "
                            "unknown: the netdev netlink probe failed (Address family not supported by protocol)");

        /* no hardware: the fallback, or nothing */
        put_cache(0, 1, false, false);
        assert_int_equal(decide("root", 0, &d), 0);
        assert_int_equal(d.outcome, LOGIN_UNTOUCHED);
        assert_string_equal(d.why, "auto: 0 active RDMA ports, 0 zero-copy and 0 copy-mode XDP RX queues; "
                            "1 RDMA device could not be read in sysfs");
        {
                char want[2 * PATH_MAX + 1024];
                snprintf(want, sizeof want, "I user=root job=7 %s: auto found no RDMA/AF_XDP hardware and the "
                         "policy has no fallback: memlock left unchanged (%s)\n", rule, d.why);
                expect_log(want);
        }
        put_policy("version = 1;\nhardware = { include = [ \"lo\" ]; fallback = \"8M\"; };\n"
                   "rules = ( { user = \"root\"; memlock = \"auto\"; } );\n");
        put_cache(0, 2, false, false);
        assert_int_equal(decide("root", 0, &d), 0);
        expect_log("");
        assert_int_equal(d.outcome, LOGIN_APPLY);
        assert_true(d.target.soft == 8 * MiB);
        assert_string_equal(d.why, "auto: no RDMA/AF_XDP hardware found, fallback 8 MiB; "
                            "2 RDMA devices could not be read in sysfs");
}

/* a fixed value never reads the hardware, and says nothing of it */
static void test_fixed(void **state) {
        struct login_decision d;
        (void)state;
        if (!is_root())
                return;
        put_policy("version = 1;\n" HW "lower = true;\nrules = ( { user = \"root\"; memlock = \"3M\"; hard = \"5M\"; } );\n");
        put_cache(1, 2, true, false);
        assert_int_equal(decide("root", 0, &d), 0);
        expect_log("");
        assert_int_equal(d.outcome, LOGIN_APPLY);
        assert_string_equal(d.why, "fixed value");
        assert_true(d.target.soft == 3 * MiB && d.target.hard == 5 * MiB);
        assert_true(d.lower);

        /* the hardware read for another rule of the user's groups, a fixed one decides: nothing
         * said of the hardware */
        put_policy("version = 1;\n" HW "rules = ( { group = \"root\"; memlock = \"64M\"; },\n"
                   "  { group = \"root\"; memlock = \"auto\"; } );\n");
        put_cache(1, 2, true, false);
        assert_int_equal(decide("root", 0, &d), 0);
        assert_int_equal(d.outcome, LOGIN_APPLY);
        assert_true(d.target.soft == 64 * MiB);
        assert_string_equal(d.why, "fixed value");
}

/* a user no rule names, with debug and without */
static void test_no_rule(void **state) {
        struct login_decision d;
        struct login_opts o = { .conf = conf, .cache = cache, .debug = true };
        char want[PATH_MAX + 128];
        (void)state;
        if (!is_root())
                return;
        put_policy("version = 1;\nrules = ( { user = \"nobody-else\"; memlock = \"3M\"; } );\n");
        assert_int_equal(decide("root", 0, &d), 0);
        assert_int_equal(d.outcome, LOGIN_NO_RULE);
        expect_log("");
        assert_int_equal(login_decide(&front, &o, "root", 0, &d), 0);
        snprintf(want, sizeof want, "D user=root job=7: no rule of %s matches, memlock left unchanged\n", conf);
        expect_log(want);
}

/* users NSS does not know, by name and by uid: -ENOENT, the name escaped */
static void test_unknown_user(void **state) {
        struct login_decision d, before;
        (void)state;
        if (!is_root())
                return;
        put_policy("version = 1;\nrules = ( { group = \"root\"; memlock = \"3M\"; } );\n");
        assert_int_equal(decide("no-such-user-\x1b[2J", 0, &d), -ENOENT);
        expect_log("E cannot look up user no-such-user-\\x1b[2J: no such user\n");
        memset(&before, 0xa5, sizeof before);
        assert_memory_equal(&d, &before, sizeof d);      /* *ret untouched on failure */
        logbuf[0] = '\0';
        assert_int_equal(decide(NULL, 3999999999u, &d), -ENOENT);
        expect_log("E cannot look up uid 3999999999: no such user\n");
        /* root through its group */
        logbuf[0] = '\0';
        assert_int_equal(decide("root", 0, &d), 0);
        assert_int_equal(d.outcome, LOGIN_APPLY);
        assert_true(d.target.soft == 3 * MiB);
}

/* the policy file missing, refused, invalid, too large */
static void test_bad_policy(void **state) {
        struct login_decision d;
        char want[PATH_MAX + 256];
        (void)state;
        if (!is_root())
                return;
        put_policy("version = 1;\nrules = ();\n");
        assert_int_equal(unlink(conf), 0);
        assert_int_equal(decide("root", 0, &d), -ENOENT);
        snprintf(want, sizeof want, "W %s does not exist: memlock left unchanged\n", conf);
        expect_log(want);

        put_policy("version = 1;\nrules = ( { user = \"root\"; memlock = \"3M\"; } );\n");
        assert_int_equal(chmod(conf, 0664), 0);
        assert_true(decide("root", 0, &d) < 0);
        assert_non_null(strstr(logbuf, ": refusing the policy, memlock left unchanged\n"));
        assert_true(logbuf[0] == 'E');

        put_policy("version = 1;\nrules = ( { user = \"root\"; memlock = \"lots\"; } );\n");
        assert_int_equal(decide("root", 0, &d), -EINVAL);
        snprintf(want, sizeof want, "E %s: invalid policy: memlock left unchanged\n", conf);
        assert_non_null(strstr(logbuf, want));
        assert_non_null(strstr(logbuf, "E "));
        /* the finding names file:line */
        snprintf(want, sizeof want, "E %s:2: ", conf);
        assert_true(strncmp(logbuf, want, strlen(want)) == 0);

        {
                size_t n = POLICY_MAX_BYTES + 2;
                char *big = malloc(n + 1);
                memset(big, '#', n);
                big[n] = '\0';
                put_policy(big);
                free(big);
        }
        assert_int_equal(decide("root", 0, &d), -EFBIG);
        snprintf(want, sizeof want, "E %s: larger than %u bytes: refusing the policy\n", conf, POLICY_MAX_BYTES);
        expect_log(want);

        /* a valid policy with a warning: logged as a warning (file:line), and the rule applies */
        put_policy("version = 1;\nrules = ( { user = \"root\"; memlock = \"3M\"; },\n"
                   "  { user = \"root\"; memlock = \"4M\"; } );\n");
        assert_int_equal(decide("root", 0, &d), 0);
        assert_int_equal(d.outcome, LOGIN_APPLY);
        assert_true(d.target.soft == 3 * MiB);
        snprintf(want, sizeof want, "W %s:3: another rule for user \"root\" is at line 2 and wins, ignoring this one\n",
                 conf);
        assert_true(strncmp(logbuf, want, strlen(want)) == 0);
}

/* a cache refused is said; a missing one is routine; either way the live probe decides */
static void test_cache_refused(void **state) {
        struct login_decision d;
        struct login_opts o = { .conf = conf, .cache = cache, .debug = true };
        char want[PATH_MAX + 256];
        (void)state;
        if (!is_root())
                return;
        put_policy("version = 1;\n" HW "rules = ( { user = \"root\"; memlock = \"auto\"; } );\n");
        put_cache(1, 0, false, false);
        assert_int_equal(chmod(cache, 0666), 0);
        assert_int_equal(login_decide(&front, &o, "root", 0, &d), 0);
        snprintf(want, sizeof want, "W %s: %s: not using the cache (run rdmalimits probe --save)\n", cache,
                 hw_cache_strerror(FS_ERR_MODE));
        assert_true(strncmp(logbuf, want, strlen(want)) == 0);
        assert_non_null(strstr(logbuf, "D hardware (probed): "));
        assert_null(strstr(d.why, "1 active RDMA port,"));      /* the cache's port is not counted */

        assert_int_equal(unlink(cache), 0);
        logbuf[0] = '\0';
        assert_int_equal(decide("root", 0, &d), 0);
        expect_log("");                                          /* no cache: nothing to say */

        put_cache(1, 0, false, false);
        logbuf[0] = '\0';
        assert_int_equal(login_decide(&front, &o, "root", 0, &d), 0);
        assert_true(strncmp(logbuf, "D hardware (from the cache): 1 RDMA device(s), 1 active port(s); ", 65) == 0);
        assert_string_equal(d.why, "auto: 1 active RDMA port, 0 zero-copy and 0 copy-mode XDP RX queues");
}

static int cap_drop_sys_resource(void) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct c[2];
        if (syscall(SYS_capget, &h, c) < 0)
                return -1;
        c[CAP_SYS_RESOURCE / 32].effective &= ~(1u << (CAP_SYS_RESOURCE % 32));
        c[CAP_SYS_RESOURCE / 32].permitted &= ~(1u << (CAP_SYS_RESOURCE % 32));
        return (int)syscall(SYS_capset, &h, c);
}

static struct rlimit memlock(void) {
        struct rlimit r;
        assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &r), 0);
        return r;
}

/* login_apply(): raised, already so, lowered only when asked, the closest value on EPERM */
static void apply_child(void **state) {
        struct login_decision d = { .outcome = LOGIN_APPLY, .who = "user=u", .rule = "rule user u (f:1)",
                                    .why = "fixed value" };
        struct login_applied a;
        (void)state;

        assert_int_equal(cap_drop_sys_resource(), 0);
        assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &(struct rlimit){ 1 * MiB, 4 * MiB }), 0);

        d.target = (struct rl_pair){ 2 * MiB, 4 * MiB };
        logbuf[0] = '\0';
        assert_int_equal(login_apply(&front, &d, &a), 0);
        assert_int_equal(a.outcome, LOGIN_APPLIED);
        assert_true(a.before.soft == 1 * MiB && a.before.hard == 4 * MiB);
        assert_true(a.got.soft == 2 * MiB && a.got.hard == 4 * MiB);
        assert_true(memlock().rlim_cur == 2 * MiB);
        expect_log("I user=u rule user u (f:1): memlock soft=2 MiB hard=4 MiB (fixed value)\n");

        logbuf[0] = '\0';
        assert_int_equal(login_apply(&front, &d, &a), 0);
        assert_int_equal(a.outcome, LOGIN_ALREADY);
        expect_log("I user=u rule user u (f:1): memlock soft=2 MiB hard=4 MiB (already so) (fixed value)\n");
        /* ... without a setrlimit() call at all (one that would fail is not made) */
        logbuf[0] = '\0';
        fault_arm("setrlimit", NULL, 1, EPERM);
        assert_int_equal(login_apply(&front, &d, &a), 0);
        assert_int_equal(fault_injected(), 0);
        fault_disarm();
        assert_int_equal(a.outcome, LOGIN_ALREADY);
        assert_int_equal(causes, 0);

        /* lower: only when the decision says so */
        d.target = (struct rl_pair){ 1 * MiB, 3 * MiB };
        logbuf[0] = '\0';
        assert_int_equal(login_apply(&front, &d, &a), 0);
        assert_int_equal(a.outcome, LOGIN_ALREADY);
        assert_true(memlock().rlim_cur == 2 * MiB && memlock().rlim_max == 4 * MiB);
        d.lower = true;
        assert_int_equal(login_apply(&front, &d, &a), 0);
        assert_int_equal(a.outcome, LOGIN_APPLIED);
        assert_true(memlock().rlim_cur == 1 * MiB && memlock().rlim_max == 3 * MiB);
        d.lower = false;

        /* above the hard limit, without CAP_SYS_RESOURCE: the closest value, the cause */
        d.target = (struct rl_pair){ 5 * MiB, 6 * MiB };
        logbuf[0] = '\0';
        assert_int_equal(login_apply(&front, &d, &a), 0);
        assert_int_equal(a.outcome, LOGIN_PARTIAL);
        assert_int_equal(a.err, EPERM);
        assert_int_equal(causes, 1);
        assert_true(a.before.soft == 1 * MiB && a.before.hard == 3 * MiB);
        assert_true(a.got.soft == 3 * MiB && a.got.hard == 3 * MiB);
        assert_true(memlock().rlim_cur == 3 * MiB && memlock().rlim_max == 3 * MiB);
        expect_log("W user=u rule user u (f:1): wanted memlock soft=5 MiB hard=6 MiB, set soft=3 MiB hard=3 MiB: setrlimit: "
                   "Operation not permitted: cause(3 MiB,6M)\n");
        {
                char buf[256];
                assert_string_equal(login_shortfall_text(&d, &a, "user u", buf, sizeof buf),
                                    "memlock is 3 MiB, not 5 MiB: user u cannot raise its hard limit (see rdmalimits doctor)");
                d.target.soft = 2 * MiB;
                assert_string_equal(login_shortfall_text(&d, &a, "user u", buf, sizeof buf),
                                    "the memlock hard limit is 3 MiB, not 6 MiB: user u cannot raise its hard limit "
                                    "(see rdmalimits doctor)");
        }
        /* getrlimit() or setrlimit() failing otherwise: the error, logged, nothing set */
        d.target = (struct rl_pair){ 3 * MiB, 3 * MiB };
        d.target.soft = 2 * MiB;
        d.lower = true;
        logbuf[0] = '\0';
        fault_arm("setrlimit", NULL, 1, EINVAL);
        assert_int_equal(login_apply(&front, &d, &a), -EINVAL);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        expect_log("E user=u rule user u (f:1): setrlimit(RLIMIT_MEMLOCK) failed: Invalid argument\n");
        assert_true(memlock().rlim_cur == 3 * MiB);
        logbuf[0] = '\0';
        fault_arm("getrlimit", NULL, 1, EFAULT);
        assert_int_equal(login_apply(&front, &d, &a), -EFAULT);
        fault_disarm();
        expect_log("E user=u rule user u (f:1): setrlimit(RLIMIT_MEMLOCK) failed: Bad address\n");
        assert_true(memlock().rlim_cur == 3 * MiB);
        d.lower = false;

        /* already at the closest value: the same warning, nothing changed */
        d.target = (struct rl_pair){ 5 * MiB, 6 * MiB };
        causes = 0;
        assert_int_equal(login_apply(&front, &d, &a), 0);
        assert_int_equal(a.outcome, LOGIN_PARTIAL);
        assert_int_equal(causes, 1);
        assert_true(a.got.soft == 3 * MiB && a.got.hard == 3 * MiB);
}

static void test_apply(void **state) {
        int status;
        (void)state;
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                /* a failed assertion in the child longjmps nowhere useful: run it under its own
                 * group, whose report goes to stderr (stdout is the parent's TAP) */
                fflush(stdout);
                if (dup2(2, 1) < 0)
                        _exit(2);
                const struct CMUnitTest t[] = { cmocka_unit_test(apply_child) };
                _exit(cmocka_run_group_tests_name("apply (child)", t, NULL, NULL) == 0 ? 0 : 1);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
}

/* every allocation failing in turn: an error, or the decision of the run without a fault,
 * never another one (a rule missed because a look-up failed) */
static void test_alloc(void **state) {
        struct login_decision want, d;
        (void)state;
        if (!is_root() || !fault_alloc_supported())
                return;
        put_policy("version = 1;\n" HW "rules = ( { group = \"nogroup-x\"; memlock = \"5M\"; },\n"
                   "  { group = \"root\"; memlock = \"auto\"; } );\n");
        put_cache(1, 1, true, false);
        assert_int_equal(decide("root", 0, &want), 0);
        assert_int_equal(want.outcome, LOGIN_APPLY);
        unsigned failed = 0;
        for (unsigned long n = 1;; n++) {
                logbuf[0] = '\0';
                fault_arm("alloc", NULL, n, ENOMEM);
                int r = decide("root", 0, &d);
                bool hit = fault_injected() > 0;
                fault_disarm();
                if (!hit) {
                        assert_int_equal(r, 0);
                        break;
                }
                if (r < 0) {
                        failed++;
                        if (logbuf[0] == '\0')
                                fail_msg("allocation %lu failing: %d, and nothing said", n, r);
                        /* the failure itself, not what going on without its result gives */
                        if (r != -ENOMEM)
                                fail_msg("allocation %lu failing: %s, not -ENOMEM; log:\n%s", n, strerror(-r), logbuf);
                        continue;
                }
                if (d.outcome != want.outcome || d.target.soft != want.target.soft || d.target.hard != want.target.hard ||
                    !streq(d.rule, want.rule) || !streq(d.why, want.why))
                        fail_msg("allocation %lu failing: %s, %s (%llu), not %s, %s (%llu)", n, d.rule, d.why,
                                 (unsigned long long)d.target.soft, want.rule, want.why,
                                 (unsigned long long)want.target.soft);
        }
        assert_true(failed > 0);
}

/* the options, the last one given counting */
static void test_args(void **state) {
        struct login_args a;
        (void)state;
        login_args_init(&a);
        assert_string_equal(a.conf, POLICY_PATH);
        assert_string_equal(a.cache, HW_CACHE_PATH);
        assert_false(a.conf_given || a.cache_given || a.debug || a.strict || a.quiet);
        assert_true(login_arg(&a, "conf=/x"));
        assert_string_equal(a.conf, "/x");
        assert_true(a.conf_given);
        assert_false(login_arg(&a, "conf="));
        assert_string_equal(a.conf, "/x");
        assert_true(login_arg(&a, "cache="));
        assert_null(a.cache);
        assert_true(a.cache_given);
        assert_true(login_arg(&a, "cache=/c"));
        assert_string_equal(a.cache, "/c");
        assert_true(login_arg(&a, "debug") && a.debug);
        assert_true(login_arg(&a, "strict") && a.strict);
        assert_true(login_arg(&a, "quiet") && a.quiet);
        assert_false(login_arg(&a, "debugx"));
        assert_false(login_arg(&a, "Debug"));
}

UNIT_MAIN(setup, unit_teardown,
          cmocka_unit_test(test_args),
          cmocka_unit_test(test_auto_words),
          cmocka_unit_test(test_fixed),
          cmocka_unit_test(test_no_rule),
          cmocka_unit_test(test_unknown_user),
          cmocka_unit_test(test_bad_policy),
          cmocka_unit_test(test_cache_refused),
          cmocka_unit_test(test_apply), cmocka_unit_test(test_alloc))
