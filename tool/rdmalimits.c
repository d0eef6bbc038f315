/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdmalimits: get locked-memory limits right for RDMA and AF_XDP users.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dropin.h"
#include "escape.h"
#include "fsutil.h"
#include "hwcache.h"
#include "ident.h"
#include "size.h"
#include "tool.h"

#define POLICY_PATH SYSCONFDIR "/security/rdmalimit.conf"

static const struct command commands[] = {
        { "apply", cmd_apply, OPT_SOFT | OPT_HARD | OPT_FILE | OPT_CHECK | OPT_DIFF | OPT_FORCE | OPT_UNIT | OPT_RELOAD |
                                  OPT_ALLOW_OVERRIDDEN, 0, 2,
          "DOMAIN [SIZE]", "give DOMAIN (user, @group, *, id range) memlock SIZE in a limits.d drop-in" },
        { "remove", cmd_remove, OPT_FILE | OPT_CHECK | OPT_DIFF | OPT_FORCE | OPT_UNIT | OPT_RELOAD, 0, 1, "DOMAIN",
          "take DOMAIN's entries out of the drop-in" },
        { "list", cmd_list, 0, 0, 0, "", "the memlock entries of every file, in the order pam_limits reads them" },
        { "check", cmd_check, OPT_POLICY | OPT_CONF, 0, -1, "[FILE...]",
          "validate limits.conf, limits.d and (with --policy) rdmalimit.conf" },
        { "explain", cmd_explain, OPT_CONF | OPT_PROC1 | OPT_SERVICE | OPT_CACHE | OPT_PID, 1, 1, "USER",
          "the memlock a session of USER gets, and the file:line behind each value" },
        { "verify", cmd_verify, OPT_SERVICE | OPT_SSH | OPT_CONF, 1, 1, "USER",
          "open a real session for USER (PAM, or --ssh DEST) and compare with explain" },
        { "doctor", cmd_doctor, OPT_PID | OPT_UNIT | OPT_CONF | OPT_SERVICE, 0, 0, "",
          "diagnose the whole chain: PAM stacks, sshd, systemd, containers, running processes" },
        { "pin-test", cmd_pintest, OPT_FORCE, 1, 1, "SIZE",
          "as the calling user, really pin SIZE (mlock, AF_XDP UMEM, ibv_reg_mr) and say what failed" },
        { "status", cmd_status, OPT_PID | OPT_UNIT | OPT_PROMETHEUS | OPT_THRESHOLD, 0, 1, "[USER]",
          "per process, user and unit: memlock limits, what is locked, pinned and charged, the headroom" },
        { "probe", cmd_probe, OPT_CONF | OPT_SAVE | OPT_CACHE, 0, 0, "",
          "RDMA devices, AF_XDP interfaces, RAM, and the auto value of the policy" },
        { "enable", cmd_enable, OPT_SERVICE | OPT_CHECK | OPT_DIFF, 0, -1, "[SERVICE...]",
          "put pam_rdmalimit after the last pam_limits of the PAM stacks that need it" },
        { "disable", cmd_disable, OPT_SERVICE | OPT_CHECK | OPT_DIFF, 0, -1, "[SERVICE...]",
          "take out the lines rdmalimits enable added" },
};

static void usage(FILE *out) {
        fprintf(out, "Usage:\n rdmalimits [options] <command> [arguments]\n\n"
                     "Get locked-memory (memlock) limits right for RDMA and AF_XDP users.\n\nCommands:\n");
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                fprintf(out, " %-8s %-14s %s\n", commands[i].name, commands[i].args, commands[i].help);
        fputs(" help     [COMMAND]      this help, or a command's own (also: rdmalimits COMMAND --help)\n", out);
        fputs("\nOptions:\n"
              "     --root DIR        operate on DIR/etc instead of /etc (users from DIR/etc/passwd)\n"
              "     --json            machine-readable output\n"
              " -q, --quiet           only errors\n"
              "     --flavour NAME    pam_limits to model: debian-X.Y.Z, upstream-X.Y.Z, debian, upstream\n"
              "                       (default: the installed release)\n"
              "     --vendordir DIR   the vendor directory of the pam_limits build, or none\n"
              "     --soft SIZE       apply: the soft limit\n"
              "     --hard SIZE       apply: the hard limit\n"
              "     --file NAME       apply/remove: the drop-in in limits.d (default " DROPIN_DEFAULT_NAME ")\n"
              "     --unit UNIT       apply/remove: LimitMEMLOCK= in a systemd drop-in for UNIT instead;\n"
              "                       doctor: also examine this systemd unit\n"
              "     --reload          apply/remove --unit: run systemctl daemon-reload afterwards\n"
              "     --check           apply/remove/enable/disable: change nothing; exit 3 when something would change\n"
              "     --diff            apply/remove/enable/disable: show the change as a unified diff\n"
              "     --force           apply/remove: take over a drop-in without the rdmalimits marker;\n"
              "                       pin-test: pin more than half of MemAvailable when no limit applies\n"
              "     --policy          check: validate the policy file too\n"
              "     --conf FILE       the policy file (default " POLICY_PATH ")\n"
              "     --service NAME    explain: the PAM service whose stack decides the order (default sshd);\n"
              "                       enable/disable: a service to edit (repeatable; default: those that need it)\n"
              "     --pid PID         doctor: also examine this running process\n"
              "     --ssh DEST        verify: log in with ssh to DEST (options for ssh after --)\n"
              "     --save            probe: write the hardware cache pam_rdmalimit reads at login\n"
              "     --cache FILE      probe: the cache file to write; explain: the cache the module\n"
              "                       reads (default: its cache= argument, else " HW_CACHE_PATH ")\n"
              "     --proc1-limits F  explain: read the Debian baseline from F instead of /proc/1/limits\n"
              "     --pid PID         status: only this process; --unit UNIT: only this unit's\n"
              "     --prometheus      status: node_exporter textfile collector format\n"
              "     --threshold SIZE  status --prometheus: list processes charged at least SIZE (default 1M)\n"
              " -h, --help            display this help\n"
              " -V, --version         display version\n\n"
              "Sizes take a unit: K, M, G, T (KiB, MiB, GiB, TiB), or \"unlimited\".\n"
              "Exit status: 0 success, 1 failure or findings, 2 usage error, 3 apply --check: would change.\n\n"
              "For more details see rdmalimits(8).\n",
              out);
}

static const char *option_name(unsigned bit);

/* What each option does, for `rdmalimits COMMAND --help` (the command's own sense first). */
static const char *option_help(const struct command *cmd, unsigned bit, char *buf, size_t size) {
        static const struct {
                unsigned bit;
                const char *cmd, *arg, *help;
        } h[] = {
                { OPT_SOFT, NULL, "SIZE", "the soft limit" },
                { OPT_HARD, NULL, "SIZE", "the hard limit" },
                { OPT_FILE, NULL, "NAME", "the drop-in in limits.d (default " DROPIN_DEFAULT_NAME ")" },
                { OPT_CHECK, NULL, NULL, "change nothing; exit 3 when something would change" },
                { OPT_DIFF, NULL, NULL, "show the change as a unified diff" },
                { OPT_FORCE, "pin-test", NULL, "pin more than half of MemAvailable when no limit applies" },
                { OPT_FORCE, NULL, NULL, "take over a drop-in without the rdmalimits marker" },
                { OPT_ALLOW_OVERRIDDEN, NULL, NULL, "write the entry even when another entry still wins (exit 0)" },
                { OPT_POLICY, NULL, NULL, "validate the policy file too" },
                { OPT_CONF, NULL, "FILE", "the policy file (default " POLICY_PATH ")" },
                { OPT_SERVICE, NULL, "NAME", "the PAM service (default sshd)" },
                { OPT_SSH, NULL, "DEST", "log in with ssh to DEST (options for ssh after --)" },
                { OPT_PID, NULL, "PID", "a running process" },
                { OPT_UNIT, "doctor", "UNIT", "also examine this systemd unit" },
                { OPT_UNIT, NULL, "UNIT", "LimitMEMLOCK= in a systemd drop-in for UNIT instead" },
                { OPT_SAVE, NULL, NULL, "write the hardware cache pam_rdmalimit reads at login" },
                { OPT_RELOAD, NULL, NULL, "with --unit: run systemctl daemon-reload afterwards" },
                { OPT_PROC1, NULL, "FILE", "read the Debian baseline from FILE instead of /proc/1/limits" },
                { OPT_CACHE, NULL, "FILE", "the hardware cache file" },
        };
        for (size_t i = 0; i < ELEMENTSOF(h); i++)
                if (h[i].bit == bit && (!h[i].cmd || streq(h[i].cmd, cmd->name))) {
                        snprintf(buf, size, "%s%s%s", option_name(bit), h[i].arg ? " " : "", h[i].arg ? h[i].arg : "");
                        return h[i].help;
                }
        snprintf(buf, size, "%s", option_name(bit));
        return "";
}

static void command_usage(const struct command *cmd, FILE *out) {
        fprintf(out, "Usage:\n rdmalimits [options] %s%s%s\n\n%s.\n\nOptions:\n", cmd->name, cmd->args[0] ? " " : "",
                cmd->args, cmd->help);
        for (unsigned bit = 1; bit; bit <<= 1) {
                if (!(cmd->options & bit) || (bit & OPT_GLOBAL))
                        continue;
                char opt[64];
                const char *help = option_help(cmd, bit, opt, sizeof opt);
                fprintf(out, "     %-17s %s\n", opt, help);
        }
        fputs("     --root DIR        operate on DIR/etc instead of /etc\n"
              "     --json            machine-readable output\n"
              " -q, --quiet           only errors\n"
              " -h, --help            display this help\n\n"
              "For more details see rdmalimits(8).\n", out);
}

const char *policy_default_path(void) {
        return POLICY_PATH;
}

void print_change_json(const struct ctx *c, bool changed, const char *file, const char *diff, const char *unit,
                       bool reloaded) {
        struct json j;
        json_init(&j, stdout);
        json_obj_begin(&j);
        json_key(&j, "changed");
        json_bool(&j, changed);
        json_key(&j, "file");
        json_str(&j, file);
        json_key(&j, "diff");
        json_str(&j, diff ? diff : "");
        if (unit) {
                json_key(&j, "unit");
                json_str(&j, unit);
                json_key(&j, "reloaded");
                json_bool(&j, reloaded);
        }
        if (c->check) {
                json_key(&j, "check");
                json_bool(&j, true);
        }
        json_obj_end(&j);
        json_finish(&j);
}

const char *ctx_root(const struct ctx *c) {
        return c->root ? c->root : "/";
}

char *ctx_path(const struct ctx *c, const char *abs) {
        return fs_root_path(c->root, abs);
}

int ctx_load_tree(const struct ctx *c, struct lc_tree **ret) {
        return ctx_load_tree_args(c, NULL, ret);
}

int ctx_load_tree_args(const struct ctx *c, const char *pam_limits_args, struct lc_tree **ret) {
        struct lc_args a = {};
        if (pam_limits_args && lc_args_parse(pam_limits_args, &a) < 0)
                log_warning("pam_limits arguments '%s': a conf= too long, ignored", pam_limits_args);
        if (c->vendordir && streq(c->vendordir, "none"))
                a.vendor = LC_VENDOR_NONE;
        else if (c->vendordir) {
                a.vendor = LC_VENDOR_DIR;
                snprintf(a.vendordir, sizeof a.vendordir, "%s", c->vendordir);
        }
        int r = lc_tree_load_args(c->root, c->flavour, &a, ret);
        if (r < 0)
                log_error("cannot read the limits configuration: %s", strerror(-r));
        return r;
}

int ctx_ident(const struct ctx *c, struct ident **ret) {
        int r = ident_new(c->root, ret);
        if (r < 0)
                log_error("out of memory");
        return r;
}

/* The pid's comm, escaped (a user names his own processes), or "?" when it is gone. */
static void holder_comm(pid_t pid, char *buf, size_t size) {
        char path[64];
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *comm = NULL;

        snprintf(buf, size, "?");
        snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0 || fs_read_all(fd, 256, &comm, NULL) < 0)
                return;
        comm[strcspn(comm, "\n")] = '\0';
        str_escape(comm, buf, size);
}

/* Where the locks are: FS_LOCK_DIR for root; a user editing his own --root tree has his
 * runtime directory, else a directory of his in /tmp. */
static char *lock_dir(void) {
        char *s = NULL;
        if (geteuid() == 0)
                return strdup(FS_LOCK_DIR);
        const char *xdg = getenv("XDG_RUNTIME_DIR");
        int r = xdg && xdg[0] == '/' ? asprintf(&s, "%s/rdmalimits-locks", xdg)
                                     : asprintf(&s, "/tmp/rdmalimits-locks-%u", (unsigned)geteuid());
        return r < 0 ? NULL : s;
}

int ctx_lock(const struct ctx *c, int dirfd, const char *dir_display, int *ret_fd) {
        _cleanup_free_ char *dir = NULL;
        _cleanup_close_ int ldfd = -1;
        unsigned secs = CTX_LOCK_TIMEOUT_DEFAULT;
        const char *env = getenv("RDMALIMITS_LOCK_TIMEOUT");
        char name[FS_LOCK_NAME_MAX];
        pid_t holder = 0;
        int r;

        (void)c;
        if (env && *env && parse_uint(env, &secs) < 0) {
                log_error("RDMALIMITS_LOCK_TIMEOUT='%s': expected a whole number of seconds", env);
                return EXIT_USAGE;
        }
        if (secs > 86400)
                secs = 86400;
        if (!(dir = lock_dir())) {
                log_error("out of memory");
                return EXIT_FINDINGS;
        }
        r = fs_lock_dir_open(dir, &ldfd);
        if (r < 0) {
                log_error("%s: cannot use it for the lock of %s: %s; nothing written", dir, dir_display,
                          r == -ELOOP ? "a symbolic link" : fs_strerror(r));
                return EXIT_FINDINGS;
        }
        r = fs_lock_name(dirfd, name);
        if (r >= 0)
                r = fs_lock_file(ldfd, name, secs * 1000u, ret_fd, &holder);
        if (r == -ETIMEDOUT) {
                char comm[ESCAPE_NAME_MAX];
                if (holder > 0) {
                        holder_comm(holder, comm, sizeof comm);
                        log_error("%s/%s (the lock of %s): still held after %u s by pid %d (%s); "
                                  "another rdmalimits apply or remove? Nothing written",
                                  dir, name, dir_display, secs, (int)holder, comm);
                } else
                        log_error("%s/%s (the lock of %s): still held after %u s (holder not found in /proc/locks); "
                                  "nothing written", dir, name, dir_display, secs);
                return EXIT_FINDINGS;
        }
        if (r == FS_ERR_OWNER || r == FS_ERR_LOCKMODE || r == FS_ERR_NOTREG || r == -ELOOP) {
                log_error("%s/%s (the lock of %s): refused: %s (a lock file is a regular file of %s, mode 0600); "
                          "remove it; nothing written", dir, name, dir_display,
                          r == -ELOOP ? "a symbolic link" : fs_strerror(r), geteuid() == 0 ? "root" : "yours");
                return EXIT_FINDINGS;
        }
        if (r < 0) {
                log_error("%s/%s (the lock of %s): cannot lock: %s; nothing written", dir, name, dir_display,
                          fs_strerror(r));
                return EXIT_FINDINGS;
        }
        return 0;
}

/*
 * A size the parser refuses but whose meaning is plain: "512MB" (a B after the unit),
 * "1.5G" or "1,5G" (a fraction: in the next smaller unit), "-1" (a sign).  The suggestion,
 * in the form size_parse() accepts, into buf; false when there is none.
 */
static bool size_near_miss(const char *arg, char *buf, size_t size) {
        static const char units[] = "KMGT";
        char fmt[SIZE_FMT_MAX];
        uint64_t v;

        if (arg[0] == '-') {
                snprintf(buf, size, "unlimited");    /* a negative size: "-1" means no limit in limits.conf */
                return true;
        }
        size_t n = strlen(arg);
        /* "2.5GiB": the fraction is the near miss; read it as "2.5G" */
        if (n >= 4 && n < 64 && (arg[n - 1] | 0x20) == 'b' && (arg[n - 2] | 0x20) == 'i' &&
            strchr(units, arg[n - 3] & ~0x20) && strpbrk(arg, ".,")) {
                char s[64];
                memcpy(s, arg, n - 2);
                s[n - 2] = '\0';
                return size_near_miss(s, buf, size);
        }
        if (n >= 3 && n < 64 && (arg[n - 1] == 'B' || arg[n - 1] == 'b') && strchr(units, arg[n - 2] & ~0x20)) {
                char s[64];
                memcpy(s, arg, n - 1);
                s[n - 1] = '\0';
                if (size_parse(s, &v) == 0) {
                        snprintf(buf, size, "%s", size_format_arg(v, fmt));
                        return true;
                }
                if (strchr(s, '.') || strchr(s, ','))
                        return size_near_miss(s, buf, size);
                return false;
        }
        /* WHOLE[.,]FRACTION UNIT */
        const char *sep = strpbrk(arg, ".,");
        if (!sep || n < 3 || !strchr(units, arg[n - 1] & ~0x20) || sep == arg)
                return false;
        uint64_t whole, frac = 0, scale = 1, unit = 1024;
        char w[32];
        if ((size_t)(sep - arg) >= sizeof w)
                return false;
        memcpy(w, arg, (size_t)(sep - arg));
        w[sep - arg] = '\0';
        if (parse_u64(w, &whole) < 0)
                return false;
        for (const char *p = sep + 1; p < arg + n - 1; p++) {
                if (*p < '0' || *p > '9' || scale > UINT64_C(100000000))
                        return false;
                frac = frac * 10 + (uint64_t)(*p - '0');
                scale *= 10;
        }
        for (const char *u = units; *u != (arg[n - 1] & ~0x20); u++)
                unit *= 1024;
        if (whole > SIZE_INFINITY / unit / 2)
                return false;
        /* to whole KiB, rounded down */
        v = whole * unit + (frac * (unit / 1024)) / scale * 1024;
        if (v == 0)
                return false;
        snprintf(buf, size, "%s", size_format_arg(v, fmt));
        return true;
}

int ctx_parse_size(const char *what, const char *arg, uint64_t *ret) {
        int r = size_parse(arg, ret);
        if (r < 0) {
                char hint[SIZE_FMT_MAX + 16];
                if (r != -EDOM && size_near_miss(arg, hint, sizeof hint)) {
                        if (arg[0] == '-')
                                log_error("%s '%s': a size cannot be negative (for no limit write unlimited)", what, arg);
                        else
                                log_error("%s '%s': %s; did you mean %s?", what, arg, size_hint(r), hint);
                } else
                        log_error("%s '%s': %s", what, arg, size_hint(r));
                return -EINVAL;
        }
        return 0;
}

static int close_stdout(void) {
        if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
                if (errno == EPIPE)
                        return 0;
                fprintf(stderr, "rdmalimits: write error: %s\n", strerror(errno));
                return -EIO;
        }
        return 0;
}

enum {
        ARG_ROOT = 0x100,
        ARG_JSON,
        ARG_FLAVOUR,
        ARG_VENDORDIR,
        ARG_SOFT,
        ARG_HARD,
        ARG_FILE,
        ARG_CHECK,
        ARG_DIFF,
        ARG_FORCE,
        ARG_ALLOW_OVERRIDDEN,
        ARG_POLICY,
        ARG_CONF,
        ARG_SERVICE,
        ARG_SSH,
        ARG_PID,
        ARG_UNIT,
        ARG_SAVE,
        ARG_RELOAD,
        ARG_PROC1,
        ARG_CACHE,
        ARG_PROMETHEUS,
        ARG_THRESHOLD,
};

static const struct option longopts[] = {
        { "root", required_argument, NULL, ARG_ROOT },
        { "json", no_argument, NULL, ARG_JSON },
        { "quiet", no_argument, NULL, 'q' },
        { "flavour", required_argument, NULL, ARG_FLAVOUR },
        { "flavor", required_argument, NULL, ARG_FLAVOUR },
        { "vendordir", required_argument, NULL, ARG_VENDORDIR },
        { "soft", required_argument, NULL, ARG_SOFT },
        { "hard", required_argument, NULL, ARG_HARD },
        { "file", required_argument, NULL, ARG_FILE },
        { "check", no_argument, NULL, ARG_CHECK },
        { "diff", no_argument, NULL, ARG_DIFF },
        { "force", no_argument, NULL, ARG_FORCE },
        { "allow-overridden", no_argument, NULL, ARG_ALLOW_OVERRIDDEN },
        { "policy", no_argument, NULL, ARG_POLICY },
        { "conf", required_argument, NULL, ARG_CONF },
        { "service", required_argument, NULL, ARG_SERVICE },
        { "ssh", required_argument, NULL, ARG_SSH },
        { "pid", required_argument, NULL, ARG_PID },
        { "unit", required_argument, NULL, ARG_UNIT },
        { "save", no_argument, NULL, ARG_SAVE },
        { "reload", no_argument, NULL, ARG_RELOAD },
        { "proc1-limits", required_argument, NULL, ARG_PROC1 },
        { "cache", required_argument, NULL, ARG_CACHE },
        { "prometheus", no_argument, NULL, ARG_PROMETHEUS },
        { "threshold", required_argument, NULL, ARG_THRESHOLD },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        {}
};

static const char *option_name(unsigned bit) {
        static const struct {
                unsigned bit;
                const char *name;
        } names[] = {
                { OPT_SOFT, "--soft" },       { OPT_HARD, "--hard" },    { OPT_FILE, "--file" },
                { OPT_CHECK, "--check" },     { OPT_DIFF, "--diff" },    { OPT_FORCE, "--force" },
                { OPT_ALLOW_OVERRIDDEN, "--allow-overridden" },
                { OPT_POLICY, "--policy" },   { OPT_CONF, "--conf" },    { OPT_SERVICE, "--service" },
                { OPT_SSH, "--ssh" },         { OPT_PID, "--pid" },      { OPT_UNIT, "--unit" },
                { OPT_SAVE, "--save" },       { OPT_RELOAD, "--reload" }, { OPT_PROC1, "--proc1-limits" },
                { OPT_CACHE, "--cache" },     { OPT_PROMETHEUS, "--prometheus" }, { OPT_THRESHOLD, "--threshold" },
        };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (names[i].bit == bit)
                        return names[i].name;
        return "?";
}

/* Does arg name an option whose argument is the next word ("--soft", "--so", not "--soft=1G")? */
static bool option_takes_argument(const char *arg) {
        if (strncmp(arg, "--", 2) != 0 || !arg[2] || strchr(arg, '='))
                return false;
        size_t n = strlen(arg + 2);
        for (const struct option *o = longopts; o->name; o++)
                if (strncmp(o->name, arg + 2, n) == 0 && o->has_arg == required_argument)
                        return true;
        return false;
}

static int run(int argc, char **argv) {
        struct ctx c = {};
        const struct command *cmd = NULL;
        char **pos;
        int npos = 0, opt;
        char buf[256];
        bool flavour_set = false;
        _cleanup_free_ const char **services = NULL;

        pos = calloc((size_t)argc + 1, sizeof(char *));
        if (!pos) {
                log_error("out of memory");
                return EXIT_FINDINGS;
        }
        opterr = 0;
        /* A negative number ("apply @g -1") is an argument, not an option: getopt sees it
         * without its '-', and it is given back whole. */
        _cleanup_free_ char **negative = calloc((size_t)argc + 1, sizeof(char *));
        if (!negative) {
                free(pos);
                log_error("out of memory");
                return EXIT_FINDINGS;
        }
        for (int i = 1; i < argc && !streq(argv[i], "--"); i++) {
                if (argv[i][0] != '-' || !(argv[i][1] >= '0' && argv[i][1] <= '9') || option_takes_argument(argv[i - 1]))
                        continue;
                negative[i] = argv[i];
                argv[i]++;
        }
        bool want_help = false;
        /* options may stand anywhere; "--" ends them (the rest goes to the command) */
        while ((opt = getopt_long(argc, argv, "-:qhV", longopts, NULL)) != -1) {
                switch (opt) {
                case 1:
                        for (int i = 1; i < argc; i++)
                                if (negative[i] && optarg == negative[i] + 1)
                                        optarg = negative[i];
                        pos[npos++] = optarg;
                        break;
                case ARG_ROOT:
                        c.root = optarg;
                        c.given |= OPT_ROOT;
                        break;
                case ARG_JSON:
                        c.json = true;
                        break;
                case 'q':
                        c.quiet = true;
                        break;
                case ARG_FLAVOUR:
                        if (lc_flavour_from_string(optarg, &c.flavour) < 0) {
                                log_error("--flavour '%s': expected debian or upstream, or debian-X.Y.Z or "
                                          "upstream-X.Y.Z (Linux-PAM 1.3.1 on)", optarg);
                                goto usage_error;
                        }
                        flavour_set = true;
                        break;
                case ARG_VENDORDIR:
                        if (!*optarg || strlen(optarg) >= sizeof(((struct lc_args *)0)->vendordir) ||
                            (!streq(optarg, "none") && optarg[0] != '/')) {
                                log_error("--vendordir '%s': expected an absolute directory or none", optarg);
                                goto usage_error;
                        }
                        c.vendordir = optarg;
                        c.given |= OPT_FLAVOUR;
                        break;
                case ARG_SOFT:
                        c.soft = optarg;
                        c.given |= OPT_SOFT;
                        break;
                case ARG_HARD:
                        c.hard = optarg;
                        c.given |= OPT_HARD;
                        break;
                case ARG_FILE:
                        c.file = optarg;
                        c.given |= OPT_FILE;
                        break;
                case ARG_CHECK:
                        c.check = true;
                        c.given |= OPT_CHECK;
                        break;
                case ARG_DIFF:
                        c.diff = true;
                        c.given |= OPT_DIFF;
                        break;
                case ARG_FORCE:
                        c.force = true;
                        c.given |= OPT_FORCE;
                        break;
                case ARG_ALLOW_OVERRIDDEN:
                        c.allow_overridden = true;
                        c.given |= OPT_ALLOW_OVERRIDDEN;
                        break;
                case ARG_POLICY:
                        c.policy = true;
                        c.given |= OPT_POLICY;
                        break;
                case ARG_CONF:
                        c.policy_path = optarg;
                        c.given |= OPT_CONF;
                        break;
                case ARG_SERVICE:
                        c.service = optarg;
                        c.given |= OPT_SERVICE;
                        if (!services && !(services = calloc((size_t)argc, sizeof(*services)))) {
                                log_error("out of memory");
                                free(pos);
                                return EXIT_FINDINGS;
                        }
                        services[c.n_services++] = optarg;
                        break;
                case ARG_SSH:
                        c.ssh = optarg;
                        c.given |= OPT_SSH;
                        break;
                case ARG_PID:
                        c.pid = optarg;
                        c.given |= OPT_PID;
                        break;
                case ARG_UNIT:
                        c.unit = optarg;
                        c.given |= OPT_UNIT;
                        break;
                case ARG_SAVE:
                        c.save = true;
                        c.given |= OPT_SAVE;
                        break;
                case ARG_RELOAD:
                        c.reload = true;
                        c.given |= OPT_RELOAD;
                        break;
                case ARG_PROMETHEUS:
                        c.prometheus = true;
                        c.given |= OPT_PROMETHEUS;
                        break;
                case ARG_THRESHOLD:
                        c.threshold = optarg;
                        c.given |= OPT_THRESHOLD;
                        break;
                case ARG_CACHE:
                        c.cache = optarg;
                        c.given |= OPT_CACHE;
                        break;
                case ARG_PROC1:
                        c.proc1 = optarg;
                        c.given |= OPT_PROC1;
                        break;
                case 'h':
                        want_help = true;
                        break;
                case 'V':
                        printf("rdmalimits %s\n", VERSION);
                        free(pos);
                        return EXIT_OK;
                case ':':
                        log_error("option '%s' requires an argument", printable(argv[optind - 1], buf, sizeof buf));
                        goto usage_error;
                default:
                        if (optopt >= 0x100)
                                log_error("option '%s' does not take an argument", printable(argv[optind - 1], buf, sizeof buf));
                        else if (optopt > 0x20 && optopt < 0x7f)
                                log_error("invalid option -- '%c'", optopt);
                        else
                                log_error("unrecognized option '%s'", printable(argv[optind - 1], buf, sizeof buf));
                        goto usage_error;
                }
        }
        /* getopt_long with "-" stops at "--": the rest are extra arguments */
        c.extra_argc = argc - optind;
        c.extra_argv = argv + optind;

        /* rdmalimits --help, rdmalimits COMMAND --help, rdmalimits help [COMMAND] */
        if (want_help || (npos > 0 && streq(pos[0], "help"))) {
                const char *name = want_help ? (npos > 0 && !streq(pos[0], "help") ? pos[0] : npos > 1 ? pos[1] : NULL)
                                             : npos > 1 ? pos[1] : NULL;
                for (size_t i = 0; name && i < ELEMENTSOF(commands); i++)
                        if (streq(name, commands[i].name))
                                cmd = &commands[i];
                if (name && !cmd) {
                        log_error("unknown command '%s'", printable(name, buf, sizeof buf));
                        goto usage_error;
                }
                if (cmd)
                        command_usage(cmd, stdout);
                else
                        usage(stdout);
                free(pos);
                return EXIT_OK;
        }
        if (npos == 0) {
                log_error("no command given");
                goto usage_error;
        }
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                if (streq(pos[0], commands[i].name))
                        cmd = &commands[i];
        if (!cmd) {
                log_error("unknown command '%s'", printable(pos[0], buf, sizeof buf));
                goto usage_error;
        }
        unsigned stray = c.given & ~(cmd->options | OPT_GLOBAL);
        if (stray) {
                for (unsigned bit = 1; bit; bit <<= 1)
                        if (stray & bit) {
                                log_error("%s: option %s does not apply", cmd->name, option_name(bit));
                                break;
                        }
                goto usage_error;
        }
        c.argc = npos - 1;
        c.argv = pos + 1;
        if (c.argc < cmd->min_args || (cmd->max_args >= 0 && c.argc > cmd->max_args)) {
                log_error("%s: expected %s%s", cmd->name, cmd->args, c.argc < cmd->min_args ? "" : " (too many arguments)");
                goto usage_error;
        }
        if (c.extra_argc > 0 && !(cmd->options & OPT_SSH)) {
                log_error("%s: unexpected arguments after '--'", cmd->name);
                goto usage_error;
        }
        if (c.root) {
                if (!*c.root) {
                        log_error("--root: empty directory name");
                        goto usage_error;
                }
                struct stat st;
                const char *err = stat(c.root, &st) < 0 ? strerror(errno) : !S_ISDIR(st.st_mode) ? strerror(ENOTDIR) : NULL;
                if (err) {
                        log_error("--root %s: %s", c.root, err);
                        free(pos);
                        return EXIT_FINDINGS;
                }
        }
        if (!flavour_set)
                c.flavour = lc_flavour_default(c.root);
        /* --root DIR works on DIR/etc, whatever sysconfdir this build was configured with */
        if (!c.policy_path)
                c.policy_path = c.root ? "/etc/security/rdmalimit.conf" : POLICY_PATH;
        log_set_quiet(c.quiet);

        c.services = services;
        int r = cmd->run(&c);
        free(pos);
        return r;

usage_error:
        fputs("Try 'rdmalimits --help' for more information.\n", stderr);
        free(pos);
        return EXIT_USAGE;
}

int main(int argc, char **argv) {
        int r = run(argc, argv);
        if (close_stdout() < 0 && r == EXIT_OK)
                r = EXIT_FINDINGS;
        return r;
}
