// The system SQLite, for the ManagedObjects SQLite store. Only Sources/ManagedObjects/SQLite/
// imports this module.
#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import: it tells
// SQLite to copy a bound text or blob before the bind call returns.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
