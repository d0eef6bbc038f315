/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The pam_limits grammar: read limits.conf and limits.d exactly as pam_limits does (both
 * line readers), resolve the memlock limit a session of a user gets, and the facts that
 * `check` reports.  The tool's model of pam_limits; the module does not use it.
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

/*
 * Which pam_limits is modelled: a Linux-PAM release (major.minor.patch), Debian's build of it
 * or upstream's, encoded in one value, plus where that came from (LC_FROM_*, for explain).
 * Every release from 1.3.1 on maps to the behaviour flags of its model (struct lc_behaviour):
 *   upstream <= 1.5.2 (RHEL 8's 1.3.1, 1.4.0, RHEL 9's 1.5.1, 1.5.2), 1.5.3, 1.6.0, >= 1.6.1,
 *   Debian < 1.7 (Debian 11, 12, Ubuntu 22.04, 24.04), Debian >= 1.7 (Debian 13).
 * LC_FLAVOUR_DEBIAN and LC_FLAVOUR_UPSTREAM are the two models the project started with
 * (Debian's 1.5.2, upstream >= 1.6.1); lc_tree.flavour holds one of them for the trees of
 * those models, so that `t->flavour == LC_FLAVOUR_DEBIAN` keeps its meaning.
 */
#define LC_FLAVOUR_MAKE(major, minor, patch, debian) \
        ((int)(((debian) ? 1 << 24 : 0) | (major) << 16 | (minor) << 8 | (patch)))
enum lc_flavour {
        LC_FLAVOUR_AUTO = 0,                                  /* detect the installed one */
        LC_FLAVOUR_DEBIAN = LC_FLAVOUR_MAKE(1, 5, 2, 1),      /* Debian 12 */
        LC_FLAVOUR_UPSTREAM = LC_FLAVOUR_MAKE(1, 7, 2, 0),    /* the newest upstream */
        LC_FLAVOUR_DEBIAN_NEWEST = LC_FLAVOUR_MAKE(1, 7, 0, 1),  /* Debian 13 */
        LC_FLAVOUR_OLDEST = LC_FLAVOUR_MAKE(1, 3, 1, 0),
};
/* where a flavour value came from: bits 28..30 */
enum lc_flavour_from {
        LC_FROM_OPTION,       /* --flavour */
        LC_FROM_DPKG,         /* var/lib/dpkg/status: libpam-modules */
        LC_FROM_RPM,          /* the rpm database (pam) */
        LC_FROM_MODULE,       /* the strings of the installed pam_limits.so */
        LC_FROM_OS_RELEASE,   /* os-release: the release table of the distributions (limits-read.c) */
        LC_FROM_DEFAULT,      /* assumed: an unknown distribution (its family's newest model) */
        LC_FROM_HOST,         /* assumed: a --root tree without OS files takes this system's */
};
#define LC_FLAVOUR_FROM_SHIFT 28
#define LC_FLAVOUR_RELEASE_MASK ((1 << 25) - 1)
/* bit 25: the distribution builds Linux-PAM with its vendor directory in /usr/share (Fedora,
 * RHEL 9 and 10: --enable-vendordir=/usr/share), so a pam_limits that reads one (>= 1.5.3)
 * reads /usr/share/security */
#define LC_FLAVOUR_VENDOR_SHARE (1 << 25)

/* What a release does differently, read from each release's pam_limits.c. */
struct lc_behaviour {
        bool fgets_reader;    /* < 1.6: 1024-byte fgets() + sscanf("%s%s%s%s"); else getline + split */
        bool trim_value;      /* >= 1.6.1: the 4th field is trimmed of blanks (1.6.0 keeps them) */
        bool enoent_ok;       /* >= 1.5.3: a file that fails with ENOENT is skipped */
        bool pid1_always;     /* Debian < 1.7 (patch 027): /proc/1/limits is always the baseline */
        bool root_rule;       /* Debian: uid 0 ignores '*', '@...' and '%...' lines */
        bool eperm_silent;    /* Debian (patches 032, 040): a failing setrlimit keeps the old value */
        bool nofile_nr_open;  /* >= 1.5.2: nofile unlimited is set to fs.nr_open */
        bool nonewprivs;      /* >= 1.5.0: the nonewprivs item */
        bool rttime;          /* >= 1.7.1: the rttime item */
        bool chroot;          /* Debian: the chroot item */
        bool vendor_capable;  /* >= 1.5.3: the build may have a vendor directory */
        const char *vendor_default;   /* the build's: upstream >= 1.7.2's default, a distribution's
                                       * (LC_FLAVOUR_VENDOR_SHARE); NULL: none */
};

/* The arguments of the pam_limits line of the service's stack, and the build's vendor
 * directory. */
struct lc_args {
        bool set_all;         /* every limit starts from PID 1's (/proc/1/limits) */
        bool conf_set;
        char conf[1024];      /* conf=FILE: only that file, no limits.d */
        enum { LC_VENDOR_BUILD, LC_VENDOR_NONE, LC_VENDOR_DIR } vendor;
        char vendordir[1024]; /* LC_VENDOR_DIR: DIR (its limits.conf and limits.d/) */
};
/* Parse "set_all conf=/x debug" (NULL or "": none), split as libpam splits them
 * (pam_args_words()).  0, -EINVAL for a conf= too long, -ENOMEM. */
int lc_args_parse(const char *module_args, struct lc_args *ret);

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
        const char *domain, *type, *item, *value; /* in text, lowercased as by pam_limits; "" when absent */
        uint64_t domain_hash; /* str_hash(domain): a user's name is compared with it first */
        enum lc_rank rank;   /* lc_domain_rank() of domain and range */
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
        int resource;        /* RLIMIT_* of a setrlimit item, -1 for the others */
        uint64_t rvalue;     /* the value pam_limits sets for it (memlock: = bytes) */
};

struct lc_file {
        char *path;          /* as opened (root prefix included) */
        char *display;       /* relative to the root when one is given, else absolute */
        int open_error;      /* 0 or negative errno of opening/reading */
        bool is_dir;
        bool stat_ok;
        struct stat st;
        bool vendor;         /* from the vendor directory */
        bool masked;         /* a symbolic link to /dev/null: read as empty */
        bool would_block;    /* a FIFO or device that blocks: pam_limits hangs the login */
        bool endless;        /* a device that never ends (/dev/zero): pam_limits hangs */
        bool truncated;      /* a regular file larger than the tool reads (64 MiB): its lines up
                              * to there only are modelled */
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
        enum lc_flavour flavour;   /* the model of the release: lc_flavour_model() */
        enum lc_flavour release;   /* the release as given or detected, with its LC_FROM_ bits */
        struct lc_behaviour beh;
        struct lc_args args;
        char *vendor_dir;          /* the vendor directory read, NULL: none */
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

/* The installed release under root (NULL: /): dpkg status, the rpm database, the module's
 * strings, then the distribution family; the value carries where it came from. */
enum lc_flavour lc_flavour_default(const char *root);
/* "debian-1.5.2", "upstream-1.4.0", "debian", "upstream" (the newest); -EINVAL otherwise. */
int lc_flavour_from_string(const char *s, enum lc_flavour *ret);
/* "debian-1.5.2" (written to buf), or "auto"; for a tree, t->release is the release it
 * models and t->flavour that release's model (lc_flavour_model()) */
#define LC_FLAVOUR_NAME_MAX 32
const char *lc_flavour_to_string(enum lc_flavour f, char buf[static LC_FLAVOUR_NAME_MAX]);
void lc_flavour_behaviour(enum lc_flavour f, struct lc_behaviour *ret);
/* The release that stands for f's model: LC_FLAVOUR_DEBIAN for Debian < 1.7,
 * LC_FLAVOUR_DEBIAN_NEWEST for Debian >= 1.7, LC_FLAVOUR_UPSTREAM for upstream >= 1.6.1,
 * upstream 1.6.0, 1.5.3, or 1.5.2 for 1.3.1 to 1.5.2; LC_FLAVOUR_AUTO stays so. */
enum lc_flavour lc_flavour_model(enum lc_flavour f);
/* For explain: why the tree models its release ("dpkg", "rpm", "pam_limits.so", "os-release",
 * "assumed" or "--flavour"). */
const char *lc_tree_flavour_from(const struct lc_tree *t);
/* For explain's warning: why the flavour is an assumption, or NULL when it was found. */
const char *lc_tree_flavour_assumption(const struct lc_tree *t);
const char *lc_rank_name(enum lc_rank r);

/*
 * Load limits.conf (or conf_file when not NULL) and limits.d under root (NULL: /).
 * Failure to read a single file is recorded in it (open_error); the return value is
 * negative only for -ENOMEM and bad arguments.
 */
int lc_tree_load(const char *root, enum lc_flavour flavour, const char *conf_file,
                 struct lc_tree **ret);
/* The same with the stack's arguments (conf=, set_all) and the vendor directory; args NULL:
 * none.  The tree keeps a copy of args, which lc_baseline_load() and lc_resolve() use. */
int lc_tree_load_args(const char *root, enum lc_flavour flavour, const struct lc_args *args,
                      struct lc_tree **ret);
/* The tree as it would be after an edit of one file of limits.d: `name` with `text` (NULL:
 * the file removed), whether it exists now or not.  For apply --check and its effectiveness
 * check, which must judge the entry before anything is written. */
struct lc_edit {
        const char *name;
        const char *text;
        size_t len;
};
int lc_tree_load_edited(const char *root, enum lc_flavour flavour, const struct lc_args *args,
                        const struct lc_edit *edit, struct lc_tree **ret);
/* Parse one file given as text (tests, fuzzing); no limits.d. */
int lc_tree_load_text(const char *display, const char *text, size_t len, enum lc_flavour flavour,
                      struct lc_tree **ret);
void lc_tree_free(struct lc_tree *t);
static inline void lc_tree_freep(struct lc_tree **t) {
        lc_tree_free(*t);
}

/* "display:lineno" for messages; buf of at least 4096 bytes. */
const char *lc_line_where(const struct lc_tree *t, const struct lc_line *l, char *buf, size_t size);

/* The limits a session starts from before any line applies. */
/* One item's limits as a row of /proc/PID/limits gives them */
struct lc_rl {
        bool known;
        uint64_t soft, hard;
};

struct lc_baseline {
        bool known;          /* false: inherited from the service (upstream) */
        uint64_t soft, hard;
        enum lc_rank rank;   /* LC_RANK_KERNEL (/proc/1/limits), LC_RANK_DEFAULT or NONE */
        char source[128];    /* "/proc/1/limits", "pam_limits default", "inherited" */
        struct lc_rl rl[RLIM_NLIMITS];  /* every item (memlock too): PID 1's when it is the baseline */
};
/* What a --root tree without proc/1/limits is assumed to have for PID 1's memlock: 8 MiB soft
 * and hard, what systemd (>= 251) gives PID 1 and Linux >= 5.16 gives every process; the host's
 * PID 1 never answers for a tree. */
#define LC_ASSUMED_PID1_MEMLOCK (UINT64_C(8) << 20)
#define LC_ASSUMED_PID1_SOURCE "assumed 8 MiB: systemd's PID 1 (no proc/1/limits in the tree)"
void lc_baseline_assume(struct lc_baseline *b);

/* The rows of /proc/PID/limits ("Max locked memory") and the resource of each. */
struct lc_proc_row {
        const char *row;
        int resource;
};
extern const struct lc_proc_row lc_proc_rows[16];

/* proc1_limits: the file to read (NULL: /proc/1/limits, or ROOT/proc/1/limits if present). */
int lc_baseline_load(const struct lc_tree *t, const char *proc1_limits, struct lc_baseline *ret);
/*
 * PID 1's limits, the one reader of them (the baseline above, the service a command assumes):
 * path when not NULL (--proc1-limits), else under root the tree's proc/1/limits (never the
 * host's: -ENOENT or another error when the tree has none), else /proc/1/limits.  Opened
 * without blocking (a FIFO in a tree ends the read, it does not hang it), at most 64 KiB
 * read; each row found is set in rl, the others are left alone.  0 or -errno of the open.
 */
int lc_proc1_limits(const char *root, const char *path, struct lc_rl rl[static RLIM_NLIMITS]);
/* The rows of a /proc/PID/limits text (lc_proc_rows) into rl; rows it lacks are left alone. */
void lc_parse_proc_limits(const char *text, struct lc_rl rl[static RLIM_NLIMITS]);
/* This host's fs.nr_open (what releases >= 1.5.2 set nofile unlimited to); 0 when unknown. */
uint64_t lc_nr_open(void);

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
        const struct lc_line *chroot; /* Debian: the last matching chroot line (any rank, any type) */
        const struct lc_file *bad_file; /* LC_RES_SERVICE_ERR */
        bool root_user_debian;        /* uid 0 on Debian: *, @, % lines do not apply */
        struct lc_slot soft, hard;    /* soft before the clamp */
        bool soft_clamped;            /* soft was above hard and is set to hard */
        struct lc_event *events;
        size_t n_events;
        int login_limit;              /* maxlogins/maxsyslogins in force (-2: none) */
        const struct lc_line *login_line;
        uint32_t uid;
        /* every setrlimit item as pam_limits resolves it (rl_soft[RLIMIT_MEMLOCK] is `soft`);
         * values as pam_limits computes them (x1024, x60, 20 - nice), nofile unlimited as
         * RLIM_INFINITY (lc_session_outcome() maps it to fs.nr_open where the release does) */
        struct lc_slot rl_soft[RLIM_NLIMITS], rl_hard[RLIM_NLIMITS];
};

int lc_resolve(const struct lc_tree *t, struct ident *id, const char *user,
               const struct lc_baseline *base, struct lc_result *ret);
/* The same for many users of one tree (check), with t prepared by lc_prep_new() for t and id
 * (which it must not outlive): the group each line names is looked up once, not once per user,
 * and a user's walk skips the lines that name other users.  The same result as lc_resolve().
 * -EINVAL when prep was made for another tree or ident. */
struct lc_prep;
int lc_prep_new(const struct lc_tree *t, struct ident *id, struct lc_prep **ret);
void lc_prep_free(struct lc_prep *g);
static inline void lc_prep_freep(struct lc_prep **g) {
        lc_prep_free(*g);
}
int lc_resolve_prepared(const struct lc_tree *t, struct ident *id, struct lc_prep *prep, const char *user,
                        const struct lc_baseline *base, struct lc_result *ret);
/* pam_limits fails every session with t whoever logs in (LC_RES_SERVICE_ERR before any line):
 * its first file (limits.conf, or the conf= file) fails the session (lc_resolve() reads the
 * files in order and stops at the first that fails). */
bool lc_tree_fails_every_session(const struct lc_tree *t);
/* "pam_limits reads FILE (conf=), which it cannot read (WHY)": the finding of a tree read with
 * conf= that fails every session (check's and doctor's), into buf. */
const char *lc_conf_unreadable_text(const struct lc_tree *t, char *buf, size_t size);
void lc_result_clear(struct lc_result *r);

/* Does this line's domain match the user (and with which rank)?  Returns -1 when not. */
int lc_line_match(const struct lc_tree *t, struct ident *id, const struct id_user *u,
                  const struct lc_line *l);

/* Rank a line's domain gets when it matches (for a non-root user): lc_domain_rank(), kept in
 * the line when it is read. */
enum lc_rank lc_line_rank(const struct lc_line *l);
/* Is l a no-limits line ('DOMAIN -'), and one pam_limits honours for some user (*ret_honoured)?
 * It honours them for users, @groups and uid ranges, never for '*' or a %group. */
bool lc_line_no_limits(const struct lc_line *l, bool *ret_honoured);
enum lc_rank lc_domain_rank(const char *domain, enum lc_range range);

/* All findings of `check` for the tree. */
int lc_check(const struct lc_tree *t, struct ident *id, struct diag_list *diags);
/* The one hint for a domain that names nobody ("did you mean ..."): a user domain that names a
 * group gets "@NAME", else the closest existing user or group (case, or 2 edits); ret "" when
 * there is none.  The users and groups id knows (ident_each_name(): NSS, or a --root tree's
 * files as its look-ups read them).  0, -ENOMEM, or the error of reading the tree's files. */
int lc_domain_hint(struct ident *id, const char *domain, char *ret, size_t size);

/* ---- the session outcome ---- */

/* The process that opens the session: pam_limits' setrlimit() calls run in it. */
struct lc_service {
        bool known;                 /* false: the values are assumptions */
        char source[256];           /* "sshd (pid 123)", "assumed: ..." */
        char unit[128];             /* its systemd unit ("ssh.service"), "" when it has none */
        bool cap_sys_resource;
        struct lc_rl rl[RLIM_NLIMITS];  /* its own limits */
        uint64_t nr_open;           /* fs.nr_open, 0 unknown */
};
/* The names pam_limits uses for the setrlimit items ("memlock", "nofile"), NULL: none. */
const char *lc_rlimit_name(int resource);

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
