/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pam_limits model per release.  Seven releases are checked against real modules by the
 * differential test (tests/diff); the others (RHEL 8's 1.3.1, RHEL 9's 1.5.1, 1.5.3, 1.6.0,
 * 1.6.1, 1.7.1, 1.7.2) only here, by cases derived from each tag's
 * modules/pam_limits/pam_limits.c.  The comment above each case names the functions of the
 * tags it derives from.  Trees are small: one file (lc_tree_load_text) or a throwaway root
 * (lc_tree_load_args) with limits.conf, limits.d and a vendor directory.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "ident-files.h"
#include "ident.h"
#include "limitsconf.h"

#define KiB UINT64_C(1024)
#define MiB (KiB * 1024)
#define INF UINT64_MAX
#define NR_OPEN UINT64_C(1048576)

/* the releases only modelled from their source */
static const char *const source_only[] = {
        "upstream-1.3.1", "upstream-1.5.1", "upstream-1.5.3", "upstream-1.6.0",
        "upstream-1.6.1", "upstream-1.7.1", "upstream-1.7.2",
};
/* the 1024-byte fgets() reader (< 1.6.0) and the getline() reader */
static const char *const fgets_releases[] = { "upstream-1.3.1", "upstream-1.5.1", "upstream-1.5.3" };
static const char *const getline_releases[] = { "upstream-1.6.0", "upstream-1.6.1", "upstream-1.7.1",
                                                "upstream-1.7.2" };

static char root[] = "/tmp/test-flavours-XXXXXX";
static struct ident *id;

static enum lc_flavour flavour(const char *name) {
        enum lc_flavour f;
        assert_int_equal(lc_flavour_from_string(name, &f), 0);
        return f;
}

/* ---- the throwaway root ---- */

static void put(const char *rel, const char *text) {
        unit_put(root, rel, text);
}

static void put_link(const char *rel, const char *target) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", root, rel);
        (void)unlink(p);
        assert_int_equal(symlink(target, p), 0);
}

/* a fresh etc/security and no vendor directory */
static void clear_tree(void) {
        char p[PATH_MAX];
        assert_int_equal(unit_rm_rf(unit_path(p, root, "etc/security")), 0);
        assert_int_equal(unit_rm_rf(unit_path(p, root, "usr")), 0);
        unit_mkdir_p(root, "etc/security/limits.d");
}

static int setup(void **state) {
        (void)state;
        if (unit_tree(root, (const struct unit_file[]){
                    { "etc/passwd", "root:x:0:0::/root:/bin/sh\n"
                                    "alice:x:1001:1001::/home/alice:/bin/sh\n"
                                    "bob:x:1002:2000::/home/bob:/bin/sh\n" },
                    { "etc/group", "root:x:0:\nalice:x:1001:\nrdma:x:2000:alice\n" },
                    { "proc/1/limits",
                      "Limit                     Soft Limit           Hard Limit           Units     \n"
                      "Max open files            1024                 524288               files     \n"
                      "Max locked memory         65536                65536                bytes     \n" },
                    {},
            }) < 0)
                return -1;
        return ident_new(root, &id) < 0 ? -1 : 0;
}

static int teardown(void **state) {
        ident_free(id);
        return unit_teardown(state);
}

/* ---- one session ---- */

/* The process that opens the session: sshd as root without CAP_SYS_RESOURCE unless cap. */
static struct lc_service service(bool cap) {
        struct lc_service s = { .known = true, .cap_sys_resource = cap, .nr_open = NR_OPEN };
        snprintf(s.source, sizeof s.source, "test");
        for (int i = 0; i < RLIM_NLIMITS; i++) {
                s.rl[i].known = true;
                s.rl[i].soft = s.rl[i].hard = INF;
        }
        s.rl[RLIMIT_MEMLOCK].soft = s.rl[RLIMIT_MEMLOCK].hard = 8 * MiB;
        s.rl[RLIMIT_NOFILE].soft = 1024;
        s.rl[RLIMIT_NOFILE].hard = NR_OPEN;
        s.rl[RLIMIT_NICE].soft = s.rl[RLIMIT_NICE].hard = 0;
        s.rl[RLIMIT_RTPRIO].soft = s.rl[RLIMIT_RTPRIO].hard = 0;
        return s;
}

struct run {
        struct lc_tree *t;
        struct lc_baseline b;
        struct lc_result r;
        struct lc_session s;
};

static void run_tree(struct run *x, struct lc_tree *t, const char *user, const struct lc_service *svc) {
        char p[512];
        snprintf(p, sizeof p, "%s/proc/1/limits", root);
        x->t = t;
        assert_int_equal(lc_baseline_load(t, p, &x->b), 0);
        assert_int_equal(lc_resolve(t, id, user, &x->b, &x->r), 0);
        assert_int_equal(lc_session_outcome(t, &x->r, svc, &x->s), 0);
}

static void run_text(struct run *x, const char *release, const char *text, const char *user, bool cap) {
        struct lc_tree *t = NULL;
        struct lc_service svc = service(cap);
        assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), flavour(release), &t), 0);
        run_tree(x, t, user, &svc);
}

static void run_root_svc(struct run *x, const char *release, const struct lc_args *a, const char *user,
                         const struct lc_service *svc) {
        struct lc_tree *t = NULL;
        assert_int_equal(lc_tree_load_args(root, flavour(release), a, &t), 0);
        run_tree(x, t, user, svc);
}

static void run_root(struct run *x, const char *release, const struct lc_args *a, const char *user) {
        struct lc_service svc = service(true);
        run_root_svc(x, release, a, user, &svc);
}

static void run_done(struct run *x) {
        lc_result_clear(&x->r);
        lc_tree_free(x->t);
        *x = (struct run){};
}

/* the event of the line at lineno for slot, or NULL */
static const struct lc_event *event(const struct run *x, unsigned lineno, unsigned slot) {
        for (size_t i = 0; i < x->r.n_events; i++)
                if (x->r.events[i].line->lineno == lineno && x->r.events[i].slot == slot)
                        return &x->r.events[i];
        return NULL;
}

static void assert_event(const struct run *x, unsigned lineno, unsigned slot, enum lc_outcome out) {
        const struct lc_event *e = event(x, lineno, slot);
        assert_non_null(e);
        assert_int_equal(e->outcome, out);
}

static void assert_contains(const char *s, const char *needle) {
        if (!strstr(s, needle))
                fail_msg("'%s' does not contain '%s'", s, needle);
}

/* the memlock the session ends with */
static void assert_memlock(const struct run *x, uint64_t soft, uint64_t hard) {
        assert_int_equal(x->s.kind, LC_SESSION_LIMITS);
        assert_true(x->s.memlock_known);
        assert_true(x->s.memlock_soft == soft);
        assert_true(x->s.memlock_hard == hard);
}

/* ---- names and behaviour flags ---- */

/* Every release name maps to its value and back; "debian" and "upstream" are the newest. */
static void test_names(void **state) {
        static const struct {
                const char *name;
                int major, minor, patch, debian;
        } names[] = {
                { "upstream-1.3.1", 1, 3, 1, 0 }, { "upstream-1.4.0", 1, 4, 0, 0 },
                { "upstream-1.5.0", 1, 5, 0, 0 }, { "upstream-1.5.1", 1, 5, 1, 0 },
                { "upstream-1.5.2", 1, 5, 2, 0 }, { "upstream-1.5.3", 1, 5, 3, 0 },
                { "upstream-1.6.0", 1, 6, 0, 0 }, { "upstream-1.6.1", 1, 6, 1, 0 },
                { "upstream-1.7.0", 1, 7, 0, 0 }, { "upstream-1.7.1", 1, 7, 1, 0 },
                { "upstream-1.7.2", 1, 7, 2, 0 }, { "debian-1.4.0", 1, 4, 0, 1 },
                { "debian-1.5.2", 1, 5, 2, 1 },   { "debian-1.5.3", 1, 5, 3, 1 },
                { "debian-1.7.0", 1, 7, 0, 1 },
        };
        static const char *const bad[] = {
                "", "upstream-", "upstream-1.3.0", "upstream-1.2.1", "upstream-0.99.0",
                "upstream-2.0.0", "upstream-1.5", "upstream-1.5.2 ", " upstream-1.5.2", "upstream-1.5.2.1",
                "Upstream-1.5.2", "redhat-1.5.1", "debian-1.5.2-6", "upstream-1.100.0", "upstream-1.-5.2",
                "auto",
        };
        enum lc_flavour f, newest_up = LC_FLAVOUR_AUTO, newest_deb = LC_FLAVOUR_AUTO;
        char fl[LC_FLAVOUR_NAME_MAX];
        (void)state;

        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
                int want = LC_FLAVOUR_MAKE(names[i].major, names[i].minor, names[i].patch, names[i].debian);
                f = LC_FLAVOUR_AUTO;
                assert_int_equal(lc_flavour_from_string(names[i].name, &f), 0);
                assert_int_equal((int)f, want);
                assert_string_equal(lc_flavour_to_string(f, fl), names[i].name);
                if (names[i].debian && (int)f > (int)newest_deb)
                        newest_deb = f;
                if (!names[i].debian && (int)f > (int)newest_up)
                        newest_up = f;
        }
        /* the two short names are the newest release of each */
        assert_int_equal(lc_flavour_from_string("upstream", &f), 0);
        assert_int_equal(f, LC_FLAVOUR_UPSTREAM);
        assert_int_equal(f, newest_up);
        assert_string_equal(lc_flavour_to_string(f, fl), "upstream-1.7.2");
        assert_int_equal(lc_flavour_from_string("debian", &f), 0);
        assert_int_equal(f, LC_FLAVOUR_DEBIAN_NEWEST);
        assert_int_equal(f, newest_deb);
        assert_string_equal(lc_flavour_to_string(f, fl), "debian-1.7.0");
        assert_int_equal(LC_FLAVOUR_DEBIAN, LC_FLAVOUR_MAKE(1, 5, 2, 1));
        assert_int_equal(LC_FLAVOUR_OLDEST, LC_FLAVOUR_MAKE(1, 3, 1, 0));

        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                f = (enum lc_flavour)12345;
                if (lc_flavour_from_string(bad[i], &f) != -EINVAL)
                        fail_msg("'%s' was accepted", bad[i]);
                assert_int_equal((int)f, 12345);   /* untouched on failure */
        }
        assert_int_equal(lc_flavour_from_string(NULL, &f), -EINVAL);

        /* the model each release shares */
        assert_int_equal(lc_flavour_model(flavour("upstream-1.3.1")), LC_FLAVOUR_MAKE(1, 5, 2, 0));
        assert_int_equal(lc_flavour_model(flavour("upstream-1.5.1")), LC_FLAVOUR_MAKE(1, 5, 2, 0));
        assert_int_equal(lc_flavour_model(flavour("upstream-1.5.3")), LC_FLAVOUR_MAKE(1, 5, 3, 0));
        assert_int_equal(lc_flavour_model(flavour("upstream-1.6.0")), LC_FLAVOUR_MAKE(1, 6, 0, 0));
        assert_int_equal(lc_flavour_model(flavour("upstream-1.6.1")), LC_FLAVOUR_UPSTREAM);
        assert_int_equal(lc_flavour_model(flavour("upstream-1.7.1")), LC_FLAVOUR_UPSTREAM);
        assert_int_equal(lc_flavour_model(flavour("debian-1.4.0")), LC_FLAVOUR_DEBIAN);
        assert_int_equal(lc_flavour_model(flavour("debian-1.7.0")), LC_FLAVOUR_DEBIAN_NEWEST);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))
/* for each release name rel of the array list */
#define FOR_EACH_REL(rel, list)                                                       \
        for (const char *const *rel##_p = (list); rel##_p < (list) + N(list); rel##_p++) \
                for (const char *rel = *rel##_p; rel; rel = NULL)
/* an assertion that names the release it failed for */
#define CHECK_REL(rel, cond)                                                          \
        do {                                                                          \
                if (!(cond))                                                          \
                        fail_msg("%s: %s:%d: %s", (rel), __FILE__, __LINE__, #cond);  \
        } while (0)

/*
 * The flags of each release, read in its pam_limits.c:
 * fgets:    parse_config_file() fgets(buf, LINE_LENGTH) + sscanf("%s%s%s%s") up to v1.5.3;
 *           getline() + split() from v1.6.0.
 * trim:     split() trims the 4th field (trim()) from v1.6.1; v1.6.0 has no trim().
 * enoent:   parse_config_file() returns PAM_SUCCESS for ENOENT unless conf= named the file,
 *           from v1.5.3; before, any fopen() failure is PAM_SERVICE_ERR.
 * nr_open:  process_limit() case RLIMIT_NOFILE, value_from_file("/proc/sys/fs/nr_open"),
 *           from v1.5.2.
 * nonewprivs: process_limit() LIMIT_NONEWPRIVS from v1.5.0.  rttime: from v1.7.1.
 * vendor:   VENDOR_SCONFIGDIR in pam_sm_open_session()/read_limits_dir() from v1.5.3 (configure
 *           --enable-vendordir, no default); meson_options.txt vendordir defaults to
 *           /usr/share/pam in v1.7.2 only.
 * Debian's patches (027 PID 1 baseline and the root rule, 032/040 silent EPERM, the chroot
 * item) are measured against the real Debian modules (tests/diff); 1.7.0-1 made the PID 1
 * baseline depend on set_all again.
 */
static void test_behaviour(void **state) {
        static const struct {
                const char *name;
                bool fgets, trim, enoent, pid1, root_rule, eperm, nr_open, nonewprivs, rttime, chroot, vcap;
                const char *vdefault;
        } t[] = {
                /*                  fgets trim enoent pid1 root eperm nr_open nnp rttime chroot vcap */
                { "upstream-1.3.1", 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL },
                { "upstream-1.4.0", 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL },
                { "upstream-1.5.0", 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, NULL },
                { "upstream-1.5.1", 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, NULL },
                { "upstream-1.5.2", 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, NULL },
                { "upstream-1.5.3", 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, NULL },
                { "upstream-1.6.0", 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, NULL },
                { "upstream-1.6.1", 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 1, NULL },
                { "upstream-1.7.0", 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 1, NULL },
                { "upstream-1.7.1", 0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 1, NULL },
                { "upstream-1.7.2", 0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 1, "/usr/share/pam/security" },
                { "debian-1.4.0", 1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 0, NULL },
                { "debian-1.5.2", 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 0, NULL },
                { "debian-1.5.3", 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, NULL },
                { "debian-1.7.0", 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, NULL },
        };
        (void)state;
        for (size_t i = 0; i < N(t); i++) {
                struct lc_behaviour b;
                const char *rel = t[i].name;
                lc_flavour_behaviour(flavour(rel), &b);
                CHECK_REL(rel, b.fgets_reader == t[i].fgets);
                CHECK_REL(rel, b.trim_value == t[i].trim);
                CHECK_REL(rel, b.enoent_ok == t[i].enoent);
                CHECK_REL(rel, b.pid1_always == t[i].pid1);
                CHECK_REL(rel, b.root_rule == t[i].root_rule);
                CHECK_REL(rel, b.eperm_silent == t[i].eperm);
                CHECK_REL(rel, b.nofile_nr_open == t[i].nr_open);
                CHECK_REL(rel, b.nonewprivs == t[i].nonewprivs);
                CHECK_REL(rel, b.rttime == t[i].rttime);
                CHECK_REL(rel, b.chroot == t[i].chroot);
                CHECK_REL(rel, b.vendor_capable == t[i].vcap);
                CHECK_REL(rel, (b.vendor_default == NULL) == (t[i].vdefault == NULL));
                if (t[i].vdefault)
                        assert_string_equal(b.vendor_default, t[i].vdefault);
        }
}

/* ---- the line reader ---- */

/* A line whose 4th field pam_limits reads as `want` (bytes) for the hard memlock, or refuses
 * (want 0: a BAD_VALUE event, the hard limit left to the service). */
static void expect_hard(const char *rel, const char *text, uint64_t want) {
        struct run x;
        run_text(&x, rel, text, "alice", true);
        CHECK_REL(rel, x.r.kind == LC_RES_LIMITS);
        if (want) {
                CHECK_REL(rel, event(&x, 1, LC_HARD) && event(&x, 1, LC_HARD)->outcome == LC_OUT_APPLIED);
                CHECK_REL(rel, x.r.hard.known && x.r.hard.value == want);
                CHECK_REL(rel, x.s.kind == LC_SESSION_LIMITS && x.s.memlock_hard == want);
        } else {
                CHECK_REL(rel, event(&x, 1, LC_HARD) && event(&x, 1, LC_HARD)->outcome == LC_OUT_BAD_VALUE);
                CHECK_REL(rel, !x.r.hard.known && x.r.hard.rank == LC_RANK_NONE);
                CHECK_REL(rel, x.s.kind == LC_SESSION_LIMITS && x.s.memlock_hard == 8 * MiB);
        }
        run_done(&x);
}

/*
 * Words after the 4th: v1.3.1..v1.5.3 parse_config_file() sscanf("%s%s%s%s") ignores them;
 * v1.6.0+ split() gives the rest of the line as the value, which process_limit() refuses
 * ("unlimited extra" is none of the keywords, strtoull() reads no digit) or reads partly.
 */
static void test_reader_extra_words(void **state) {
        (void)state;
        FOR_EACH_REL(rel, fgets_releases) {
                expect_hard(rel, "alice hard memlock unlimited extra\n", INF);
                struct run x;
                run_text(&x, rel, "alice hard memlock 2048 4096\n", "alice", true);
                CHECK_REL(rel, x.t->lines[0].nfields == 4 && x.t->lines[0].extra_words);
                CHECK_REL(rel, !x.t->lines[0].value_misread && x.r.hard.value == 2 * MiB);
                run_done(&x);
        }
        FOR_EACH_REL(rel, getline_releases) {
                expect_hard(rel, "alice hard memlock unlimited extra\n", 0);
                struct run x;
                run_text(&x, rel, "alice hard memlock 2048 4096\n", "alice", true);
                CHECK_REL(rel, x.t->lines[0].nfields == 4 && !x.t->lines[0].extra_words);
                CHECK_REL(rel, strcmp(x.t->lines[0].value, "2048 4096") == 0);
                CHECK_REL(rel, x.t->lines[0].value_misread && x.r.hard.value == 2 * MiB);
                run_done(&x);
        }
}

/*
 * CRLF: "%s" stops at '\r' (isspace), so v1.3.1..v1.5.3 read "unlimited"; v1.6.0+
 * parse_config_file() rips off only the '\n' and split() keeps the '\r' (trim() drops
 * blanks and tabs only), so "unlimited\r" is refused and "2048\r" read as 2048.
 */
static void test_reader_crlf(void **state) {
        (void)state;
        FOR_EACH_REL(rel, fgets_releases) {
                expect_hard(rel, "alice hard memlock unlimited\r\n", INF);
                expect_hard(rel, "alice hard memlock 2048\r\n", 2 * MiB);
        }
        FOR_EACH_REL(rel, getline_releases) {
                struct run x;
                expect_hard(rel, "alice hard memlock unlimited\r\n", 0);
                run_text(&x, rel, "alice hard memlock 2048\r\n", "alice", true);
                CHECK_REL(rel, x.r.hard.value == 2 * MiB && x.t->lines[0].value_misread);
                run_done(&x);
        }
}

/*
 * Blanks around the value.  v1.6.0 split(): the value is strtok_r(NULL, "") after the one
 * delimiter that ended the item, untrimmed: "unlimited " (a blank or a comment after it) and
 * " unlimited" (two blanks before it) are refused by process_limit(); "2048 " is read as 2048
 * with junk after it.  v1.6.1 split() calls trim(): all fine.  The fgets releases' "%s" never
 * sees blanks.
 */
static void test_reader_blanks(void **state) {
        static const char *const keyword_lines[] = {
                "alice hard memlock unlimited # no limit\n",
                "alice hard memlock unlimited \n",
                "alice hard memlock unlimited\t\n",
                "alice hard memlock  unlimited\n",
                "alice hard memlock \tunlimited\n",
                "alice\thard\tmemlock\t\tinfinity\n",
        };
        (void)state;
        for (size_t k = 0; k < N(keyword_lines); k++) {
                FOR_EACH_REL(rel, fgets_releases)
                        expect_hard(rel, keyword_lines[k], INF);
                expect_hard("upstream-1.6.0", keyword_lines[k], 0);
                expect_hard("upstream-1.6.1", keyword_lines[k], INF);
                expect_hard("upstream-1.7.1", keyword_lines[k], INF);
                expect_hard("upstream-1.7.2", keyword_lines[k], INF);
        }
        /* a number followed by a blank: read by both, 1.6.0 with junk after it */
        struct run x;
        run_text(&x, "upstream-1.6.0", "alice hard memlock 2048 # two MiB\n", "alice", true);
        assert_true(x.r.hard.value == 2 * MiB && x.t->lines[0].value_misread);
        assert_string_equal(x.t->lines[0].value, "2048 ");
        run_done(&x);
        run_text(&x, "upstream-1.6.1", "alice hard memlock 2048 # two MiB\n", "alice", true);
        assert_true(x.r.hard.value == 2 * MiB && !x.t->lines[0].value_misread);
        assert_string_equal(x.t->lines[0].value, "2048");
        run_done(&x);
        /* 1.6.1 trim(): a value of blanks only is no value, the line has 3 fields */
        run_text(&x, "upstream-1.6.1", "alice hard memlock \t \n", "alice", true);
        assert_int_equal(x.t->lines[0].nfields, 3);
        assert_int_equal(x.r.n_events, 0);
        run_done(&x);
}

/*
 * Separators: sscanf("%s") splits on every isspace() character (\v, \f, \r too); v1.6.0+
 * split() only on ' ' and '\t', so "alice\vhard" is one field and the line has 3 fields:
 * "invalid line", skipped.  Leading white space is skipped with isspace() by both.
 */
static void test_reader_separators(void **state) {
        (void)state;
        FOR_EACH_REL(rel, fgets_releases) {
                expect_hard(rel, "alice\vhard memlock 2048\n", 2 * MiB);
                expect_hard(rel, "\f\v alice hard\fmemlock 2048\n", 2 * MiB);
        }
        FOR_EACH_REL(rel, getline_releases) {
                struct run x;
                run_text(&x, rel, "alice\vhard memlock 2048\n", "alice", true);
                CHECK_REL(rel, x.t->lines[0].nfields == 3 && x.r.n_events == 0);
                CHECK_REL(rel, !x.r.hard.known && x.s.memlock_hard == 8 * MiB);
                run_done(&x);
                expect_hard(rel, "\f\v alice hard memlock 2048\n", 2 * MiB);
        }
        /* every release: type, item and value lowercased, the domain not; 3 fields invalid */
        FOR_EACH_REL(rel, source_only) {
                struct run x;
                expect_hard(rel, "alice HARD MemLock UNLIMITED\n", INF);
                run_text(&x, rel, "ALICE hard memlock 2048\nalice hard memlock\n", "alice", true);
                CHECK_REL(rel, x.r.n_events == 0 && !x.r.hard.known);
                CHECK_REL(rel, x.t->n_lines == 2 && x.t->lines[1].nfields == 3);
                run_done(&x);
        }
}

/*
 * A line longer than 1023 bytes: v1.3.1..v1.5.3 fgets(buf, LINE_LENGTH) returns it in pieces,
 * each parsed as a line, so the tail of a long comment is a limit line; v1.6.0+ getline()
 * reads the whole line, a comment.
 */
static void test_reader_long_line(void **state) {
        char text[2048];
        (void)state;
        text[0] = '#';
        memset(text + 1, 'x', 1022);   /* the first piece: 1023 bytes */
        snprintf(text + 1023, sizeof text - 1023, "alice hard memlock 2048\n");
        FOR_EACH_REL(rel, fgets_releases) {
                struct run x;
                expect_hard(rel, text, 2 * MiB);
                run_text(&x, rel, text, "alice", true);
                CHECK_REL(rel, x.t->n_lines == 1 && x.t->lines[0].chunk == 1 && x.t->lines[0].lineno == 1);
                CHECK_REL(rel, x.t->files[0].has_long_lines);
                run_done(&x);
        }
        FOR_EACH_REL(rel, getline_releases) {
                struct run x;
                run_text(&x, rel, text, "alice", true);
                CHECK_REL(rel, x.t->n_lines == 0 && !x.r.hard.known);
                run_done(&x);
        }
}

/* ---- files: missing, unreadable, conf=, the no-limits stop ---- */

/*
 * A missing limits.conf and a dangling limits.d link.  v1.3.1 and v1.5.1 parse_config_file():
 * fopen() fails, PAM_SERVICE_ERR, whatever errno.  v1.5.3+: "errno == ENOENT &&
 * !conf_file_set_by_user" is PAM_SUCCESS (the file is skipped); any other errno (ELOOP of a
 * link loop) and a conf= file that is missing still fail.
 */
static void test_missing_files(void **state) {
        static const char *const enoent_ok[] = { "upstream-1.5.3", "upstream-1.6.0", "upstream-1.6.1",
                                                 "upstream-1.7.1", "upstream-1.7.2" };
        static const char *const enoent_fails[] = { "upstream-1.3.1", "upstream-1.5.1" };
        struct lc_args none = { .vendor = LC_VENDOR_NONE };
        struct run x;
        (void)state;

        /* no limits.conf */
        clear_tree();
        put("etc/security/limits.d/10-a.conf", "alice hard memlock 4096\n");
        FOR_EACH_REL(rel, enoent_fails) {
                run_root(&x, rel, &none, "alice");
                CHECK_REL(rel, x.r.kind == LC_RES_SERVICE_ERR && x.s.kind == LC_SESSION_FAILS);
                CHECK_REL(rel, strcmp(x.r.bad_file->display, "etc/security/limits.conf") == 0);
                assert_contains(x.s.cause, "etc/security/limits.conf");
                assert_contains(x.s.cause, "PAM_SERVICE_ERR");
                run_done(&x);
        }
        FOR_EACH_REL(rel, enoent_ok) {
                run_root(&x, rel, &none, "alice");
                CHECK_REL(rel, x.r.kind == LC_RES_LIMITS && x.s.kind == LC_SESSION_LIMITS);
                CHECK_REL(rel, x.r.hard.value == 4 * MiB && x.s.memlock_hard == 4 * MiB);
                run_done(&x);
        }

        /* a dangling link in limits.d, read after 10-a.conf */
        put("etc/security/limits.conf", "alice soft memlock 1024\n");
        put_link("etc/security/limits.d/20-gone.conf", "/etc/security/nowhere.conf");
        FOR_EACH_REL(rel, enoent_fails) {
                run_root(&x, rel, &none, "alice");
                CHECK_REL(rel, x.r.kind == LC_RES_SERVICE_ERR && x.s.kind == LC_SESSION_FAILS);
                CHECK_REL(rel, strcmp(x.r.bad_file->display, "etc/security/limits.d/20-gone.conf") == 0);
                run_done(&x);
        }
        FOR_EACH_REL(rel, enoent_ok) {
                run_root(&x, rel, &none, "alice");
                CHECK_REL(rel, x.r.kind == LC_RES_LIMITS);
                CHECK_REL(rel, x.r.soft.value == 1 * MiB && x.r.hard.value == 4 * MiB);
                CHECK_REL(rel, x.s.memlock_soft == 1 * MiB && x.s.memlock_hard == 4 * MiB);
                run_done(&x);
        }

        /* a link loop: ELOOP fails the session in every release */
        char p[512];
        snprintf(p, sizeof p, "%s/etc/security/limits.d/20-gone.conf", root);
        assert_int_equal(unlink(p), 0);
        put_link("etc/security/limits.d/30-loop.conf", "30-loop.conf");
        FOR_EACH_REL(rel, source_only) {
                run_root(&x, rel, &none, "alice");
                CHECK_REL(rel, x.r.kind == LC_RES_SERVICE_ERR && x.s.kind == LC_SESSION_FAILS);
                CHECK_REL(rel, strcmp(x.r.bad_file->display, "etc/security/limits.d/30-loop.conf") == 0);
                CHECK_REL(rel, x.r.bad_file->open_error == -ELOOP);
                run_done(&x);
        }

        /* conf=: a missing file fails in every release (conf_file_set_by_user from v1.5.3);
         * a present one is the only file read (pam_sm_open_session() skips limits.d) */
        struct lc_args conf = { .vendor = LC_VENDOR_NONE, .conf_set = true };
        snprintf(conf.conf, sizeof conf.conf, "/etc/security/other.conf");
        FOR_EACH_REL(rel, source_only) {
                run_root(&x, rel, &conf, "alice");
                CHECK_REL(rel, x.r.kind == LC_RES_SERVICE_ERR && x.s.kind == LC_SESSION_FAILS);
                run_done(&x);
        }
        put("etc/security/other.conf", "alice - memlock 512\n");
        FOR_EACH_REL(rel, source_only) {
                run_root(&x, rel, &conf, "alice");
                CHECK_REL(rel, x.r.kind == LC_RES_LIMITS && x.t->n_files == 1);
                CHECK_REL(rel, x.s.memlock_soft == 512 * KiB && x.s.memlock_hard == 512 * KiB);
                run_done(&x);
        }
}

/*
 * The no-limits stop: parse_config_file() returns PAM_IGNORE for a matching 2-field
 * "<domain> -" line, and pam_sm_open_session() returns PAM_SUCCESS at once: no later file is
 * read (not even a failing one) and no limit is set.  The same in every tag.
 */
static void test_no_limits_stop(void **state) {
        struct lc_args none = { .vendor = LC_VENDOR_NONE };
        (void)state;
        clear_tree();
        put("etc/security/limits.conf", "alice hard memlock 1\n@rdma -\n");
        put("etc/security/limits.d/10-a.conf", "alice hard memlock 2\n");
        put_link("etc/security/limits.d/30-loop.conf", "30-loop.conf");
        FOR_EACH_REL(rel, source_only) {
                struct run x;
                run_root(&x, rel, &none, "alice");
                CHECK_REL(rel, x.r.kind == LC_RES_NO_LIMITS && x.r.stop && x.r.stop->lineno == 2);
                CHECK_REL(rel, x.s.kind == LC_SESSION_NO_LIMITS);
                CHECK_REL(rel, x.s.memlock_soft == 8 * MiB && x.s.memlock_hard == 8 * MiB);
                run_done(&x);
                /* bob (primary group rdma) too; root is not in rdma: the loop fails it */
                run_root(&x, rel, &none, "bob");
                CHECK_REL(rel, x.r.kind == LC_RES_NO_LIMITS);
                run_done(&x);
                run_root(&x, rel, &none, "root");
                CHECK_REL(rel, x.r.kind == LC_RES_SERVICE_ERR);
                run_done(&x);
        }
}

/* ---- the vendor directory ---- */

/*
 * v1.5.3+ pam_sm_open_session(): with VENDOR_LIMITS_FILE, stat(LIMITS_FILE) failing with
 * ENOENT reads the vendor's limits.conf instead; read_limits_dir() merges the vendor's
 * limits.d *.conf files unless /etc's limits.d has the same name, sorted by base name
 * (compare_filename()).  The directory is a build option; v1.7.2's meson default is
 * /usr/share/pam.  v1.3.1 and v1.5.1 have no vendor directory: a given one is not read.
 */
static void test_vendor_dir(void **state) {
        struct lc_args build = { .vendor = LC_VENDOR_BUILD };
        struct lc_args none = { .vendor = LC_VENDOR_NONE };
        struct lc_args given = { .vendor = LC_VENDOR_DIR };
        struct run x;
        (void)state;
        snprintf(given.vendordir, sizeof given.vendordir, "/usr/share/pam/security");

        /* /etc has no limits.conf */
        clear_tree();
        put("usr/share/pam/security/limits.conf", "alice hard memlock 1024\n");
        run_root(&x, "upstream-1.7.2", &build, "alice");
        assert_non_null(x.t->vendor_dir);
        assert_string_equal(x.t->vendor_dir, "/usr/share/pam/security");
        assert_string_equal(x.t->files[0].display, "usr/share/pam/security/limits.conf");
        assert_true(x.t->files[0].vendor);
        assert_memlock(&x, 1 * MiB, 1 * MiB);   /* the service's soft, clamped */
        run_done(&x);
        static const char *const no_default[] = { "upstream-1.5.3", "upstream-1.6.0", "upstream-1.6.1",
                                                  "upstream-1.7.1" };
        FOR_EACH_REL(rel, no_default) {
                /* built without a vendor directory: limits.conf is missing, which is fine */
                run_root(&x, rel, &build, "alice");
                CHECK_REL(rel, x.t->vendor_dir == NULL && x.r.kind == LC_RES_LIMITS && !x.r.hard.known);
                CHECK_REL(rel, x.s.memlock_hard == 8 * MiB);
                run_done(&x);
                /* built with one */
                run_root(&x, rel, &given, "alice");
                CHECK_REL(rel, x.t->vendor_dir && x.r.hard.value == 1 * MiB);
                run_done(&x);
        }
        static const char *const no_vendor[] = { "upstream-1.3.1", "upstream-1.5.1" };
        FOR_EACH_REL(rel, no_vendor) {
                run_root(&x, rel, &given, "alice");
                CHECK_REL(rel, x.t->vendor_dir == NULL);
                CHECK_REL(rel, x.r.kind == LC_RES_SERVICE_ERR && x.s.kind == LC_SESSION_FAILS);
                run_done(&x);
        }
        run_root(&x, "upstream-1.7.2", &none, "alice");
        assert_null(x.t->vendor_dir);
        assert_false(x.r.hard.known);
        run_done(&x);

        /* /etc has one: the vendor's is not read, its limits.d merges in by name */
        put("etc/security/limits.conf", "alice hard memlock 1\n");
        put("etc/security/limits.d/50-x.conf", "alice hard memlock 2\n");
        put("usr/share/pam/security/limits.d/40-z.conf", "alice hard memlock 4\nalice soft memlock 2\n");
        put("usr/share/pam/security/limits.d/50-x.conf", "alice hard memlock 98\n");
        put("usr/share/pam/security/limits.d/60-y.conf", "alice hard memlock 3\n");
        put("usr/share/pam/security/limits.d/70-w.txt", "alice hard memlock 97\n");
        run_root(&x, "upstream-1.7.2", &build, "alice");
        assert_int_equal(x.t->n_files, 4);
        assert_string_equal(x.t->files[0].display, "etc/security/limits.conf");
        assert_string_equal(x.t->files[1].display, "usr/share/pam/security/limits.d/40-z.conf");
        assert_string_equal(x.t->files[2].display, "etc/security/limits.d/50-x.conf");
        assert_string_equal(x.t->files[3].display, "usr/share/pam/security/limits.d/60-y.conf");
        assert_memlock(&x, 2 * KiB, 3 * KiB);
        run_done(&x);
        /* v1.5.1 reads /etc only */
        run_root(&x, "upstream-1.5.1", &given, "alice");
        assert_int_equal(x.t->n_files, 2);
        assert_memlock(&x, 2 * KiB, 2 * KiB);
        run_done(&x);
}

/* ---- items ---- */

/*
 * process_limit()'s item names: "nonewprivs" from v1.5.0 (a value of "0" or "1" only),
 * "rttime" (RLIMIT_RTTIME, unscaled) from v1.7.1; before, "unknown limit item", skipped.
 * "chroot" is a Debian patch, unknown upstream.
 */
static void test_items(void **state) {
        (void)state;
        FOR_EACH_REL(rel, source_only) {
                bool nnp = (int)flavour(rel) >= LC_FLAVOUR_MAKE(1, 5, 0, 0);
                bool rtt = (int)flavour(rel) >= LC_FLAVOUR_MAKE(1, 7, 1, 0);
                struct run x;
                run_text(&x, rel, "alice - nonewprivs 1\nalice - nonewprivs yes\nalice hard rttime 5000\n"
                                  "alice - chroot /srv\n", "alice", true);
                CHECK_REL(rel, x.t->n_lines == 4);
                CHECK_REL(rel, x.t->lines[0].item_kind == (nnp ? LC_ITEM_NONEWPRIVS : LC_ITEM_UNKNOWN));
                CHECK_REL(rel, !nnp || !x.t->lines[1].value_ok);
                CHECK_REL(rel, x.t->lines[2].resource == (rtt ? RLIMIT_RTTIME : -1));
                CHECK_REL(rel, x.t->lines[3].item_kind == LC_ITEM_UNKNOWN);
                const struct lc_slot *h = &x.r.rl_hard[RLIMIT_RTTIME];
                if (rtt)
                        CHECK_REL(rel, h->known && h->value == 5000 && h->rank == LC_RANK_USER && h->src == &x.t->lines[2]);
                else
                        CHECK_REL(rel, !h->known && h->rank == LC_RANK_NONE);
                CHECK_REL(rel, x.s.kind == LC_SESSION_LIMITS);
                run_done(&x);
        }
        struct run x;
        run_text(&x, "debian-1.5.2", "alice - chroot /srv\n", "alice", true);
        assert_int_equal(x.t->lines[0].item_kind, LC_ITEM_CHROOT);
        run_done(&x);
}

/*
 * nofile unlimited: from v1.5.2 process_limit() sets it to /proc/sys/fs/nr_open
 * (value_from_file()); before, setup_limits() calls setrlimit(RLIMIT_NOFILE, RLIM_INFINITY),
 * which the kernel refuses (above fs.nr_open), and pam_sm_open_session() returns
 * PAM_PERM_DENIED, even for a service with CAP_SYS_RESOURCE.
 */
static void test_nofile_unlimited(void **state) {
        (void)state;
        FOR_EACH_REL(rel, source_only) {
                bool mapped = (int)flavour(rel) >= LC_FLAVOUR_MAKE(1, 5, 2, 0);
                struct run x;
                run_text(&x, rel, "alice - nofile unlimited\n", "alice", true);
                CHECK_REL(rel, x.r.rl_hard[RLIMIT_NOFILE].value == INF && x.r.rl_soft[RLIMIT_NOFILE].value == INF);
                if (mapped)
                        CHECK_REL(rel, x.s.kind == LC_SESSION_LIMITS);
                else {
                        CHECK_REL(rel, x.s.kind == LC_SESSION_REFUSED);
                        assert_contains(x.s.cause, "limits.conf:1");
                        assert_contains(x.s.cause, "nofile");
                        assert_contains(x.s.cause, "PAM_PERM_DENIED");
                }
                run_done(&x);
                /* a number above fs.nr_open fails in every release */
                run_text(&x, rel, "alice hard nofile 2000000\n", "alice", true);
                CHECK_REL(rel, x.s.kind == LC_SESSION_REFUSED);
                run_done(&x);
        }
}

/* ---- setup_limits(): what the kernel refuses ---- */

/*
 * v1.3.1..v1.7.2 setup_limits(): every initialised item is set with setrlimit(); one failure
 * makes retval LIMIT_ERR and pam_sm_open_session() returns PAM_PERM_DENIED (the login is
 * refused).  Raising a hard limit above the service's own needs CAP_SYS_RESOURCE; a soft value
 * above the hard is set to the hard first; a login limit of 0 refuses every session but
 * uid 0's.  Debian (patches 032, 040) keeps the old value silently.
 */
static void test_setrlimit_failures(void **state) {
        (void)state;
        FOR_EACH_REL(rel, source_only) {
                struct run x;
                /* 16 GiB hard, sshd's hard is 8 MiB */
                run_text(&x, rel, "alice hard memlock 16777216\n", "alice", false);
                CHECK_REL(rel, x.r.kind == LC_RES_LIMITS && x.r.hard.value == 16 * 1024 * MiB);
                CHECK_REL(rel, x.s.kind == LC_SESSION_REFUSED);
                assert_contains(x.s.cause, "limits.conf:1");
                assert_contains(x.s.cause, "CAP_SYS_RESOURCE");
                assert_contains(x.s.cause, "PAM_PERM_DENIED");
                CHECK_REL(rel, x.s.memlock_soft == 8 * MiB && x.s.memlock_hard == 8 * MiB);
                run_done(&x);
                run_text(&x, rel, "alice hard memlock 16777216\n", "alice", true);
                CHECK_REL(rel, x.s.kind == LC_SESSION_LIMITS);
                CHECK_REL(rel, x.s.memlock_soft == 8 * MiB && x.s.memlock_hard == 16 * 1024 * MiB);
                run_done(&x);
                /* soft alone above the hard: clamped, nothing fails */
                run_text(&x, rel, "alice soft memlock unlimited\n", "alice", false);
                assert_memlock(&x, 8 * MiB, 8 * MiB);
                run_done(&x);
                /* lowering is always allowed */
                run_text(&x, rel, "alice - memlock 64\n", "alice", false);
                assert_memlock(&x, 64 * KiB, 64 * KiB);
                run_done(&x);
                /* nice -10 is RLIMIT_NICE 30, above the service's 0 */
                run_text(&x, rel, "alice hard nice -10\n", "alice", false);
                CHECK_REL(rel, x.r.rl_hard[RLIMIT_NICE].value == 30 && x.s.kind == LC_SESSION_REFUSED);
                assert_contains(x.s.cause, "nice");
                run_done(&x);
                /* maxlogins 0: refused, but not for uid 0 */
                run_text(&x, rel, "alice - maxlogins 0\nroot - maxlogins 0\n", "alice", true);
                CHECK_REL(rel, x.r.kind == LC_RES_LOGINS_DENIED && x.s.kind == LC_SESSION_REFUSED);
                assert_contains(x.s.cause, "maxlogins 0");
                run_done(&x);
                run_text(&x, rel, "alice - maxlogins 0\nroot - maxlogins 0\n", "root", true);
                CHECK_REL(rel, x.r.kind == LC_RES_LIMITS && x.s.kind == LC_SESSION_LIMITS);
                run_done(&x);
        }
        /* Debian: the failing setrlimit is silent and the old value stays */
        struct run x;
        run_text(&x, "debian-1.5.2", "alice hard memlock 16777216\n", "alice", false);
        assert_memlock(&x, 8 * MiB, 8 * MiB);
        run_done(&x);
}

/* ---- set_all and PID 1's limits ---- */

/*
 * v1.3.1..v1.7.2 init_limits(): only with set_all does parse_kernel_limits() read
 * /proc/1/limits, each row found becoming the item's value at rank LIMITS_DEF_KERNEL, which a
 * '*' line (LIMITS_DEF_DEFAULT) overrides; setup_limits() then sets every such item, so a PID
 * 1 hard limit above the service's refuses the login.  Without set_all the items stay
 * LIMITS_DEF_NONE, inherited.  Debian < 1.7 (patch 027) always reads PID 1's; Debian 1.7.0
 * only with set_all.
 */
static void test_set_all(void **state) {
        static const char *const rels[] = { "upstream-1.3.1", "upstream-1.5.1", "upstream-1.5.3", "upstream-1.6.0",
                                            "upstream-1.6.1", "upstream-1.7.1", "upstream-1.7.2", "debian-1.7.0" };
        struct lc_args plain = { .vendor = LC_VENDOR_NONE };
        struct lc_args set_all = { .vendor = LC_VENDOR_NONE, .set_all = true };
        struct lc_service svc = service(false);
        struct run x;
        (void)state;

        clear_tree();
        put("etc/security/limits.conf", "# nothing\n");
        FOR_EACH_REL(rel, rels) {
                run_root_svc(&x, rel, &plain, "alice", &svc);
                CHECK_REL(rel, !x.b.known && x.b.rank == LC_RANK_NONE);
                CHECK_REL(rel, x.r.rl_hard[RLIMIT_NOFILE].rank == LC_RANK_NONE);
                CHECK_REL(rel, x.s.kind == LC_SESSION_LIMITS && x.s.memlock_hard == 8 * MiB);
                run_done(&x);
                run_root_svc(&x, rel, &set_all, "alice", &svc);
                CHECK_REL(rel, x.b.known && x.b.rank == LC_RANK_KERNEL);
                CHECK_REL(rel, x.b.soft == 65536 && x.b.hard == 65536);
                CHECK_REL(rel, x.r.rl_hard[RLIMIT_NOFILE].rank == LC_RANK_KERNEL);
                CHECK_REL(rel, x.r.rl_hard[RLIMIT_NOFILE].value == 524288);
                /* rows /proc/1/limits lacks stay inherited */
                CHECK_REL(rel, x.r.rl_hard[RLIMIT_CORE].rank == LC_RANK_NONE);
                CHECK_REL(rel, x.s.kind == LC_SESSION_LIMITS);
                CHECK_REL(rel, x.s.memlock_soft == 65536 && x.s.memlock_hard == 65536);
                run_done(&x);
        }
        /* '*' beats PID 1's; the soft above PID 1's hard is clamped */
        put("etc/security/limits.conf", "* soft memlock 128\n");
        FOR_EACH_REL(rel, rels) {
                run_root_svc(&x, rel, &set_all, "alice", &svc);
                CHECK_REL(rel, x.r.soft.rank == LC_RANK_DEFAULT && x.r.soft.value == 128 * KiB);
                CHECK_REL(rel, x.r.hard.rank == LC_RANK_KERNEL && x.r.soft_clamped);
                CHECK_REL(rel, x.s.memlock_soft == 65536 && x.s.memlock_hard == 65536);
                run_done(&x);
        }
        /* PID 1's nofile hard 524288 above a service's 4096: upstream refuses the login */
        svc.rl[RLIMIT_NOFILE].hard = 4096;
        FOR_EACH_REL(rel, rels) {
                bool debian = strncmp(rel, "debian", 6) == 0;
                run_root_svc(&x, rel, &set_all, "alice", &svc);
                CHECK_REL(rel, x.s.kind == (debian ? LC_SESSION_LIMITS : LC_SESSION_REFUSED));
                if (!debian) {
                        assert_contains(x.s.cause, "/proc/1/limits");
                        assert_contains(x.s.cause, "nofile");
                }
                run_done(&x);
                run_root_svc(&x, rel, &plain, "alice", &svc);
                CHECK_REL(rel, x.s.kind == LC_SESSION_LIMITS);
                run_done(&x);
        }
        /* Debian 1.5.2 reads PID 1's without set_all */
        run_root_svc(&x, "debian-1.5.2", &plain, "alice", &svc);
        assert_true(x.b.known && x.b.rank == LC_RANK_KERNEL);
        run_done(&x);
}

/* ---- matching: root, the '-' quirk, '%' ---- */

/*
 * v1.3.1..v1.7.2 parse_config_file(): root is matched like any user ('*' and @group lines
 * apply), a group line outranks '*'.  Debian's patch 027 makes uid 0 skip '*', '@' and '%'
 * lines.
 */
static void test_root(void **state) {
        const char *text = "* hard memlock 1024\n@root hard memlock 2048\n* soft memlock 512\n";
        (void)state;
        FOR_EACH_REL(rel, source_only) {
                struct run x;
                run_text(&x, rel, text, "root", true);
                CHECK_REL(rel, !x.r.root_user_debian);
                CHECK_REL(rel, x.r.hard.rank == LC_RANK_GROUP && x.r.hard.src == &x.t->lines[1]);
                assert_event(&x, 1, LC_HARD, LC_OUT_APPLIED);
                assert_event(&x, 2, LC_HARD, LC_OUT_APPLIED);
                assert_event(&x, 3, LC_SOFT, LC_OUT_APPLIED);
                assert_memlock(&x, 512 * KiB, 2 * MiB);
                run_done(&x);
        }
        struct run x;
        run_text(&x, "debian-1.5.2", text, "root", true);
        assert_true(x.r.root_user_debian);
        assert_int_equal(x.r.n_events, 0);
        assert_int_equal(x.r.hard.rank, LC_RANK_KERNEL);   /* PID 1's (patch 027) */
        run_done(&x);
}

/*
 * v1.3.1..v1.7.2 process_limit(): a '-' entry whose soft half meets a stronger rank returns
 * before the hard half is tried; equal rank overwrites (the last line wins); '%' domains are
 * "valid for maxlogins type only"; an unknown type or value is skipped.
 */
static void test_quirks(void **state) {
        const char *text = "alice soft memlock 1\n"        /* USER */
                           "@rdma - memlock 2\n"           /* GROUP: soft refused, hard not tried */
                           "% hard memlock 3\n"            /* ALL: ignored */
                           "alice hard memlock 4\n"
                           "alice hard memlock 5\n"        /* equal rank: wins */
                           "alice both memlock 6\n"        /* unknown type */
                           "alice hard memlock lots\n";    /* unknown value */
        (void)state;
        FOR_EACH_REL(rel, source_only) {
                struct run x;
                run_text(&x, rel, text, "alice", true);
                assert_event(&x, 1, LC_SOFT, LC_OUT_APPLIED);
                assert_event(&x, 2, LC_SOFT, LC_OUT_WEAKER);
                assert_event(&x, 2, LC_HARD, LC_OUT_QUIRK);
                assert_event(&x, 3, LC_HARD, LC_OUT_PERCENT);
                assert_event(&x, 4, LC_HARD, LC_OUT_APPLIED);
                assert_event(&x, 5, LC_HARD, LC_OUT_APPLIED);
                assert_event(&x, 6, LC_SOFT | LC_HARD, LC_OUT_BAD_TYPE);
                assert_event(&x, 7, LC_HARD, LC_OUT_BAD_VALUE);
                CHECK_REL(rel, x.r.n_events == 8);
                CHECK_REL(rel, x.r.soft.src == &x.t->lines[0] && x.r.hard.src == &x.t->lines[4]);
                assert_memlock(&x, 1 * KiB, 5 * KiB);
                run_done(&x);
                /* bob is in rdma by his primary gid: the '-' line applies to him */
                run_text(&x, rel, text, "bob", true);
                CHECK_REL(rel, x.r.soft.rank == LC_RANK_GROUP && x.r.hard.rank == LC_RANK_GROUP);
                assert_memlock(&x, 2 * KiB, 2 * KiB);
                run_done(&x);
        }
}

UNIT_MAIN(setup, teardown,
          cmocka_unit_test(test_names), cmocka_unit_test(test_behaviour),
          cmocka_unit_test(test_reader_extra_words), cmocka_unit_test(test_reader_crlf),
          cmocka_unit_test(test_reader_blanks), cmocka_unit_test(test_reader_separators),
          cmocka_unit_test(test_reader_long_line), cmocka_unit_test(test_missing_files),
          cmocka_unit_test(test_no_limits_stop), cmocka_unit_test(test_vendor_dir),
          cmocka_unit_test(test_items), cmocka_unit_test(test_nofile_unlimited),
          cmocka_unit_test(test_setrlimit_failures), cmocka_unit_test(test_set_all),
          cmocka_unit_test(test_root), cmocka_unit_test(test_quirks))
