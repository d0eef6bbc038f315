/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * sshd's configuration as the tool needs it: whether an ssh login opens a PAM session
 * (UsePAM).  The one reader of sshd_config and the files it includes; doctor's ssh check and
 * the session engine (explain, verify) both ask it.  Every file is read inside the root
 * (lib/base/fsutil.h); the walk is bounded by visit.h.
 *
 * Read in OpenSSH's sources (servconf.c, sshd.c; 9.2p1 and 9.9p1 alike):
 *   - `-o KEYWORD=VALUE` on sshd's command line is read before the file (`-f FILE`, default
 *     /etc/ssh/sshd_config), and for UsePAM the first value read wins: a later line is
 *     ignored.
 *   - "Keyword value", "Keyword=value", "Keyword = value"; keywords without regard to case;
 *     '#' starts a comment line; UsePAM takes "yes" or "no" (any case), anything else (or
 *     nothing) is an error and sshd refuses to start.
 *   - UsePAM is a global option: inside a Match block sshd refuses the configuration.
 *   - "Include FILE..." reads each FILE (wildcards, sorted; relative to /etc/ssh) in the
 *     Match block its line is in; a file more than 16 levels deep is refused ("Too many
 *     recursive configuration includes"), so an include cycle keeps sshd from starting.
 *   - Without UsePAM, OpenSSH's built-in default is no.  Debian's and Fedora's
 *     sshd_config set it to yes.
 */
#include <stdbool.h>
#include <sys/types.h>

#include "strv.h"
#include "visit.h"

#define SSHD_CONFIG_DEFAULT "/etc/ssh/sshd_config"

struct sshd_conf {
        char *path;               /* the sshd_config read (absolute, inside the root) */
        char *file;               /* ... as shown (relative to the root) */
        int error;                /* 0; -ENOENT: none; another negative errno: cannot be read */
        bool set, value;          /* UsePAM: the first value sshd reads */
        char *where;              /* its "FILE:LINE", or "the command line of sshd (pid N)" */
        char *bad_where;          /* a UsePAM whose value is neither yes nor no: sshd refuses */
        bool ignored;             /* a later UsePAM with another value */
        bool ignored_value;
        char *ignored_where;
        char *match_where;        /* the first UsePAM inside a Match block: sshd refuses */
        char *deep_where;         /* the first Include past 16 levels: sshd refuses */
        unsigned depth;           /* of the file being read: 0 is sshd_config */
        bool in_match;            /* in a Match block */
        struct visit walk;        /* its error: an Include cycle or the bound, at walk.where */
        pid_t pid;                /* the running sshd whose command line was asked, 0: none */
        int cmdline_error;        /* its command line could not be read (0: it was) */
};

/* What an ssh login does about PAM, from what was read. */
enum sshd_pam {
        SSHD_PAM_YES,             /* UsePAM yes: the sshd session stack runs */
        SSHD_PAM_NO,              /* UsePAM no, or not set (the built-in default) */
        SSHD_PAM_REFUSED,         /* sshd refuses this configuration: it does not start */
        SSHD_PAM_UNKNOWN,         /* no sshd_config, or it cannot be read */
};

/*
 * Read sshd_config: path (absolute, inside root; NULL: SSHD_CONFIG_DEFAULT), after the `-o`
 * options of opts (NULL: none), which cmdline_where names.  0 (ret->error when there is none or
 * it cannot be read), or -ENOMEM.
 */
int sshd_conf_read(const char *root, const char *path, const struct strv *opts, const char *cmdline_where,
                   struct sshd_conf *ret);
void sshd_conf_clear(struct sshd_conf *c);
/* The answer, and where it comes from ("FILE:LINE", or the file when UsePAM is not set; NULL
 * when unknown). */
enum sshd_pam sshd_conf_pam(const struct sshd_conf *c, const char **ret_where);

/*
 * The configuration a running sshd was started with: its `-f FILE` (*ret_path, NULL for the
 * default) and its `-o` options (appended to opts), from /proc/PID/cmdline.  Only for a
 * process the caller has identified as root's sshd (proc_daemon_identify()): a user's
 * process would name a file of its own.  0 or -errno (-EBADMSG: not known: a title cut short,
 * a relative -f, read from a directory sshd has left).
 */
int sshd_cmdline(pid_t pid, char **ret_path, struct strv *opts);
/* The arguments of a listener's title ("sshd: PROGRAM ARGS [listener] ...", as OpenSSH 8.2 and
 * later rewrite their argv), without the program: a value with blanks comes back whole, up to
 * the next option.  0, -EBADMSG (not such a title, or cut short), -ENOMEM. */
int sshd_title_args(const char *title, struct strv *args);
/* The same, of the arguments argv[0..argc) (without the program name). */
int sshd_args_parse(char *const *argv, size_t argc, char **ret_path, struct strv *opts);
