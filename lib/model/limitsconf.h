/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The pam_limits grammar: read limits.conf and limits.d exactly as pam_limits does (both
 * line readers), resolve the memlock limit a session of a user gets, and the facts that
 * `check` reports.  One resolver for the tool and the module: what `explain` predicts is
 * what a login gets.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "diag.h"
#include "ident.h"

#define LC_LIMITS_CONF "/etc/security/limits.conf"
#define LC_LIMITS_DIR  "/etc/security/limits.d"
#define LC_PROC1_LIMITS "/proc/1/limits"
#define LC_LINE_LENGTH 1024   /* the Debian 1.5.2 reader's fgets() buffer */

enum lc_flavour {
        LC_FLAVOUR_DEBIAN,    /* Linux-PAM 1.5.2 with Debian's patches */
        LC_FLAVOUR_UPSTREAM,  /* Linux-PAM >= 1.6 */
};

/* pam_limits' ranks, strongest first */
enum lc_rank {
        LC_RANK_USER,
        LC_RANK_GROUP,
        LC_RANK_ALLGROUP,
        LC_RANK_ALL,
        LC_RANK_DEFAULT,
        LC_RANK_KERNEL,
        LC_RANK_NONE,
};

enum lc_range {
        LC_RANGE_ERR = -1,
        LC_RANGE_NONE = 0,
        LC_RANGE_ONE,   /* :id */
        LC_RANGE_MIN,   /* min: */
        LC_RANGE_MM,    /* min:max */
};

/* The items pam_limits knows; LC_ITEM_UNKNOWN for anything else. */
enum lc_item {
        LC_ITEM_UNKNOWN = -1,
        LC_ITEM_MEMLOCK = 0,
        LC_ITEM_RLIMIT,      /* another setrlimit item (cpu, nofile, ...) */
        LC_ITEM_NICE,        /* nice: an rlimit whose value is a nice level */
        LC_ITEM_LOGIN,       /* maxlogins, maxsyslogins */
        LC_ITEM_PRIORITY,
        LC_ITEM_NONEWPRIVS,
        LC_ITEM_CHROOT,      /* Debian only */
};

#define LC_SOFT 1u
#define LC_HARD 2u

struct lc_line {
        unsigned file;       /* index into lc_tree.files */
        unsigned lineno;     /* physical line number (1-based) where this line starts */
        unsigned chunk;      /* > 0: a continuation piece of a line longer than 1023 bytes */
        char *text;          /* the line after stripping (what the parser splits) */
        int nfields;         /* fields found (Debian: up to 4 of sscanf; upstream: split()) */
        char *domain, *type, *item, *value;   /* after pam_limits' lowercasing */
        bool extra_words;    /* Debian: words after the 4th, ignored */

        /* analysis */
        enum lc_range range;
        uint32_t rmin, rmax;
        enum lc_item item_kind;
        unsigned type_mask;  /* LC_SOFT|LC_HARD, 0 when the type is unknown */
        bool value_ok;       /* the value pam_limits reads (possibly misread) */
        bool value_misread;  /* read, but not all of it (e.g. "64M" read as 64) */
        bool value_infinity;
        uint64_t value_raw;  /* as strtoull() gives it */
        uint64_t bytes;      /* memlock: value in bytes (x1024, saturating) */
        int ivalue;          /* maxlogins, maxsyslogins, priority, nice: strtol() clamped to int */
};

struct lc_file {
        char *path;          /* as opened (root prefix included) */
        char *display;       /* relative to the root when one is given, else absolute */
        int open_error;      /* 0 or negative errno of opening/reading */
        bool is_dir;
        bool stat_ok;
        struct stat st;
        bool no_final_newline;
        bool has_long_lines; /* a line of more than 1023 bytes */
        bool has_nul;
        size_t first, n;     /* lines [first, first+n) of lc_tree.lines */
        unsigned n_physical;
};

struct lc_skipped {
        char *display;       /* a file in limits.d that pam_limits never reads */
        const char *reason;
};

struct lc_tree {
        enum lc_flavour flavour;
        char *root;          /* NULL for / */
        bool conf_override;  /* conf= given: limits.d not read */
        struct lc_file *files;
        size_t n_files;
        struct lc_line *lines;
        size_t n_lines;
        struct lc_skipped *skipped;
        size_t n_skipped;
        int dir_error;       /* reading limits.d failed (pam_limits reads no file of it) */
        char *dir_display;
};

/* The flavour of the installed system: Debian family -> debian, else upstream. */
enum lc_flavour lc_flavour_default(const char *root);
int lc_flavour_from_string(const char *s, enum lc_flavour *ret);
const char *lc_flavour_to_string(enum lc_flavour f);
const char *lc_rank_name(enum lc_rank r);

/*
 * Load limits.conf (or conf_file when not NULL) and limits.d under root (NULL: /).
 * Failure to read a single file is recorded in it (open_error); the return value is
 * negative only for -ENOMEM and bad arguments.
 */
int lc_tree_load(const char *root, enum lc_flavour flavour, const char *conf_file,
                 struct lc_tree **ret);
/* Parse one file given as text (tests, fuzzing); no limits.d. */
int lc_tree_load_text(const char *display, const char *text, size_t len, enum lc_flavour flavour,
                      struct lc_tree **ret);
void lc_tree_free(struct lc_tree *t);

/* "display:lineno" for messages; buf of at least 4096 bytes. */
const char *lc_line_where(const struct lc_tree *t, const struct lc_line *l, char *buf, size_t size);

/* The limits a session starts from before any line applies. */
struct lc_baseline {
        bool known;          /* false: inherited from the service (upstream) */
        uint64_t soft, hard;
        enum lc_rank rank;   /* LC_RANK_KERNEL (/proc/1/limits), LC_RANK_DEFAULT or NONE */
        char source[128];    /* "/proc/1/limits", "pam_limits default", "inherited" */
};
/* proc1_limits: the file to read (NULL: /proc/1/limits, or ROOT/proc/1/limits if present). */
int lc_baseline_load(const struct lc_tree *t, const char *proc1_limits, struct lc_baseline *ret);

enum lc_outcome {
        LC_OUT_APPLIED,       /* took the slot (a later one may still take it) */
        LC_OUT_WEAKER,        /* a stronger rank already holds the slot */
        LC_OUT_QUIRK,         /* type '-': the soft slot refused it, so hard was not tried */
        LC_OUT_PERCENT,       /* % domain: ignored for every item but maxlogins */
        LC_OUT_BAD_TYPE,
        LC_OUT_BAD_VALUE,
};

struct lc_event {
        const struct lc_line *line;
        unsigned slot;        /* LC_SOFT or LC_HARD (LC_SOFT|LC_HARD for whole-line outcomes) */
        enum lc_rank rank;
        enum lc_outcome outcome;
        enum lc_rank held_rank;          /* LC_OUT_WEAKER/QUIRK: what held the slot then */
        const struct lc_line *held;      /* NULL: the baseline */
};

struct lc_slot {
        bool known;           /* false: inherited from the service */
        uint64_t value;
        enum lc_rank rank;
        const struct lc_line *src;   /* NULL: the baseline */
};

enum lc_result_kind {
        LC_RES_LIMITS,        /* the session gets soft/hard */
        LC_RES_NO_LIMITS,     /* a matching 2-field '-' line: memlock left to the service */
        LC_RES_SERVICE_ERR,   /* a file could not be read: pam_limits fails the session */
        LC_RES_USER_UNKNOWN,  /* pam_limits fails the session: no such user */
        LC_RES_LOGINS_DENIED, /* maxlogins/maxsyslogins 0: pam_limits refuses every session */
};

struct lc_result {
        enum lc_result_kind kind;
        const struct lc_line *stop;   /* LC_RES_NO_LIMITS */
        const struct lc_file *bad_file; /* LC_RES_SERVICE_ERR */
        bool root_user_debian;        /* uid 0 on Debian: *, @, % lines do not apply */
        struct lc_slot soft, hard;    /* soft before the clamp */
        bool soft_clamped;            /* soft was above hard and is set to hard */
        struct lc_event *events;
        size_t n_events;
        int login_limit;              /* maxlogins/maxsyslogins in force (-2: none) */
        const struct lc_line *login_line;
};

int lc_resolve(const struct lc_tree *t, struct ident *id, const char *user,
               const struct lc_baseline *base, struct lc_result *ret);
void lc_result_clear(struct lc_result *r);

/* Does this line's domain match the user (and with which rank)?  Returns -1 when not. */
int lc_line_match(const struct lc_tree *t, struct ident *id, const struct id_user *u,
                  const struct lc_line *l);

/* How another entry relates to `ours` for the slots they share. */
enum lc_override {
        LC_OVR_NEVER,
        LC_OVR_SOME,      /* for some of the users ours applies to */
        LC_OVR_ALWAYS,    /* for every user ours applies to */
};
enum lc_override lc_line_overrides(const struct lc_tree *t, struct ident *id,
                                   const struct lc_line *ours, const struct lc_line *other);

/* Rank a line's domain gets when it matches (for a non-root user). */
enum lc_rank lc_line_rank(const struct lc_line *l);

/* All findings of `check` for the tree. */
int lc_check(const struct lc_tree *t, struct ident *id, struct diag_list *diags);

/* ---- the session outcome ---- */

/* The process that opens the session: pam_limits' setrlimit() calls run in it. */
struct lc_service {
        bool known;                 /* false: the values are assumptions */
        char source[128];           /* "sshd (pid 123)", "assumed: ..." */
        bool cap_sys_resource;
        struct { bool known; uint64_t soft, hard; } rl[RLIM_NLIMITS];  /* its own limits */
        uint64_t nr_open;           /* fs.nr_open, 0 unknown */
};

enum lc_session_kind {
        LC_SESSION_LIMITS,          /* pam_limits succeeds and sets the limits */
        LC_SESSION_NO_LIMITS,       /* a matching 2-field '-' line: nothing set */
        LC_SESSION_FAILS,           /* pam_limits returns an error (PAM_SERVICE_ERR, PAM_USER_UNKNOWN, ...) */
        LC_SESSION_REFUSED,         /* PAM_PERM_DENIED: a setrlimit failed (upstream), or maxlogins */
};

struct lc_session {
        enum lc_session_kind kind;
        char cause[256];            /* why it fails or is refused, naming the file:line */
        bool memlock_known;         /* false: memlock left to the service and unknown */
        uint64_t memlock_soft, memlock_hard;   /* what the session ends with: after the soft>hard
                                                  clamp, a soft-only entry above the inherited hard,
                                                  a hard-only entry below the inherited soft, and a
                                                  setrlimit that fails silently (Debian) */
        uint64_t requested_soft, requested_hard; bool requested_soft_known, requested_hard_known;
};

/* How a session that `r` describes ends when `svc` opens it.  0, or -EINVAL. */
int lc_session_outcome(const struct lc_tree *t, const struct lc_result *r, const struct lc_service *svc,
                       struct lc_session *ret);
