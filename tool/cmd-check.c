/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "ident-files.h"
#include "limitsconf.h"
#include "pamstack.h"
#include "size.h"
#include "strmap.h"
#include "visit.h"
#include "ident.h"
#include "policy.h"
#include "tool.h"

/* Nothing but blanks and comments (#, //, and C comments on their own)? */
static bool policy_text_empty(const char *s, size_t len) {
        const char *e = s + len;
        while (s < e) {
                if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' || *s == '\v')
                        s++;
                else if (*s == '#' || (*s == '/' && s + 1 < e && s[1] == '/'))
                        while (s < e && *s != '\n')
                                s++;
                else if (*s == '/' && s + 1 < e && s[1] == '*') {
                        const char *x = memmem(s + 2, (size_t)(e - s - 2), "*/", 2);
                        if (!x)
                                return false;
                        s = x + 2;
                } else
                        return false;
        }
        return true;
}

/* A rule naming a user or group that does not exist matches nobody: a warning, with the same
 * hint check gives a limits line (lc_domain_hint()). */
static int check_rule_names(const struct ctx *c, const struct policy *p, const char *path, struct diag_list *d) {
        _cleanup_(ident_freep) struct ident *id = NULL;
        int r = ident_new(c->root, &id);

        for (size_t i = 0; r >= 0 && i < p->n_rules; i++) {
                const struct policy_rule *rule = &p->rules[i];
                const struct id_user *u;
                const struct id_group *g;
                bool group = rule->group;
                char dom[300], hint[300], fix[400];
                int k = group ? ident_group(id, rule->group, &g) : ident_user(id, rule->user, &u);
                if (k != -ENOENT)
                        continue;     /* found, or the name service failed: say nothing */
                snprintf(dom, sizeof dom, "%s%s", group ? "@" : "", group ? rule->group : rule->user);
                if ((r = lc_domain_hint(id, dom, hint, sizeof hint)) < 0)
                        break;
                /* a hint of "@x" for a user rule means: write group = "x" */
                if (*hint)
                        snprintf(fix, sizeof fix, "did you mean %s = \"%s\"?", hint[0] == '@' ? "group" : "user",
                                 hint[0] == '@' ? hint + 1 : hint);
                r = diag_addf(d, DIAG_WARNING, "policy-unknown-name", path, rule->line, *hint ? fix : "correct the name",
                              "the rule's %s '%s' does not exist%s: the rule matches nobody%s%s", group ? "group" : "user",
                              group ? rule->group : rule->user, c->root ? " in the tree" : "", *hint ? "; " : "",
                              *hint ? fix : "");
        }
        return r;
}

int check_policy_file(const struct ctx *c, struct diag_list *d, struct policy **ret, char **ret_text, size_t *ret_len) {
        /* shown as every file of a tree is: relative to --root (the file opened is inside it) */
        _cleanup_free_ char *path = strdup(c->root ? c->policy_path + strspn(c->policy_path, "/") : c->policy_path),
                            *text = NULL;
        _cleanup_close_ int fd = -1;
        _cleanup_(policy_freep) struct policy *p = NULL;
        size_t len = 0;
        int r;

        if (!path)
                return -ENOMEM;
        /* under --root the path resolves inside the tree */
        r = fs_open_config_in_root(c->root, c->policy_path, true, false, &fd, NULL);
        if (r == -ENOENT) {
                diag_addf(d, DIAG_INFO, "policy-missing", path, 0, NULL,
                          "does not exist: pam_rdmalimit leaves memlock unchanged");
                return r;
        }
        if (r == FS_ERR_MODE) {
                /* -EACCES is the mode check, or a real permission error: the mode tells */
                struct stat st;
                if (fs_stat_in_root(c->root, c->policy_path, false, &st) < 0 || !(st.st_mode & (S_IWGRP | S_IWOTH))) {
                        diag_addf(d, DIAG_ERROR, "policy-unreadable", path, 0,
                                  "run check as root, or make the file readable by root (chmod 0644)",
                                  "cannot be read (permission denied)");
                        return r;
                }
        }
        if (r < 0) {
                diag_addf(d, DIAG_ERROR, r == FS_ERR_MODE || r == FS_ERR_OWNER ? "policy-untrusted" : "policy-unreadable",
                          path, 0, r == FS_ERR_MODE || r == FS_ERR_OWNER ? "chown root:root and chmod 0644 the file" : NULL,
                          "%s: pam_rdmalimit refuses it", fs_strerror(r));
                return r;
        }
        r = policy_read_fd(fd, &text, &len);
        if (r >= 0 && policy_text_empty(text, len)) {
                diag_addf(d, DIAG_ERROR, "policy-empty", path, 0,
                          "write a policy (version = 1; and the rules, see rdmalimit.conf(5)), or remove the file",
                          "is empty: pam_rdmalimit refuses a policy without 'version = 1;' and leaves memlock to "
                          "pam_limits");
                return -ENODATA;
        }
        if (r >= 0)
                r = policy_load_string(text, len, path, &p, d);
        if (r < 0) {
                if (r == -EFBIG)
                        diag_add(d, DIAG_ERROR, path, 0, "larger than %u bytes: refused", POLICY_MAX_BYTES);
                return r;
        }
        if ((r = check_rule_names(c, p, path, d)) < 0)
                return r;
        if (ret)
                *ret = TAKE_PTR(p);
        if (ret_text) {
                *ret_text = TAKE_PTR(text);
                *ret_len = len;
        }
        return 0;
}

/* ---- the PAM session stacks, as libpam reads them (pamstack.h: the one model) ---- */

/* Add a finding once, whichever service's stack met the line (common-session is in many). */
static int pam_finding(struct strmap *seen, struct diag_list *d, enum diag_severity sev, const char *id,
                       const char *where, const char *fix, const char *msg) {
        _cleanup_free_ char *key = NULL, *path = NULL;
        unsigned line = 0;

        if (asprintf(&key, "%s\n%s", where, msg) < 0)
                return -ENOMEM;
        if (strmap_get(seen, key))
                return 0;
        if (strmap_put(seen, key, (void *)1) < 0)
                return -ENOMEM;
        /* "FILE:LINE", or a file alone */
        const char *colon = strrchr(where, ':');
        if (colon && colon[1] && parse_u32(colon + 1, &line) >= 0)
                path = strndup(where, (size_t)(colon - where));
        else {
                line = 0;
                path = strdup(where);
        }
        if (!path)
                return -ENOMEM;
        return diag_addf(d, sev, id, path, line, fix, "%s", msg);
}

/* A pam_limits line whose conf= file it cannot read (the tree the tool's lines read: the one
 * loader of it): it fails every session (the tree's own findings are those of `check FILE`).
 * 1 when reported, 0, or -ENOMEM. */
static int check_limits_conf(const struct pam_entry *e, const struct session_lines *lines, const char *where,
                             struct strmap *seen, struct diag_list *d) {
        const struct lc_tree *t = lines->tree(e, lines->data);
        char head[4200], msg[4400];

        if (!t || !t->conf_override || !lc_tree_fails_every_session(t))
                return 0;
        snprintf(msg, sizeof msg, "%s: it fails every session where it runs (PAM_SERVICE_ERR), and its control '%s' "
                 "decides what that does", lc_conf_unreadable_text(t, head, sizeof head), e->control);
        int r = pam_finding(seen, d, strcasecmp(e->control, "optional") == 0 ? DIAG_WARNING : DIAG_ERROR,
                            "pam-limits-conf", where, "correct the conf= argument, or create the file", msg);
        return r < 0 ? r : 1;
}

static int check_pam_stack(const struct ctx *c, const char *service, const struct session_lines *lines,
                           struct strmap *seen, struct diag_list *d) {
        _cleanup_(pam_stack_clear) struct pam_stack st = {};
        char what[512], fix[512], msg[1400], where[4096];
        int r;

        if ((r = pam_stack_load(c->root, service, &st)) < 0)
                return r;
        if (st.error)
                return 0;   /* it went between the listing and the reading */
        if (st.include_error)
                return pam_finding(seen, d, DIAG_ERROR, st.include_error == VISIT_ERR_CYCLE ? "pam-include-cycle"
                                                                                             : "pam-include-bound",
                                   st.include_where, "rdmalimits doctor says which file comes back or is too much",
                                   st.include_error == VISIT_ERR_CYCLE
                                           ? "this include brings back a file it is in: rdmalimits reads no more of "
                                             "the stack"
                                           : "the stack's includes go past what rdmalimits reads: no more of it is "
                                             "read");
        if (st.aborts) {
                fix[0] = '\0';
                pam_abort_text(&st, what, sizeof what, fix, sizeof fix);
                snprintf(msg, sizeof msg, "%s: no %s session opens", what, service);
                return pam_finding(seen, d, DIAG_ERROR, "pam-start-fails", st.abort_where ? st.abort_where : service,
                                   fix[0] ? fix : NULL, msg);
        }
        for (size_t i = 0; i < st.n && r >= 0; i++) {
                const struct pam_entry *e = &st.v[i];
                enum pam_action a;
                unsigned jump;
                snprintf(where, sizeof where, "%s:%u", e->file, e->line);
                if (e->fails) {
                        snprintf(msg, sizeof msg, "libpam cannot use this line as written (no control, no module, or "
                                 "in a file read for the session only a type it does not know): it is a handler that "
                                 "always fails (PAM_PERM_DENIED), under '%s'", e->control);
                        r = pam_finding(seen, d, DIAG_ERROR, "pam-line-fails", where,
                                        "write TYPE CONTROL MODULE [ARGS] as pam.conf(5) says", msg);
                } else if (pam_control_action(e->control, PAM_RET_SUCCESS, &a, &jump) < 0) {
                        snprintf(msg, sizeof msg, "libpam cannot read the control '%s': every result of the line "
                                 "counts as a failure", e->control);
                        r = pam_finding(seen, d, DIAG_ERROR, "pam-bad-control", where,
                                        "write the control as pam.conf(5) says: required, requisite, sufficient, "
                                        "optional, or [value=action ...]", msg);
                } else if (streq(e->name, "pam_limits") && (r = check_limits_conf(e, lines, where, seen, d)) != 0) {
                        /* reported (or out of memory) */
                } else if (e->unloadable && e->no_function) {
                        snprintf(msg, sizeof msg, "the module '%s' has no session function (pam_sm_open_session): "
                                 "the line returns PAM_MODULE_UNKNOWN, which '%s' decides, and does nothing",
                                 e->module, e->control);
                        r = pam_finding(seen, d, e->dash || strcasecmp(e->control, "optional") == 0 ? DIAG_WARNING
                                                                                                      : DIAG_ERROR,
                                        "pam-module-no-session", where,
                                        "remove the line from the session stack: the module works in other phases "
                                        "only", msg);
                } else if (e->unloadable) {
                        snprintf(msg, sizeof msg, "libpam cannot load the module '%s': the line returns "
                                 "PAM_MODULE_UNKNOWN, which '%s' decides, and does nothing", e->module, e->control);
                        r = pam_finding(seen, d, e->dash || strcasecmp(e->control, "optional") == 0 ? DIAG_WARNING
                                                                                                      : DIAG_ERROR,
                                        "pam-module-missing", where,
                                        "install the module, or correct its name (a carriage return, a DOS line "
                                        "end, is part of it)", msg);
                }
        }
        return r;
}

/* Every service of pam.d (/etc, then /usr/lib: libpam's directories), each file's session
 * stack as libpam builds it for a service of that name: what makes pam_start() fail or never
 * return, lines libpam cannot use, controls it cannot read, modules it cannot load.  A tree
 * without pam.d has nothing to say. */
struct check_pam {
        const struct ctx *c;
        struct strmap seen;
        struct diag_list *d;
        struct tool_session reads;   /* the trees the pam_limits lines read, each loaded once */
        struct session_lines lines;
};

static int check_pam_service(const char *service, void *data) {
        struct check_pam *p = data;
        return check_pam_stack(p->c, service, &p->lines, &p->seen, p->d);
}

static int check_pam(const struct ctx *c, struct diag_list *d) {
        struct check_pam p = { .c = c, .d = d, .reads = { .ctx = c } };
        p.lines = tool_session_lines(&p.reads);
        int r = pam_for_each_service(c->root, check_pam_service, &p);
        strmap_clear(&p.seen, NULL);
        tool_session_clear(&p.reads);
        return r;
}

int cmd_check(struct ctx *c) {
        _cleanup_(diag_list_clear) struct diag_list d = {};
        _cleanup_(ident_freep) struct ident *id = NULL;
        int r;

        if (ctx_ident(c, &id) < 0)
                return CMD_FINDINGS;
        if (c->argc == 0) {
                _cleanup_(lc_tree_freep) struct lc_tree *t = NULL;
                if (ctx_load_tree(c, NULL, &t) < 0)
                        return CMD_FINDINGS;
                /* what the findings depend on, when it was assumed (explain says the same) */
                if (lc_tree_flavour_assumption(t)) {
                        char fl[LC_FLAVOUR_NAME_MAX];
                        diag_addf(&d, DIAG_INFO, "flavour-assumed", t->root ? "etc/os-release" : "/etc/os-release", 0,
                                  "name the release with --flavour", "%s, %s: the findings follow that model",
                                  lc_tree_flavour_assumption(t), lc_flavour_to_string(t->release, fl));
                }
                r = lc_check(t, id, &d);
        } else {
                r = 0;
                for (int i = 0; i < c->argc && r >= 0; i++) {
                        _cleanup_(lc_tree_freep) struct lc_tree *t = NULL;
                        /* a file given by name is checked alone, as with pam_limits conf= */
                        r = lc_tree_load(NULL, c->flavour, c->argv[i], &t);
                        if (r >= 0 && t->n_files && t->files[0].open_error == -ENOENT)
                                diag_add(&d, DIAG_ERROR, c->argv[i], 0, "does not exist");
                        else if (r >= 0)
                                r = lc_check(t, id, &d);
                }
        }
        if (r >= 0 && c->argc == 0)
                r = check_pam(c, &d);
        if (r >= 0 && c->policy)
                (void)check_policy_file(c, &d, NULL, NULL, NULL);
        if (r < 0) {
                log_error("check failed: %s", errno_text(r));
                return r;
        }
        size_t errors = diag_count(&d, DIAG_ERROR), warnings = diag_count(&d, DIAG_WARNING);
        if (c->json) {
                struct json j;
                json_doc_begin(&j);
                json_ku64(&j, "errors", errors);
                json_ku64(&j, "warnings", warnings);
                json_key(&j, "findings");
                diag_json(&j, &d);
                json_doc_end(&j);
        } else {
                diag_print(&d, stdout, c->quiet);
                if (!c->quiet)
                        printf("%zu error%s, %zu warning%s\n", errors, errors == 1 ? "" : "s", warnings,
                               warnings == 1 ? "" : "s");
        }
        return errors ? CMD_FINDINGS : 0;
}
