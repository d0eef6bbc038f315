/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * Slurm's configuration as the tool needs it for the memlock of job tasks: the one reader of
 * slurm.conf (the keys that path depends on, Include followed) and the one reader of
 * plugstack.conf (include lines followed, the line that loads spank_rdmalimit.so).  explain
 * --slurm (slurmtask.h) and doctor's Slurm link both read through here.  Every file is read
 * inside the root (lib/base/fsutil.h); every walk is bounded by visit.h.
 *
 * Read in SchedMD's sources, tags slurm-22-05-8-1 and slurm-25-11-7-1 (the same in both):
 *   - slurm.conf (src/common/parse_config.c): KEY=VALUE pairs, keys without regard to case, any
 *     blanks around '=', a value quoted "..." or up to a blank; '#' starts a comment unless
 *     escaped; a key set twice: the last value is used; "Include FILE" (any case) reads FILE,
 *     relative to the directory of the file that includes it.  No cycle check: a file that
 *     includes itself is read until the descriptors run out and slurm.conf is refused.
 *   - PropagateResourceLimitsExcept, when set, decides alone; else PropagateResourceLimits,
 *     default ALL (src/common/read_config.c).  parse_rlimits() (src/common/
 *     slurm_rlimits_info.c): "ALL" and "NONE" exactly (case matters), else a list of names
 *     separated by commas or blanks, each "MEMLOCK" or "RLIMIT_MEMLOCK" (case matters); an
 *     unknown name is "Bad PropagateResourceLimits" and slurm.conf is refused.
 *   - plugstack.conf (src/common/plugstack.c in 22.05, spank.c in 25.11): PlugStackConfig of
 *     slurm.conf, else plugstack.conf next to slurm.conf; a missing file is an empty stack.
 *     Each line: '#' starts a comment; the first word "required", "optional" or "include"
 *     (case matters, else the line is ignored), then the plugin (or the include's glob
 *     pattern, relative to the including file's directory), then its arguments split at
 *     blanks.  A plugin path that is not absolute is looked for in PluginDir (colon-separated;
 *     Slurm's build default when unset); the same plugin named twice is refused the second
 *     time; an optional plugin that does not load is skipped, a required one makes the whole
 *     stack fail (every job step fails on the node).  Includes have no cycle check either.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strv.h"
#include "visit.h"

/* where slurm.conf is looked for, in order (Debian's older packages: slurm-llnl) */
#define SLURM_CONF_DEFAULT "/etc/slurm/slurm.conf"
#define SLURM_CONF_LLNL "/etc/slurm-llnl/slurm.conf"

/* The last assignment of a key: its value and "FILE:LINE" (both NULL when not set). */
struct slurm_value {
        char *value;
        char *where;
};

struct slurm_conf {
        char *path;                  /* the slurm.conf read (absolute, inside the root); NULL: none */
        char *file;                  /* ... as shown (relative to the root) */
        int error;                   /* it exists but cannot be read: a negative errno, else 0 */
        struct slurm_value limits, except, plugstack, plugindir, usepam;
        struct visit walk;           /* its error: an Include cycle or the bound, at walk.where */
};

/*
 * Read slurm.conf: path (absolute, inside root), or NULL for the first of SLURM_CONF_DEFAULT
 * and SLURM_CONF_LLNL that exists.  0 (ret->path NULL when there is none; ret->error when it
 * cannot be read; ret->walk.error for a cycle or the bound), or -ENOMEM.
 */
int slurm_conf_read(const char *root, const char *path, struct slurm_conf *ret);
void slurm_conf_clear(struct slurm_conf *c);

/* UsePAM=1: slurmstepd opens a PAM session of the service "slurm" before the tasks (Slurm's
 * boolean: yes, up, true, 1 in any case; no, down, false, 0); *ret_where its FILE:LINE. */
bool slurm_conf_usepam(const struct slurm_conf *c, const char **ret_where);

enum slurm_propagate {
        SLURM_PROP_YES,              /* the submit shell's soft memlock goes into the tasks */
        SLURM_PROP_NO,               /* tasks keep slurmd's (slurmstepd's) */
        SLURM_PROP_BAD,              /* a name Slurm does not know: it refuses slurm.conf */
};

/* Does Slurm copy the submit shell's soft memlock into tasks?  *ret_what: the setting that says
 * so ("PropagateResourceLimitsExcept=MEMLOCK", "PropagateResourceLimits is not set (its default
 * is ALL)"), heap; *ret_where: where (the setting's FILE:LINE, or the file).  -ENOMEM. */
int slurm_conf_propagation(const struct slurm_conf *c, enum slurm_propagate *ret, char **ret_what,
                           const char **ret_where);

/* A plugstack.conf line that names spank_rdmalimit.so. */
struct spank_line {
        char *where;                 /* FILE:LINE */
        bool required;
        char *plugin;                /* as written */
        char *so;                    /* the file Slurm loads (absolute, inside the root), NULL: not found */
        char *args;                  /* the arguments, one blank between them */
        /* the plugin's arguments (spank/spank_rdmalimit.c parse_args(): the last one counts) */
        char *conf;                  /* conf=PATH, NULL: the default */
        bool cache_given;            /* cache= given: cache (NULL for "cache=": always probe) */
        char *cache;
        bool strict, quiet, debug;
};

struct plugstack {
        char *path;                  /* plugstack.conf (absolute, inside the root) */
        char *file;                  /* ... as shown */
        char *set_where;             /* PlugStackConfig's FILE:LINE, NULL: the default */
        bool exists;
        int error;                   /* it cannot be read (not missing): a negative errno */
        char *plugindir;             /* the PluginDir searched (PluginDir=, else the build's default) */
        /* the lines naming spank_rdmalimit.so, in the order Slurm reads them */
        struct spank_line *lines;
        size_t n_lines;
        /* the line Slurm loads the plugin from: the first whose file exists (a second is
         * refused); -1: none loads */
        long loads;
        /* a required line whose file does not exist: the stack fails, no job step runs; -1 */
        long fails;
        /* a required line of another plugin whose file does not exist (its FILE:LINE and the
         * plugin as named): Slurm aborts loading the stack there, every job step fails; NULL */
        char *other_fails_where, *other_fails;
        struct visit walk;           /* its error: an include cycle or the bound */
};

/* Read the plugin stack slurm.conf c names (c may have no file: the default path).  0 or -ENOMEM;
 * what cannot be read is in *ret. */
int plugstack_read(const char *root, const struct slurm_conf *c, struct plugstack *ret);
void plugstack_clear(struct plugstack *p);
