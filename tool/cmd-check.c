/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "ident-files.h"
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
        _cleanup_free_ char *path = fs_root_path(c->root, c->policy_path), *text = NULL;
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
