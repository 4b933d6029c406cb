import Foundation

extension PostgreSQLStore {
    /// The first word of every payload, so that a listener of another layout ignores it.
    static let payloadVersion = "mo1"
    /// PostgreSQL refuses payloads of 8000 bytes or more: longer saves send several.
    static let payloadLimit = 7_000

    /// The channel the saves of this database are announced on.
    var notificationChannel: String { "modelobjects." + identifier }

    /// A listener of the saves other coordinators make to this database (see
    /// ``PostgreSQLChangeListener``), on a connection of its own.
    ///
    /// - Throws: ``PersistenceError/Code/connectionFailed`` when it cannot connect.
    public func makeChangeListener() throws -> PostgreSQLChangeListener {
        try PostgreSQLChangeListener(store: self)
    }

    /// Announces the IDs a save wrote, inside its transaction (the server delivers the
    /// notifications when it commits): lines `I|U|D <tab> entity <tab> key` after a header naming
    /// this store, in payloads under PostgreSQL's size limit.
    func notify(_ changes: SaveChanges, _ connection: PostgreSQLConnection) throws {
        let header = Self.payloadVersion + "\t" + senderToken
        var lines: [String] = []
        func add(_ kind: String, _ id: ManagedObjectID) {
            if let key = id.primaryKey { lines.append(kind + "\t" + id.entity.name + "\t" + String(key)) }
        }
        for record in changes.inserted { add("I", record.objectID) }
        for record in changes.updated { add("U", record.objectID) }
        for id in changes.deleted { add("D", id) }
        var payload = header
        for line in lines {
            if payload.utf8.count + line.utf8.count + 1 > Self.payloadLimit {
                try connection.run("SELECT pg_notify($1, $2)", [.text(notificationChannel), .text(payload)])
                payload = header
            }
            payload += "\n" + line
        }
        if payload != header {
            try connection.run("SELECT pg_notify($1, $2)", [.text(notificationChannel), .text(payload)])
        }
    }
}
