// The system libpq, for the ManagedObjects PostgreSQL store. Only
// Sources/ManagedObjects/CInterop/PostgreSQL/ imports this module.
#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H

#include <libpq-fe.h>

// The diagnostic field codes are character macros, which Swift does not import as such.
static inline int clibpq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int clibpq_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }

#endif
