import Foundation

extension PostgreSQLStore: TypedRowReading {
    /// Decodes the row of `objectID` into `sink`: the one statement ``faultRecord(for:)`` runs.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed`` when a value cannot be decoded;
    ///   ``PersistenceError/Code/connectionFailed``; what the sink throws.
    package func readFaultRow(for objectID: ManagedObjectID, into sink: inout some TypedRowSink) throws -> Bool {
        guard objectID.storeIdentifier == identifier, let key = objectID.primaryKey,
              let mapping = schema.entities[objectID.entity.name]
        else { return false }
        let table = mapping.table
        var found = false
        try withConnection(.operationFailed) { connection, _ in
            try forEachRow(
                connection, table: table, where: "\(table).\"Z_PK\" = $1 AND \(table).\"Z_ENT\" = $2",
                bindings: [.text(String(key)), .text(objectID.entity.name)]
            ) { reader, row in
                try sink.receiveDecodedRow(of: row.entity) { values in (try reader.decode(row, into: &values), row.version) }
                found = true
            }
        }
        return found
    }

    /// Decodes the rows of `objectIDs` into `sink`: one statement per table (the keys go as
    /// one array parameter), the statements ``faultRecords(for:)`` runs.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; ``PersistenceError/Code/connectionFailed``;
    ///   what the sink throws.
    package func readFaultRows(for objectIDs: [ManagedObjectID], into sink: inout some TypedRowSink) throws {
        let wanted = IDsByTable(objectIDs, of: self)
        guard !wanted.tables.isEmpty else { return }
        try withConnection(.operationFailed) { connection, _ in
            for group in wanted.tables.sorted(by: { $0.table < $1.table }) {
                try forEachRow(
                    connection, table: group.table, where: "\(group.table).\"Z_PK\" = ANY($1::bigint[])", bindings: [Self.keyArray(group.keys)]
                ) { reader, row in
                    try sink.receiveDecodedRow(of: row.entity) { values in (try reader.decode(row, into: &values), row.version) }
                }
            }
        }
    }

    /// Decodes the rows a fetch asks for into `sink`: the one statement ``fetch(_:)`` runs.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; ``PersistenceError/Code/connectionFailed``;
    ///   what the sink throws.
    package func readFetchRows(
        _ request: StoreFetchRequest, into sink: inout some TypedRowSink
    ) throws -> (appliedPredicate: Bool, appliedSortAndLimit: Bool) {
        guard let plan = SQLFetchPlan(request, schema: schema, storeIdentifier: identifier) else { return (true, true) }
        try withConnection(.operationFailed) { connection, _ in
            try forEachRow(
                connection, table: plan.mapping.table, where: plan.condition, bindings: plan.bindings.map(Self.parameter),
                orderAndLimit: Self.orderAndLimit(of: plan, for: request), holding: request.propertiesToFetch
            ) { reader, row in
                try sink.receiveDecodedRow(of: row.entity) { values in (try reader.decode(row, into: &values), row.version) }
            }
        }
        return (plan.appliedPredicate, plan.appliedSortAndLimit)
    }
}
