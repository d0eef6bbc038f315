/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * Editing a PAM stack file (/etc/pam.d/SERVICE) line by line, for `rdmalimits enable` and
 * `disable`: parse it strictly (a line it does not understand is an error, never skipped),
 * find where the module must go (after the last session pam_limits that runs, includes
 * followed through pamstack.h's reader), insert or remove the lines it marks as its own, and
 * render the text back unchanged elsewhere.  Which files a distribution's tool manages
 * (pam-auth-update on Debian, authselect on RHEL-like systems) is recognised here too: those
 * are never edited.
 */
#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

/* The comment that marks a line `rdmalimits enable` added ("... # rdmalimits enable"). */
#define PAMEDIT_MARK "rdmalimits enable"
/* The line enable adds. */
#define PAMEDIT_LINE "session    optional     pam_rdmalimit.so # " PAMEDIT_MARK
/* The feature of the authselect profile custom/rdmalimit that turns the module on. */
#define PAMEDIT_FEATURE "with-rdmalimit"
/* The line enable puts in that profile's templates: rendered only with the feature selected. */
#define PAMEDIT_PROFILE_LINE \
        "session    optional     pam_rdmalimit.so {include if \"" PAMEDIT_FEATURE "\"} # " PAMEDIT_MARK
/* Where enable keeps the file as it was before its last change: FILE PAMEDIT_BACKUP_SUFFIX. */
#define PAMEDIT_BACKUP_SUFFIX ".rdmalimits-bak"

enum pam_line_kind {
        PAM_LINE_BLANK,      /* empty, or only a comment */
        PAM_LINE_INCLUDE,    /* "@include NAME" */
        PAM_LINE_RULE,       /* "[-]TYPE CONTROL MODULE [ARGS]" */
};

struct pam_line {
        char *text;          /* the line as read, without its newline */
        unsigned lineno;     /* 1-based line in the file as read; 0 for an inserted line */
        enum pam_line_kind kind;
        bool dash;           /* "-session" */
        char *type;          /* RULE: "session", ... as written (without the dash) */
        char *control;       /* RULE: "optional", "[success=1 default=ignore]", "include", ... */
        char *module;        /* RULE: the module or, for include/substack, the file included */
        char *name;          /* RULE: the module's basename without ".so" ("pam_limits") */
        char *include;       /* INCLUDE, or RULE with control include/substack: the file */
        bool marked;         /* its comment is exactly PAMEDIT_MARK */
        bool jump_kept;      /* pam_file_keep_jumps() rewrote a count of its control */
};

struct pam_file {
        char *display;       /* path for messages */
        struct pam_line *v;
        size_t n;
        bool final_newline;  /* the text ended with a newline (or was empty) */
};

/*
 * Parse text (len bytes, NUL-terminated) strictly: every line must be blank, a comment,
 * "@include NAME", or "[-]TYPE CONTROL MODULE [ARGS]" with TYPE auth, account, password or
 * session, CONTROL a known word or a closed "[...]".  A continued line (ending in '\'), a NUL
 * byte, an absolute or relative path as an included name, or anything else is an error in d
 * (display:line) and -EBADMSG; ret is then empty.  -ENOMEM.
 */
int pam_file_parse(const char *display, const char *text, size_t len, struct pam_file *ret, struct diag_list *d);
/* The same for a template of an authselect profile: a line whose first word starts with '{'
 * (authselect's "{imply ...}") is kept as it is, as a blank line would be. */
int pam_file_parse_profile(const char *display, const char *text, size_t len, struct pam_file *ret,
                           struct diag_list *d);
void pam_file_clear(struct pam_file *f);
/* The text of the file as its lines now stand (malloc()ed), or NULL (ENOMEM). */
char *pam_file_render(const struct pam_file *f);
/* Insert PAMEDIT_LINE after line index idx (SIZE_MAX: at the top).  0 or -ENOMEM. */
int pam_file_insert_mark(struct pam_file *f, size_t idx);
/* Remove the marked pam_rdmalimit lines; returns how many. */
size_t pam_file_remove_marked(struct pam_file *f);

enum pam_manager {
        PAM_MANAGER_NONE,
        PAM_MANAGER_PAM_AUTH_UPDATE,  /* Debian: common-* written by pam-auth-update(8) */
        PAM_MANAGER_AUTHSELECT,       /* RHEL-like: a link into /etc/authselect, or its header */
};
const char *pam_manager_name(enum pam_manager m);
/*
 * Who manages ROOT/etc/pam.d/NAME: a symbolic link whose target names an authselect
 * directory is authselect's; else by its text (authselect's header only while
 * /etc/authselect/authselect.conf exists: after "authselect opt-out" the files are the
 * admin's).  A file that does not exist is -ENOENT.
 */
int pam_service_manager(const char *root, const char *name, enum pam_manager *ret);

enum pam_verdict {
        PAM_V_DONE,         /* pam_rdmalimit already runs after the last session pam_limits */
        PAM_V_INSERT,       /* add the line after line index `at` of the service file */
        PAM_V_MANAGED,      /* the last pam_limits is in a managed file (managed_file) */
        PAM_V_NO_LIMITS,    /* no session pam_limits in the stack */
        PAM_V_CONFLICT,     /* a pam_rdmalimit line not ours runs before the last pam_limits
                             * in a file enable would not edit through its manager */
        PAM_V_BROKEN,       /* an included file cannot be read (where) */
};

#define PAMEDIT_WHERE_MAX 512
struct pam_plan {
        enum pam_verdict verdict;
        size_t at;                          /* PAM_V_INSERT */
        bool after_managed;                 /* a module line of a managed file runs before the
                                             * last pam_limits (Debian's sshd and cron) */
        bool managed_later;                 /* ... one runs after it (Debian's login and su) */
        bool ours_done;                     /* PAM_V_DONE by a marked line of the service file */
        char limits_where[PAMEDIT_WHERE_MAX]; /* file:line of the last pam_limits ("" when none) */
        char where[PAMEDIT_WHERE_MAX];      /* DONE/CONFLICT: the pam_rdmalimit line;
                                             * BROKEN: the include; MANAGED: the managed file's
                                             * pam_limits line */
        char managed_file[256];             /* MANAGED: the file's name in pam.d */
        enum pam_manager manager;           /* MANAGED */
        int error;                          /* BROKEN: negative errno */
        bool bounded;                       /* BROKEN: error is visit.h's, an include cycle or
                                             * past the bound of the plan's walk (at where) */
};

/*
 * Where the module must go in service f (ROOT/etc/pam.d/NAME, parsed, as it stands in memory:
 * edits made to f count).  Included files are read from the tree with pam_stack_load_walk(),
 * all of them as one walk of visit.h.  The pam_limits that counts is the last, in stack order,
 * that runs last for some user a policy has a rule for (session_walks_every_user() with lines,
 * what each line reads; NULL: every line succeeds).  0 or -ENOMEM.
 */
struct session_lines;
int pam_plan_service(const char *root, const struct pam_file *f, const struct session_lines *lines,
                     struct pam_plan *ret);

/* A template of an authselect profile (system-auth, password-auth), parsed with
 * pam_file_parse_profile(): PAMEDIT_PROFILE_LINE right after the last session pam_limits line.
 * A marked line elsewhere, or one without the feature's condition (an older rdmalimits wrote
 * it plain), is taken out first.  Returns 0 when f changed, 1 when it already says that (or a
 * pam_rdmalimit session line that is not ours follows pam_limits: left alone), -ENOENT when
 * there is no session pam_limits line, -ENOMEM. */
int pam_file_mark_after_limits(struct pam_file *f);

/*
 * After lines were added to or removed from service file f (ROOT/etc/pam.d/SERVICE, whose
 * text was old_text), make every session jump ("[success=N ...]") land on the module it
 * landed on before, as libpam counts (pam_stack_jump()): counts of the service file's own
 * lines are rewritten in f.  Returns how many lines changed, -EXDEV when a jump that would
 * land elsewhere is in a file enable does not edit (an included one) or cannot be kept
 * (where: its FILE:LINE), or -ENOMEM.
 */
int pam_file_keep_jumps(const char *root, const char *service, const char *old_text, struct pam_file *f,
                        char where[PAMEDIT_WHERE_MAX]);
