// The system SQLite, for the raw baselines of the SQLite benchmarks.
#ifndef CBENCHMARKSQLITE_SHIM_H
#define CBENCHMARKSQLITE_SHIM_H

#include <sqlite3.h>

static inline sqlite3_destructor_type cbenchmarksqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
