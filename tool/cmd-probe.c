/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "escape.h"
#include "fsutil.h"
#include "hw.h"
#include "hw-names.h"
#include "hwcache.h"
#include "hwcache-write.h"
#include "policy.h"
#include "size.h"
#include "tool.h"

static const char *verbs_status_word(int st) {
        static const struct code_word words[] = {
                { 0, "ok" }, { -ENOENT, "not-installed" }, { -ENOSYS, "no-device" },
                { -ENODEV, "no-device" }, { -ENODATA, "not-queried" }, { -ENOPKG, "not-built" },
        };
        return CODE_WORD(st, words, "error");
}

/* the AF_XDP part's status in --json, from hw_summary.xdp_status */
static const char *xdp_status_word(int st) {
        static const struct code_word words[] = {
                { 0, "ok" }, { -EOPNOTSUPP, "unknown" }, { -ELIBACC, "not-installed" },
                { -ENOPKG, "not-built" },
        };
        return CODE_WORD(st, words, "error");
}

static void features_text(uint64_t f, char *buf, size_t size) {
        static const char *const names[] = { "basic", "redirect", "ndo-xmit", "xsk-zerocopy", "hw-offload",
                                             "rx-sg", "ndo-xmit-sg" };
        size_t n = 0;
        buf[0] = '\0';
        for (unsigned i = 0; i < ELEMENTSOF(names); i++)
                if (f & (UINT64_C(1) << i))
                        n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? "," : "", names[i]);
}

void print_auto_json(struct json *j, const struct policy *p, const struct policy_auto *a) {
        json_obj_begin(j);
        json_kstr(j, "policy", p->path);
        json_klimit_opt(j, "value", a->value, a->value);
        json_kbool(j, "hardware_found", a->hardware_found);
        json_ku64(j, "active_ports", a->active_ports);
        json_ku64(j, "zc_queues", a->zc_queues);
        json_ku64(j, "copy_queues", a->copy_queues);
        json_kbool(j, "xdp_unknown", a->xdp_unknown);
        json_kbool(j, "rdma_unknown", a->rdma_unknown);
        json_klimit(j, "sum", a->sum);
        json_klimit(j, "ram_cap", a->ram_cap);
        json_klimit(j, "mr_cap", a->mr_cap);
        json_kbool(j, "mr_cap_unknown", a->mr_unknown);
        json_kbool(j, "used_fallback", a->used_fallback);
        json_obj_end(j);
}

/* "base 64 MiB + 1 GiB x 1 active RDMA port + ... = X" */
void print_auto_text(const struct policy *p, const struct policy_auto *a, const char *indent) {
        char b[5][SIZE_FMT_MAX];
        const struct policy_hardware *h = &p->hw;
        char unknown[256] = "";
        policy_auto_unknown_text(a, unknown, sizeof unknown);
        if (a->used_fallback || !a->hardware_found) {
                if (a->used_fallback)
                        printf("%sno RDMA port or XDP queue found: fallback %s\n", indent, size_format(a->value, b[0]));
                else
                        printf("%sno RDMA port or XDP queue found and no fallback: auto leaves memlock unchanged\n",
                               indent);
                if (unknown[0])
                        printf("%s%s\n", indent, unknown + 2);
                return;
        }
        printf("%sbase %s + %s x %u active RDMA port%s + %s x %u zero-copy XDP queue%s + %s x %u copy-mode XDP queue%s = %s\n",
               indent, size_format(h->base, b[0]), size_format(h->rdma_port, b[1]), a->active_ports,
               a->active_ports == 1 ? "" : "s", size_format(h->xsk_queue, b[2]), a->zc_queues, a->zc_queues == 1 ? "" : "s",
               size_format(h->xsk_copy_queue, b[3]), a->copy_queues, a->copy_queues == 1 ? "" : "s",
               size_format(a->sum, b[4]));
        if (a->ram_cap)
                printf("%scapped at ram_share %g x MemTotal = %s\n", indent, h->ram_share, size_format(a->ram_cap, b[0]));
        if (a->mr_cap)
                printf("%scapped at the smallest max_mr_size %s\n", indent, size_format(a->mr_cap, b[0]));
        if (a->mr_unknown)
                printf("%sthe max_mr_size of an active RDMA device is unknown: not capped by it\n", indent);
        if (unknown[0])
                printf("%s%s: not counted\n", indent, unknown + 2);
        printf("%sauto = %s\n", indent, size_format(a->value, b[0]));
}

static void print_rdma_json(struct json *j, const struct hw_summary *hw) {
        json_obj_begin(j);
        /* "ok" with devices, "none" without (no device, or no RDMA support in the kernel) */
        json_kstr(j, "status", hw->rdma_status < 0 ? "error" : hw->n_rdma ? "ok" : "none");
        if (hw->rdma_status < 0)
                json_kstr(j, "error", errno_text(hw->rdma_status));
        json_kstr(j, "verbs", verbs_status_word(hw->verbs_status));
        json_karr_begin(j, "devices");
        for (size_t i = 0; i < hw->n_rdma; i++) {
                const struct hw_rdma_dev *dv = &hw->rdma[i];
                json_obj_begin(j);
                json_kstr(j, "name", dv->name);
                json_kstr(j, "node_type", hw_node_type_name(dv->node_type));
                json_ku64_opt(j, "max_mr_size", dv->verbs_error == 0, dv->max_mr_size);
                json_ki64_opt(j, "max_mr", dv->verbs_error == 0, dv->max_mr);
                if (dv->query_error || (dv->verbs_error && dv->verbs_error != -ENODATA))
                        json_kstr(j, "error", errno_text((dv->query_error ? dv->query_error : dv->verbs_error)));
                json_karr_begin(j, "ports");
                for (size_t k = 0; k < dv->n_ports; k++) {
                        json_obj_begin(j);
                        json_ku64(j, "port", dv->ports[k].num);
                        json_kstr(j, "state", hw_port_state_name(dv->ports[k].state));
                        json_kstr(j, "link_layer", hw_link_layer_name(dv->ports[k].link_layer));
                        if (dv->ports[k].query_error)
                                json_kstr(j, "error", errno_text(dv->ports[k].query_error));
                        json_obj_end(j);
                }
                json_arr_end(j);
                json_obj_end(j);
        }
        json_arr_end(j);
        json_obj_end(j);
}

static void print_xdp_json(struct json *j, const struct hw_summary *hw) {
        json_obj_begin(j);
        json_kstr(j, "status", xdp_status_word(hw->xdp_status));
        json_kbool(j, "sysfs_other_netns", hw->sysfs_other_netns);
        json_karr_begin(j, "interfaces");
        for (size_t i = 0; i < hw->n_xdp; i++) {
                const struct hw_xdp_if *x = &hw->xdp[i];
                json_obj_begin(j);
                json_ku64(j, "ifindex", x->ifindex);
                json_kstr(j, "name", x->name);
                json_ku64(j, "xdp_features", x->xdp_features);
                json_kbool(j, "zero_copy", x->zero_copy);
                json_kbool(j, "physical", x->physical);
                json_kbool(j, "counted", x->counted);
                json_ku64(j, "rx_queues", x->rx_queues);
                json_obj_end(j);
        }
        json_arr_end(j);
        json_obj_end(j);
}

static void print_probe_json(const struct ctx *c, const struct hw_summary *hw, const struct policy *p,
                             const struct policy_auto *a, const struct diag_list *d) {
        struct json j;

        json_doc_begin(&j);
        /* the hardware is always this host's: a --root tree holds no devices */
        json_kstr(&j, "hardware_of", "host");
        json_kstr(&j, "root", c->root);
        json_key(&j, "rdma");
        print_rdma_json(&j, hw);
        json_key(&j, "xdp");
        print_xdp_json(&j, hw);
        json_ku64_opt(&j, "mem_total", hw->mem_status == 0, hw->mem_total);
        json_key(&j, "auto");
        if (p)
                print_auto_json(&j, p, a);
        else
                json_null(&j);
        json_key(&j, "policy_findings");
        diag_json(&j, d);
        json_doc_end(&j);
}

static void print_rdma_text(const struct hw_summary *hw) {
        char buf[SIZE_FMT_MAX];

        printf("RDMA devices (sysfs; attributes from libibverbs):\n");
        if (hw->rdma_status < 0)
                printf("  unknown: cannot read /sys/class/infiniband: %s\n", errno_text(hw->rdma_status));
        else if (hw->n_rdma == 0)
                printf("  no RDMA device\n");
        for (size_t i = 0; i < hw->n_rdma; i++) {
                const struct hw_rdma_dev *dv = &hw->rdma[i];
                char name[ESCAPE_NAME_MAX];
                str_escape(dv->name, name, sizeof name); /* names come from sysfs: shown escaped */
                if (dv->query_error)
                        printf("  %-12s cannot read its sysfs node: %s\n", name, errno_text(dv->query_error));
                else if (dv->verbs_error)
                        printf("  %-12s %s, max_mr_size unknown (%s)\n", name, hw_node_type_name(dv->node_type),
                               dv->verbs_error == -ENODATA ? (hw->verbs_status == -ENOENT ? "libibverbs is not installed"
                                                              : hw->verbs_status == -ENOPKG ? "built without libibverbs"
                                                              : hw->verbs_status < 0 ? errno_text(hw->verbs_status)
                                                              : "libibverbs does not list it")
                                                           : errno_text(dv->verbs_error));
                else
                        printf("  %-12s %s, max_mr_size %s, max_mr %d\n", name, hw_node_type_name(dv->node_type),
                               size_format(dv->max_mr_size, buf), dv->max_mr);
                for (size_t k = 0; k < dv->n_ports; k++) {
                        const struct hw_port *pt = &dv->ports[k];
                        if (pt->query_error)
                                printf("    port %u: cannot read its state: %s\n", pt->num, errno_text(pt->query_error));
                        else
                                printf("    port %u: %s, %s\n", pt->num, hw_port_state_name(pt->state),
                                       hw_link_layer_name(pt->link_layer));
                }
        }
}

static void print_xdp_text(const struct hw_summary *hw) {
        char feat[128], name[ESCAPE_NAME_MAX];

        printf("AF_XDP interfaces (netdev netlink family):\n");
        if (hw->xdp_status == -EOPNOTSUPP)
                printf("  unknown: this kernel has no netdev family (Linux < 6.3)\n");
        else if (hw->xdp_status == -ENOPKG)
                printf("  unknown: rdmalimits was built without AF_XDP detection (--disable-xdp)\n");
        else if (hw->xdp_status < 0)
                printf("  unknown (%s)\n", errno_text(hw->xdp_status));
        else if (hw->n_xdp == 0)
                printf("  none\n");
        if (hw->sysfs_other_netns)
                printf("  sysfs shows another network namespace's interfaces: none here is known to be physical\n"
                       "  (mount sysfs in this namespace, or name the interfaces in the policy's include)\n");
        for (size_t i = 0; i < hw->n_xdp; i++) {
                const struct hw_xdp_if *x = &hw->xdp[i];
                features_text(x->xdp_features, feat, sizeof feat);
                printf("  %-3u %-12s %s, %u RX queue%s, features 0x%llx (%s)%s\n", x->ifindex,
                       str_escape(x->name, name, sizeof name),
                       x->zero_copy ? "zero-copy" : "copy mode", x->rx_queues, x->rx_queues == 1 ? "" : "s",
                       (unsigned long long)x->xdp_features, feat,
                       x->counted ? (x->physical ? "" : ", counted (included)")
                                  : (x->physical                ? ", not counted (excluded)"
                                     : hw->sysfs_other_netns ? ", not counted (physical unknown)"
                                                             : ", not counted (virtual)"));
        }
}

static void print_probe_text(const struct ctx *c, const struct hw_summary *hw, const struct policy *p,
                             const struct policy_auto *a, const struct diag_list *d) {
        char buf[SIZE_FMT_MAX], path[4096];

        if (c->root)
                printf("(the hardware and RAM below are this host's; the policy is %s's)\n",
                       str_escape(c->root, path, sizeof path));

        print_rdma_text(hw);
        print_xdp_text(hw);
        if (hw->mem_status == 0)
                printf("RAM: MemTotal %s\n", size_format(hw->mem_total, buf));
        else
                printf("RAM: unknown (%s)\n", errno_text(hw->mem_status));
        if (p) {
                printf("auto per %s:\n", str_escape(p->path, path, sizeof path));
                print_auto_text(p, a, "  ");
        } else {
                printf("auto: the policy cannot be used:\n");
                diag_print(d, stdout, false);
        }
}

/* The cache the module reads: the hardware summary, for the policy's interface selection.
 * The default place under --root is the tree's, resolved inside the tree. */
static int save_cache(const struct ctx *c, const struct hw_summary *hw, const struct policy *p) {
        _cleanup_free_ char *rooted = c->cache ? NULL : fs_root_path(c->root, HW_CACHE_PATH);
        const char *path = c->cache ? c->cache : rooted;
        const struct hw_netsel *sel = p ? &p->hw.sel : NULL;
        int r;

        if (!path)
                return log_oom();
        if (hw->sysfs_other_netns) {
                /* a cache is checked against sysfs, which describes another namespace here */
                log_error("cannot write the cache %s: sysfs shows another network namespace's interfaces "
                          "(run probe --save where sysfs is this namespace's)", path);
                return -EXDEV;
        }
        if (!c->cache && fs_root_is_set(c->root)) {
                _cleanup_close_ int dfd = -1;
                r = fs_open_dir_in_root(c->root, HW_CACHE_DIR, FS_DIR_CREATE, &dfd);
                if (r >= 0)
                        r = hw_cache_save_at(hw, sel, dfd, HW_CACHE_NAME);
        } else
                r = hw_cache_save(hw, sel, path);
        if (r < 0)
                log_error("cannot write the cache %s: %s", path,
                          r == -E2BIG ? "more devices, ports or interfaces than a cache holds" : errno_text(r));
        else if (!c->json)
                log_info(c, "saved the hardware summary to %s (valid until reboot, a device or port change, or a "
                         "change of the policy's include/exclude)", path);
        return r;
}

int cmd_probe(struct ctx *c) {
        _cleanup_(hw_summary_freep) struct hw_summary *hw = NULL;
        _cleanup_(diag_list_clear) struct diag_list d = {};
        _cleanup_(policy_freep) struct policy *p = NULL;
        struct policy_auto a = {};
        int r;

        if (c->save && c->cache && c->cache[0] != '/') {
                char esc[4096];
                log_error("probe: --cache '%s': expected the absolute path of a file; nothing written",
                          str_escape(c->cache, esc, sizeof esc));
                return CMD_USAGE;
        }
        /* the policy first: its include/exclude decide which interfaces count */
        r = check_policy_file(c, &d, &p, NULL, NULL);
        if (r == -ENOMEM)
                return r;
        r = hw_probe(HW_ALL, p ? &p->hw.sel : NULL, &hw);
        if (r >= 0)
                r = hw_probe_verbs(hw);
        if (r >= 0 && c->save)
                r = save_cache(c, hw, p);
        if (r >= 0) {
                if (p)
                        policy_compute_auto(&p->hw, hw, &a);
                if (c->json)
                        print_probe_json(c, hw, p, &a, &d);
                else
                        print_probe_text(c, hw, p, &a, &d);
        } else if (!c->save)
                log_error("hardware probe failed: %s", errno_text(r));
        return r < 0 ? r : 0;
}
