// The system libpq, for the raw baselines of the PostgreSQL benchmarks.
#ifndef CBENCHMARKLIBPQ_SHIM_H
#define CBENCHMARKLIBPQ_SHIM_H

#include <libpq-fe.h>

#endif
