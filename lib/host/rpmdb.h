/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

/* Where rpm keeps its database in a tree: Fedora 36 and later, then everything else. */
#define RPMDB_DIRS { "/usr/lib/sysimage/rpm", "/var/lib/rpm" }

/* How long rpm may take to answer. */
#define RPMDB_TIMEOUT_MS 5000

/* The most a tree's rpm database may weigh to be read (its files are copied first). */
#define RPMDB_MAX_BYTES (1024ull * 1024 * 1024)

/*
 * The VERSION of package name in the rpm database of the tree at root (NULL or "" for this
 * system), as this system's rpm(8) reads it, into buf ("1.5.1").
 *
 * The database directory is opened without following a link (a tree's link to the host's
 * database is not the tree's), its regular files are copied into a private directory, and rpm
 * runs on the copy with a clean environment, as nobody when the caller is root (rpm writes
 * -shm/-wal files and locks next to a database it opens, and a tree's database is data from
 * elsewhere), within timeout_ms; its answer is read up to a bound and must be a version.
 *
 * 0; -ENOENT when the tree has no rpm database or the package is not in it; -ENOEXEC when
 * this system has no rpm(8); -EFBIG for a database over RPMDB_MAX_BYTES; -ETIMEDOUT; -EBADMSG
 * when rpm's answer is not a version; another negative errno.
 */
int rpmdb_package_version(const char *root, const char *name, unsigned timeout_ms, char *buf, size_t size);
