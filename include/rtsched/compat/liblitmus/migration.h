/* SPDX-License-Identifier: MIT */
/*
 * liblitmus's "migration.h" for programs built inside a liblitmus tree
 * (its tests include it by that name). Everything it declares is in
 * <litmus.h> (domains and migration).
 */
#ifndef RTSCHED_LIBLITMUS_MIGRATION_H
#define RTSCHED_LIBLITMUS_MIGRATION_H
#include <litmus.h>
#endif
