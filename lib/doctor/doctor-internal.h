/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * What the links of doctor's chain share (lib/doctor/, not installed, not used outside):
 *
 *   core.c        the report, the targets (what the configuration gives), doctor_run()
 *   util.c        strings, paths inside the root, files, directory listings
 *   pam.c         PAM session stacks: pam_limits and pam_rdmalimit present, ordered, loadable
 *   sshd.c        sshd_config UsePAM
 *   systemd.c     DefaultLimitMEMLOCK, units and their drop-ins, LimitMEMLOCK
 *   containers.c  the container doctor runs in, its capabilities; docker and podman
 *   kube.c        Kubernetes nodes: kubelet, and containerd and CRI-O, whose limits pods inherit
 *   slurm.c       Slurm: slurm.conf PropagateResourceLimits, slurmd's unit, pam_slurm_adopt,
 *                 plugstack.conf (spank_rdmalimit), running job steps against explain --slurm
 *   process.c     /proc: the login services' own limits, --pid
 *   config.c      limits.conf and limits.d, the policy, the hardware cache
 *
 * Every file is read inside in->root through lib/base/fsutil.h; /proc only for the running
 * system.  Every check adds findings; only -ENOMEM is returned.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "doctor.h"
#include "hw.h"
#include "policy.h"
#include "size.h"
#include "pammod.h"
#include "procfs.h"
#include "strv.h"

#define DOC_TEXT_MAX (4u * 1024 * 1024)   /* larger configuration files are not read */
#define CAP_IPC_LOCK_BIT 14
#define CAP_SYS_RESOURCE_BIT 24
/* systemd's own RLIMIT_MEMLOCK default (v251+: 8 MiB, the kernel's default since 5.16) */
#define SYSTEMD_DEFAULT_MEMLOCK (UINT64_C(8) * 1024 * 1024)
/* "soft 16 EiB, hard 16 EiB" and the like: two size_format() strings and their words */
#define PAIR_MAX (2 * SIZE_FMT_MAX + 16)

/* ---- util.c ---- */

/* *field replaced by a copy of value: 0 or -ENOMEM (*field unchanged then). */
int set_str(char **field, const char *value);
/* The line *cursor starts (its newline cut, in place), *cursor moved to the next one; NULL
 * after the last: for (char *cur = text, *line; (line = line_next(&cur));) */
char *line_next(char **cursor);
/* Leading blanks skipped, trailing blanks and CR/LF cut (in place). */
char *strip(char *s);
/* "8 MiB" or "soft 8 MiB, hard unlimited" in buf. */
const char *fmt_pair(uint64_t soft, uint64_t hard, char buf[static PAIR_MAX]);

struct doc;
/* The name shown for an absolute path: relative to the root when there is one. */
const char *disp(const struct doc *d, const char *abs);
/* A path the caller got with the root prefix (e.g. the policy's): the prefix stripped. */
const char *disp_rooted(const struct doc *d, const char *path);
/* A file of the running system (/proc), at most DOC_TEXT_MAX bytes. */
int read_text(const char *path, char **ret);
/* ROOT/abs. */
int read_rooted(const struct doc *d, const char *abs, char **ret);
typedef int line_fn(struct doc *d, char *line, const char *where, void *userdata);
/* Each line of ROOT/abs (its newline cut, in place) and its "FILE:LINE" to fn, up to the first
 * error: 0, that error, or read_rooted()'s; with a walk v (visit.h), as a file of it, brought
 * by the line from ("FILE:LINE", NULL for the walk's first file): entered (a cycle, the
 * budget: v's error), each line counted, left. */
struct visit;
int read_lines_walk(struct doc *d, const char *abs, struct visit *v, const char *from, line_fn *fn, void *userdata);
bool exists_rooted(const struct doc *d, const char *abs, bool want_dir);
/* Names in ROOT/absdir matching the fnmatch pattern (no dotfiles), sorted in byte order; a
 * directory that cannot be opened is empty.  Only -ENOMEM is returned. */
int list_dir(const struct doc *d, const char *absdir, const char *pattern, struct strv *ret);
/* NAME.conf in SUB of each of dirs (a name in an earlier directory hides the same name in
 * later ones), as absolute paths sorted by file name: systemd's and containers.conf's rule. */
int list_dropins(const struct doc *d, const char *const *dirs, size_t n_dirs, const char *const *subs,
                 size_t n_subs, struct strv *ret);
/* The *.conf files of dirs (absolute, in priority order) as systemd's conf_files_list_strv()
 * lists them: a file name in an earlier directory hides the same name in later ones, and all
 * are sorted by file name (strcmp).  0 or -ENOMEM. */
int list_conf_files(const struct doc *d, char *const *dirs, size_t n_dirs, struct strv *ret);

/* ---- pam.c ---- */

/* Choose d->cache once (doctor_input.hw_cache): 0 or -ENOMEM. */
int pam_choose_cache(struct doc *d);
/* The root d->cache is inside (NULL for --cache, a path of this host), and the cache as
 * messages show it (NULL: none). */
const char *cache_root(const struct doc *d);
const char *cache_shown(const struct doc *d);

/* ---- core.c: the targets ---- */

/* The largest memlock some configuration gives, and where (heap strings, NULL when unknown). */
struct target {
        bool soft_known, hard_known;
        uint64_t soft, hard;
        char *soft_where, *hard_where;
};
void target_clear(struct target *t);
/* "hard 1 GiB (etc/security/limits.d/90.conf:3)"; NULL on -ENOMEM. */
char *target_text(const struct target *t, bool hard);

/* The last assignment of a limit (LimitMEMLOCK=, DefaultLimitMEMLOCK=). */
struct limit_setting {
        bool set;              /* an assignment is in effect (a line systemd cannot parse, an
                                * empty one too, is ignored: it changes nothing here) */
        char *text;
        uint64_t soft, hard;
        char *where;
        char *file;            /* the file of the last assignment (absolute, without root) */
        unsigned assignments;  /* the lines systemd took (ignored ones not counted) */
        char *overridden;      /* the assignment the final one overrides, and its value */
        char *overridden_text;
};
void limit_setting_clear(struct limit_setting *l);     /* systemd.c */

struct doc {
        const struct doctor_input *in;
        struct diag_list *rep;
        struct hw_summary *hw;
        bool hw_probed;
        int hw_cache_r;              /* the cache's error when hw is probed (0: from the cache) */
        /* the hardware cache `auto` reads (pam_choose_cache()): NULL for none (a live probe);
         * in the root unless --cache; the first line that reads it ("" for --cache or the
         * default); the lines that read another ("FILE:LINE reads X", joined), or NULL */
        bool cache_chosen;
        char *cache, *cache_where, *cache_others;
        struct target max;           /* the largest memlock any entry or rule gives */
        bool tree_has_memlock;
        size_t stacks_seen;
        bool module_in_any_stack;
        bool in_container;
        /* PAM module directories (absolute, without root), and the one libpam loads from */
        struct pam_moddirs moddirs;      /* where libpam finds modules (pammod.h), loaded once */
        bool no_modules_said;            /* a --root tree without PAM modules: said once */
        struct limit_setting sysdef;   /* DefaultLimitMEMLOCK of system.conf */
        /* the stack being checked, walked once for every user a policy has a rule for */
        const struct session_walks *walks;
};

#define ADD(d, g, lvl, where, fix, ...) ADD_ID(d, g, lvl, NULL, where, fix, __VA_ARGS__)
#define ADD_ID(d, g, lvl, id, where, fix, ...)                                                \
        do {                                                                                  \
                if (doctor_add((d)->rep, (g), (lvl), (id), (where), (fix), __VA_ARGS__) < 0) \
                        return -ENOMEM;                                                       \
        } while (0)

/* The one finding of an include walk that cycled or went past its bound (visit.h): cycle_id
 * (an error) or bound_id (bound_lvl; the ids are kept, not copied), at where; the fix
 * names keyword ("include", "Include") and reader (what is not read past the bound); the text
 * is "SUBJECT: <visit_strerror>", and "; CYCLE_EFFECT" for a cycle.  -ENOMEM. */
int walk_finding(struct doc *d, enum doctor_group g, const char *cycle_id, const char *bound_id,
                 enum diag_severity bound_lvl, int error,
                 const char *where, const char *keyword, const char *reader, const char *subject,
                 const char *cycle_effect);

/* The host's hardware (probed once; NULL when the probe failed). */
const struct hw_summary *need_hw(struct doc *d);
/* Where it came from: "from the cache X", "probed live: ..." (NULL: out of memory). */
char *hw_source(const struct doc *d);

/* What the configuration gives USER: -ENOENT for an unknown user; an empty target when no
 * entry or rule names the user (the baseline is not a target). */
int user_target(struct doc *d, const char *user, struct target *ret);
/* Compare a service's memlock with d->max: DIAG_WARNING and *ret_why (", below the ...")
 * when below, else DIAG_OK and *ret_why "".  -ENOMEM. */
int below_max(const struct doc *d, uint64_t soft, uint64_t hard, enum diag_severity *ret_lvl, char **ret_why);

/* `auto` for this host: the policy's hardware section, or the defaults (a policy without one). */
struct host_auto {
        uint64_t value;              /* 0: nothing to go by (no hardware, no fallback, no probe) */
        char *why;                   /* how it was computed: source, hardware counts, caps */
        bool hw_known;               /* the hardware was probed */
        size_t n_rdma;               /* RDMA devices */
        unsigned hw_units;           /* what `auto` counts: active ports, zero-copy and copy-mode RX queues */
};
int host_auto(struct doc *d, struct host_auto *ret);
void host_auto_clear(struct host_auto *a);
/* The memlock a service needs for the hardware here: the configured maximum when the
 * configuration names one, else the host's `auto` (0: unknown).  *ret_why says which. */
int host_need(struct doc *d, uint64_t *ret, char **ret_why);

/* ---- the links ---- */
/* A check: 0, or a negative errno (-ENOMEM) that ends the run; findings go to d->rep. */
typedef int doc_check_fn(struct doc *d);
/* Run each of checks[n] in order, up to the first that fails.  0 or its negative errno. */
int doc_run(struct doc *d, doc_check_fn *const *checks, size_t n);

int check_pam_services(struct doc *d);                 /* pam.c */
int check_sshd_config(struct doc *d);                  /* sshd.c */
int check_systemd_defaults(struct doc *d);             /* systemd.c */
int check_unit(struct doc *d);
int check_container(struct doc *d);                    /* containers.c */
int check_docker(struct doc *d);
int check_podman(struct doc *d);
int check_kubernetes(struct doc *d);                   /* kube.c */
int check_slurm(struct doc *d);                        /* slurm.c */
int check_services(struct doc *d);                     /* process.c */
int check_pid(struct doc *d);
int check_config(struct doc *d);                       /* config.c */

/* ---- systemd.c: units for the other links ---- */

/* A unit file and its drop-ins as systemd reads them. */
struct unit_info {
        char *name;            /* "foo.service" */
        char *path;            /* the unit file (absolute, without root); NULL: none found */
        bool masked;           /* a link to /dev/null */
        size_t n_dropins;
        struct limit_setting limit;
        char *user, *user_where, *pam_name;
        bool dynamic_user;
        /* what the service runs with: LimitMEMLOCK=, else DefaultLimitMEMLOCK=, else 8 MiB */
        uint64_t soft, hard;
        char *src;             /* "LimitMEMLOCK=64M", "no LimitMEMLOCK=: ..." */
        char *where;           /* where that value is set (file:line, or the unit file) */
        char *unread;          /* the first drop-in that could not be read: "FILE: why, and
                                * what is assumed"; NULL: none */
        char *stopped;         /* the walk of the drop-ins went past its bound: "FILE:LINE: why" */
        struct strv dropin_dirs; /* the drop-in directories systemd reads, in its order */
        size_t own_dirs;         /* where /etc/systemd/system/NAME.d comes in them (SIZE_MAX:
                                  * systemd reads no such directory for the unit) */
        bool own_alias;          /* NAME is not the unit file's name: an alias of it */
        struct strv dropin_alias; /* for each of them, the other name of the unit it belongs
                                   * to ("" for the unit file's name and the type's): systemd
                                   * reads the other names' in hash order, here byte order */
};
void unit_info_clear(struct unit_info *u);
/*
 * Find and read the unit NAME (".service" added when it has no type; an instance falls back
 * to its template) in the unit directories under the root; an unparsable LimitMEMLOCK= is
 * reported in group g.  0 with u->path NULL when there is no unit file (or it is masked).
 */
int unit_load(struct doc *d, const char *name, enum doctor_group g, struct unit_info *ret);

/* "rdmalimits apply --unit UNIT SIZE --reload, then systemctl restart UNIT" and tail (or NULL). */
char *unit_fix(const char *unit, uint64_t want, const char *tail);

/* A daemon whose own memlock the processes it starts inherit (containerd, dockerd, slurmd). */
struct daemon_unit {
        const char *unit;            /* "containerd.service" */
        const char *short_name;      /* "containerd": what the fix names */
        enum doctor_group group;
        const char *inherits;        /* "every container it starts inherits it" */
        const char *id_low, *id_ok;  /* the findings' ids */
        uint64_t fix_value;          /* the size the fix gives; 0: what the hardware needs */
        const char *fix_why;         /* appended to the fix, or NULL */
};
/* Its unit compared with what the host needs (host_need()).  *ret_found: a unit file exists. */
int daemon_unit_check(struct doc *d, const struct daemon_unit *c, bool *ret_found);

/* ---- process.c: /proc for the other links (proc_comm(): procfs.h) ---- */
