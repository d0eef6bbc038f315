/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "limitsconf.h"
#include "output.h"
#include "policy.h"
#include "rlimit.h"
#include "session.h"

/* What a command returns: 0, a negative errno (a failure it has reported), or one of these
 * outcomes, whose values are the exit statuses main() returns (rdmalimits(8) EXIT STATUS). */
enum {
        CMD_FINDINGS = 1,        /* findings, or a failure reported (exit 1) */
        CMD_USAGE,               /* a usage error reported (exit 2) */
        CMD_WOULD_CHANGE,        /* --check: something would change (exit 3) */
        CMD_NOT_EFFECTIVE,       /* apply: the entry would not take effect; --allow-overridden accepts it (exit 4) */
        CMD_MODEL_ERROR,         /* verify: the session differs from the prediction (exit 5) */
};

/* the options a command takes (its struct command); the option table is in rdmalimits.c */
enum {
        OPT_ROOT = 1u << 0,
        OPT_JSON = 1u << 1,
        OPT_QUIET = 1u << 2,
        OPT_FLAVOUR = 1u << 3,
        OPT_SOFT = 1u << 4,
        OPT_HARD = 1u << 5,
        OPT_FILE = 1u << 6,
        OPT_CHECK = 1u << 7,
        OPT_DIFF = 1u << 8,
        OPT_FORCE = 1u << 9,
        OPT_POLICY = 1u << 10,
        OPT_CONF = 1u << 11,
        OPT_SERVICE = 1u << 12,
        OPT_SSH = 1u << 13,
        OPT_PID = 1u << 14,
        OPT_UNIT = 1u << 15,
        OPT_SAVE = 1u << 16,
        OPT_RELOAD = 1u << 17,
        OPT_PROC1 = 1u << 18,
        OPT_CACHE = 1u << 19,
        OPT_PROMETHEUS = 1u << 20,
        OPT_THRESHOLD = 1u << 21,
        OPT_ALLOW_OVERRIDDEN = 1u << 22,
        OPT_OUTPUT = 1u << 23,
        OPT_PROBE_TIMEOUT = 1u << 24,
        OPT_SLURM = 1u << 25,
        OPT_SUBMIT_MEMLOCK = 1u << 26,
        OPT_SLURM_CONF = 1u << 27,
};
/* Options of every command.  Not --root: verify, status and pin-test work on this running
 * system only and refuse it; the others list it. */
#define OPT_GLOBAL (OPT_JSON | OPT_QUIET | OPT_FLAVOUR)

struct ctx {
        unsigned given;          /* OPT_* seen */
        const char *root;        /* NULL: / */
        bool json, quiet;
        enum lc_flavour flavour;
        const char *vendordir;   /* --vendordir DIR|none, NULL: the release's build default */
        const char *soft, *hard, *file;
        bool check, diff, force, policy, save, reload, allow_overridden;
        const char *policy_path; /* --conf: the policy file (default /etc/security/rdmalimit.conf) */
        const char *service, *ssh, *unit, *proc1;
        const char **services;   /* every --service, in order (enable, disable) */
        size_t n_services;
        const char *cache;       /* --cache: the hardware cache file */
        pid_t pid;               /* --pid, 0: not given */
        bool prometheus;         /* status --prometheus */
        const char *threshold;   /* status --threshold SIZE */
        const char *output;      /* status --prometheus --output FILE */
        unsigned probe_timeout;  /* status, doctor --probe-timeout SECONDS, 0: not given */
        bool slurm;              /* explain --slurm: a Slurm job task, not a PAM session */
        const char *submit_memlock; /* explain --slurm --submit-memlock SIZE */
        const char *slurm_conf;  /* explain --slurm --slurm-conf FILE */
        int argc;                /* positional arguments after the command word */
        char **argv;
        const char **ssh_options; /* every --ssh-option, in order (verify --ssh) */
        size_t n_ssh_options;
};

struct command {
        const char *name;
        int (*run)(struct ctx *c);
        unsigned options;        /* OPT_* beyond the global ones */
        int min_args, max_args;
        const char *args;        /* for usage */
        const char *help;
};

int cmd_apply(struct ctx *c);
int cmd_remove(struct ctx *c);
int cmd_list(struct ctx *c);
int cmd_check(struct ctx *c);
int cmd_explain(struct ctx *c);
int cmd_explain_slurm(struct ctx *c);
/* status: where the memlock of a running Slurm task of uid came from, by explain --slurm's model
 * (the submit shell's limit unknown), into buf; *cache holds what is read once (free it with
 * slurm_origin_free()).  1 when buf is set, 0 when there is nothing to model, -ENOMEM. */
/* UsePAM=1 (*ret_used): the PAM session "slurm" slurmstepd opens for user, modelled from slurmd's
 * limits and capability sd, into *ret.  0 (*ret_used false: no UsePAM), -ENOMEM, -EINVAL when
 * the session cannot be modelled (logged). */
struct slurm_conf;
struct slurm_pam;
int tool_slurm_pam(const struct ctx *c, const char *user, const struct slurm_conf *conf, const struct lc_service *sd,
                   struct slurm_pam *ret, bool *ret_used);
struct slurm_origin;
int slurm_task_origin(const struct ctx *c, struct slurm_origin **cache, uid_t uid, struct rl_pair live, char *buf,
                      size_t size);
void slurm_origin_free(struct slurm_origin *o);
int cmd_probe(struct ctx *c);
int cmd_pintest(struct ctx *c);
int cmd_verify(struct ctx *c);
int cmd_doctor(struct ctx *c);
int cmd_status(struct ctx *c);
struct status_proc;
void json_xsk_sockets(struct json *j, const struct status_proc *p, const char *key);
int cmd_enable(struct ctx *c);
int cmd_disable(struct ctx *c);
int cmd_unit(struct ctx *c, bool removing);

/* shared helpers (rdmalimits.c) */
/* The limits tree as the pam_limits line with these arguments reads it (set_all, conf=;
 * NULL: none) */
int ctx_load_tree(const struct ctx *c, const char *pam_limits_args, struct lc_tree **ret);
int ctx_ident(const struct ctx *c, struct ident **ret);
/* Lock the directory dirfd (dir_display: as messages name it) against other apply/remove
 * runs: its lock file in FS_LOCK_DIR (see fs_lock_dir_open()), waited for up to
 * RDMALIMITS_LOCK_TIMEOUT seconds (default CTX_LOCK_TIMEOUT_DEFAULT); on failure prints
 * why, naming the lock file and its holder.  0, a reported negative errno, or CMD_USAGE (a bad
 * RDMALIMITS_LOCK_TIMEOUT). */
#define CTX_LOCK_TIMEOUT_DEFAULT 10u
int ctx_lock(int dirfd, const char *dir_display, int *ret_fd);
/* Say why the directory display (inside --root) did not open, r its negative errno: a link
 * out of the tree, or the error.  Returns r. */
int ctx_dir_error(const struct ctx *c, const char *display, int r);
/* Is the directory rdmalimits writes in (dirfd, display in messages) one only root owns and
 * may write (fs_check_trusted())?  0; CMD_FINDINGS, said, when not (unless --force); or a
 * reported negative errno. */
int ctx_dir_trusted(const struct ctx *c, int dirfd, const char *display);
/* Open the directory abs inside --root (fs_open_dir_in_root() flags), refuse it unless
 * ctx_dir_trusted() and, but for --check, lock it with ctx_lock().  0, a reported negative
 * errno, CMD_FINDINGS or CMD_USAGE. */
int ctx_open_dir_locked(const struct ctx *c, const char *abs, unsigned flags, const char *display, int *ret_dirfd,
                        int *ret_lockfd);
/* A file rdmalimits manages (a limits.d or a unit drop-in), name in dirfd (-1: the directory is
 * not there), display as messages name it: read it, never through a link, only a regular file,
 * at most max bytes; with trusted, one root owns and only root may write (unless --force).
 * 1 and its text, 0 and "" when it does not exist, or a reported negative errno. */
int managed_read(const struct ctx *c, int dirfd, const char *name, const char *display, size_t max, bool trusted,
                 char **ret_text, size_t *ret_len);
/* Replace it atomically with text (mode: its permissions), or (text NULL) remove it.  0 or a reported negative errno
 * (FS_ERR_DIRSYNC: done, but its directory not synced). */
int managed_write(int dirfd, const char *name, const char *display, const char *text, mode_t mode);
/* Parse a CLI size argument; prints the error naming `what`.  Returns 0 or -EINVAL. */
int ctx_parse_size(const char *what, const char *arg, uint64_t *ret);
/* The limits apply sets: size (not NULL) for both, then --soft and --hard; *has_soft and *has_hard
 * set for those given.  0 or CMD_USAGE. */
int ctx_parse_limits(const struct ctx *c, const char *size, uint64_t *soft, uint64_t *hard,
                     bool *has_soft, bool *has_hard);
/* 0, or CMD_USAGE with a message when the soft limit is above the hard one. */
int ctx_check_order(uint64_t soft, uint64_t hard);
/* A managed file's change for --diff and --json, from old (display, or /dev/null when it did
 * not exist) to text (/dev/null when removed); printed at once for --diff without --json.
 * NULL when it does not change or neither was asked for (or out of memory). */
char *change_diff(const struct ctx *c, bool changed, const char *display, bool existed, const char *old, bool removed,
                  const char *text);
/* Run argv (found in PATH) and wait for it: its exit status, 128 + the signal that ended it,
 * or a negative errno (-ENOENT: not found). */
int run_wait(char *const argv[]);
/* --json of a change: {"changed", "file", "diff", ... then "check" under --check} */
void change_json_begin(struct json *j, bool changed, const char *file, const char *diff);
void change_json_end(const struct ctx *c, struct json *j);

/* A session of a user as the tool models it (tool/model.c): what explain prints and verify
 * compares with a real session. */
/* What one pam_rdmalimit line reads: its policy and the hardware it sees. */
struct tool_copy {
        char *policy_path;               /* conf= (or --conf, or the default) */
        char *cache_arg;                 /* cache= as written, "" for none; NULL: not given */
        struct policy *p;                /* NULL: none usable */
        char refused[512];
        struct hw_summary *hw;
        char cache[256];
        int cache_r;
};

struct tool_session {
        const struct ctx *ctx;
        const char *service;
        const struct lc_tree *t;         /* the tree of the last pam_limits that runs (m.tree) */
        /* every tree a pam_limits line of the stack reads, by its arguments (conf=) */
        struct lc_tree **trees;
        char **tree_args;
        size_t n_trees;
        struct ident *id;
        struct lc_baseline base;
        const struct id_user *u;
        struct lc_service svc;           /* the process that opens the session (or assumptions) */
        /* the copy of the module whose decision counts (m.module_entry's, else the last that
         * runs, else the first line's): borrowed from copies[] */
        struct policy *p;                /* the policy the module reads, NULL: none usable */
        bool have_policy;
        char refused[512];               /* the policy exists but the module refuses it: why */
        struct hw_summary *hw;           /* for auto rules */
        char cache[256];                 /* the hardware cache the module reads, "" for none */
        int cache_r;                     /* hw_cache_load() of it: 0 used */
        bool hw_cached;
        /* every policy and cache a pam_rdmalimit line of the stack reads (conf=, cache=) */
        struct tool_copy *copies;
        size_t n_copies;
        struct session_model m;
        pid_t svc_pid;                   /* the process svc was read from, 0: none */
};
/* pid > 0: the session is opened by that process (explain --pid, verify).  pam_direct: the
 * caller opens it itself through libpam (verify without --ssh), so the stack runs whatever the
 * service's daemon does about PAM.  0, a reported negative errno, or CMD_FINDINGS (the model
 * cannot be built). */
int tool_session_load(const struct ctx *c, const char *user, pid_t pid, bool pam_direct, struct tool_session *ret);
/* "flavour": {"name": "debian-1.5.2", "release": "1.5.2", "from": "dpkg"}, the one writer of
 * it (explain, list): the release modelled, its Linux-PAM version, and what decided it. */
void tool_json_flavour(struct json *j, const struct lc_tree *t);
/* The same, opened by a process with svc's limits and capability (UsePAM=1: slurmstepd, which
 * starts with slurmd's). */
int tool_session_load_svc(const struct ctx *c, const char *user, const struct lc_service *svc,
                          struct tool_session *ret);
void tool_session_clear(struct tool_session *s);
/* What the lines of a stack read, for the views without a user (doctor, enable) and the
 * session engine's walks for every user (session_walks_every_user()): each pam_rdmalimit
 * line's policy and each pam_limits line's tree, loaded once into s (s->ctx set). */
struct session_lines tool_session_lines(struct tool_session *s);
/* The copy a pam_rdmalimit line with args (NULL: none) reads, loaded once into s (s->ctx set):
 * its policy, and with hardware the hardware any rule of it may need ("auto").  -ENOMEM. */
int tool_line_copy(struct tool_session *s, const char *args, bool hardware, const struct tool_copy **ret);
/* The policy at path (inside --root) as the module and the plugin load it: *ret NULL when it
 * cannot be loaded, refused then says why ("" for a missing file). */
void tool_policy_load(const struct ctx *c, const char *path, struct policy **ret, char *refused, size_t refused_size);
/* The hardware the module (or the plugin) sees for p: the cache (--cache, else cache_arg, its
 * cache= argument, "" for none, else the default) when valid, else a live probe.  cache_shown
 * gets the cache's name ("" for none), *ret_cache_r hw_cache_load()'s result.  0 or -ENOMEM. */
int tool_hw_load(const struct ctx *c, const char *cache_arg, const struct policy *p, struct hw_summary **ret,
                 char *cache_shown, size_t shown_size, int *ret_cache_r);

/* Open (root-owned, not group/world-writable), read and load the policy; findings into d.
 * ret_text (may be NULL) gets the bytes it was loaded from, ret_len their length. */
int check_policy_file(const struct ctx *c, struct diag_list *d, struct policy **ret, char **ret_text, size_t *ret_len);
void print_auto_text(const struct policy *p, const struct policy_auto *a, const char *indent);
void print_auto_json(struct json *j, const struct policy *p, const struct policy_auto *a);
