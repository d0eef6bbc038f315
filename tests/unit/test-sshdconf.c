/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/host/sshdconf.c: UsePAM as sshd reads it (its -o options first, the first value wins,
 * includes in order, Match blocks, values it refuses), and a running sshd's command line. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "sshdconf.h"

static char root[] = "/tmp/sshdconf-XXXXXX";

static const struct unit_file files[] = {
        { "yes/etc/ssh/sshd_config", "Include /etc/ssh/sshd_config.d/*.conf\nPort 22\nUsePAM yes\n" },
        /* the first value read wins: 10- before 20- and before the main file's line 3 */
        { "yes/etc/ssh/sshd_config.d/10-no.conf", "# site\n  usepam = \"no\"\n" },
        { "yes/etc/ssh/sshd_config.d/20-yes.conf", "UsePAM yes\n" },
        { "unset/etc/ssh/sshd_config", "Port 22\n#UsePAM yes\n" },
        { "match/etc/ssh/sshd_config", "UsePAM yes\nMatch User bob\n\tUsePAM no\n" },
        { "bad/etc/ssh/sshd_config", "UsePAM maybe\n" },
        /* `Match all` is active when sshd reads its file (no connection): the usual end of a
         * Match block; a UsePAM after it counts, in the file and in an Include */
        { "matchall/etc/ssh/sshd_config", "Match User bob\n X11Forwarding no\nMatch all\nUsePAM yes\n" },
        { "matchallinc/etc/ssh/sshd_config", "Match User bob\nMatch ALL\nInclude p.conf\n" },
        { "matchallinc/etc/ssh/p.conf", "UsePAM no\n" },
        { "matchallnot/etc/ssh/sshd_config", "Match all User bob\nUsePAM yes\n" },
        /* a comment after `Match all` ends the line (OpenSSH 8.7 and later), and after an
         * Include's words: the block is over, the UsePAM after it counts */
        { "matchallcomment/etc/ssh/sshd_config",
          "Match User nobody\n X11Forwarding no\nMatch all # back to global\nInclude c.conf # site\nUsePAM yes\n" },
        { "matchallcomment/etc/ssh/c.conf", "Port 22\n" },
        /* extra words after the value: sshd refuses the line (a bad option); a comment is not one */
        { "extra/etc/ssh/sshd_config", "UsePAM yes please\n" },
        { "extraq/etc/ssh/sshd_config", "UsePAM \"yes\" x\n" },
        { "comment/etc/ssh/sshd_config", "UsePAM yes # after the value\n" },
        { "cycle/etc/ssh/sshd_config", "Include loop.conf\n" },
        { "cycle/etc/ssh/loop.conf", "Include loop.conf\nUsePAM yes\n" },
        /* an included file starts in the Match block of its Include line, and its own ends with it */
        { "inc/etc/ssh/sshd_config", "Include m.conf\nUsePAM no\n" },
        { "inc/etc/ssh/m.conf", "Match all\n" },
        { "none/etc/ssh/.keep", "" },
        /* every file of one Include line, in order */
        { "multi/etc/ssh/sshd_config", "Include /etc/ssh/a.conf b.conf\n" },
        { "multi/etc/ssh/a.conf", "# nothing\n" },
        { "multi/etc/ssh/b.conf", "UsePAM no\n" },
        /* an Include whose directory does not exist reads nothing, and the rest goes on */
        { "gone/etc/ssh/sshd_config", "Include /etc/ssh/nodir/*.conf\nUsePAM no\n" },
        /* blanks between keyword and value; two UsePAM in Match blocks: the first is named */
        { "blanks/etc/ssh/sshd_config", "UsePAM \t no\n" },
        { "match2/etc/ssh/sshd_config", "Match User a\n UsePAM no\nMatch User b\n UsePAM yes\n" },
        /* a FIFO where an included file should be: skipped (never opened blocking), the rest
         * read */
        { "fifo/etc/ssh/sshd_config", "Include /etc/ssh/d/*.conf\nUsePAM no\n" },
        { "fifo/etc/ssh/d", NULL },
        /* wildcards in a directory, as sshd's glob(3) takes them; the paths sorted whole:
         * i-a/z.conf before i/a.conf ('-' sorts before '/'), so its value is the first read */
        { "globdir/etc/ssh/sshd_config", "Include i*/*.conf\n" },
        { "globdir/etc/ssh/i/a.conf", "UsePAM yes\n" },
        { "globdir/etc/ssh/i-a/z.conf", "UsePAM no\n" },
        { "globdir/etc/ssh/other/b.conf", "UsePAM yes\n" },
        /* a directory matched, its file not there: nothing; a literal component after a
         * wildcard */
        { "globdir2/etc/ssh/sshd_config", "Include /etc/ssh/s?b/u.conf /etc/ssh/s?b/none.conf\n" },
        { "globdir2/etc/ssh/sub/u.conf", "UsePAM no\n" },
        { "globdir2/etc/ssh/sab/x.conf", "UsePAM yes\n" },
        { NULL, NULL },
};

/* tree/etc/ssh/sshd_config including d1.conf, d1 d2.conf, ... down to dN.conf, whose text is last */
static void chain(const char *tree, unsigned n, const char *last) {
        char rel[128], text[64];
        for (unsigned k = 0; k <= n; k++) {
                if (k == 0)
                        snprintf(rel, sizeof rel, "%s/etc/ssh/sshd_config", tree);
                else
                        snprintf(rel, sizeof rel, "%s/etc/ssh/d%u.conf", tree, k);
                snprintf(text, sizeof text, "Include d%u.conf\n", k + 1);
                unit_put(root, rel, k == n ? last : text);
        }
}

static int setup(void **state) {
        (void)state;
        return unit_tree(root, files);
}

static enum sshd_pam read_tree(const char *tree, const struct strv *opts, const char **where, struct sshd_conf *c) {
        char r[PATH_MAX];
        unit_path(r, root, tree);
        assert_int_equal(sshd_conf_read(r, NULL, opts, "the command line of sshd (pid 7)", c), 0);
        return sshd_conf_pam(c, where);
}

static void test_read(void **state) {
        struct sshd_conf c;
        const char *where;
        (void)state;

        assert_int_equal(read_tree("yes", NULL, &where, &c), SSHD_PAM_NO);
        assert_string_equal(where, "etc/ssh/sshd_config.d/10-no.conf:2");
        assert_true(c.ignored && c.ignored_value);
        assert_string_equal(c.ignored_where, "etc/ssh/sshd_config.d/20-yes.conf:1");
        assert_string_equal(c.file, "etc/ssh/sshd_config");
        sshd_conf_clear(&c);

        /* -o on the command line comes first */
        struct strv opts = {};
        assert_int_equal(strv_push(&opts, "UsePAM yes"), 0);
        assert_int_equal(read_tree("yes", &opts, &where, &c), SSHD_PAM_YES);
        assert_string_equal(where, "the command line of sshd (pid 7)");
        sshd_conf_clear(&c);
        strv_clear(&opts);

        assert_int_equal(read_tree("unset", NULL, &where, &c), SSHD_PAM_NO);   /* OpenSSH's default */
        assert_false(c.set);
        assert_string_equal(where, "etc/ssh/sshd_config");
        sshd_conf_clear(&c);

        assert_int_equal(read_tree("match", NULL, &where, &c), SSHD_PAM_REFUSED);
        assert_string_equal(where, "etc/ssh/sshd_config:3");
        sshd_conf_clear(&c);

        assert_int_equal(read_tree("bad", NULL, &where, &c), SSHD_PAM_REFUSED);
        assert_string_equal(c.bad_where, "etc/ssh/sshd_config:1");
        sshd_conf_clear(&c);

        assert_int_equal(read_tree("matchall", NULL, &where, &c), SSHD_PAM_YES);
        assert_string_equal(where, "etc/ssh/sshd_config:4");
        sshd_conf_clear(&c);
        assert_int_equal(read_tree("matchallinc", NULL, &where, &c), SSHD_PAM_NO);
        assert_string_equal(where, "etc/ssh/p.conf:1");
        sshd_conf_clear(&c);
        assert_int_equal(read_tree("matchallcomment", NULL, &where, &c), SSHD_PAM_YES);
        assert_string_equal(where, "etc/ssh/sshd_config:5");
        sshd_conf_clear(&c);
        assert_int_equal(read_tree("matchallnot", NULL, &where, &c), SSHD_PAM_REFUSED);
        sshd_conf_clear(&c);
        assert_int_equal(read_tree("extra", NULL, &where, &c), SSHD_PAM_REFUSED);
        assert_string_equal(c.bad_where, "etc/ssh/sshd_config:1");
        sshd_conf_clear(&c);
        assert_int_equal(read_tree("extraq", NULL, &where, &c), SSHD_PAM_REFUSED);
        sshd_conf_clear(&c);
        assert_int_equal(read_tree("comment", NULL, &where, &c), SSHD_PAM_YES);
        sshd_conf_clear(&c);

        assert_int_equal(read_tree("cycle", NULL, &where, &c), SSHD_PAM_REFUSED);
        assert_int_equal(c.walk.error, VISIT_ERR_CYCLE);
        sshd_conf_clear(&c);

        assert_int_equal(read_tree("inc", NULL, &where, &c), SSHD_PAM_NO);      /* back out of the Match */
        assert_string_equal(where, "etc/ssh/sshd_config:2");
        sshd_conf_clear(&c);

        assert_int_equal(read_tree("none", NULL, &where, &c), SSHD_PAM_UNKNOWN);
        assert_int_equal(c.error, -ENOENT);
        assert_null(where);
        sshd_conf_clear(&c);

        assert_int_equal(read_tree("multi", NULL, &where, &c), SSHD_PAM_NO);
        assert_string_equal(where, "etc/ssh/b.conf:1");
        sshd_conf_clear(&c);

        assert_int_equal(read_tree("gone", NULL, &where, &c), SSHD_PAM_NO);
        assert_string_equal(where, "etc/ssh/sshd_config:2");
        assert_int_equal(c.error, 0);
        sshd_conf_clear(&c);

        assert_int_equal(read_tree("blanks", NULL, &where, &c), SSHD_PAM_NO);
        assert_null(c.bad_where);
        sshd_conf_clear(&c);

        assert_int_equal(read_tree("match2", NULL, &where, &c), SSHD_PAM_REFUSED);
        assert_string_equal(where, "etc/ssh/sshd_config:2");
        sshd_conf_clear(&c);

        char fifo[PATH_MAX];
        assert_int_equal(mkfifo(unit_path(fifo, root, "fifo/etc/ssh/d/a.conf"), 0644), 0);
        assert_int_equal(read_tree("fifo", NULL, &where, &c), SSHD_PAM_NO);
        assert_string_equal(where, "etc/ssh/sshd_config:2");
        assert_int_equal(c.error, 0);
        sshd_conf_clear(&c);
}

/* Include with wildcards in any component, and a fan-out past the walk's bound */
static void test_glob(void **state) {
        struct sshd_conf c;
        const char *where;
        char rel[128];
        (void)state;

        assert_int_equal(read_tree("globdir", NULL, &where, &c), SSHD_PAM_NO);
        assert_string_equal(where, "etc/ssh/i-a/z.conf:1");
        assert_true(c.ignored && c.ignored_value);
        assert_string_equal(c.ignored_where, "etc/ssh/i/a.conf:1");
        sshd_conf_clear(&c);

        assert_int_equal(read_tree("globdir2", NULL, &where, &c), SSHD_PAM_NO);
        assert_string_equal(where, "etc/ssh/sub/u.conf:1");
        assert_false(c.ignored);
        sshd_conf_clear(&c);

        /* 40 directories of 30 files: 1200 paths, more than the walk's 1000 files */
        unit_put(root, "fan/etc/ssh/sshd_config", "Include /etc/ssh/f*/*.conf\nUsePAM yes\n");
        for (unsigned d = 0; d < 40; d++)
                for (unsigned f = 0; f < 30; f++) {
                        snprintf(rel, sizeof rel, "fan/etc/ssh/f%02u/%02u.conf", d, f);
                        unit_put(root, rel, "# x\n");
                }
        assert_int_equal(read_tree("fan", NULL, &where, &c), SSHD_PAM_UNKNOWN);   /* sshd reads on */
        assert_int_equal(c.walk.error, VISIT_ERR_BUDGET);
        assert_string_equal(where, "etc/ssh/sshd_config:1");
        assert_string_equal(c.walk.file, "etc/ssh/f*/*.conf");
        sshd_conf_clear(&c);
}

/* OpenSSH reads a file 16 includes deep and refuses one 17 deep (SERVCONF_MAX_DEPTH) */
static void test_depth(void **state) {
        struct sshd_conf c;
        const char *where;
        (void)state;

        chain("deep16", 16, "UsePAM no\n");
        assert_int_equal(read_tree("deep16", NULL, &where, &c), SSHD_PAM_NO);
        assert_string_equal(where, "etc/ssh/d16.conf:1");
        assert_null(c.deep_where);
        sshd_conf_clear(&c);

        chain("deep17", 17, "UsePAM no\n");
        assert_int_equal(read_tree("deep17", NULL, &where, &c), SSHD_PAM_REFUSED);
        assert_string_equal(where, "etc/ssh/d16.conf:1");
        assert_false(c.set);
        sshd_conf_clear(&c);
}

/* a file sshd_config larger than the reader takes: not known */
static void test_too_large(void **state) {
        struct sshd_conf c;
        const char *where = "x";
        char p[PATH_MAX];
        (void)state;

        unit_mkdir_p(root, "big/etc/ssh");
        FILE *f = fopen(unit_path(p, root, "big/etc/ssh/sshd_config"), "we");
        assert_non_null(f);
        for (unsigned k = 0; k < 4u * 1024 * 1024 / 64 + 1; k++)
                fputs("# .............................................................\n", f);
        fputs("UsePAM no\n", f);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(read_tree("big", NULL, &where, &c), SSHD_PAM_UNKNOWN);
        assert_int_equal(c.error, -EFBIG);
        assert_null(where);
        sshd_conf_clear(&c);

        /* an included file past the bound is skipped, as one that cannot be read */
        unit_put(root, "bigincl/etc/ssh/sshd_config", "Include /etc/ssh/huge.conf\nUsePAM no\n");
        f = fopen(unit_path(p, root, "bigincl/etc/ssh/huge.conf"), "we");
        assert_non_null(f);
        for (unsigned k = 0; k < 4u * 1024 * 1024 / 64 + 1; k++)
                fputs("# .............................................................\n", f);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(read_tree("bigincl", NULL, &where, &c), SSHD_PAM_NO);
        assert_string_equal(where, "etc/ssh/sshd_config:2");
        assert_int_equal(c.error, 0);
        sshd_conf_clear(&c);
}

/* pid, once its exec shows in its command line (it starts with the n bytes of prefix) */
static pid_t started(pid_t pid, const char *prefix, size_t n) {
        for (int i = 0; i < 200; i++) {
                char path[64], buf[16] = "";
                snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
                FILE *f = fopen(path, "re");
                if (f) {
                        size_t got = fread(buf, 1, sizeof buf - 1, f);
                        fclose(f);
                        if (got >= n && memcmp(buf, prefix, n) == 0)
                                return pid;
                }
                usleep(10000);
        }
        fail_msg("the child did not start");
        return -1;
}

/* /proc/PID/cmdline of a running process, as argv: its -f and -o (a shell that waits stands
 * for sshd: the parser skips its -c and the command after it, an option with a value) */
static pid_t spawn(char *const argv[]) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                /* nothing of the test's output held open by the sleep, whatever the test does */
                int null = open("/dev/null", O_RDWR | O_CLOEXEC);
                if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0)
                        _exit(126);
                execv("/bin/sh", argv);
                _exit(127);
        }
        return started(pid, "sh", 3);   /* "sh" and its NUL */
}

/* A shell whose command line is its argv[0] alone (a listener's title): it reads commands
 * from a pipe that stays open.  *ret_fd: the pipe's end to close. */
static pid_t spawn_titled(const char *title, int *ret_fd) {
        int fds[2];
        assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int null = open("/dev/null", O_RDWR | O_CLOEXEC);
                if (null < 0 || dup2(fds[0], STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0 ||
                    dup2(null, STDERR_FILENO) < 0)
                        _exit(126);
                execv("/bin/sh", (char *const[]){ (char *)title, NULL });
                _exit(127);
        }
        close(fds[0]);
        *ret_fd = fds[1];
        return started(pid, "sshd: ", 6);
}

static void reap(pid_t pid) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
}

static void test_cmdline(void **state) {
        struct strv opts = {};
        char *path = NULL;
        (void)state;

        char *a1[] = { "sh", "-c", "sleep 10; :", "-D", "-f", "/x/cfg", "-o", "UsePAM=no", NULL };
        pid_t pid = spawn(a1);
        assert_int_equal(sshd_cmdline(pid, &path, &opts), 0);
        reap(pid);
        assert_string_equal(path, "/x/cfg");
        assert_int_equal(opts.n, 1);
        assert_string_equal(opts.v[0], "UsePAM=no");
        free(path);
        path = NULL;
        strv_clear(&opts);

        /* a relative -f was read from a directory sshd has left: not known */
        char *a2[] = { "sh", "-c", "sleep 10; :", "-D", "-f", "rel.conf", NULL };
        pid = spawn(a2);
        assert_int_equal(sshd_cmdline(pid, &path, &opts), -EBADMSG);
        reap(pid);
        assert_null(path);
        strv_clear(&opts);

        assert_int_equal(sshd_cmdline(999999999, &path, &opts), -ENOENT);

        /* a listener's title: its options; cut short (no "[listener]"): not known */
        int fd;
        pid = spawn_titled("sshd: /usr/sbin/sshd -D -f /e/c -o UsePAM no [listener] 0 of 10-100 startups", &fd);
        assert_int_equal(sshd_cmdline(pid, &path, &opts), 0);
        close(fd);
        reap(pid);
        assert_string_equal(path, "/e/c");
        assert_int_equal(opts.n, 1);
        assert_string_equal(opts.v[0], "UsePAM no");
        free(path);
        path = NULL;
        strv_clear(&opts);
        /* an -o without its value: not a command line sshd runs with */
        pid = spawn_titled("sshd: /usr/sbin/sshd -D -o [listener] 0 of 10-100 startups", &fd);
        assert_int_equal(sshd_cmdline(pid, &path, &opts), -EINVAL);
        close(fd);
        reap(pid);
        assert_null(path);
        strv_clear(&opts);
        pid = spawn_titled("sshd: /usr/sbin/sshd -D -o UsePAM no", &fd);
        assert_int_equal(sshd_cmdline(pid, &path, &opts), -EBADMSG);
        close(fd);
        reap(pid);
        assert_null(path);
        assert_int_equal(opts.n, 0);
}

static void test_args(void **state) {
        struct strv opts = {};
        char *path = NULL;
        (void)state;

        char *a1[] = { "-D", "-e", "-f", "/x/cfg", "-o", "UsePAM=no", "-oPort=2" };
        assert_int_equal(sshd_args_parse(a1, 7, &path, &opts), 0);
        assert_string_equal(path, "/x/cfg");
        assert_int_equal(opts.n, 2);
        assert_string_equal(opts.v[0], "UsePAM=no");
        assert_string_equal(opts.v[1], "Port=2");
        free(path);
        strv_clear(&opts);

        char *a2[] = { "-Df/y", "-Deo", "UsePAM no" };   /* flags together, the value after */
        assert_int_equal(sshd_args_parse(a2, 3, &path, &opts), 0);
        assert_string_equal(path, "/y");
        assert_int_equal(opts.n, 1);
        assert_string_equal(opts.v[0], "UsePAM no");
        free(path);
        strv_clear(&opts);

        char *a3[] = { "-D", "-o" };
        assert_int_equal(sshd_args_parse(a3, 2, &path, &opts), -EINVAL);
        strv_clear(&opts);

        char *a4[] = { "-D" };
        assert_int_equal(sshd_args_parse(a4, 1, &path, &opts), 0);
        assert_null(path);
        assert_int_equal(opts.n, 0);
}

static void test_title(void **state) {
        struct strv args = {};
        (void)state;

        assert_int_equal(sshd_title_args("sshd: /usr/sbin/sshd -D -o UsePAM no -f /e/c -o Port=2 [listener] 0 of "
                                         "10-100 startups", &args), 0);
        assert_int_equal(args.n, 7);
        assert_string_equal(args.v[0], "-D");
        assert_string_equal(args.v[1], "-o");
        assert_string_equal(args.v[2], "UsePAM no");   /* 'UsePAM no' came back whole */
        assert_string_equal(args.v[4], "/e/c");
        assert_string_equal(args.v[6], "Port=2");
        strv_clear(&args);
        /* the value right after the first option: a word of its own */
        assert_int_equal(sshd_title_args("sshd: /usr/sbin/sshd -o UsePAM=no [listener] 0 of 10-100 startups", &args), 0);
        assert_int_equal(args.n, 2);
        assert_string_equal(args.v[0], "-o");
        assert_string_equal(args.v[1], "UsePAM=no");
        strv_clear(&args);
        /* an option with its value attached ("-oUsePAM no", one argv word: the listener runs, so
         * sshd took it): the words after it go on with it, not an option of their own */
        assert_int_equal(sshd_title_args("sshd: /usr/sbin/sshd -D -oUsePAM no -e [listener] 0 of 10-100 startups",
                                         &args), 0);
        assert_int_equal(args.n, 3);
        assert_string_equal(args.v[1], "-oUsePAM no");
        assert_string_equal(args.v[2], "-e");
        {
                char *path = NULL;
                struct strv opts = {};
                assert_int_equal(sshd_args_parse(args.v, args.n, &path, &opts), 0);
                assert_int_equal(opts.n, 1);
                assert_string_equal(opts.v[0], "UsePAM no");
                strv_clear(&opts);
                free(path);
        }
        strv_clear(&args);
        /* a word before any option is a word of its own */
        assert_int_equal(sshd_title_args("sshd: /usr/sbin/sshd stray -D [listener] 0 of 10-100 startups", &args), 0);
        assert_int_equal(args.n, 2);
        assert_string_equal(args.v[0], "stray");
        assert_string_equal(args.v[1], "-D");
        strv_clear(&args);
        assert_int_equal(sshd_title_args("sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups", &args), 0);
        assert_int_equal(args.n, 1);
        strv_clear(&args);
        /* cut short, or not a listener's title: not known */
        assert_int_equal(sshd_title_args("sshd: /usr/sbin/sshd -D -o Use", &args), -EBADMSG);
        assert_int_equal(sshd_title_args("/usr/sbin/sshd -D [listener]", &args), -EBADMSG);
        strv_clear(&args);
}

UNIT_MAIN(setup, unit_teardown, cmocka_unit_test(test_read), cmocka_unit_test(test_glob), cmocka_unit_test(test_depth), cmocka_unit_test(test_too_large),
          cmocka_unit_test(test_args), cmocka_unit_test(test_title), cmocka_unit_test(test_cmdline))
