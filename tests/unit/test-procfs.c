/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/host/procfs.c: the fields of /proc/PID/status and the rows of /proc/PID/limits, from
 * texts as the kernel writes them, and proc_read() of this process. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "procfs.h"

static const char status_text[] =
        "Name:\tsshd\n"
        "Umask:\t0022\n"
        "State:\tS (sleeping)\n"
        "PPid:\t1\n"
        "Uid:\t0\t0\t0\t0\n"
        "NSpid:\t812\t7\n"
        "VmLck:\t       8 kB\n"
        "CapEff:\t000001ffffffffff\n"
        "CapBnd:\t0000000000004000\n"
        "CapOdd:\t00000000000000000\n"
        "CapBad:\t0000xyz\n"
        "XPPid:\t99\n";

static void test_field(void **state) {
        size_t n = 99;
        (void)state;

        const char *v = proc_field(status_text, "Name", NULL);   /* the value and the rest */
        assert_int_equal(strncmp(v, "sshd\nUmask:", 11), 0);
        v = proc_field(status_text, "State", &n);
        assert_non_null(v);
        assert_int_equal(n, strlen("S (sleeping)"));
        assert_memory_equal(v, "S (sleeping)", n);
        v = proc_field(status_text, "VmLck", &n);          /* the blanks after the colon skipped */
        assert_memory_equal(v, "8 kB", n);
        assert_null(proc_field(status_text, "Nope", NULL));
        assert_null(proc_field(status_text, "Nam", NULL));  /* a prefix of a key is not the key */
        assert_null(proc_field("", "Name", NULL));
}

static void test_numbers(void **state) {
        uint64_t v = 0;
        (void)state;

        assert_int_equal(proc_field_u64(status_text, "PPid", &v), 0);     /* not XPPid's */
        assert_int_equal(v, 1);
        assert_int_equal(proc_field_u64(status_text, "Uid", &v), 0);      /* the first of four */
        assert_int_equal(v, 0);
        /* the nth number of a field (su's real and effective uid), and what is not there */
        static const char su[] = "Name:\tsu\nUid:\t1000\t0\t0 \t0\nGid:\t1000\n";
        assert_int_equal(proc_field_u64_nth(su, "Uid", 0, &v), 0);
        assert_int_equal(v, 1000);
        assert_int_equal(proc_field_u64_nth(su, "Uid", 1, &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(proc_field_u64_nth(su, "Uid", 3, &v), 0);
        assert_int_equal(proc_field_u64_nth(su, "Uid", 4, &v), -EBADMSG);   /* the line ends */
        assert_int_equal(proc_field_u64_nth(su, "Gid", 1, &v), -EBADMSG);
        assert_int_equal(proc_field_u64_nth(su, "Uid", 8, &v), -EBADMSG);
        assert_int_equal(proc_field_u64_nth(su, "Groups", 0, &v), -ENOENT);
        assert_int_equal(proc_field_u64(status_text, "VmLck", &v), 0);
        assert_int_equal(v, 8);
        assert_int_equal(proc_field_u64(status_text, "Gid", &v), -ENOENT);
        assert_true(proc_field_u64(status_text, "State", &v) < 0);

        assert_int_equal(proc_field_hex(status_text, "CapEff", &v), 0);
        assert_int_equal(v, UINT64_C(0x1ffffffffff));
        assert_int_equal(proc_field_hex(status_text, "CapOdd", &v), -EINVAL);   /* 17 digits */
        assert_int_equal(proc_field_hex(status_text, "CapBad", &v), -EINVAL);
        assert_int_equal(proc_field_hex(status_text, "CapAmb", &v), -ENOENT);

        assert_true(proc_field_cap(status_text, "CapEff", 24));   /* CAP_SYS_RESOURCE */
        assert_true(proc_field_cap(status_text, "CapBnd", 14));   /* CAP_IPC_LOCK */
        assert_false(proc_field_cap(status_text, "CapBnd", 24));
        assert_false(proc_field_cap(status_text, "CapBad", 0));
        assert_false(proc_field_cap(status_text, "CapAmb", 0));
        assert_false(proc_field_cap(status_text, "CapEff", 64));
}

static void test_limits_row(void **state) {
        static const char limits[] =
                "Limit                     Soft Limit           Hard Limit           Units     \n"
                "Max cpu time              unlimited            unlimited            seconds   \n"
                "Max open files            1024                 524288               files     \n"
                "Max locked memory         8388608              unlimited            bytes     \n"
                "Max msgqueue size         819200               junk                 bytes     \n";
        uint64_t soft = 1, hard = 1;
        (void)state;

        assert_int_equal(proc_limits_row(limits, "Max locked memory", &soft, &hard), 0);
        assert_int_equal(soft, 8388608);
        assert_int_equal(hard, UINT64_MAX);
        assert_int_equal(proc_limits_row(limits, "Max open files", &soft, &hard), 0);
        assert_int_equal(soft, 1024);
        assert_int_equal(hard, 524288);
        assert_int_equal(proc_limits_row(limits, "Max cpu time", &soft, &hard), 0);
        assert_int_equal(soft, UINT64_MAX);
        soft = hard = 7;
        assert_int_equal(proc_limits_row(limits, "Max msgqueue size", &soft, &hard), -EBADMSG);
        assert_int_equal(soft, 7);                                /* nothing written */
        assert_int_equal(hard, 7);
        assert_int_equal(proc_limits_row(limits, "Max realtime timeout", &soft, &hard), -ENOENT);

        /* a row's name counts at the start of a line and before its columns only: not inside
         * another line, nor as the start of a longer name */
        static const char tricky[] =
                "x Max locked memory 1 2\n"
                "Max locked memoryless 3 4\n"
                "Max locked memory         65536                8388608              bytes     \n";
        assert_int_equal(proc_limits_row(tricky, "Max locked memory", &soft, &hard), 0);
        assert_int_equal(soft, 65536);
        assert_int_equal(hard, 8388608);
        assert_int_equal(proc_limits_row("x Max locked memory 1 2\n", "Max locked memory", &soft, &hard), -ENOENT);
}

static void test_read(void **state) {
        char *text = NULL;
        uint64_t v = 0;
        (void)state;

        assert_int_equal(proc_read(getpid(), "status", PROC_TEXT_MAX, &text), 0);
        assert_int_equal(proc_field_u64(text, "Pid", &v), 0);
        assert_int_equal(v, (uint64_t)getpid());
        free(text);
        text = NULL;
        assert_int_equal(proc_read(getpid(), "limits", PROC_TEXT_MAX, &text), 0);
        assert_non_null(strstr(text, "Max locked memory"));
        free(text);
        text = NULL;
        assert_int_equal(proc_read(INT32_MAX, "status", PROC_TEXT_MAX, &text), -ENOENT);
        assert_null(text);
}

/* proc_exe() of this process: what /proc/self/exe names, no " (deleted)" */
static void test_exe(void **state) {
        char want[PATH_MAX], got[PATH_MAX];
        (void)state;

        ssize_t n = readlink("/proc/self/exe", want, sizeof want - 1);
        assert_true(n > 0);
        want[n] = '\0';
        assert_int_equal(proc_exe(getpid(), got), 0);
        assert_string_equal(got, want);
        assert_int_equal(proc_exe(INT32_MAX, got), -ENOENT);
}

/* proc_cgroup_unit(): the unit under system.slice, on cgroup v2 and on v1's name=systemd */
static void test_cgroup_unit(void **state) {
        static const struct {
                const char *text, *unit;   /* unit NULL: -ENOENT */
        } cases[] = {
                { "0::/system.slice/ssh.service\n", "ssh.service" },
                { "0::/system.slice/system-getty.slice/getty@tty1.service\n", "getty@tty1.service" },
                { "0::/user.slice/user-1000.slice/session-3.scope\n", NULL },      /* users' own */
                { "0::/\n", NULL },
                { "12:pids:/\n1:name=systemd:/system.slice/slurmd.service\n", "slurmd.service" },
                { "1:name=systemd:/system.slice/cron.service\n0::/system.slice/ssh.service\n", "ssh.service" },
                /* a hybrid host: the unified hierarchy only "/", the unit in name=systemd (as status reads it) */
                { "1:name=systemd:/system.slice/cron.service\n0::/\n", "cron.service" },
                /* a system.slice below another cgroup (a test's, a container's without its own
                 * cgroup namespace) */
                { "0::/rdmalimits-test-1/system.slice/rlt-a.service\n", "rlt-a.service" },
                { "0::/init.scope\n", NULL },                                     /* no service */
                { "0::/machine.slice/machine-vm1.scope\n", NULL },
                { "0::/user.slice/user-1000.slice/user@1000.service/app.slice/x.service\n", NULL },
                { "", NULL },
        };
        (void)state;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                char *unit = NULL, name[256];
                int r = proc_cgroup_unit(cases[i].text, &unit);
                if (cases[i].unit) {
                        assert_int_equal(r, 0);
                        assert_string_equal(unit, cases[i].unit);
                } else
                        assert_int_equal(r, -ENOENT);
                /* status's origin says the same: a unit exactly where there is a system unit */
                size_t len = 0;
                const char *path = proc_cgroup_path(cases[i].text, &len);
                char *p = path ? strndup(path, len) : NULL;
                enum cgroup_origin o = proc_cgroup_classify(p, name, sizeof name, NULL, 0);
                if (cases[i].unit) {
                        assert_int_equal(o, CGROUP_O_UNIT);
                        assert_string_equal(name, cases[i].unit);
                } else
                        assert_int_not_equal(o, CGROUP_O_UNIT);
                free(p);
                free(unit);
        }
}

/* The one answer to "which process is the daemon" (explain and doctor): this process as a
 * daemon named like it, running its executable.  Without systemd it is the daemon when it is
 * root; with systemd managing the host only in one of the daemon's units, which a test
 * process is not in. */
static void test_daemon(void **state) {
        char self[PATH_MAX], exe[PATH_MAX], *comm = NULL, *status = NULL, *why = NULL;
        (void)state;
        assert_int_equal(proc_exe(getpid(), self), 0);
        assert_int_equal(proc_comm(getpid(), &comm), 0);
        assert_null(strchr(comm, '\n'));
        assert_int_equal(proc_read(getpid(), "status", PROC_TEXT_MAX, &status), 0);
        const struct proc_daemon me = { "me", comm, "me.service", { "/nonexistent", self }, { "me.service", "me@*.service" } };
        int r = proc_daemon_identify(&me, getpid(), status, false, exe, &why);
        if (geteuid() == 0 && getuid() == 0) {
                assert_int_equal(r, 1);
                assert_string_equal(exe, self);
                assert_null(why);
        } else {
                assert_int_equal(r, 0);
                assert_non_null(strstr(why, "not root"));
        }
        free(why);
        why = NULL;
        /* systemd manages the host: only a process in one of the daemon's units */
        r = proc_daemon_identify(&me, getpid(), status, true, exe, &why);
        assert_int_equal(r, 0);
        assert_non_null(why);
        assert_true(strstr(why, "belongs to no system service") || strstr(why, "not me.service") ||
                    strstr(why, "not root"));
        free(why);
        why = NULL;
        /* another executable: not it */
        const struct proc_daemon other = { "other", comm, "o.service", { "/nonexistent" }, { "o.service" } };
        assert_int_equal(proc_daemon_identify(&other, getpid(), status, false, exe, &why), 0);
        assert_non_null(why);
        free(why);
        /* the finder asks the same: found (this process, or another one of its kind that is
         * root and not a child of one) without systemd, never with it */
        pid_t pid = 0;
        r = proc_daemon_find(&me, false, &pid);
        if (geteuid() == 0 && getuid() == 0) {
                char *c2 = NULL, e2[PATH_MAX];
                assert_int_equal(r, 0);
                assert_int_equal(proc_comm(pid, &c2), 0);
                assert_string_equal(c2, comm);
                assert_int_equal(proc_exe(pid, e2), 0);
                assert_string_equal(e2, self);
                free(c2);
        } else
                assert_int_equal(r, -ESRCH);
        assert_int_equal(proc_daemon_find(&me, true, &pid), -ESRCH);
        assert_int_equal(proc_daemon_find(&other, false, &pid), -ESRCH);
        assert_int_equal(proc_daemon_find(NULL, false, &pid), -ESRCH);
        /* a daemon without a name of its own (slurmd), listed by a link to its executable
         * (Debian's /usr/sbin/slurmd, an alternative): the link stands for its target */
        char link[] = "/tmp/test-procfs-link-XXXXXX";
        int lfd = mkstemp(link);
        assert_true(lfd >= 0);
        close(lfd);
        assert_int_equal(unlink(link), 0);
        assert_int_equal(symlink(self, link), 0);
        const struct proc_daemon linked = { "linked", NULL, "l.service", { link }, { "l.service" } };
        why = NULL;
        r = proc_daemon_identify(&linked, getpid(), status, false, exe, &why);
        assert_int_equal(r, geteuid() == 0 && getuid() == 0 ? 1 : 0);
        free(why);
        if (geteuid() == 0 && getuid() == 0) {
                assert_int_equal(proc_daemon_find(&linked, false, &pid), 0);
                assert_int_equal(proc_exe(pid, exe), 0);
                assert_string_equal(exe, self);
        }
        assert_int_equal(unlink(link), 0);
        /* the table: sshd, cron and crond by PAM service, slurmd by its name, nothing else */
        assert_string_equal(proc_daemon_of("slurmd")->exe[0], "/usr/sbin/slurmd");
        assert_null(proc_daemon_of("slurmd")->comm);
        assert_string_equal(proc_daemon_of("sshd")->exe[0], "/usr/sbin/sshd");
        assert_string_equal(proc_daemon_of("cron")->comm, "cron");
        assert_string_equal(proc_daemon_of("crond")->exe[0], "/usr/sbin/crond");   /* RHEL's cronie */
        assert_string_equal(proc_daemon_of("crond")->unit, "crond.service");
        assert_null(proc_daemon_of("su"));
        assert_null(proc_daemon_of(NULL));
        free(comm);
        free(status);
}

UNIT_MAIN(NULL, NULL, cmocka_unit_test(test_field), cmocka_unit_test(test_numbers), cmocka_unit_test(test_limits_row),
          cmocka_unit_test(test_read), cmocka_unit_test(test_exe), cmocka_unit_test(test_cgroup_unit),
          cmocka_unit_test(test_daemon))
