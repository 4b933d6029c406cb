internal import CLibPQ
import Foundation

extension PostgreSQLConnection {
    /// A notification `NOTIFY` (or `pg_notify`) sent on a channel this connection listens to.
    struct Notification: Sendable {
        var channel: String
        var payload: String
        /// The server process of the connection that sent it.
        var senderProcessID: Int32
    }

    /// The notifications received, waiting up to `timeout` seconds for the first when none has
    /// arrived yet (0: only those already received).
    ///
    /// - Throws: ``PostgreSQLError`` with ``PostgreSQLError/Kind/connectionLost`` when the
    ///   connection broke.
    func notifications(waitingUpTo timeout: TimeInterval) throws -> [Notification] {
        var received = try drainNotifications()
        guard received.isEmpty, timeout > 0 else { return received }
        let socket = PQsocket(handle)
        guard socket >= 0 else {
            throw PostgreSQLError(.connectionLost, message: "the connection has no socket", server: server)
        }
        let deadline = Date().addingTimeInterval(timeout)
        while received.isEmpty {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { break }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(remaining * 1000, Double(Int32.max)).rounded(.up))
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 && errno != EINTR {
                throw PostgreSQLError(.connectionLost, message: "waiting for notifications failed (errno \(errno))", server: server)
            }
            received = try drainNotifications()
        }
        return received
    }

    /// Reads what the server sent and returns the notifications among it.
    private func drainNotifications() throws -> [Notification] {
        guard PQconsumeInput(handle) == 1 else {
            let message = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
            throw PostgreSQLError(.connectionLost, message: message.isEmpty ? "the connection broke" : message, server: server)
        }
        var received: [Notification] = []
        while let notify = PQnotifies(handle) {
            let channel = String(cString: notify.pointee.relname)
            let payload = notify.pointee.extra.map { String(cString: $0) } ?? ""
            received.append(Notification(channel: channel, payload: payload, senderProcessID: notify.pointee.be_pid))
            PQfreemem(notify)
        }
        return received
    }
}
