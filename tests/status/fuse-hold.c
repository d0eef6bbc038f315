/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuse-hold MOUNTPOINT [UID]: a FUSE file system with one empty file, "f", that never answers a
 * FLUSH from root (uid 0): a close() by root of a descriptor of "f" hangs until the file
 * system goes away.  What a user's FUSE daemon can do to root when root closes a copy of the
 * user's descriptor.  Mounted with allow_other; prints one line per request from root
 * ("root OPCODE") and "ready" once mounted.  With UID, the mount says that user serves it
 * (user_id=UID), as a user's fusermount mount does.  Runs until killed (inside a private mount
 * namespace: the mount goes with it).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static int dev;

static void reply(uint64_t unique, int error, const void *body, size_t len) {
        struct fuse_out_header h = { .len = (uint32_t)(sizeof h + len), .error = error, .unique = unique };
        char buf[sizeof h + 512];
        memcpy(buf, &h, sizeof h);
        if (len)
                memcpy(buf + sizeof h, body, len);
        (void)!write(dev, buf, sizeof h + len);
}

static void attr_of(uint64_t node, struct fuse_attr *a) {
        memset(a, 0, sizeof *a);
        a->ino = node;
        a->mode = node == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0666;
        a->nlink = node == FUSE_ROOT_ID ? 2 : 1;
}

static void handle(const struct fuse_in_header *in, const char *arg) {
        if (in->uid == 0 && in->opcode != FUSE_INIT) {
                printf("root %u\n", in->opcode);
                fflush(stdout);
        }
        switch (in->opcode) {
        case FUSE_INIT: {
                const struct fuse_init_in *i = (const void *)arg;
                struct fuse_init_out o = { .major = FUSE_KERNEL_VERSION, .minor = i->minor < 31 ? i->minor : 31,
                                           .max_readahead = i->max_readahead, .max_write = 4096 };
                reply(in->unique, 0, &o, sizeof o);
                return;
        }
        case FUSE_LOOKUP: {
                struct fuse_entry_out e = { .nodeid = 2, .entry_valid = 3600, .attr_valid = 3600 };
                if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, "f") != 0) {
                        reply(in->unique, -ENOENT, NULL, 0);
                        return;
                }
                attr_of(2, &e.attr);
                reply(in->unique, 0, &e, sizeof e);
                return;
        }
        case FUSE_GETATTR: {
                struct fuse_attr_out o = { .attr_valid = 3600 };
                attr_of(in->nodeid, &o.attr);
                reply(in->unique, 0, &o, sizeof o);
                return;
        }
        case FUSE_OPEN: {
                struct fuse_open_out o = { .fh = 1 };
                reply(in->unique, 0, &o, sizeof o);
                return;
        }
        case FUSE_FLUSH:
                if (in->uid == 0)
                        return; /* held: root's close() waits */
                reply(in->unique, 0, NULL, 0);
                return;
        case FUSE_RELEASE:
                reply(in->unique, 0, NULL, 0);
                return;
        case FUSE_INTERRUPT:
        case FUSE_FORGET:
        case FUSE_BATCH_FORGET:
                return;
        default:
                reply(in->unique, -ENOSYS, NULL, 0);
        }
}

int main(int argc, char **argv) {
        static char buf[FUSE_MIN_READ_BUFFER + 65536];
        char opts[128];
        unsigned uid = 0;

        if (argc < 2 || argc > 3 || (argc == 3 && sscanf(argv[2], "%u", &uid) != 1)) {
                fprintf(stderr, "usage: fuse-hold MOUNTPOINT [UID]\n");
                return 2;
        }
        dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
        if (dev < 0) {
                perror("/dev/fuse");
                return 77;
        }
        snprintf(opts, sizeof opts, "fd=%d,rootmode=40000,user_id=%u,group_id=%u,allow_other", dev, uid, uid);
        if (mount("fuse-hold", argv[1], "fuse", MS_NOSUID | MS_NODEV, opts) < 0) {
                perror("mount");
                return 77;
        }
        printf("ready\n");
        fflush(stdout);
        for (;;) {
                ssize_t n = read(dev, buf, sizeof buf);
                if (n < 0 && (errno == EINTR || errno == ENOENT))
                        continue;
                if (n < (ssize_t)sizeof(struct fuse_in_header))
                        return n < 0 && errno == ENODEV ? 0 : 1;
                handle((const struct fuse_in_header *)buf, buf + sizeof(struct fuse_in_header));
        }
}
