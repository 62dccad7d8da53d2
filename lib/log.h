/* SPDX-License-Identifier: MIT */
/* Terminal output for the command layer only; the level is the one global. */
#ifndef LIB_LOG_H
#define LIB_LOG_H

enum log_level { LOG_QUIET, LOG_ERR, LOG_INFO, LOG_DEBUG };

extern enum log_level log_level;

void log_msg(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
