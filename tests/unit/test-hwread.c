/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sysfs readers every probe goes through, hw_read_line() and hw_for_each_entry(), on a
 * throwaway tree, with their calls failing (tests/fault/fault.c linked in), descriptor 0
 * free, and a program exec()ed while they hold a descriptor.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "hw.h"
#include "hwcache.h"
#include "hwcache-write.h"
#include "macro.h"
#include "../fault/fault.h"
#include "../fault/fdcheck.h"

static char top[] = "/tmp/test-hwread-XXXXXX";

static int setup(void **state) {
        char p[PATH_MAX], q[PATH_MAX];
        (void)state;
        if (unit_tree(top, (const struct unit_file[]){
                    { "dev/state", "4: ACTIVE\nsecond line\n" },
                    { "dev/long", "abcdefgh" },
                    { "dev/empty", "" },
                    { "list/a", "" },
                    { "list/b", "" },
                    { "list/c", "" },
                    /* a fake /sys/class/infiniband */
                    { "ib/mlx5_1/node_type", "1: CA\n" },
                    { "ib/mlx5_1/ports/2/state", "1: DOWN\n" },
                    { "ib/mlx5_1/ports/2/link_layer", "Ethernet\n" },
                    { "ib/mlx5_1/ports/1/state", "4: ACTIVE\n" },
                    { "ib/mlx5_1/ports/1/link_layer", "InfiniBand\n" },
                    { "ib/mlx5_1/ports/0/state", "4: ACTIVE\n" },
                    { "ib/mlx5_1/ports/256/state", "4: ACTIVE\n" },
                    { "ib/mlx5_1/ports/x/state", "4: ACTIVE\n" },
                    { "ib/mlx5_0/node_type", "256: BIG\n" },
                    { "ib/mlx5_0/ports/1/state", "4: ACTIVE\n" },
                    { "ib/mlx5_0/ports/1/link_layer", "Something\n" },
                    { "ib/mlx5_0/ports/3/state", "garbage\n" },
                    { "ib/mlx5_0/ports/3/link_layer", "InfiniBand\n" },
                    { "ib/noports/node_type", "4: RNIC\n" },
                    { "ib/zz_bad/ports/1/link_layer", "Ethernet\n" },
                    /* a fake /sys/class/net, and what "." and ".." would reach from it */
                    { "class/net/eth0/device", "" },
                    { "class/net/eth0/ifindex", "5\n" },
                    { "class/net/eth0/queues/rx-0/x", "" },
                    { "class/net/eth0/queues/rx-1/x", "" },
                    { "class/net/eth0/queues/tx-0/x", "" },
                    { "class/net/veth0/ifindex", "x\n" },
                    { "class/net/veth0/queues/rx-0/x", "" },
                    { "class/net/device", "" },
                    { "class/device", "" },
                    { "ib/zz_bad/ports/2/state", "255: MAX\n" },
                    { "ib/.hidden/node_type", "1: CA\n" },
                    { "class/net/dang0/ifindex", "7\n" },
                    {},
            }) < 0)
                return -1;
        if (symlink("/nonexistent-device-of-dang0", unit_path(p, top, "class/net/dang0/device")) < 0)
                return -1;
        return symlink(unit_path(p, top, "dev/state"), unit_path(q, top, "dev/link"));
}

static char fds_before[256], fds_during[256];

static void test_read_line(void **state) {
        char p[PATH_MAX], buf[64];
        (void)state;
        assert_int_equal(hw_read_line(unit_path(p, top, "dev/state"), buf, sizeof buf), 0);
        assert_string_equal(buf, "4: ACTIVE");
        /* cut to the buffer, NUL-terminated */
        memset(buf, 'x', sizeof buf);
        assert_int_equal(hw_read_line(unit_path(p, top, "dev/long"), buf, 4), 0);
        assert_string_equal(buf, "abc");
        assert_int_equal(buf[4], 'x');
        assert_int_equal(hw_read_line(unit_path(p, top, "dev/empty"), buf, sizeof buf), 0);
        assert_string_equal(buf, "");
        /* never through a link; a missing file */
        assert_int_equal(hw_read_line(unit_path(p, top, "dev/link"), buf, sizeof buf), -ELOOP);
        assert_int_equal(hw_read_line(unit_path(p, top, "dev/none"), buf, sizeof buf), -ENOENT);
        /* a failing read is the error, the buffer untouched */
        strcpy(buf, "marker");
        fault_arm("read", "state", 1, EIO);
        assert_int_equal(hw_read_line(unit_path(p, top, "dev/state"), buf, sizeof buf), -EIO);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_string_equal(buf, "marker");
}

static void hook_fds(void) {
        fd_inherited(fds_during, sizeof fds_during);
}

/* the descriptor is not inherited by a program started meanwhile */
static void test_read_line_exec(void **state) {
        char p[PATH_MAX], buf[64];
        (void)state;
        fd_inherited(fds_before, sizeof fds_before);
        strcpy(fds_during, "(not called)");
        fault_arm("read", "state", 1, 0);
        fault_hook(hook_fds);
        assert_int_equal(hw_read_line(unit_path(p, top, "dev/state"), buf, sizeof buf), 0);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_string_equal(fds_during, fds_before);
}

struct seen {
        char names[64];
        int calls, stop_at;
        bool exec_check;
};

static int collect(const char *name, ino_t ino, void *data) {
        struct seen *s = data;
        (void)ino;
        if (s->exec_check && s->calls == 0)
                fd_inherited(fds_during, sizeof fds_during);
        s->calls++;
        strcat(s->names, name);
        return s->calls == s->stop_at ? -ECANCELED : 0;
}

static void sort_chars(char *s) {
        for (size_t i = 0; s[i]; i++)
                for (size_t j = i + 1; s[j]; j++)
                        if (s[j] < s[i]) {
                                char c = s[i];
                                s[i] = s[j];
                                s[j] = c;
                        }
}

static void test_for_each(void **state) {
        char p[PATH_MAX];
        struct seen s = { .exec_check = true };
        (void)state;
        unit_path(p, top, "list");
        fd_inherited(fds_before, sizeof fds_before);
        assert_int_equal(hw_for_each_entry(p, collect, &s), 0);
        sort_chars(s.names);
        assert_string_equal(s.names, "abc");     /* no "." or ".." */
        assert_string_equal(fds_during, fds_before);
        /* the callback's error ends the walk */
        s = (struct seen){ .stop_at = 2 };
        assert_int_equal(hw_for_each_entry(p, collect, &s), -ECANCELED);
        assert_int_equal(s.calls, 2);
        /* not a directory, missing */
        s = (struct seen){};
        assert_int_equal(hw_for_each_entry(unit_path(p, top, "dev/state"), collect, &s), -ENOTDIR);
        assert_int_equal(hw_for_each_entry(unit_path(p, top, "none"), collect, &s), -ENOENT);
        assert_int_equal(s.calls, 0);
        /* with descriptor 0 free the directory may get it */
        s = (struct seen){};
        unit_path(p, top, "list");
        fd0_free();
        int r = hw_for_each_entry(p, collect, &s);
        fd0_restore();
        assert_int_equal(r, 0);
        assert_int_equal(s.calls, 3);
        s = (struct seen){};
        fd0_free();
        r = hw_read_line(unit_path(p, top, "dev/state"), s.names, sizeof s.names);
        fd0_restore();
        assert_int_equal(r, 0);
        assert_string_equal(s.names, "4: ACTIVE");
}

static int count_entry(const char *name, ino_t ino, void *data) {
        (void)name;
        (void)ino;
        ++*(unsigned *)data;
        return 0;
}

/* a directory that takes several getdents64() batches: every entry, the last batch's too (the
 * walk stops early only after a batch that left room for another record) */
static void test_for_each_batches(void **state) {
        char p[PATH_MAX], rel[160];
        unsigned n = 0;
        (void)state;
        for (unsigned i = 0; i < 700; i++) {
                snprintf(rel, sizeof rel, "big/entry-with-a-rather-long-name-%04u-xxxxxxxxxxxxxxxxxxxx", i);
                unit_put(top, rel, "");
        }
        assert_int_equal(hw_for_each_entry(unit_path(p, top, "big"), count_entry, &n), 0);
        assert_int_equal(n, 700);
}

/* A process of our own whose /proc/PID/fd is a directory that stops being readable part way:
 * once the process is reaped, getdents64() on it fails (ENOENT). */
static pid_t walk_child = -1;

static void start_walk_child(char p[static 64]) {
        walk_child = fork();
        assert_true(walk_child >= 0);
        if (walk_child == 0) {
                alarm(60);
                for (;;)
                        pause();
        }
        snprintf(p, 64, "/proc/%d/fd", (int)walk_child);
}

static void reap_walk_child(void) {
        if (walk_child <= 0)
                return;
        kill(walk_child, SIGKILL);
        waitpid(walk_child, NULL, 0);
        walk_child = -1;
}

static int reap_at_first(const char *name, ino_t ino, void *data) {
        (void)name;
        (void)ino;
        if (++*(unsigned *)data == 1)
                reap_walk_child();
        return 0;
}

/* a directory whose reading fails part way: the walk's error, not the end of the directory */
static void test_for_each_read_error(void **state) {
        char p[64];
        unsigned n = 0;
        (void)state;
        start_walk_child(p);
        alarm(10);      /* a walk that takes the error for "try again" never ends */
        int r = hw_for_each_entry(p, reap_at_first, &n);
        alarm(0);
        reap_walk_child();
        assert_int_equal(r, -ENOENT);
        assert_true(n >= 1);
}

static struct hw_summary *probe_fake_rdma(void) {
        char p[PATH_MAX];
        struct hw_summary *s = NULL;
        fault_redirect("/sys/class/infiniband", unit_path(p, top, "ib"));
        int r = hw_probe(HW_RDMA, NULL, &s);
        fault_redirect(NULL, NULL);
        assert_int_equal(r, 0);
        return s;
}

/* the RDMA devices and their ports, from a fake /sys/class/infiniband */
static void test_probe_rdma(void **state) {
        char p[PATH_MAX];
        (void)state;
        struct hw_summary *s = probe_fake_rdma();
        assert_int_equal(s->rdma_status, 0);
        assert_int_equal(s->n_rdma, 4);
        /* sorted by name */
        assert_string_equal(s->rdma[0].name, "mlx5_0");
        assert_string_equal(s->rdma[1].name, "mlx5_1");
        assert_string_equal(s->rdma[2].name, "noports");
        /* a node type above 255 is a bad message; ports sorted; an unreadable state is the
         * port's error; a link layer neither IB nor Ethernet is unspecified */
        assert_int_equal(s->rdma[0].query_error, -EBADMSG);
        assert_int_equal(s->rdma[0].n_ports, 2);
        assert_int_equal(s->rdma[0].ports[0].num, 1);
        assert_int_equal(s->rdma[0].ports[0].state, 4);
        assert_int_equal(s->rdma[0].ports[0].link_layer, 0);
        assert_int_equal(s->rdma[0].ports[1].num, 3);
        assert_int_equal(s->rdma[0].ports[1].query_error, -EBADMSG);
        assert_int_equal(s->rdma[0].ports[1].link_layer, 1);
        /* ports 0, 256 and x are no ports */
        assert_int_equal(s->rdma[1].query_error, 0);
        assert_int_equal(s->rdma[1].node_type, 1);
        assert_int_equal(s->rdma[1].n_ports, 2);
        assert_int_equal(s->rdma[1].ports[0].num, 1);
        assert_int_equal(s->rdma[1].ports[0].state, 4);
        assert_int_equal(s->rdma[1].ports[0].link_layer, 1);
        assert_int_equal(s->rdma[1].ports[1].num, 2);
        assert_int_equal(s->rdma[1].ports[1].state, 1);
        assert_int_equal(s->rdma[1].ports[1].link_layer, 2);
        assert_int_equal(s->rdma[1].ports[1].query_error, 0);
        /* a device without ports/: its error, no ports */
        assert_int_equal(s->rdma[2].node_type, 4);
        assert_int_equal(s->rdma[2].n_ports, 0);
        assert_int_equal(s->rdma[2].query_error, -ENOENT);
        /* no node_type, a port without a state; 255 is a state */
        assert_string_equal(s->rdma[3].name, "zz_bad");
        assert_int_equal(s->rdma[3].query_error, -ENOENT);
        assert_int_equal(s->rdma[3].n_ports, 2);
        assert_int_equal(s->rdma[3].ports[0].query_error, -ENOENT);
        assert_int_equal(s->rdma[3].ports[0].link_layer, 2);
        assert_int_equal(s->rdma[3].ports[1].query_error, 0);
        assert_int_equal(s->rdma[3].ports[1].state, 255);
        assert_int_equal(hw_active_ports(s), 2);
        hw_summary_free(s);
        /* no /sys/class/infiniband: no device, not an error; another error is the status */
        fault_redirect("/sys/class/infiniband", unit_path(p, top, "none"));
        assert_int_equal(hw_probe(HW_RDMA, NULL, &s), 0);
        fault_redirect(NULL, NULL);
        assert_int_equal(s->rdma_status, 0);
        assert_int_equal(s->n_rdma, 0);
        hw_summary_free(s);
        fault_redirect("/sys/class/infiniband", unit_path(p, top, "ib"));
        fault_arm("open", "ib", 1, EACCES);
        assert_int_equal(hw_probe(HW_RDMA, NULL, &s), 0);
        fault_disarm();
        fault_redirect(NULL, NULL);
        assert_int_equal(s->rdma_status, -EACCES);
        assert_int_equal(s->n_rdma, 0);
        hw_summary_free(s);
        /* with descriptor 0 free, the directories may get it */
        fd0_free();
        s = probe_fake_rdma();
        fd0_restore();
        assert_int_equal(s->n_rdma, 4);
        assert_int_equal(s->rdma[1].n_ports, 2);
        hw_summary_free(s);
        /* ... and a ports/ directory may get it once the devices' directory is open */
        fault_arm("read", "node_type", 1, 0);
        fault_hook(fd0_free);
        s = probe_fake_rdma();
        fd0_restore();
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(s->rdma[0].n_ports, 2);
        assert_int_equal(s->rdma[1].n_ports, 2);
        hw_summary_free(s);
        /* their descriptors are never inherited: the devices' directory alone open (reading
         * a node_type), then with a ports/ directory (reading a state, below) */
        fd_inherited(fds_before, sizeof fds_before);
        strcpy(fds_during, "(not called)");
        fault_arm("read", "node_type", 1, 0);
        fault_hook(hook_fds);
        s = probe_fake_rdma();
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_string_equal(fds_during, fds_before);
        hw_summary_free(s);
        fd_inherited(fds_before, sizeof fds_before);
        strcpy(fds_during, "(not called)");
        fault_arm("read", "state", 1, 0);
        fault_hook(hook_fds);
        s = probe_fake_rdma();
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_string_equal(fds_during, fds_before);
        hw_summary_free(s);
}

/* HW_COUNTS (a login): the same devices, ports, states and count, without opening a
 * node_type or a link_layer */
static void test_probe_rdma_counts(void **state) {
        char p[PATH_MAX];
        struct hw_summary *full = probe_fake_rdma(), *s = NULL;
        (void)state;
        fault_redirect("/sys/class/infiniband", unit_path(p, top, "ib"));
        fault_arm_from("open", "*[el]_type", 1, 0);
        assert_int_equal(hw_probe(HW_RDMA | HW_COUNTS, NULL, &s), 0);
        assert_int_equal(fault_injected(), 0);
        fault_disarm();
        fault_arm_from("open", "*link_layer", 1, 0);
        struct hw_summary *again = NULL;
        assert_int_equal(hw_probe(HW_RDMA | HW_COUNTS, NULL, &again), 0);
        assert_int_equal(fault_injected(), 0);
        fault_disarm();
        fault_redirect(NULL, NULL);
        hw_summary_free(again);
        assert_int_equal(s->rdma_status, 0);
        assert_int_equal(s->n_rdma, full->n_rdma);
        for (size_t i = 0; i < s->n_rdma; i++) {
                assert_string_equal(s->rdma[i].name, full->rdma[i].name);
                assert_int_equal(s->rdma[i].node_type, 0);
                assert_int_equal(s->rdma[i].n_ports, full->rdma[i].n_ports);
                for (size_t k = 0; k < s->rdma[i].n_ports; k++) {
                        assert_int_equal(s->rdma[i].ports[k].num, full->rdma[i].ports[k].num);
                        assert_int_equal(s->rdma[i].ports[k].state, full->rdma[i].ports[k].state);
                        assert_int_equal(s->rdma[i].ports[k].query_error, full->rdma[i].ports[k].query_error);
                        assert_int_equal(s->rdma[i].ports[k].link_layer, 0);
                }
        }
        /* the device without ports/ keeps its error; the one whose node_type is bad has none */
        assert_int_equal(s->rdma[2].query_error, -ENOENT);
        assert_int_equal(s->rdma[0].query_error, 0);
        assert_int_equal(hw_active_ports(s), hw_active_ports(full));
        assert_int_equal(hw_active_ports(s), 2);
        hw_summary_free(s);
        hw_summary_free(full);
}

/* A device's ports/ that fails to read part way (a link to a reaped process's fd directory): the
 * walk's error is the device's, unless reading its node_type failed first; the probe goes on */
static void test_probe_rdma_ports_error(void **state) {
        static const struct {
                const char *node_type;
                int query_error;
        } cases[] = { { "1: CA\n", -ENOENT }, { "256: BIG\n", -EBADMSG } };
        char p[PATH_MAX], fd_dir[64], rel[64];
        (void)state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct hw_summary *s = NULL;
                snprintf(rel, sizeof rel, "procib%zu/dev/node_type", i);
                unit_put(top, rel, cases[i].node_type);
                snprintf(rel, sizeof rel, "procib%zu/dev/ports", i);
                start_walk_child(fd_dir);
                assert_int_equal(symlink(fd_dir, unit_path(p, top, rel)), 0);
                snprintf(rel, sizeof rel, "procib%zu", i);
                fault_redirect("/sys/class/infiniband", unit_path(p, top, rel));
                fault_arm("open", "state", 1, 0);       /* the first port's state: the process goes */
                fault_hook(reap_walk_child);
                alarm(10);
                int r = hw_probe(HW_RDMA, NULL, &s);
                alarm(0);
                unsigned long hooked = fault_injected();
                fault_disarm();
                fault_redirect(NULL, NULL);
                reap_walk_child();
                assert_int_equal(r, 0);
                assert_int_equal(hooked, 1);
                assert_int_equal(s->rdma_status, 0);
                assert_int_equal(s->n_rdma, 1);
                assert_int_equal(s->rdma[0].query_error, cases[i].query_error);
                hw_summary_free(s);
        }
}

/* a device name that fits the summary is kept whole, a longer one is no device of it */
static void test_probe_rdma_long_name(void **state) {
        char p[PATH_MAX], rel[PATH_MAX], name[80];
        struct hw_summary *s = NULL;
        (void)state;
        for (char c = 'a'; c <= 'b'; c++) {
                size_t len = sizeof s->rdma[0].name - 1 + (size_t)(c - 'a');
                memset(name, c, len);
                name[len] = '\0';
                snprintf(rel, sizeof rel, "names/%s/node_type", name);
                unit_put(top, rel, "1: CA\n");
        }
        fault_redirect("/sys/class/infiniband", unit_path(p, top, "names"));
        assert_int_equal(hw_probe(HW_RDMA, NULL, &s), 0);
        fault_redirect(NULL, NULL);
        assert_int_equal(s->n_rdma, 1);
        assert_int_equal(strlen(s->rdma[0].name), sizeof s->rdma[0].name - 1);
        assert_int_equal(s->rdma[0].name[0], 'a');
        hw_summary_free(s);
}

/* a device keeps HW_MAX_PORTS ports however many entries its ports/ has (255 and "001", which
 * parses as port 1): what the probe keeps, the cache holds */
static void test_probe_rdma_port_cap(void **state) {
        char p[PATH_MAX], rel[64];
        struct hw_summary *s = NULL, *back = NULL;
        char *text = NULL, *fp = NULL;
        size_t len = 0;
        (void)state;
        for (int n = 1; n <= HW_MAX_PORTS; n++) {
                snprintf(rel, sizeof rel, "cap/dev/ports/%d/state", n);
                unit_put(top, rel, "4: ACTIVE\n");
        }
        unit_put(top, "cap/dev/ports/001/state", "4: ACTIVE\n");
        fault_redirect("/sys/class/infiniband", unit_path(p, top, "cap"));
        assert_int_equal(hw_probe(HW_RDMA, NULL, &s), 0);
        assert_int_equal(s->n_rdma, 1);
        assert_int_equal(s->rdma[0].n_ports, HW_MAX_PORTS);
        assert_int_equal(hw_cache_format(s, NULL, &text, &len), 0);
        fault_redirect(NULL, NULL);
        assert_int_equal(hw_cache_parse(text, len, &back, &fp), 0);
        assert_int_equal(back->rdma[0].n_ports, HW_MAX_PORTS);
        hw_summary_free(back);
        hw_summary_free(s);
        free(text);
        free(fp);
}

/* each allocation of the probe failing in turn: -ENOMEM, or the whole answer */
static void test_probe_rdma_alloc(void **state) {
        char p[PATH_MAX];
        (void)state;
        for (unsigned long n = 1, hit = 1; hit; n++) {
                struct hw_summary *s = (struct hw_summary *)0x1;
                fault_redirect("/sys/class/infiniband", unit_path(p, top, "ib"));
                fault_arm("alloc", NULL, n, ENOMEM);
                int r = hw_probe(HW_RDMA, NULL, &s);
                hit = fault_injected();
                fault_disarm();
                fault_redirect(NULL, NULL);
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        assert_ptr_equal(s, (struct hw_summary *)0x1);
                        continue;
                }
                assert_int_equal(r, 0);
                assert_int_equal(s->n_rdma, 4);
                assert_int_equal(s->rdma[1].n_ports, 2);
                assert_int_equal(hw_active_ports(s), 2);
                hw_summary_free(s);
        }
}

/* 1024 ports in all are counted, no more: five devices of 255 ports */
static void test_probe_rdma_many_ports(void **state) {
        char p[PATH_MAX], rel[64];
        struct hw_summary *s = NULL;
        (void)state;
        for (int d = 0; d < 5; d++)
                for (int n = 1; n <= 255; n++) {
                        snprintf(rel, sizeof rel, "many/dev%d/ports/%d/state", d, n);
                        unit_put(top, rel, "4: ACTIVE\n");
                }
        fault_redirect("/sys/class/infiniband", unit_path(p, top, "many"));
        int r = hw_probe(HW_RDMA, NULL, &s);
        fault_redirect(NULL, NULL);
        assert_int_equal(r, 0);
        assert_int_equal(s->n_rdma, 5);
        size_t total = 0, full = 0;
        for (size_t i = 0; i < s->n_rdma; i++) {
                assert_true(s->rdma[i].n_ports <= 255);
                total += s->rdma[i].n_ports;
                full += s->rdma[i].n_ports == 255;
        }
        /* four devices in full, the one read last cut at the total (readdir() order) */
        assert_int_equal(total, 1024);
        assert_int_equal(full, 4);
        assert_int_equal(hw_active_ports(s), 1024);
        hw_summary_free(s);
}

/* what a failed probe counts: nothing, whatever the summary holds */
static void test_counts_of_failed_probes(void **state) {
        struct hw_port ports[] = { { .num = 1, .state = HW_PORT_ACTIVE } };
        struct hw_rdma_dev dev = { .name = "mlx5_0", .n_ports = 1, .ports = ports };
        struct hw_xdp_if ifs[] = {
                { .ifindex = 2, .name = "eth0", .xdp_features = 0x23 | HW_XDP_XSK_ZEROCOPY, .zero_copy = true,
                  .counted = true, .rx_queues = 8 },
                { .ifindex = 3, .name = "eth1", .xdp_features = 0x23, .counted = true, .rx_queues = 4 },
                { .ifindex = 4, .name = "eth2", .xdp_features = 0x23 | HW_XDP_XSK_ZEROCOPY, .zero_copy = true,
                  .counted = true, .rx_queues = 2 },
                { .ifindex = 5, .name = "eth3", .xdp_features = 0x23, .counted = true, .rx_queues = 1 },
        };
        struct hw_summary s = { .rdma_status = 0, .n_rdma = 1, .rdma = &dev, .xdp_status = 0, .n_xdp = 4, .xdp = ifs };
        (void)state;
        assert_int_equal(hw_active_ports(&s), 1);
        /* each counted interface's queues, summed */
        assert_int_equal(hw_zc_queues(&s), 10);
        assert_int_equal(hw_copy_queues(&s), 5);
        s.rdma_status = -EIO;
        s.xdp_status = -EOPNOTSUPP;
        assert_int_equal(hw_active_ports(&s), 0);
        assert_int_equal(hw_zc_queues(&s), 0);
        assert_int_equal(hw_copy_queues(&s), 0);
        assert_int_equal(hw_active_ports(NULL), 0);
        assert_int_equal(hw_zc_queues(NULL), 0);
}

/* The fingerprint's RDMA part from the fake tree: each device, each port's state's first
 * character ('?' unreadable), no dotfiles */
static void test_fingerprint(void **state) {
        char p[PATH_MAX], name[64];
        char *fp = NULL, *text = (char *)"marker";
        size_t len = 0;
        (void)state;
        fault_redirect("/sys/class/infiniband", unit_path(p, top, "ib"));
        int r = hw_fingerprint(NULL, &fp);
        fault_redirect(NULL, NULL);
        assert_int_equal(r, 0);
        const char *rdma = strstr(fp, ";rdma=");
        assert_non_null(rdma);
        assert_null(strstr(fp, ".hidden"));
        /* mlx5_0@INODE:1=4:3=g,mlx5_1@...:0=4:1=4:256=4:2=1:x=4,... (sorted as "name@inode") */
        static const char *const parts[] = { ":1=4:3=g,mlx5_1@", ":0=4:1=4:256=4:2=1:x=4,noports@", ",zz_bad@",
                                             ":1=?:2=2,;net=" };
        const char *at = rdma;
        for (size_t i = 0; i < ELEMENTSOF(parts); i++) {
                const char *q = strstr(at, parts[i]);
                if (!q)
                        fail_msg("%s: no %s", fp, parts[i]);
                at = q + strlen(parts[i]);
        }
        assert_int_equal(sscanf(rdma, ";rdma=%63[^@]@", name), 1);
        assert_string_equal(name, "mlx5_0");
        free(fp);
        /* the devices' directory unreadable: the fingerprint, the text and the save fail */
        struct hw_summary s = { .rdma_status = 0, .verbs_status = -ENODATA, .xdp_status = -ENODATA,
                                .mem_status = -ENODATA };
        fault_redirect("/sys/class/infiniband", p);
        fault_arm("open", "ib", 1, EACCES);
        assert_int_equal(hw_cache_format(&s, NULL, &text, &len), -EACCES);
        assert_int_equal(fault_injected(), 1);
        assert_string_equal(text, "marker");
        _cleanup_close_ int dfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        fault_arm("open", "ib", 1, EACCES);
        assert_int_equal(hw_cache_save_at(&s, NULL, dfd, "cache"), -EACCES);
        fault_disarm();
        fault_redirect(NULL, NULL);
        assert_int_equal(faccessat(dfd, "cache", F_OK, 0), -1);
        /* readable: written */
        fault_redirect("/sys/class/infiniband", p);
        assert_int_equal(hw_cache_save_at(&s, NULL, dfd, "cache"), 0);
        fault_redirect(NULL, NULL);
        assert_int_equal(faccessat(dfd, "cache", F_OK, 0), 0);
}

/* the cache holds the most ports the reader takes, 1024 */
static void test_cache_of_many_ports(void **state) {
        char p[PATH_MAX], rel[64];
        struct hw_summary *s = NULL, *back = NULL;
        char *text = NULL, *fp = NULL;
        size_t len = 0;
        (void)state;
        for (int d = 0; d < 5; d++)
                for (int n = 1; n <= 255; n++) {
                        snprintf(rel, sizeof rel, "many/dev%d/ports/%d/state", d, n);
                        unit_put(top, rel, "4: ACTIVE\n");
                }
        fault_redirect("/sys/class/infiniband", unit_path(p, top, "many"));
        assert_int_equal(hw_probe(HW_RDMA, NULL, &s), 0);
        assert_int_equal(hw_cache_format(s, NULL, &text, &len), 0);
        fault_redirect(NULL, NULL);
        assert_int_equal(hw_cache_parse(text, len, &back, &fp), 0);
        assert_int_equal(hw_active_ports(back), 1024);
        hw_summary_free(back);
        hw_summary_free(s);
        free(text);
        free(fp);
}

/* the RAM: sysinfo(2)'s, or its error as the status */
static void test_probe_mem(void **state) {
        struct hw_summary *s = NULL;
        (void)state;
        assert_int_equal(hw_probe(HW_MEM, NULL, &s), 0);
        assert_int_equal(s->mem_status, 0);
        assert_true(s->mem_total > 0);
        assert_int_equal(s->rdma_status, -ENODATA);
        hw_summary_free(s);
        fault_arm("sysinfo", NULL, 1, EPERM);
        assert_int_equal(hw_probe(HW_MEM, NULL, &s), 0);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(s->mem_status, -EPERM);
        assert_int_equal(s->mem_total, 0);
        hw_summary_free(s);
        /* out of memory there: the probe fails, as when any of its allocations does */
        s = (struct hw_summary *)0x1;
        fault_arm("sysinfo", NULL, 1, ENOMEM);
        assert_int_equal(hw_probe(HW_MEM, NULL, &s), -ENOMEM);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_ptr_equal(s, (struct hw_summary *)0x1);
        assert_int_equal(hw_probe((HW_ALL | HW_COUNTS) + 1, NULL, &s), -EINVAL);
}

/* MemTotal as sysinfo() gives it: units and pages multiplied, an answer of nothing or one that
 * does not fit in 64 bits refused */
static void test_probe_mem_values(void **state) {
        static const struct {
                unsigned long totalram;
                unsigned mem_unit;
                int status;
                uint64_t total;
        } cases[] = {
                { 1, 1, 0, 1 },
                { 4096, 4096, 0, UINT64_C(4096) * 4096 },
                { 0, 4096, -EBADMSG, 0 },
                { 4096, 0, -EBADMSG, 0 },
                { UINT64_MAX / 4096, 4096, 0, UINT64_MAX / 4096 * 4096 },
                { UINT64_MAX / 4096 + 1, 4096, -ERANGE, 0 },
                { UINT64_MAX, 1, 0, UINT64_MAX },
        };
        (void)state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct sysinfo si = { .totalram = cases[i].totalram, .mem_unit = cases[i].mem_unit };
                struct hw_summary *s = NULL;
                fault_sysinfo(&si);
                int r = hw_probe(HW_MEM, NULL, &s);
                fault_sysinfo(NULL);
                assert_int_equal(r, 0);
                if (s->mem_status != cases[i].status || s->mem_total != cases[i].total)
                        fail_msg("case %zu: status %d total %llu", i, s->mem_status, (unsigned long long)s->mem_total);
                hw_summary_free(s);
        }
}

/* two devices whatever order the directory lists them in: sorted by name */
static void test_probe_rdma_two(void **state) {
        char p[PATH_MAX], rel[64];
        static const char *const pairs[][2] = { { "a0", "a1" }, { "b0", "b1" }, { "c0", "c1" }, { "d0", "d1" },
                                                { "e0", "e1" }, { "f0", "f1" }, { "g0", "g1" }, { "h0", "h1" },
                                                { "i0", "i1" }, { "j0", "j1" }, { "k0", "k1" }, { "l0", "l1" } };
        bool reversed = false;
        (void)state;
        for (size_t i = 0; i < ELEMENTSOF(pairs) && !reversed; i++) {
                char sub[32];
                snprintf(sub, sizeof sub, "two%zu", i);
                for (int k = 0; k < 2; k++) {
                        snprintf(rel, sizeof rel, "%s/%s/node_type", sub, pairs[i][k]);
                        unit_put(top, rel, "1: CA\n");
                        snprintf(rel, sizeof rel, "%s/%s/ports/1/state", sub, pairs[i][k]);
                        unit_put(top, rel, "4: ACTIVE\n");
                }
                /* the order the directory lists them in */
                DIR *d = opendir(unit_path(p, top, sub));
                struct dirent *de;
                int first = -1;
                assert_non_null(d);
                while ((de = readdir(d)) && first < 0)
                        if (de->d_name[0] != '.')
                                first = streq(de->d_name, pairs[i][1]);
                closedir(d);
                if (first != 1)
                        continue;
                reversed = true;
                struct hw_summary *s = NULL;
                fault_redirect("/sys/class/infiniband", p);
                assert_int_equal(hw_probe(HW_RDMA, NULL, &s), 0);
                fault_redirect(NULL, NULL);
                assert_int_equal(s->n_rdma, 2);
                assert_string_equal(s->rdma[0].name, pairs[i][0]);
                assert_string_equal(s->rdma[1].name, pairs[i][1]);
                hw_summary_free(s);
        }
        if (!reversed)
                print_message("# no pair of names this file system lists in reverse order: not checked\n");
}

/* at most HW_MAX_RDMA_DEVICES devices are kept */
static void test_probe_rdma_bound(void **state) {
        char p[PATH_MAX], rel[64];
        struct hw_summary *s = NULL;
        (void)state;
        for (unsigned i = 0; i <= HW_MAX_RDMA_DEVICES; i++) {
                snprintf(rel, sizeof rel, "rb/dev%03u/node_type", i);
                unit_put(top, rel, "1: CA\n");
        }
        fault_redirect("/sys/class/infiniband", unit_path(p, top, "rb"));
        assert_int_equal(hw_probe(HW_RDMA, NULL, &s), 0);
        fault_redirect(NULL, NULL);
        assert_int_equal(s->n_rdma, HW_MAX_RDMA_DEVICES);
        hw_summary_free(s);
}

/* the fingerprint names at most HW_MAX_INTERFACES + HW_MAX_RDMA_DEVICES entries: a class
 * of RDMA devices with one more is refused */
static void test_fingerprint_bound(void **state) {
        char p[PATH_MAX], rel[64];
        char *fp = NULL;
        unsigned n = HW_MAX_INTERFACES + HW_MAX_RDMA_DEVICES;
        (void)state;
        /* the names of the selection's interfaces count too: none here */
        static char *none_patterns[] = { "no-such-interface-*", NULL };
        static char *all_excluded[] = { "*", NULL };
        static const struct hw_netsel none = { .include = none_patterns, .exclude = all_excluded };
        for (unsigned i = 0; i < n; i++) {
                snprintf(rel, sizeof rel, "fpb/d%u", i);
                unit_mkdir_p(top, rel);
        }
        fault_redirect("/sys/class/infiniband", unit_path(p, top, "fpb"));
        int r = hw_fingerprint(&none, &fp);
        fault_redirect(NULL, NULL);
        assert_int_equal(r, 0);
        free(fp);
        fp = NULL;
        unit_mkdir_p(top, "fpb/one-more");
        fault_redirect("/sys/class/infiniband", p);
        r = hw_fingerprint(&none, &fp);
        fault_redirect(NULL, NULL);
        assert_int_equal(r, -E2BIG);
        assert_null(fp);
}

/* which interfaces are physical, their RX queues, checked against the ifindex */
static void test_net_sysfs(void **state) {
        char p[PATH_MAX];
        unsigned n = 777;
        (void)state;
        fault_redirect("/sys/class/net", unit_path(p, top, "class/net"));
        assert_true(hw_if_physical("eth0"));
        assert_false(hw_if_physical("veth0"));
        /* the device link is what counts, not what it points to */
        assert_true(hw_if_physical("dang0"));
        assert_false(hw_if_physical(""));
        assert_false(hw_if_physical("eth0/.."));
        assert_false(hw_if_physical("."));
        assert_false(hw_if_physical(".."));
        assert_int_equal(hw_rx_queue_entries("eth0", &n), 0);
        assert_int_equal(n, 2);
        assert_int_equal(hw_rx_queue_entries("none", &n), -ENOENT);
        assert_int_equal(n, 0);
        assert_int_equal(hw_count_rx_queues("eth0", 5), 2);
        assert_int_equal(hw_count_rx_queues("eth0", 6), 0);   /* another namespace's eth0 */
        assert_int_equal(hw_count_rx_queues("veth0", 0), 0);  /* an ifindex that is no number */
        assert_int_equal(hw_count_rx_queues("none", 5), 0);
        /* the queues' directory is not inherited by a program started while the ifindex beside
         * it is read */
        fd_inherited(fds_before, sizeof fds_before);
        strcpy(fds_during, "(not called)");
        fault_arm("read", "ifindex", 1, 0);
        fault_hook(hook_fds);
        assert_int_equal(hw_count_rx_queues("eth0", 5), 2);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_string_equal(fds_during, fds_before);
        /* descriptor 0 free: the queues' directory opened there is a directory like any other */
        fd0_free();
        unsigned q = hw_count_rx_queues("eth0", 5);
        int r0 = hw_rx_queue_entries("eth0", &n);
        fd0_restore();
        assert_int_equal(q, 2);
        assert_int_equal(r0, 0);
        assert_int_equal(n, 2);
        fault_redirect(NULL, NULL);
}

/* hw_physmap_is_physical() over a fake /sys/devices/virtual/net: the listing's own answers
 * (a `device` looked up in the listed directory, a dangling link too), names it leaves out,
 * the order bsearch() needs, its descriptor, and its bound. */
static void physmap_tree(const char *dir, unsigned n) {
        char p[PATH_MAX], rel[64];
        assert_int_equal(mkdir(dir, 0755), 0);
        /* made in descending order: a directory need not list them sorted */
        for (unsigned i = n; i-- > 0;) {
                snprintf(rel, sizeof rel, "v%05u", i);
                unit_mkdir_p(dir, rel);
        }
        unit_mkdir_p(dir, "zvirt");
        unit_mkdir_p(dir, "fakephys");
        unit_mkdir_p(dir, "realdev");
        unit_mkdir_p(dir, "realdev/device");
        unit_mkdir_p(dir, "abcdefghijklmno");          /* 15 bytes: a name */
        unit_mkdir_p(dir, "abcdefghijklmnop");         /* 16: no interface name */
        unit_mkdir_p(dir, "abcdefghijklmnopqrstu");
        assert_int_equal(symlink("../no-such-parent", unit_path(p, dir, "fakephys/device")), 0);
}

static void hook_fds_physmap(void) {
        fd_inherited(fds_during, sizeof fds_during);
}

static bool physmap_lists(const struct hw_physmap *m, const char *name) {
        for (size_t i = 0; i < m->n_virt; i++)
                if (streq(m->virt[i], name))
                        return true;
        return false;
}

static void test_physmap_listing(void **state) {
        char d[PATH_MAX], none[PATH_MAX];
        struct hw_physmap m = HW_PHYSMAP_INIT;
        (void)state;
        unit_path(d, top, "virtnet");
        physmap_tree(d, 40);
        fd_inherited(fds_before, sizeof fds_before);
        strcpy(fds_during, "(not called)");
        fault_redirect("/sys/devices/virtual/net", d);
        /* no such interface anywhere but in the listing: only the listing can say yes, and a
         * dangling `device` link says yes as it does in /sys/class/net (not followed) */
        fault_arm("fstatat", "device", 1, 0);
        fault_hook(hook_fds_physmap);
        assert_true(hw_physmap_is_physical(&m, "fakephys"));
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_string_equal(fds_during, fds_before);   /* the listing's descriptor: O_CLOEXEC */
        assert_true(hw_physmap_is_physical(&m, "realdev"));
        assert_false(hw_physmap_is_physical(&m, "zvirt"));
        assert_false(hw_physmap_is_physical(&m, "v00017"));
        assert_false(hw_physmap_is_physical(&m, "v00000"));
        /* not listed: what hw_if_physical() says (the real /sys/class/net) */
        assert_int_equal(hw_physmap_is_physical(&m, "lo"), hw_if_physical("lo"));
        assert_false(hw_physmap_is_physical(&m, "no-such-if0"));
        fault_redirect(NULL, NULL);
        assert_true(m.listed);
        assert_true(m.virt_fd >= 0);
        assert_int_equal(m.n_virt, 40 + 4);
        assert_true(physmap_lists(&m, "abcdefghijklmno"));
        assert_false(physmap_lists(&m, "abcdefghijklmnop"));
        assert_false(physmap_lists(&m, "abcdefghijklmnopqrstu"));
        for (size_t i = 1; i < m.n_virt; i++)
                assert_true(strcmp(m.virt[i - 1], m.virt[i]) < 0);
        hw_physmap_done(&m);
        assert_int_equal(m.virt_fd, -1);
        assert_int_equal(m.n_virt, 0);

        /* descriptor 0 is a descriptor like any other, and is closed at the end */
        fault_redirect("/sys/devices/virtual/net", d);
        fd0_free();
        assert_true(hw_physmap_is_physical(&m, "fakephys"));
        assert_int_equal(m.virt_fd, 0);
        assert_int_equal(m.n_virt, 40 + 4);
        hw_physmap_done(&m);
        assert_int_equal(fcntl(0, F_GETFD), -1);
        fd0_restore();
        fault_redirect(NULL, NULL);

        /* no listing: every answer is hw_if_physical()'s */
        fault_redirect("/sys/devices/virtual/net", unit_path(none, top, "no-such-dir"));
        assert_false(hw_physmap_is_physical(&m, "fakephys"));
        assert_true(m.listed);
        assert_int_equal(m.virt_fd, -1);
        assert_int_equal(m.n_virt, 0);
        assert_int_equal(hw_physmap_is_physical(&m, "lo"), hw_if_physical("lo"));
        hw_physmap_done(&m);
        fault_redirect(NULL, NULL);
}

/* at most HW_PHYSMAP_MAX names are listed; the rest ask hw_if_physical() */
static void test_physmap_bound(void **state) {
        char d[PATH_MAX];
        struct hw_physmap m = HW_PHYSMAP_INIT;
        (void)state;
        unit_path(d, top, "virtbig");
        physmap_tree(d, HW_PHYSMAP_MAX + 10);
        fault_redirect("/sys/devices/virtual/net", d);
        assert_false(hw_physmap_is_physical(&m, "v00001"));
        fault_redirect(NULL, NULL);
        assert_int_equal(m.n_virt, HW_PHYSMAP_MAX);
        assert_true(m.allocated >= HW_PHYSMAP_MAX && m.allocated < 2 * (HW_PHYSMAP_MAX + 14));
        hw_physmap_done(&m);
}

static int group_setup(void **state) {
        return setup(state);
}

UNIT_MAIN(group_setup, unit_teardown, cmocka_unit_test(test_read_line), cmocka_unit_test(test_read_line_exec),
          cmocka_unit_test(test_for_each),
                cmocka_unit_test(test_for_each_batches), cmocka_unit_test(test_probe_rdma),
          cmocka_unit_test(test_probe_rdma_counts),
                cmocka_unit_test(test_probe_rdma_alloc), cmocka_unit_test(test_probe_rdma_many_ports),
          cmocka_unit_test(test_counts_of_failed_probes), cmocka_unit_test(test_fingerprint),
          cmocka_unit_test(test_cache_of_many_ports), cmocka_unit_test(test_probe_mem),
          cmocka_unit_test(test_net_sysfs), cmocka_unit_test(test_probe_mem_values), cmocka_unit_test(test_probe_rdma_two), cmocka_unit_test(test_fingerprint_bound), cmocka_unit_test(test_probe_rdma_bound),
          cmocka_unit_test(test_for_each_read_error), cmocka_unit_test(test_probe_rdma_ports_error),
          cmocka_unit_test(test_probe_rdma_long_name), cmocka_unit_test(test_probe_rdma_port_cap),
          cmocka_unit_test(test_physmap_listing), cmocka_unit_test(test_physmap_bound))
