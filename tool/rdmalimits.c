/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdmalimits: get locked-memory limits right for RDMA and AF_XDP users.  This file is the command
 * line: the commands and options, their help, parsing them into a context, and main().
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dropin.h"
#include "escape.h"
#include "fsutil.h"
#include "hwcache.h"
#include "ident.h"
#include "size.h"
#include "tool.h"



static const struct command commands[] = {
        { "apply", cmd_apply, OPT_ROOT | OPT_SOFT | OPT_HARD | OPT_FILE | OPT_CHECK | OPT_DIFF | OPT_FORCE | OPT_UNIT | OPT_RELOAD |
                                  OPT_ALLOW_OVERRIDDEN, 0, 2,
          "DOMAIN [SIZE]", "give DOMAIN (user, @group, *, id range) memlock SIZE in a limits.d drop-in" },
        { "remove", cmd_remove, OPT_ROOT | OPT_FILE | OPT_CHECK | OPT_DIFF | OPT_FORCE | OPT_UNIT | OPT_RELOAD, 0, 1, "DOMAIN",
          "take DOMAIN's entries out of the drop-in" },
        { "list", cmd_list, OPT_ROOT | 0, 0, 0, "", "the memlock entries of every file, in the order pam_limits reads them" },
        { "check", cmd_check, OPT_ROOT | OPT_POLICY | OPT_CONF, 0, -1, "[FILE...]",
          "validate limits.conf, limits.d, the PAM session stacks and (with --policy) rdmalimit.conf" },
        { "explain", cmd_explain, OPT_ROOT | OPT_CONF | OPT_PROC1 | OPT_SERVICE | OPT_CACHE | OPT_PID | OPT_SLURM | OPT_SUBMIT_MEMLOCK |
                  OPT_SLURM_CONF, 1, 1, "USER",
          "the memlock a session of USER gets, and the file:line behind each value" },
        { "verify", cmd_verify, OPT_SERVICE | OPT_SSH | OPT_CONF | OPT_PROBE_TIMEOUT, 1, 1, "USER",
          "open a real session for USER (PAM, or --ssh DEST) and compare with explain" },
        { "doctor", cmd_doctor, OPT_ROOT | OPT_PID | OPT_UNIT | OPT_CONF | OPT_CACHE | OPT_SERVICE | OPT_PROBE_TIMEOUT | OPT_SLURM_CONF, 0, 0, "",
          "diagnose the whole chain: PAM stacks, sshd, systemd, containers, running processes" },
        { "pin-test", cmd_pintest, OPT_FORCE, 1, 1, "SIZE",
          "as the calling user, really pin SIZE (mlock, AF_XDP UMEM, ibv_reg_mr) and say what failed" },
        { "status", cmd_status, OPT_PID | OPT_UNIT | OPT_PROMETHEUS | OPT_THRESHOLD | OPT_OUTPUT | OPT_PROBE_TIMEOUT |
                  OPT_SLURM_CONF, 0, 1, "[USER]",
          "per process, user and unit: memlock limits, what is locked, pinned and charged, the headroom" },
        { "probe", cmd_probe, OPT_ROOT | OPT_CONF | OPT_SAVE | OPT_CACHE, 0, 0, "",
          "RDMA devices, AF_XDP interfaces, RAM, and the auto value of the policy" },
        { "enable", cmd_enable, OPT_ROOT | OPT_SERVICE | OPT_CHECK | OPT_DIFF, 0, -1, "[SERVICE...]",
          "put pam_rdmalimit after the last pam_limits of the PAM stacks that need it" },
        { "disable", cmd_disable, OPT_ROOT | OPT_SERVICE | OPT_CHECK | OPT_DIFF, 0, -1, "[SERVICE...]",
          "take out the lines rdmalimits enable added" },
};

/* What an option does to the context when given. */
enum opt_action {
        ACT_TRUE,       /* the bool at field becomes true */
        ACT_STRING,     /* the const char * at field becomes the argument */
        ACT_SERVICE,    /* ACT_STRING, and the argument is added to services (repeatable) */
        ACT_SSH_OPTION, /* the argument is added to ssh_options (repeatable) */
        ACT_FLAVOUR,    /* the flavour named by the argument */
        ACT_VENDORDIR,  /* ACT_STRING of an absolute directory or "none" */
        ACT_PID,        /* the pid_t at field becomes the process id of the argument */
        ACT_SECONDS,    /* the unsigned at field becomes the argument, 1 to 3600 seconds */
        ACT_HELP,
        ACT_VERSION,
};

/* One sense of an option: the commands that read it so ("apply/remove"; NULL: every command
 * that takes it) and what it does there. */
struct opt_sense {
        const char *cmds;
        const char *help;
};

/*
 * Every option, once: getopt_long's table, the switch, --help (general and per command) and
 * the names in error messages all come from here.  Which commands take an option is the
 * OPT_* bit in their struct command; options without one, or with a bit of OPT_GLOBAL, apply
 * to every command.  A help text's "\n" continues it on the next line.
 */
static const struct opt_def {
        const char *name;
        int has_arg;
        char short_name;
        bool hidden;            /* another spelling of the option before it: not listed */
        unsigned bit;
        enum opt_action action;
        size_t field;           /* in struct ctx, for ACT_TRUE, ACT_STRING, ACT_SERVICE, ACT_VENDORDIR, ACT_PID,
                                 * ACT_SECONDS */
        const char *arg;        /* the argument's name in --help */
        struct opt_sense sense[4];
} options[] = {
#define F(f) offsetof(struct ctx, f)
        { "root", required_argument, 0, false, OPT_ROOT, ACT_STRING, F(root), "DIR",
          { { NULL, "operate on DIR/etc instead of /etc (users from DIR/etc/passwd)" } } },
        { "json", no_argument, 0, false, OPT_JSON, ACT_TRUE, F(json), NULL, { { NULL, "machine-readable output" } } },
        { "quiet", no_argument, 'q', false, OPT_QUIET, ACT_TRUE, F(quiet), NULL, { { NULL, "only errors" } } },
        { "flavour", required_argument, 0, false, OPT_FLAVOUR, ACT_FLAVOUR, 0, "NAME",
          { { NULL, "pam_limits to model: debian-X.Y.Z, upstream-X.Y.Z, debian, upstream,\n"
                    "or a distribution's release (rhel-9, ubuntu-24.04, ...; see rdmalimits(8))\n"
                    "(default: the installed release)" } } },
        { "flavor", required_argument, 0, true, OPT_FLAVOUR, ACT_FLAVOUR, 0, "NAME", {} },
        { "vendordir", required_argument, 0, false, OPT_FLAVOUR, ACT_VENDORDIR, F(vendordir), "DIR",
          { { NULL, "the vendor directory of the pam_limits build, or none" } } },
        { "soft", required_argument, 0, false, OPT_SOFT, ACT_STRING, F(soft), "SIZE", { { "apply", "the soft limit" } } },
        { "hard", required_argument, 0, false, OPT_HARD, ACT_STRING, F(hard), "SIZE", { { "apply", "the hard limit" } } },
        { "file", required_argument, 0, false, OPT_FILE, ACT_STRING, F(file), "NAME",
          { { "apply/remove", "the drop-in in limits.d (default " DROPIN_DEFAULT_NAME ")" } } },
        { "unit", required_argument, 0, false, OPT_UNIT, ACT_STRING, F(unit), "UNIT",
          { { "apply/remove", "LimitMEMLOCK= in a systemd drop-in for UNIT instead" },
            { "doctor", "also examine this systemd unit" },
            { "status", "only this unit's processes" } } },
        { "reload", no_argument, 0, false, OPT_RELOAD, ACT_TRUE, F(reload), NULL,
          { { "apply/remove", "with --unit: run systemctl daemon-reload afterwards" } } },
        { "check", no_argument, 0, false, OPT_CHECK, ACT_TRUE, F(check), NULL,
          { { "apply/remove/enable/disable", "change nothing; exit 3 when something would change" } } },
        { "diff", no_argument, 0, false, OPT_DIFF, ACT_TRUE, F(diff), NULL,
          { { "apply/remove/enable/disable", "show the change as a unified diff" } } },
        { "force", no_argument, 0, false, OPT_FORCE, ACT_TRUE, F(force), NULL,
          { { "apply/remove", "take over a drop-in without the rdmalimits marker" },
            { "pin-test", "pin more than half of MemAvailable when no limit applies" } } },
        { "allow-overridden", no_argument, 0, false, OPT_ALLOW_OVERRIDDEN, ACT_TRUE, F(allow_overridden), NULL,
          { { "apply", "write the entry even when it would not take effect (exit 0)" } } },
        { "policy", no_argument, 0, false, OPT_POLICY, ACT_TRUE, F(policy), NULL,
          { { "check", "validate the policy file too" } } },
        { "conf", required_argument, 0, false, OPT_CONF, ACT_STRING, F(policy_path), "FILE",
          { { NULL, "the policy file (default " POLICY_PATH ")" } } },
        { "service", required_argument, 0, false, OPT_SERVICE, ACT_SERVICE, F(service), "NAME",
          { { "explain", "the PAM service whose stack decides the order (default sshd)" },
            { "verify", "the PAM service that opens the session (default sshd)" },
            { "doctor", "also examine this PAM service's stack" },
            { "enable/disable", "a service to edit (repeatable; default: those that need it)" } } },
        { "pid", required_argument, 0, false, OPT_PID, ACT_PID, F(pid), "PID",
          { { "doctor", "also examine this running process" },
            { "explain", "model a session opened by this running process\n"
                         "(with --slurm: slurmd, whose limits the tasks start with)" },
            { "status", "only this process" } } },
        { "slurm", no_argument, 0, false, OPT_SLURM, ACT_TRUE, F(slurm), NULL,
          { { "explain", "a Slurm job task of USER on this node, not a PAM session\n"
                         "(slurm.conf, plugstack.conf, slurmd, spank_rdmalimit)" } } },
        { "submit-memlock", required_argument, 0, false, OPT_SUBMIT_MEMLOCK, ACT_STRING, F(submit_memlock), "SIZE",
          { { "explain", "with --slurm: the soft memlock of the shell that runs srun or\n"
                         "sbatch (default: this process's own)" } } },
        { "slurm-conf", required_argument, 0, false, OPT_SLURM_CONF, ACT_STRING, F(slurm_conf), "FILE",
          { { "explain", "with --slurm: slurm.conf (default /etc/slurm/slurm.conf,\n"
                         "else /etc/slurm-llnl/slurm.conf)" },
            { "doctor", "slurm.conf (default /etc/slurm/slurm.conf, else\n"
                        "/etc/slurm-llnl/slurm.conf)" },
            { "status", "the slurm.conf of this node's Slurm tasks (default\n"
                        "/etc/slurm/slurm.conf, else /etc/slurm-llnl/slurm.conf)" } } },
        { "ssh", required_argument, 0, false, OPT_SSH, ACT_STRING, F(ssh), "DEST",
          { { "verify", "log in with ssh to DEST" } } },
        { "ssh-option", required_argument, 0, false, OPT_SSH, ACT_SSH_OPTION, 0, "ARG",
          { { "verify", "with --ssh: one more argument for ssh, before DEST (repeatable)" } } },
        { "save", no_argument, 0, false, OPT_SAVE, ACT_TRUE, F(save), NULL,
          { { "probe", "write the hardware cache pam_rdmalimit reads at login" } } },
        { "cache", required_argument, 0, false, OPT_CACHE, ACT_STRING, F(cache), "FILE",
          { { "probe", "the cache file to write" },
            { "explain", "the cache the module reads\n(default: its cache= argument, else " HW_CACHE_PATH ")" },
            { "doctor", "the cache `auto` is computed from (\"\" for none)\n(default: the one the module lines read, else " HW_CACHE_PATH ")" } } },
        { "proc1-limits", required_argument, 0, false, OPT_PROC1, ACT_STRING, F(proc1), "FILE",
          { { "explain", "read PID 1's limits (the Debian baseline, an assumed service's) from FILE, not /proc/1/limits" } } },
        { "prometheus", no_argument, 0, false, OPT_PROMETHEUS, ACT_TRUE, F(prometheus), NULL,
          { { "status", "node_exporter textfile collector format" } } },
        { "threshold", required_argument, 0, false, OPT_THRESHOLD, ACT_STRING, F(threshold), "SIZE",
          { { "status", "with --prometheus: list processes charged at least SIZE (default 1M)" } } },
        { "output", required_argument, 0, false, OPT_OUTPUT, ACT_STRING, F(output), "FILE",
          { { "status", "with --prometheus: replace FILE (an absolute path) atomically instead of\n"
                        "printing; its directory must be root's, not writable by others,\n"
                        "with no symbolic link on the way" } } },
        { "probe-timeout", required_argument, 0, false, OPT_PROBE_TIMEOUT, ACT_SECONDS, F(probe_timeout), "SECONDS",
          { { "status/doctor", "kill a probe child (it runs as the user) that has not answered in\n"
                               "SECONDS (default 5); all the probes of one run stop after 6 times that" },
            { "verify", "give up a session (its modules read the user's files) or, with --ssh, a\n"
                        "login that has not answered in SECONDS (default 60)" } } },
        { "help", no_argument, 'h', false, 0, ACT_HELP, 0, NULL, { { NULL, "display this help" } } },
        { "version", no_argument, 'V', false, 0, ACT_VERSION, 0, NULL, { { NULL, "display version" } } },
#undef F
};

/* Does the command list cmds ("apply/remove") hold name? */
static bool cmds_has(const char *cmds, const char *name) {
        size_t n = strlen(name);
        for (const char *p = cmds; p; p = strchr(p, '/') ? strchr(p, '/') + 1 : NULL)
                if (strncmp(p, name, n) == 0 && (p[n] == '/' || !p[n]))
                        return true;
        return false;
}

/* text after prefix; each further line of it indented under the first */
static void print_option_text(FILE *out, const char *prefix, const char *text) {
        fputs(prefix, out);
        for (const char *p = text; *p;) {
                size_t n = strcspn(p, "\n");
                fprintf(out, "%.*s\n", (int)n, p);
                p += n;
                if (*p == '\n' && *++p)
                        fprintf(out, "%23s", "");
        }
}

/* An option in --help: " -q, --quiet", "     --soft SIZE" in a column, then its help. */
static void print_option(FILE *out, const struct opt_def *o, const char *prefix, const char *help) {
        char col[64];
        snprintf(col, sizeof col, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        if (o->short_name)
                fprintf(out, " -%c, %-17s ", o->short_name, col);
        else if (strlen(col) > 17) /* wider than the column: the help starts on the next line */
                fprintf(out, "     %s\n%23s", col, "");
        else
                fprintf(out, "     %-17s ", col);
        print_option_text(out, prefix, help);
}

static void usage(FILE *out) {
        fprintf(out, "Usage:\n rdmalimits [options] <command> [arguments]\n\n"
                     "Get locked-memory (memlock) limits right for RDMA and AF_XDP users.\n\nCommands:\n");
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                fprintf(out, " %-8s %-14s %s\n", commands[i].name, commands[i].args, commands[i].help);
        fputs(" help     [COMMAND]      this help, or a command's own (also: rdmalimits COMMAND --help)\n", out);
        fputs("\nOptions:\n", out);
        for (const struct opt_def *o = options; o < options + ELEMENTSOF(options); o++) {
                if (o->hidden)
                        continue;
                /* each sense on a line of its own, "cmds: " before it */
                for (size_t s = 0; s < ELEMENTSOF(o->sense) && o->sense[s].help; s++) {
                        char prefix[64];
                        snprintf(prefix, sizeof prefix, "%s%s", o->sense[s].cmds ? o->sense[s].cmds : "",
                                 o->sense[s].cmds ? ": " : "");
                        if (s > 0)
                                fprintf(out, "%23s", "");
                        if (s == 0)
                                print_option(out, o, prefix, o->sense[s].help);
                        else
                                print_option_text(out, prefix, o->sense[s].help);
                }
        }
        fputs("\nSizes take a unit: K, M, G, T (KiB, MiB, GiB, TiB), or \"unlimited\".\n"
              "Exit status: 0 success, 1 failure or findings, 2 usage error, 3 --check: would change,\n"
              "4 apply: the entry would not take effect, 5 verify: the session is not what explain\n"
              "predicts.\n\n"
              "For more details see rdmalimits(8).\n",
              out);
}

/* The sense of o for cmd: the one naming cmd, else the one for every command, else the first. */
static const char *option_help(const struct opt_def *o, const struct command *cmd) {
        const char *any = NULL;
        for (size_t s = 0; s < ELEMENTSOF(o->sense) && o->sense[s].help; s++) {
                if (o->sense[s].cmds && cmds_has(o->sense[s].cmds, cmd->name))
                        return o->sense[s].help;
                if (!o->sense[s].cmds && !any)
                        any = o->sense[s].help;
        }
        return any ? any : o->sense[0].help ? o->sense[0].help : "";
}

/* rdmalimits COMMAND --help: the command's own options, then those of every command */
static void command_usage(const struct command *cmd, FILE *out) {
        fprintf(out, "Usage:\n rdmalimits [options] %s%s%s\n\n%s.\n\nOptions:\n", cmd->name, cmd->args[0] ? " " : "",
                cmd->args, cmd->help);
        for (int global = 0; global <= 1; global++)
                for (const struct opt_def *o = options; o < options + ELEMENTSOF(options); o++)
                        if (!o->hidden && (!o->bit || (o->bit & OPT_GLOBAL)) == global &&
                            (global || (cmd->options & o->bit)))
                                print_option(out, o, "", option_help(o, cmd));
        fputs("\nFor more details see rdmalimits(8).\n", out);
}

static int close_stdout(void) {
        if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
                if (errno == EPIPE)
                        return 0;
                fprintf(stderr, "rdmalimits: write error: %s\n", errno_text(-errno));
                return -EIO;
        }
        return 0;
}

/* Does arg name an option whose argument is the next word ("--soft", "--so", not "--soft=1G")? */
static bool option_takes_argument(const char *arg) {
        if (strncmp(arg, "--", 2) != 0 || !arg[2] || strchr(arg, '='))
                return false;
        size_t n = strlen(arg + 2);
        for (size_t i = 0; i < ELEMENTSOF(options); i++)
                if (strncmp(options[i].name, arg + 2, n) == 0 && options[i].has_arg == required_argument)
                        return true;
        return false;
}

/* The command line as parsed: the context, the words that are not options. */
struct cli {
        struct ctx c;
        char **pos;             /* the command word and its arguments */
        int npos;
        char **negative;        /* argv[i] of a negative number, whole (getopt sees it without its '-') */
        bool flavour_set, want_help, want_version;
};

static void cli_free(struct cli *l) {
        free(l->pos);
        free(l->c.services);
        free(l->c.ssh_options);
        free(l->negative);
}

/* Give o its effect on the context. 0 or CMD_USAGE. */
static int option_apply(struct cli *l, int argc, const struct opt_def *o, char *arg) {
        char *field = (char *)&l->c + o->field;

        l->c.given |= o->bit;
        switch (o->action) {
        case ACT_TRUE:
                *(bool *)field = true;
                return 0;
        case ACT_VENDORDIR:
                if (!*arg || strlen(arg) >= sizeof(((struct lc_args *)0)->vendordir) ||
                    (!streq(arg, "none") && arg[0] != '/')) {
                        log_error("--vendordir '%s': expected an absolute directory or none", arg);
                        return CMD_USAGE;
                }
                __attribute__((fallthrough));
        case ACT_STRING:
                *(const char **)field = arg;
                return 0;
        case ACT_PID: {
                uint32_t pid;
                if (parse_u32(arg, &pid) < 0 || pid == 0 || pid > INT32_MAX) {
                        log_error("--pid '%s': expected a process id", arg);
                        return CMD_USAGE;
                }
                *(pid_t *)field = (pid_t)pid;
                return 0;
        }
        case ACT_SECONDS: {
                uint32_t secs;
                char buf[ESCAPE_NAME_MAX];
                if (parse_u32(arg, &secs) < 0 || secs == 0 || secs > 3600) {
                        log_error("--%s '%s': expected a whole number of seconds from 1 to 3600", o->name,
                                  str_escape(arg, buf, sizeof buf));
                        return CMD_USAGE;
                }
                *(unsigned *)field = secs;
                return 0;
        }
        case ACT_SERVICE:
                *(const char **)field = arg;
                if (!l->c.services && !(l->c.services = calloc((size_t)argc, sizeof(*l->c.services))))
                        return log_oom();
                l->c.services[l->c.n_services++] = arg;
                return 0;
        case ACT_SSH_OPTION:
                if (!l->c.ssh_options && !(l->c.ssh_options = calloc((size_t)argc, sizeof(*l->c.ssh_options))))
                        return log_oom();
                l->c.ssh_options[l->c.n_ssh_options++] = arg;
                return 0;
        case ACT_FLAVOUR:
                if (lc_flavour_from_string(arg, &l->c.flavour) < 0) {
                        log_error("--flavour '%s': expected debian or upstream, or debian-X.Y.Z or "
                                  "upstream-X.Y.Z (Linux-PAM 1.3.1 on), or a distribution release (rhel-9, "
                                  "ubuntu-22.04, ...: rdmalimits(8))", arg);
                        return CMD_USAGE;
                }
                l->flavour_set = true;
                return 0;
        case ACT_HELP:
                l->want_help = true;
                return 0;
        case ACT_VERSION:
                l->want_version = true;
                return 0;
        }
        return 0;
}

/* What getopt_long refused (opt is ':' or '?'), said the way util-linux says it. */
static int option_refused(int opt, char **argv) {
        const char *word = argv[optind - 1]; /* log_error() escapes it */
        if (opt == ':')
                log_error("option '%s' requires an argument", word);
        else if (optopt >= 0x100)
                log_error("option '%s' does not take an argument", word);
        else if (optopt > 0x20 && optopt < 0x7f)
                log_error("invalid option -- '%c'", optopt);
        else
                log_error("unrecognized option '%s'", word);
        return CMD_USAGE;
}

/* The getopt_long value of an option: its short name, else 0x100 + its index. */
static int option_val(size_t i) {
        return options[i].short_name ? options[i].short_name : 0x100 + (int)i;
}

/* Options may stand anywhere; "--" ends them (the rest are arguments: "remove -- -odd"). */
static int parse_options(struct cli *l, int argc, char **argv) {
        struct option longopts[ELEMENTSOF(options) + 1] = {};
        char shortopts[8 + 2 * ELEMENTSOF(options)] = "-:";
        int opt;

        for (size_t i = 0; i < ELEMENTSOF(options); i++) {
                longopts[i] = (struct option){ options[i].name, options[i].has_arg, NULL, option_val(i) };
                if (options[i].short_name) {
                        size_t n = strlen(shortopts);
                        shortopts[n] = options[i].short_name;
                        shortopts[n + 1] = '\0';
                }
        }
        l->pos = calloc((size_t)argc + 1, sizeof(char *));
        l->negative = calloc((size_t)argc + 1, sizeof(char *));
        if (!l->pos || !l->negative)
                return log_oom();
        /* A negative number ("apply @g -1") is an argument, not an option: getopt sees it
         * without its '-', and it is given back whole. */
        for (int i = 1; i < argc && !streq(argv[i], "--"); i++) {
                if (argv[i][0] != '-' || !(argv[i][1] >= '0' && argv[i][1] <= '9') || option_takes_argument(argv[i - 1]))
                        continue;
                l->negative[i] = argv[i];
                argv[i]++;
        }
        opterr = 0;
        while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
                if (opt == 1) {
                        for (int i = 1; i < argc; i++)
                                if (l->negative[i] && optarg == l->negative[i] + 1)
                                        optarg = l->negative[i];
                        l->pos[l->npos++] = optarg;
                        continue;
                }
                size_t i = 0;
                while (i < ELEMENTSOF(options) && option_val(i) != opt)
                        i++;
                if (i == ELEMENTSOF(options))
                        return option_refused(opt, argv);
                int r = option_apply(l, argc, &options[i], optarg);
                if (r != 0)
                        return r;
                if (l->want_version)
                        return 0;
        }
        /* getopt_long with "-" stops at "--": the rest are arguments, whatever they start with */
        for (int i = optind; i < argc; i++)
                l->pos[l->npos++] = argv[i];
        return 0;
}

/* The command called name; NULL, said, when there is none. */
static const struct command *command_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                if (streq(name, commands[i].name))
                        return &commands[i];
        log_error("unknown command '%s'", name);
        return NULL;
}

/* rdmalimits --help, rdmalimits COMMAND --help, rdmalimits help [COMMAND] */
static int print_help(const struct cli *l) {
        const char *name = l->want_help && l->npos > 0 && !streq(l->pos[0], "help") ? l->pos[0]
                           : l->npos > 1                                        ? l->pos[1]
                                                                                : NULL;
        const struct command *cmd = NULL;
        if (name && !(cmd = command_find(name)))
                return CMD_USAGE;
        if (cmd)
                command_usage(cmd, stdout);
        else
                usage(stdout);
        return 0;
}

/* Does the command take what was given (options, arguments, "--")? 0 or CMD_USAGE. */
static int command_check_args(const struct command *cmd, const struct ctx *c) {
        unsigned stray = c->given & ~(cmd->options | OPT_GLOBAL);

        /* the stray option of the lowest OPT_* bit */
        for (size_t i = 0; i < ELEMENTSOF(options); i++)
                if (stray && options[i].bit == (stray & -stray)) {
                        log_error("%s: option --%s does not apply", cmd->name, options[i].name);
                        return CMD_USAGE;
                }
        if (c->argc < cmd->min_args || (cmd->max_args >= 0 && c->argc > cmd->max_args)) {
                if (!cmd->args[0])
                        log_error("%s: takes no arguments ('%s')", cmd->name, c->argv[0]);
                else
                        log_error("%s: expected %s%s", cmd->name, cmd->args,
                                  c->argc < cmd->min_args ? "" : " (too many arguments)");
                return CMD_USAGE;
        }
        if (c->root && !*c->root) {
                log_error("--root: empty directory name");
                return CMD_USAGE;
        }
        return 0;
}

/* The defaults that depend on what was given; --root must be a directory. */
static int ctx_finish(struct cli *l) {
        struct ctx *c = &l->c;
        if (c->root) {
                struct stat st;
                const char *err = stat(c->root, &st) < 0 ? errno_text(-errno) : !S_ISDIR(st.st_mode) ? errno_text(-ENOTDIR) : NULL;
                if (err) {
                        log_error("--root %s: %s", c->root, err);
                        return CMD_FINDINGS;
                }
        }
        if (!l->flavour_set)
                c->flavour = lc_flavour_default(c->root);
        /* --root DIR works on DIR/etc, whatever sysconfdir this build was configured with */
        if (!c->policy_path)
                c->policy_path = c->root ? "/etc/security/rdmalimit.conf" : POLICY_PATH;
        return 0;
}

/* Parse the command line into l and find the command; *ret_cmd stays NULL when the work is
 * done already (--help, --version). */
static int cli_prepare(struct cli *l, int argc, char **argv, const struct command **ret_cmd) {
        const struct command *cmd;
        int r;

        r = parse_options(l, argc, argv);
        if (r != 0)
                return r;
        if (l->want_version) {
                printf("rdmalimits %s\n", VERSION);
                return 0;
        }
        if (l->want_help || (l->npos > 0 && streq(l->pos[0], "help")))
                return print_help(l);
        if (l->npos == 0) {
                log_error("no command given");
                return CMD_USAGE;
        }
        cmd = command_find(l->pos[0]);
        if (!cmd)
                return CMD_USAGE;
        l->c.argc = l->npos - 1;
        l->c.argv = l->pos + 1;
        r = command_check_args(cmd, &l->c);
        if (r == 0)
                r = ctx_finish(l);
        if (r == 0)
                *ret_cmd = cmd;
        return r;
}

static int run(int argc, char **argv) {
        _cleanup_(cli_free) struct cli l = {};
        const struct command *cmd = NULL;

        int r = cli_prepare(&l, argc, argv, &cmd);
        if (r == CMD_USAGE)
                fputs("Try 'rdmalimits --help' for more information.\n", stderr);
        if (r != 0 || !cmd)
                return r;
        return cmd->run(&l.c);
}

/* The one place that turns what a command reports into an exit status (rdmalimits(8) EXIT
 * STATUS): a CMD_* outcome is its own; a negative errno, a failure reported where it
 * happened, is CMD_FINDINGS. */
int main(int argc, char **argv) {
        int status = run(argc, argv);
        if (status < 0 || status > CMD_MODEL_ERROR)
                status = CMD_FINDINGS;
        if (close_stdout() < 0 && status == 0)
                status = CMD_FINDINGS;
        return status;
}
